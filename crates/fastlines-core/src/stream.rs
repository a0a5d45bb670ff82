//! Running a [`Reader`] on a Tokio runtime, ahead of its consumer by a bounded number of items.
//!
//! A producer task reads and frames items into a bounded channel; the consumer awaits them.
//! Regular files are read on the blocking pool, one chunk per hop; pipes are read through the
//! reactor, so a pipe with no data holds no thread. Nothing here polls: every wait is a wake-up
//! from the OS, the blocking pool or the channel.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};
use tokio::task::{spawn_blocking, JoinHandle};

use crate::error::OsError;
use crate::read::{open, Framer, Opened, ReadOptions, Reader};

type Item<T> = Result<T, OsError>;

/// Items read from one file by a background task, handed out in order.
#[derive(Debug)]
pub struct ReadStream<T> {
    items: tokio::sync::Mutex<mpsc::Receiver<Item<T>>>,
    producer: JoinHandle<()>,
    /// Completes (with an error: the sender is only ever dropped) once the file is closed.
    file_closed: Mutex<Option<oneshot::Receiver<()>>>,
    bytes_read: Arc<AtomicU64>,
}

impl<T: Send + 'static> ReadStream<T> {
    /// Opens `path` and starts reading it. Must be called inside a Tokio runtime. At most
    /// `read_ahead` items wait in the channel, plus one being read: that bounds memory however
    /// slow the consumer is.
    pub fn spawn<F>(path: PathBuf, options: ReadOptions, framer: F, read_ahead: usize) -> Self
    where
        F: Framer<Item = T> + Send + 'static,
    {
        let (sender, items) = mpsc::channel(read_ahead.max(1));
        let (file_closed_sender, file_closed) = oneshot::channel();
        let bytes_read = Arc::new(AtomicU64::new(0));
        let producer = tokio::spawn(produce(
            path,
            options,
            framer,
            sender,
            Arc::clone(&bytes_read),
            file_closed_sender,
        ));
        ReadStream {
            items: tokio::sync::Mutex::new(items),
            producer,
            file_closed: Mutex::new(Some(file_closed)),
            bytes_read,
        }
    }

    /// The next item; `None` at the end of the file, after an error, or after [`Self::close`].
    pub async fn next(&self) -> Option<Item<T>> {
        self.items.lock().await.recv().await
    }

    /// Bytes read from the file so far, read-ahead included.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Stops reading and waits until the file is closed. A pending [`Self::next`] returns
    /// `None`. Calling it again returns at once.
    pub async fn close(&self) {
        self.producer.abort();
        let file_closed = match self.file_closed.lock() {
            Ok(mut file_closed) => file_closed.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(file_closed) = file_closed {
            // Only an error can arrive: the sender is dropped right after the file.
            let _ = file_closed.await;
        }
    }
}

impl<T> Drop for ReadStream<T> {
    /// A stream dropped without `close` (say, garbage-collected in JS) still stops reading and
    /// closes its file.
    fn drop(&mut self) {
        self.producer.abort();
    }
}

/// A reader that signals, when dropped, that its file is closed. Fields drop in order, so the
/// file is closed before the signal goes out.
struct Guarded<R> {
    reader: R,
    _file_closed: oneshot::Sender<()>,
}

async fn produce<F: Framer + Send + 'static>(
    path: PathBuf,
    options: ReadOptions,
    framer: F,
    items: mpsc::Sender<Item<F::Item>>,
    bytes_read: Arc<AtomicU64>,
    file_closed: oneshot::Sender<()>,
) where
    F::Item: Send + 'static,
{
    // Opening a FIFO waits for a writer, so it too runs on the blocking pool.
    let opened = match spawn_blocking(move || open(&path, &options)).await {
        Ok(Ok(opened)) => opened,
        Ok(Err(err)) => {
            let _ = items.send(Err(err)).await;
            return;
        }
        Err(_) => return, // the runtime is shutting down
    };
    let Opened {
        file,
        remaining,
        is_pipe,
    } = opened;
    #[cfg(unix)]
    if is_pipe {
        match tokio::net::unix::pipe::Receiver::from_file(file) {
            Ok(pipe) => {
                let reader = Reader::new(pipe, remaining, options.chunk_size, framer)
                    .with_progress(bytes_read);
                let guarded = Guarded {
                    reader,
                    _file_closed: file_closed,
                };
                produce_from_pipe(guarded, items).await
            }
            Err(err) => {
                let _ = items.send(Err(OsError::new(&err, "read"))).await;
            }
        }
        return;
    }
    #[cfg(not(unix))]
    let _ = is_pipe;
    let reader = Reader::new(file, remaining, options.chunk_size, framer).with_progress(bytes_read);
    let guarded = Guarded {
        reader,
        _file_closed: file_closed,
    };
    produce_from_file(guarded, items).await
}

/// Reads a regular file (or device) one chunk per trip to the blocking pool. The reader travels
/// with the trip, so if the task is aborted meanwhile the file closes as soon as the read ends.
async fn produce_from_file<F: Framer + Send + 'static>(
    mut guarded: Guarded<Reader<F>>,
    items: mpsc::Sender<Item<F::Item>>,
) where
    F::Item: Send + 'static,
{
    loop {
        let trip = spawn_blocking(move || {
            let next = guarded.reader.next_blocking();
            (guarded, next)
        });
        let Ok((returned, next)) = trip.await else {
            return;
        };
        guarded = returned;
        if !forward(&items, next).await {
            return;
        }
    }
}

#[cfg(unix)]
async fn produce_from_pipe<F: Framer>(
    mut guarded: Guarded<Reader<F, tokio::net::unix::pipe::Receiver>>,
    items: mpsc::Sender<Item<F::Item>>,
) {
    loop {
        let next = guarded.reader.next_async().await;
        if !forward(&items, next).await {
            return;
        }
    }
}

/// Passes one read's outcome on; `false` when the stream is over (end, error, or nobody
/// listening any more).
async fn forward<T>(items: &mpsc::Sender<Item<T>>, next: Result<Option<T>, OsError>) -> bool {
    match next {
        Ok(Some(item)) => items.send(Ok(item)).await.is_ok(),
        Ok(None) => false,
        Err(err) => {
            let _ = items.send(Err(err)).await;
            false
        }
    }
}
