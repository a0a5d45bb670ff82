//! The read loop: fills one reusable [`ReadBuf`] from a [`Source`] (decompressed, if it says so)
//! and hands out what a [`Framer`] makes of it, blocking or async, counting the bytes read from
//! the source into a [`Progress`].

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::AsyncRead;

use crate::buffer::ReadBuf;
use crate::decompress::{Filled, Input};
use crate::error::ReadError;
use crate::frame::Framer;
use crate::source::Source;

/// Bytes read so far, shared: a reader adds to it while another thread (the JS thread asking
/// for `bytesRead`) watches, and it outlives the reader, so progress still reads right after
/// the file is closed.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<AtomicU64>);

impl Progress {
    pub fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self, n: usize) {
        self.0.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// Reads a source in chunks into one buffer and hands out what `framer` makes of it.
#[derive(Debug)]
pub struct Reader<F, I = File> {
    input: Input<I>,
    /// Bytes left before the end of the range; `None`: read to the end of the input.
    remaining: Option<u64>,
    /// What was read and not yet framed; its chunk size is the size of each read.
    buf: ReadBuf,
    framer: F,
    /// The input is exhausted (a read returned 0, or the range is read), or broke off: only
    /// what the buffer holds is left.
    eof: bool,
    /// Why the input broke off: reported once the complete items before it are handed out.
    failed: Option<ReadError>,
    /// In this pass over a growing file (see [`Reader::begin_pass`]), the last read
    /// ([`Reader::next_appended`]) returned less than it asked for, so the file held no more
    /// then: once its items are out, the reader has caught up without a read that returns 0.
    drained: bool,
    /// Where the input starts, when the byte before it was a `\r` (see
    /// [`Reader::after_carriage_return`]), until the first byte is read.
    lf_skipped_at: Option<u64>,
    progress: Progress,
}

impl<F: Framer, I> Reader<F, I> {
    /// A reader over an opened source, framing with `framer` (with offsets from the source's),
    /// counting the bytes it reads into `progress`.
    pub fn new(source: Source<I>, framer: F, progress: Progress) -> Self {
        let buf = ReadBuf::new(source.chunk_size);
        Self::with_buffer(source, framer, progress, buf)
    }

    /// [`Reader::new`], reading into `buf`, empty, whose pool another reader may share (see
    /// [`ReadBuf::sharing_pool`]).
    pub(crate) fn with_buffer(
        source: Source<I>,
        mut framer: F,
        progress: Progress,
        buf: ReadBuf,
    ) -> Self {
        debug_assert!(buf.is_empty());
        framer.start_at(source.offset);
        Reader {
            input: Input::new(source.input, source.decompress),
            remaining: source.remaining,
            buf,
            framer,
            eof: false,
            drained: false,
            lf_skipped_at: None,
            failed: None,
            progress,
        }
    }

    /// The byte before the input's start (`offset`) was a `\r`, which ended a line read
    /// before: a `\n` read first is the rest of that terminator (`\r\n`), not an empty line,
    /// and is skipped. For a follower that starts where a file ended in `\r` (its end then, or
    /// a position `readLastLines` gave), the `\n` of a `\r\n` written in two parts.
    pub(crate) fn after_carriage_return(&mut self, offset: u64) {
        self.lf_skipped_at = Some(offset);
    }

    /// The next item from what is buffered; at the end, the last one, and then why the input
    /// broke off, if it did.
    pub(crate) fn take_ready(&mut self) -> Result<Option<F::Item>, ReadError> {
        match self.framer.take(&mut self.buf)? {
            None if self.eof => match self.framer.finish(&mut self.buf)? {
                None => self.failed.take().map_or(Ok(None), Err),
                last => Ok(last),
            },
            taken => Ok(taken),
        }
    }

    /// The items of what is buffered that stands complete if the input breaks off here (see
    /// [`Framer::complete_at_break`]): a line whose lone `\r` came last, held only in case a
    /// `\n` followed, when the input is about to be read again from elsewhere.
    pub(crate) fn take_complete_at_break(&mut self) -> Result<Option<F::Item>, ReadError> {
        let complete = self.framer.complete_at_break(self.buf.data());
        if complete == 0 {
            return Ok(None);
        }
        self.buf.truncate(complete);
        self.framer.finish(&mut self.buf)
    }

    /// A read failed: the input ends here, after what the framer counts as complete in the
    /// buffer (a line whose lone `\r` arrived just before the damage included), and `err` comes
    /// after the items made of that.
    fn break_off(&mut self, err: ReadError) {
        let complete = self.framer.complete_at_break(self.buf.data());
        self.buf.truncate(complete);
        self.eof = true;
        self.failed = Some(err);
    }

    /// How much the next read may ask for: a chunk, or less when `end` is closer.
    fn next_read_len(&self) -> usize {
        let chunk_size = self.buf.chunk_size();
        match self.remaining {
            Some(remaining) => remaining.min(chunk_size as u64) as usize,
            None => chunk_size,
        }
    }

    /// Records one read: the source bytes it took (even if it failed), and what it gave;
    /// whether the input is at its end.
    fn record(&mut self, filled: Filled) -> Result<bool, ReadError> {
        let at_end = filled.at_end();
        self.progress.add(filled.consumed);
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.saturating_sub(filled.consumed as u64);
        }
        self.buf.commit(filled.produced?);
        if let Some(offset) = self.lf_skipped_at.filter(|_| !self.buf.is_empty()) {
            self.lf_skipped_at = None;
            if self.buf.data()[0] == b'\n' {
                self.buf.advance(1);
                self.framer.start_at(offset + 1);
            }
        }
        self.eof = at_end || self.remaining == Some(0);
        Ok(at_end)
    }

    /// Records one read; a failure breaks the input off (see [`Reader::break_off`]).
    fn record_or_break_off(&mut self, filled: Filled) {
        if let Err(err) = self.record(filled) {
            self.break_off(err);
        }
    }

    /// Takes `bytes` as the input's next bytes, without a read, and gives the next item: for
    /// the consumer of a fed source that holds the reader while nothing is queued (see
    /// `fed_stream.rs`), so that a small chunk is copied once, into the buffer, rather than
    /// into the queue and out of it again. `None`, taking nothing, when the input is not read
    /// as it is (decompressed bytes come out of the decompressor, which reads the queue) or
    /// has ended. `Ok(None)`: nothing complete yet.
    pub(crate) fn take_given(
        &mut self,
        bytes: &[u8],
    ) -> Option<Result<Option<F::Item>, ReadError>> {
        if !matches!(self.input, Input::Plain(_)) || self.eof {
            return None;
        }
        if !bytes.is_empty() {
            self.buf.spare(bytes.len()).copy_from_slice(bytes);
            self.record_or_break_off(Filled::plain(Ok(bytes.len())));
        }
        Some(self.take_ready())
    }
}

impl<F, I> Reader<F, I> {
    pub(crate) fn input(&self) -> &I {
        self.input.source()
    }

    /// Bytes read from the input so far (read-ahead included), counted in its [`Progress`].
    pub(crate) fn bytes_read(&self) -> u64 {
        self.progress.bytes()
    }

    pub(crate) fn framer_mut(&mut self) -> &mut F {
        &mut self.framer
    }

    /// Reads `input` from where it stands from now on, dropping what was read of the old one
    /// and not yet framed.
    pub(crate) fn replace_input(&mut self, input: I) {
        self.input = Input::Plain(input);
        self.drop_unframed();
    }

    /// Starts a pass over a growing file (a follower's wake-up): an earlier pass's short read
    /// says nothing about now. A pass that ended with a batch waiting for room left it set, and
    /// the write that woke this pass came after that read: taking it as caught up here lost the
    /// follower's last lines until the next write.
    pub(crate) fn begin_pass(&mut self) {
        self.drained = false;
    }

    /// Drops what was read and not yet framed: the input is read again from elsewhere.
    pub(crate) fn drop_unframed(&mut self) {
        self.drained = false;
        self.lf_skipped_at = None;
        let unframed = self.buf.len();
        self.buf.advance(unframed);
        self.eof = false;
    }
}

impl<F: Framer, I: std::io::Read> Reader<F, I> {
    /// The next item from what the input holds now; `None` when it is all read, leaving a
    /// partial last line buffered for the bytes still to come (a followed file), or once
    /// `stopped()` (as for [`Reader::next_unless`]). Unlike [`Reader::next_blocking`], the end
    /// of the input is not the end of the last line.
    pub(crate) fn next_appended(
        &mut self,
        stopped: &dyn Fn() -> bool,
    ) -> Result<Option<F::Item>, ReadError> {
        loop {
            if let Some(item) = self.framer.take(&mut self.buf)? {
                return Ok(Some(item));
            }
            if stopped() || std::mem::take(&mut self.drained) {
                // Caught up: a follower may now wait for hours for a line; the buffers kept
                // for the read-ahead of its catching up would wait with it.
                self.buf.free_spare_buffers();
                return Ok(None);
            }
            let len = self.next_read_len();
            let filled = self.input.read(self.buf.spare(len));
            // A regular file's read returns less than asked only at its end.
            self.drained = matches!(filled.produced, Ok(n) if n > 0 && n < len);
            if self.record(filled)? {
                self.eof = false;
                return Ok(None);
            }
        }
    }

    /// The next item, reading as much as it takes; `None` once the input is exhausted.
    pub fn next_blocking(&mut self) -> Result<Option<F::Item>, ReadError> {
        self.next_unless(&|| false)
    }

    /// [`Reader::next_blocking`], but `None` as soon as `stopped()` says so, asked before each
    /// read: a framer with a filter may pass over a whole file without an item, and a reader
    /// closed meanwhile must not read it all.
    pub(crate) fn next_unless(
        &mut self,
        stopped: &dyn Fn() -> bool,
    ) -> Result<Option<F::Item>, ReadError> {
        loop {
            if let Some(item) = self.take_ready()? {
                return Ok(Some(item));
            }
            if self.eof || stopped() {
                return Ok(None);
            }
            let len = self.next_read_len();
            let filled = self.input.read(self.buf.spare(len));
            self.record_or_break_off(filled);
        }
    }
}

impl<F: Framer, I: AsyncRead + Unpin> Reader<F, I> {
    /// Like [`Reader::next_blocking`], for inputs that signal readiness (pipes): waiting for
    /// data holds no thread, and dropping the future stops the read at once.
    pub async fn next_async(&mut self) -> Result<Option<F::Item>, ReadError> {
        loop {
            if let Some(item) = self.take_ready()? {
                return Ok(Some(item));
            }
            if self.eof {
                return Ok(None);
            }
            let spare = self.buf.spare(self.next_read_len());
            let filled = self.input.read_async(spare).await;
            self.record_or_break_off(filled);
        }
    }
}
