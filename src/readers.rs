//! The classes and functions JS calls. Each is a few lines over `fastlines-core`.

use bytes::Bytes;
use fastlines_core::{
    count_lines as count_file_lines, ChunkFramer, LineFramer, ReadStream, Reader, Text,
};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array, Undefined};
use napi::Env;
use napi_derive::napi;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::args::{path_from_bytes, ready, step, NativeError, NativeOptions, Step};
use crate::runtime::{runtime, spawn_blocking_promise, spawn_promise};
use crate::text::{JsChunk, JsText};

/// Batches of lines read in the background; `read()` resolves with one batch (its lines joined
/// by newlines), `null` at the end, or a `NativeError`.
///
/// The stream is shared with the futures that `read()` and `close()` start: when a worker
/// thread ends, its objects are finalized at once while those futures may still be running on
/// the process-wide runtime, so no future may borrow the object itself.
#[napi]
pub struct NativeLineStream {
    stream: Arc<ReadStream<Text>>,
}

#[napi]
impl NativeLineStream {
    #[napi(constructor)]
    pub fn new(path: Uint8Array, options: NativeOptions) -> Result<Self> {
        let framer = options.line_framer();
        let (path, options) = (path_from_bytes(&path), options.read_options());
        let _runtime = runtime()?.enter();
        let stream = ReadStream::spawn(path, options, framer);
        Ok(NativeLineStream {
            stream: Arc::new(stream),
        })
    }

    #[napi(ts_return_type = "Promise<string | NativeError | null>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let stream = Arc::clone(&self.stream);
        spawn_promise(env, async move { step(stream.next().await, JsText) })
    }

    /// Like `read()`, but only what is already read ahead, at once: `undefined` when JS has to
    /// wait (then it calls `read()`).
    #[napi(ts_return_type = "string | NativeError | null | undefined")]
    pub fn try_read(&self) -> Either<Step<JsText>, Undefined> {
        ready(self.stream.try_next(), JsText)
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.stream.bytes_read() as f64
    }

    /// Stops reading; resolves once the file is closed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        close_stream(env, &self.stream)
    }
}

impl Drop for NativeLineStream {
    /// Finalized (collected, or its worker ended) with a `read()` still pending, which keeps
    /// the stream alive: stop reading now all the same.
    fn drop(&mut self) {
        self.stream.cancel();
    }
}

fn close_stream<'env, T: Send + 'static>(
    env: &'env Env,
    stream: &Arc<ReadStream<T>>,
) -> Result<Object<'env>> {
    let stream = Arc::clone(stream);
    spawn_promise(env, async move { stream.close().await })
}

/// Raw chunks read in the background, each becoming a Buffer.
#[napi]
pub struct NativeChunkStream {
    /// Shared with pending futures, as in [`NativeLineStream`].
    stream: Arc<ReadStream<Bytes>>,
}

#[napi]
impl NativeChunkStream {
    #[napi(constructor)]
    pub fn new(path: Uint8Array, options: NativeOptions) -> Result<Self> {
        let (path, options) = (path_from_bytes(&path), options.read_options());
        let _runtime = runtime()?.enter();
        let stream = ReadStream::spawn(path, options, ChunkFramer);
        Ok(NativeChunkStream {
            stream: Arc::new(stream),
        })
    }

    #[napi(ts_return_type = "Promise<Buffer | NativeError | null>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let stream = Arc::clone(&self.stream);
        spawn_promise(env, async move { step(stream.next().await, JsChunk) })
    }

    #[napi(ts_return_type = "Buffer | NativeError | null | undefined")]
    pub fn try_read(&self) -> Either<Step<JsChunk>, Undefined> {
        ready(self.stream.try_next(), JsChunk)
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.stream.bytes_read() as f64
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        close_stream(env, &self.stream)
    }
}

impl Drop for NativeChunkStream {
    fn drop(&mut self) {
        self.stream.cancel();
    }
}

/// Batches of lines read on the calling thread, for `readLinesSync`. The file is opened by the
/// first `read()` so that an open error surfaces where iteration starts.
#[napi]
pub struct NativeLineReaderSync {
    state: SyncState,
    /// Outlives the reader, so progress still reads right after the file is closed.
    bytes_read: Arc<AtomicU64>,
}

enum SyncState {
    Unopened(std::path::PathBuf, NativeOptions),
    Reading(Reader<LineFramer>),
    Closed,
}

#[napi]
impl NativeLineReaderSync {
    #[napi(constructor)]
    pub fn new(path: Uint8Array, options: NativeOptions) -> Self {
        NativeLineReaderSync {
            state: SyncState::Unopened(path_from_bytes(&path), options),
            bytes_read: Arc::default(),
        }
    }

    #[napi(ts_return_type = "string | NativeError | null")]
    pub fn read(&mut self) -> Step<JsText> {
        if let SyncState::Unopened(path, options) = &self.state {
            let read_options = options.read_options();
            let framer = options.line_framer();
            match fastlines_core::read::open(path, &read_options) {
                Ok(opened) => {
                    let chunk_size = read_options.chunk_size;
                    let reader = Reader::new(opened.file, opened.remaining, chunk_size, framer)
                        .with_progress(Arc::clone(&self.bytes_read));
                    self.state = SyncState::Reading(reader);
                }
                Err(err) => {
                    self.state = SyncState::Closed;
                    return step(Some(Err(err.into())), JsText);
                }
            }
        }
        let SyncState::Reading(reader) = &mut self.state else {
            return None;
        };
        let next = reader.next_blocking().transpose();
        if !matches!(next, Some(Ok(_))) {
            self.state = SyncState::Closed;
        }
        step(next, JsText)
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.bytes_read.load(Ordering::Relaxed) as f64
    }

    /// Closes the file now.
    #[napi]
    pub fn close(&mut self) {
        self.state = SyncState::Closed;
    }
}

/// A line count run on the blocking pool, which `cancel()` stops between reads, as does
/// finalizing this object (collected, or its worker ended; JS keeps it while it awaits).
#[napi]
pub struct NativeLineCount {
    path: std::path::PathBuf,
    options: fastlines_core::ReadOptions,
    cancelled: Arc<AtomicBool>,
}

#[napi]
impl NativeLineCount {
    #[napi(constructor)]
    pub fn new(path: Uint8Array, options: NativeOptions) -> Self {
        NativeLineCount {
            path: path_from_bytes(&path),
            options: options.read_options(),
            cancelled: Arc::default(),
        }
    }

    /// Resolves with the count, a `NativeError`, or `null` if cancelled. The count owns what
    /// it needs, so it may outlive this object (see [`NativeLineStream`]).
    #[napi(ts_return_type = "Promise<number | NativeError | null>")]
    pub fn count<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (path, options) = (self.path.clone(), self.options);
        let cancelled = Arc::clone(&self.cancelled);
        spawn_blocking_promise(env, move || -> CountStep {
            match count_file_lines(&path, &options, &cancelled) {
                Ok(lines) => lines.map(|lines| Either::A(lines as f64)),
                Err(err) => Some(Either::B(err.into())),
            }
        })
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

/// What a count gives JS: the count, a failure, or `null` when it was cancelled.
type CountStep = Option<Either<f64, NativeError>>;

impl Drop for NativeLineCount {
    fn drop(&mut self) {
        self.cancel();
    }
}
