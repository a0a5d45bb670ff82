//! `readLastLines`: the last lines of a file, read backward on the blocking pool (a FIFO's
//! forward, as its bytes come, on the runtime's workers) and handed to JS as one array of
//! batches.

use std::path::PathBuf;
use std::sync::Arc;

use fastlines_core::{
    read_last_lines, LastLines, LastLinesOfPipe, LastLinesRead, LineFramer, ReadError, ReadOptions,
};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::NativeError;
use crate::runtime::{spawn_blocking_then_promise, Then};
use crate::teardown::{register, Cancel, Registration, Stop};
use crate::text::JsText;

/// The last `n` lines of a file, read once, which `cancel()` (or finalizing this object, or
/// tearing down its env) stops between reads.
#[napi]
pub struct NativeLastLines {
    path: PathBuf,
    n: u64,
    options: ReadOptions,
    framer: Option<LineFramer>,
    cancel: Arc<Cancel>,
    _open: Registration,
}

#[napi]
impl NativeLastLines {
    /// `options.end`: the inclusive offset the file is taken to end at, if before its end;
    /// `options.start` is not used.
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        path: Uint8Array,
        n: f64,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let cancel = Arc::default();
        Ok(NativeLastLines {
            path: path_from_bytes(&path),
            n: n as u64,
            options: (&options).into(),
            framer: Some((&lines).into()),
            _open: register(env, &cancel)?,
            cancel,
        })
    }

    /// Resolves with the lines' batches (each its lines joined by `\n`, as `NativeLineStream`
    /// gives them) and where the file was taken to end, a `NativeError`, or `null` if
    /// cancelled. Called once.
    #[napi(ts_return_type = "Promise<NativeLastLinesRead | NativeError | null>")]
    pub fn read<'env>(&mut self, env: &'env Env) -> Result<Object<'env>> {
        let (path, n, options) = (self.path.clone(), self.n, self.options);
        let framer = self.framer.take();
        let cancel = Arc::clone(&self.cancel);
        spawn_blocking_then_promise(env, move || {
            let Some(framer) = framer else {
                return Then::Done(None);
            };
            match read_last_lines(&path, n, &options, framer, &cancel.flag) {
                Ok(LastLinesRead::Done(last)) => Then::Done(last.map(to_js)),
                Ok(LastLinesRead::Pipe(pipe)) => Then::Await(read_until_cancelled(pipe, cancel)),
                Err(err) => Then::Done(Some(failed(err))),
            }
        })
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancel.stop();
    }
}

/// The last lines of a FIFO or a terminal, read as its bytes come, or `null` once `cancel`
/// stops the read (which closes the descriptor at once, though no writer came).
async fn read_until_cancelled(pipe: Box<LastLinesOfPipe>, cancel: Arc<Cancel>) -> LastLinesStep {
    let read = cancel.unless_cancelled(pipe.read()).await;
    read.map(|read| read.map_or_else(failed, to_js))
}

/// The last lines as JS takes them.
fn to_js(LastLines { batches, end }: LastLines) -> Either<NativeLastLinesRead, NativeError> {
    let batches = batches.into_iter().map(|batch| JsText {
        text: batch.text,
        lending: None,
    });
    Either::A(NativeLastLinesRead {
        batches: batches.collect(),
        end: end as f64,
    })
}

fn failed(err: ReadError) -> Either<NativeLastLinesRead, NativeError> {
    Either::B(err.into())
}

/// What a read gives JS: the batches, a failure, or `null` when it was cancelled.
type LastLinesStep = Option<Either<NativeLastLinesRead, NativeError>>;

/// The last lines read: their batches, and the offset where the file was taken to end.
#[napi(object, object_to_js = true, object_from_js = false)]
pub struct NativeLastLinesRead {
    #[napi(ts_type = "string[]")]
    pub batches: Vec<JsText>,
    pub end: f64,
}

impl Drop for NativeLastLines {
    fn drop(&mut self) {
        self.cancel();
    }
}
