//! Cutting bytes into lines with `readline`'s terminators: `\n`, `\r\n` and a lone `\r`.
//!
//! Terminator bytes never occur inside a multi-byte UTF-8 sequence, so lines can be cut before
//! decoding and every cut is also a character boundary.

use bytes::Bytes;
use memchr::{memchr, memchr2, memchr_iter, memrchr2};

use crate::buffer::ReadBuf;

/// Cuts complete lines off the front of a read buffer, leaving the partial last line in place
/// for the next read to extend (the roll-over).
#[derive(Debug, Default)]
pub struct LineSplitter {
    /// The previous cut ended with `\r`; a `\n` arriving next is the second half of that `\r\n`.
    skip_lf: bool,
    /// How much of the buffer is known to hold no terminator, so a long line is scanned once
    /// rather than once per read.
    scanned: usize,
}

impl LineSplitter {
    /// Removes and returns the complete lines at the front of `buf`, each ending with `\n` (every
    /// terminator rewritten in place, see [`normalize_terminators`]), or `None` when no line is
    /// complete yet. The run is at most `max_run` bytes long unless its single line is longer
    /// (see [`run_end_within`]).
    pub fn take_complete(&mut self, buf: &mut ReadBuf, max_run: usize) -> Option<Bytes> {
        self.skip_lf_of_split_crlf(buf);
        let data = buf.data();
        let Some(last) = memrchr2(b'\n', b'\r', &data[self.scanned..]) else {
            self.scanned = buf.len();
            return None;
        };
        let mut end = self.scanned + last + 1;
        if end > max_run {
            end = run_end_within(data, max_run);
        }
        self.skip_lf = data[end - 1] == b'\r';
        self.scanned = 0;
        let normalized_len = normalize_terminators(&mut buf.data_mut()[..end]);
        let mut run = buf.split_to(end);
        run.truncate(normalized_len);
        Some(run)
    }

    /// At end of input: removes and returns the final line, which has no terminator, if any.
    pub fn take_rest(&mut self, buf: &mut ReadBuf) -> Option<Bytes> {
        self.skip_lf_of_split_crlf(buf);
        self.scanned = 0;
        (!buf.is_empty()).then(|| buf.split_to(buf.len()))
    }

    fn skip_lf_of_split_crlf(&mut self, buf: &mut ReadBuf) {
        if self.skip_lf && !buf.is_empty() {
            self.skip_lf = false;
            if buf.data()[0] == b'\n' {
                buf.advance(1);
            }
        }
    }
}

/// Where a run of complete lines at the front of `data` ends if it may hold at most `max` bytes:
/// after the last terminator among the first `max` bytes, or, when the first line alone is
/// longer, right after that line. `data` holds a terminator somewhere. A `\r\n` cut in two
/// here is one terminator still: the splitter skips its `\n` next time.
fn run_end_within(data: &[u8], max: usize) -> usize {
    match memrchr2(b'\n', b'\r', &data[..max]) {
        Some(last) => last + 1,
        None => {
            let first = memchr2(b'\n', b'\r', &data[max..]).expect("a complete line");
            max + first + 1
        }
    }
}

/// Rewrites every `\r\n` and lone `\r` in `run` as `\n`, in place, and returns the length of
/// the rewritten run. Done in the read buffer itself, before the run is handed out: no second
/// buffer, and a run without `\r` (most files) costs one `memchr`.
fn normalize_terminators(run: &mut [u8]) -> usize {
    let Some(first_cr) = memchr(b'\r', run) else {
        return run.len();
    };
    let (mut read, mut write) = (first_cr, first_cr);
    while read < run.len() {
        // run[read] is a `\r`: it becomes the `\n`, and swallows the `\n` of a `\r\n`.
        run[write] = b'\n';
        write += 1;
        read += 1;
        if run.get(read) == Some(&b'\n') {
            read += 1;
        }
        let next_cr = memchr(b'\r', &run[read..]).map_or(run.len(), |at| read + at);
        run.copy_within(read..next_cr, write);
        write += next_cr - read;
        read = next_cr;
    }
    write
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
mod tests {
    use super::*;
    use crate::count::LineCounter;

    fn push(buf: &mut ReadBuf, data: &[u8]) {
        buf.spare(data.len()).copy_from_slice(data);
        buf.commit(data.len());
    }

    /// The lines of `input` when it arrives in reads of `read_size` bytes, the way the readers
    /// cut and join them into runs of at most `max_run` bytes (or of one line).
    fn split_in_reads(input: &[u8], read_size: usize, max_run: usize) -> Vec<Vec<u8>> {
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(read_size);
        let mut lines = Vec::new();
        let mut collect = |run: Bytes| {
            let run_len = run.len();
            let joined = without_final_terminator(run);
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
    fn reference_lines(input: &[u8]) -> Vec<Vec<u8>> {
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
        }
        push(&mut buf, b"\nnext");
        let run = splitter.take_complete(&mut buf, usize::MAX).unwrap();
        assert_eq!(run.len(), 10_001);
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
            let len = normalize_terminators(&mut run);
            assert_eq!(&run[..len], expected);
        }
    }

    #[test]
    fn a_trailing_cr_ends_its_line_at_once() {
        // readline emits a line at `\r` without waiting to see whether `\n` follows.
        let mut splitter = LineSplitter::default();
        let mut buf = ReadBuf::new(4);
        push(&mut buf, b"a\r");
        assert_eq!(
            splitter.take_complete(&mut buf, usize::MAX).as_deref(),
            Some(&b"a\n"[..])
        );
        push(&mut buf, b"\nb\n");
        assert_eq!(
            splitter.take_complete(&mut buf, usize::MAX).as_deref(),
            Some(&b"b\n"[..])
        );
    }
}
