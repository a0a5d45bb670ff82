//! Stopping every reader an env leaves open when that env is torn down (a worker that ends).
//!
//! Node and Bun finalize a worker's objects as it ends, and each reader stops in its `Drop`. Deno
//! 2.9 runs no finalizer then, only the env's cleanup hooks, so a reader left open in a worker
//! would keep its file and its watch, and a count of an endless device its thread, until the
//! process exits. So each env keeps the set of its open readers ([`OpenReaders`], its instance
//! data), and one cleanup hook per env stops them all. A reader leaves the set when it is
//! dropped, so one already finalized is not stopped twice.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use fastlines_core::ReadStream;
use napi::{Env, Result};
use tokio::sync::Notify;

/// What the hook does to a reader: stop reading and close its file now, without waiting.
pub trait Stop: Send + Sync {
    fn stop(&self);
}

impl<T: Send> Stop for ReadStream<T> {
    fn stop(&self) {
        self.cancel();
    }
}

/// A one-shot task's cancel (a count, the last lines): a flag for work on the blocking pool to
/// check between reads, and a notification for work awaited on the runtime's workers (a fed
/// source, a FIFO).
#[derive(Default)]
pub struct Cancel {
    pub flag: AtomicBool,
    notify: Notify,
}

impl Cancel {
    /// What `work` gives, or `None` once the task is cancelled first: `work` is dropped then,
    /// which closes what it reads at once.
    pub async fn unless_cancelled<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        tokio::select! {
            done = work => Some(done),
            () = self.cancelled() => None,
        }
    }

    /// Resolves once the task is cancelled.
    async fn cancelled(&self) {
        let notified = self.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if !self.flag.load(Ordering::SeqCst) {
            notified.await;
        }
    }
}

impl Stop for Cancel {
    fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }
}

/// The readers one env has open, by the number each was registered with.
#[derive(Default)]
struct OpenReaders {
    readers: Mutex<Readers>,
}

#[derive(Default)]
struct Readers {
    next_id: u64,
    /// Weak: the set keeps no reader alive; the reader's [`Registration`] removes it.
    open: HashMap<u64, Weak<dyn Stop>>,
}

impl OpenReaders {
    fn lock(&self) -> std::sync::MutexGuard<'_, Readers> {
        self.readers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops every reader still open. Taken out of the set first: stopping one may drop it,
    /// and its registration then locks the set.
    fn stop_all(&self) {
        let open = std::mem::take(&mut self.lock().open);
        for reader in open.into_values().filter_map(|reader| reader.upgrade()) {
            reader.stop();
        }
    }
}

/// A reader's place in its env's set; dropping it (with the reader) takes it out.
pub struct Registration {
    readers: Arc<OpenReaders>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.readers.lock().open.remove(&self.id);
    }
}

/// Puts `reader` in the set of `env`'s open readers (without keeping it alive), stopped when
/// `env` is torn down unless the returned registration is dropped first.
pub fn register<S: Stop + 'static>(env: &Env, reader: &Arc<S>) -> Result<Registration> {
    let reader: Weak<dyn Stop> = Arc::downgrade(reader) as Weak<dyn Stop>;
    let readers = open_readers(env)?;
    let id = {
        let mut set = readers.lock();
        let id = set.next_id;
        set.next_id += 1;
        set.open.insert(id, reader);
        id
    };
    Ok(Registration { readers, id })
}

/// The set of `env`'s open readers, made with its cleanup hook the first time it is asked for.
fn open_readers(env: &Env) -> Result<Arc<OpenReaders>> {
    if let Some(readers) = env.get_instance_data::<Arc<OpenReaders>>()? {
        return Ok(Arc::clone(readers));
    }
    let readers = Arc::new(OpenReaders::default());
    env.set_instance_data(Arc::clone(&readers), (), |_| {})?;
    env.add_env_cleanup_hook(Arc::clone(&readers), |readers| readers.stop_all())?;
    Ok(readers)
}
