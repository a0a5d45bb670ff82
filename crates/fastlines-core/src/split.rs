//! Cutting bytes into lines with `readline`'s terminators: `\n`, `\r\n` and a lone `\r`.
//!
//! Terminator bytes never occur inside a multi-byte UTF-8 sequence, so lines can be cut before
//! decoding and every cut is also a character boundary.

use std::borrow::Cow;

use bytes::Bytes;
use memchr::{memchr, memchr2, memchr_iter, memrchr2};

use crate::buffer::ReadBuf;

/// Cuts complete lines off the front of a read buffer, leaving the partial last line in place
/// for the next read to extend (the roll-over).
///
/// A line ending in `\r` at the very end of what was read is partial too, until the next byte
/// shows whether the `\r` is half of a `\r\n`. So a cut never falls inside a `\r\n`, and the
/// offset after each cut is where reading can resume with no line repeated (a follower waiting
/// for appends, or a `position` given back as `start`).
#[derive(Debug, Default, Clone)]
pub struct LineSplitter {
    /// How much of the buffer is known to hold no terminator, so a long line is scanned once
    /// rather than once per read. It may exceed the buffer's data once the reader cut that
    /// back (an input that broke off mid-line), so it is bounded by the data where used.
    scanned: usize,
}

impl LineSplitter {
    /// Removes and returns the complete lines at the front of `buf`, each ending with `\n` (every
    /// terminator rewritten in place, see [`normalize_terminators`]), with how many bytes they
    /// took in `buf`; `None` when no line is complete yet. The run is at most `max_run` bytes
    /// long unless its single line is longer (see [`run_end_within`]).
    pub fn take_complete(&mut self, buf: &mut ReadBuf, max_run: usize) -> Option<Run> {
        let data = buf.data();
        let Some(mut end) = complete_end(data, self.scanned.min(data.len())) else {
            // Rescan a trailing `\r` next time, when the byte after it is known.
            self.scanned = data.len() - usize::from(data.last() == Some(&b'\r'));
            return None;
        };
        if end > max_run {
            end = run_end_within(data, max_run);
        }
        self.scanned = 0;
        let mut crlf_at = Vec::new();
        let normalized_len = normalize_terminators(&mut buf.data_mut()[..end], &mut crlf_at);
        let mut lines = buf.split_to(end);
        lines.truncate(normalized_len);
        Some(Run {
            lines,
            raw_len: end,
            crlf_at,
        })
    }

    /// How long the partial line waiting in `buf` is, without a `\r` that may end it.
    pub fn pending_line_len(buf: &ReadBuf) -> usize {
        let data = buf.data();
        data.len() - usize::from(data.last() == Some(&b'\r'))
    }

    /// At end of input: removes and returns the final line, without a `\r` that ends it, if
    /// any is left.
    pub fn take_rest(&mut self, buf: &mut ReadBuf) -> Option<Run> {
        self.scanned = 0;
        if buf.is_empty() {
            return None;
        }
        let raw_len = buf.len();
        let mut lines = buf.split_to(raw_len);
        if lines.last() == Some(&b'\r') {
            lines.truncate(raw_len - 1);
        }
        Some(Run {
            lines,
            raw_len,
            crlf_at: Vec::new(),
        })
    }

    /// Forgets what was scanned: the buffer was emptied to read the input again from elsewhere.
    pub fn reset(&mut self) {
        self.scanned = 0;
    }
}

/// Complete lines cut from the read buffer, and how many bytes of the input they took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The lines, each ending with `\n` (the last line of the input may have none).
    pub lines: Bytes,
    /// Bytes of input the lines took, original terminators included.
    pub raw_len: usize,
    /// Where in `lines` the `\n`s are that stood for a `\r\n`, in order: every other
    /// terminator (`\n`, lone `\r`) took one byte of input, as its `\n` does.
    pub crlf_at: Vec<u32>,
}

impl Run {
    /// The first lines of the run, `len` bytes of `lines` (a whole number of lines), with how
    /// many bytes of input those took.
    pub fn keep_first(&mut self, len: usize) {
        self.lines.truncate(len);
        self.crlf_at.retain(|&at| (at as usize) < len);
        self.raw_len = len + self.crlf_at.len();
    }

    /// The lines, each ending with `\n`: the input's last line, which has none (and may be
    /// empty), gets one, so that a filter sees every line the same way. Copies only then.
    pub fn terminated_lines(&self) -> Cow<'_, [u8]> {
        if self.lines.last() == Some(&b'\n') {
            Cow::Borrowed(&self.lines)
        } else {
            Cow::Owned([&self.lines[..], b"\n"].concat())
        }
    }

    /// Where a line boundary of `lines` (0, or just past a `\n`) was in the input, from the run's
    /// start: each `\r\n` before it took a byte more. Past the end of a last line without
    /// terminator (as a filter sees it, with a `\n` added), the run's end.
    pub fn input_offset(&self, offset: usize) -> u64 {
        let crlf_before = self.crlf_at.partition_point(|&at| (at as usize) < offset);
        (offset + crlf_before).min(self.raw_len) as u64
    }

    /// Where each line of the run ended in the input, past its terminator, from the run's
    /// start: a line without terminator (the input's last) is left out.
    pub fn raw_line_ends(&self) -> Vec<u64> {
        let mut crlf_at = self.crlf_at.iter().peekable();
        let mut crlf_before = 0;
        memchr_iter(b'\n', &self.lines)
            .map(|at| {
                if crlf_at.next_if(|&&crlf| crlf as usize == at).is_some() {
                    crlf_before += 1;
                }
                (at + 1 + crlf_before) as u64
            })
            .collect()
    }
}

/// Where the complete lines at the front of `data` end: after its last terminator, unless that
/// is a `\r` with nothing after it yet; then after the terminator before it. `None` when no
/// line is complete. Bytes before `scanned` are known to hold no terminator.
fn complete_end(data: &[u8], scanned: usize) -> Option<usize> {
    let last = scanned + memrchr2(b'\n', b'\r', &data[scanned..])?;
    if last + 1 < data.len() || data[last] == b'\n' {
        return Some(last + 1);
    }
    // A trailing `\r`: the lines before it, if any.
    memrchr2(b'\n', b'\r', &data[scanned..last]).map(|before| scanned + before + 1)
}

/// Where a run of complete lines at the front of `data` ends if it may hold at most `max` bytes:
/// after the last terminator among the first `max` bytes, or, when the first line alone is
/// longer, right after that line. `data` holds a complete line. A `\r\n` cut in two here is
/// kept whole: the run takes its `\n` too, one byte more than `max` that normalizing takes
/// back.
fn run_end_within(data: &[u8], max: usize) -> usize {
    let end = match memrchr2(b'\n', b'\r', &data[..max]) {
        Some(last) => last + 1,
        None => {
            let first = memchr2(b'\n', b'\r', &data[max..]).expect("a complete line");
            max + first + 1
        }
    };
    if data[end - 1] == b'\r' && data.get(end) == Some(&b'\n') {
        end + 1
    } else {
        end
    }
}

/// Rewrites every `\r\n` and lone `\r` in `run` as `\n`, in place, and returns the length of
/// the rewritten run, noting in `crlf_at` where each `\r\n` became a `\n`. Done in the read
/// buffer itself, before the run is handed out: no second buffer, and a run without `\r` (most
/// files) costs one `memchr`.
fn normalize_terminators(run: &mut [u8], crlf_at: &mut Vec<u32>) -> usize {
    let Some(first_cr) = memchr(b'\r', run) else {
        return run.len();
    };
    let (mut read, mut write) = (first_cr, first_cr);
    while read < run.len() {
        // run[read] is a `\r`: it becomes the `\n`, and swallows the `\n` of a `\r\n`.
        run[write] = b'\n';
        read += 1;
        if run.get(read) == Some(&b'\n') {
            crlf_at.push(write as u32);
            read += 1;
        }
        write += 1;
        let next_cr = memchr(b'\r', &run[read..]).map_or(run.len(), |at| read + at);
        run.copy_within(read..next_cr, write);
        write += next_cr - read;
        read = next_cr;
    }
    write
}

/// How many `\n`s `bytes` holds: every count of lines goes through here (numbering the lines
/// between matches, `countLines`), so it is the fastest counter each target has.
pub fn count_newlines(bytes: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    let count = bytecount::count(bytes, b'\n');
    #[cfg(not(target_arch = "x86_64"))]
    let count = memchr_iter(b'\n', bytes).count();
    count as u64
}

/// A run of lines from [`LineSplitter`] (already joined by `\n`) without its final `\n`, so
/// that JS gets every line of the run, and no empty one after them, from one `split('\n')`. A
/// run without a terminator (the last line of a file) is returned as it is.
pub fn without_final_terminator(mut lines: Bytes) -> Bytes {
    if lines.last() == Some(&b'\n') {
        lines.truncate(lines.len() - 1);
    }
    lines
}

/// Where the first line of `lines` (a run from [`LineSplitter`]: complete lines, each ending
/// with `\n`) that is longer than `max` bytes starts, if there is one. Only readers with a line
/// length limit pay for this scan.
pub fn first_line_longer_than(lines: &[u8], max: usize) -> Option<usize> {
    if lines.len() <= max {
        return None;
    }
    let mut start = 0;
    for end in memchr_iter(b'\n', lines) {
        if end - start > max {
            return Some(start);
        }
        start = end + 1;
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::count::LineCounter;

    fn push(buf: &mut ReadBuf, data: &[u8]) {
        buf.spare(data.len()).copy_from_slice(data);
        buf.commit(data.len());
    }

    /// Long runs of `\n` only: the SIMD counter keeps a byte-wide tally per lane, emptied every
    /// few KiB, so these cross its blocks with every lane counting to its limit.
    #[test]
    fn count_newlines_counts_long_runs_of_newlines() {
        let newlines = vec![b'\n'; 100_001];
        let lengths = [
            0,
            1,
            31,
            32,
            33,
            255 * 32 - 1,
            255 * 32,
            255 * 32 + 1,
            70_001,
            100_000,
        ];
        for len in lengths {
            for start in [0, 1] {
                let run = &newlines[start..start + len];
                assert_eq!(
                    count_newlines(run),
                    len as u64,
                    "{len} newlines from {start}"
                );
            }
        }
    }

    /// The lines of `input` when it arrives in reads of `read_size` bytes, the way the readers
    /// cut and join them into runs of at most `max_run` bytes (or of one line).
    fn split_in_reads(input: &[u8], read_size: usize, max_run: usize) -> Vec<Vec<u8>> {
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(read_size);
        let mut lines = Vec::new();
        let mut collect = |run: Run| {
            let run_len = run.lines.len();
            let joined = without_final_terminator(run.lines);
            let single_line = memchr(b'\n', &joined).is_none();
            assert!(
                run_len <= max_run || single_line,
                "a run of {run_len} bytes"
            );
            lines.extend(joined.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        };
        for read in input.chunks(read_size) {
            push(&mut buf, read);
            while let Some(run) = splitter.take_complete(&mut buf, max_run) {
                collect(run);
            }
        }
        if let Some(rest) = splitter.take_rest(&mut buf) {
            collect(rest);
        }
        lines
    }

    /// A plain reference: scan byte by byte.
    pub(crate) fn reference_lines(input: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut line = Vec::new();
        let mut i = 0;
        while i < input.len() {
            match input[i] {
                b'\n' => lines.push(std::mem::take(&mut line)),
                b'\r' => {
                    lines.push(std::mem::take(&mut line));
                    if input.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                }
                byte => line.push(byte),
            }
            i += 1;
        }
        if !line.is_empty() {
            lines.push(line);
        }
        lines
    }

    fn count_in_reads(input: &[u8], read_size: usize) -> u64 {
        let mut counter = LineCounter::default();
        input.chunks(read_size).for_each(|c| counter.feed(c));
        counter.finish()
    }

    const CASES: &[&[u8]] = &[
        b"",
        b"\n",
        b"\r",
        b"\r\n",
        b"\n\n",
        b"\r\r",
        b"\r\n\r\n",
        b"\n\r",
        b"a",
        b"a\n",
        b"a\r\nb",
        b"a\rb\r",
        b"a\r\r\nb\n\n",
        b"one\ntwo\r\nthree\rfour",
        b"\xef\xbb\xbfbom\x00nul\x0cff\x0bvt\xc2\x85nel\n",
        b"caf\xe9\r\n\xe2\x80\xa8 ls \xe2\x80\xa9 ps\n\xf0\x9f\x98\x80",
    ];

    #[test]
    fn every_read_size_gives_the_reference_lines() {
        for input in CASES {
            for read_size in 1..=input.len().max(1) + 1 {
                assert_eq!(
                    split_in_reads(input, read_size, usize::MAX),
                    reference_lines(input),
                    "input {input:?}, reads of {read_size}"
                );
            }
        }
    }

    #[test]
    fn counter_agrees_with_splitter() {
        for input in CASES {
            for read_size in 1..=input.len().max(1) + 1 {
                let expected = reference_lines(input).len() as u64;
                assert_eq!(
                    count_in_reads(input, read_size),
                    expected,
                    "input {input:?}"
                );
            }
        }
    }

    #[test]
    fn pseudo_random_soup_agrees_at_every_small_read_size() {
        // xorshift: deterministic soup dense in terminators and UTF-8 fragments.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let alphabet = b"ab\r\n\r\n\xe9\xc3\xa9\xe2\x80\xa8\xf0\x9f";
        for _ in 0..300 {
            let len = (state % 64) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            let expected = reference_lines(&input);
            for read_size in 1..=9 {
                for max_run in [1, 2, 3, 5, usize::MAX] {
                    let lines = split_in_reads(&input, read_size, max_run);
                    assert_eq!(lines, expected, "{input:?}, runs of at most {max_run}");
                }
                assert_eq!(count_in_reads(&input, read_size), expected.len() as u64);
            }
        }
    }

    #[test]
    fn a_long_line_is_rolled_over_until_its_terminator_arrives() {
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(10);
        for _ in 0..1000 {
            push(&mut buf, b"xxxxxxxxxx");
            assert_eq!(splitter.take_complete(&mut buf, usize::MAX), None);
            // A terminator planted in the bytes already scanned is never seen: each byte is
            // looked at once, so a line that arrives in many pieces costs its length, not its
            // length times its pieces.
            buf.data_mut()[0] = b'\n';
        }
        buf.data_mut()[0] = b'x';
        push(&mut buf, b"\nnext");
        let run = splitter.take_complete(&mut buf, usize::MAX).unwrap();
        assert_eq!(run.raw_len, 10_001);
        assert_eq!(buf.data(), b"next");
    }

    #[test]
    fn terminators_are_rewritten_in_place() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b""),
            (b"a\nb\n", b"a\nb\n"),
            (b"a\r\nb\r\n", b"a\nb\n"),
            (b"a\rb\r", b"a\nb\n"),
            (b"\r\r\n\n\r", b"\n\n\n\n"),
            (b"one\r\ntwo\rthree\nfour\r\n", b"one\ntwo\nthree\nfour\n"),
        ];
        for &(run, expected) in cases {
            let mut run = run.to_vec();
            let len = normalize_terminators(&mut run, &mut Vec::new());
            assert_eq!(&run[..len], expected);
        }
    }

    #[test]
    fn a_trailing_cr_waits_for_the_next_byte() {
        // Whether `a\r` ends with `\r` or `\r\n` shows only with the next byte; the cut after
        // it is then past the whole terminator.
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(4);
        push(&mut buf, b"x\na\r");
        let run = splitter.take_complete(&mut buf, usize::MAX).unwrap();
        assert_eq!((&run.lines[..], run.raw_len), (&b"x\n"[..], 2));
        assert_eq!(splitter.take_complete(&mut buf, usize::MAX), None);
        assert_eq!(LineSplitter::pending_line_len(&buf), 1);
        push(&mut buf, b"\nb\r");
        let run = splitter.take_complete(&mut buf, usize::MAX).unwrap();
        assert_eq!((&run.lines[..], run.raw_len), (&b"a\n"[..], 3));
        let rest = splitter.take_rest(&mut buf).unwrap();
        assert_eq!((&rest.lines[..], rest.raw_len), (&b"b"[..], 2));
    }

    #[test]
    fn a_run_cut_at_its_limit_keeps_a_crlf_whole() {
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(16);
        push(&mut buf, b"ab\r\ncd\r\n");
        let run = splitter.take_complete(&mut buf, 3).unwrap();
        assert_eq!((&run.lines[..], run.raw_len), (&b"ab\n"[..], 4));
        assert_eq!(buf.data(), b"cd\r\n");
    }
}
