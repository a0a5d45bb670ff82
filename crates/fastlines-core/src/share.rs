//! Line-aligned shares of a file: the rule that lets `n` readers, which agree on nothing but the
//! file's size, each read one part of it and together read every line exactly once.
//!
//! Share `k` of `n` of a `size`-byte file covers the bytes `[k*size/n, (k+1)*size/n)` (rounded
//! down) and holds the lines whose first byte lies there. `size` is the file's size when the
//! share opens, or one the readers agreed on: a file that grows between the shares' opens is
//! cut by one size only if they all pass it, since cuts from different sizes do not meet. A line starts at the range's first
//! byte, after a `\n`, or after a `\r` that is not followed by `\n`: the rule `split` cuts by.
//! So a share reads from the first line start at or after its first byte to the first line
//! start at or after the next share's first byte, where the next share begins: the shares
//! meet exactly, whatever cuts through a `\r\n`, a character or a line longer than a share
//! (whose following shares are then empty).

use std::fs::File;
use std::io::{self, Read};
use std::ops::{Deref, Range};

use memchr::memchr2;

use crate::read::read_at;

/// Bytes read at a time while looking for a line start.
const SCAN_BYTES: usize = 16 * 1024;

/// Share `index` of `count` (`index < count`), as `share: [index, count, size?]` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    index: u64,
    count: u64,
    /// The bytes the cuts are taken from; `None`: the range's length when the share opens.
    size: Option<u64>,
}

impl Share {
    /// Share `index` of `count`, or `None` unless `index < count`.
    pub fn new(index: u64, count: u64) -> Option<Self> {
        (index < count).then_some(Share {
            index,
            count,
            size: None,
        })
    }

    /// Whether this is the first share, the one that starts at the range's start.
    pub(crate) fn is_first(&self) -> bool {
        self.index == 0
    }

    /// The same share cut from `size` bytes, whatever the range's length is now: every share of
    /// a growing file given the same size meets its neighbours. The last share still reads its
    /// last line to its end, past `size`.
    pub fn cut_from(self, size: u64) -> Self {
        Share {
            size: Some(size),
            ..self
        }
    }

    /// Where share `index` of `count` begins in `bytes` bytes: `index * bytes / count`, rounded
    /// down, computed without overflow.
    fn cut(index: u64, count: u64, bytes: u64) -> u64 {
        (u128::from(index) * u128::from(bytes) / u128::from(count)) as u64
    }

    /// Where share `index` of this share's count begins in `within`.
    fn cut_in(&self, index: u64, within: &Range<u64>) -> u64 {
        let len = self.size.unwrap_or(within.end.saturating_sub(within.start));
        within
            .start
            .saturating_add(Self::cut(index, self.count, len))
    }

    /// This share's [`range`](Self::range) of `within`, to be read through `file`: found empty
    /// because `file` now ends before the share's cut (truncated since `within` was taken), it
    /// [ended early](FileRange::ended_early), as a range the file ends inside does. Else a
    /// share that holds none of the file's lines any more would be taken for one that holds
    /// no line start (a long line's middle), and the shares after it, read before the
    /// truncation, read on as if the lines it lost were there.
    pub(crate) fn input<H: Deref<Target = File>>(
        self,
        file: H,
        range: Range<u64>,
        within: &Range<u64>,
    ) -> io::Result<FileRange<H>> {
        let cut_off = range.is_empty() && file.metadata()?.len() < self.cut_in(self.index, within);
        Ok(FileRange {
            cut_off,
            ..FileRange::new(file, range)
        })
    }

    /// The bytes of `within` (a range of `file`, read with the rule that its first byte starts
    /// a line and its last one ends one) that this share reads: from the first line start at or
    /// after its cut to the first one at or after the next share's cut, looked for as far as
    /// `reach` says (see [`Reach`]).
    pub(crate) fn range(
        self,
        file: &File,
        within: Range<u64>,
        reach: Reach,
    ) -> io::Result<Range<u64>> {
        let cut = |index| self.cut_in(index, &within);
        let start_reach = if reach.bounds_start {
            // A part that holds no line start reads nothing: its first is looked for before the
            // next cut only, not through a long line to its end, which each part inside the line
            // read again (the parts searching a line of 384 MiB read it 49 times over).
            Reach {
                bound: Some(cut(self.index + 1)),
                ..reach
            }
        } else {
            Reach {
                longest_line: None,
                ..reach
            }
        };
        let Some(start) = start_reach.line_start_from(file, cut(self.index), &within)? else {
            return Ok(within.end..within.end);
        };
        // A line that reaches past the next cut belongs here, and the next share starts after
        // it: looking from `start` on finds that without reading the line again.
        let next = cut(self.index + 1).max(start);
        let end = reach
            .line_start_from(file, next, &within)?
            .unwrap_or(within.end);
        Ok(start..end)
    }
}

/// How far looking for a share's line starts goes: through a line of gigabytes it reads for
/// seconds, and a reader with a longest line fails at such a line anyway.
///
/// Once `stopped` says so, the share reads nothing, or the rest of its range (a reader that is
/// stopping reads none of it). With a longest line, its end is looked for no further than that
/// past the next cut: a line that reaches further is too long, and the share runs on to the end
/// of the range, where its reader fails at that line after the lines before it. Its first line
/// start is looked for that far too only where it [bounds its start](Reach::bounding_start).
#[derive(Clone, Copy)]
pub struct Reach<'a> {
    /// Gives up once this says so, checked between reads.
    stopped: &'a dyn Fn() -> bool,
    /// The longest line, in bytes without its terminator, the share's reader frames before it
    /// fails ([`crate::Framer::longest_line`]); `None`: lines have no limit.
    longest_line: Option<u64>,
    /// Whether the first line start is looked for no further than `longest_line` either, nor
    /// past the next cut.
    bounds_start: bool,
    /// Where looking for a line start stops, if not at the range's end: a start found there
    /// or past it is no start (see [`Share::range`]).
    bound: Option<u64>,
}

impl<'a> Reach<'a> {
    /// Looks through lines of any length, until `stopped` says so.
    pub fn until(stopped: &'a dyn Fn() -> bool) -> Self {
        Reach {
            stopped,
            longest_line: None,
            bounds_start: false,
            bound: None,
        }
    }

    /// Looks for the share's end no further than `longest_line` (the reader's
    /// [`crate::Framer::longest_line`]) past the next cut.
    pub fn within_longest_line(self, longest_line: Option<usize>) -> Self {
        Reach {
            longest_line: longest_line.map(|longest| longest as u64),
            ..self
        }
    }

    /// Looks for the first line start no further either, nor past the next cut: a share cut
    /// inside a longer line reads nothing, and one whose cuts both fall inside a line holds no
    /// line start. For a reader in parts, whose reader fails at the longer line anyway, and
    /// whose empty parts have no position to report; not for a user's share, whose lines are
    /// those that start in it, wherever the line before ends, and whose position, when it holds
    /// none, is where the next line starts.
    pub(crate) fn bounding_start(self) -> Self {
        Reach {
            bounds_start: true,
            ..self
        }
    }

    /// The first line start at or after `at` in `within` ([`line_start_from`]), or `None` where
    /// there is none within reach: the line there is longer than the reader takes, or the look
    /// was stopped.
    fn line_start_from(
        &self,
        file: &File,
        at: u64,
        within: &Range<u64>,
    ) -> io::Result<Option<u64>> {
        let looked_in = match self.longest_line {
            // A line that starts before `at` and ends after its terminator, at most two bytes.
            Some(longest) => {
                within.start..within.end.min(at.saturating_add(longest.saturating_add(3)))
            }
            None => within.clone(),
        };
        let looked_in = match self.bound {
            Some(bound) => looked_in.start..looked_in.end.min(bound),
            None => looked_in,
        };
        let found = line_start_from(file, at, &looked_in, self.stopped)?;
        let out_of_reach = found == looked_in.end && looked_in.end < within.end;
        Ok((!out_of_reach).then_some(found))
    }
}

/// The first line start at or after `at` in `within` of `file`, or `within.end` if there is
/// none before it. `within.start` is a line start; past it, a line starts after a `\n`, or
/// after a `\r` whose next byte in `within` is not `\n` (so `\r` as the range's last byte ends
/// a line, as it does when the range is read).
///
/// Reads from `at - 1` on at offsets, so threads may look in one file at once. Gives up with
/// `within.end` once `stopped` says so, checked between reads.
pub(crate) fn line_start_from(
    file: &File,
    at: u64,
    within: &Range<u64>,
    stopped: &dyn Fn() -> bool,
) -> io::Result<u64> {
    if at <= within.start {
        return Ok(within.start);
    }
    if at >= within.end {
        return Ok(within.end);
    }
    let mut input = FileRange::new(file, at - 1..within.end);
    let mut offset = at - 1;
    let mut buf = vec![0; SCAN_BYTES];
    // A `\r` was the last byte of the previous read: the line starts after it, or after its `\n`.
    let mut after_cr = None;
    loop {
        if stopped() {
            return Ok(within.end);
        }
        let read = read_some(&mut input, &mut buf)?;
        if read == 0 {
            // The range is read (or the file is shorter than it was): no line start is left in it.
            return Ok(after_cr.unwrap_or(within.end));
        }
        let bytes = &buf[..read];
        if let Some(cr_end) = after_cr {
            return Ok(if bytes[0] == b'\n' {
                cr_end + 1
            } else {
                cr_end
            });
        }
        if let Some(found) = memchr2(b'\n', b'\r', bytes) {
            let next = offset + found as u64 + 1;
            if bytes[found] == b'\n' || next >= within.end {
                return Ok(next);
            }
            match bytes.get(found + 1) {
                Some(&b'\n') => return Ok(next + 1),
                Some(_) => return Ok(next),
                None => after_cr = Some(next),
            }
        }
        offset += read as u64;
    }
}

/// A range of a file, read at offsets (`pread`) through `H`, any handle to it (`&File`, or one
/// a part read on another thread owns): readers on other threads may share the file, since
/// none moves its position.
#[derive(Debug)]
pub struct FileRange<H> {
    file: H,
    /// The next byte to read; never past `end`.
    next: u64,
    end: u64,
    /// The range is empty because the file ended before it began (see [`Share::input`]).
    cut_off: bool,
}

impl<H> FileRange<H> {
    pub fn new(file: H, range: Range<u64>) -> Self {
        FileRange {
            file,
            next: range.start,
            end: range.end.max(range.start),
            cut_off: false,
        }
    }

    /// Whether, once a read gave nothing, the file had ended before the range did: it was cut
    /// short since the range was taken. A range read on to the file's end (`u64::MAX`) never is.
    pub(crate) fn ended_early(&self) -> bool {
        self.cut_off || (self.next < self.end && self.end != u64::MAX)
    }
}

impl<H: Deref<Target = File>> Read for FileRange<H> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end - self.next).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        if want == 0 {
            return Ok(0);
        }
        let read = read_at(&self.file, &mut buf[..want], self.next)?;
        self.next += read as u64;
        Ok(read)
    }
}

/// One read, retried when a signal interrupts it.
fn read_some(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            read => return read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::tests::reference_lines;
    use crate::test_files::file_of;

    /// The lines of shares 0..count of `within` of `bytes`, in order, each share cut by `cut`
    /// from [`Share::new`].
    fn lines_of_shares(
        bytes: &[u8],
        within: Range<u64>,
        count: u64,
        cut: impl Fn(Share) -> Share,
    ) -> Vec<Vec<u8>> {
        let file = file_of(bytes);
        (0..count)
            .flat_map(|index| {
                let share = cut(Share::new(index, count).unwrap());
                let range = share
                    .range(&file, within.clone(), Reach::until(&|| false))
                    .unwrap();
                reference_lines(&bytes[range.start as usize..range.end as usize])
            })
            .collect()
    }

    #[test]
    fn shares_together_hold_every_line_once() {
        let inputs: [&[u8]; 9] = [
            b"",
            b"a",
            b"a\nb\r\nc\rd\r\re\n\nf",
            b"\r\n\r\n\r\r\n\n\r",
            b"one very long line that spans many shares\nx\n",
            "é中😀\r\né中😀\n😀".as_bytes(),
            b"\r",
            b"\n",
            b"ab\r",
        ];
        for bytes in inputs {
            let expected = reference_lines(bytes);
            for count in 1..=20 {
                let got = lines_of_shares(bytes, 0..bytes.len() as u64, count, |share| share);
                assert_eq!(
                    got,
                    expected,
                    "{:?} in {count} shares",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    }

    /// A share found empty is read as cut short only where the file now ends before its cut:
    /// a share inside a long line is empty and whole.
    #[test]
    fn an_empty_share_ended_early_only_when_the_file_ends_before_its_cut() {
        let bytes = b"short\na line long enough to cross the second share's cut\n";
        let within = 0..bytes.len() as u64;
        let file = file_of(bytes);
        let input = |share: Share, file: &File| {
            let range = share
                .range(file, within.clone(), Reach::until(&|| false))
                .unwrap();
            let mut input = share.input(file, range.clone(), &within).unwrap();
            let read = read_some(&mut input, &mut [0; 64]).unwrap();
            (range.is_empty(), read, input.ended_early())
        };
        let second = Share::new(1, 3).unwrap();
        assert_eq!(
            input(second, &file),
            (true, 0, false),
            "inside the long line"
        );
        file.set_len(10).unwrap();
        assert_eq!(input(second, &file), (true, 0, true), "past the file's end");
        let third = Share::new(2, 3).unwrap();
        assert_eq!(input(third, &file), (true, 0, true));
    }

    #[test]
    fn a_cut_inside_crlf_starts_after_it() {
        // Cuts at 1 ("a" | "\r\nb"), 2 (inside "\r\n") and 3 ("b"): the line "b" starts at 3.
        let file = file_of(b"a\r\nb\n");
        let whole = 0..5;
        assert_eq!(line_start_from(&file, 1, &whole, &|| false).unwrap(), 3);
        assert_eq!(line_start_from(&file, 2, &whole, &|| false).unwrap(), 3);
        assert_eq!(line_start_from(&file, 3, &whole, &|| false).unwrap(), 3);
        assert_eq!(line_start_from(&file, 4, &whole, &|| false).unwrap(), 5);
    }

    #[test]
    fn a_lone_cr_at_the_end_of_a_range_ends_its_line() {
        let file = file_of(b"ab\r\ncd");
        assert_eq!(line_start_from(&file, 1, &(0..3), &|| false).unwrap(), 3);
        assert_eq!(line_start_from(&file, 1, &(0..6), &|| false).unwrap(), 4);
    }

    #[test]
    fn a_cr_at_the_end_of_a_scan_read_looks_at_the_next_read() {
        let mut bytes = vec![b'x'; SCAN_BYTES];
        bytes[SCAN_BYTES - 1] = b'\r';
        for next in [&b"\nz"[..], b"z\n"] {
            let file = file_of(&[&bytes[..], next].concat());
            let whole = 0..(SCAN_BYTES + 2) as u64;
            let expected = SCAN_BYTES as u64 + u64::from(next[0] == b'\n');
            assert_eq!(
                line_start_from(&file, 5, &whole, &|| false).unwrap(),
                expected
            );
        }
    }

    #[test]
    fn a_range_is_shared_with_its_first_byte_as_a_line_start() {
        // Read from byte 2 ("\nb\n..."), the range's first line is the empty one before "b".
        let bytes = b"a\r\nb\nc\n";
        for count in 1..=6 {
            let got = lines_of_shares(bytes, 2..bytes.len() as u64, count, |share| share);
            assert_eq!(got, reference_lines(&bytes[2..]), "{count} shares");
        }
    }

    #[test]
    fn shares_cut_from_one_size_meet_in_a_file_that_grew() {
        let before = b"one\ntwo\r\nthree\rfour\nfive";
        let after = [&before[..], b" continued\nsix\n"].concat();
        let size = before.len() as u64;
        for count in 1..=12 {
            let whole = 0..after.len() as u64;
            let lines = lines_of_shares(&after, whole, count, |share| share.cut_from(size));
            // The lines that start before `size`, the last read to its end.
            let expected: Vec<Vec<u8>> = ["one", "two", "three", "four", "five continued"]
                .map(|line| line.as_bytes().to_vec())
                .to_vec();
            assert_eq!(lines, expected, "{count} shares");
        }
    }

    #[test]
    fn only_an_index_below_the_count_is_a_share() {
        assert_eq!(Share::new(2, 2), None);
        assert_eq!(Share::new(0, 0), None);
        assert!(Share::new(1, 2).is_some());
    }

    /// Looking for a line start is given up once `stopped` says so, before the next read: a
    /// line of gigabytes took a count in parts, or a search's reader, seconds past an abort.
    #[test]
    fn a_stopped_look_for_a_line_start_gives_up() {
        let file = file_of(&[b'x'; 100_000]);
        let whole = 0..100_000;
        let reads = std::cell::Cell::new(0);
        let stopped = || {
            reads.set(reads.get() + 1);
            reads.get() > 2
        };
        assert_eq!(
            line_start_from(&file, 1, &whole, &stopped).unwrap(),
            100_000
        );
        assert_eq!(reads.get(), 3, "two reads, then it stopped");
    }

    /// With the longest line its reader takes, a share's end is looked for no further than that
    /// past the next cut, and a part's first line start too: where no line is longer, the
    /// ranges are those looked for without a bound; where one is, the share where it starts
    /// runs on to the end, where its reader fails at that line, and a part cut inside it reads
    /// nothing, where a share reads the lines that start in it (a search with `maxLineLength`
    /// looked through 64 GiB of one line first, and so did a share's reader).
    #[test]
    fn a_share_looks_for_its_line_starts_no_further_than_the_longest_line() {
        let bytes = b"a\nbb\r\nccc\rdddd\n\neeeee\r\n";
        let file = file_of(bytes);
        let whole = 0..bytes.len() as u64;
        for count in 1..=bytes.len() as u64 + 1 {
            for index in 0..count {
                let share = Share::new(index, count).unwrap();
                let unbounded = share
                    .range(&file, whole.clone(), Reach::until(&|| false))
                    .unwrap();
                for longest in [5, 6, 100] {
                    let reach = Reach::until(&|| false).within_longest_line(Some(longest));
                    let bounded = share.range(&file, whole.clone(), reach).unwrap();
                    assert_eq!(bounded, unbounded, "{index} of {count}, {longest}");
                    // A part (bounding its start) that holds no line start is empty wherever
                    // it is placed: it has no position to report.
                    let part = share
                        .range(&file, whole.clone(), reach.bounding_start())
                        .unwrap();
                    let same = part == unbounded || (part.is_empty() && unbounded.is_empty());
                    assert!(
                        same,
                        "{index} of {count}, {longest}: {part:?}, {unbounded:?}"
                    );
                }
            }
        }
        let long = [&b"a\n"[..], &[b'x'; 1000], b"\nb\n"].concat();
        let file = file_of(&long);
        let whole = 0..long.len() as u64;
        let range = |index, reach: Reach| {
            let share = Share::new(index, 3).unwrap();
            share.range(&file, whole.clone(), reach).unwrap()
        };
        let unbounded = Reach::until(&|| false);
        assert_eq!(
            [0, 1, 2].map(|index| range(index, unbounded)),
            [0..1003, 1003..1003, 1003..1005]
        );
        let to_the_end = 0..whole.end;
        let share = unbounded.within_longest_line(Some(10));
        assert_eq!(
            [0, 1, 2].map(|index| range(index, share)),
            [to_the_end.clone(), 1003..1003, 1003..1005]
        );
        let nothing = whole.end..whole.end;
        assert_eq!(
            [0, 1, 2].map(|index| range(index, share.bounding_start())),
            [to_the_end, nothing.clone(), nothing]
        );
    }

    #[test]
    fn a_part_looks_for_its_first_line_start_before_the_next_cut_only() {
        // Parts 1 to 8 of 10 are cut inside the long line: each holds no line start, and none
        // reads on through the line to its end to find that out (the look reads SCAN_BYTES at a
        // time, asking `stopped` before each read).
        let long = [&b"a\n"[..], &vec![b'x'; 64 * SCAN_BYTES], b"\nb\r\nc"].concat();
        let file = file_of(&long);
        let whole = 0..long.len() as u64;
        let part_bytes = long.len() / 10;
        for index in 0..10 {
            let share = Share::new(index, 10).unwrap();
            let reads = std::cell::Cell::new(0);
            let counted = || {
                reads.set(reads.get() + 1);
                false
            };
            let part = share
                .range(
                    &file,
                    whole.clone(),
                    Reach::until(&counted).bounding_start(),
                )
                .unwrap();
            let unbounded = share
                .range(&file, whole.clone(), Reach::until(&|| false))
                .unwrap();
            assert!(
                part == unbounded || (part.is_empty() && unbounded.is_empty()),
                "{index}"
            );
            if (1..=8).contains(&index) {
                assert!(part.is_empty(), "{index}: {part:?}");
                assert!(
                    reads.get() <= part_bytes / SCAN_BYTES + 2,
                    "part {index} read {} times",
                    reads.get()
                );
            }
        }
    }

    /// A share stopped while it looks for its first line start reads nothing: a share's reader
    /// of a file cut inside a line of gigabytes looked through all of it past a `close()`.
    #[test]
    fn a_share_stopped_while_it_looks_reads_nothing() {
        let file = file_of(&[b'x'; 100_000]);
        let whole = 0..100_000;
        let stopped = Reach::until(&|| true);
        let bounded = stopped.within_longest_line(Some(50_000));
        for reach in [stopped, bounded, bounded.bounding_start()] {
            let share = Share::new(1, 2).unwrap();
            let range = share.range(&file, whole.clone(), reach).unwrap();
            assert!(range.is_empty(), "{range:?}");
        }
    }
}
