//! Counting lines without making them: [`count_lines`] reads a file and counts the lines a line
//! reader would give, with no splitting into buffers, no decoding and no strings.

use std::fs::File;
use std::io::Read;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memchr::{memchr, memchr2_iter};
use tokio::io::AsyncRead;

use crate::buffer::ReadBuf;
use crate::decompress::Input;
use crate::error::{OsError, ReadError};
use crate::filter::LineFilter;
use crate::frame::Framer;
use crate::helpers::Helpers;
use crate::reader::{Progress, Reader};
use crate::share::{Reach, Share};
use crate::source::{open, ReadOptions, Source};
use crate::split::{count_newlines, LineSplitter};

/// Counts the lines `path` holds (with `options` applied, decompressed if they say so), or
/// those `filter` keeps, without decoding any of them; `None` once `cancelled` is set: it is
/// checked between reads, so a count of an endless device or a huge file stops and closes its
/// file soon after.
///
/// A regular file read as it is (not decompressed) is counted in parts as `threads` says, each
/// part a line-aligned [`Share`] of the range read at offsets, on threads of its own while
/// helper threads are free (`helpers.rs`): the sum is the one-pass count, since every line
/// starts in one part.
pub fn count_lines(
    path: &Path,
    options: &ReadOptions,
    filter: Option<&LineFilter>,
    threads: Threads,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    let stopped = || cancelled.load(Ordering::Relaxed);
    count_opened(
        open(path, options, Reach::until(&stopped))?,
        filter,
        threads,
        cancelled,
    )
}

/// [`count_lines`] of a file already opened (by [`open`]): a caller that counts a FIFO as its
/// bytes come, rather than in reads that hold a thread until the writer's next write, opens it
/// first to see which it is.
pub fn count_opened(
    source: Source,
    filter: Option<&LineFilter>,
    threads: Threads,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    match parts_of(&source, threads)? {
        Some((within, parts)) => count_in_parts(&source, within, parts, filter, cancelled),
        None => count_blocking(source, filter, cancelled),
    }
}

/// Into how many parts a count is cut (see [`count_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// One part per thread the machine runs at once, as long as each part holds at least
    /// [`MIN_PART_BYTES`]: below that, starting a thread costs more than it saves.
    Auto,
    /// This many parts, whatever the file's size (1: one pass).
    Parts(NonZeroUsize),
}

/// The smallest part [`Threads::Auto`] gives a thread: counting 8 MiB from the page cache takes
/// about 2 ms, some fifty times what starting a thread costs.
pub const MIN_PART_BYTES: u64 = 8 * 1024 * 1024;

/// The range to count in parts and how many, or `None` for one pass: a pipe, a device or a
/// decompressed file is read from its start to its end, and a small file gains nothing.
fn parts_of(source: &Source, threads: Threads) -> Result<Option<(Range<u64>, usize)>, ReadError> {
    let Some(within) = source
        .cut_range()
        .map_err(|err| OsError::new(&err, "fstat"))?
    else {
        return Ok(None);
    };
    let len = within.end - within.start;
    let parts = match threads {
        Threads::Parts(parts) => parts.get(),
        Threads::Auto => {
            let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
            usize::try_from(len / MIN_PART_BYTES).map_or(cores, |fit| fit.min(cores))
        }
    };
    Ok((parts > 1).then_some((within, parts)))
}

/// Counts `within` of `source`'s file in `parts` shares, taken in turn by this thread and the
/// helpers it gets; the first failure (by part) wins, and a cancel stops them all.
fn count_in_parts(
    source: &Source,
    within: Range<u64>,
    parts: usize,
    filter: Option<&LineFilter>,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    let file = &source.input;
    let next = AtomicUsize::new(0);
    let count_parts = || {
        let mut counted = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(share) = Share::new(index as u64, parts as u64) else {
                return counted; // every part is taken
            };
            let part = count_part(
                file,
                within.clone(),
                share,
                source.finish_line,
                source.chunk_size,
                filter,
                cancelled,
            );
            counted.push((index, part));
        }
    };
    let helpers = Helpers::take(parts - 1);
    let mut counted = std::thread::scope(|scope| {
        let started: Vec<_> = (0..helpers.count())
            .filter_map(|_| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, count_parts)
                    .ok()
            })
            .collect();
        let mut counted = count_parts();
        for helper in started {
            // A helper that panicked left its parts uncounted: the count fails as a panic does.
            counted.extend(helper.join().unwrap_or_default());
        }
        counted
    });
    drop(helpers);
    if counted.len() < parts {
        return Err(ReadError::Panicked);
    }
    counted.sort_by_key(|(index, _)| *index);
    let total = sum_to_the_cut(counted.into_iter().map(|(_, part)| part))?;
    // A part cut short by the cancel (see Share::range) may have counted nothing.
    if cancelled.load(Ordering::Relaxed) {
        return Ok(None);
    }
    Ok(total)
}

/// What a part counted (`None`: cancelled), and whether its file ended before the part did.
type PartCount = Result<(Option<u64>, bool), ReadError>;

/// Counts `share` of `within` of `file` (see [`count_in_parts`]); with `finish_line`, the part
/// whose lines reach `within.end` counts its last line whole, as the reader of a share reads it
/// (see [`Source::finishing_line`]): a filter may keep it or not by its rest.
fn count_part(
    file: &File,
    within: Range<u64>,
    share: Share,
    finish_line: bool,
    chunk_size: usize,
    filter: Option<&LineFilter>,
    cancelled: &AtomicBool,
) -> PartCount {
    let range = share
        .range(
            file,
            within.clone(),
            Reach::until(&|| cancelled.load(Ordering::Relaxed)).bounding_start(),
        )
        .map_err(|err| ReadError::from(OsError::new(&err, "read")))?;
    let mut source = Source::of_share(share, file, range, &within, finish_line, chunk_size)
        .map_err(|err| ReadError::from(OsError::new(&err, "read")))?;
    let lines = count_blocking(source.by_ref(), filter, cancelled)?;
    Ok((lines, source.input.ended_early()))
}

/// The sum of the parts' counts, in the file's order, up to and with the first part whose file
/// ended before it did: the file was truncated inside that part while it was counted, and one
/// pass would have ended there, at the cut. The parts after it are left out, though a helper
/// may have counted some of them before the cut; the first failure or cancel among the parts
/// summed is the count's.
fn sum_to_the_cut(parts: impl IntoIterator<Item = PartCount>) -> Result<Option<u64>, ReadError> {
    let mut total = 0;
    for part in parts {
        let (lines, ended_early) = part?;
        let Some(lines) = lines else {
            return Ok(None);
        };
        total += lines;
        if ended_early {
            break;
        }
    }
    Ok(Some(total))
}

/// Counts the lines `source` holds, or those `filter` keeps, with blocking reads; `None` once
/// `cancelled` is set (checked between reads).
///
/// Every line: no splitting into buffers, no decoding and no strings, only a `LineCounter`
/// over each read. Matching lines: lines are cut and searched in the read buffer, never
/// decoded, by a [`Reader`] whose items are counts.
pub fn count_blocking<I: Read>(
    source: Source<I>,
    filter: Option<&LineFilter>,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    let stopped = || cancelled.load(Ordering::Relaxed);
    if let Some(filter) = filter {
        let framer = MatchCounter {
            splitter: LineSplitter::default(),
            filter,
        };
        let mut reader = Reader::new(source, framer, Progress::default());
        let mut count = 0;
        while let Some(kept) = reader.next_unless(&stopped)? {
            count += kept;
        }
        return Ok((!stopped()).then_some(count));
    }
    let range = source.input.take(source.remaining.unwrap_or(u64::MAX));
    let mut input = Input::new(range, source.decompress);
    let mut chunk = vec![0; source.chunk_size];
    let mut counter = LineCounter::default();
    while !stopped() {
        let filled = input.read(&mut chunk);
        if filled.at_end() {
            return Ok(Some(counter.finish()));
        }
        counter.feed(&chunk[..filled.produced?]);
    }
    Ok(None)
}

/// Counts the lines `source` holds, or those `filter` keeps, as [`count_blocking`] does: for
/// inputs that signal readiness (a fed source, a pipe).
/// Dropping the future stops the count.
pub async fn count_lines_async<I: AsyncRead + Unpin>(
    source: Source<I>,
    filter: Option<&LineFilter>,
) -> Result<u64, ReadError> {
    match filter {
        None => {
            sum_async(Reader::new(
                source,
                AllCounter::default(),
                Progress::default(),
            ))
            .await
        }
        Some(filter) => {
            let framer = MatchCounter {
                splitter: LineSplitter::default(),
                filter,
            };
            sum_async(Reader::new(source, framer, Progress::default())).await
        }
    }
}

/// The sum of the counts a reader's framer makes of its input.
async fn sum_async<F, I>(mut reader: Reader<F, I>) -> Result<u64, ReadError>
where
    F: Framer<Item = u64>,
    I: AsyncRead + Unpin,
{
    let mut count = 0;
    while let Some(counted) = reader.next_async().await? {
        count += counted;
    }
    Ok(count)
}

/// Frames every read as nothing but its effect on a [`LineCounter`], and the end as the count.
#[derive(Debug, Default)]
struct AllCounter {
    counter: LineCounter,
    finished: bool,
}

impl Framer for AllCounter {
    type Item = u64;

    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<u64>, ReadError> {
        if buf.is_empty() {
            return Ok(None);
        }
        self.counter.feed(buf.data());
        buf.advance(buf.len());
        Ok(Some(0))
    }

    fn finish(&mut self, _: &mut ReadBuf) -> Result<Option<u64>, ReadError> {
        let first = !std::mem::replace(&mut self.finished, true);
        Ok(first.then(|| self.counter.finish()))
    }
}

/// Frames each run of complete lines as how many of them `filter` keeps.
struct MatchCounter<'a> {
    splitter: LineSplitter,
    filter: &'a LineFilter,
}

impl Framer for MatchCounter<'_> {
    type Item = u64;

    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<u64>, ReadError> {
        let run = self.splitter.take_complete(buf, usize::MAX);
        Ok(run.map(|run| self.filter.count(&run.terminated_lines())))
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<u64>, ReadError> {
        let run = self.splitter.take_rest(buf);
        Ok(run.map(|run| self.filter.count(&run.terminated_lines())))
    }
}

/// Counts the lines that [`LineSplitter`](crate::split::LineSplitter) would cut from the same bytes, without cutting them.
#[derive(Debug, Default)]
pub struct LineCounter {
    lines: u64,
    /// The previous chunk ended with `\r`, already counted; a leading `\n` completes it.
    skip_lf: bool,
    /// The bytes so far end inside a line (a final line without terminator counts too).
    in_line: bool,
}

impl LineCounter {
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        let Some(&last) = chunk.last() else { return };
        self.lines += count_terminators(chunk);
        self.skip_lf = last == b'\r';
        self.in_line = last != b'\n' && last != b'\r';
    }

    pub fn finish(&self) -> u64 {
        self.lines + u64::from(self.in_line)
    }
}

/// Counts `\n`s, plus each `\r` that is not the first half of a `\r\n` in `chunk`.
fn count_terminators(chunk: &[u8]) -> u64 {
    if memchr(b'\r', chunk).is_none() {
        return count_newlines(chunk);
    }
    memchr2_iter(b'\n', b'\r', chunk)
        .filter(|&i| chunk[i] == b'\n' || chunk.get(i + 1) != Some(&b'\n'))
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Match;
    use crate::test_files::file_of;
    use crate::Encoding;

    /// The first and third of three parts are counted, as helpers may count them, and the
    /// file is then truncated below the second's cut: counted then, it holds nothing, and the
    /// count ends there, as one pass ends at the cut, rather than add the third part's lines
    /// as if the second's had been there.
    /// `count` lines of 9 bytes, `ab 00000` on.
    fn numbered_lines(count: usize) -> Vec<u8> {
        (0..count)
            .flat_map(|i| format!("ab {i:05}\n").into_bytes())
            .collect()
    }

    /// A share's range cut where the file ended, inside a line the writer finished later: the
    /// part that reaches that end counts the line by all of it, as the share's reader reads it.
    #[test]
    fn the_last_part_of_a_share_cut_inside_a_line_matches_the_line_by_all_of_it() {
        let mut bytes = numbered_lines(3_000);
        let cut = bytes.len() as u64 + "half-writ".len() as u64;
        bytes.extend_from_slice(b"half-written\nwritten after\n");
        let within = 0..cut;
        let what = Match {
            strings: vec!["written".to_owned()],
            ignore_case: false,
            invert: false,
        };
        let matching = LineFilter::new(&what, Encoding::Utf8);
        let cancelled = AtomicBool::new(false);
        let file = file_of(&bytes);
        let last = |finish_line| {
            let share = Share::new(2, 3).unwrap();
            count_part(
                &file,
                within.clone(),
                share,
                finish_line,
                64,
                Some(&matching),
                &cancelled,
            )
        };
        assert!(
            matches!(last(true), Ok((Some(1), false))),
            "{:?}",
            last(true)
        );
        assert!(
            matches!(last(false), Ok((Some(0), false))),
            "{:?}",
            last(false)
        );
    }

    #[test]
    fn a_part_the_file_was_cut_short_before_ends_the_count() {
        let bytes = numbered_lines(3_000);
        let within = 0..bytes.len() as u64;
        let cancelled = AtomicBool::new(false);
        let file = file_of(&bytes);
        let share = |index| Share::new(index, 3).unwrap();
        let first = count_part(&file, within.clone(), share(0), false, 64, None, &cancelled);
        let third = count_part(&file, within.clone(), share(2), false, 64, None, &cancelled);
        file.set_len(bytes.len() as u64 / 6).unwrap();
        let second = count_part(&file, within.clone(), share(1), false, 64, None, &cancelled);
        assert!(matches!(second, Ok((Some(0), true))), "{second:?}");
        assert!(matches!(first, Ok((Some(1_000), false))), "{first:?}");
        assert_eq!(sum_to_the_cut([first, second, third]).unwrap(), Some(1_000));
    }

    #[test]
    fn a_file_cut_short_while_counted_in_parts_is_counted_to_the_cut() {
        // The second of two parts is counted first, as a helper may count it, and the file is
        // then truncated inside the first: the count was of both, past the lines the cut lost.
        let bytes = numbered_lines(2_000);
        let within = 0..bytes.len() as u64;
        let cut = bytes.len() as u64 / 4 + 3; // mid-line
        let what = Match {
            strings: vec!["7".to_owned()],
            ignore_case: false,
            invert: false,
        };
        let matching = LineFilter::new(&what, Encoding::Utf8);
        let cancelled = AtomicBool::new(false);
        for filter in [None, Some(&matching)] {
            let file = file_of(&bytes);
            let share = |index| Share::new(index, 2).unwrap();
            let second = count_part(
                &file,
                within.clone(),
                share(1),
                false,
                64,
                filter,
                &cancelled,
            );
            assert!(matches!(second, Ok((Some(lines), false)) if lines > 0));
            file.set_len(cut).unwrap();
            let first = count_part(
                &file,
                within.clone(),
                share(0),
                false,
                64,
                filter,
                &cancelled,
            );
            let one_pass = count_blocking(Source::new(&file, None, 64), filter, &cancelled);
            assert_eq!(
                sum_to_the_cut([first, second]).unwrap(),
                one_pass.unwrap(),
                "filter: {}",
                filter.is_some()
            );
        }
    }
}
