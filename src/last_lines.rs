//! `readLastLines`: the last lines of a file, read backward on the blocking pool and handed to JS
//! as one array of batches.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use fastlines_core::{read_last_lines, LastLines, LineFramer, ReadOptions};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::NativeError;
use crate::runtime::spawn_blocking_promise;
use crate::teardown::{register, Registration};
use crate::text::JsText;

/// The last `n` lines of a file, read once, which `cancel()` (or finalizing this object, or
/// tearing down its env) stops between reads.
#[napi]
pub struct NativeLastLines {
    path: PathBuf,
    n: u64,
    options: ReadOptions,
    framer: Option<LineFramer>,
    cancelled: Arc<AtomicBool>,
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
        let cancelled = Arc::default();
        Ok(NativeLastLines {
            path: path_from_bytes(&path),
            n: n as u64,
            options: (&options).into(),
            framer: Some((&lines).into()),
            _open: register(env, &cancelled)?,
            cancelled,
        })
    }

    /// Resolves with the lines' batches (each its lines joined by `\n`, as `NativeLineStream`
    /// gives them) and where the file was taken to end, a `NativeError`, or `null` if
    /// cancelled. Called once.
    #[napi(ts_return_type = "Promise<NativeLastLinesRead | NativeError | null>")]
    pub fn read<'env>(&mut self, env: &'env Env) -> Result<Object<'env>> {
        let (path, n, options) = (self.path.clone(), self.n, self.options);
        let framer = self.framer.take();
        let cancelled = Arc::clone(&self.cancelled);
        spawn_blocking_promise(env, move || -> LastLinesStep {
            let framer = framer?;
            let read = read_last_lines(
                &path,
                n,
                options.end,
                options.chunk_size,
                framer,
                &cancelled,
            );
            match read {
                Ok(last) => last.map(|LastLines { batches, end }| {
                    let batches = batches.into_iter().map(|batch| JsText {
                        text: batch.text,
                        lending: None,
                    });
                    Either::A(NativeLastLinesRead {
                        batches: batches.collect(),
                        end: end as f64,
                    })
                }),
                Err(err) => Some(Either::B(err.into())),
            }
        })
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
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
