//! Opening what is read: a path becomes a [`Source`], an input positioned at the start of the
//! byte range, with the bytes left before its end. Regular files and devices are read with
//! blocking reads; a FIFO or a terminal can be read as it becomes ready instead
//! ([`Source::into_reads`]).
//! A source says how its bytes are decompressed; `decompress` does it as they are read.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::ops::{Deref, Range};
use std::path::Path;

use bytes::Bytes;

#[cfg(unix)]
#[allow(unsafe_code)]
mod descriptor;
mod fed;

#[cfg(unix)]
pub use descriptor::{descriptor, duplicate};

/// A descriptor of our own (see `duplicate`), by how it is read.
#[derive(Debug)]
pub enum Descriptor {
    /// A regular file or a device: read with blocking reads, from its current offset.
    Blocking(File),
    /// A pipe or a socket: read when the OS says it is ready.
    Ready(ReadyInput),
}

/// How to read `file`: where descriptors are not handed over, with blocking reads.
#[cfg(not(unix))]
pub fn descriptor(file: File, taken: Bytes) -> io::Result<Descriptor> {
    if !taken.is_empty() {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    Ok(Descriptor::Blocking(file))
}
pub use fed::{fed, FedInput, FedSignal, Feed};

/// An input read as it becomes ready, through the Tokio reactor: a pipe or a socket handed over
/// as a descriptor, after the bytes its previous reader took from it and did not use. (A fed
/// source is read as it is fed, see [`crate::ReadStream::fed`].)
#[derive(Debug)]
pub struct ReadyInput {
    /// What the descriptor's previous reader (the runtime) read from it before handing it over
    /// and did not use: read first, then the descriptor. Shrinks from the front as it is read.
    taken: Bytes,
    stream: ReadyStream,
}

impl ReadyInput {
    /// `stream`, with nothing taken from it before.
    fn new(stream: ReadyStream) -> Self {
        ReadyInput {
            taken: Bytes::new(),
            stream,
        }
    }
}

/// What a [`ReadyInput`] reads once its taken bytes are read.
#[derive(Debug)]
enum ReadyStream {
    /// A pipe, or a terminal opened by path (see [`Source::into_reads`]).
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    #[cfg(unix)]
    Socket(descriptor::SocketReader),
    /// Where no descriptor is handed over, there is none.
    #[cfg(not(unix))]
    None(std::convert::Infallible),
}

impl tokio::io::AsyncRead for ReadyInput {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let input = self.get_mut();
        if !input.taken.is_empty() {
            let len = input.taken.len().min(buf.remaining());
            buf.put_slice(&input.taken.split_to(len));
            return std::task::Poll::Ready(Ok(()));
        }
        match &mut input.stream {
            #[cfg(unix)]
            ReadyStream::Pipe(pipe) => std::pin::Pin::new(pipe).poll_read(cx, buf),
            #[cfg(unix)]
            ReadyStream::Socket(socket) => std::pin::Pin::new(socket).poll_read(cx, buf),
            #[cfg(not(unix))]
            ReadyStream::None(never) => {
                let _ = (cx, buf);
                match *never {}
            }
        }
    }
}

use crate::decompress::Decompress;
use crate::error::OsError;
use crate::share::{FileRange, Reach, Share};

/// Which bytes to read and how many at a time, with `fs.createReadStream`'s meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Byte offset of the first byte to read.
    pub start: u64,
    /// Byte offset of the last byte to read (inclusive), or `None` for the end of the file.
    pub end: Option<u64>,
    /// Bytes asked of the OS per read; with `decompress`, decompressed bytes per read.
    pub chunk_size: usize,
    /// How the bytes are decompressed. Only with `start` 0 and no `end`: offsets are in the
    /// file, and a compressed stream can only be decoded from its start.
    pub decompress: Decompress,
    /// Only the lines of this share of the file (see [`Share`]). Only with `start` 0, no `end`
    /// and no `decompress`: a share is of the file's own bytes.
    pub share: Option<Share>,
}

impl ReadOptions {
    /// How many bytes the range holds, if it has an end.
    fn len(&self) -> Option<u64> {
        self.end.map(|end| (end + 1).saturating_sub(self.start))
    }
}

/// An input ready to be read from its current position, and how to read it.
#[derive(Debug)]
pub struct Source<I = File> {
    pub(crate) input: I,
    /// Bytes left before the end of the range; `None`: read to the end of the input.
    pub(crate) remaining: Option<u64>,
    /// Where in the input its first byte to read is: what offsets are counted from.
    pub(crate) offset: u64,
    /// Bytes asked of the input per read.
    pub(crate) chunk_size: usize,
    /// A FIFO: its reads wait for a writer, so an async reader should wait on readiness
    /// instead of holding a thread.
    is_pipe: bool,
    /// How the input's bytes are decompressed as they are read.
    pub(crate) decompress: Decompress,
    /// Once `remaining` is read, the reader reads on to the end of the line the range ends in
    /// (see [`Source::finishing_line`]).
    pub(crate) finish_line: bool,
}

impl<I> Source<I> {
    /// Reads `input` from where it stands, `chunk_size` bytes at a time, stopping after
    /// `remaining` bytes if that is given.
    pub fn new(input: I, remaining: Option<u64>, chunk_size: usize) -> Self {
        Source {
            input,
            remaining,
            offset: 0,
            chunk_size,
            is_pipe: false,
            decompress: Decompress::Off,
            finish_line: false,
        }
    }

    /// Reads on past the range to the end of the line it ends in, if it ends inside one: the
    /// range of a share was cut where the file ended when the share opened, which may be inside
    /// a line still being written, and the share holds that line whole, as far as the file
    /// holds it when it is read. The line ends at its terminator (a `\r\n` whole, if its `\n`
    /// is there by then) or where the file ends.
    pub(crate) fn finishing_line(self) -> Self {
        Source {
            finish_line: true,
            ..self
        }
    }

    /// Counts offsets from `offset`: where in the input the input's current position is.
    pub fn at(self, offset: u64) -> Self {
        Source { offset, ..self }
    }

    /// Where in the input its first byte to read is.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads decompressed as `decompress` says.
    pub fn decompressed(self, decompress: Decompress) -> Self {
        Source { decompress, ..self }
    }

    /// What the source reads, as read options: from where it stands, to its end.
    pub(crate) fn read_options(&self) -> ReadOptions {
        ReadOptions {
            start: 0,
            end: None,
            chunk_size: self.chunk_size,
            decompress: self.decompress,
            share: None,
        }
    }

    pub fn is_pipe(&self) -> bool {
        self.is_pipe
    }

    /// The same source, reading through a borrow of its input, which stays here to be asked
    /// what the read found (as [`std::io::Read::by_ref`]).
    pub(crate) fn by_ref(&mut self) -> Source<&mut I> {
        Source {
            input: &mut self.input,
            remaining: self.remaining,
            offset: self.offset,
            chunk_size: self.chunk_size,
            is_pipe: self.is_pipe,
            decompress: self.decompress,
            finish_line: self.finish_line,
        }
    }

    /// The same source read through another handle to it (say, the runtime's pipe reader).
    pub fn try_map_input<J>(
        self,
        map: impl FnOnce(I) -> io::Result<J>,
    ) -> Result<Source<J>, OsError> {
        let input = map(self.input).map_err(|err| OsError::new(&err, "read"))?;
        Ok(Source {
            input,
            remaining: self.remaining,
            offset: self.offset,
            chunk_size: self.chunk_size,
            is_pipe: self.is_pipe,
            decompress: self.decompress,
            finish_line: self.finish_line,
        })
    }
}

impl<H: Deref<Target = File>> Source<FileRange<H>> {
    /// The source of `share`'s `range` of `within` (see [`Share::range`]), read through `file`,
    /// `chunk_size` bytes at a time, its offsets counted from the file's start. With
    /// `finish_line`, the share whose range reaches `within.end` reads its last line on to its
    /// terminator ([`Source::finishing_line`]): `within` was cut where the file ended, which may
    /// be inside a line still being written.
    pub(crate) fn of_share(
        share: Share,
        file: H,
        range: Range<u64>,
        within: &Range<u64>,
        finish_line: bool,
        chunk_size: usize,
    ) -> io::Result<Self> {
        let start = range.start;
        let finishing = finish_line && !range.is_empty() && range.end == within.end;
        let (read, remaining) = if finishing {
            (start..u64::MAX, Some(range.end - start))
        } else {
            (range, None)
        };
        let source = Source::new(share.input(file, read, within)?, remaining, chunk_size).at(start);
        Ok(if finishing {
            source.finishing_line()
        } else {
            source
        })
    }
}

impl Source<File> {
    /// Whether a read returns at once with what the input holds: a regular file's does (or
    /// after the disk), where a pipe's or a terminal's waits for a writer.
    pub(crate) fn reads_promptly(&self) -> bool {
        self.input.metadata().is_ok_and(|meta| meta.is_file())
    }

    /// The bytes of the file this source reads, as it stands now, when they can be cut into
    /// parts read at offsets ([`Share`]s of them): `None` for a pipe, a device or a
    /// decompressed file, which are read from their start to their end, and for a file whose
    /// size the OS does not give (it says 0: procfs, some FUSE files).
    pub(crate) fn cut_range(&self) -> io::Result<Option<Range<u64>>> {
        if self.is_pipe || self.decompress != Decompress::Off {
            return Ok(None);
        }
        let meta = self.input.metadata()?;
        if !meta.is_file() || meta.len() == 0 {
            return Ok(None);
        }
        let end = self.remaining.map_or(meta.len(), |remaining| {
            self.offset.saturating_add(remaining).min(meta.len())
        });
        Ok(Some(self.offset..end.max(self.offset)))
    }

    /// How to read this source: a FIFO, and on Linux a terminal (a serial port, a pty), as it
    /// becomes ready on the runtime's reactor, so that waiting for a writer holds no thread
    /// and `close()` closes it at once (a blocking read of a terminal held its thread, and
    /// its reader's close, until someone typed); anything else with blocking reads. Must be
    /// called inside a Tokio runtime.
    pub fn into_reads(self) -> Result<Reads, OsError> {
        #[cfg(unix)]
        if self.is_pipe {
            return self
                .try_map_input(|file| {
                    let pipe = tokio::net::unix::pipe::Receiver::from_file(file)?;
                    Ok(ReadyInput::new(ReadyStream::Pipe(pipe)))
                })
                .map(Reads::Ready);
        }
        // Tokio's pipe reader needs no more than a descriptor that reads without blocking and
        // that epoll watches, which a terminal is (it checks for a FIFO only in `from_file`).
        #[cfg(target_os = "linux")]
        if std::io::IsTerminal::is_terminal(&self.input) {
            return self
                .try_map_input(|file| {
                    set_blocking(&file, false)?;
                    let terminal = tokio::net::unix::pipe::Receiver::from_file_unchecked(file)?;
                    Ok(ReadyInput::new(ReadyStream::Pipe(terminal)))
                })
                .map(Reads::Ready);
        }
        Ok(Reads::Blocking(self))
    }
}

/// How a [`Source`] is read (see [`Source::into_reads`]).
#[derive(Debug)]
pub enum Reads {
    /// As it becomes ready, on the reactor.
    Ready(Source<ReadyInput>),
    /// With blocking reads.
    Blocking(Source),
}

/// Opens `path` for reading at `options.start`, or at the start of its share. Errors name the
/// syscall Node would name: `open` for the open, `fstat` for the size a share is cut from, and
/// `read` for positioning, since Node positions with `pread`. A share of a FIFO fails with
/// `ESPIPE` at once, as the background readers' does, rather than after `open(2)` waited for a
/// writer (for ever, if none comes): a FIFO has no size to cut shares from. A share's line
/// starts are looked for as far as `reach` says.
pub fn open(path: &Path, options: &ReadOptions, reach: Reach) -> Result<Source, OsError> {
    if options.share.is_some() {
        return open_unblocked(path, options, reach);
    }
    let file = File::open(path).map_err(|err| OsError::new(&err, "open"))?;
    opened(file, options, reach)
}

/// [`open`], without waiting for a FIFO's writer, for readers that read a FIFO as it becomes
/// ready ([`Source::is_pipe`]): on Linux a FIFO opens at once, where `open` holds its thread in
/// `open(2)` until a writer comes, and nothing frees it (a `close()` could not, and 32 FIFOs
/// without writers held every blocking thread). Anything else is then read with blocking reads,
/// as `open` gives it.
pub fn open_unblocked(path: &Path, options: &ReadOptions, reach: Reach) -> Result<Source, OsError> {
    let file = open_now(path).map_err(|err| OsError::new(&err, "open"))?;
    if !is_fifo(&file) {
        set_blocking(&file, true).map_err(|err| OsError::new(&err, "open"))?;
    }
    opened(file, options, reach)
}

/// `path` opened for reading without waiting: a FIFO opens at once, with or without a writer.
/// Its reads then do not wait either (see [`block_reads`]); a regular file's reads do not look
/// at the flag.
pub(crate) fn open_now(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options.open(path)
}

/// Makes reads of `file`, opened by [`open_now`], wait for data (`blocking`: a device such as
/// `/dev/zero` is read with blocking reads) or not (a terminal read on the reactor). Only for
/// a descriptor fastlines opened itself: the flag belongs to the open file, which an owner's
/// descriptor would share.
#[cfg(target_os = "linux")]
fn set_blocking(file: &File, blocking: bool) -> io::Result<()> {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let flags = fcntl_getfl(file)?;
    if flags.contains(OFlags::NONBLOCK) == blocking {
        fcntl_setfl(file, flags ^ OFlags::NONBLOCK)?;
    }
    Ok(())
}

/// Elsewhere [`open_now`] opens as `open(2)` always does, and blocking reads are all there is.
#[cfg(not(target_os = "linux"))]
fn set_blocking(_: &File, _: bool) -> io::Result<()> {
    Ok(())
}

/// `file`, just opened, as the source `options` read: positioned at `options.start` or at the
/// start of its share (looked for as far as `reach` says).
fn opened(mut file: File, options: &ReadOptions, reach: Reach) -> Result<Source, OsError> {
    debug_assert!(
        options.decompress == Decompress::Off || (options.start == 0 && options.end.is_none()),
        "a compressed stream is read whole"
    );
    let is_pipe = is_fifo(&file);
    if is_pipe {
        widen_pipe(&file);
    }
    let mut finish_line = false;
    let (start, len) = match options.share {
        None => (options.start, options.len()),
        Some(share) => {
            debug_assert!(
                options.start == 0
                    && options.end.is_none()
                    && options.decompress == Decompress::Off
            );
            let (range, at_file_end) = shared_range(&file, share, reach)?;
            finish_line = at_file_end;
            (range.start, Some(range.end - range.start))
        }
    };
    let len = if start > 0 && !seek_to(&mut file, start)? {
        Some(0)
    } else {
        len
    };
    let chunk_size = match options.decompress {
        Decompress::Off => read_size_for(&file, start, len, options.chunk_size),
        _ => options.chunk_size,
    };
    Ok(Source {
        is_pipe,
        decompress: options.decompress,
        finish_line,
        ..Source::new(file, len, chunk_size).at(start)
    })
}

/// Moves `file` to `start`; false when the file system allows no regular file that long
/// (`EINVAL`), where Node's `pread` finds the end, so the range is empty rather than an error.
/// Anything else refusing the offset (a procfs directory) fails as its read will.
fn seek_to(file: &mut File, start: u64) -> Result<bool, OsError> {
    match file.seek(SeekFrom::Start(start)) {
        Ok(_) => Ok(true),
        Err(err)
            if err.kind() == io::ErrorKind::InvalidInput
                && file.metadata().is_ok_and(|meta| meta.is_file()) =>
        {
            Ok(false)
        }
        Err(err) => Err(OsError::new(&err, "read")),
    }
}

/// Reads no larger than this are asked of a file however little of it is left: a file read
/// while it grows keeps reading in chunks of a useful size.
const MIN_CAPPED_READ: usize = 64 * 1024;

/// `chunk_size`, or less when the file holds less from `start` (to the range's end `len`): a
/// read buffer as large as `highWaterMark` allows (up to 1 GiB) is never needed for a small
/// file, and on a 32-bit target a few of them would not fit in the address space.
pub(crate) fn read_size_for(file: &File, start: u64, len: Option<u64>, chunk_size: usize) -> usize {
    let Ok(meta) = file.metadata() else {
        return chunk_size;
    };
    if !meta.is_file() || meta.len() == 0 {
        return chunk_size; // a device, or a file whose size the OS does not give (procfs)
    }
    let left = meta.len().saturating_sub(start);
    capped_read_size(chunk_size, len.map_or(left, |len| left.min(len)))
}

/// `chunk_size`, or less for a file with `left` bytes to read, but no less than
/// [`MIN_CAPPED_READ`] (nor than 1).
pub(crate) fn capped_read_size(chunk_size: usize, left: u64) -> usize {
    let capped = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .max(MIN_CAPPED_READ);
    chunk_size.min(capped).max(1)
}

/// The bytes of `file` that `share` reads, cut from the file's size now. Only a file that can
/// be read at offsets has shares: a pipe fails as seeking it fails (`ESPIPE`). A file whose
/// size the OS does not give (it says 0, and the file has bytes: procfs, some FUSE files)
/// cannot be cut: the first share reads all of it, the others nothing.
///
/// A share's lines are those that start in it, so a share cut inside a line looks through all
/// of it for its first line whatever `maxLineLength` says (that line fails the share where it
/// starts), as far as `reach` says otherwise.
///
/// Also whether the range ends where the file ended: inside a line, maybe, which the share
/// then reads to its end (see [`Source::finishing_line`]).
fn shared_range(file: &File, share: Share, reach: Reach) -> Result<(Range<u64>, bool), OsError> {
    let size = file
        .metadata()
        .map_err(|err| OsError::new(&err, "fstat"))?
        .len();
    let unsized_file = size == 0 && has_bytes(file).map_err(|err| OsError::new(&err, "read"))?;
    if unsized_file {
        let range = if share.is_first() { 0..u64::MAX } else { 0..0 };
        return Ok((range, false));
    }
    let range = (&*file)
        .stream_position()
        .and_then(|_| share.range(file, 0..size, reach))
        .map_err(|err| OsError::new(&err, "read"))?;
    let at_file_end = !range.is_empty() && range.end == size;
    Ok((range, at_file_end))
}

/// Whether `file` has a byte at offset 0.
fn has_bytes(file: &File) -> std::io::Result<bool> {
    let mut byte = [0];
    crate::read::read_at(file, &mut byte, 0).map(|read| read > 0)
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

/// What a pipe that fastlines reads is widened to hold (see [`widen_pipe`]): the limit Linux
/// sets for unprivileged users by default (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE_CAPACITY: usize = 1024 * 1024;

/// Lets `pipe` hold [`PIPE_CAPACITY`] bytes, if it holds fewer: a pipe holds 64 KiB unless its
/// reader or writer asks for more, so a writer faster than its reader (`cat big.log | node`)
/// stops and is woken every 64 KiB, and the reader with it. Piping 1 GB through `cat` into a
/// reader of 1 MiB reads took 1.5-3.0 s in a 64 KiB pipe and 0.6-1.3 s in a 1 MiB one (measured
/// here, alternating). The writer, if it is another process, shares the wider pipe. Best
/// effort: where the kernel refuses (past the system's limit, or past the user's total of pipe
/// pages), the pipe stays as it was.
#[cfg(target_os = "linux")]
pub(crate) fn widen_pipe(pipe: &File) {
    widen_pipe_to(pipe, PIPE_CAPACITY);
}

/// Lets `pipe` hold `capacity` bytes, if it holds fewer (never narrowing a pipe someone
/// widened more).
#[cfg(target_os = "linux")]
fn widen_pipe_to(pipe: &File, capacity: usize) {
    if rustix::pipe::fcntl_getpipe_size(pipe).is_ok_and(|size| size < capacity) {
        let _ = rustix::pipe::fcntl_setpipe_size(pipe, capacity);
    }
}

/// Pipes are widened on Linux only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn widen_pipe(_: &File) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::pipe::fcntl_getpipe_size;
    use std::io::{Read, Write};

    #[test]
    fn a_pipe_handed_over_as_a_descriptor_is_widened() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        assert!(fcntl_getpipe_size(&writer).unwrap() < PIPE_CAPACITY);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let _entered = runtime.enter();
        let descriptor =
            descriptor(File::from(std::os::fd::OwnedFd::from(reader)), Bytes::new()).unwrap();
        assert!(matches!(
            descriptor,
            Descriptor::Ready(ReadyInput {
                stream: ReadyStream::Pipe(_),
                ..
            })
        ));
        assert_eq!(fcntl_getpipe_size(&writer).unwrap(), PIPE_CAPACITY);
        // The writer may now run that far ahead of a reader that has not read yet.
        writer.write_all(&vec![b'\n'; PIPE_CAPACITY]).unwrap();
    }

    #[test]
    fn a_descriptor_handed_over_with_bytes_taken_reads_them_first() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let _entered = runtime.enter();
        let taken = Bytes::from_static(b"taken by the runtime\nand a part");
        let Descriptor::Ready(mut input) = descriptor(
            File::from(std::os::fd::OwnedFd::from(reader)),
            taken.clone(),
        )
        .unwrap() else {
            panic!("a pipe is read as it is ready");
        };
        writer.write_all(b"ial line\nthe rest\n").unwrap();
        drop(writer);
        let mut read = Vec::new();
        runtime
            .block_on(tokio::io::AsyncReadExt::read_to_end(&mut input, &mut read))
            .unwrap();
        assert_eq!(
            read,
            b"taken by the runtime\nand a partial line\nthe rest\n"
        );

        // A regular file is read from an offset, never after bytes taken from it.
        let file = File::open(std::env::current_exe().unwrap()).unwrap();
        let refused = descriptor(file, taken).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_fifo_opened_by_path_is_widened_and_reads_the_same_bytes() {
        let path = std::env::temp_dir().join(format!("fastlines-fifo-{}", std::process::id()));
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let bytes: Vec<u8> = (0..3 * PIPE_CAPACITY).map(|i| (i % 251) as u8).collect();
        let writer = std::thread::spawn({
            let (path, bytes) = (path.clone(), bytes.clone());
            move || File::options().write(true).open(path)?.write_all(&bytes)
        });
        let options = ReadOptions {
            start: 0,
            end: None,
            chunk_size: 64 * 1024,
            decompress: Decompress::Off,
            share: None,
        };
        let mut source = open(&path, &options, Reach::until(&|| false)).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(source.is_pipe());
        assert_eq!(fcntl_getpipe_size(&source.input).unwrap(), PIPE_CAPACITY);
        let mut read = Vec::new();
        source.input.read_to_end(&mut read).unwrap();
        writer.join().unwrap().unwrap();
        assert_eq!(read, bytes);
    }

    #[test]
    fn a_pipe_is_widened_and_never_narrowed() {
        let (reader, writer) = std::io::pipe().unwrap();
        let reader = File::from(std::os::fd::OwnedFd::from(reader));
        widen_pipe_to(&reader, 256 * 1024);
        assert_eq!(fcntl_getpipe_size(&writer).unwrap(), 256 * 1024);
        widen_pipe_to(&reader, 128 * 1024);
        assert_eq!(fcntl_getpipe_size(&writer).unwrap(), 256 * 1024);
    }
}
