//! The background readers JS iterates: batches of lines ([`NativeLineStream`]) and raw chunks
//! ([`NativeChunkStream`]), each a [`Background`] stream on fastlines' runtime. JS takes an item
//! that is already read with `tryRead()`, and awaits `read()` only when none is.

use std::sync::Arc;

use bytes::Bytes;
use fastlines_core::{Anchor, Batch, ChunkFramer, Framer, LineFramer, ReadStream};
use napi::bindgen_prelude::{
    Either3, Object, ObjectFinalize, Result, ToNapiValue, Uint8Array, Undefined,
};
use napi::Env;
use napi_derive::napi;

use crate::byte_source::{NativeByteSource, Opened};
use crate::engine_memory::Reported;
use crate::feeding::{Feeder, FeederEntry};
use crate::input::{path_from_bytes, NativeFollowOptions, NativeLineOptions, NativeReadOptions};
use crate::output::{ready, Step};
use crate::position::{JsBatch, LastBatch, NativeBatchPlace};
use crate::runtime::{runtime, spawn_promise};
use crate::teardown::{register, Registration};
use crate::text::{JsChunk, Lending};

/// Batches of lines read in the background; `read()` resolves with one batch (its lines joined
/// by newlines), `null` at the end, or a `NativeError`. Made by `follow()`, a follower: it never
/// ends by itself, reading what is appended to the file (see `fastlines_core::follow`).
#[napi(custom_finalize)]
pub struct NativeLineStream {
    background: Background<Batch>,
    lending: Option<Lending>,
    last_batch: LastBatch,
    /// Where `feed()` finds it, when it reads a fed byte source (see `feeding.rs`).
    feeder: Option<FeederEntry>,
}

#[napi]
impl NativeLineStream {
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        path: Uint8Array,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let framer = LineFramer::from(&lines);
        let background = Background::spawn(env, &path, &options, framer)?;
        Ok(Self::with(background, &lines))
    }

    /// A follower of the file `anchor` took, starting where `follow` says as of the anchor.
    #[napi(factory)]
    pub fn follow(
        env: &Env,
        anchor: &NativeFollowAnchor,
        options: NativeReadOptions,
        lines: NativeLineOptions,
        follow: NativeFollowOptions,
    ) -> Result<Self> {
        let framer = LineFramer::from(&lines);
        let (anchor, options, from) = (anchor.anchor.clone(), (&options).into(), (&follow).into());
        let background =
            Background::start(env, || ReadStream::follow(anchor, options, framer, from))?;
        Ok(Self::with(background, &lines))
    }

    /// Lines of a byte source (see `byte_source.rs`).
    #[napi(factory)]
    pub fn from_source(
        env: &Env,
        source: &NativeByteSource,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let background = Background::from_source(env, source, &options, LineFramer::from(&lines))?;
        let mut stream = Self::with(background, &lines);
        stream.feeder = source.shared_feed().map(|feed| {
            FeederEntry::enter(Feeder::Lines {
                feed,
                stream: Arc::clone(&stream.background.stream),
                last_batch: stream.last_batch.clone(),
                lending: stream.lending,
            })
        });
        Ok(stream)
    }

    fn with(background: Background<Batch>, lines: &NativeLineOptions) -> Self {
        NativeLineStream {
            background,
            lending: lines.lending(),
            last_batch: LastBatch::default(),
            feeder: None,
        }
    }

    /// The number `feed()` takes for this reader; null unless it reads a fed byte source.
    #[napi(getter)]
    pub fn feeder(&self) -> Option<u32> {
        self.feeder.as_ref().map(FeederEntry::number)
    }

    #[napi(ts_return_type = "Promise<string | NativeError | null | undefined | false>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.background
            .read(env, self.last_batch.maker(self.lending))
    }

    /// Like `read()`, but only what is already read ahead (or, from a fed source, framed now),
    /// at once: `undefined` when JS has to wait (then it calls `read()`), `false` when JS has to
    /// feed the source first.
    #[napi(ts_return_type = "string | NativeError | null | undefined | false")]
    pub fn try_read(&self) -> Either3<Step<JsBatch>, Undefined, bool> {
        self.background
            .try_read(self.last_batch.maker(self.lending))
    }

    /// Where the batch with serial number `serial` was in the file (see `position.rs`): 1 for
    /// the first batch JS got, 0 for an empty batch where reading started, once that is known;
    /// null for one no longer kept.
    #[napi]
    pub fn batch_place(&self, serial: u32) -> Option<NativeBatchPlace> {
        self.last_batch
            .to_js(serial, self.background.stream.started_at())
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.background.bytes_read()
    }

    /// Stops reading; resolves once the file is closed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.background.close(env)
    }
}

impl ObjectFinalize for NativeLineStream {
    fn finalize(self, env: Env) -> Result<()> {
        self.background.finalize(&env);
        Ok(())
    }
}

/// The file a path names when `followLines` is called, and its length: where the follower
/// starts, whenever its first step comes (see `fastlines_core::Anchor`). Taking it opens nothing.
#[napi]
pub struct NativeFollowAnchor {
    anchor: Anchor,
}

#[napi]
impl NativeFollowAnchor {
    /// Never fails: a path that names nothing is anchored too, and its errors come when
    /// reading begins.
    #[napi(constructor)]
    pub fn new(path: Uint8Array) -> Self {
        let anchor = Anchor::take(&path_from_bytes(&path));
        NativeFollowAnchor { anchor }
    }

    /// The file's length then; null if nothing was at the path.
    #[napi(getter)]
    pub fn length(&self) -> Option<f64> {
        self.anchor.file_len().map(|len| len as f64)
    }
}

/// Raw chunks read in the background, each becoming a Buffer.
#[napi(custom_finalize)]
pub struct NativeChunkStream {
    background: Background<Bytes>,
    /// Where `feed()` finds it, when it reads a fed byte source (see `feeding.rs`).
    feeder: Option<FeederEntry>,
}

#[napi]
impl NativeChunkStream {
    #[napi(constructor)]
    pub fn new(env: &Env, path: Uint8Array, options: NativeReadOptions) -> Result<Self> {
        let background = Background::spawn(env, &path, &options, ChunkFramer)?;
        Ok(NativeChunkStream {
            background,
            feeder: None,
        })
    }

    /// The bytes of a byte source (see `byte_source.rs`), decompressed if `options` say so.
    #[napi(factory)]
    pub fn from_source(
        env: &Env,
        source: &NativeByteSource,
        options: NativeReadOptions,
    ) -> Result<Self> {
        let background = Background::from_source(env, source, &options, ChunkFramer)?;
        let feeder = source.shared_feed().map(|feed| {
            FeederEntry::enter(Feeder::Chunks {
                feed,
                stream: Arc::clone(&background.stream),
            })
        });
        Ok(NativeChunkStream { background, feeder })
    }

    /// The number `feed()` takes for this reader; null unless it reads a fed byte source.
    #[napi(getter)]
    pub fn feeder(&self) -> Option<u32> {
        self.feeder.as_ref().map(FeederEntry::number)
    }

    #[napi(ts_return_type = "Promise<Buffer | NativeError | null | undefined | false>")]
    pub fn read<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.background.read(env, JsChunk)
    }

    #[napi(ts_return_type = "Buffer | NativeError | null | undefined | false")]
    pub fn try_read(&self) -> Either3<Step<JsChunk>, Undefined, bool> {
        self.background.try_read(JsChunk)
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.background.bytes_read()
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        self.background.close(env)
    }
}

impl ObjectFinalize for NativeChunkStream {
    fn finalize(self, env: Env) -> Result<()> {
        self.background.finalize(&env);
        Ok(())
    }
}

/// What both classes do with their stream: one place for reading, closing, and stopping when
/// the JS object is finalized or its env torn down.
///
/// The stream is shared with the futures that `read()` and `close()` start: when a worker
/// thread ends, its objects are finalized at once while those futures may still be running on
/// the process-wide runtime, so no future may borrow the object itself.
struct Background<T> {
    stream: Arc<ReadStream<T>>,
    /// Stops the stream when the env that made it is torn down first (see `teardown.rs`).
    _open: Registration,
    /// What the engine was told the stream holds outside its heap, its read-ahead. Told
    /// nothing, V8 weighed a reader dropped without `close()` by its small JS object: of 3,000
    /// readers of a large file, each stepped once and dropped, 300 held their file and a full
    /// read-ahead at once (490-540 MB at the peak) before collections came. Told, about 70
    /// (190 MB).
    reported: Reported,
}

impl<T: Send + 'static> Background<T> {
    /// Starts reading `path` in the background on fastlines' runtime.
    fn spawn<F>(
        env: &Env,
        path: &Uint8Array,
        options: &NativeReadOptions,
        framer: F,
    ) -> Result<Self>
    where
        F: Framer<Item = T> + Send + 'static,
    {
        let (path, options) = (path_from_bytes(path), options.into());
        Self::start(env, || ReadStream::spawn(path, options, framer))
    }

    /// Starts reading a byte source in the background on fastlines' runtime.
    fn from_source<F>(
        env: &Env,
        source: &NativeByteSource,
        options: &NativeReadOptions,
        framer: F,
    ) -> Result<Self>
    where
        F: Framer<Item = T> + Send + 'static,
    {
        let opened = source.open(options)?;
        Self::start(env, || match opened {
            Opened::Fed(source) => ReadStream::fed(source, framer),
            Opened::Ready(source) => ReadStream::read_async(source, framer),
            Opened::Blocking(source) => ReadStream::read_blocking(source, framer),
        })
    }

    /// The stream `make` starts on fastlines' runtime, in `env`'s set of open readers.
    fn start(env: &Env, make: impl FnOnce() -> ReadStream<T>) -> Result<Self> {
        let stream = {
            let _runtime = runtime()?.enter();
            Arc::new(make())
        };
        let _open = register(env, &stream)?;
        let reported = Reported::report(env, stream.read_ahead_bytes());
        Ok(Background {
            stream,
            _open,
            reported,
        })
    }

    /// Its JS object is finalized: the engine forgets what it was told the stream holds.
    fn finalize(&self, env: &Env) {
        self.reported.take_back(env);
    }

    /// A promise of the next item, made into its JS form by `into_js`, for a consumer that
    /// found none ready. It resolves on the JS thread with what `tryRead()` would give then:
    /// `undefined` (read again) only when it was woken for a sender that went away while
    /// others remain. The stream wakes it from the thread that sent the item, with no task in
    /// between; a fed stream's consumer waits on a task instead, which tells the feed that it
    /// waits, and resolves `false` if it has to feed more first (see
    /// `fastlines_core::ReadStream::next_or_starved`).
    fn read<'env, J>(
        &self,
        env: &'env Env,
        into_js: impl FnOnce(T) -> J + Send + 'static,
    ) -> Result<Object<'env>>
    where
        J: ToNapiValue + Send + 'static,
    {
        let stream = Arc::clone(&self.stream);
        if stream.is_fed() {
            return spawn_promise(env, async move {
                ready(stream.next_or_starved().await, into_js)
            });
        }
        let (deferred, promise) = env.create_deferred()?;
        // Weak: the wake waits inside the stream until it is called.
        let weak = Arc::downgrade(&stream);
        stream.wake_when_ready(Box::new(move || {
            deferred.resolve(move |_| {
                Ok(match weak.upgrade() {
                    Some(stream) => ready(stream.try_next(), into_js),
                    None => Either3::A(None),
                })
            })
        }));
        Ok(promise)
    }

    /// The next item if it is already read.
    fn try_read<J>(&self, into_js: impl FnOnce(T) -> J) -> Either3<Step<J>, Undefined, bool> {
        ready(self.stream.try_next(), into_js)
    }

    fn bytes_read(&self) -> f64 {
        self.stream.bytes_read() as f64
    }

    /// A promise that resolves once the stream is stopped and its file closed.
    fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let stream = Arc::clone(&self.stream);
        spawn_promise(env, async move { stream.close().await })
    }
}

impl<T> Drop for Background<T> {
    /// Finalized (collected, or its worker ended) with a `read()` still pending, which keeps
    /// the stream alive: stop reading now all the same.
    fn drop(&mut self) {
        self.stream.cancel();
    }
}
