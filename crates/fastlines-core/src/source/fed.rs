//! A byte source fed from outside: chunks pushed in by another thread (the JS thread, pulling
//! them from a stream or an iterator) and read as an [`AsyncRead`], so that every stage after
//! the source (decompression, splitting, decoding, the background stream) is the one files use.
//!
//! Each chunk is copied in (the feeder's memory stays the feeder's), into a buffer recycled from
//! the chunks already read: fresh memory for every 64 KiB chunk cost its 16 page faults, which
//! made a push 45 us instead of a few.
//!
//! The queue between the two is bounded in bytes, not chunks, so a source of tiny chunks and
//! one of huge chunks hold the same memory: [`Feed::push`] says when the queue is full, and the
//! feeder then waits for [`Feed::room`], which the reader's next read settles. Nothing polls:
//! the reader waits on a waker, and the feeder on a notification that a read (or the reader
//! going away) sends.
//!
//! The reader is not woken for every chunk: waking a thread costs the feeder a system call,
//! more than an 8 KiB chunk costs to copy in. It is woken once `wake_bytes` are queued, at the
//! end or a failure, or by a flush, for whatever is queued: the feeder flushes once it has no
//! more chunks for now (at the end of its event-loop turn), and a consumer that waits on the
//! reader flushes too ([`FedSignal::demand`]). A consumer on the feeder's own thread reads what
//! little is queued meanwhile itself (see `fed_stream.rs`).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

use crate::error::SourceFailed;

/// A fed source: the feeder's half ([`Feed`]) and the reader's ([`FedInput`]). At most
/// `limit` bytes wait in the queue before the feeder is told to wait (plus the chunk that
/// crossed the limit: chunks are never cut); a reader waiting for bytes is woken once
/// `wake_bytes` are queued (at most `limit`), by a flush, or when the source ends.
pub fn fed(limit: usize, wake_bytes: usize) -> (Feed, FedInput) {
    let limit = limit.max(1);
    let shared = Arc::new(Shared {
        state: Mutex::new(State::default()),
        room: Notify::new(),
        work: Notify::new(),
        limit,
        wake_bytes: wake_bytes.clamp(1, limit),
    });
    (Feed(Arc::clone(&shared)), FedInput(shared))
}

/// The feeder's half: pushes chunks, then ends or fails the source.
#[derive(Debug)]
pub struct Feed(Arc<Shared>);

/// The reader's half: reads the chunks in order, then the end (a read of 0 bytes) or the
/// failure (an error that [`crate::ReadError`] turns into `ReadError::Source`). Dropping it
/// tells the feeder to stop (see [`Feed::is_unread`]).
#[derive(Debug)]
pub struct FedInput(Arc<Shared>);

/// Tells a reader that is not reading (parked between uses, see `fed_stream.rs`) when there is
/// something for it to read, as a waiting read would be woken.
#[derive(Debug)]
pub struct FedSignal(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// Notified when the queue falls below the limit, or the reader goes away.
    room: Notify,
    /// Notified when a waiting reader would be woken (see [`State::wakes`]).
    work: Notify,
    /// Bytes the queue may hold before the feeder waits.
    limit: usize,
    /// Bytes queued that wake the reader (1..=limit).
    wake_bytes: usize,
}

/// The queue and how the source ends. Invariants: `queued` is the sum of the unread bytes of
/// `chunks`, none of which is read to its end; `spare_bytes` is the sum of `spare`'s
/// capacities, at most the queue's limit.
#[derive(Debug, Default)]
struct State {
    chunks: VecDeque<Chunk>,
    queued: usize,
    /// Buffers of chunks read to their end, emptied, for the next pushes to copy into.
    spare: Vec<Vec<u8>>,
    spare_bytes: usize,
    /// Set once, by the feeder: read after the chunks queued before it.
    ending: Option<Ending>,
    /// The reader, waiting for a chunk or the end.
    reader: Option<Waker>,
    /// Set by a flush, cleared by the next read: what is queued is worth reading, however
    /// little it is.
    flushed: bool,
    /// The reader was dropped: nothing pushed will be read.
    unread: bool,
}

impl State {
    /// Whether the reader has reason to read now: enough is queued, the source is over, or
    /// anything is queued since a flush.
    fn wakes(&self, wake_bytes: usize) -> bool {
        self.queued >= wake_bytes || self.ending.is_some() || (self.flushed && self.queued > 0)
    }
}

/// A chunk and how much of it was read.
#[derive(Debug)]
struct Chunk {
    bytes: Vec<u8>,
    read: usize,
}

impl Chunk {
    fn unread(&self) -> &[u8] {
        &self.bytes[self.read..]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Ended,
    Failed,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has_room(&self, state: &State) -> bool {
        state.unread || state.queued < self.limit
    }

    /// Keeps a read chunk's buffer for a later push, while the spares stay within the limit.
    fn recycle(&self, state: &mut State, mut bytes: Vec<u8>) {
        if state.spare_bytes + bytes.capacity() <= self.limit {
            bytes.clear();
            state.spare_bytes += bytes.capacity();
            state.spare.push(bytes);
        }
    }
}

impl Feed {
    /// Queues `chunk` for the reader; whether the feeder may push more at once. When not, it
    /// waits for [`Feed::room`], and then stops if [`Feed::is_unread`]: a feeder whose reader
    /// is gone must not go on pulling an endless source. Pushes after the end, or once the
    /// reader is gone, are dropped.
    pub fn push(&self, chunk: &[u8]) -> bool {
        let spare = {
            let mut state = self.0.state();
            if state.unread {
                return false;
            }
            let spare = state.spare.pop().unwrap_or_default();
            state.spare_bytes -= spare.capacity();
            spare
        };
        let mut bytes = spare;
        bytes.extend_from_slice(chunk);
        self.push_owned(bytes)
    }

    /// [`Feed::push`] for a chunk the feeder gives away: queued without a copy.
    pub fn push_owned(&self, bytes: Vec<u8>) -> bool {
        let mut state = self.0.state();
        if state.unread {
            return false;
        }
        if bytes.is_empty() || state.ending.is_some() {
            self.0.recycle(&mut state, bytes);
        } else {
            state.queued += bytes.len();
            state.chunks.push_back(Chunk { bytes, read: 0 });
            self.0.wake_if_due(&mut state);
        }
        self.0.has_room(&state)
    }

    /// Resolves once the queue has room (or the reader is gone).
    pub async fn room(&self) {
        loop {
            let notified = self.0.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.0.has_room(&self.0.state()) {
                return;
            }
            notified.await;
        }
    }

    /// The feeder has no more chunks for now: the reader reads what is queued, however little.
    pub fn flush(&self) {
        self.0.flush();
    }

    /// The source ended: the reader reads the end after the queued chunks.
    pub fn end(&self) {
        self.finish(Ending::Ended);
    }

    /// The source failed: the reader reads a failure after the queued chunks.
    pub fn fail(&self) {
        self.finish(Ending::Failed);
    }

    /// Whether the reader is gone (closed): the feeder may stop pulling from the source.
    pub fn is_unread(&self) -> bool {
        self.0.state().unread
    }

    fn finish(&self, ending: Ending) {
        let mut state = self.0.state();
        state.ending.get_or_insert(ending);
        self.0.wake_if_due(&mut state);
    }
}

impl Shared {
    /// Marks what is queued worth reading, and wakes the reader for it.
    fn flush(&self) {
        let mut state = self.state();
        state.flushed = true;
        self.wake_if_due(&mut state);
    }

    /// Wakes the reader, waiting or parked, if it has reason to read now.
    fn wake_if_due(&self, state: &mut State) {
        if !state.wakes(self.wake_bytes) {
            return;
        }
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
        self.work.notify_one();
    }
}

impl FedInput {
    /// Bytes queued and not read yet.
    pub fn queued(&self) -> usize {
        self.0.state().queued
    }

    /// The signal that tells this input's reader, while it is parked, that it has reason to read.
    pub fn signal(&self) -> FedSignal {
        FedSignal(Arc::clone(&self.0))
    }
}

impl FedSignal {
    /// Resolves once the reader has reason to read: `wake_bytes` queued, the end or a failure,
    /// or anything queued while its consumer waits. Resolves at once when that is already so.
    pub async fn work(&self) {
        loop {
            let notified = self.0.work.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.0.state().wakes(self.0.wake_bytes) {
                return;
            }
            notified.await;
        }
    }

    /// The reader's consumer waits on it: a flush, so that it reads what is queued.
    pub fn demand(&self) {
        self.0.flush();
    }
}

impl AsyncRead for FedInput {
    /// Copies as many queued chunks as fit, so one read drains many small chunks.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let shared = &self.0;
        let mut state = shared.state();
        if state.chunks.is_empty() {
            return match state.ending {
                Some(Ending::Ended) => Poll::Ready(Ok(())),
                Some(Ending::Failed) => Poll::Ready(Err(io::Error::other(SourceFailed))),
                None => {
                    state.reader = Some(cx.waker().clone());
                    Poll::Pending
                }
            };
        }
        let was_full = !shared.has_room(&state);
        state.flushed = false;
        while buf.remaining() > 0 {
            let Some(front) = state.chunks.front_mut() else {
                break;
            };
            let n = front.unread().len().min(buf.remaining());
            buf.put_slice(&front.unread()[..n]);
            front.read += n;
            let read_whole = front.read == front.bytes.len();
            state.queued -= n;
            if read_whole {
                let chunk = state.chunks.pop_front().expect("the front chunk");
                shared.recycle(&mut state, chunk.bytes);
            }
        }
        if was_full && shared.has_room(&state) {
            shared.room.notify_waiters();
        }
        Poll::Ready(Ok(()))
    }
}

impl Drop for FedInput {
    /// The reader is gone: drop what is queued and release a waiting feeder.
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.unread = true;
        state.chunks.clear();
        state.queued = 0;
        state.spare.clear();
        state.spare_bytes = 0;
        drop(state);
        self.0.room.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;
    use tokio::io::AsyncReadExt;

    /// A fed source whose reader is woken by every push, as the tests below read it.
    fn fed(limit: usize) -> (Feed, FedInput) {
        super::fed(limit, 1)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
    }

    #[test]
    fn reads_chunks_in_order_across_their_boundaries_then_the_end() {
        runtime().block_on(async {
            let (feed, mut input) = fed(1024);
            for chunk in [&b"ab"[..], b"", b"cde", b"f"] {
                assert!(feed.push(chunk));
            }
            feed.end();
            let mut read = [0; 4];
            assert_eq!(input.read(&mut read).await.unwrap(), 4);
            assert_eq!(&read, b"abcd");
            let mut rest = Vec::new();
            input.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"ef");
        });
    }

    #[test]
    fn a_failure_comes_after_the_chunks_before_it() {
        runtime().block_on(async {
            let (feed, mut input) = fed(1024);
            feed.push(b"one\n");
            feed.fail();
            feed.push(b"ignored");
            let mut read = [0; 16];
            assert_eq!(input.read(&mut read).await.unwrap(), 4);
            let err = input.read(&mut read).await.unwrap_err();
            assert!(matches!(
                crate::ReadError::from_read(&err),
                crate::ReadError::Source
            ));
        });
    }

    #[test]
    fn the_queue_is_bounded_in_bytes_and_a_read_makes_room() {
        runtime().block_on(async {
            let (feed, mut input) = fed(10);
            assert!(feed.push(b"12345"));
            assert!(!feed.push(b"6789012"));
            let mut read = [0; 8];
            assert_eq!(input.read(&mut read).await.unwrap(), 8);
            feed.room().await; // 4 bytes left queued: room again
            assert!(feed.push(b"x"));
        });
    }

    /// Counts the wakes of the reader it is the waker of.
    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Wakes {
        fn count(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// Polls `input` once for a read with `wakes` as its waker: whether it read anything.
    fn poll_once(input: &mut FedInput, wakes: &Arc<Wakes>) -> bool {
        let waker = Waker::from(Arc::clone(wakes));
        let mut read = [0; 64];
        let mut buf = ReadBuf::new(&mut read);
        let poll = Pin::new(input).poll_read(&mut Context::from_waker(&waker), &mut buf);
        matches!(poll, Poll::Ready(Ok(()))) && !buf.filled().is_empty()
    }

    #[test]
    fn a_waiting_reader_is_woken_for_wake_bytes_or_by_a_flush_not_by_every_push() {
        let (feed, mut input) = super::fed(1024, 8);
        let wakes = Arc::new(Wakes::default());
        assert!(!poll_once(&mut input, &wakes), "nothing queued yet");
        feed.push(b"abc");
        assert_eq!(wakes.count(), 0, "3 of 8 bytes: not worth a wake");
        feed.flush();
        assert_eq!(wakes.count(), 1, "a flush: whatever is queued");
        assert!(poll_once(&mut input, &wakes));
        assert!(!poll_once(&mut input, &wakes), "read all; waits again");
        feed.push(b"de");
        assert_eq!(wakes.count(), 1, "the read cleared the flush");
        feed.push(b"fghijk");
        assert_eq!(wakes.count(), 2, "8 bytes queued");
        assert!(poll_once(&mut input, &wakes));
        assert!(!poll_once(&mut input, &wakes));
        input.signal().demand();
        feed.push(b"l");
        assert_eq!(
            wakes.count(),
            3,
            "a consumer waits: the next push is worth a wake"
        );
        assert!(poll_once(&mut input, &wakes));
        assert!(!poll_once(&mut input, &wakes));
        feed.end();
        assert_eq!(wakes.count(), 4, "the end");
    }

    #[test]
    fn a_dropped_reader_releases_the_feeder() {
        runtime().block_on(async {
            let (feed, input) = fed(1);
            assert!(!feed.push(b"full"));
            drop(input);
            feed.room().await;
            assert!(feed.is_unread());
            assert!(!feed.push(b"more"), "told to stop");
        });
    }
}
