//! The background stream of a fed source (see `source/fed.rs`), whose consumer may frame what
//! little is queued on its own thread.
//!
//! Fed chunks arrive on the consumer's thread: JS pulls them from a stream and pushes them in.
//! Handing each one to a background task and taking its item back costs two hand-offs between
//! threads, about 10 us, far more than framing a one-line chunk costs: before this, a producer
//! that flushes a line at a time made `readLines` 1.6-3x slower than `readline`. So the reader
//! is parked between uses, and whichever side has a reason to read takes it:
//! - the consumer, when it has no item to take and less than [`FRAME_HERE_BYTES`] is queued:
//!   it frames what is there on its own thread, or learns that it must feed more first
//!   ([`TryNext::Starved`]);
//! - the background task, woken once [`FED_WAKE_BYTES`] are queued, at the end, when the
//!   feeder flushes, or when the consumer waits on it ([`ReadStream::next`]): it frames
//!   everything queued into the channel, in parallel with the consumer, as for files.
//!
//! Only the side holding the reader puts items into the channel. So a consumer that has taken
//! the reader and finds the channel empty knows no item is on its way: the one it frames comes
//! next in order.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use tokio::sync::futures::Notified;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::{oneshot, Notify};

use crate::buffer::read_ahead_chunks;
use crate::channel::{ItemReceiver, ItemSender};
use crate::error::ReadError;
use crate::frame::Framer;
use crate::reader::Reader;
use crate::source::{FedInput, FedSignal, Feed, Source};
use crate::stream::{
    forward, Cancel, ClearOnDrop, FedNext, FrameHere, ReadAhead, ReadStream, Stop, TryNext,
};

/// Below this many queued bytes, a consumer with nothing to take frames them itself; from this
/// many on, it waits for the background task. A line or a few cost less to frame than the two
/// hand-offs they save (about 10 us); larger chunks are left to frame in parallel with the
/// consumer (8 KiB chunks took the same time either way, within the bench's noise).
pub const FRAME_HERE_BYTES: usize = 4 * 1024;

/// The bytes queued that wake the background task before the feeder flushes: the feed's
/// `wake_bytes` (see [`crate::fed`]). A wake costs the feeding thread a system call, so chunks
/// are woken for in bunches: at 16 KiB, a source of 8 KiB chunks in memory spent a tenth of its
/// JS thread's time waking the reader, which, faster than the feeder, was always waiting.
pub const FED_WAKE_BYTES: usize = 64 * 1024;

impl<T: Send + 'static> ReadStream<T> {
    /// Starts a stream of `source`, a fed source (see [`crate::fed`], made with `wake_bytes`
    /// [`FED_WAKE_BYTES`]), from where it stands. Must be called inside a Tokio
    /// runtime; bounded like [`Self::spawn`]. Its consumer frames small inputs itself through
    /// [`Self::try_next`].
    pub fn fed<F>(source: Source<FedInput>, framer: F) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
    {
        let options = source.read_options();
        let signal = source.input.signal();
        let mut here = None;
        let mut stream = Self::start(
            ReadAhead::in_reads(read_ahead_chunks(options.chunk_size), options.chunk_size),
            framer,
            Arc::new(OnceLock::from(0)),
            |producer| {
                let fed = Arc::new(FedReader {
                    stop: Arc::clone(&producer.stop),
                    parked: Notify::new(),
                    framed_all: Notify::new(),
                    signal,
                });
                fed.park(Trip {
                    reader: Reader::new(source, producer.framer, producer.progress),
                    items: producer.items,
                    _file_closed: producer.file_closed,
                });
                here = Some(Arc::clone(&fed));
                fed.run()
            },
        );
        stream.here = here.map(|fed| fed as Arc<dyn FrameHere<T>>);
        stream
    }
}

/// A fed source's reader with the channel it fills. Fields drop in order: the stream learns
/// that its input is closed only once the reader is gone.
struct Trip<F: Framer> {
    reader: Reader<F, FedInput>,
    items: ItemSender<F::Item>,
    _file_closed: oneshot::Sender<()>,
}

/// Where the reader is parked between uses, shared by the consumer and the background task.
struct FedReader<F: Framer> {
    /// The parking slot; cancelling the stream empties it, closing the input.
    stop: Arc<Stop<Trip<F>>>,
    /// Notified when the reader is parked: the background task may be waiting to take it.
    parked: Notify,
    /// Notified, to every consumer waiting, when the background task has framed all that was
    /// queued and parked the reader: one that finds nothing sent must feed more.
    framed_all: Notify,
    /// Says when the background task has reason to read (see [`FedSignal::work`]).
    signal: FedSignal,
}

impl<F: Framer> std::fmt::Debug for FedReader<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FedReader")
            .field("stop", &self.stop)
            .finish_non_exhaustive()
    }
}

impl<F> FedReader<F>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    fn park(&self, trip: Trip<F>) {
        self.stop.park(trip);
        self.parked.notify_one();
    }

    /// The background task: each time there is reason to read, takes the reader (once the
    /// consumer is done with it), frames everything queued into the channel, waiting for room
    /// there as a file's reader does, and parks the reader again. Ends at the end of the input,
    /// at a failure (sent), or once nobody listens.
    async fn run(self: Arc<Self>) {
        let _clear = ClearOnDrop(Arc::clone(&self.stop));
        loop {
            self.signal.work().await;
            let Some(trip) = self.take_when_parked().await else {
                return;
            };
            let Some(trip) = frame_all_queued(trip).await else {
                return;
            };
            self.park(trip);
            self.framed_all.notify_waiters();
        }
    }

    /// The reader, once the consumer has parked it; `None` once the stream is cancelled.
    async fn take_when_parked(&self) -> Option<Trip<F>> {
        loop {
            let parked = self.parked.notified();
            let mut parked = pin!(parked);
            parked.as_mut().enable();
            if self.stop.is_cancelled() {
                return None;
            }
            if let Some(trip) = self.stop.take() {
                return Some(trip);
            }
            parked.await;
        }
    }
}

/// Frames what the input holds into the channel; the reader, unless the stream is over (the
/// end or a failure was sent, or nobody listens).
async fn frame_all_queued<F>(mut trip: Trip<F>) -> Option<Trip<F>>
where
    F: Framer,
{
    loop {
        let Poll::Ready(next) = poll_once(trip.reader.next_async()) else {
            return Some(trip);
        };
        if !forward(&trip.items, next).await {
            return None;
        }
    }
}

impl<F> FrameHere<F::Item> for FedReader<F>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    fn try_next(&self, items: &mut ItemReceiver<F::Item>) -> TryNext<F::Item> {
        let Some(mut trip) = self.stop.take() else {
            // The background task holds the reader (or it is gone): what it sent, if anything.
            return match items.try_recv() {
                Ok(item) => TryNext::Ready(Some(item)),
                Err(TryRecvError::Disconnected) => TryNext::Ready(None),
                Err(TryRecvError::Empty) => TryNext::Wait,
            };
        };
        let next = match items.try_recv() {
            Ok(item) => TryNext::Ready(Some(item)),
            Err(TryRecvError::Disconnected) => TryNext::Ready(None),
            Err(TryRecvError::Empty) if trip.reader.input().queued() >= FRAME_HERE_BYTES => {
                TryNext::Wait
            }
            Err(TryRecvError::Empty) => match poll_once(trip.reader.next_async()) {
                Poll::Ready(next) => TryNext::Ready(next.transpose()),
                Poll::Pending => TryNext::Starved,
            },
        };
        self.park(trip);
        next
    }

    fn try_next_fed(
        &self,
        feed: &Feed,
        chunk: &[u8],
        items: &mut ItemReceiver<F::Item>,
    ) -> FedNext<F::Item> {
        let Some(mut trip) = self.stop.take() else {
            feed.push(chunk);
            return FedNext::Elsewhere;
        };
        // Looked at only once the reader is taken: nothing is sent or read meanwhile, and only
        // this thread feeds.
        let next = if !items.is_empty() {
            feed.push(chunk);
            FedNext::Elsewhere
        } else if let Some(next) = take_given(&mut trip, chunk) {
            next
        } else {
            feed.push(chunk);
            if trip.reader.input().queued() >= FRAME_HERE_BYTES {
                FedNext::Elsewhere
            } else {
                let next = poll_once(trip.reader.next_async());
                drained_or_sent(&mut trip, next, |trip| poll_once(trip.reader.next_async()))
            }
        };
        self.park(trip);
        next
    }

    fn demand(&self) {
        self.signal.demand();
    }

    fn framed_all(&self) -> Notified<'_> {
        self.framed_all.notified()
    }
}

/// What a chunk given to a reader with nothing queued completes, framed into its buffer
/// without going through the queue (see [`Reader::take_given`]); `None` when it must be queued.
fn take_given<F: Framer>(trip: &mut Trip<F>, chunk: &[u8]) -> Option<FedNext<F::Item>> {
    if trip.reader.input().queued() > 0 {
        return None;
    }
    let next = given_poll(trip.reader.take_given(chunk)?);
    // Nothing more is read: what the chunk completes after that item is already buffered.
    Some(drained_or_sent(trip, next, |trip| {
        given_poll(trip.reader.take_ready())
    }))
}

/// What [`Reader::take_given`] gave, as a poll of the reader would give it: nothing complete
/// yet is pending (the input has not ended).
fn given_poll<T>(given: Result<Option<T>, ReadError>) -> Poll<Result<Option<T>, ReadError>> {
    match given {
        Ok(None) => Poll::Pending,
        given => Poll::Ready(given),
    }
}

/// What the consumer finds in `next`, framed here with the channel empty: `Drained` with an
/// item if framing on (`after`) finds nothing more now (the usual case: a small chunk's lines
/// all come in one item). Otherwise the item and what came after it go into the channel, in
/// order, for the consumer to take as usual.
fn drained_or_sent<F: Framer>(
    trip: &mut Trip<F>,
    next: Poll<Result<Option<F::Item>, ReadError>>,
    after: impl FnOnce(&mut Trip<F>) -> Poll<Result<Option<F::Item>, ReadError>>,
) -> FedNext<F::Item> {
    let item = match next {
        Poll::Pending => return FedNext::Starved,
        Poll::Ready(Ok(Some(item))) => item,
        Poll::Ready(Ok(None)) => return FedNext::Over(None),
        Poll::Ready(Err(err)) => return FedNext::Over(Some(err)),
    };
    let after = match after(trip) {
        Poll::Pending => return FedNext::Drained(item),
        Poll::Ready(after) => after,
    };
    // Both fit: the channel is empty, holds at least two items (see `ReadStream::start`), and
    // only the side holding the reader sends. The end is not sent: the reader gives it again.
    let _ = trip.items.try_send(Ok(item));
    match after {
        Ok(Some(item)) => drop(trip.items.try_send(Ok(item))),
        Err(err) => drop(trip.items.try_send(Err(err))),
        Ok(None) => {}
    }
    FedNext::Elsewhere
}

/// Polls `future` once, here, with a waker that does nothing: what it gives without waiting.
///
/// Used on [`Reader::next_async`] over a fed input, which is safe to drop when pending: it is
/// pending only in a read of an empty queue, which has taken nothing, and everything read
/// before that is in the reader's buffer, where the next call goes on from.
fn poll_once<Fut: Future>(future: Fut) -> Poll<Fut::Output> {
    let mut context = Context::from_waker(Waker::noop());
    pin!(future).poll(&mut context)
}
