//! A byte source JS feeds (`lib/byte-source.js` pulls the chunks from a stream or an iterator):
//! [`NativeFeed`] takes the chunks in, and the readers made from it (`NativeLineStream.fed`,
//! `NativeChunkStream.fed`, `NativeLineCount.fed`) read them in the background as they read a
//! file.

use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use fastlines_core::{fed, FedInput, Feed, ReadOptions, Source, READ_AHEAD_BYTES};
use napi::bindgen_prelude::{Function, Result};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Error, Status};
use napi_derive::napi;

use crate::runtime::runtime;

/// Calls JS back without keeping its event loop alive: a feeder waiting for room whose reader
/// nobody reads any more must not hold the process open.
type RoomCallback = ThreadsafeFunction<(), (), (), Status, false, true>;

/// The JS side of a fed source: `push()` each chunk, and when it returns false, call
/// `waitForRoom()` and push again once `onRoom` is called; then `end()`, or `fail()` (JS keeps
/// the source's error).
#[napi]
pub struct NativeFeed {
    feed: Arc<Feed>,
    /// The reader's half, until a reader is made from this feed.
    input: Mutex<Option<FedInput>>,
    on_room: Arc<RoomCallback>,
}

#[napi]
impl NativeFeed {
    /// `onRoom` is called once per `waitForRoom()`, when there is room again.
    #[napi(constructor)]
    pub fn new(on_room: Function<(), ()>) -> Result<Self> {
        let on_room = on_room
            .build_threadsafe_function()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?;
        let (feed, input) = fed(READ_AHEAD_BYTES);
        Ok(NativeFeed {
            feed: Arc::new(feed),
            input: Mutex::new(Some(input)),
            on_room: Arc::new(on_room),
        })
    }

    /// Copies a chunk of bytes in; false when the read-ahead is full.
    #[napi]
    pub fn push(&self, chunk: &[u8]) -> bool {
        self.feed.push(Bytes::copy_from_slice(chunk))
    }

    /// Takes a string chunk as its UTF-8 bytes; false when the read-ahead is full.
    #[napi]
    pub fn push_text(&self, text: String) -> bool {
        self.feed.push(Bytes::from(text.into_bytes()))
    }

    /// Calls `onRoom` once there is room for more, or the reader is gone.
    #[napi]
    pub fn wait_for_room(&self) -> Result<()> {
        let (feed, on_room) = (Arc::clone(&self.feed), Arc::clone(&self.on_room));
        runtime()?.spawn(async move {
            feed.room().await;
            on_room.call((), ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(())
    }

    /// Whether the reader is gone: nothing more needs pulling.
    #[napi(getter)]
    pub fn unread(&self) -> bool {
        self.feed.is_unread()
    }

    #[napi]
    pub fn end(&self) {
        self.feed.end();
    }

    #[napi]
    pub fn fail(&self) {
        self.feed.fail();
    }
}

impl NativeFeed {
    /// The source a reader reads: the fed bytes, in `options.chunk_size` reads, decompressed
    /// as `options` says. One reader per feed.
    pub fn source(&self, options: &ReadOptions) -> Result<Source<FedInput>> {
        let input = self
            .input
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| Error::new(Status::InvalidArg, "this feed already has a reader"))?;
        Ok(Source::new(input, None, options.chunk_size).decompressed(options.decompress))
    }
}
