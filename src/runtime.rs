//! The Tokio runtime fastlines runs on, with bounded threads. napi-rs's default runtime starts
//! one worker per core and lets the blocking pool grow to 512 threads, so a thousand readers
//! started at once could each take a thread of their own.

use napi::bindgen_prelude::create_custom_tokio_runtime;
use tokio::runtime::Builder;

/// Async workers only forward read batches and settle promises; a few are plenty.
const MAX_WORKER_THREADS: usize = 2;

/// Blocking threads do the reads (one per reader while its trip runs), whole-file counts, and
/// the `open(2)` of a FIFO, which waits there for a writer as it does in Node. Reads from the
/// page cache are CPU-bound, so more threads than this would only contend; readers beyond it
/// queue for a thread.
const MAX_BLOCKING_THREADS: usize = 32;

#[napi_derive::module_init]
fn init_runtime() {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKER_THREADS);
    let runtime = Builder::new_multi_thread()
        .enable_all()
        .worker_threads(workers)
        .max_blocking_threads(MAX_BLOCKING_THREADS)
        .thread_name("fastlines")
        .build();
    // Without a runtime of our own, napi-rs creates its default one on first use.
    if let Ok(runtime) = runtime {
        create_custom_tokio_runtime(runtime);
    }
}
