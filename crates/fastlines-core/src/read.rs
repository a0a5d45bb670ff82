//! Opening a file and filling a reusable buffer from it, blocking or async, and framing what was
//! read into items (batches of lines, or raw chunks).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::buffer::ReadBuf;
use crate::decode::{decode, Encoding, Text};
use crate::error::{OsError, ReadError};
use crate::split::{first_line_longer_than, join_lines, LineCounter, LineSplitter};

/// Which bytes to read and how many at a time, with `fs.createReadStream`'s meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Byte offset of the first byte to read.
    pub start: u64,
    /// Byte offset of the last byte to read (inclusive), or `None` for the end of the file.
    pub end: Option<u64>,
    /// Bytes asked of the OS per read.
    pub chunk_size: usize,
}

/// A file opened and positioned at `start`.
#[derive(Debug)]
pub struct Opened {
    pub file: File,
    /// Bytes left before `end`, if there is an `end`.
    pub remaining: Option<u64>,
    /// A FIFO: its reads wait for a writer, so async readers should wait on readiness instead
    /// of holding a thread.
    pub is_pipe: bool,
}

/// Opens `path` for reading at `options.start`. Errors name the syscall Node would name: `open`
/// for the open, and `read` for positioning, since Node positions with `pread`.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Opened, OsError> {
    let mut file = File::open(path).map_err(|err| OsError::new(&err, "open"))?;
    let is_pipe = is_fifo(&file);
    if options.start > 0 {
        file.seek(SeekFrom::Start(options.start))
            .map_err(|err| OsError::new(&err, "read"))?;
    }
    let remaining = options
        .end
        .map(|end| (end + 1).saturating_sub(options.start));
    Ok(Opened {
        file,
        remaining,
        is_pipe,
    })
}

#[cfg(unix)]
fn is_fifo(file: &File) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file.metadata().is_ok_and(|meta| meta.file_type().is_fifo())
}

#[cfg(not(unix))]
fn is_fifo(_: &File) -> bool {
    false
}

/// Turns what has been read so far into items, leaving incomplete data in the buffer.
pub trait Framer {
    type Item;
    /// Removes the next complete item from the front of `buf`, if there is one.
    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Self::Item>, ReadError>;
    /// At end of input: removes the last item from what is left in `buf`.
    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Self::Item>, ReadError>;
}

/// Frames batches of complete lines, decoded and joined by `\n` (see [`join_lines`]).
#[derive(Debug)]
pub struct LineFramer {
    splitter: LineSplitter,
    encoding: Encoding,
    max_line_length: Option<usize>,
    /// A line over the limit was found; only the lines before it may still go out.
    too_long: bool,
}

impl LineFramer {
    pub fn new(encoding: Encoding) -> Self {
        LineFramer {
            splitter: LineSplitter::default(),
            encoding,
            max_line_length: None,
            too_long: false,
        }
    }

    /// Fails with [`ReadError::LineTooLong`] at the first line longer than `max` bytes (without
    /// its terminator), after the lines before it; so at most `max` plus one read of a line is
    /// ever held in memory.
    pub fn with_max_line_length(mut self, max: Option<usize>) -> Self {
        self.max_line_length = max;
        self
    }

    /// The lines up to the first one over the limit, if any come before it.
    fn within_limit(&mut self, mut lines: Bytes, max: usize) -> Option<Bytes> {
        if let Some(start) = first_line_longer_than(&lines, max) {
            lines.truncate(start);
            self.too_long = true;
        }
        (!lines.is_empty()).then_some(lines)
    }
}

impl Framer for LineFramer {
    type Item = Text;

    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Text>, ReadError> {
        let Some(max) = self.max_line_length else {
            let lines = self.splitter.take_complete(buf);
            return Ok(lines.map(|lines| decode(join_lines(lines), self.encoding)));
        };
        let too_long = ReadError::LineTooLong {
            max_line_length: max,
        };
        if self.too_long {
            return Err(too_long);
        }
        let lines = match self.splitter.take_complete(buf) {
            Some(lines) => self.within_limit(lines, max),
            // No terminator yet: the line being collected may already be over the limit.
            None if buf.len() > max => return Err(too_long),
            None => None,
        };
        match lines {
            Some(lines) => Ok(Some(decode(join_lines(lines), self.encoding))),
            None if self.too_long => Err(too_long),
            None => Ok(None),
        }
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Text>, ReadError> {
        let last_line = self.splitter.take_rest(buf);
        match (last_line, self.max_line_length) {
            (Some(line), Some(max)) if line.len() > max => Err(ReadError::LineTooLong {
                max_line_length: max,
            }),
            (last_line, _) => Ok(last_line.map(|line| decode(line, self.encoding))),
        }
    }
}

/// Frames each read as it came: raw bytes, nothing split. The bytes are a view of a pooled
/// buffer, to be copied into a JS Buffer: JS-owned memory that the engine accounts for, where
/// adopting native buffers left up to 119 MB waiting for finalizers on Node.
#[derive(Debug, Default)]
pub struct ChunkFramer;

impl Framer for ChunkFramer {
    type Item = Bytes;

    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Bytes>, ReadError> {
        Ok((!buf.is_empty()).then(|| buf.split_to(buf.len())))
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Bytes>, ReadError> {
        self.take(buf)
    }
}

/// Reads `input` in chunks into one buffer and hands out what `framer` makes of it.
#[derive(Debug)]
pub struct Reader<F, I = File> {
    input: I,
    remaining: Option<u64>,
    buf: ReadBuf,
    framer: F,
    eof: bool,
    bytes_read: Arc<AtomicU64>,
}

impl<F: Framer, I> Reader<F, I> {
    pub fn new(input: I, remaining: Option<u64>, chunk_size: usize, framer: F) -> Self {
        Reader {
            input,
            remaining,
            buf: ReadBuf::new(chunk_size),
            framer,
            eof: false,
            bytes_read: Arc::default(),
        }
    }

    /// Counts bytes read into `counter`, which another thread can then watch while this reader
    /// is busy.
    pub fn with_progress(mut self, counter: Arc<AtomicU64>) -> Self {
        self.bytes_read = counter;
        self
    }

    fn take_ready(&mut self) -> Result<Option<F::Item>, ReadError> {
        match self.framer.take(&mut self.buf)? {
            None if self.eof => self.framer.finish(&mut self.buf),
            taken => Ok(taken),
        }
    }

    /// How much the next read may ask for: a chunk, or less when `end` is closer.
    fn next_read_len(&self) -> usize {
        let chunk_size = self.buf.chunk_size();
        match self.remaining {
            Some(remaining) => remaining.min(chunk_size as u64) as usize,
            None => chunk_size,
        }
    }

    fn record_read(&mut self, n: usize) {
        self.eof = n == 0;
        if let Some(remaining) = &mut self.remaining {
            *remaining -= n as u64;
            self.eof |= *remaining == 0;
        }
        self.bytes_read.fetch_add(n as u64, Ordering::Relaxed);
    }
}

impl<F: Framer, I: Read> Reader<F, I> {
    /// The next item, reading as much as it takes; `None` once the input is exhausted.
    pub fn next_blocking(&mut self) -> Result<Option<F::Item>, ReadError> {
        loop {
            if let Some(item) = self.take_ready()? {
                return Ok(Some(item));
            }
            if self.eof {
                return Ok(None);
            }
            let n = self.read_blocking(self.next_read_len())?;
            self.record_read(n);
        }
    }

    fn read_blocking(&mut self, len: usize) -> Result<usize, OsError> {
        let n = read_retrying(&mut self.input, self.buf.spare(len))?;
        self.buf.commit(n);
        Ok(n)
    }
}

/// One `read`, retried when a signal interrupts it (std leaves that to the caller).
fn read_retrying(input: &mut impl Read, into: &mut [u8]) -> Result<usize, OsError> {
    loop {
        match input.read(into) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            other => return other.map_err(|err| OsError::new(&err, "read")),
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
            let n = self
                .input
                .read(spare)
                .await
                .map_err(|err| OsError::new(&err, "read"))?;
            self.buf.commit(n);
            self.record_read(n);
        }
    }
}

/// Counts the lines `path` holds (with `options` applied) without decoding any of them, or
/// gives `None` once `cancelled` is set: it is checked between reads, so a count of an endless
/// device or a huge file stops and closes its file soon after.
pub fn count_lines(
    path: &Path,
    options: &ReadOptions,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, OsError> {
    let Opened {
        file, remaining, ..
    } = open(path, options)?;
    let mut input = file.take(remaining.unwrap_or(u64::MAX));
    let mut chunk = vec![0; options.chunk_size];
    let mut counter = LineCounter::default();
    while !cancelled.load(Ordering::Relaxed) {
        match read_retrying(&mut input, &mut chunk)? {
            0 => return Ok(Some(counter.finish())),
            n => counter.feed(&chunk[..n]),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item a line reader over `input` gives, read `chunk_size` bytes at a time, as text,
    /// with the error that ended it (if any).
    fn read_all(input: &[u8], chunk_size: usize, max: usize) -> (Vec<String>, Option<ReadError>) {
        let framer = LineFramer::new(Encoding::Latin1).with_max_line_length(Some(max));
        let mut reader = Reader::new(input, None, chunk_size, framer);
        let mut batches = Vec::new();
        loop {
            match reader.next_blocking() {
                Ok(Some(Text::OneByte(bytes))) => {
                    batches.push(String::from_utf8_lossy(&bytes).into())
                }
                Ok(Some(Text::Utf16(units))) => batches.push(String::from_utf16_lossy(&units)),
                Ok(None) => return (lines_of(batches), None),
                Err(err) => return (lines_of(batches), Some(err)),
            }
        }
    }

    fn lines_of(batches: Vec<String>) -> Vec<String> {
        batches
            .iter()
            .flat_map(|b| b.split('\n'))
            .map(String::from)
            .collect()
    }

    const TOO_LONG: Option<ReadError> = Some(ReadError::LineTooLong { max_line_length: 5 });

    #[test]
    fn the_lines_before_an_overlong_line_come_out_then_the_error() {
        for chunk_size in 1..=20 {
            let (lines, err) = read_all(b"ab\r\ncde\rfghij\nklmnop\nq\n", chunk_size, 5);
            assert_eq!(lines, ["ab", "cde", "fghij"], "chunk size {chunk_size}");
            assert_eq!(err, TOO_LONG, "chunk size {chunk_size}");
        }
    }

    #[test]
    fn a_line_of_exactly_the_limit_passes_and_terminators_do_not_count() {
        for chunk_size in 1..=8 {
            let (lines, err) = read_all(b"abcde\r\nfghij\rklmno", chunk_size, 5);
            assert_eq!(
                (lines, err),
                (vec!["abcde".into(), "fghij".into(), "klmno".into()], None)
            );
        }
    }

    #[test]
    fn an_overlong_last_line_without_terminator_fails() {
        for chunk_size in 1..=8 {
            assert_eq!(
                read_all(b"ok\nabcdef", chunk_size, 5),
                (vec!["ok".into()], TOO_LONG)
            );
        }
    }

    #[test]
    fn an_overlong_line_stops_reading_within_a_read_of_the_limit() {
        let line = vec![b'x'; 1 << 20];
        let framer = LineFramer::new(Encoding::Utf8).with_max_line_length(Some(1000));
        let progress = Arc::new(AtomicU64::new(0));
        let mut reader = Reader::new(&line[..], None, 64, framer).with_progress(progress.clone());
        assert!(matches!(
            reader.next_blocking(),
            Err(ReadError::LineTooLong { .. })
        ));
        assert!(progress.load(Ordering::Relaxed) <= 1000 + 64);
    }
}
