//! The bounded channel a background reader fills and its consumer empties, and the consumer's
//! wake-up call.
//!
//! The channel is bounded in bytes, not only in items: each place stands for some bytes (see
//! [`crate::buffer::LONG_LINES_READ_AHEAD_BYTES`]), and an item of many places' bytes (a batch
//! of one long line: a batch holds whole lines) takes as many places, up to half of them (see
//! [`Weigh`]), so at most two such items wait. Counted in items, a reader of 8 MiB lines ran 21
//! lines, 185 MiB, ahead of a consumer that had taken one. An item holds its places as permits
//! of a semaphore, given back as the consumer takes it: a place costs nothing to take, so a
//! follower's channel can have places of a short line's bytes (see `follow.rs`).
//!
//! A consumer that finds the channel empty may leave a [`Wake`] instead of awaiting the
//! channel: the producer calls it on its own thread right after it sends the next item (or
//! goes away), and the consumer then takes the item itself. Awaiting the channel from a task
//! costs a runtime worker a wake-up per item on top of the consumer's own, which is most of
//! what a follower's line costs when lines come one write at a time.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc::{
    self,
    error::{TryRecvError, TrySendError},
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::error::ReadError;

pub(crate) type Item<T> = Result<T, ReadError>;

/// What an item weighs in the channel: about how many bytes of input it holds (see
/// [`crate::frame::Framer::weight`]).
pub(crate) type Weigh<T> = fn(&T) -> usize;

/// What goes through the channel: an item and the places it takes, freed as the consumer takes
/// it.
struct Message<T> {
    item: Item<T>,
    _places: OwnedSemaphorePermit,
}

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
    items: Option<mpsc::Sender<Message<T>>>,
    /// The places free: a permit each. The channel holds as many items as places, so an item
    /// given its places finds a slot.
    places: Arc<Semaphore>,
    /// How many places the channel has.
    capacity: usize,
    waiter: Arc<Waiter>,
    /// The bytes one place stands for: an item takes one place per this many bytes it weighs
    /// (see [`Self::places_for`]).
    place_bytes: usize,
    weigh: Weigh<T>,
}

impl<T> Clone for ItemSender<T> {
    fn clone(&self) -> Self {
        ItemSender {
            items: self.items.clone(),
            places: Arc::clone(&self.places),
            capacity: self.capacity,
            waiter: Arc::clone(&self.waiter),
            place_bytes: self.place_bytes,
            weigh: self.weigh,
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

/// A channel of `capacity` places of `place_bytes` each, its items weighed by `weigh`, and
/// where its consumer waits.
pub(crate) fn channel<T>(
    capacity: usize,
    place_bytes: usize,
    weigh: Weigh<T>,
) -> (ItemSender<T>, ItemReceiver<T>, Arc<Waiter>) {
    let capacity = capacity.max(1);
    let (items, receiver) = mpsc::channel(capacity);
    let places = Arc::new(Semaphore::new(capacity));
    let waiter = Arc::new(Waiter::default());
    let sender = ItemSender {
        items: Some(items),
        places: Arc::clone(&places),
        capacity,
        waiter: Arc::clone(&waiter),
        place_bytes: place_bytes.max(1),
        weigh,
    };
    let receiver = ItemReceiver {
        items: receiver,
        places,
    };
    (sender, receiver, waiter)
}

/// The consumer's end of the channel: the items in order, the places each took freed as it is
/// taken.
#[derive(Debug)]
pub(crate) struct ItemReceiver<T> {
    items: mpsc::Receiver<Message<T>>,
    /// The sender's places, closed with the channel: a sender waiting for places gives up.
    places: Arc<Semaphore>,
}

impl<T> ItemReceiver<T> {
    /// The next item, waiting for it; `None` once every sender is gone and nothing is left.
    pub(crate) async fn recv(&mut self) -> Option<Item<T>> {
        self.items.recv().await.map(|message| message.item)
    }

    /// The next item if one is there.
    pub(crate) fn try_recv(&mut self) -> Result<Item<T>, TryRecvError> {
        self.items.try_recv().map(|message| message.item)
    }

    /// Takes no more: senders find the channel closed; what is in it can still be taken.
    pub(crate) fn close(&mut self) {
        self.places.close();
        self.items.close();
    }

    /// Whether every sender is gone (or the channel was closed).
    pub(crate) fn is_closed(&self) -> bool {
        self.items.is_closed()
    }

    /// Whether nothing is in the channel.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T> Drop for ItemReceiver<T> {
    /// A sender waiting for places that the items left in the channel hold would wait for ever.
    fn drop(&mut self) {
        self.places.close();
    }
}

impl<T> std::fmt::Debug for Message<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Message")
    }
}

impl<T> ItemSender<T> {
    fn items(&self) -> &mpsc::Sender<Message<T>> {
        self.items
            .as_ref()
            .expect("a sender is used only until it is dropped")
    }

    /// How many places `item` takes: one per whole `place_bytes` it weighs, at least one and at
    /// most half of them, so that two items always fit in an empty channel (a fed stream's
    /// consumer sends two at once: see `fed_stream.rs`); a failure takes one. Items of less
    /// than two places' bytes take one: the channel holds at most twice its places' bytes.
    fn places_for(&self, item: &Item<T>) -> u32 {
        let weight = item.as_ref().map_or(0, self.weigh);
        let places = (weight / self.place_bytes).clamp(1, (self.capacity / 2).max(1));
        u32::try_from(places).unwrap_or(u32::MAX)
    }

    /// Sends `item` with the `places` it took.
    fn send_with(&self, item: Item<T>, places: OwnedSemaphorePermit) -> Result<(), Item<T>> {
        let message = Message {
            item,
            _places: places,
        };
        // Never full: every item in the channel holds a place, and there are as many slots.
        self.items()
            .try_send(message)
            .map_err(|err| err.into_inner().item)
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
        let places = match Arc::clone(&self.places).try_acquire_many_owned(self.places_for(&item)) {
            Ok(places) => places,
            Err(TryAcquireError::NoPermits) => return Err(TrySendError::Full(item)),
            Err(TryAcquireError::Closed) => return Err(TrySendError::Closed(item)),
        };
        if let Err(item) = self.send_with(item, places) {
            return Err(TrySendError::Closed(item));
        }
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

    /// How many places the channel has.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Puts `item` in, waiting for room; `false` if nobody listens.
    pub(crate) async fn send(&self, item: Item<T>) -> bool {
        let places = Arc::clone(&self.places).acquire_many_owned(self.places_for(&item));
        let sent = match places.await {
            Ok(places) => self.send_with(item, places).is_ok(),
            Err(_) => false,
        };
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
        let taken = self.places_for(&item);
        let half = u32::try_from(self.capacity / 2).unwrap_or(u32::MAX);
        let room = Arc::clone(&self.places).acquire_many_owned(half.max(taken));
        let Ok(mut room) = room.await else {
            return false;
        };
        // `room` >= `taken` places; the others go back to the channel as they drop.
        let places = room.split(taken as usize).expect("room for the item");
        drop(room);
        let sent = self.send_with(item, places).is_ok();
        self.waiter.wake();
        sent
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
        let (items, mut taken, waiter) = channel::<u32>(2, 1, |_| 0);
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
        let (items, mut taken, waiter) = channel::<u32>(16, 1, |_| 0);
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
        let (items, taken, waiter) = channel::<u32>(2, 1, |_| 0);
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
    fn an_item_takes_a_place_per_place_bytes_it_weighs_up_to_half_the_channel() {
        let (items, mut taken, _waiter) = channel::<u32>(8, 10, |&n| n as usize);
        items.try_send(Ok(35)).expect("3 places of 8");
        items
            .try_send(Ok(1000))
            .expect("4 places, half of them, at most");
        assert!(
            matches!(items.try_send(Ok(20)), Err(TrySendError::Full(Ok(20)))),
            "2 places, and 1 is left"
        );
        items
            .try_send(Ok(19))
            .expect("less than two places' bytes take one");
        assert!(matches!(items.try_send(Ok(0)), Err(TrySendError::Full(_))));
        assert!(
            matches!(taken.try_recv(), Ok(Ok(35))),
            "its places go with it"
        );
        items.try_send(Ok(20)).expect("room again");
        assert!(matches!(items.try_send(Err(ReadError::Panicked)), Ok(())));
        let rest: Vec<_> = std::iter::from_fn(|| taken.try_recv().ok()).collect();
        assert!(
            matches!(rest[..], [Ok(1000), Ok(19), Ok(20), Err(_)]),
            "in order: {rest:?}"
        );
        assert!(taken.is_empty());
    }

    #[test]
    fn a_heavy_item_waits_for_its_places_when_it_finds_the_channel_full() {
        let (items, mut taken, _waiter) = channel::<u32>(4, 10, |&n| n as usize);
        items.try_send(Ok(20)).expect("2 places of 4");
        items.try_send(Ok(20)).expect("2 more");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let sent = runtime.block_on(async {
            use std::future::Future;
            let mut send = std::pin::pin!(items.send_when_drained(Ok(30)));
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            assert!(send.as_mut().poll(&mut context).is_pending(), "no room");
            assert!(matches!(taken.try_recv(), Ok(Ok(20))));
            send.await
        });
        assert!(sent);
        let rest: Vec<_> = std::iter::from_fn(|| taken.try_recv().ok()).collect();
        assert!(matches!(rest[..], [Ok(20), Ok(30)]), "{rest:?}");
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
        let (items, mut taken, waiter) = channel::<u32>(2, 1, |_| 0);
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
