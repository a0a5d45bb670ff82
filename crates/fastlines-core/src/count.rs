//! Counting lines without making them: [`count_lines`] reads a file and counts the lines a line
//! reader would give, with no splitting into buffers, no decoding and no strings.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use memchr::{memchr, memchr2_iter, memchr_iter};
use tokio::io::AsyncRead;

use crate::buffer::ReadBuf;
use crate::decompress::Input;
use crate::error::ReadError;
use crate::filter::LineFilter;
use crate::frame::Framer;
use crate::reader::{Progress, Reader};
use crate::source::{open, ReadOptions, Source};
use crate::split::LineSplitter;

/// Counts the lines `path` holds (with `options` applied, decompressed if they say so) without
/// decoding any of them, or gives `None` once `cancelled` is set: it is checked between reads,
/// so a count of an endless device or a huge file stops and closes its file soon after.
pub fn count_lines(
    path: &Path,
    options: &ReadOptions,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    count_blocking(open(path, options)?, None, cancelled)
}

/// Counts the lines of `path` (with `options` applied) that `filter` keeps, as
/// [`count_lines`] counts them all.
pub fn count_matching_lines(
    path: &Path,
    options: &ReadOptions,
    filter: &LineFilter,
    cancelled: &AtomicBool,
) -> Result<Option<u64>, ReadError> {
    count_blocking(open(path, options)?, Some(filter), cancelled)
}

/// Counts the lines `source` holds, or those `filter` keeps, with blocking reads; `None` once
/// `cancelled` is set (checked between reads).
///
/// Every line: no splitting into buffers, no decoding and no strings, only a [`LineCounter`]
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
        return memchr_iter(b'\n', chunk).count() as u64;
    }
    memchr2_iter(b'\n', b'\r', chunk)
        .filter(|&i| chunk[i] == b'\n' || chunk.get(i + 1) != Some(&b'\n'))
        .count() as u64
}
