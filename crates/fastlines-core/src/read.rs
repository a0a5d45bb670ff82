//! Opening a file and filling a reusable buffer from it, blocking or async, and framing what was
//! read into items (batches of lines, or raw chunks).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::buffer::ReadBuf;
use crate::decode::{decode, Encoding, Text};
use crate::error::OsError;
use crate::split::{join_lines, LineCounter, LineSplitter};

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
    fn take(&mut self, buf: &mut ReadBuf) -> Option<Self::Item>;
    /// At end of input: removes the last item from what is left in `buf`.
    fn finish(&mut self, buf: &mut ReadBuf) -> Option<Self::Item>;
}

/// Frames batches of complete lines, decoded and joined by `\n` (see [`join_lines`]).
#[derive(Debug)]
pub struct LineFramer {
    splitter: LineSplitter,
    encoding: Encoding,
}

impl LineFramer {
    pub fn new(encoding: Encoding) -> Self {
        LineFramer {
            splitter: LineSplitter::default(),
            encoding,
        }
    }
}

impl Framer for LineFramer {
    type Item = Text;

    fn take(&mut self, buf: &mut ReadBuf) -> Option<Text> {
        let lines = self.splitter.take_complete(buf)?;
        Some(decode(join_lines(lines), self.encoding))
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Option<Text> {
        let last_line = self.splitter.take_rest(buf)?;
        Some(decode(last_line, self.encoding))
    }
}

/// Frames each read as it came: raw bytes, nothing split. The bytes are a view of a pooled
/// buffer, to be copied into a JS Buffer: JS-owned memory that the engine accounts for, where
/// adopting native buffers left up to 119 MB waiting for finalizers on Node.
#[derive(Debug, Default)]
pub struct ChunkFramer;

impl Framer for ChunkFramer {
    type Item = Bytes;

    fn take(&mut self, buf: &mut ReadBuf) -> Option<Bytes> {
        (!buf.is_empty()).then(|| buf.split_to(buf.len()))
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Option<Bytes> {
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

    fn take_ready(&mut self) -> Option<F::Item> {
        self.framer.take(&mut self.buf).or_else(|| {
            if self.eof {
                self.framer.finish(&mut self.buf)
            } else {
                None
            }
        })
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
    pub fn next_blocking(&mut self) -> Result<Option<F::Item>, OsError> {
        loop {
            if let Some(item) = self.take_ready() {
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
    pub async fn next_async(&mut self) -> Result<Option<F::Item>, OsError> {
        loop {
            if let Some(item) = self.take_ready() {
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

/// Counts the lines `path` holds (with `options` applied) without decoding any of them.
pub fn count_lines(path: &Path, options: &ReadOptions) -> Result<u64, OsError> {
    let Opened {
        file, remaining, ..
    } = open(path, options)?;
    let mut input = file.take(remaining.unwrap_or(u64::MAX));
    let mut chunk = vec![0; options.chunk_size];
    let mut counter = LineCounter::default();
    loop {
        match read_retrying(&mut input, &mut chunk)? {
            0 => return Ok(counter.finish()),
            n => counter.feed(&chunk[..n]),
        }
    }
}
