//! The last lines of a file, found by reading it backward from its end: the bytes read are
//! those lines plus at most one read, however large the file. [`read_last_lines`] keeps what it
//! read and frames the lines from it, as a line reader would; a follower starting with its last
//! lines only needs where they start ([`start_of_last_lines`]), and reads them forward (with a
//! filter, where the last lines it keeps start, found as `read_last_lines` finds them).

use std::collections::VecDeque;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use memchr::{memrchr2, memrchr2_iter};

use crate::decode::Encoding;
use crate::decode::Text;
use crate::error::{OsError, ReadError};
use crate::frame::{units_at_least, Batch, LineFramer};
use crate::reader::{Progress, Reader};
use crate::share::Reach;
use crate::source::{capped_read_size, open_unblocked, ReadOptions, Reads, ReadyInput, Source};
use crate::split::count_newlines;

/// The last `n` lines of `path`, the file taken as ending at `options.end` (inclusive) if that
/// is before its end, framed by `framer` (so with its encoding, limits and filter) into
/// batches; read backward `options.chunk_size` bytes at a time. Lines are `readline`'s: a
/// terminator at the very end starts no empty line. A line among them longer than the
/// framer's `max_line_length` fails with [`ReadError::LineTooLong`] as soon as the scan has
/// read that much of it. `None` once `cancelled` is set (checked between reads).
///
/// With a filter, the batches hold at least the last `n` lines it keeps (more, the caller
/// keeps the last `n`): the scan goes back for twice as many lines each time too few of them
/// match, reading each chunk from the file once.
///
/// A file with no end to read back from is read forward to its end, keeping only the batches
/// that hold its last `n` lines: a device, or a pipe such as `/dev/stdin`, here; a FIFO or a
/// terminal, whose writer may never come, is opened at once (on Linux) and given back to be
/// read as its bytes come ([`LastLinesRead::Pipe`]), so that waiting holds no thread and a
/// cancel ends it. A directory fails as reading one does (`EISDIR`). Must be called inside a
/// Tokio runtime.
pub fn read_last_lines(
    path: &Path,
    n: u64,
    options: &ReadOptions,
    framer: LineFramer,
    cancelled: &AtomicBool,
) -> Result<LastLinesRead, ReadError> {
    let stopped = || cancelled.load(Ordering::Relaxed);
    let source = match open_unblocked(path, options, Reach::until(&stopped))?.into_reads()? {
        Reads::Ready(source) => {
            return Ok(LastLinesRead::Pipe(Box::new(LastLinesOfPipe::new(
                source, n, framer,
            ))))
        }
        Reads::Blocking(source) => source,
    };
    let file = &source.input;
    let meta = file.metadata().map_err(|err| OsError::new(&err, "fstat"))?;
    if !meta.is_file() {
        return last_lines_forward(source, n, framer, cancelled).map(LastLinesRead::Done);
    }
    let len = file_len(file, options.chunk_size)?;
    let len = options
        .end
        .map_or(len, |end| len.min(end.saturating_add(1)));
    let chunk_size = capped_read_size(options.chunk_size, len);
    let last = last_batches(file, n, len, chunk_size, framer, Some(&stopped))?;
    Ok(LastLinesRead::Done(
        last.map(|(batches, end)| LastLines { batches, end }),
    ))
}

/// What [`read_last_lines`] gives: the last lines, read, or what reads them as they come.
pub enum LastLinesRead {
    /// The last lines; `None` once cancelled.
    Done(Option<LastLines>),
    /// A FIFO or a terminal, to read on the runtime's workers.
    Pipe(Box<LastLinesOfPipe>),
}

/// [`read_last_lines`] of a FIFO or a terminal: read forward to its end as its bytes come, on
/// the runtime's reactor. Dropping [`LastLinesOfPipe::read`]'s future stops it and closes the
/// descriptor at once.
pub struct LastLinesOfPipe {
    reader: Reader<LineFramer, ReadyInput>,
    progress: Progress,
    n: u64,
}

impl LastLinesOfPipe {
    fn new(source: Source<ReadyInput>, n: u64, framer: LineFramer) -> Self {
        let progress = Progress::default();
        LastLinesOfPipe {
            reader: Reader::new(source, framer, progress.clone()),
            progress,
            n,
        }
    }

    /// The last lines, once the writer is gone.
    pub async fn read(mut self) -> Result<LastLines, ReadError> {
        let mut last = LastBatches::new(self.n);
        while let Some(batch) = self.reader.next_async().await? {
            last.push(batch);
        }
        Ok(last.into_last_lines(self.progress.bytes()))
    }
}

/// [`read_last_lines`] of a file read forward with blocking reads (a device, a pipe).
fn last_lines_forward(
    source: Source,
    n: u64,
    framer: LineFramer,
    cancelled: &AtomicBool,
) -> Result<Option<LastLines>, ReadError> {
    let progress = Progress::default();
    let mut reader = Reader::new(source, framer, progress.clone());
    let mut last = LastBatches::new(n);
    let stopped = || cancelled.load(Ordering::Relaxed);
    while let Some(batch) = reader.next_unless(&stopped)? {
        last.push(batch);
    }
    if stopped() {
        return Ok(None);
    }
    Ok(Some(last.into_last_lines(progress.bytes())))
}

/// The batches, of those read forward, that hold the last `n` lines (with a filter, the last
/// `n` it keeps): a batch is let go once the batches after it hold `n` lines.
struct LastBatches {
    n: u64,
    /// The batches kept, each with how many lines it holds.
    held: VecDeque<(Batch, u64)>,
    /// The lines the batches kept hold.
    lines_held: u64,
}

impl LastBatches {
    fn new(n: u64) -> Self {
        LastBatches {
            n,
            held: VecDeque::new(),
            lines_held: 0,
        }
    }

    fn push(&mut self, batch: Batch) {
        let lines = lines_in(&batch.text);
        self.lines_held += lines;
        self.held.push_back((batch, lines));
        while let Some(&(_, first)) = self.held.front() {
            if self.lines_held - first < self.n {
                break;
            }
            self.lines_held -= first;
            self.held.pop_front();
        }
    }

    /// The last lines, of bytes that ended at `end`.
    fn into_last_lines(self, end: u64) -> LastLines {
        LastLines {
            batches: self.held.into_iter().map(|(batch, _)| batch).collect(),
            end,
        }
    }
}

/// How many lines a batch's text holds: they are joined by `\n`, which no line holds.
fn lines_in(text: &Text) -> u64 {
    match text {
        Text::OneByte(bytes) => count_newlines(bytes) + 1,
        Text::Ascii { lines, .. } => u64::from(*lines),
        Text::Utf16(units) => {
            units
                .iter()
                .filter(|&&unit| unit == u16::from(b'\n'))
                .count() as u64
                + 1
        }
    }
}

/// The last lines of a file ([`read_last_lines`]), and where the bytes they were taken from end.
#[derive(Debug)]
pub struct LastLines {
    pub batches: Vec<Batch>,
    /// The file's length when it was read (or `end + 1`, if `end` was before it): every line
    /// before it was considered, so reading on from here (a follower's `start`) loses and
    /// repeats no line.
    pub end: u64,
}

/// [`read_last_lines`] on an open file, up to `len`, or less if the file holds less by the
/// time it is read (it shrank, or its size said more than it holds, as sysfs files' do): then
/// up to where it ends, which comes with the batches.
fn last_batches(
    file: &File,
    n: u64,
    len: u64,
    chunk_size: usize,
    framer: LineFramer,
    stopped: Option<&dyn Fn() -> bool>,
) -> Result<Option<(Vec<Batch>, u64)>, ReadError> {
    let mut pieces = Pieces {
        file,
        len,
        chunk_size,
        framer,
        stopped,
    };
    if pieces.framer.filters() {
        pieces.last_kept(n)
    } else {
        pieces.last(n)
    }
}

/// How many bytes of lines a filter's backward read frames at a time (or a read's, if more):
/// what it holds at once besides the lines it keeps. Framing costs a setup per piece: over
/// 200 MB of which a filter kept nothing, pieces of a read (48 KiB) took 1.3 s, of 1 MiB
/// 0.25-0.5 s, before pieces were read into a reused buffer (now 0.16-0.23 s, where counting
/// the matches forward on two threads took 40-85 ms; both on a busy machine).
const PIECE_BYTES: u64 = 1 << 20;

/// A file read backward from `len` in pieces of whole lines, each framed by `framer` on its own.
struct Pieces<'a> {
    file: &'a File,
    /// Where the file is taken to end; lowered to where it does end when a read finds it
    /// ends before (see [`last_batches`]).
    len: u64,
    chunk_size: usize,
    framer: LineFramer,
    stopped: Option<&'a dyn Fn() -> bool>,
}

/// Which pieces [`Pieces::kept_back_to`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Every piece: the caller wants the lines.
    Every,
    /// The earliest piece alone, where the first of the last `n` kept lines is: the caller
    /// wants only where that line starts (a follower's `lastLines`), so however many lines the
    /// filter keeps, it holds one piece's.
    Earliest,
}

/// The pieces [`Pieces::kept_back_to`] framed, latest first (or the earliest alone, see
/// [`Held`]), and how many kept lines all of them held: the first of the last `n` is then
/// the `count - n`th kept line of the earliest piece.
struct KeptPieces {
    pieces: Vec<Vec<Batch>>,
    count: u64,
}

/// A piece of whole lines and what framing it gave; `None` when stopped.
type Framed = Option<(Vec<Batch>, u64)>;

impl Pieces<'_> {
    /// The batches of the last `n` lines before `len`: one piece.
    fn last(&mut self, n: u64) -> Result<Framed, ReadError> {
        let mut reads = PieceReads::new(self.file);
        let framed = self.piece(&mut reads, self.len, n, u64::MAX)?;
        Ok(framed.map(|(batches, _)| (batches, self.len)))
    }

    /// The batches of at least the last `n` lines the filter keeps (more: the caller keeps the
    /// last `n`), from pieces of about [`PIECE_BYTES`] each, framed from the end back until they hold
    /// `n` kept lines or the file's start is reached. Only kept lines are held, so a filter
    /// that keeps few of a large file's lines scans it all in the memory of a piece, read into
    /// the same buffer each time.
    fn last_kept(&mut self, n: u64) -> Result<Framed, ReadError> {
        let Some(kept) = self.kept_back_to(n, Held::Every)? else {
            return Ok(None);
        };
        let batches = kept.pieces.into_iter().rev().flatten().collect();
        Ok(Some((batches, self.len)))
    }

    /// Frames pieces from the end back until they hold `n` kept lines or the file's start is
    /// reached, holding those `held` says; `None` when stopped.
    fn kept_back_to(&mut self, n: u64, held: Held) -> Result<Option<KeptPieces>, ReadError> {
        let mut reads = PieceReads::new(self.file);
        let mut kept = KeptPieces {
            pieces: Vec::new(),
            count: 0,
        };
        let mut end = self.len;
        while end > 0 && kept.count < n {
            let len = self.len;
            let bytes = PIECE_BYTES.max(self.chunk_size as u64);
            let Some((batches, scanned)) = self.piece(&mut reads, end, u64::MAX, bytes)? else {
                return Ok(None);
            };
            if self.len != len {
                // The file ends before what was taken as its end: every piece starts again.
                (kept.pieces, kept.count, end) = (Vec::new(), 0, self.len);
                continue;
            }
            kept.count += batches
                .iter()
                .flat_map(|batch| &batch.kept)
                .map(|kept| kept.numbers.len() as u64)
                .sum::<u64>();
            if held == Held::Earliest {
                kept.pieces.clear();
            }
            kept.pieces.push(batches);
            // A line over the limit ended the piece: fine if the lines after it hold enough
            // kept lines, and if not, it lies among the lines wanted, which a reader fails at.
            if let Some(err) = scanned.long_line {
                if kept.count < n {
                    return Err(err);
                }
            }
            end = scanned.start;
        }
        Ok(Some(kept))
    }

    /// The batches of the last `lines` lines before `end`, or of the lines that start in its
    /// last `bytes` (at least one line, unless none starts there before the file's start), and
    /// where they start. A read that finds the file ending before `self.len` lowers it and
    /// scans again from there. A line over the framer's limit fails the last `lines`; it ends
    /// a piece of `bytes` (see [`ScanEnd::long_line`]), whose lines may not be needed.
    fn piece(
        &mut self,
        reads: &mut PieceReads,
        mut end: u64,
        lines: u64,
        bytes: u64,
    ) -> Result<Option<(Vec<Batch>, ScanEnd)>, ReadError> {
        loop {
            reads.start_at(end);
            let scan = Scan {
                n: lines,
                len: end,
                enough_bytes: bytes,
                chunk_size: self.chunk_size,
                max_line_length: self.framer.max_line_length(),
                long_line_ends_scan: bytes != u64::MAX,
                string_limit: Some(self.framer.string_limit()),
                stopped: self.stopped,
            };
            let Some(scanned) = scan.run(reads)? else {
                return Ok(None);
            };
            let start = scanned.start;
            if let Some(found) = reads.ends_at {
                (self.len, end) = (found, end.min(found));
                continue;
            }
            let source = Source::new(reads.from(start), None, self.chunk_size).at(start);
            let mut reader = Reader::new(source, self.framer.clone(), Progress::default());
            // Framing a piece is read by read too: a piece may be a line of the engine's longest
            // string (2 GiB on Bun), which took 170-490 ms to frame past an abort on V8.
            let stopped = self.stopped.unwrap_or(&never);
            let mut batches = Vec::new();
            while let Some(batch) = reader.next_unless(stopped)? {
                batches.push(batch);
            }
            if stopped() {
                return Ok(None);
            }
            return Ok(Some((batches, scanned)));
        }
    }
}

/// A stop that never comes, for pieces read with no cancel.
fn never() -> bool {
    false
}

/// Where a backward [`Scan`] reads its chunks into.
trait ReadBack {
    /// Reads the `len` bytes at `offset`, which end where the previous read's begin (or at
    /// the scan's end), and gives them; past the file's end they read as `\0`, which starts no
    /// line.
    fn read_back(&mut self, offset: u64, len: usize) -> Result<&[u8], ReadError>;
}

/// A scan's reads into one chunk, each over the one before: only where lines start is wanted.
struct ChunkReads<'a> {
    file: &'a File,
    chunk: Vec<u8>,
}

impl ReadBack for ChunkReads<'_> {
    fn read_back(&mut self, offset: u64, len: usize) -> Result<&[u8], ReadError> {
        self.chunk.resize(len, 0);
        read_at(self.file, &mut self.chunk, offset)?;
        Ok(&self.chunk)
    }
}

/// A piece's reads, kept in the file's order in one buffer that each read extends at the
/// front, so that the piece's lines are framed from where they lie: the buffer is reused by
/// every piece, where a chunk per read, then a copy of them all, cost a piece of 1 MiB its
/// memory twice over (most of a filtered scan's time went to copies and page faults).
struct PieceReads<'a> {
    file: &'a File,
    /// `buf[front..]` holds the bytes read, which end at `end`.
    buf: Vec<u8>,
    front: usize,
    end: u64,
    /// Where a read found the file's end before `end`, if one did.
    ends_at: Option<u64>,
}

impl<'a> PieceReads<'a> {
    fn new(file: &'a File) -> Self {
        PieceReads {
            file,
            buf: Vec::new(),
            front: 0,
            end: 0,
            ends_at: None,
        }
    }

    /// Forgets what was read: the next read ends at `end`.
    fn start_at(&mut self, end: u64) {
        (self.front, self.end, self.ends_at) = (self.buf.len(), end, None);
    }

    /// The bytes read from `offset` to the end; `offset` is among them.
    fn from(&self, offset: u64) -> &[u8] {
        let held = &self.buf[self.front..];
        &held[held.len() - (self.end - offset) as usize..]
    }

    /// Room for `len` bytes before those held, made by moving them to the end of a buffer twice
    /// as large (or large enough) when there is none.
    fn room_before(&mut self, len: usize) -> &mut [u8] {
        if self.front < len {
            let held = self.buf.len() - self.front;
            let size = (held + len).max(2 * self.buf.len());
            let mut grown = vec![0; size];
            grown[size - held..].copy_from_slice(&self.buf[self.front..]);
            (self.buf, self.front) = (grown, size - held);
        }
        self.front -= len;
        &mut self.buf[self.front..self.front + len]
    }
}

impl ReadBack for PieceReads<'_> {
    fn read_back(&mut self, offset: u64, len: usize) -> Result<&[u8], ReadError> {
        let file = self.file;
        let room = self.room_before(len);
        let filled = read_at(file, room, offset)?;
        if filled < len {
            let end = offset + filled as u64;
            self.ends_at = Some(self.ends_at.map_or(end, |other| other.min(end)));
        }
        Ok(&self.buf[self.front..self.front + len])
    }
}

/// Where the last `n` lines of the first `len` bytes of `file` start; with a filter in
/// `framer`, the last `n` lines it keeps (or the file's start, if it keeps fewer). A line among
/// them over the framer's `max_line_length` fails as soon as the scan has read that much of it;
/// once `stopped` says so (checked between reads), the file's start, where a reader that is
/// stopping reads nothing.
pub(crate) fn start_of_last_lines(
    file: &File,
    n: u64,
    len: u64,
    chunk_size: usize,
    framer: &LineFramer,
    stopped: &dyn Fn() -> bool,
) -> Result<u64, ReadError> {
    if n == 0 {
        // None of the lines there: from the end, but a line still being written is read whole
        // once it ends, as an appended line is (and judged by its whole text, with a filter),
        // not from where the writer was then, as a fragment of its own.
        return unterminated_line_start(file, len, chunk_size, stopped);
    }
    if framer.filters() {
        // A last line still being written is judged whole when it ends, as an appended line
        // is: kept by its text so far, it took the place of a line kept before it, and was then
        // dropped if its whole text is not kept.
        let len = unterminated_line_start(file, len, chunk_size, stopped)?;
        let mut pieces = Pieces {
            file,
            len,
            chunk_size,
            framer: framer.clone(),
            stopped: Some(stopped),
        };
        // Stopped, the follower is closed: where it would have started matters no more.
        let Some(kept) = pieces.kept_back_to(n, Held::Earliest)? else {
            return Ok(0);
        };
        let Some(first) = kept.count.checked_sub(n) else {
            return Ok(0);
        };
        let mut starts = kept.pieces.iter().flatten().flat_map(|batch| {
            batch
                .kept
                .iter()
                .flat_map(|kept| kept.starts.iter().map(|start| batch.start + start))
        });
        return Ok(starts.nth(first as usize).unwrap_or(0));
    }
    let scan = Scan {
        n,
        len,
        enough_bytes: u64::MAX,
        chunk_size,
        max_line_length: framer.max_line_length(),
        long_line_ends_scan: false,
        // Read forward from there, a line too long for a string fails as it does in any reader.
        string_limit: None,
        stopped: Some(stopped),
    };
    let mut reads = ChunkReads {
        file,
        chunk: Vec::new(),
    };
    Ok(scan.run(&mut reads)?.map_or(0, |scanned| scanned.start))
}

/// Where the last line of the first `len` bytes of `file` starts if no terminator ends it (a
/// writer caught in the middle of it), read back `chunk_size` bytes at a time; `len` if one
/// does, or once `stopped` says so.
fn unterminated_line_start(
    file: &File,
    len: u64,
    chunk_size: usize,
    stopped: &dyn Fn() -> bool,
) -> Result<u64, ReadError> {
    let mut buf = vec![0; usize::try_from(len).map_or(chunk_size, |len| len.min(chunk_size))];
    let mut end = len;
    while end > 0 && !stopped() {
        let from = end.saturating_sub(buf.len() as u64);
        let piece = &mut buf[..(end - from) as usize];
        read_at(file, piece, from)?;
        if let Some(terminator) = memrchr2(b'\n', b'\r', piece) {
            return Ok(from + terminator as u64 + 1);
        }
        end = from;
    }
    Ok(if end == 0 { 0 } else { len })
}

/// The length of `file`: its size, or for a file whose size the OS does not give (it says 0:
/// procfs, some FUSE files), what reading it to its end finds, `chunk_size` bytes at a time.
fn file_len(file: &File, chunk_size: usize) -> Result<u64, OsError> {
    let meta = file.metadata().map_err(|err| OsError::new(&err, "fstat"))?;
    if meta.len() > 0 || !meta.is_file() {
        return Ok(meta.len());
    }
    let mut buf = vec![0; capped_read_size(chunk_size, 0)];
    let mut len = 0;
    loop {
        match read_at(file, &mut buf, len)? {
            0 => return Ok(len),
            read => len += read as u64,
        }
    }
}

/// A backward scan for where the last `n` lines of the first `len` bytes start.
struct Scan<'a> {
    n: u64,
    len: u64,
    /// Stop at the chunk that brings the bytes scanned to this many, at the earliest line
    /// start found by then, if one was (`u64::MAX`: only `n` stops the scan).
    enough_bytes: u64,
    chunk_size: usize,
    /// Stop with [`ReadError::LineTooLong`] at a line longer than this, its terminator aside,
    /// counted as the framer counts it.
    max_line_length: Option<usize>,
    /// Stop at such a line instead where it starts no line wanted: at the line start after it,
    /// with the error in [`ScanEnd::long_line`] (a filter's piece, whose lines may not be needed).
    long_line_ends_scan: bool,
    /// Stop with [`ReadError::StringTooLong`] at a line sure to be longer than the engine's
    /// longest string (in UTF-16 code units, its bytes measured in the encoding), rather than
    /// hold a line of gigabytes that could never be handed out (a sparse file's end).
    string_limit: Option<(usize, Encoding)>,
    /// Stop, giving `None`, once this says so (checked before each read).
    stopped: Option<&'a dyn Fn() -> bool>,
}

impl Scan<'_> {
    /// Scans backward, reading with `reads`, for line starts: after a `\n`, and after a `\r`
    /// not followed by `\n`; the byte after each chunk's last is remembered for that `\r` check.
    fn run(&self, reads: &mut impl ReadBack) -> Result<Option<ScanEnd>, ReadError> {
        if self.n == 0 {
            return Ok(Some(ScanEnd::at(self.len)));
        }
        let chunk_size = self.chunk_size.max(1) as u64;
        let mut chunk_end = self.len;
        // The byte just after the current chunk, if any: already read, with the later chunk.
        let mut after: Option<u8> = None;
        let mut found = 0;
        // Where the line being scanned ends: the last line start found, or the end.
        let mut line_end = self.len;
        // That line's terminator, known once the byte before a `\n` ending it is read.
        let mut terminator = Terminator::Known(0);
        // At least how many UTF-16 code units that line holds, counted from where it grew past
        // the string limit in bytes (a byte is at most a unit).
        let mut units = 0;
        while chunk_end > 0 {
            let chunk_start = chunk_end.saturating_sub(chunk_size);
            if self.stopped.is_some_and(|stopped| stopped()) {
                return Ok(None);
            }
            let bytes = reads.read_back(chunk_start, (chunk_end - chunk_start) as usize)?;
            terminator = if chunk_end == self.len {
                Terminator::ending(bytes, bytes.len())
            } else {
                terminator.before(bytes.last().copied())
            };
            for at in memrchr2_iter(b'\n', b'\r', bytes) {
                let line_start = chunk_start + at as u64 + 1;
                let next = bytes.get(at + 1).copied().or(after);
                let ends_a_line = bytes[at] == b'\n' || next != Some(b'\n');
                if ends_a_line && line_start < self.len {
                    if let Some(max) = self.over_limit(line_end - line_start, terminator.most()) {
                        return self.at_long_line(line_end, max);
                    }
                    found += 1;
                    if found == self.n {
                        return Ok(Some(ScanEnd::at(line_start)));
                    }
                    line_end = line_start;
                    terminator = Terminator::ending(bytes, at + 1);
                }
            }
            // The line goes on before the chunk: it is at least this long.
            if let Some(max) = self.over_limit(line_end - chunk_start, terminator.most()) {
                return self.at_long_line(line_end, max);
            }
            let part = &bytes[..(line_end.min(chunk_end) - chunk_start) as usize];
            let spans = line_end > chunk_end;
            units = self.check_string(part, line_end - chunk_start, spans, units)?;
            if found > 0 && self.len - chunk_start >= self.enough_bytes {
                return Ok(Some(ScanEnd::at(line_end)));
            }
            after = bytes.first().copied();
            chunk_end = chunk_start;
        }
        // The first line: its terminator is known now, since nothing comes before it.
        if let Some(max) = self.over_limit(line_end, terminator.before(None).most()) {
            return self.at_long_line(line_end, max);
        }
        Ok(Some(ScanEnd::at(0)))
    }

    /// The limit, if a line of `bytes` with a terminator of `terminator` bytes is longer than
    /// it: its length as the framer counts it, without the terminator.
    fn over_limit(&self, bytes: u64, terminator: u64) -> Option<usize> {
        self.max_line_length
            .filter(|&max| bytes.saturating_sub(terminator) > max as u64)
    }

    /// Where a scan that met a line longer than `max` ends: failing with
    /// [`ReadError::LineTooLong`], or, for a scan that a long line ends, at `line_end`, where
    /// the line after it starts, with that error.
    fn at_long_line(&self, line_end: u64, max: usize) -> Result<Option<ScanEnd>, ReadError> {
        let err = ReadError::LineTooLong {
            max_line_length: max,
        };
        if !self.long_line_ends_scan {
            return Err(err);
        }
        Ok(Some(ScanEnd {
            start: line_end,
            long_line: Some(err),
        }))
    }

    /// Fails if the line being scanned is sure to be too long for a string: `part` is what was
    /// read of it now (the chunk's bytes up to its end), `line_bytes` its length so far, and
    /// `spans` whether it goes on past the chunk, with `units` counted of it before. Gives what
    /// is counted of it now: nothing while its bytes are within the limit (a byte is at most a
    /// unit), and from there on at least its units since.
    fn check_string(
        &self,
        part: &[u8],
        line_bytes: u64,
        spans: bool,
        units: usize,
    ) -> Result<usize, ReadError> {
        let Some((max, encoding)) = self.string_limit else {
            return Ok(0);
        };
        if line_bytes <= max as u64 {
            return Ok(0);
        }
        let units = if spans { units } else { 0 } + units_at_least(part, encoding);
        if units > max {
            return Err(ReadError::StringTooLong {
                max_string_length: max,
            });
        }
        Ok(units)
    }
}

/// Where a backward [`Scan`] stopped: where the lines it found start.
#[derive(Debug, PartialEq)]
struct ScanEnd {
    start: u64,
    /// A line longer than the limit, which ends at `start`, stopped the scan: the error the
    /// lines it found fail with if they are not enough.
    long_line: Option<ReadError>,
}

impl ScanEnd {
    fn at(start: u64) -> Self {
        ScanEnd {
            start,
            long_line: None,
        }
    }
}

/// The terminator of the line a backward scan is in, as the framer counts it: `\r\n` two
/// bytes, `\n` or a lone `\r` one, none for a last line without one.
#[derive(Debug, Clone, Copy)]
enum Terminator {
    Known(u64),
    /// A `\n` that was the first byte of its chunk: a `\r` before it, the last byte of the
    /// chunk read next, makes it two bytes.
    NewlineAfter,
}

impl Terminator {
    /// The terminator of the line that ends at `bytes[..end]`.
    fn ending(bytes: &[u8], end: usize) -> Self {
        match end.checked_sub(1).map(|last| bytes[last]) {
            Some(b'\n') if end >= 2 => Terminator::Known(1 + u64::from(bytes[end - 2] == b'\r')),
            Some(b'\n') => Terminator::NewlineAfter,
            Some(b'\r') => Terminator::Known(1),
            _ => Terminator::Known(0),
        }
    }

    /// This terminator, with `byte` the one before the chunk it was found in (`None`: the
    /// file's start).
    fn before(self, byte: Option<u8>) -> Self {
        match self {
            Terminator::NewlineAfter => Terminator::Known(1 + u64::from(byte == Some(b'\r'))),
            known => known,
        }
    }

    /// Its length, or the most it may be.
    fn most(self) -> u64 {
        match self {
            Terminator::Known(len) => len,
            Terminator::NewlineAfter => 2,
        }
    }
}

/// Fills `buf` from `offset`, as many reads as it takes, and gives how many bytes it filled:
/// fewer when the file ends before (it shrank meanwhile, or holds less than its size said);
/// the rest reads as `\0`, which starts no line.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> Result<usize, OsError> {
    let mut filled = 0;
    while filled < buf.len() {
        match crate::read::read_at(file, &mut buf[filled..], offset + filled as u64) {
            Ok(0) => {
                buf[filled..].fill(0);
                break;
            }
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(OsError::new(&err, "read")),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Match;
    use crate::split::tests::reference_lines;

    /// Reads from `input`, counting the bytes read.
    struct SliceReads<'a> {
        input: &'a [u8],
        bytes_read: usize,
    }

    impl ReadBack for SliceReads<'_> {
        fn read_back(&mut self, offset: u64, len: usize) -> Result<&[u8], ReadError> {
            self.bytes_read += len;
            Ok(&self.input[offset as usize..offset as usize + len])
        }
    }

    /// Where a backward scan of `input` in reads of `chunk_size` finds its last `n` lines
    /// start, with `string_limit`; and how many bytes it read.
    fn scan(
        input: &[u8],
        n: u64,
        chunk_size: usize,
        string_limit: Option<(usize, Encoding)>,
    ) -> (Result<Option<u64>, ReadError>, usize) {
        let scan = Scan {
            n,
            len: input.len() as u64,
            enough_bytes: u64::MAX,
            chunk_size,
            max_line_length: None,
            long_line_ends_scan: false,
            string_limit,
            stopped: None,
        };
        let mut reads = SliceReads {
            input,
            bytes_read: 0,
        };
        let start = scan.run(&mut reads).map(|end| end.map(|end| end.start));
        (start, reads.bytes_read)
    }

    /// The last `n` lines from `input`, found backward in reads of `chunk_size`, which read
    /// no more than those lines and one chunk.
    fn last(input: &[u8], n: u64, chunk_size: usize) -> Vec<Vec<u8>> {
        let (start, bytes_read) = scan(input, n, chunk_size, None);
        let start = start.unwrap().unwrap() as usize;
        assert!(bytes_read <= input.len() - start + chunk_size);
        reference_lines(&input[start..])
    }

    /// A line longer than the engine's longest string fails the scan once that is sure, having
    /// read a bounded part of it: a sparse file's end, gigabytes of NULs, was held whole (6 GB
    /// for a 3 GiB line) before the string failed. Code units are counted as the encoding
    /// decodes: a line of more bytes than the limit may fit.
    #[test]
    fn a_line_too_long_for_a_string_fails_the_backward_scan() {
        let max = 100;
        let too_long = Err(ReadError::StringTooLong {
            max_string_length: max,
        });
        for chunk_size in [1, 7, 64, 1000] {
            let fits = [&b"a\n"[..], "\u{1f600}".repeat(50).as_bytes()].concat();
            let (start, _) = scan(&fits, 1, chunk_size, Some((max, Encoding::Utf8)));
            assert_eq!(
                start,
                Ok(Some(2)),
                "200 bytes, 100 units: reads of {chunk_size}"
            );
            for encoding in [Encoding::Utf8, Encoding::Latin1] {
                let endless = [&b"a\n"[..], &[0; 10_000]].concat();
                let (start, read) = scan(&endless, 1, chunk_size, Some((max, encoding)));
                assert_eq!(start, too_long, "{encoding:?}, reads of {chunk_size}");
                assert!(read <= 2 * (max + chunk_size), "{read} bytes read");
            }
        }
        // Three bytes a unit: sure to be too long once more than the limit is counted past
        // the limit's bytes.
        let wide = [&b"a\n"[..], "\u{4e2d}".repeat(1000).as_bytes()].concat();
        for chunk_size in [7, 64] {
            let (start, read) = scan(&wide, 1, chunk_size, Some((max, Encoding::Utf8)));
            assert_eq!(start, too_long, "reads of {chunk_size}");
            assert!(read <= 4 * (max + chunk_size), "{read} bytes read");
        }
    }

    /// A scan that is stopped gives `None` before its next read.
    #[test]
    fn a_stopped_scan_reads_no_more() {
        let input = [&b"a\n"[..], &[b'x'; 1000]].concat();
        let mut reads = SliceReads {
            input: &input,
            bytes_read: 0,
        };
        let scan = Scan {
            n: 1,
            len: input.len() as u64,
            enough_bytes: u64::MAX,
            chunk_size: 10,
            max_line_length: None,
            long_line_ends_scan: false,
            string_limit: None,
            stopped: Some(&|| true),
        };
        assert_eq!(scan.run(&mut reads), Ok(None));
        assert_eq!(reads.bytes_read, 0);
    }

    #[test]
    fn the_last_lines_are_the_reference_last_lines() {
        let inputs: &[&[u8]] = &[
            b"",
            b"\n",
            b"\r",
            b"\r\n",
            b"a",
            b"a\n",
            b"a\r\nb",
            b"a\rb\r",
            b"\n\n\r\r\n\r",
            b"one\ntwo\r\nthree\rfour\r\n\r\nfive",
            b"x\r\n\r\n\ry\n",
        ];
        for input in inputs {
            let all = reference_lines(input);
            for n in 0..=all.len() as u64 + 2 {
                let expected = all[all.len().saturating_sub(n as usize)..].to_vec();
                for chunk_size in 1..=input.len() + 1 {
                    assert_eq!(
                        last(input, n, chunk_size),
                        expected,
                        "{input:?}, last {n} in reads of {chunk_size}"
                    );
                }
            }
        }
    }

    /// The lines of `batches`' texts (one-byte text: the inputs are ASCII).
    fn lines_of(batches: &[Batch]) -> Vec<Vec<u8>> {
        batches
            .iter()
            .flat_map(|batch| match &batch.text {
                crate::decode::Text::OneByte(bytes) => bytes.split(|&byte| byte == b'\n'),
                other => panic!("ASCII, one byte a character: {other:?}"),
            })
            .map(<[u8]>::to_vec)
            .collect()
    }

    /// With a filter, the last lines kept are those of the reference kept, whatever the
    /// reads, read back in pieces of about a read.
    #[test]
    fn the_last_kept_lines_are_the_reference_last_kept_lines() {
        let path = std::env::temp_dir().join(format!("fastlines-kept-{}", std::process::id()));
        let inputs: &[&[u8]] = &[
            b"",
            b"x",
            b"ax\nb\r\nxc\rd\nx",
            b"x\r\n\r\n\rxy\n\n",
            b"one x\ntwo\r\nthree x\rfour\r\n\r\nfive x",
            b"long line without the string\r\nx\rlonger line with x at its end x",
        ];
        let what = Match {
            strings: vec!["x".to_string()],
            ignore_case: false,
            invert: false,
        };
        for input in inputs {
            std::fs::write(&path, input).expect("write");
            let file = File::open(&path).expect("open");
            let kept: Vec<Vec<u8>> = reference_lines(input)
                .into_iter()
                .filter(|line| line.contains(&b'x'))
                .collect();
            for n in 0..=kept.len() as u64 + 1 {
                let expected = &kept[kept.len().saturating_sub(n as usize)..];
                for chunk_size in 1..=input.len() + 1 {
                    let framer =
                        LineFramer::new(crate::decode::Encoding::Utf8).with_match(Some(&what));
                    let (batches, end) =
                        last_batches(&file, n, input.len() as u64, chunk_size, framer, None)
                            .expect("read")
                            .expect("not cancelled");
                    let lines = lines_of(&batches);
                    let what = format!("{input:?}, last {n} kept, reads of {chunk_size}");
                    assert!(lines.ends_with(expected), "{what}: {lines:?}");
                    assert_eq!(end, input.len() as u64, "{what}");
                }
            }
        }
        std::fs::remove_file(&path).expect("clean up");
    }

    /// A follower's `lastLines` with a filter starts at the first of the last `n` kept lines,
    /// found back through pieces while holding one piece's kept lines, however many it keeps.
    #[test]
    fn the_last_kept_lines_start_is_found_holding_one_piece() {
        let path = std::env::temp_dir().join(format!("fastlines-start-{}", std::process::id()));
        let (mut input, mut kept_starts) = (Vec::new(), Vec::new());
        for i in 0.. {
            if input.len() > 3 * PIECE_BYTES as usize + 500_000 {
                break;
            }
            if i % 3 == 0 {
                kept_starts.push(input.len() as u64);
                input.extend_from_slice(format!("x line {i}\n").as_bytes());
            } else {
                input.extend_from_slice(format!("line {i}\n").as_bytes());
            }
        }
        std::fs::write(&path, &input).expect("write");
        let file = File::open(&path).expect("open");
        let what = Match {
            strings: vec!["x".to_string()],
            ignore_case: false,
            invert: false,
        };
        let framer = LineFramer::new(crate::decode::Encoding::Utf8).with_match(Some(&what));
        let (len, all) = (input.len() as u64, kept_starts.len() as u64);
        for n in [1, 10, all / 3, all - 1, all, all + 5] {
            let expected = all
                .checked_sub(n)
                .map_or(0, |first| kept_starts[first as usize]);
            let start = start_of_last_lines(&file, n, len, 64 * 1024, &framer, &never);
            assert_eq!(start.expect("read"), expected, "the last {n} of {all}");
        }
        let mut pieces = Pieces {
            file: &file,
            len,
            chunk_size: 64 * 1024,
            framer,
            stopped: None,
        };
        let held = |pieces: &mut Pieces, held| {
            let kept = pieces
                .kept_back_to(all, held)
                .expect("read")
                .expect("not stopped");
            (kept.pieces.len(), kept.count)
        };
        assert_eq!(held(&mut pieces, Held::Every), (4, all));
        assert_eq!(held(&mut pieces, Held::Earliest), (1, all));
        std::fs::remove_file(&path).expect("clean up");
    }

    /// With `maxLineLength`, the last lines fail exactly when a line from the first of them (the
    /// first of the last `n` kept, with a filter) to the end is longer than the limit, whatever
    /// the reads and however far back a longer line lies: a filter's pieces failed at any line
    /// they framed, so a longer line 700 KB before the last match failed and 7 MB before did
    /// not.
    #[test]
    fn the_last_lines_fail_only_at_a_line_among_them_longer_than_the_limit() {
        let mut seed = 0x2545_f491_u64;
        let mut random = |below: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % below
        };
        let what = Match {
            strings: vec!["x".to_string()],
            ignore_case: false,
            invert: false,
        };
        for _ in 0..300 {
            let len = random(40) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| [b'a', b'x', b'\n', b'\r'][random(4) as usize])
                .collect();
            let file = crate::test_files::file_of(&input);
            let lines = reference_lines(&input);
            for filter in [None, Some(&what)] {
                let kept: Vec<usize> = (0..lines.len())
                    .filter(|&i| filter.is_none() || lines[i].contains(&b'x'))
                    .collect();
                for n in 0..4_usize {
                    // The lines looked at: from the first of the last n kept to the end.
                    let first = match kept.len().checked_sub(n) {
                        _ if n == 0 => lines.len(),
                        Some(from) => kept[from],
                        None => 0,
                    };
                    let longest = lines[first..].iter().map(Vec::len).max().unwrap_or(0);
                    for max in 0..5 {
                        for chunk_size in [1, 2, 3, 7, 64] {
                            let framer = LineFramer::new(Encoding::Latin1)
                                .with_match(filter)
                                .with_max_line_length(Some(max));
                            let got = last_batches(
                                &file,
                                n as u64,
                                input.len() as u64,
                                chunk_size,
                                framer,
                                None,
                            );
                            let what = format!(
                                "{:?}, last {n}, filter {}, max {max}, reads of {chunk_size}",
                                String::from_utf8_lossy(&input),
                                filter.is_some()
                            );
                            match got {
                                Err(ReadError::LineTooLong { .. }) => {
                                    assert!(longest > max, "{what}: failed")
                                }
                                Ok(Some((batches, _))) => {
                                    assert!(longest <= max, "{what}: did not fail");
                                    let wanted: Vec<Vec<u8>> = kept[kept.len().saturating_sub(n)..]
                                        .iter()
                                        .map(|&i| lines[i].clone())
                                        .collect();
                                    let got = lines_of(&batches);
                                    assert!(got.ends_with(&wanted), "{what}: {got:?}");
                                }
                                other => panic!("{what}: {other:?}"),
                            }
                        }
                    }
                }
            }
        }
    }

    /// A cancel that comes while a piece's lines are framed, after its backward scan, stops
    /// the framing at its next read. The stop is asked once per read: the scan reads the file
    /// (a long line between two short ones) back once at most, so the stop is made to come a
    /// few reads past that many, inside the framing, which reads the long line again.
    #[test]
    fn a_cancel_stops_the_framing_of_a_piece() {
        let input = [&b"first\n"[..], &[b'x'; 4096], b"\nlast\n"].concat();
        let file = crate::test_files::file_of(&input);
        let (len, chunk_size) = (input.len() as u64, 16);
        let stop_at = (input.len() / chunk_size + 1) as u32 + 20;
        for filter in [None, Some(&["zz".to_string()])] {
            let framer = || {
                let what = filter.map(|strings| Match {
                    strings: strings.to_vec(),
                    ignore_case: false,
                    invert: false,
                });
                LineFramer::new(Encoding::Latin1).with_match(what.as_ref())
            };
            let asked = std::cell::Cell::new(0_u32);
            let counting = || {
                asked.set(asked.get() + 1);
                false
            };
            let run = last_batches(&file, 2, len, chunk_size, framer(), Some(&counting));
            assert!(matches!(run, Ok(Some(_))), "{run:?}");
            assert!(
                asked.get() > stop_at + 20,
                "filter {filter:?}: asked {} times in all",
                asked.get()
            );
            asked.set(0);
            let stopping = || {
                asked.set(asked.get() + 1);
                asked.get() >= stop_at
            };
            let run = last_batches(&file, 2, len, chunk_size, framer(), Some(&stopping));
            assert_eq!(run, Ok(None), "filter {filter:?}");
        }
    }

    /// A file that holds less than the length it is read to (its size said more, as a sysfs
    /// file's does, or it shrank after it was measured): its last lines are those of what it
    /// holds, and where they end is its real end, not a line of `\0`s up to the length.
    #[test]
    fn a_file_shorter_than_its_length_said_gives_its_real_last_lines() {
        let path = std::env::temp_dir().join(format!("fastlines-last-{}", std::process::id()));
        std::fs::write(&path, "one\ntwo\nthree\n").expect("write");
        let file = File::open(&path).expect("open");
        for chunk_size in [1, 4, 64] {
            for said in [15, 16, 100, 4096] {
                let framer = LineFramer::new(crate::decode::Encoding::Utf8);
                let (batches, end) = last_batches(&file, 2, said, chunk_size, framer, None)
                    .expect("read")
                    .expect("not cancelled");
                let lines = lines_of(&batches);
                let expected = vec![b"two".to_vec(), b"three".to_vec()];
                assert_eq!(
                    (lines, end),
                    (expected, 14),
                    "{said} said, reads of {chunk_size}"
                );
            }
        }
        std::fs::remove_file(&path).expect("clean up");
    }
}
