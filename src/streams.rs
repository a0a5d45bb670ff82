//! The background readers JS iterates: batches of lines ([`NativeLineStream`]) and raw chunks
//! ([`NativeChunkStream`]), each a [`ReadStream`] on fastlines' runtime. JS takes an item that
//! is already read with `tryRead()`, and awaits `read()` only when none is.

use std::sync::Arc;

use bytes::Bytes;
use fastlines_core::{ChunkFramer, LineFramer, ReadStream, Text};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array, Undefined};
use napi::Env;
use napi_derive::napi;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::{ready, step, Step};
use crate::runtime::{runtime, spawn_promise};
use crate::text::{JsChunk, JsText, Lending};

/// Batches of lines read in the background; `read()` resolves with one batch (its lines joined
/// by newlines), `null` at the end, or a `NativeError`.
///
/// The stream is shared with the futures that `read()` and `close()` start: when a worker
/// thread ends, its objects are finalized at once while those futures may still be running on
/// the process-wide runtime, so no future may borrow the object itself.
#[napi]
pub struct NativeLineStream {
    stream: Arc<ReadStream<Text>>,
    lending: Option<Lending>,
}

#[napi]
impl NativeLineStream {
    #[napi(constructor)]
    pub fn new(
        path: Uint8Array,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let stream = spawn(&path, &options, LineFramer::from(&lines))?;
        Ok(NativeLineStream {
            stream,
            lending: lines.lending(),
        })
    }

    #[napi(ts_return_type = "Promise<string | NativeError | null>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let stream = Arc::clone(&self.stream);
        let js_text = JsText::maker(self.lending);
        spawn_promise(env, async move { step(stream.next().await, js_text) })
    }

    /// Like `read()`, but only what is already read ahead, at once: `undefined` when JS has to
    /// wait (then it calls `read()`).
    #[napi(ts_return_type = "string | NativeError | null | undefined")]
    pub fn try_read(&self) -> Either<Step<JsText>, Undefined> {
        ready(self.stream.try_next(), JsText::maker(self.lending))
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.stream.bytes_read() as f64
    }

    /// Stops reading; resolves once the file is closed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        close(env, &self.stream)
    }
}

impl Drop for NativeLineStream {
    /// Finalized (collected, or its worker ended) with a `read()` still pending, which keeps
    /// the stream alive: stop reading now all the same.
    fn drop(&mut self) {
        self.stream.cancel();
    }
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
    pub fn new(path: Uint8Array, options: NativeReadOptions) -> Result<Self> {
        let stream = spawn(&path, &options, ChunkFramer)?;
        Ok(NativeChunkStream { stream })
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
        close(env, &self.stream)
    }
}

impl Drop for NativeChunkStream {
    fn drop(&mut self) {
        self.stream.cancel();
    }
}

/// Starts reading `path` in the background on fastlines' runtime.
fn spawn<F>(
    path: &Uint8Array,
    options: &NativeReadOptions,
    framer: F,
) -> Result<Arc<ReadStream<F::Item>>>
where
    F: fastlines_core::Framer + Send + 'static,
    F::Item: Send + 'static,
{
    let _runtime = runtime()?.enter();
    let stream = ReadStream::spawn(path_from_bytes(path), options.into(), framer);
    Ok(Arc::new(stream))
}

/// A promise that resolves once `stream` is stopped and its file closed.
fn close<'env, T: Send + 'static>(
    env: &'env Env,
    stream: &Arc<ReadStream<T>>,
) -> Result<Object<'env>> {
    let stream = Arc::clone(stream);
    spawn_promise(env, async move { stream.close().await })
}
