//! The byte sources readers are made from when JS hands over no path (`lib/byte-source.js`):
//! chunks JS pulls from a stream or an iterator and feeds in, or a descriptor fastlines reads
//! itself (a `FileHandle`'s, an untouched stdin's). The readers made from one
//! (`NativeLineStream.fromSource`, `NativeChunkStream.fromSource`, `NativeLineCount.fromSource`)
//! read it in the background as they read a file.

use std::fs::File;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;

use fastlines_core::{
    descriptor, fed, Descriptor, FedInput, Feed, ReadOptions, ReadyInput, Source, FED_WAKE_BYTES,
    READ_AHEAD_BYTES,
};
use napi::bindgen_prelude::{Function, Result};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Error, Status};
use napi_derive::napi;

use crate::feeding::{Feeder, FeederEntry};
use crate::input::NativeReadOptions;
use crate::runtime::runtime;

/// Calls JS back without keeping its event loop alive: a feeder waiting for room whose reader
/// nobody reads any more must not hold the process open.
type RoomCallback = ThreadsafeFunction<(), (), (), Status, false, true>;

/// A byte source a reader is made from, once: fed by JS (`fed`), or a descriptor (`descriptor`).
///
/// Fed: push each chunk (`push(source.feeder, chunk)` or `pushText(source.feeder, text)`, and
/// `flush(source.feeder)` at the end of a turn that pushed some, see `feeding.rs`); when a push
/// returns false, call `waitForRoom()` and push again once `onRoom` is called; then `end()`, or
/// `fail()` (JS keeps the source's error). On a descriptor these do nothing: fastlines reads it
/// itself.
#[napi]
pub struct NativeByteSource {
    /// What JS feeds through; `None` for a descriptor.
    feeding: Option<Feeding>,
    /// What the reader reads, until a reader is made from this source.
    unopened: Mutex<Option<Unopened>>,
}

/// A fed source's queue, how JS is told there is room in it, and its place in the table of
/// feeders, where `push()` finds it.
struct Feeding {
    feed: Arc<Feed>,
    on_room: Arc<RoomCallback>,
    entry: FeederEntry,
}

/// A source's input before a reader takes it.
enum Unopened {
    Fed(FedInput),
    /// A duplicate of the descriptor JS handed over: fastlines closes it, the owner keeps its own.
    Descriptor(Descriptor),
}

/// A source's input, ready for a reader: by how it is read.
pub enum Opened {
    /// Read as JS feeds it: in the background, or by a consumer on the JS thread.
    Fed(Source<FedInput>),
    /// Read in the background as the OS says it is ready (pipes, sockets).
    Ready(Source<ReadyInput>),
    /// A regular file or device: blocking reads, on the blocking pool.
    Blocking(Source<File>),
}

#[napi]
impl NativeByteSource {
    /// A source JS feeds; `onRoom` is called once per `waitForRoom()`, when there is room again.
    #[napi(factory)]
    pub fn fed(on_room: Function<(), ()>) -> Result<Self> {
        let on_room = on_room
            .build_threadsafe_function()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?;
        let (feed, input) = fed(READ_AHEAD_BYTES, FED_WAKE_BYTES);
        let feed = Arc::new(feed);
        Ok(NativeByteSource {
            feeding: Some(Feeding {
                entry: FeederEntry::enter(Feeder::Source(Arc::clone(&feed))),
                feed,
                on_room: Arc::new(on_room),
            }),
            unopened: Mutex::new(Some(Unopened::Fed(input))),
        })
    }

    /// The open file descriptor `fd`, which its owner keeps open during this call, read from
    /// where it stands, after `taken`: the bytes the runtime read from it and did not use (only
    /// for a pipe or a socket). Throws if it cannot be duplicated, or has bytes taken and is
    /// neither (then JS feeds the source instead). A pipe or socket is registered with
    /// fastlines' runtime here.
    #[napi(factory)]
    pub fn descriptor(fd: i32, taken: Option<&[u8]>) -> Result<Self> {
        let file = duplicate(fd).map_err(|err| Error::from_reason(format!("dup({fd}): {err}")))?;
        let taken = Bytes::copy_from_slice(taken.unwrap_or_default());
        let _runtime = runtime()?.enter();
        let descriptor = descriptor(file, taken)
            .map_err(|err| Error::from_reason(format!("fastlines: {err}")))?;
        Ok(NativeByteSource {
            feeding: None,
            unopened: Mutex::new(Some(Unopened::Descriptor(descriptor))),
        })
    }

    /// The number `push()`, `pushText()` and `flush()` take for this source; null for a
    /// descriptor.
    #[napi(getter)]
    pub fn feeder(&self) -> Option<u32> {
        self.feeding.as_ref().map(|feeding| feeding.entry.number())
    }

    /// Calls `onRoom` once there is room for more, or the reader is gone.
    #[napi]
    pub fn wait_for_room(&self) -> Result<()> {
        let Some(Feeding { feed, on_room, .. }) = &self.feeding else {
            return Ok(());
        };
        let (feed, on_room) = (Arc::clone(feed), Arc::clone(on_room));
        runtime()?.spawn(async move {
            feed.room().await;
            on_room.call((), ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(())
    }

    /// Whether the reader is gone: nothing more needs pulling.
    #[napi(getter)]
    pub fn unread(&self) -> bool {
        self.feed().is_none_or(|feed| feed.is_unread())
    }

    #[napi]
    pub fn end(&self) {
        if let Some(feed) = self.feed() {
            feed.end();
        }
    }

    #[napi]
    pub fn fail(&self) {
        if let Some(feed) = self.feed() {
            feed.fail();
        }
    }
}

impl NativeByteSource {
    fn feed(&self) -> Option<&Feed> {
        self.feeding.as_ref().map(|feeding| &*feeding.feed)
    }

    /// What JS feeds through, for a reader that takes chunks itself (see `streams.rs`); `None`
    /// for a descriptor.
    pub fn shared_feed(&self) -> Option<Arc<Feed>> {
        self.feeding
            .as_ref()
            .map(|feeding| Arc::clone(&feeding.feed))
    }

    /// The input a reader reads, in `options.chunk_size` reads, decompressed as `options` say.
    /// One reader per source.
    pub fn open(&self, options: &NativeReadOptions) -> Result<Opened> {
        let options = ReadOptions::from(options);
        let unopened = self
            .unopened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| Error::new(Status::InvalidArg, "this source already has a reader"))?;
        Ok(match unopened {
            Unopened::Fed(input) => Opened::Fed(source(input, &options)),
            Unopened::Descriptor(Descriptor::Blocking(file)) => {
                Opened::Blocking(source(file, &options))
            }
            Unopened::Descriptor(Descriptor::Ready(input)) => {
                Opened::Ready(source(input, &options))
            }
        })
    }
}

/// `input` read from where it stands to its end, as `options` say.
fn source<I>(input: I, options: &ReadOptions) -> Source<I> {
    Source::new(input, None, options.chunk_size).decompressed(options.decompress)
}

#[cfg(unix)]
fn duplicate(fd: i32) -> std::io::Result<File> {
    // SAFETY: `fd` is the descriptor of a FileHandle, a file stream or stdin that JS holds, and
    // JS calls in on its own thread, so nothing closes it during this call (see `descriptor`).
    unsafe { fastlines_core::duplicate(fd) }
}

#[cfg(not(unix))]
fn duplicate(_fd: i32) -> std::io::Result<File> {
    Err(std::io::ErrorKind::Unsupported.into())
}
