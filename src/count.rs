//! The line count behind `countLines`: of a file or descriptor, run on the blocking pool, or of
//! a fed source or pipe, run on the runtime's workers; making no strings either way.

use std::future::Future;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use fastlines_core::{
    count_blocking, count_lines_async, count_opened, open_unblocked, Encoding, LineFilter, Match,
    Reach, ReadError, ReadOptions, Reads, Source, Threads,
};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array};
use napi::Env;
use napi_derive::napi;
use tokio::io::AsyncRead;

use crate::byte_source::{NativeByteSource, Opened};
use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::NativeError;
use crate::runtime::{spawn_blocking_promise, spawn_blocking_then_promise, spawn_promise, Then};
use crate::teardown::{register, Cancel, Registration, Stop};

/// A line count, which `cancel()` stops, as do finalizing this object (collected, or its
/// worker ended; JS keeps it while it awaits) and tearing down its env.
#[napi]
pub struct NativeLineCount {
    counted: Counted,
    /// Counts only the lines that match, if the options say so.
    filter: Option<Arc<LineFilter>>,
    cancel: Arc<Cancel>,
    _open: Registration,
}

/// What is counted.
enum Counted {
    /// A file, read on the blocking pool (in parts as `Threads` says), which checks for a
    /// cancel between reads; a FIFO or a terminal at the path, as its bytes come, on the
    /// runtime's workers.
    Path(PathBuf, ReadOptions, Threads),
    /// A byte source, until `count()` takes it.
    Source(Mutex<Option<Opened>>),
}

#[napi]
impl NativeLineCount {
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        path: Uint8Array,
        options: NativeReadOptions,
        lines: NativeLineOptions,
        threads: Option<u32>,
    ) -> Result<Self> {
        // Absent: automatic; JS passes an integer >= 1.
        let threads = threads
            .and_then(|parts| NonZeroUsize::new(parts as usize))
            .map_or(Threads::Auto, Threads::Parts);
        let counted = Counted::Path(path_from_bytes(&path), (&options).into(), threads);
        Self::with(env, counted, &lines)
    }

    /// A count of a byte source's lines (see `byte_source.rs`).
    #[napi(factory)]
    pub fn from_source(
        env: &Env,
        source: &NativeByteSource,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let opened = source.open(&options)?;
        Self::with(env, Counted::Source(Mutex::new(Some(opened))), &lines)
    }

    fn with(env: &Env, counted: Counted, lines: &NativeLineOptions) -> Result<Self> {
        let encoding = Encoding::from(&lines.encoding);
        let filter = lines
            .r#match
            .as_ref()
            .map(|what| Arc::new(LineFilter::new(&Match::from(what), encoding)));
        let cancel = Arc::default();
        Ok(NativeLineCount {
            counted,
            filter,
            _open: register(env, &cancel)?,
            cancel,
        })
    }

    /// Resolves with the count, a `NativeError`, or `null` if cancelled. The count owns what
    /// it needs, so it may outlive this object (see `NativeLineStream`).
    #[napi(ts_return_type = "Promise<number | NativeError | null>")]
    pub fn count<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (filter, cancel) = (self.filter.clone(), Arc::clone(&self.cancel));
        match &self.counted {
            Counted::Path(path, options, threads) => {
                let (path, options, threads) = (path.clone(), *options, *threads);
                spawn_blocking_then_promise(env, move || {
                    count_path(&path, &options, filter, threads, cancel)
                })
            }
            Counted::Source(source) => {
                let opened = source.lock().unwrap_or_else(PoisonError::into_inner).take();
                match opened {
                    None => spawn_promise(env, async { None::<CountStep> }), // counted already
                    Some(Opened::Blocking(source)) => {
                        spawn_blocking_promise(env, move || -> CountStep {
                            to_step(count_blocking(source, filter.as_deref(), &cancel.flag))
                        })
                    }
                    Some(Opened::Fed(source)) => {
                        spawn_promise(env, count_until_cancelled(source, filter, cancel))
                    }
                    Some(Opened::Ready(source)) => {
                        spawn_promise(env, count_until_cancelled(source, filter, cancel))
                    }
                }
            }
        }
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancel.stop();
    }
}

/// Counts the file at `path` on the blocking thread this runs on, checking for a cancel between
/// reads; or, for a FIFO or a terminal, gives the count to await on the runtime's workers as its
/// bytes come: waiting for a writer holds no thread (32 quiet FIFOs held every one), and a
/// cancel stops the count and closes the descriptor at once, not at the writer's next write.
fn count_path(
    path: &Path,
    options: &ReadOptions,
    filter: Option<Arc<LineFilter>>,
    threads: Threads,
    cancel: Arc<Cancel>,
) -> Then<CountStep, impl Future<Output = CountStep>> {
    let stopped = || cancel.flag.load(Ordering::Relaxed);
    let reads = open_unblocked(path, options, Reach::until(&stopped))
        .and_then(Source::into_reads)
        .map_err(ReadError::from);
    match reads {
        Ok(Reads::Ready(source)) => Then::Await(count_until_cancelled(source, filter, cancel)),
        Ok(Reads::Blocking(source)) => Then::Done(to_step(count_opened(
            source,
            filter.as_deref(),
            threads,
            &cancel.flag,
        ))),
        Err(err) => Then::Done(to_step(Err(err))),
    }
}

/// [`count_lines_async`] of `source`, on the runtime's workers, or `null` once `cancel` stops it.
async fn count_until_cancelled<I>(
    source: Source<I>,
    filter: Option<Arc<LineFilter>>,
    cancel: Arc<Cancel>,
) -> CountStep
where
    I: AsyncRead + Unpin + Send + 'static,
{
    let counted = cancel.unless_cancelled(count_lines_async(source, filter.as_deref()));
    counted.await.and_then(|counted| to_step(counted.map(Some)))
}

/// What a count gives JS: the count, a failure, or `null` when it was cancelled.
type CountStep = Option<Either<f64, NativeError>>;

fn to_step(counted: std::result::Result<Option<u64>, ReadError>) -> CountStep {
    match counted {
        Ok(lines) => lines.map(|lines| Either::A(lines as f64)),
        Err(err) => Some(Either::B(err.into())),
    }
}

impl Drop for NativeLineCount {
    fn drop(&mut self) {
        self.cancel();
    }
}
