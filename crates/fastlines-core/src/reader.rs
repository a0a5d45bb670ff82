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
    /// How far the range's last line is read, for a source that reads it to its end (see
    /// [`Source::finishing_line`]); `None` otherwise, and once it is read.
    line_to_finish: Option<LineToFinish>,
    progress: Progress,
}

/// Where a reader that reads on to the end of its range's last line is with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineToFinish {
    /// The range is still being read.
    InRange,
    /// The range is read and ended inside a line: read on to its terminator.
    ToTerminator,
    /// The line ended in a `\r`: a `\n` right after it is the rest of its terminator.
    AfterCarriageReturn,
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
            line_to_finish: (source.finish_line && source.remaining.is_some())
                .then_some(LineToFinish::InRange),
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
        let produced = filled.produced?;
        self.buf.commit(produced);
        if let Some(offset) = self.lf_skipped_at.filter(|_| !self.buf.is_empty()) {
            self.lf_skipped_at = None;
            if self.buf.data()[0] == b'\n' {
                self.buf.advance(1);
                self.framer.start_at(offset + 1);
            }
        }
        self.eof = at_end || self.remaining == Some(0);
        if !at_end {
            self.finish_line(produced);
        }
        Ok(at_end)
    }

    /// For a reader that reads its range's last line to its end ([`LineToFinish`]): once the
    /// range is read, goes on reading if it ended inside a line, and drops what the read that
    /// finds the line's terminator brought after it. `new` bytes were just read.
    fn finish_line(&mut self, new: usize) {
        let Some(state) = self.line_to_finish else {
            return;
        };
        let data = self.buf.data();
        let new = new.min(data.len());
        let read = &data[data.len() - new..];
        let kept = match state {
            LineToFinish::InRange if self.remaining != Some(0) => return,
            LineToFinish::InRange => {
                self.remaining = None;
                let next = match data.last() {
                    Some(b'\r') => LineToFinish::AfterCarriageReturn,
                    Some(b'\n') | None => {
                        self.line_to_finish = None;
                        return;
                    }
                    Some(_) => LineToFinish::ToTerminator,
                };
                self.line_to_finish = Some(next);
                self.eof = false;
                return;
            }
            LineToFinish::ToTerminator => match memchr::memchr2(b'\n', b'\r', read) {
                None => return,
                Some(at) if read[at] == b'\n' => at + 1,
                Some(at) => match read.get(at + 1) {
                    Some(b'\n') => at + 2,
                    Some(_) => at + 1,
                    None => {
                        self.line_to_finish = Some(LineToFinish::AfterCarriageReturn);
                        return;
                    }
                },
            },
            LineToFinish::AfterCarriageReturn => usize::from(read.first() == Some(&b'\n')),
        };
        let len = data.len() - new + kept;
        self.buf.truncate(len);
        self.line_to_finish = None;
        self.eof = true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::ChunkFramer;

    /// Every byte a reader of `input` hands out, read `chunk_size` bytes at a time, its range the
    /// first `range` bytes, read on to the end of the line it ends in.
    fn read_finishing_line(input: &[u8], range: u64, chunk_size: usize) -> Vec<u8> {
        let source = Source::new(input, Some(range), chunk_size).finishing_line();
        let mut reader = Reader::new(source, ChunkFramer, Progress::default());
        let mut read = Vec::new();
        while let Some(bytes) = reader.next_blocking().expect("a slice reads") {
            read.extend_from_slice(&bytes);
        }
        read
    }

    /// The input past the range stands for what the file holds by the time the reader gets
    /// there: a line the range ends in is read to its terminator (a `\r\n` whole, whichever
    /// read its `\n` comes in), or to the end of the input, and nothing after it.
    #[test]
    fn a_range_read_to_the_end_of_its_last_line_stops_at_its_terminator() {
        let cases: [(&[u8], u64, &[u8]); 10] = [
            (b"a\nbbbb\ncc\n", 4, b"a\nbbbb\n"),
            (b"a\nbb\ncc\n", 5, b"a\nbb\n"),
            (b"a\nbb\ncc\n", 4, b"a\nbb\n"),
            (b"a\nbb\r\ncc\n", 4, b"a\nbb\r\n"),
            (b"a\nbb\r\ncc\n", 5, b"a\nbb\r\n"),
            (b"a\nbb\rcc\n", 5, b"a\nbb\r"),
            (b"a\nbb\r", 5, b"a\nbb\r"),
            (b"a\nbbbb", 3, b"a\nbbbb"),
            (b"abc\n", 0, b""),
            (b"", 0, b""),
        ];
        for (input, range, kept) in cases {
            for chunk_size in 1..=8 {
                assert_eq!(
                    read_finishing_line(input, range, chunk_size),
                    kept,
                    "{:?}, range {range}, reads of {chunk_size}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn a_range_not_asked_to_finish_its_line_stops_where_it_ends() {
        let source = Source::new(&b"a\nbbbb\n"[..], Some(4), 3);
        let mut reader = Reader::new(source, ChunkFramer, Progress::default());
        let mut read = Vec::new();
        while let Some(bytes) = reader.next_blocking().expect("a slice reads") {
            read.extend_from_slice(&bytes);
        }
        assert_eq!(read, b"a\nbb");
    }
}
