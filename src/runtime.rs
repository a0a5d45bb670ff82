//! fastlines' own Tokio runtime, with bounded threads, and the bridge from work on it to JS
//! promises. napi-rs's runtime is not used: its blocking pool grows to 512 threads, and a custom
//! runtime handed to it is replaced by its default one once every env that loaded the addon has
//! exited (say, a pool of recycled workers).

use std::future::{Future, Ready};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use fastlines_core::OsError;
use napi::bindgen_prelude::{retain_current_module_for_unload_safety, Object, Result, ToNapiValue};
use napi::{Env, Error, JsDeferred};
use napi_derive::napi;
use tokio::runtime::{Builder, Runtime};
use tokio::task::JoinHandle;

use crate::output::NativeError;

/// Async workers only forward read batches and settle promises; a few are plenty.
const MAX_WORKER_THREADS: usize = 2;

/// Blocking threads do the reads (one per reader while its trip runs), whole-file counts, and the
/// `open(2)` of a FIFO where it waits for a writer, as it does in Node (`readLastLines`, and
/// every reader outside Linux). Reads from the page cache are CPU-bound, so more threads than
/// this would only contend; readers beyond it queue for a thread.
const MAX_BLOCKING_THREADS: usize = 32;

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The runtime, started on first use and kept for the life of the process, whichever envs come
/// and go.
pub fn runtime() -> Result<&'static Runtime> {
    started()
        .map_err(|err| Error::from_reason(format!("fastlines could not start its threads: {err}")))
}

/// Starts fastlines' threads unless they run: `null`, or why they cannot start, reported as a
/// step's failure is. JS asks before it makes a reader that needs them, so that a process out of
/// descriptors gets the error an open gives there (`EMFILE`, syscall `open`, the path), as `fs`
/// would give it, where the runtime's own error had no `errno`, `syscall` or `path`.
#[napi]
#[cfg_attr(test, allow(dead_code))] // only JS calls it: napi registers it outside tests
pub fn start_threads() -> Option<NativeError> {
    let err = started().err()?;
    let syscall = if out_of_descriptors(&err) {
        "open" // what the reader's open would fail with
    } else {
        "pthread_create"
    };
    Some(OsError::new(&err, syscall).into())
}

/// Whether `err` says no descriptor is left, to the process (`EMFILE`) or the system (`ENFILE`):
/// numbers Linux and macOS share.
#[cfg(unix)]
#[cfg_attr(test, allow(dead_code))]
fn out_of_descriptors(err: &std::io::Error) -> bool {
    const ENFILE: i32 = 23;
    const EMFILE: i32 = 24;
    matches!(err.raw_os_error(), Some(EMFILE | ENFILE))
}

#[cfg(not(unix))]
fn out_of_descriptors(_: &std::io::Error) -> bool {
    false
}

/// [`runtime`], or the OS's error if it cannot start.
fn started() -> std::io::Result<&'static Runtime> {
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime);
    }
    // Its threads outlive any one env: keep the addon's code mapped while they run (Node
    // unloads an addon when the last env that loaded it goes away).
    retain_current_module_for_unload_safety();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKER_THREADS);
    let runtime = Builder::new_multi_thread()
        .enable_all()
        .worker_threads(workers)
        .max_blocking_threads(MAX_BLOCKING_THREADS)
        .thread_name("fastlines")
        .build()?;
    // Another env may have started one meanwhile; then this one is dropped unused.
    Ok(RUNTIME.get_or_init(|| runtime))
}

/// A promise settled, from the runtime, with what `work` gives. `work` must own everything it
/// uses: it may outlive the JS object that started it (a worker's env finalizes its objects at
/// once when it ends).
pub fn spawn_promise<'env, T, F>(env: &'env Env, work: F) -> Result<Object<'env>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let runtime = runtime()?;
    settle_with(env, runtime, runtime.spawn(work))
}

/// Like [`spawn_promise`], for blocking `work`, run on the runtime's blocking pool and settling
/// the promise from there: one hand-off between threads fewer than awaiting it on a worker
/// (a one-shot call such as `readLastLines` is mostly hand-offs: about 50 us each here).
pub fn spawn_blocking_promise<'env, T, F>(env: &'env Env, work: F) -> Result<Object<'env>>
where
    T: ToNapiValue + Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    spawn_blocking_then_promise(env, move || Then::<T, Ready<T>>::Done(work()))
}

/// What blocking work gives: its value, or what is left to await, which must not hold a
/// blocking thread while it waits (the bytes of a pipe, which may never come).
pub enum Then<T, F> {
    Done(T),
    Await(F),
}

/// Like [`spawn_blocking_promise`], for blocking `work` that may find that what is left is to
/// wait: that is awaited on the runtime's workers, which settle the promise.
pub fn spawn_blocking_then_promise<'env, T, W, F>(env: &'env Env, work: W) -> Result<Object<'env>>
where
    T: ToNapiValue + Send + 'static,
    W: FnOnce() -> Then<T, F> + Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let runtime = runtime()?;
    let (deferred, promise) = env.create_deferred()?;
    runtime.spawn_blocking(move || match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Then::Done(value)) => resolve(deferred, value),
        Ok(Then::Await(rest)) => settle_when_done(runtime, deferred, runtime.spawn(rest)),
        Err(_) => deferred.reject(Error::from_reason(
            "fastlines failed: a native task panicked",
        )),
    });
    Ok(promise)
}

/// A promise that settles when `task` ends (see [`settle_when_done`]).
fn settle_with<'env, T>(
    env: &'env Env,
    runtime: &Runtime,
    task: JoinHandle<T>,
) -> Result<Object<'env>>
where
    T: ToNapiValue + Send + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    settle_when_done(runtime, deferred, task);
    Ok(promise)
}

/// A promise to settle from the runtime's threads. Its resolver is boxed, so that blocking work
/// and the task it hands what is left to can each resolve it.
type Deferred<T> = JsDeferred<T, Box<dyn FnOnce(Env) -> Result<T> + Send>>;

fn resolve<T: ToNapiValue + Send + 'static>(deferred: Deferred<T>, value: T) {
    deferred.resolve(Box::new(move |_| Ok(value)));
}

/// Settles `deferred` when `task` ends: with its value, or rejected if it panicked. Either way
/// it settles, so it never holds the event loop open for nothing.
fn settle_when_done<T>(runtime: &Runtime, deferred: Deferred<T>, task: JoinHandle<T>)
where
    T: ToNapiValue + Send + 'static,
{
    runtime.spawn(async move {
        match task.await {
            Ok(value) => resolve(deferred, value),
            Err(failed) => {
                deferred.reject(Error::from_reason(format!("fastlines failed: {failed}")))
            }
        }
    });
}
