//! Running a [`Reader`] in the background on a Tokio runtime, ahead of its consumer by a bounded
//! number of items.
//!
//! A producer task reads and frames items into a bounded channel; the consumer awaits them, or
//! takes them at once when they are already there. Regular files are read on the blocking pool,
//! each trip filling the channel until it is full; pipes are read through the reactor, so a pipe
//! with no data holds no thread. Nothing here polls: every wait is a wake-up from the OS, the
//! blocking pool or the channel.

use std::fs::File;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use tokio::io::AsyncRead;
use tokio::sync::futures::Notified;
use tokio::sync::mpsc::error::{TryRecvError, TrySendError};
use tokio::sync::{oneshot, Notify};
use tokio::task::{spawn_blocking, JoinHandle};

use crate::buffer::{read_ahead_chunks, LONG_LINES_READ_AHEAD_BYTES};
use crate::channel::{channel, Item, ItemReceiver, ItemSender, Waiter, Wake, WakePace};
use crate::error::ReadError;
use crate::frame::Framer;
use crate::parts::{self, InParts};
use crate::reader::{Progress, Reader};
use crate::share::Reach;
use crate::source::{open_unblocked, Feed, ReadOptions, Reads, Source};

/// Items one trip to the blocking pool may read before yielding its thread to other readers.
const ITEMS_PER_TRIP: usize = 64;

/// The most items a trip reading a regular file sends per wake of a waiting consumer (see
/// [`WakePace`]): 4 default reads of 48 KiB. With `match`'s reads of 256 KiB, half the channel
/// (2) is less.
const MAX_ITEMS_PER_WAKE: usize = 4;

/// Items read from one file by a background task, handed out in order.
#[derive(Debug)]
pub struct ReadStream<T> {
    items: tokio::sync::Mutex<ItemReceiver<T>>,
    /// Where a consumer that does not await [`Self::next`] waits (see [`Self::wake_when_ready`]).
    waiter: Arc<Waiter>,
    producer: JoinHandle<()>,
    /// Completes (with an error: the sender is only ever dropped) once the file is closed.
    file_closed: Mutex<Option<oneshot::Receiver<()>>>,
    progress: Progress,
    /// Where reading started in the file, once it is open.
    started_at: Arc<OnceLock<u64>>,
    /// Shared with the producer, which reads no more once it is cancelled.
    stop: Arc<dyn Cancel>,
    /// A fed source's reader, which the consumer may take to frame on its own thread (see
    /// `fed_stream.rs`); `None` for every other input.
    pub(crate) here: Option<Arc<dyn FrameHere<T>>>,
    /// What its read-ahead holds when full of reads of ordinary lines (see
    /// [`ReadStream::read_ahead_bytes`]).
    read_ahead_bytes: usize,
}

/// A stream's read-ahead: the places its channel has, the bytes each stands for (an item takes
/// one per such bytes it weighs: see [`crate::channel`]), and what it holds when full of reads
/// of ordinary lines (see [`ReadStream::read_ahead_bytes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadAhead {
    pub(crate) places: usize,
    pub(crate) place_bytes: usize,
    bytes: usize,
}

impl ReadAhead {
    /// `reads` reads of `chunk_size`, a place each, a place standing for a read or a share of
    /// [`LONG_LINES_READ_AHEAD_BYTES`], if more.
    pub(crate) fn in_reads(reads: usize, chunk_size: usize) -> Self {
        ReadAhead {
            places: reads,
            place_bytes: chunk_size.max(LONG_LINES_READ_AHEAD_BYTES / reads.max(1)),
            bytes: reads.saturating_mul(chunk_size),
        }
    }

    /// `places` places of `place_bytes` each: for items far smaller than a read.
    pub(crate) fn in_places(places: usize, place_bytes: usize) -> Self {
        ReadAhead {
            places,
            place_bytes,
            bytes: places.saturating_mul(place_bytes),
        }
    }
}

/// What a consumer does with a fed stream's reader (see `fed_stream.rs`, which implements it):
/// frame here, or say that it waits.
pub(crate) trait FrameHere<T>: Send + Sync + std::fmt::Debug {
    /// The consumer's step that does not wait (see [`ReadStream::try_next`]).
    fn try_next(&self, items: &mut ItemReceiver<T>) -> TryNext<T>;

    /// Feeds `chunk` through `feed` and takes the same step (see [`ReadStream::try_next_fed`]).
    fn try_next_fed(&self, feed: &Feed, chunk: &[u8], items: &mut ItemReceiver<T>) -> FedNext<T>;

    /// The consumer waits on the background task: it reads what is queued, however little.
    fn demand(&self);

    /// Resolves when the background task has next framed all that was queued and parked the
    /// reader (see [`ReadStream::next_or_starved`]); only for a waiter made before that.
    fn framed_all(&self) -> Notified<'_>;
}

/// [`ReadStream::next_or_starved`] of a fed stream: what the consumer could take or frame now,
/// else what the background task sends once it has framed all that is queued, or `Starved` if it
/// sent nothing. The wait for that is set before looking, so a round that ends meanwhile is seen.
async fn next_fed<T>(here: &dyn FrameHere<T>, items: &mut ItemReceiver<T>) -> TryNext<T> {
    let framed = here.framed_all();
    let mut framed = pin!(framed);
    framed.as_mut().enable();
    match here.try_next(items) {
        TryNext::Wait => {}
        now => return now,
    }
    here.demand();
    tokio::select! {
        biased;
        item = items.recv() => TryNext::Ready(item),
        () = framed => match items.try_recv() {
            Ok(item) => TryNext::Ready(Some(item)),
            Err(TryRecvError::Disconnected) => TryNext::Ready(None),
            Err(TryRecvError::Empty) => TryNext::Starved,
        },
    }
}

/// What a consumer that does not wait finds (see [`ReadStream::try_next`]).
#[derive(Debug)]
pub enum TryNext<T> {
    /// The next item, or `None` at the end.
    Ready(Option<Item<T>>),
    /// Nothing yet: wait for it with [`ReadStream::next`].
    Wait,
    /// A fed stream framed all it was fed: feed it more, then try again.
    Starved,
}

/// What a consumer finds right after feeding its source a chunk (see
/// [`ReadStream::try_next_fed`]).
#[derive(Debug)]
pub enum FedNext<T> {
    /// An item framed on the consumer's thread, after which nothing more is framed until the
    /// source is fed again: the consumer waits for its next chunk without asking first.
    Drained(T),
    /// The end (`None`), or a failure.
    Over(Option<ReadError>),
    /// Nothing complete yet: feed more, then try again.
    Starved,
    /// Nothing framed here: take the next item with [`ReadStream::try_next`] or
    /// [`ReadStream::next`].
    Elsewhere,
}

impl<T: Send + 'static> ReadStream<T> {
    /// Opens `path` and starts reading it. Must be called inside a Tokio runtime. At most
    /// [`READ_AHEAD_BYTES`](crate::buffer::READ_AHEAD_BYTES) (or two chunks, if more) wait in the channel, plus one item being
    /// read: that bounds memory however slow the consumer is.
    pub fn spawn<F>(path: PathBuf, options: ReadOptions, framer: F) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
    {
        // Known once the file is open: a share starts at its first line.
        let started_at = Arc::new(OnceLock::new());
        let read_ahead = ReadAhead::in_reads(
            parts::read_ahead(&framer, options.chunk_size),
            options.chunk_size,
        );
        Self::start(read_ahead, framer, started_at, |producer| {
            producer.run(path, options)
        })
    }

    /// Starts reading `source`, an input that signals readiness (a fed source, or a pipe or
    /// socket handed over as a descriptor: see [`crate::ReadyInput`]), from where it stands.
    /// Must be called inside a Tokio runtime; bounded like [`Self::spawn`].
    pub fn read_async<F, I>(source: Source<I>, framer: F) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
        I: AsyncRead + Unpin + Send + 'static,
    {
        let options = source.read_options();
        let started_at = Arc::new(OnceLock::from(source.offset()));
        let read_ahead =
            ReadAhead::in_reads(read_ahead_chunks(options.chunk_size), options.chunk_size);
        Self::start::<F, (), _>(read_ahead, framer, started_at, |producer| {
            producer.read_async(source)
        })
    }

    /// Starts reading `source`, a file or device already open, with blocking reads on the
    /// blocking pool, from where it stands. Must be called inside a Tokio runtime.
    pub fn read_blocking<F>(source: Source<File>, framer: F) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
    {
        let chunk_size = source.read_options().chunk_size;
        let read_ahead = ReadAhead::in_reads(read_ahead_chunks(chunk_size), chunk_size);
        let started_at = Arc::new(OnceLock::from(source.offset()));
        Self::start(read_ahead, framer, started_at, |producer| {
            producer.read_file(source, false)
        })
    }

    /// A stream and its producer, which `run` starts: everything both kinds of stream share.
    /// Up to `read_ahead`'s places wait in its channel: items of a place's bytes or less take
    /// one each, heavier ones more (see [`crate::channel`]).
    pub(crate) fn start<F, R, Fut>(
        read_ahead: ReadAhead,
        framer: F,
        started_at: Arc<OnceLock<u64>>,
        run: impl FnOnce(Producer<F, R>) -> Fut,
    ) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
        R: Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (items_sender, items, waiter) =
            channel(read_ahead.places, read_ahead.place_bytes, F::weight);
        let (file_closed_sender, file_closed) = oneshot::channel();
        let stop = Arc::new(Stop::<R>::default());
        let producer = Producer {
            framer,
            items: items_sender,
            progress: Progress::default(),
            stop: Arc::clone(&stop),
            file_closed: file_closed_sender,
            started_at: Arc::clone(&started_at),
        };
        let progress = producer.progress.clone();
        ReadStream {
            items: tokio::sync::Mutex::new(items),
            waiter,
            producer: tokio::spawn(run(producer)),
            file_closed: Mutex::new(Some(file_closed)),
            progress,
            started_at,
            stop,
            here: None,
            read_ahead_bytes: read_ahead.bytes,
        }
    }

    /// The bytes this stream reads ahead of its consumer when its lines are shorter than a read:
    /// what it holds outside the engine's heap for as long as its JS object lives, unless closed
    /// or read to the end (a binding reports it to the engine, so that readers dropped without
    /// being closed are collected as their memory, not their small JS objects, says).
    pub fn read_ahead_bytes(&self) -> usize {
        self.read_ahead_bytes
    }

    /// The next item; `None` at the end of the file, after an error, or after [`Self::close`].
    pub async fn next(&self) -> Option<Item<T>> {
        let mut items = self.items.lock().await;
        if let Some(here) = &self.here {
            here.demand();
        }
        items.recv().await.filter(|_| !self.stop.is_cancelled())
    }

    /// [`Self::next`], for a fed stream's consumer that feeds its source itself: `Starved` once
    /// the background task has framed all it was fed and sent nothing. The consumer feeds more
    /// first, and does not wait here on a source that may never send again (a JS step waiting
    /// here is held by the engine until it settles, and with it the reader, however long ago it
    /// was dropped). Never `Wait`.
    pub async fn next_or_starved(&self) -> TryNext<T> {
        let Some(here) = &self.here else {
            return TryNext::Ready(self.next().await);
        };
        let mut items = self.items.lock().await;
        match next_fed(here.as_ref(), &mut items).await {
            TryNext::Ready(item) => TryNext::Ready(item.filter(|_| !self.stop.is_cancelled())),
            next => next,
        }
    }

    /// The next item if one has already been read: `Ready(None)` at the end, `Wait` when the
    /// consumer has to wait (or another call is already waiting). Lets a consumer that keeps up
    /// take read-ahead items with no hand-off between threads. A fed stream's consumer frames
    /// what little is queued here, or is told it is `Starved` (see `fed_stream.rs`).
    pub fn try_next(&self) -> TryNext<T> {
        if self.stop.is_cancelled() {
            return TryNext::Ready(None);
        }
        let Ok(mut items) = self.items.try_lock() else {
            return TryNext::Wait;
        };
        if let Some(here) = &self.here {
            return here.try_next(&mut items);
        }
        match items.try_recv() {
            Ok(item) => TryNext::Ready(Some(item)),
            Err(TryRecvError::Disconnected) => TryNext::Ready(None),
            Err(TryRecvError::Empty) => TryNext::Wait,
        }
    }

    /// Has `wake` called, on whichever thread has news, once [`Self::try_next`] may find an
    /// item or the end: at once if it may now. For a consumer that waits on its own thread
    /// instead of in a task (see `crate::channel`). Not for a fed stream, whose consumer waits
    /// with [`Self::next`] (see [`Self::is_fed`]).
    pub fn wake_when_ready(&self, wake: Wake) {
        self.waiter.set(wake);
        // An item sent before `wake` was left found nobody to wake: look once more. The
        // waiter's lock orders this look after such a send, or the send's wake after the set.
        let news = self.stop.is_cancelled()
            || self
                .items
                .try_lock()
                .map_or(true, |items| !items.is_empty() || items.is_closed());
        if news {
            self.waiter.wake();
        }
    }

    /// Whether this stream reads a fed source: then its consumer waits with [`Self::next`].
    pub fn is_fed(&self) -> bool {
        self.here.is_some()
    }

    /// Feeds `chunk` to this stream's source through `feed`, its feeder's half, and takes
    /// [`Self::try_next`]'s step: for a consumer that waits for its next chunk, which it
    /// usually frames on its own thread (straight into the reader's buffer when nothing is
    /// queued). It learns whether anything more is framed before the next chunk, and so
    /// whether to ask again before feeding one. `Elsewhere` for a stream that is not fed.
    pub fn try_next_fed(&self, feed: &Feed, chunk: &[u8]) -> FedNext<T> {
        if self.stop.is_cancelled() {
            return FedNext::Over(None);
        }
        match (&self.here, self.items.try_lock()) {
            (Some(here), Ok(mut items)) => here.try_next_fed(feed, chunk, &mut items),
            _ => {
                feed.push(chunk);
                FedNext::Elsewhere
            }
        }
    }

    /// Bytes read from the file so far, read-ahead included.
    pub fn bytes_read(&self) -> u64 {
        self.progress.bytes()
    }

    /// Where reading started in the file: `start`, or for a follower, where it found the lines
    /// to start with once it opened the file; `None` until then.
    pub fn started_at(&self) -> Option<u64> {
        self.started_at.get().copied()
    }

    /// Stops reading and waits until the file is closed, then frees what was read ahead. A
    /// pending [`Self::next`] returns `None`, and so does every later one. Calling it again
    /// returns at once.
    pub async fn close(&self) {
        self.cancel();
        let file_closed = self
            .file_closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(file_closed) = file_closed {
            // Only an error can arrive: the sender is dropped right after the file.
            let _ = file_closed.await;
        }
        // Without this, up to READ_AHEAD_BYTES stay until the stream is dropped, which in JS
        // is whenever the collector gets to the reader.
        let mut items = self.items.lock().await;
        while items.try_recv().is_ok() {}
    }
}

impl<T> ReadStream<T> {
    /// Stops reading without waiting: a read already running finishes, nothing more is read or
    /// handed out, and the file is closed as soon as that read returns. What was read ahead is
    /// freed now, not with the stream: an env torn down without finalizing its objects (a Deno
    /// worker that ends) keeps the stream for the life of the process.
    pub fn cancel(&self) {
        self.stop.cancel();
        self.producer.abort();
        self.waiter.wake();
        // A consumer holding the queue is taking a step, which sees the stream cancelled.
        if let Ok(mut items) = self.items.try_lock() {
            items.close();
            while items.try_recv().is_ok() {}
        }
    }
}

impl<T> Drop for ReadStream<T> {
    /// A stream dropped without `close` still stops reading and closes its file.
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The stream's side of a [`Stop`], whatever the reader type parked in it.
pub(crate) trait Cancel: Send + Sync + std::fmt::Debug {
    fn cancel(&self);
    fn is_cancelled(&self) -> bool;
}

/// How a stream is stopped, shared by the stream and its producer.
///
/// - A flag: a read already running on the blocking pool, which aborting the task cannot stop,
///   reads nothing more once it is set, and nothing more is handed out.
/// - The slot where the file's reader (its [`Trip`]) waits between trips to the blocking pool.
///   A trip takes it out and puts it back, and `cancel` empties it. So a reader whose next trip
///   is still queued for a thread (all of them busy: Tokio cannot drop a queued blocking task
///   before a thread picks it up) is dropped, and its file closed, at once.
pub(crate) struct Stop<R> {
    cancelled: AtomicBool,
    parked: Mutex<Option<R>>,
}

impl<R> Default for Stop<R> {
    fn default() -> Self {
        Stop {
            cancelled: AtomicBool::new(false),
            parked: Mutex::new(None),
        }
    }
}

impl<R> std::fmt::Debug for Stop<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stop")
            .field("cancelled", &self.cancelled)
            .finish_non_exhaustive()
    }
}

impl<R: Send> Cancel for Stop<R> {
    /// Sets the flag, then drops a parked reader. (`park` puts the reader back before it checks
    /// the flag, and the slot's lock orders the two, so one of them always drops it.)
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.clear();
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

impl<R> Stop<R> {
    fn slot(&self) -> MutexGuard<'_, Option<R>> {
        self.parked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the reader out for a trip; `None` once the stream is cancelled.
    pub(crate) fn take(&self) -> Option<R> {
        self.slot().take()
    }

    /// Puts `reader` back for the next trip, unless the stream was cancelled meanwhile: then it
    /// is dropped here.
    pub(crate) fn park(&self, reader: R)
    where
        R: Send,
    {
        *self.slot() = Some(reader);
        if self.is_cancelled() {
            self.clear();
        }
    }

    /// Drops a parked reader, closing its file, outside the lock.
    fn clear(&self) {
        let parked = self.slot().take();
        drop(parked);
    }
}

/// Empties the slot when the producer ends, however it ends: a reader left parked after the
/// last item (say, an error sent into a full channel) would keep its file open.
pub(crate) struct ClearOnDrop<R>(pub(crate) Arc<Stop<R>>);

impl<R> Drop for ClearOnDrop<R> {
    fn drop(&mut self) {
        self.0.clear();
    }
}

/// Everything the background task of one stream owns before the file is open; `R` is what it
/// parks between trips to the blocking pool.
pub(crate) struct Producer<F: Framer, R> {
    pub(crate) framer: F,
    pub(crate) items: ItemSender<F::Item>,
    pub(crate) progress: Progress,
    pub(crate) stop: Arc<Stop<R>>,
    pub(crate) file_closed: oneshot::Sender<()>,
    pub(crate) started_at: Arc<OnceLock<u64>>,
}

/// A file's reader with the channel it fills.
struct Trip<F: Framer> {
    reader: FileReader<F>,
    items: ItemSender<F::Item>,
    /// Items a trip sends per wake of a waiting consumer (see [`TripReader::wake_every`]).
    wake_every: usize,
}

/// How a trip reads a file: whole, or in parts on two threads (see `parts.rs`). Each tells the
/// stream its file is closed only once the file is: `closed` drops after `reader` (fields drop
/// in order), and a file read in parts is closed once neither the reader nor a helper holds it.
enum FileReader<F: Framer> {
    Whole {
        reader: Reader<F>,
        _closed: oneshot::Sender<()>,
    },
    /// Boxed: the larger by far, and made once per search of a large file.
    InParts(Box<InParts<F>>),
}

impl<F> FileReader<F>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    /// Reads `source`, opened from a path, in parts when that pays (see [`InParts::range_to_cut`]).
    fn new(
        source: Source,
        framer: F,
        progress: Progress,
        closed: oneshot::Sender<()>,
        parts_allowed: bool,
    ) -> Self {
        let in_parts = parts_allowed.then(|| InParts::range_to_cut(&source, &framer));
        if let Some(within) = in_parts.flatten() {
            let parts = InParts::new(source, within, framer, progress, closed);
            return FileReader::InParts(Box::new(parts));
        }
        FileReader::Whole {
            reader: Reader::new(source, framer, progress),
            _closed: closed,
        }
    }

    fn next_unless(&mut self, stopped: &dyn Fn() -> bool) -> Result<Option<F::Item>, ReadError> {
        match self {
            FileReader::Whole { reader, .. } => reader.next_unless(stopped),
            FileReader::InParts(parts) => parts.next_unless(stopped),
        }
    }
}

impl<F> Producer<F, Trip<F>>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    async fn run(mut self, path: PathBuf, options: ReadOptions) {
        // An open may wait on a slow file system, so it runs on the blocking pool; a FIFO opens
        // at once, and its writer is waited for on the reactor, as a terminal's typist is. A
        // share's line starts are looked for until the stream is stopped (a share cut inside a
        // line of gigabytes looks through it), and its end no further than a line it takes.
        let stop = Arc::clone(&self.stop);
        let longest_line = self.framer.longest_line();
        // The open holds the stream's end of `file_closed` (a placeholder stands in the producer
        // meanwhile) and gives it back with the file: a close() during the open aborts this task,
        // and the open, which goes on, then drops them together, the file first (a tuple drops
        // its fields in order). Dropped with the task, the stream heard its file was closed
        // before it was opened, and a step given the end found it open after it.
        let file_closed = std::mem::replace(&mut self.file_closed, oneshot::channel().0);
        let open = move || {
            let stopped = || stop.is_cancelled();
            let reach = Reach::until(&stopped).within_longest_line(longest_line);
            (open_unblocked(&path, &options, reach), file_closed)
        };
        let source = match spawn_blocking(open).await {
            Ok((opened, file_closed)) => {
                self.file_closed = file_closed;
                match opened {
                    Ok(source) => source,
                    Err(err) => {
                        self.items.send(Err(err.into())).await;
                        return;
                    }
                }
            }
            Err(_) => return, // the runtime is shutting down
        };
        let _ = self.started_at.set(source.offset());
        match source.into_reads() {
            Ok(Reads::Ready(source)) => self.read_async(source).await,
            Ok(Reads::Blocking(source)) => self.read_file(source, true).await,
            Err(err) => {
                self.items.send(Err(err.into())).await;
            }
        }
    }

    /// Reads an open file on the blocking pool, in trips (see [`run_trips`]): in parts if it
    /// was opened from a path (`parts_allowed`) and that pays. A file handed over by JS (a
    /// `FileHandle`) is read whole, with reads that move its position as JS's own would.
    async fn read_file(self, source: Source<File>, parts_allowed: bool) {
        let Producer {
            framer,
            items,
            progress,
            stop,
            file_closed,
            ..
        } = self;
        // Half the channel: the consumer takes those while the reader fills the other half.
        let wake_every = if source.reads_promptly() {
            (items.capacity() / 2).clamp(1, MAX_ITEMS_PER_WAKE)
        } else {
            1
        };
        let trip = Trip {
            reader: FileReader::new(source, framer, progress, file_closed, parts_allowed),
            items,
            wake_every,
        };
        run_trips(trip, stop, None).await;
    }
}

impl<F, R> Producer<F, R>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    /// Reads an input that signals readiness (a FIFO, a fed source) on the runtime's workers:
    /// waiting for data holds no thread.
    async fn read_async<I: AsyncRead + Unpin>(self, source: Source<I>) {
        // Locals drop in reverse order: the stream hears its input is closed after it is.
        let _file_closed = self.file_closed;
        let mut reader = Reader::new(source, self.framer, self.progress);
        loop {
            let next = reader.next_async().await;
            if !forward(&self.items, next).await {
                return;
            }
        }
    }
}

/// Reads with `trip` on the blocking pool, filling the channel directly from there until it is
/// full; only then does the task wait, holding no thread. Between trips the reader is parked
/// where `cancel` can drop it (see [`Stop`]); while the task waits for room for an item it read,
/// it holds the reader, so that nothing is sent before that item. A follower that has read all
/// there is for now ([`TripEnd::CaughtUp`]) waits, holding no thread either, until `changes`
/// says the file changed while the watcher's thread could not read it there (see
/// [`read_here`]), or hands the reader back.
pub(crate) async fn run_trips<R: TripReader>(
    trip: R,
    stop: Arc<Stop<R>>,
    changes: Option<&Changes<R>>,
) {
    let items = trip.items().clone();
    let _clear = ClearOnDrop(Arc::clone(&stop));
    stop.park(trip);
    loop {
        let handed_back = changes.and_then(Changes::take_handed_back);
        let trip = match handed_back {
            Some(trip) => trip,
            None => match (trip_on_blocking_pool(&stop).await, changes) {
                (Some(trip), _) => trip,
                (None, Some(changes)) if !stop.is_cancelled() => {
                    // The watcher's thread has the reader: it parks it once caught up, or
                    // hands it back.
                    changes.changed.notified().await;
                    continue;
                }
                (None, _) => return,
            },
        };
        let (reader, end) = trip;
        let caught_up = matches!(end, TripEnd::CaughtUp);
        let more = match end {
            TripEnd::ChannelFull(item) => forward(&items, item.map(Some)).await,
            TripEnd::TripDone | TripEnd::CaughtUp => true,
            TripEnd::StreamDone => false,
        };
        let Some(reader) = reader.filter(|_| more) else {
            return;
        };
        stop.park(reader);
        if caught_up {
            let Some(changes) = changes else {
                return;
            };
            changes.changed.notified().await;
        }
    }
}

/// A reader back from a trip (`None` if the trip panicked), and how the trip ended.
type TripBack<R> = (Option<R>, TripEnd<<R as TripReader>::Item>);

/// The trip a panic ends: the failure is still to be sent, and there is no reader to go on with.
fn panicked<R: TripReader>() -> TripBack<R> {
    (None, TripEnd::ChannelFull(Err(ReadError::Panicked)))
}

/// One trip with the parked reader on the blocking pool; `None` if there was none to take: the
/// stream was cancelled (the file is already closed then), or the watcher's thread reads with
/// it (see [`read_here`]).
async fn trip_on_blocking_pool<R: TripReader>(stop: &Arc<Stop<R>>) -> Option<TripBack<R>> {
    let stop = Arc::clone(stop);
    let trip = spawn_blocking(move || {
        let mut reader = stop.take()?;
        let end = fill_channel(&mut reader, &*stop, TripThread::BlockingPool);
        Some((Some(reader), end))
    });
    match trip.await {
        Ok(trip) => trip,
        Err(failed) if failed.is_panic() => Some(panicked::<R>()),
        Err(_) => None,
    }
}

/// What a follower's task shares with the watcher's thread (see [`read_here`]).
pub(crate) struct Changes<R: TripReader> {
    /// Wakes the task: the file changed while the reader was out, or a reader was handed back.
    changed: Notify,
    /// A reader the watcher's thread read with and hands back to the task, with how its trip
    /// ended (anything but caught up).
    handed_back: Mutex<Option<TripBack<R>>>,
}

impl<R: TripReader> Default for Changes<R> {
    fn default() -> Self {
        Changes {
            changed: Notify::new(),
            handed_back: Mutex::new(None),
        }
    }
}

impl<R: TripReader> Changes<R> {
    pub(crate) fn take_handed_back(&self) -> Option<TripBack<R>> {
        self.handed_back
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Waits for the watcher's thread to tell of a change (or of a reader handed back); one
    /// told while nobody waited is not lost.
    pub(crate) async fn next_change(&self) {
        self.changed.notified().await;
    }

    fn hand_back(&self, trip: TripBack<R>) {
        *self
            .handed_back
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(trip);
        self.changed.notify_one();
    }
}

/// A follower's file changed: reads what was appended here, on the watcher's thread, when the
/// reader is parked, which is the usual case. Waking the task to read on the blocking pool
/// instead cost three hand-offs between threads per change, most of what following a log
/// written a line at a time cost. Anything but catching up (a full channel, an error, much
/// more to read than a trip here may read) hands the reader back to the task. When the reader is
/// out (the task reads with it, or waits to send what it read), the task is told to read once
/// more when it is done.
pub(crate) fn read_here<R: TripReader>(stop: &Stop<R>, changes: &Changes<R>) {
    let Some(mut reader) = stop.take() else {
        changes.changed.notify_one();
        return;
    };
    match catch_unwind(AssertUnwindSafe(|| {
        fill_channel(&mut reader, stop, TripThread::Watcher)
    })) {
        Ok(TripEnd::CaughtUp) => stop.park(reader),
        Ok(end) => changes.hand_back((Some(reader), end)),
        Err(_) => changes.hand_back(panicked::<R>()),
    }
}

/// Where a trip reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TripThread {
    /// A thread of the blocking pool, a trip's own while it lasts.
    BlockingPool,
    /// The watcher's thread (see [`read_here`]), which every follower in the process shares:
    /// while a trip reads there, no other follower hears of its file's changes.
    Watcher,
}

pub(crate) enum TripEnd<T> {
    /// The channel filled up; this item is still to be sent.
    ChannelFull(Item<T>),
    /// Enough for one trip; more to read.
    TripDone,
    /// End of input, an error (sent), or nobody listening.
    StreamDone,
    /// A follower read all there is for now.
    CaughtUp,
}

/// What a trip to the blocking pool reads with: a reader and the channel it fills.
pub(crate) trait TripReader: Send + 'static {
    type Item: Send + 'static;
    /// The channel the items go into.
    fn items(&self) -> &ItemSender<Self::Item>;
    /// The next item; `None` when there is nothing more for now, or once `stop` is cancelled
    /// (checked between reads).
    fn next_item(&mut self, stop: &dyn Cancel) -> Result<Option<Self::Item>, ReadError>;
    /// How a trip ends when `next_item` has nothing more: the end of the stream, or, for a
    /// follower, having caught up, or having read what a trip on its thread may read.
    fn nothing_more(&self) -> TripEnd<Self::Item>;
    /// A trip begins on `thread`: a follower forgets what an earlier trip learned of the
    /// file's end, and notes where a trip there must stop reading.
    fn begin_trip(&mut self, _thread: TripThread) {}
    /// How many items a trip puts into the channel per wake of a waiting consumer (see
    /// [`WakePace`]): 1 unless the next item always comes promptly.
    fn wake_every(&self) -> usize {
        1
    }
}

impl<F> TripReader for Trip<F>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    type Item = F::Item;

    fn items(&self) -> &ItemSender<F::Item> {
        &self.items
    }

    fn next_item(&mut self, stop: &dyn Cancel) -> Result<Option<F::Item>, ReadError> {
        self.reader.next_unless(&|| stop.is_cancelled())
    }

    fn nothing_more(&self) -> TripEnd<F::Item> {
        TripEnd::StreamDone
    }

    fn wake_every(&self) -> usize {
        self.wake_every
    }
}

/// Reads items and puts them into the channel without waiting, until it is full, there is
/// nothing more to read, or the stream is cancelled (which aborting the task cannot signal to a
/// trip already running).
/// A waiting consumer is woken at the trip's first item, then as [`TripReader::wake_every`]
/// says, and at the end of the trip for any item not yet woken for.
fn fill_channel<R: TripReader>(
    trip: &mut R,
    stop: &dyn Cancel,
    thread: TripThread,
) -> TripEnd<R::Item> {
    trip.begin_trip(thread);
    let mut pace = WakePace::new(trip.wake_every());
    let end = fill_paced(trip, stop, &mut pace);
    trip.items().wake_for(pace);
    end
}

/// [`fill_channel`]'s reads and sends, woken for as `pace` says.
fn fill_paced<R: TripReader>(
    trip: &mut R,
    stop: &dyn Cancel,
    pace: &mut WakePace,
) -> TripEnd<R::Item> {
    for _ in 0..ITEMS_PER_TRIP {
        if stop.is_cancelled() {
            return TripEnd::StreamDone;
        }
        let item = match trip.next_item(stop) {
            Ok(Some(item)) => Ok(item),
            Ok(None) => return trip.nothing_more(),
            Err(err) => Err(err),
        };
        if let Some(end) = offer(trip.items(), item, pace) {
            return end;
        }
    }
    TripEnd::TripDone
}

/// Puts `item` into the channel without waiting; `None` when it went in and reading goes on,
/// else how the trip ends (full, or over: an error was sent, or nobody listens).
fn offer<T>(items: &ItemSender<T>, item: Item<T>, pace: &mut WakePace) -> Option<TripEnd<T>> {
    let failed = item.is_err();
    match items.try_send_paced(item, pace) {
        Ok(()) if failed => Some(TripEnd::StreamDone),
        Ok(()) => None,
        Err(TrySendError::Full(item)) => Some(TripEnd::ChannelFull(item)),
        Err(TrySendError::Closed(_)) => Some(TripEnd::StreamDone),
    }
}

/// Passes one read's outcome on; `false` when the stream is over (end, error, or nobody
/// listening any more). An item that finds the channel full waits until the consumer has taken
/// half of what it holds (see [`ItemSender::send_when_drained`]).
pub(crate) async fn forward<T>(items: &ItemSender<T>, next: Result<Option<T>, ReadError>) -> bool {
    let item = match next {
        Ok(Some(item)) => Ok(item),
        Ok(None) => return false,
        Err(err) => Err(err),
    };
    let failed = item.is_err();
    match items.try_send(item) {
        Ok(()) => !failed,
        Err(TrySendError::Full(item)) => items.send_when_drained(item).await && !failed,
        Err(TrySendError::Closed(_)) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Polls `future` once, here, with a waker that does nothing.
    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    fn take(items: &mut ItemReceiver<u32>) -> u32 {
        items.try_recv().expect("an item").expect("not a failure")
    }

    #[test]
    fn an_item_that_finds_the_channel_full_waits_until_half_of_it_is_taken() {
        let (items, mut taken, _waiter) = channel(4, 1, |_| 0);
        for n in 0..4 {
            items.try_send(Ok(n)).expect("room");
        }
        let mut sent = pin!(forward(&items, Ok(Some(4))));
        assert!(poll_once(sent.as_mut()).is_pending());
        assert_eq!(take(&mut taken), 0);
        assert!(
            poll_once(sent.as_mut()).is_pending(),
            "one place of four is not half"
        );
        assert_eq!(take(&mut taken), 1);
        assert_eq!(poll_once(sent.as_mut()), Poll::Ready(true));
        let rest: Vec<u32> = (0..3).map(|_| take(&mut taken)).collect();
        assert_eq!(rest, [2, 3, 4], "in order, the waiting item last");
        items
            .try_send(Ok(5))
            .expect("the places reserved and not used are free again");
    }

    /// A trip reader that reads `left` items, sending each with a count of the wakes its
    /// consumer had before it, and paces its wakes by `every`.
    struct Counting {
        items: ItemSender<u32>,
        left: u32,
        every: usize,
        wakes: Arc<std::sync::atomic::AtomicU32>,
    }

    impl TripReader for Counting {
        type Item = u32;
        fn items(&self) -> &ItemSender<u32> {
            &self.items
        }
        fn next_item(&mut self, _: &dyn Cancel) -> Result<Option<u32>, ReadError> {
            let Some(left) = self.left.checked_sub(1) else {
                return Ok(None);
            };
            self.left = left;
            Ok(Some(self.wakes.load(Ordering::SeqCst)))
        }
        fn nothing_more(&self) -> TripEnd<u32> {
            TripEnd::StreamDone
        }
        fn wake_every(&self) -> usize {
            self.every
        }
    }

    #[test]
    fn a_trip_over_prompt_reads_wakes_its_consumer_for_the_first_item_then_every_nth_and_at_its_end(
    ) {
        let (items, mut taken, waiter) = channel(16, 1, |_| 0);
        let wakes = Arc::new(std::sync::atomic::AtomicU32::new(0));
        // A consumer that always waits again once woken, as one faster than the reader does.
        fn wait(waiter: &Arc<Waiter>, wakes: &Arc<std::sync::atomic::AtomicU32>) {
            let (again, wakes) = (Arc::clone(waiter), Arc::clone(wakes));
            waiter.set(Box::new(move || {
                wakes.fetch_add(1, Ordering::SeqCst);
                wait(&again, &wakes);
            }));
        }
        wait(&waiter, &wakes);
        let mut trip = Counting {
            items,
            left: 6,
            every: 4,
            wakes: Arc::clone(&wakes),
        };
        assert!(matches!(
            fill_channel(&mut trip, &Stop::<()>::default(), TripThread::BlockingPool),
            TripEnd::StreamDone
        ));
        let before_each: Vec<u32> = (0..6).map(|_| take(&mut taken)).collect();
        assert_eq!(before_each, [0, 1, 1, 1, 1, 2], "woken after items 1 and 5");
        assert_eq!(
            wakes.load(Ordering::SeqCst),
            3,
            "and once more for item 6, at the trip's end"
        );
    }

    #[test]
    fn an_item_with_room_goes_in_at_once_and_the_end_a_failure_or_no_listener_end_the_stream() {
        let (items, mut taken, _waiter) = channel(4, 1, |_| 0);
        items.try_send(Ok(0)).expect("room");
        assert_eq!(
            poll_once(pin!(forward(&items, Ok(Some(1))))),
            Poll::Ready(true)
        );
        assert_eq!(
            poll_once(pin!(forward(&items, Ok(None)))),
            Poll::Ready(false)
        );
        let failed = forward(&items, Err(ReadError::Panicked));
        assert_eq!(poll_once(pin!(failed)), Poll::Ready(false));
        assert_eq!(take(&mut taken), 0);
        assert_eq!(take(&mut taken), 1);
        assert!(matches!(taken.try_recv(), Ok(Err(ReadError::Panicked))));
        drop(taken);
        assert_eq!(
            poll_once(pin!(forward(&items, Ok(Some(2))))),
            Poll::Ready(false)
        );
    }
}
