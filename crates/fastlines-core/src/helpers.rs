//! Threads that readers and counts may start besides their own, process-wide: as many as the
//! machine runs at once, less one, so that counts and readers running together never keep more
//! threads busy than there are cores. One that finds none free does its work alone.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Helper threads taken from the process-wide allowance; given back when dropped.
#[derive(Debug)]
pub(crate) struct Helpers(usize);

/// Helpers free now; the machine's parallelism less one at first.
fn free_helpers() -> &'static AtomicUsize {
    static FREE: OnceLock<AtomicUsize> = OnceLock::new();
    FREE.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        AtomicUsize::new(cores - 1)
    })
}

impl Helpers {
    /// Up to `wanted` helpers, as many as are free.
    pub(crate) fn take(wanted: usize) -> Self {
        let free = free_helpers();
        let mut taken = 0;
        let _ = free.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            taken = now.min(wanted);
            Some(now - taken)
        });
        Helpers(taken)
    }

    /// How many were taken.
    pub(crate) fn count(&self) -> usize {
        self.0
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        free_helpers().fetch_add(self.0, Ordering::AcqRel);
    }
}
