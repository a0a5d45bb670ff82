//! The bounded channel a background reader fills and its consumer empties, and the consumer's
//! wake-up call.
//!
//! A consumer that finds the channel empty may leave a [`Wake`] instead of awaiting the
//! channel: the producer calls it on its own thread right after it sends the next item (or
//! goes away), and the consumer then takes the item itself. Awaiting the channel from a task
//! costs a runtime worker a wake-up per item on top of the consumer's own, which is most of
//! what a follower's line costs when lines come one write at a time.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc::{self, error::TrySendError};

use crate::error::ReadError;

pub(crate) type Item<T> = Result<T, ReadError>;

/// A waiting consumer's wake-up call: called once, on whichever thread has news, after which
/// the consumer looks for itself.
pub type Wake = Box<dyn FnOnce() + Send>;

/// Where a waiting consumer leaves its [`Wake`]. Every wake left here is called exactly once:
/// by the next send, the end of the producer, a cancel, or, at the latest, when this is
/// dropped.
#[derive(Default)]
pub(crate) struct Waiter {
    wake: Mutex<Option<Wake>>,
}

impl Waiter {
    fn slot(&self) -> MutexGuard<'_, Option<Wake>> {
        self.wake.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Leaves `wake` to be called at the next news. A wake left before and not yet called is
    /// called now: its consumer looks again and finds nothing new, which is harmless, where
    /// dropping it would leave that consumer waiting forever.
    pub(crate) fn set(&self, wake: Wake) {
        let earlier = self.slot().replace(wake);
        if let Some(earlier) = earlier {
            earlier();
        }
    }

    /// Calls the wake left here, if any, outside the lock.
    pub(crate) fn wake(&self) {
        let wake = self.slot().take();
        if let Some(wake) = wake {
            wake();
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.wake();
    }
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiter").finish_non_exhaustive()
    }
}

/// The producer's end of the channel: every item that goes in, and the end of this sender,
/// wakes a waiting consumer.
pub(crate) struct ItemSender<T> {
    /// `Some` until dropped: the channel's own sender goes first, so that a consumer woken by
    /// the last one finds the channel ended.
    items: Option<mpsc::Sender<Item<T>>>,
    waiter: Arc<Waiter>,
}

impl<T> Clone for ItemSender<T> {
    fn clone(&self) -> Self {
        ItemSender {
            items: self.items.clone(),
            waiter: Arc::clone(&self.waiter),
        }
    }
}

impl<T> Drop for ItemSender<T> {
    /// The last sender gone ends the channel, which the consumer must hear of; an earlier one
    /// only costs it a look.
    fn drop(&mut self) {
        drop(self.items.take());
        self.waiter.wake();
    }
}

/// A channel holding up to `capacity` items, and where its consumer waits.
pub(crate) fn channel<T>(capacity: usize) -> (ItemSender<T>, mpsc::Receiver<Item<T>>, Arc<Waiter>) {
    let (items, receiver) = mpsc::channel(capacity);
    let waiter = Arc::new(Waiter::default());
    let sender = ItemSender {
        items: Some(items),
        waiter: Arc::clone(&waiter),
    };
    (sender, receiver, waiter)
}

impl<T> ItemSender<T> {
    fn items(&self) -> &mpsc::Sender<Item<T>> {
        self.items
            .as_ref()
            .expect("a sender is used only until it is dropped")
    }

    /// Puts `item` in if there is room, without waiting.
    pub(crate) fn try_send(&self, item: Item<T>) -> Result<(), TrySendError<Item<T>>> {
        self.try_send_paced(item, &mut WakePace::new(1))
    }

    /// Puts `item` in if there is room, without waiting, waking a waiting consumer only when
    /// `pace` says so (see [`WakePace`]).
    pub(crate) fn try_send_paced(
        &self,
        item: Item<T>,
        pace: &mut WakePace,
    ) -> Result<(), TrySendError<Item<T>>> {
        self.items().try_send(item)?;
        if pace.sent() {
            self.waiter.wake();
        }
        Ok(())
    }

    /// Wakes a waiting consumer for the items `pace` held back, if any.
    pub(crate) fn wake_for(&self, pace: WakePace) {
        if pace.unwoken > 0 {
            self.waiter.wake();
        }
    }

    /// How many items the channel holds.
    pub(crate) fn capacity(&self) -> usize {
        self.items().max_capacity()
    }

    /// Puts `item` in, waiting for room; `false` if nobody listens.
    pub(crate) async fn send(&self, item: Item<T>) -> bool {
        let sent = self.items().send(item).await.is_ok();
        self.waiter.wake();
        sent
    }

    /// Sends `item` once the consumer has taken half of what the channel holds (at least one
    /// item); `false` if nobody listens. The producer then goes on to fill several places at
    /// once: refilling each place as soon as it was taken cost two wake-ups between threads
    /// per item, and a reader whose consumer was the slower side made 100,000 context switches
    /// per GB and kept 1.5 cores busy for the work of one, which left a second reader little of
    /// a second core.
    pub(crate) async fn send_when_drained(&self, item: Item<T>) -> bool {
        let room = (self.items().max_capacity() / 2).max(1);
        match self.items().reserve_many(room).await {
            Ok(mut places) => {
                // Exactly `room` >= 1 places; the others go back to the channel as they drop.
                if let Some(place) = places.next() {
                    place.send(item);
                }
                self.waiter.wake();
                true
            }
            Err(_) => false,
        }
    }
}

/// How often a producer whose next item comes promptly wakes a waiting consumer: for the first
/// item, then once per `every` items, and once more for those held back when its run of sends
/// ends ([`ItemSender::wake_for`]). A consumer that is the faster side waits for every item,
/// and is woken from sleep for each: 3,843 times for the batches of `ERROR` on logs-1g. Woken
/// for two at a time, its JS thread took 138 ms of CPU instead of 154 (medians of 8 runs,
/// alternating with the code before; the wall time, bound by the reading thread, did not
/// move). Only for a producer whose reads never wait for a writer (a regular file's): an item
/// held back there waits one more read at most, where behind a pipe or a terminal it could wait
/// for ever.
#[derive(Debug)]
pub(crate) struct WakePace {
    every: usize,
    /// Items sent since the last wake.
    unwoken: usize,
}

impl WakePace {
    /// Wakes for the first item, then for every `every`th (at least 1).
    pub(crate) fn new(every: usize) -> Self {
        let every = every.max(1);
        WakePace {
            every,
            unwoken: every - 1,
        }
    }

    /// An item went in: whether to wake the consumer now.
    fn sent(&mut self) -> bool {
        self.unwoken += 1;
        if self.unwoken < self.every {
            return false;
        }
        self.unwoken = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A wake that counts its calls, and the count.
    fn counted() -> (Wake, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let wake: Wake = Box::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        (wake, calls)
    }

    #[test]
    fn a_waiting_consumer_is_woken_once_by_the_next_item_in() {
        let (items, mut taken, waiter) = channel::<u32>(2);
        let (wake, calls) = counted();
        waiter.set(wake);
        items.try_send(Ok(1)).expect("room");
        items.try_send(Ok(2)).expect("room");
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "woken by the first item only"
        );
        assert!(matches!(taken.try_recv(), Ok(Ok(1))));
    }

    #[test]
    fn paced_sends_wake_for_the_first_item_then_every_nth_and_for_what_is_held_back() {
        let (items, mut taken, waiter) = channel::<u32>(16);
        let mut pace = WakePace::new(3);
        let mut wakes_after = Vec::new();
        for n in 1..=8 {
            let (wake, calls) = counted();
            waiter.set(wake);
            items.try_send_paced(Ok(n), &mut pace).expect("room");
            if calls.load(Ordering::SeqCst) == 1 {
                wakes_after.push(n);
            }
            waiter.wake(); // not woken by the send: woken here, so as to leave the next one
        }
        assert_eq!(wakes_after, [1, 4, 7]);
        let (wake, calls) = counted();
        waiter.set(wake);
        items.wake_for(pace);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "item 8 was held back");
        let (wake, calls) = counted();
        waiter.set(wake);
        let mut pace = WakePace::new(3);
        items.try_send_paced(Ok(9), &mut pace).expect("room");
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "the first item of a run wakes"
        );
        let (wake, calls) = counted();
        waiter.set(wake);
        items.wake_for(pace);
        assert_eq!(
            calls.load(Ordering::SeqCst),
            0,
            "nothing held back: no wake"
        );
        let all: Vec<u32> =
            std::iter::from_fn(|| taken.try_recv().ok().map(Result::unwrap)).collect();
        assert_eq!(
            all,
            (1..=9).collect::<Vec<_>>(),
            "every item went in, in order"
        );
    }

    #[test]
    fn the_last_sender_gone_wakes_a_consumer_that_then_finds_the_channel_ended() {
        let (items, taken, waiter) = channel::<u32>(2);
        let closed_when_woken = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&closed_when_woken);
        let taken = Arc::new(Mutex::new(taken));
        let receiver = Arc::clone(&taken);
        waiter.set(Box::new(move || {
            *seen.lock().unwrap() = Some(receiver.lock().unwrap().is_closed());
        }));
        let other = items.clone();
        drop(items);
        assert_eq!(
            *closed_when_woken.lock().unwrap(),
            Some(false),
            "a sender remains: woken, the consumer finds the channel open and waits again"
        );
        let seen = Arc::clone(&closed_when_woken);
        let receiver = Arc::clone(&taken);
        waiter.set(Box::new(move || {
            *seen.lock().unwrap() = Some(receiver.lock().unwrap().is_closed());
        }));
        drop(other);
        assert_eq!(*closed_when_woken.lock().unwrap(), Some(true));
    }

    #[test]
    fn every_wake_left_is_called_even_when_replaced_or_never_needed() {
        let waiter = Waiter::default();
        let (first, first_calls) = counted();
        let (second, second_calls) = counted();
        waiter.set(first);
        waiter.set(second);
        assert_eq!(first_calls.load(Ordering::SeqCst), 1, "replaced: called");
        assert_eq!(second_calls.load(Ordering::SeqCst), 0);
        drop(waiter);
        assert_eq!(second_calls.load(Ordering::SeqCst), 1, "dropped: called");
    }

    #[test]
    fn an_item_sent_once_half_the_channel_is_taken_wakes_the_consumer() {
        let (items, mut taken, waiter) = channel::<u32>(2);
        items.try_send(Ok(0)).expect("room");
        items.try_send(Ok(1)).expect("room");
        let (wake, calls) = counted();
        waiter.set(wake);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        assert!(matches!(taken.try_recv(), Ok(Ok(0))));
        assert!(runtime.block_on(items.send_when_drained(Ok(2))));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
