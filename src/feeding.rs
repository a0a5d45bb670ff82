//! JS's per-chunk calls into a fed byte source: `push(feeder, chunk)` and `pushText(feeder,
//! text)`, which queue a chunk in the source, and `flush(feeder)` at the end of a turn that fed
//! it (see `lib/byte-source.js`); and `feed(feeder, chunk)`, which pushes a small chunk into the
//! source of a reader and takes what it completes (see `lib/source.js`).
//!
//! They are plain functions given a number, not methods: napi-rs 3.16 wraps every method call
//! in checks on its receiver (an unwrap, a type-tag check, a borrow recorded in a global map),
//! which measured 0.4-0.8 us a call here, more than pushing and framing a one-line chunk costs
//! (about 0.5 us), against 0.05 us for a plain function. A producer that flushes a line per
//! chunk pays it per line, and a source of 8 KiB chunks per 8 KiB. So each fed source and each
//! reader of one is entered, at its creation on the JS thread, in that thread's table of
//! feeders, under the number JS passes, and leaves it when dropped.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use fastlines_core::{Batch, Feed, ReadStream};
use napi::bindgen_prelude::{Either, Either3, Undefined};
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::output::{fed, Step};
use crate::position::{JsBatch, LastBatch};
use crate::text::{JsChunk, Lending};

/// What `feed()` gives JS: see `output::fed`.
type Fed = Either3<Step<Either<JsBatch, JsChunk>>, Undefined, bool>;

/// A fed source, or a reader of one, as `push()` and `feed()` reach it.
pub enum Feeder {
    /// A fed source (`byte_source.rs`): `push()` queues chunks in it.
    Source(Arc<Feed>),
    /// A line reader: its batches become strings that record their place in `last_batch`.
    Lines {
        feed: Arc<Feed>,
        stream: Arc<ReadStream<Batch>>,
        last_batch: LastBatch,
        lending: Option<Lending>,
    },
    /// A chunk reader (`readChunks`).
    Chunks {
        feed: Arc<Feed>,
        stream: Arc<ReadStream<Bytes>>,
    },
}

/// This thread's feeders by number, and the next number to give. Only the JS thread that made
/// a reader feeds it, so each thread (each worker) has its own.
#[derive(Default)]
struct Feeders {
    by_number: HashMap<u32, Feeder>,
    next: u32,
}

thread_local! {
    static FEEDERS: RefCell<Feeders> = RefCell::default();
}

/// A reader's place in its thread's table: its number, for JS, until it is dropped.
#[derive(Debug)]
pub struct FeederEntry(u32);

impl FeederEntry {
    /// Enters `feeder` in this thread's table.
    pub fn enter(feeder: Feeder) -> Self {
        FEEDERS.with_borrow_mut(|feeders| {
            let number = feeders.next;
            feeders.next = feeders.next.wrapping_add(1);
            feeders.by_number.insert(number, feeder);
            FeederEntry(number)
        })
    }

    /// The number JS passes to `feed()`.
    pub fn number(&self) -> u32 {
        self.0
    }
}

impl Drop for FeederEntry {
    /// Leaves the table; at a thread's exit the table itself may be gone already.
    fn drop(&mut self) {
        let _ = FEEDERS.try_with(|feeders| feeders.borrow_mut().by_number.remove(&self.0));
    }
}

/// Pushes `chunk` into the source of the reader numbered `feeder`, then takes what it
/// completes, framed here when little is queued (see `output::fed` for what comes back). Only
/// for a chunk small enough that the feed has room for it, to a reader that framed all it was
/// fed: what `lib/byte-source.js` hands over this way.
#[napi(ts_return_type = "string | Buffer | NativeError | null | undefined | false")]
pub fn feed(feeder: u32, chunk: &[u8]) -> Result<Fed> {
    FEEDERS.with_borrow(|feeders| match feeders.by_number.get(&feeder) {
        Some(Feeder::Lines {
            feed,
            stream,
            last_batch,
            lending,
        }) => {
            let maker = last_batch.maker(*lending);
            Ok(fed(stream.try_next_fed(feed, chunk), |batch| {
                Either::A(maker(batch))
            }))
        }
        Some(Feeder::Chunks { feed, stream }) => {
            Ok(fed(stream.try_next_fed(feed, chunk), |chunk| {
                Either::B(JsChunk(chunk))
            }))
        }
        Some(Feeder::Source(_)) | None => Err(no_such(feeder, "reader")),
    })
}

/// Queues `chunk` in the fed source numbered `feeder` (its `feeder`, see `byte_source.rs`),
/// copied; false when the read-ahead is full (see `Feed::push`).
#[napi]
pub fn push(feeder: u32, chunk: &[u8]) -> Result<bool> {
    with_source(feeder, |feed| feed.push(chunk))
}

/// Queues a string chunk in the fed source numbered `feeder` as its UTF-8 bytes; false when
/// the read-ahead is full. For strings of 1,536 characters and more: shorter ones are made
/// their bytes in JS (see `lib/byte-source.js`).
#[napi]
pub fn push_text(feeder: u32, text: String) -> Result<bool> {
    with_source(feeder, |feed| feed.push_owned(text.into_bytes()))
}

/// No more chunks for now for the fed source numbered `feeder`: its reader reads what is
/// queued, however little. Once per event-loop turn that fed it, which for a source that
/// trickles is once per chunk.
#[napi]
pub fn flush(feeder: u32) -> Result<()> {
    with_source(feeder, Feed::flush)
}

/// `then` of the fed source numbered `feeder` on this thread.
fn with_source<R>(feeder: u32, then: impl FnOnce(&Feed) -> R) -> Result<R> {
    FEEDERS.with_borrow(|feeders| match feeders.by_number.get(&feeder) {
        Some(Feeder::Source(feed)) => Ok(then(feed)),
        _ => Err(no_such(feeder, "source")),
    })
}

/// The error of a call with a number that names no such feeder on this thread.
fn no_such(feeder: u32, what: &str) -> Error {
    Error::new(Status::InvalidArg, format!("no {what} is fed as {feeder}"))
}
