//! Reading a regular file's lines in parts on two threads, handed out in order.
//!
//! A search's reader spends its reading thread on every byte of the file (the kernel's copy,
//! the search, numbering the lines between matches) and hands JS only the lines it keeps, so
//! that thread, not JS, is its bound. [`InParts`] cuts the file's range into line-aligned parts
//! of about [`PART_BYTES`] ([`Share`]s of it, so that they meet exactly): while the reader frames
//! one part on its own thread, as it hands its items out, a helper on the blocking pool frames
//! the next one whole, and its items wait, renumbered later, until the part before is out.
//!
//! Only the part right after one framed here is framed ahead, and the stream's channel holds two
//! parts' worth of reads ([`read_ahead`]): at most three parts' kept lines wait in memory
//! (12 MiB when every line matches, against 1 MiB read whole). A helper only frames; it never waits for the
//! consumer, so a slow consumer holds no second thread, and the process-wide [`Helpers`]
//! allowance keeps readers and counts together from keeping more threads busy than there are
//! cores (a reader that finds none free frames every part itself).

use std::collections::VecDeque;
use std::fs::File;
use std::ops::{Deref, Range};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

use crate::buffer::{read_ahead_chunks, ReadBuf};
use crate::error::{OsError, ReadError};
use crate::frame::Framer;
use crate::helpers::Helpers;
use crate::reader::{Progress, Reader};
use crate::share::{FileRange, Reach, Share};
use crate::source::Source;

/// About how many bytes of the file one part holds: a search frames 4 MiB of logs-1g in about
/// 1.3 ms, a hundred times what handing a helper a part costs, and a part's kept lines are what
/// may wait in memory.
pub(crate) const PART_BYTES: u64 = 4 * 1024 * 1024;

/// How many reads of `chunk_size` a stream of a path holds ahead of its consumer: with a framer
/// that reads in parts, two parts' worth (2 to 64), else
/// [`READ_AHEAD_BYTES`](crate::buffer::READ_AHEAD_BYTES)' worth. A search's items hold only the
/// lines it kept, so that is at most two parts' bytes, when every line matches. With 1 MiB's
/// worth, the reader, which frames its own part as it hands it out, waited for the consumer long
/// before it had framed it, while the helper had long framed the next: on logs-1g, the batches
/// for `ERROR` (12% of the lines) took 382-422 ms in parts, no faster than read whole
/// (335-369 ms); with a part's worth, 297-330 ms (6 runs of each, in turn). Two parts' worth took
/// them from 245-287 ms to 224-259 ms, per line from 263-355 to 258-300 ms and three strings'
/// batches from 411-484 to 408-439 ms (5 runs of each, in turn; on Bun 237-263 to 235-276,
/// 265-304 to 248-310).
pub(crate) fn read_ahead<F: Framer>(framer: &F, chunk_size: usize) -> usize {
    if framer.for_part().is_none() {
        return read_ahead_chunks(chunk_size);
    }
    usize::try_from(2 * PART_BYTES / chunk_size.max(1) as u64)
        .unwrap_or(usize::MAX)
        .clamp(2, 64)
}

/// A range of fewer than this many parts' bytes is read whole: reading in parts starts a helper
/// per part, which pays only when there are parts enough to share.
const MIN_PARTS: u64 = 4;

/// The file the parts are read from, shared by the reader and a helper. Fields drop in order:
/// the stream is told its file is closed (`_closed` dropped) only after the file is, once
/// neither of them holds it.
#[derive(Debug)]
struct SharedFile {
    file: File,
    _closed: oneshot::Sender<()>,
}

/// A handle to the shared file, through which a part is read at offsets ([`FileRange`]).
#[derive(Debug, Clone)]
struct PartFile(Arc<SharedFile>);

impl Deref for PartFile {
    type Target = File;

    fn deref(&self) -> &File {
        &self.0.file
    }
}

type PartReader<F> = Reader<F, FileRange<PartFile>>;

/// How the range is cut, which the reader and its helpers share.
#[derive(Debug, Clone)]
struct Cut {
    file: PartFile,
    /// The bytes cut into parts, as the file stood when reading began; `within.start` starts a
    /// line.
    within: Range<u64>,
    parts: u64,
    /// The last part reads on to the end of the file, as a reader of a file without `end` does,
    /// rather than stopping where the file ended when it was cut.
    to_end: bool,
    /// The part whose lines reach `within.end` reads on to the end of its last line: the
    /// range is a share's, cut where the file ended (see [`Source::finishing_line`]).
    finish_line: bool,
    /// The longest line the framers take ([`Framer::longest_line`]): a part's end is looked
    /// for no further (see [`Share::range`]).
    longest_line: Option<usize>,
    chunk_size: usize,
}

impl Cut {
    /// Part `index`'s share of `within`.
    fn share(&self, index: u64) -> Share {
        Share::new(index, self.parts).expect("a part's index is below their count")
    }

    /// The bytes of `share`: the lines that start in it (or, once `stopped` says so, whatever
    /// is left: see [`Share::range`]).
    fn range(&self, share: &Share, stopped: &dyn Fn() -> bool) -> Result<Range<u64>, ReadError> {
        let range = share
            .range(
                &self.file,
                self.within.clone(),
                Reach::until(stopped)
                    .within_longest_line(self.longest_line)
                    .bounding_start(),
            )
            .map_err(|err| OsError::new(&err, "read"))?;
        if !self.to_end {
            return Ok(range);
        }
        // Read on to the file's end, the end it had when it was cut is no line's end: a line
        // may have been being written there (its rest, or the `\n` of a `\r\n`, came after).
        // So the part whose lines reach it reads on to the file's end, and one that would start
        // there is empty: a line is never cut where the file ended.
        let end = self.within.end;
        Ok(if range.start >= end {
            end..end
        } else if range.end >= end {
            range.start..u64::MAX
        } else {
            range
        })
    }

    /// A reader of part `index` that frames with `framer`, reads into `buf` (a buffer sharing
    /// the parts' pool) and counts what it reads into `progress`, the stream's.
    fn reader<F: Framer>(
        &self,
        index: u64,
        framer: F,
        buf: ReadBuf,
        progress: Progress,
        stopped: &dyn Fn() -> bool,
    ) -> Result<PartReader<F>, ReadError> {
        let share = self.share(index);
        let range = self.range(&share, stopped)?;
        let source = Source::of_share(
            share,
            self.file.clone(),
            range,
            &self.within,
            self.finish_line,
            self.chunk_size,
        )
        .map_err(|err| OsError::new(&err, "read"))?;
        Ok(Reader::with_buffer(source, framer, progress, buf))
    }
}

/// A part's items, framed whole by a helper, and what follows from framing it.
#[derive(Debug)]
struct Framed<T> {
    items: VecDeque<T>,
    /// The lines of the input in the part: the numbers of the parts after it start after them.
    lines: u64,
    /// Why framing stopped, after `items`; `None` when the part was framed to its end.
    failed: Option<ReadError>,
    /// The file ended before the part did: it was cut short after the parts were cut.
    ended_early: bool,
}

/// The part whose items are handed out now.
enum Part<F: Framer> {
    /// Framed here, as it is read.
    Here(PartReader<F>),
    /// Framed ahead by a helper: handed out from memory.
    Framed(Framed<F::Item>),
}

/// Where the part framed ahead stands, as its helper and the reader see it.
enum Ahead<T> {
    /// Waiting for a thread of the pool.
    Queued,
    /// A helper frames it: the reader that comes to it waits.
    Framing,
    Done(Framed<T>),
    /// The reader came to the part before a thread did, and frames it itself: the helper, when
    /// it runs, does nothing.
    Claimed,
}

/// The part framed ahead, with its helper's state and the condition the reader waits on for
/// it.
struct AheadPart<T> {
    index: u64,
    state: Arc<(Mutex<Ahead<T>>, Condvar)>,
}

fn locked<T>(state: &Mutex<T>) -> MutexGuard<'_, T> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> AheadPart<T> {
    /// The part's items once its helper has framed them (waiting while it frames), or `None`
    /// if no thread has taken it up yet: then it is the reader's to frame, and the helper
    /// will do nothing.
    fn claim(self) -> Option<Framed<T>> {
        let (state, framed) = &*self.state;
        let mut state = locked(state);
        loop {
            match std::mem::replace(&mut *state, Ahead::Claimed) {
                Ahead::Done(done) => return Some(done),
                Ahead::Queued | Ahead::Claimed => return None,
                Ahead::Framing => {
                    *state = Ahead::Framing;
                    state = framed.wait(state).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
    }
}

/// Frames a part whole on a thread of the blocking pool, with the reader `reader_of` makes,
/// unless the stream's reader claimed the part first; `helpers` is given back when it is done.
fn frame_ahead<F: Framer>(
    reader_of: impl FnOnce(&dyn Fn() -> bool) -> Result<PartReader<F>, ReadError>,
    state: &(Mutex<Ahead<F::Item>>, Condvar),
    dropped: &AtomicBool,
    helpers: Helpers,
) {
    {
        let mut state = locked(&state.0);
        if matches!(*state, Ahead::Claimed) {
            return;
        }
        *state = Ahead::Framing;
    }
    // The reader, and with it this thread's handle to the file, is gone once the part is
    // framed: only the stream's reader may still hold the file, so closing the stream closes it.
    let stopped = || dropped.load(Ordering::Relaxed);
    let framed = catch_unwind(AssertUnwindSafe(|| {
        frame_whole(reader_of(&stopped), dropped)
    }))
    .unwrap_or_else(|_| Framed {
        items: VecDeque::new(),
        lines: 0,
        failed: Some(ReadError::Panicked),
        ended_early: false,
    });
    drop(helpers);
    *locked(&state.0) = Ahead::Done(framed);
    state.1.notify_all();
}

/// Every item `reader` frames, until its part ends, it fails, or the stream's reader is
/// dropped (checked between reads).
fn frame_whole<F: Framer>(
    reader: Result<PartReader<F>, ReadError>,
    dropped: &AtomicBool,
) -> Framed<F::Item> {
    let mut framed = Framed {
        items: VecDeque::new(),
        lines: 0,
        failed: None,
        ended_early: false,
    };
    let mut reader = match reader {
        Ok(reader) => reader,
        Err(err) => {
            framed.failed = Some(err);
            return framed;
        }
    };
    loop {
        match reader.next_unless(&|| dropped.load(Ordering::Relaxed)) {
            Ok(Some(item)) => framed.items.push_back(item),
            Ok(None) => {
                framed.ended_early = reader.input().ended_early();
                break;
            }
            Err(err) => {
                framed.failed = Some(err);
                break;
            }
        }
    }
    framed.lines = reader.framer_mut().lines_framed();
    framed
}

/// A regular file's reader that frames it in parts, the next one on a helper while this one is
/// read here (see the module's docs). Its items are those, and numbered as, a [`Reader`] of the
/// whole range gives.
pub(crate) struct InParts<F: Framer> {
    cut: Cut,
    /// The next part to begin.
    next: u64,
    /// The part being handed out; `None` between parts.
    part: Option<Part<F>>,
    /// The part after the one being framed here, framed by a helper.
    ahead: Option<AheadPart<F::Item>>,
    /// The lines of the input in the parts before the one being handed out.
    lines_before: u64,
    /// Frames nothing itself: each part is framed by a framer it gives ([`Framer::for_part`]).
    template: F,
    /// Reads nothing itself: each part's reader, here or on a helper, reads into a buffer that
    /// shares its pool, so that they reuse the same few buffers.
    buffers: ReadBuf,
    progress: Progress,
    /// Set once this reader is dropped, or ends at a cut: a helper still framing stops at its
    /// next read.
    dropped: Arc<AtomicBool>,
    /// Parts handed out as a helper framed them, for the tests to see that helpers framed some.
    #[cfg(test)]
    framed_ahead: usize,
}

impl<F> InParts<F>
where
    F: Framer + Send + 'static,
    F::Item: Send + 'static,
{
    /// The bytes of `source` to read in parts with `framer`, if that pays: a regular file (see
    /// [`Source::cut_range`]) of at least [`MIN_PARTS`] parts, with a framer that frames parts
    /// ([`Framer::for_part`]).
    pub(crate) fn range_to_cut(source: &Source, framer: &F) -> Option<Range<u64>> {
        let range = source.cut_range().ok().flatten()?;
        let enough = range.end - range.start >= MIN_PARTS * PART_BYTES;
        (enough && framer.for_part().is_some()).then_some(range)
    }

    /// Reads `within` of `source` (see [`Self::range_to_cut`]) in parts, counting what it reads
    /// into `progress`; `closed` is dropped once the file is closed.
    pub(crate) fn new(
        source: Source,
        within: Range<u64>,
        framer: F,
        progress: Progress,
        closed: oneshot::Sender<()>,
    ) -> Self {
        Self::with_part_bytes(source, within, framer, progress, closed, PART_BYTES)
    }

    /// [`Self::new`], with parts of about `part_bytes`.
    fn with_part_bytes(
        source: Source,
        within: Range<u64>,
        framer: F,
        progress: Progress,
        closed: oneshot::Sender<()>,
        part_bytes: u64,
    ) -> Self {
        let parts = ((within.end - within.start) / part_bytes.max(1)).max(1);
        let buffers = ReadBuf::new(source.chunk_size);
        let cut = Cut {
            within,
            parts,
            to_end: source.remaining.is_none(),
            finish_line: source.finish_line,
            longest_line: framer.longest_line(),
            chunk_size: source.chunk_size,
            file: PartFile(Arc::new(SharedFile {
                file: source.input,
                _closed: closed,
            })),
        };
        InParts {
            cut,
            next: 0,
            part: None,
            ahead: None,
            lines_before: 0,
            template: framer,
            buffers,
            progress,
            dropped: Arc::new(AtomicBool::new(false)),
            #[cfg(test)]
            framed_ahead: 0,
        }
    }

    /// The next item; `None` at the end of the range, or once `stopped` says so (checked
    /// between reads, and between parts).
    pub(crate) fn next_unless(
        &mut self,
        stopped: &dyn Fn() -> bool,
    ) -> Result<Option<F::Item>, ReadError> {
        loop {
            let Some(part) = &mut self.part else {
                if self.next == self.cut.parts || stopped() {
                    return Ok(None);
                }
                self.part = Some(self.begin_next(stopped)?);
                continue;
            };
            match part {
                Part::Here(reader) => match reader.next_unless(stopped)? {
                    Some(item) => return Ok(Some(F::after_lines(item, self.lines_before))),
                    None if stopped() => return Ok(None),
                    None => {
                        self.lines_before += reader.framer_mut().lines_framed();
                        if reader.input().ended_early() {
                            self.end_at_cut();
                        }
                    }
                },
                Part::Framed(framed) => match framed.items.pop_front() {
                    Some(item) => return Ok(Some(F::after_lines(item, self.lines_before))),
                    None => {
                        if let Some(err) = framed.failed.take() {
                            return Err(err);
                        }
                        self.lines_before += framed.lines;
                        if framed.ended_early {
                            self.end_at_cut();
                        }
                    }
                },
            }
            self.part = None;
        }
    }

    /// Begins the next part: the one framed ahead, if a helper framed it; else it is framed
    /// here, and the one after it ahead.
    fn begin_next(&mut self, stopped: &dyn Fn() -> bool) -> Result<Part<F>, ReadError> {
        let index = self.next;
        self.next += 1;
        let ahead = self.ahead.take();
        debug_assert!(ahead.as_ref().is_none_or(|ahead| ahead.index == index));
        if let Some(framed) = ahead.and_then(AheadPart::claim) {
            #[cfg(test)]
            {
                self.framed_ahead += 1;
            }
            return Ok(Part::Framed(framed));
        }
        self.frame_ahead(index + 1);
        let buf = self.buffers.sharing_pool();
        let reader = self.cut.reader(
            index,
            self.part_framer(),
            buf,
            self.progress.clone(),
            stopped,
        )?;
        Ok(Part::Here(reader))
    }

    /// Hands out no later part: the file ended inside the part just handed out, so it was cut
    /// short (truncated) after the parts were cut, and a part a helper framed ahead was read
    /// before that. As one pass does, reading ends at the cut: the lines between it and such a
    /// part were lost to the cut, and that part's lines, numbered after the cut, would not be
    /// the lines those numbers name.
    fn end_at_cut(&mut self) {
        self.next = self.cut.parts;
        self.ahead = None;
        self.dropped.store(true, Ordering::Relaxed);
    }

    /// Has a helper frame part `index`, if there is one and a helper is free.
    fn frame_ahead(&mut self, index: u64) {
        if index >= self.cut.parts {
            return;
        }
        let helpers = Helpers::take(1);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if helpers.count() == 0 {
            return;
        }
        let state = Arc::new((Mutex::new(Ahead::Queued), Condvar::new()));
        let (cut, framer, progress) = (self.cut.clone(), self.part_framer(), self.progress.clone());
        let buf = self.buffers.sharing_pool();
        let reader_of =
            move |stopped: &dyn Fn() -> bool| cut.reader(index, framer, buf, progress, stopped);
        let (shared, dropped) = (Arc::clone(&state), Arc::clone(&self.dropped));
        // Not awaited: the reader learns the outcome from `state`. If the runtime is shutting
        // down, the job is dropped unrun, and the part stays queued for the reader to frame.
        drop(runtime.spawn_blocking(move || {
            frame_ahead(reader_of, &shared, &dropped, helpers);
        }));
        self.ahead = Some(AheadPart { index, state });
    }

    /// A framer for one part.
    fn part_framer(&self) -> F {
        self.template
            .for_part()
            .expect("only a framer that frames parts reads in parts")
    }
}

impl<F: Framer> Drop for InParts<F> {
    /// Stops a helper still framing at its next read, and one not yet running before it starts.
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
        if let Some(ahead) = &self.ahead {
            let mut state = locked(&ahead.state.0);
            if matches!(*state, Ahead::Queued) {
                *state = Ahead::Claimed;
            }
        }
    }
}

impl<F: Framer> std::fmt::Debug for InParts<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InParts")
            .field("cut", &self.cut)
            .field("next", &self.next)
            .field("lines_before", &self.lines_before)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{Encoding, Text};
    use crate::filter::Match;
    use crate::frame::{Batch, LineFramer, LineLayout};
    use crate::split::tests::reference_lines;
    use crate::test_files::file_of;

    /// A kept line as a reader hands it out: its number, where it starts and ends (past its
    /// terminator) in the file, and its text.
    type Line = (u64, u64, u64, String);

    /// What a reader handed out, line by line, and how it ended (`None`: at the end).
    type Outcome = (Vec<Line>, Option<ReadError>);

    fn lines_of(batch: Batch) -> Vec<Line> {
        let text = match batch.text {
            Text::OneByte(bytes) | Text::Ascii { bytes, .. } => {
                String::from_utf8(bytes.to_vec()).expect("ASCII")
            }
            Text::Utf16(units) => String::from_utf16_lossy(&units),
        };
        let kept = batch.kept.expect("a filter's batch lists its lines");
        let LineLayout::Ends(ends) = batch.layout else {
            panic!("a filter's batch lists where its lines end");
        };
        let at = |offset: u64| batch.start + offset;
        text.split('\n')
            .zip(kept.numbers)
            .zip(kept.starts)
            .zip(ends.into_iter().chain([batch.end - batch.start]))
            .map(|(((line, number), start), end)| (number, at(start), at(end), line.to_owned()))
            .collect()
    }

    fn drain(mut next: impl FnMut() -> Result<Option<Batch>, ReadError>) -> Outcome {
        let mut lines = Vec::new();
        loop {
            match next() {
                Ok(Some(batch)) => lines.extend(lines_of(batch)),
                Ok(None) => return (lines, None),
                Err(err) => return (lines, Some(err)),
            }
        }
    }

    fn framer(needle: &str, max_line_length: Option<usize>) -> LineFramer {
        let what = Match {
            strings: vec![needle.to_owned()],
            ignore_case: false,
            invert: false,
        };
        LineFramer::new(Encoding::Utf8)
            .with_match(Some(&what))
            .with_max_line_length(max_line_length)
    }

    /// Reads of 64 bytes: many per part, and lines cut by reads.
    fn source_of(bytes: &[u8]) -> Source {
        Source::new(file_of(bytes), None, 64)
    }

    fn read_whole(bytes: &[u8], framer: LineFramer) -> Outcome {
        let mut reader = Reader::new(source_of(bytes), framer, Progress::default());
        drain(|| reader.next_blocking())
    }

    /// What [`InParts`] hands out, with parts of `part_bytes`, and how many parts a helper
    /// framed. On a runtime's blocking pool, as in a stream.
    fn read_in_parts(bytes: &[u8], framer: LineFramer, part_bytes: u64) -> (Outcome, usize) {
        let runtime = runtime();
        let _entered = runtime.enter();
        let (mut parts, _) = in_parts(source_of(bytes), framer, part_bytes);
        let outcome = drain(|| parts.next_unless(&|| false));
        if outcome.1.is_none() {
            let read = parts.progress.bytes();
            assert_eq!(read, bytes.len() as u64, "every byte read once");
        }
        (outcome, parts.framed_ahead)
    }

    /// A runtime for the helpers to run on, on its blocking pool, as a stream's do.
    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap()
    }

    /// `source` read in parts of `part_bytes`, and where its file's closing is heard.
    fn in_parts(
        source: Source,
        framer: LineFramer,
        part_bytes: u64,
    ) -> (InParts<LineFramer>, oneshot::Receiver<()>) {
        let (closed, file_closed) = oneshot::channel();
        let progress = Progress::default();
        let within = source.cut_range().unwrap().expect("a regular file");
        let parts = InParts::with_part_bytes(source, within, framer, progress, closed, part_bytes);
        (parts, file_closed)
    }

    /// Seeded lines with every terminator, lines longer than a part, and the needle `ab` in
    /// some of them; the last one terminated or not.
    fn seeded_input(seed: u64) -> Vec<u8> {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % below
        };
        let mut bytes = Vec::new();
        for _ in 0..next(400) + 50 {
            let len = if next(20) == 0 {
                300 + next(300)
            } else {
                next(30)
            };
            for _ in 0..len {
                let piece: &[u8] = match next(12) {
                    0 => b"ab",
                    1 => "\u{e9}".as_bytes(),
                    2 => b"a",
                    3 => b"b",
                    _ => b"x",
                };
                bytes.extend_from_slice(piece);
            }
            bytes.extend_from_slice(match next(6) {
                0 => b"\r\n",
                1 => b"\r",
                _ => b"\n",
            });
        }
        if next(2) == 0 {
            bytes.pop();
        }
        bytes
    }

    #[test]
    fn parts_hand_out_the_lines_numbers_and_offsets_of_one_pass() {
        let mut framed_ahead = 0;
        for seed in 0..40 {
            let bytes = seeded_input(seed);
            let kept = reference_lines(&bytes)
                .iter()
                .filter(|line| line.windows(2).any(|pair| pair == b"ab"))
                .count();
            let whole = read_whole(&bytes, framer("ab", None));
            assert_eq!(
                whole.0.len(),
                kept,
                "seed {seed}: the reference keeps as many"
            );
            assert!(whole.1.is_none());
            for part_bytes in [37, 100, 256, 1000] {
                let (parts, ahead) = read_in_parts(&bytes, framer("ab", None), part_bytes);
                assert_eq!(parts, whole, "seed {seed}, parts of {part_bytes} bytes");
                framed_ahead += ahead;
            }
        }
        assert!(framed_ahead > 0, "helpers framed parts ahead");
    }

    #[test]
    fn an_overlong_line_in_a_later_part_fails_after_the_lines_before_it() {
        for seed in 0..20 {
            let bytes = seeded_input(seed);
            let whole = read_whole(&bytes, framer("ab", Some(200)));
            for part_bytes in [37, 256] {
                let (parts, _) = read_in_parts(&bytes, framer("ab", Some(200)), part_bytes);
                assert_eq!(parts, whole, "seed {seed}, parts of {part_bytes} bytes");
            }
        }
    }

    #[test]
    fn the_readers_of_the_parts_share_a_few_buffers() {
        let runtime = runtime();
        let _entered = runtime.enter();
        let bytes: Vec<u8> = (0..4000).flat_map(|_| *b"ab cd\n").collect();
        let (mut parts, _) = in_parts(source_of(&bytes), framer("ab", None), 256);
        let (lines, failed) = drain(|| parts.next_unless(&|| false));
        assert_eq!((lines.len(), failed), (4000, None));
        assert!(parts.cut.parts >= 90, "{} parts", parts.cut.parts);
        let allocated = parts.buffers.allocated();
        assert!(
            (1..=6).contains(&allocated),
            "{allocated} buffers allocated"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_that_grows_while_it_is_read_in_parts_is_read_to_its_end() {
        use std::os::unix::fs::FileExt;
        let runtime = runtime();
        let _entered = runtime.enter();
        let bytes = seeded_input(7);
        let file = file_of(&bytes);
        let appender = file.try_clone().unwrap();
        let (mut parts, _) = in_parts(Source::new(file, None, 64), framer("ab", None), 100);
        let first = parts.next_unless(&|| false).unwrap();
        let appended = b"more ab\nand the last ab";
        appender.write_all_at(appended, bytes.len() as u64).unwrap();
        let mut got = first.map(lines_of).unwrap_or_default();
        got.extend(drain(|| parts.next_unless(&|| false)).0);
        let grown = [&bytes[..], appended].concat();
        assert_eq!(got, read_whole(&grown, framer("ab", None)).0);
        assert_eq!(
            got.last().map(|line| line.3.as_str()),
            Some("and the last ab")
        );
    }

    /// The file's end when it was cut was inside a line still being written: a line longer than
    /// a part, a short one, or a `\r\n` whose `\n` came after. The line is read whole, as one
    /// pass over the grown file reads it, not cut in two (nor a `\r\n` into a line and an empty
    /// one) where the file ended.
    #[cfg(unix)]
    #[test]
    fn a_line_being_written_where_the_file_ended_when_cut_is_read_whole() {
        use std::os::unix::fs::FileExt;
        let runtime = runtime();
        let _entered = runtime.enter();
        let every_line = || {
            let nowhere = Match {
                strings: vec!["zz".to_owned()],
                ignore_case: false,
                invert: true,
            };
            LineFramer::new(Encoding::Utf8).with_match(Some(&nowhere))
        };
        let lines: Vec<u8> = (0..200).flat_map(|_| *b"ab cd\n").collect();
        let long = "L".repeat(700);
        let endings: [(&str, &str); 4] = [
            (&long, "END\nnext\n"),
            ("short", " line\nnext\n"),
            ("cr", "\nnext\n"),
            ("whole\n", "next\n"),
        ];
        for (cut_at, rest) in endings {
            let cut_at = if cut_at == "cr" { "two\r" } else { cut_at };
            for framer in [every_line as fn() -> LineFramer, || framer("ab", None)] {
                let bytes = [&lines[..], cut_at.as_bytes()].concat();
                let file = file_of(&bytes);
                let appender = file.try_clone().unwrap();
                let (mut parts, _) = in_parts(Source::new(file, None, 64), framer(), 256);
                let first = parts.next_unless(&|| false).unwrap();
                appender
                    .write_all_at(rest.as_bytes(), bytes.len() as u64)
                    .unwrap();
                let mut got = first.map(lines_of).unwrap_or_default();
                got.extend(drain(|| parts.next_unless(&|| false)).0);
                let grown = [&bytes[..], rest.as_bytes()].concat();
                let what = format!("{:?} then {rest:?}", &cut_at[..cut_at.len().min(8)]);
                assert_eq!(got, read_whole(&grown, framer()).0, "{what}");
            }
        }
    }

    /// A file truncated inside the part being read, after a helper framed the next part whole:
    /// reading ends at the cut, as one pass ends there, rather than go on with that part's lines
    /// (read before the cut, past lines the cut lost, and numbered as if they followed it).
    #[cfg(unix)]
    #[test]
    fn a_file_cut_short_while_read_in_parts_ends_at_the_cut() {
        let runtime = runtime();
        let _entered = runtime.enter();
        let bytes: Vec<u8> = (0..200)
            .flat_map(|i| format!("ab {i:04}\n").into_bytes())
            .collect();
        // Helpers are shared by the tests running at once: try until one is free.
        for attempt in 0.. {
            let file = file_of(&bytes);
            let cutter = file.try_clone().unwrap();
            let (mut parts, _) = in_parts(Source::new(file, None, 64), framer("ab", None), 256);
            let first = parts.next_unless(&|| false).unwrap();
            let Some(ahead) = parts.ahead.as_ref().map(|ahead| Arc::clone(&ahead.state)) else {
                assert!(attempt < 1000, "no helper was free to frame a part ahead");
                continue;
            };
            let (state, framed) = &*ahead;
            drop(
                framed
                    .wait_while(locked(state), |state| !matches!(state, Ahead::Done(_)))
                    .unwrap(),
            );
            // Inside the first part, mid-line.
            cutter.set_len(100).unwrap();
            let mut got = first.map(lines_of).unwrap_or_default();
            got.extend(drain(|| parts.next_unless(&|| false)).0);
            assert_eq!(got, read_whole(&bytes[..100], framer("ab", None)).0);
            return;
        }
    }

    #[test]
    fn a_reader_dropped_mid_way_closes_its_file_once_no_helper_holds_it() {
        let runtime = runtime();
        let _entered = runtime.enter();
        let bytes: Vec<u8> = (0..20_000).flat_map(|_| *b"ab cd\n").collect();
        let (mut parts, file_closed) = in_parts(source_of(&bytes), framer("ab", None), 4096);
        for _ in 0..3 {
            assert!(parts.next_unless(&|| false).unwrap().is_some());
        }
        drop(parts);
        // Only an error can arrive: the sender is dropped with the file.
        assert!(runtime.block_on(file_closed).is_err());
    }
}
