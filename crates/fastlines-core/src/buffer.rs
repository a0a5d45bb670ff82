//! A read buffer whose memory is zeroed once and then recycled: bytes handed out as [`Bytes`]
//! are views of the buffer itself (no copy), and the buffer returns to its reader's pool when
//! the last view is dropped, typically right after JS has copied it into a string. Without it,
//! every read would take fresh memory from the allocator and pay page faults and zeroing for it,
//! which profiling showed costing more than the reads themselves.

use std::sync::{Arc, Mutex};

use bytes::Bytes;

/// How far a stream reads ahead of its consumer: enough to keep the consumer fed while the next
/// reads happen, little enough to be irrelevant to memory.
pub const READ_AHEAD_BYTES: usize = 1024 * 1024;

/// How far a stream reads ahead of its consumer in lines longer than a read, which a batch holds
/// whole: items of up to this over the channel's places take one place each, heavier ones a
/// place per this over the places' bytes, up to half the places (see `channel.rs`). Bounded at
/// [`READ_AHEAD_BYTES`], a reader of `long-lines` (2.3 MB lines) kept two lines ahead and took
/// 1.3-2.2x as long on Bun and Deno (106-144 ms against 59-82 ms, bench, A/B): the reading
/// thread and JS went in lockstep, a line at a time.
pub const LONG_LINES_READ_AHEAD_BYTES: usize = 16 * 1024 * 1024;

/// How many reads of `chunk_size` a stream holds ahead of its consumer: [`READ_AHEAD_BYTES`]'
/// worth, at least 2 and at most 64.
pub fn read_ahead_chunks(chunk_size: usize) -> usize {
    (READ_AHEAD_BYTES / chunk_size.max(1)).clamp(2, 64)
}

/// Free buffers a reader keeps beyond its read-ahead: the one being filled and the one JS is
/// copying. With the read-ahead's, buffers JS gives back in a burst, after the reading thread
/// ran a full read-ahead ahead of it, are there when it runs ahead again. Kept to 6 buffers, a
/// reader of logs-1g in 48 KiB reads allocated one buffer in eight anew (2,600 of 21,000), each
/// faulting in and zeroing its pages. Node reading it six times took 70,000 to 100,000 page
/// faults; with this and [`CARRY_ROOM_DIVISOR`], 15,000, and its reading thread 13% less CPU
/// time. A reader that has caught up keeps only these.
const BUFFERS_IN_HAND: usize = 2;

/// Data handed out in pieces no larger than this is copied out of the buffer rather than lent
/// with it: a follower woken for each line would otherwise lend a whole chunk per line, and
/// take another (zeroed when the pool is empty, as it is while JS still holds the last ones).
const COPIED_OUT_BYTES: usize = 4 * 1024;

/// Data handed out in a piece smaller than this fraction of its buffer is copied out too: lent,
/// it would hold the whole buffer, while the channel weighs it by its own bytes. A follower
/// with a `highWaterMark` of 16 MiB, woken for each 5 KB line while its consumer was busy,
/// lent a 20 MiB buffer per line, about 210 of them in its read-ahead: 5.5 GB of address space
/// (70 GB at 256 MiB), which a process under `ulimit -v` died of. So a piece lent holds at most
/// this many times its bytes.
const LENT_FRACTION_DIVISOR: usize = 4;

/// Buffers grown far past the chunk size (by a very long line) are freed rather than kept.
const MAX_POOLED_CHUNKS: usize = 4;

/// A new buffer has room for a chunk and this fraction of one more, for the partial last line
/// carried over from the buffer before it (see [`ReadBuf::split_to`]). Allocated at exactly
/// the chunk and that line, a free buffer fitted the next carry only when that was no longer,
/// so about every other one was freed and a new one allocated.
const CARRY_ROOM_DIVISOR: usize = 4;

#[derive(Debug, Clone, Default)]
struct Pool {
    free: Arc<Mutex<Vec<Vec<u8>>>>,
    /// How many free buffers are kept (see [`BUFFERS_IN_HAND`]).
    capacity: usize,
    /// The size a new buffer has at least: a chunk and room for a carried line.
    new_len: usize,
    max_len: usize,
    /// How many buffers were allocated rather than reused.
    #[cfg(test)]
    allocated: Arc<std::sync::atomic::AtomicUsize>,
}

impl Pool {
    /// A buffer of at least `len` initialized bytes, reused when one is free. A new one is
    /// allocated zeroed (`calloc`), not zeroed by writing: a large buffer then takes pages from
    /// the OS only as reads fill them, so a `highWaterMark` of 1 GiB over a small file costs
    /// what the file holds, not a gigabyte of zeroes.
    fn take(&self, len: usize) -> Vec<u8> {
        let reused = self.free.lock().ok().and_then(|mut free| free.pop());
        match reused {
            Some(buffer) if buffer.len() >= len => buffer,
            _ => {
                #[cfg(test)]
                self.allocated
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                vec![0; len.max(self.new_len)]
            }
        }
    }

    /// Frees the free buffers but the fewest kept.
    fn shrink(&self) {
        if let Ok(mut free) = self.free.lock() {
            free.truncate(BUFFERS_IN_HAND);
        }
    }

    fn give_back(&self, buffer: Vec<u8>) {
        if buffer.len() > self.max_len {
            return;
        }
        if let Ok(mut free) = self.free.lock() {
            if free.len() < self.capacity {
                free.push(buffer);
            }
        }
    }
}

/// Owns a pooled buffer while [`Bytes`] views of it live, and gives it back afterwards.
struct Lent {
    buffer: Vec<u8>,
    pool: Pool,
}

impl AsRef<[u8]> for Lent {
    fn as_ref(&self) -> &[u8] {
        &self.buffer
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.buffer));
    }
}

/// Bytes read but not yet handed out: `buffer[start..filled]`.
#[derive(Debug)]
pub struct ReadBuf {
    buffer: Vec<u8>,
    start: usize,
    filled: usize,
    chunk_size: usize,
    pool: Pool,
}

impl ReadBuf {
    pub fn new(chunk_size: usize) -> Self {
        ReadBuf {
            buffer: Vec::new(),
            start: 0,
            filled: 0,
            chunk_size,
            pool: Pool {
                free: Arc::default(),
                capacity: read_ahead_chunks(chunk_size) + BUFFERS_IN_HAND,
                new_len: chunk_size.saturating_add(chunk_size / CARRY_ROOM_DIVISOR),
                max_len: chunk_size.saturating_mul(MAX_POOLED_CHUNKS),
                #[cfg(test)]
                allocated: Arc::default(),
            },
        }
    }

    /// An empty buffer that takes its memory from, and gives it back to, the pool of `self`:
    /// the readers of a file's parts, one after another and on two threads, reuse the same
    /// buffers where each would allocate (and fault in) its own.
    pub(crate) fn sharing_pool(&self) -> ReadBuf {
        ReadBuf {
            buffer: Vec::new(),
            start: 0,
            filled: 0,
            chunk_size: self.chunk_size,
            pool: self.pool.clone(),
        }
    }

    /// How many buffers its pool allocated rather than reused.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.pool
            .allocated
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The size of a normal read into this buffer.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    pub fn data(&self) -> &[u8] {
        &self.buffer[self.start..self.filled]
    }

    /// The data, to rewrite in place before it is handed out.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[self.start..self.filled]
    }

    pub fn len(&self) -> usize {
        self.filled - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frees the buffers kept for a read-ahead, for a reader that has caught up with its input
    /// and may wait long for more; those still lent return to the pool as before.
    pub fn free_spare_buffers(&mut self) {
        self.pool.shrink();
    }

    /// Drops the first `n` bytes of data.
    pub fn advance(&mut self, n: usize) {
        assert!(n <= self.len(), "advance past the data");
        self.start += n;
    }

    /// Drops the data after its first `n` bytes.
    pub fn truncate(&mut self, n: usize) {
        assert!(n <= self.len(), "truncate past the data");
        self.filled = self.start + n;
    }

    /// Room for `len` more bytes after the data, to read into; [`Self::commit`] what was read.
    pub fn spare(&mut self, len: usize) -> &mut [u8] {
        if self.filled + len > self.buffer.len() {
            self.move_data_to_front();
            if self.buffer.is_empty() {
                self.buffer = self.pool.take(len.max(self.chunk_size));
            } else if self.filled + len > self.buffer.len() {
                // A line longer than the buffer, or a read larger than the room after it:
                // grow (amortized, like Vec) into fresh zeroed memory, whose pages only the
                // reads touch (see Pool::take), rather than zeroing the new part by writing.
                let grown = (self.filled + len).max(self.buffer.len() * 2);
                let mut bigger = vec![0; grown];
                bigger[..self.filled].copy_from_slice(&self.buffer[..self.filled]);
                self.buffer = bigger;
            }
        }
        &mut self.buffer[self.filled..self.filled + len]
    }

    pub fn commit(&mut self, n: usize) {
        self.filled += n;
        debug_assert!(self.filled <= self.buffer.len());
    }

    /// Hands out the first `n` bytes without copying them; the data after them (the partial
    /// last line, usually short) moves to a buffer from the pool. Up to [`COPIED_OUT_BYTES`],
    /// or less than a [`LENT_FRACTION_DIVISOR`]th of the buffer, are copied out instead, and
    /// the buffer is kept.
    pub fn split_to(&mut self, n: usize) -> Bytes {
        assert!(n <= self.len(), "split past the data");
        if n <= COPIED_OUT_BYTES || n < self.buffer.len() / LENT_FRACTION_DIVISOR {
            let handed_out = Bytes::copy_from_slice(&self.buffer[self.start..self.start + n]);
            self.start += n;
            return handed_out;
        }
        let rest = self.start + n..self.filled;
        let mut next = self.pool.take(rest.len() + self.chunk_size);
        next[..rest.len()].copy_from_slice(&self.buffer[rest.clone()]);
        let handed_out = self.start..self.start + n;
        let lent = Lent {
            buffer: std::mem::replace(&mut self.buffer, next),
            pool: self.pool.clone(),
        };
        self.start = 0;
        self.filled = rest.len();
        Bytes::from_owner(lent).slice(handed_out)
    }

    fn move_data_to_front(&mut self) {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
    }
}

impl Drop for ReadBuf {
    /// Its buffer goes back to the pool, where a reader sharing it finds it (see
    /// [`ReadBuf::sharing_pool`]).
    fn drop(&mut self) {
        if !self.buffer.is_empty() {
            self.pool.give_back(std::mem::take(&mut self.buffer));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(buf: &mut ReadBuf, data: &[u8]) {
        buf.spare(data.len()).copy_from_slice(data);
        buf.commit(data.len());
    }

    #[test]
    fn handed_out_bytes_stay_intact_while_the_buffer_is_reused() {
        let mut buf = ReadBuf::new(8);
        push(&mut buf, b"one\ntw");
        let first = buf.split_to(4);
        push(&mut buf, b"o\n");
        let second = buf.split_to(4);
        push(&mut buf, b"three\n");
        drop(first); // its buffer goes back to the pool and is reused below
        let third = buf.split_to(6);
        push(&mut buf, b"four");
        assert_eq!(
            (&second[..], &third[..], buf.data()),
            (&b"two\n"[..], &b"three\n"[..], &b"four"[..])
        );
    }

    const CHUNK: usize = 48 * 1024;

    /// Reads a chunk that ends `carry` bytes into a line, and hands out its complete lines.
    fn read_chunk_and_split(buf: &mut ReadBuf, carry: usize) -> Bytes {
        let mut chunk = vec![b'x'; CHUNK];
        chunk[CHUNK - carry - 1] = b'\n';
        push(buf, &chunk);
        buf.split_to(buf.len() - carry)
    }

    /// Reads a stream's full read-ahead of chunks, as the reading thread does while JS holds them.
    fn read_a_read_ahead(buf: &mut ReadBuf) -> Vec<Bytes> {
        (0..read_ahead_chunks(CHUNK))
            .map(|_| read_chunk_and_split(buf, 10))
            .collect()
    }

    fn allocated(buf: &ReadBuf) -> usize {
        buf.allocated()
    }

    #[test]
    fn a_longer_carried_line_than_the_last_reuses_the_free_buffer() {
        let mut buf = ReadBuf::new(CHUNK);
        for carry in 1..=CHUNK / CARRY_ROOM_DIVISOR {
            drop(read_chunk_and_split(&mut buf, carry));
        }
        // The one filling and the one handed out, then only those two, taken in turn.
        assert_eq!(allocated(&buf), 2);
    }

    #[test]
    fn buffers_given_back_after_a_full_read_ahead_are_all_reused() {
        let read_ahead = read_ahead_chunks(CHUNK);
        let mut buf = ReadBuf::new(CHUNK);
        drop(read_a_read_ahead(&mut buf));
        let first_round = allocated(&buf);
        let held = read_a_read_ahead(&mut buf);
        assert_eq!(
            (first_round, allocated(&buf)),
            (read_ahead + 1, read_ahead + 1)
        );
        drop(held);
    }

    #[test]
    fn a_reader_caught_up_keeps_only_the_fewest_free_buffers() {
        let mut buf = ReadBuf::new(CHUNK);
        drop(read_a_read_ahead(&mut buf));
        buf.free_spare_buffers();
        let kept = buf.pool.free.lock().unwrap().len();
        assert_eq!(kept, BUFFERS_IN_HAND);
    }

    #[test]
    fn small_pieces_of_a_large_buffer_are_copied_out_not_lent_with_it() {
        let chunk = 16 * 1024 * 1024;
        let mut buf = ReadBuf::new(chunk);
        let line = [b'x'; 5000];
        let held: Vec<Bytes> = (0..20)
            .map(|_| {
                // A read as a follower makes it: room for a chunk, filled with one line.
                buf.spare(chunk)[..line.len()].copy_from_slice(&line);
                buf.commit(line.len());
                buf.split_to(line.len())
            })
            .collect();
        assert!(held.iter().all(|piece| piece[..] == line[..]));
        // One buffer, kept: the pieces hold none of it.
        assert_eq!(allocated(&buf), 1);
    }

    #[test]
    fn a_line_longer_than_the_buffer_grows_it() {
        let mut buf = ReadBuf::new(4);
        for _ in 0..100 {
            push(&mut buf, b"abcd");
        }
        buf.advance(2);
        assert_eq!(buf.len(), 398);
        assert_eq!(buf.split_to(398).len(), 398);
        assert!(buf.is_empty());
    }
}
