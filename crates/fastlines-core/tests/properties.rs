//! Property tests: the core's lines, decoding and line counts equal a plain reference
//! implementation for arbitrary bytes arriving in reads of arbitrary sizes.
//!
//! The unit tests in `src/` pin known cases; these look for the cases nobody thought of. The
//! risky places are boundaries: a `\r\n` split across two reads, a multi-byte UTF-8 sequence or
//! an invalid one cut by a read or next to a terminator, a line longer than the buffer, a range
//! that ends inside a line. So the input is built from fragments that make those common (see
//! [`fragment`]), and the source hands it over in reads whose sizes follow an arbitrary plan
//! (see [`ChunkedSource`]), now and then interrupted by a signal.
//!
//! Checked:
//! 1. [`Reader`] with a [`LineFramer`] (the file reader's own path, over an in-memory source)
//!    gives the reference lines, in UTF-8 and Latin-1, with or without a `start`/`end` range;
//!    and with a `max_line_length`, the reference lines before the first one over it, then
//!    [`ReadError::LineTooLong`]; with a `max_string_length` (the engine's longest string),
//!    the reference lines before the first one of more UTF-16 units, then
//!    [`ReadError::StringTooLong`].
//! 2. [`decode`] alone equals `String::from_utf8_lossy` for UTF-8 (which replaces maximal
//!    subparts, as WHATWG decoders and so Node do) and byte-to-char for Latin-1, and picks the
//!    one-byte form exactly for ASCII or Latin-1.
//! 3. [`LineCounter`] counts the reference lines for every chunking.
//! 4. The safe wrappers of simdutf's FFI ([`is_ascii`], [`utf8_to_utf16`]) agree with the
//!    standard library on arbitrary bytes, in inputs long enough to cross its SIMD blocks.
//! 5. A fed source (a stream's chunks pushed from JS) gives the reference lines for every
//!    chunking and every bound on its read-ahead.
//! 6. The safe wrapper of `dup(2)` (`duplicate`) reads what the path holds from the same offset.
//! 7. Shares of a real file, opened by `open` and read in order, give the reference lines for
//!    every number of shares (and the same failure at the same line); `count_lines` in parts
//!    (within every `start`/`end` range, with and without a filter) is the one-pass count.
//! 8. [`count_newlines`] (SIMD where the target has it) counts the `\n` bytes of every slice.
//!
//! That nothing panics, whatever the input and the reads, is checked along the way. Elsewhere
//! `start` is modelled by handing the reader the input from `start` on, as `open`'s seek does,
//! and `end` by the byte budget `open` computes.

use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::sync::atomic::AtomicBool;

use bytes::Bytes;
use fastlines_core::internals::{count_newlines, decode, is_ascii, utf8_to_utf16, LineCounter};
use fastlines_core::{
    count_lines, Batch, Decompress, Encoding, JsonBatches, LineFilter, LineFramer, LineLayout,
    Match, Progress, ReadError, ReadOptions, Reader, Share, Source, Text, Threads,
};
use proptest::prelude::*;
use proptest::sample::Index;

// ---------------------------------------------------------------------------------------------
// Reference implementation

/// The lines of `bytes` as Node's `readline` cuts them: at `\n`, `\r\n` and a lone `\r`, with
/// no empty line after a final terminator, and none at all for empty input.
fn reference_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => lines.push(&bytes[line_start..i]),
            b'\r' => {
                lines.push(&bytes[line_start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 1;
        line_start = i;
    }
    if line_start < bytes.len() {
        lines.push(&bytes[line_start..]);
    }
    lines
}

/// Where each of the reference lines of `bytes` ends, past its terminator (the last line, if it
/// has none, at the end of `bytes`).
fn reference_line_ends(bytes: &[u8]) -> Vec<u64> {
    let mut ends = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        if matches!(bytes[i], b'\n' | b'\r') {
            ends.push(i as u64 + 1);
        }
        i += 1;
    }
    if ends.last().map_or(0, |&end| end as usize) < bytes.len() {
        ends.push(bytes.len() as u64);
    }
    ends
}

/// Where each line of `batch` ended in the input, worked out the way `lib/cursor.js` does: from
/// the layout, and for a uniform one from each line's text, measured in bytes.
fn batch_line_ends(batch: &Batch) -> Vec<u64> {
    let text = text_to_string(&batch.text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut ends: Vec<u64> = match &batch.layout {
        LineLayout::Ends(ends) => ends.iter().map(|end| batch.start + end).collect(),
        LineLayout::Uniform { terminator_len } => {
            let one_byte = matches!(batch.text, Text::OneByte(_) | Text::Ascii { .. });
            let mut end = batch.start;
            lines
                .iter()
                .map(|line| {
                    let len = if one_byte {
                        line.chars().count()
                    } else {
                        line.len()
                    };
                    end += (len + usize::from(*terminator_len)) as u64;
                    end
                })
                .collect()
        }
    };
    // The last line ends where the batch does (it may have had no terminator).
    ends.truncate(lines.len() - 1);
    ends.push(batch.end);
    ends
}

/// `bytes` decoded the way a JS runtime would: UTF-8 with maximal subparts replaced by U+FFFD,
/// or Latin-1 with each byte the code point of its value.
fn reference_decode(bytes: &[u8], encoding: Encoding) -> String {
    match encoding {
        Encoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
        Encoding::Latin1 => latin1_to_string(bytes),
    }
}

/// Each byte as the code point of the same value.
fn latin1_to_string(bytes: &[u8]) -> String {
    bytes.iter().map(|&byte| char::from(byte)).collect()
}

/// What a reader with `limits` should make of `bytes`: the lines before the first one longer
/// than `max_line_length` (in bytes, terminator excluded) or than `max_string_length` (in
/// UTF-16 units, once decoded), then the error for it; or every line.
fn reference_output(
    bytes: &[u8],
    encoding: Encoding,
    limits: Limits,
) -> (Vec<String>, Option<ReadError>) {
    let mut lines = Vec::new();
    for line in reference_lines(bytes) {
        if let Some(max) = limits.max_line_length.filter(|&max| line.len() > max) {
            let too_long = ReadError::LineTooLong {
                max_line_length: max,
            };
            return (lines, Some(too_long));
        }
        let line = reference_decode(line, encoding);
        if line.encode_utf16().count() > limits.max_string_length {
            let too_long = ReadError::StringTooLong {
                max_string_length: limits.max_string_length,
            };
            return (lines, Some(too_long));
        }
        lines.push(line);
    }
    (lines, None)
}

/// The limits a line reader is given.
#[derive(Debug, Clone, Copy)]
struct Limits {
    max_line_length: Option<usize>,
    max_string_length: usize,
}

impl Limits {
    const NONE: Limits = Limits {
        max_line_length: None,
        max_string_length: usize::MAX,
    };
}

/// The string a JS engine makes of `text`: one-byte text holds one code unit per byte (ASCII
/// for UTF-8, any byte for Latin-1), so both encodings read it byte to char.
fn text_to_string(text: &Text) -> String {
    match text {
        Text::OneByte(bytes) | Text::Ascii { bytes, .. } => latin1_to_string(bytes),
        Text::Utf16(units) => {
            String::from_utf16(units).expect("the core produced a lone surrogate in UTF-16")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// An in-memory source with chosen read sizes

/// One answer of the source to a read.
#[derive(Debug, Clone, Copy)]
struct ReadStep {
    /// The most bytes this read returns.
    max_len: usize,
    /// The read first fails with `Interrupted`, as a read hit by a signal does.
    interrupted_first: bool,
}

/// Bytes served in reads that follow `plan`, cycled: a file or pipe delivering the input in
/// pieces of varying size. Implements [`Read`], which is all [`Reader`] needs of a file.
#[derive(Debug)]
struct ChunkedSource {
    data: Vec<u8>,
    pos: usize,
    plan: Vec<ReadStep>,
    next_step: usize,
    /// The current step's interruption has happened; its read comes next.
    was_interrupted: bool,
}

impl ChunkedSource {
    fn new(data: Vec<u8>, plan: Vec<ReadStep>) -> Self {
        assert!(!plan.is_empty(), "a read plan needs at least one step");
        ChunkedSource {
            data,
            pos: 0,
            plan,
            next_step: 0,
            was_interrupted: false,
        }
    }
}

impl Read for ChunkedSource {
    fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
        let step = self.plan[self.next_step % self.plan.len()];
        if step.interrupted_first && !self.was_interrupted {
            self.was_interrupted = true;
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.was_interrupted = false;
        self.next_step += 1;
        let n = into.len().min(step.max_len).min(self.data.len() - self.pos);
        into[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The chunks `bytes` arrives in when read following `plan` (interruptions aside): the same
/// cuts [`ChunkedSource`] makes for a reader that always asks for more than a step allows.
fn chunks_by_plan<'a>(mut bytes: &'a [u8], plan: &[ReadStep]) -> Vec<&'a [u8]> {
    let mut chunks = Vec::new();
    for step in plan.iter().cycle() {
        if bytes.is_empty() {
            break;
        }
        let (chunk, rest) = bytes.split_at(step.max_len.min(bytes.len()));
        chunks.push(chunk);
        bytes = rest;
    }
    chunks
}

// ---------------------------------------------------------------------------------------------
// `start` and `end`

/// `fs.createReadStream`'s `start` and `end` (inclusive), possibly past the end of the input.
#[derive(Debug, Clone, Copy)]
struct ByteRange {
    start: u64,
    end: Option<u64>,
}

impl ByteRange {
    /// Picks a range for an input of `len` bytes: each bound from the whole input or one byte
    /// past it, so empty ranges, `end < start` and bounds past the end all occur.
    fn pick(start: Option<Index>, end: Option<Index>, len: usize) -> Self {
        let bound = |index: Index| index.index(len + 2) as u64;
        ByteRange {
            start: start.map_or(0, bound),
            end: end.map(bound),
        }
    }

    /// The input as the reader sees it after `open` has sought to `start`.
    fn after_seek(self, input: &[u8]) -> &[u8] {
        &input[(self.start as usize).min(input.len())..]
    }

    /// The byte budget `open` gives the reader: `end + 1 - start`, or none without an `end`.
    /// Mirrors `open`, which needs a real file.
    fn remaining(self) -> Option<u64> {
        self.end.map(|end| (end + 1).saturating_sub(self.start))
    }

    /// The bytes of `input` that the range selects: what the reader must end up reading.
    fn select(self, input: &[u8]) -> &[u8] {
        let from = (self.start as usize).min(input.len());
        let to = self
            .end
            .map_or(input.len(), |end| (end as usize + 1).min(input.len()));
        &input[from..to.max(from)]
    }
}

// ---------------------------------------------------------------------------------------------
// Driving the core

/// How a reader is set up for one case.
#[derive(Debug, Clone)]
struct ReaderSetup {
    range: ByteRange,
    plan: Vec<ReadStep>,
    chunk_size: usize,
    encoding: Encoding,
    limits: Limits,
    /// As for a JSON reader on Bun, whose ASCII batches come as bytes, or for any other.
    json: JsonBatches,
}

/// What the file reader's code path makes of `input`: [`Reader`] with a [`LineFramer`] over a
/// [`ChunkedSource`], read to the end or to the first error. Batches are split back into lines
/// at `\n` (they join lines with `\n` and normalize every terminator to it, so no line holds
/// one).
fn reader_output(input: &[u8], setup: &ReaderSetup) -> (Vec<String>, Option<ReadError>) {
    let input = ChunkedSource::new(setup.range.after_seek(input).to_vec(), setup.plan.clone());
    let source = Source::new(input, setup.range.remaining(), setup.chunk_size);
    let framer = LineFramer::new(setup.encoding)
        .with_max_line_length(setup.limits.max_line_length)
        .with_max_string_length(setup.limits.max_string_length)
        .with_json(setup.json);
    let mut reader = Reader::new(source, framer, Progress::default());
    let mut lines = Vec::new();
    loop {
        match reader.next_blocking() {
            Ok(Some(batch)) => {
                if let Text::Ascii {
                    bytes,
                    lines: count,
                } = &batch.text
                {
                    let split = bytes.split(|&byte| byte == b'\n').count();
                    assert_eq!(*count as usize, split, "the count of a batch kept as bytes");
                }
                lines.extend(text_to_string(&batch.text).split('\n').map(str::to_owned))
            }
            Ok(None) => return (lines, None),
            Err(err) => return (lines, Some(err)),
        }
    }
}

/// The line count [`LineCounter`] gives for `input` fed in the chunks `plan` makes.
fn counted_lines(input: &[u8], plan: &[ReadStep]) -> u64 {
    let mut counter = LineCounter::default();
    for chunk in chunks_by_plan(input, plan) {
        counter.feed(chunk);
    }
    counter.finish()
}

/// What [`decode`] should return: the one-byte form for Latin-1 and for ASCII, else UTF-16 of
/// the lossy decoding.
fn expected_text(bytes: &[u8], encoding: Encoding) -> Text {
    if encoding == Encoding::Latin1 || bytes.is_ascii() {
        Text::OneByte(Bytes::copy_from_slice(bytes))
    } else {
        Text::Utf16(String::from_utf8_lossy(bytes).encode_utf16().collect())
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies

/// A piece of input, weighted towards what sits at boundaries: terminators, multi-byte UTF-8
/// sequences of 2, 3 and 4 bytes, and invalid UTF-8 (a lone continuation byte, a lead byte
/// without its continuation, a truncated 4-byte sequence, a never-valid byte, an encoded
/// surrogate, an overlong encoding). Arbitrary bytes cover whatever the list misses.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => Just(b"\n".to_vec()),
        3 => Just(b"\r".to_vec()),
        3 => Just(b"\r\n".to_vec()),
        6 => (b'a'..=b'z').prop_map(|letter| vec![letter]),
        2 => Just("\u{e9}".as_bytes().to_vec()),
        2 => Just("\u{20ac}".as_bytes().to_vec()),
        1 => Just("\u{2028}".as_bytes().to_vec()),
        2 => Just("\u{1f600}".as_bytes().to_vec()),
        1 => Just(vec![0x80]),
        1 => Just(vec![0xc3]),
        1 => Just(vec![0xf0, 0x9f]),
        1 => Just(vec![0xff]),
        1 => Just(vec![0xed, 0xa0, 0x80]),
        1 => Just(vec![0xc0, 0xaf]),
        2 => any::<u8>().prop_map(|byte| vec![byte]),
    ]
}

/// Input bytes: up to 80 fragments, so up to a few hundred bytes. Shrinks by dropping
/// fragments and by simplifying them towards `\n`.
fn input_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..80).prop_map(|fragments| fragments.concat())
}

/// Longer input, up to a few KiB: SIMD kernels work in blocks of 16 to 64 bytes and finish the
/// tail apart, so a character or an invalid byte must land at every offset of a block. Half the
/// inputs are valid UTF-8 throughout (the transcoder's path), half have invalid bytes in them.
fn long_input_bytes() -> impl Strategy<Value = Vec<u8>> {
    let valid = prop_oneof![
        4 => (b' '..=b'~').prop_map(|letter| vec![letter]),
        1 => Just(b"\r\n".to_vec()),
        2 => Just("\u{e9}".as_bytes().to_vec()),
        2 => Just("\u{4e2d}".as_bytes().to_vec()),
        1 => Just("\u{2028}".as_bytes().to_vec()),
        1 => Just("\u{1f600}".as_bytes().to_vec()),
    ];
    prop_oneof![
        prop::collection::vec(valid, 0..700).prop_map(|fragments| fragments.concat()),
        prop::collection::vec(fragment(), 0..700).prop_map(|fragments| fragments.concat()),
    ]
}

/// A plan of 1 to 16 reads of 1 to 64 bytes, weighted towards tiny reads, which put a
/// boundary after nearly every byte; about one read in ten is interrupted first.
fn read_plan() -> impl Strategy<Value = Vec<ReadStep>> {
    let max_len = prop_oneof![2 => 1..=64usize, 1 => 1..=4usize];
    let step =
        (max_len, prop::bool::weighted(0.1)).prop_map(|(max_len, interrupted_first)| ReadStep {
            max_len,
            interrupted_first,
        });
    prop::collection::vec(step, 1..=16)
}

/// The reader's own chunk size: what it asks of each read, which the plan may cut further.
/// Mostly 64, so the plan decides; sometimes smaller, so the reader does.
fn chunk_size() -> impl Strategy<Value = usize> {
    prop_oneof![2 => Just(64usize), 1 => 1..=64usize]
}

/// Either encoding the reader supports.
/// Plain batches, or a JSON reader's on Bun: the same lines, its ASCII ones kept as bytes.
fn json_batches() -> impl Strategy<Value = JsonBatches> {
    prop::sample::select(vec![JsonBatches::Plain, JsonBatches::Bytes])
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![Just(Encoding::Utf8), Just(Encoding::Latin1)]
}

/// An input and a range over it: most often the whole input, otherwise bounds anywhere in it
/// or just past it.
fn input_and_range() -> impl Strategy<Value = (Vec<u8>, ByteRange)> {
    let bound = || prop::option::weighted(0.3, any::<Index>());
    (input_bytes(), bound(), bound()).prop_map(|(input, start, end)| {
        let range = ByteRange::pick(start, end, input.len());
        (input, range)
    })
}

// ---------------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Property 1: the reader's lines are the reference lines of the selected bytes, decoded.
    #[test]
    fn reader_lines_match_the_reference(
        (input, range) in input_and_range(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        encoding in encoding(),
        json in json_batches(),
    ) {
        let setup = ReaderSetup { range, plan, chunk_size, encoding, limits: Limits::NONE, json };
        let expected = reference_output(range.select(&input), encoding, Limits::NONE);
        prop_assert_eq!(reader_output(&input, &setup), expected);
    }

    /// Property 1 (positions): every line of every batch ends, by its batch's layout, where the
    /// reference line ends in the input; so `position` resumes reading exactly after a line.
    #[test]
    fn batch_layouts_place_every_line_where_it_ended(
        input in input_bytes(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        encoding in encoding(),
        json in json_batches(),
    ) {
        let source = Source::new(ChunkedSource::new(input.clone(), plan), None, chunk_size);
        let framer = LineFramer::new(encoding).with_json(json);
        let mut reader = Reader::new(source, framer, Progress::default());
        let mut ends = Vec::new();
        let mut batch_start = 0;
        while let Some(batch) = reader.next_blocking().unwrap() {
            prop_assert_eq!(batch.start, batch_start);
            batch_start = batch.end;
            ends.extend(batch_line_ends(&batch));
        }
        prop_assert_eq!(ends, reference_line_ends(&input));
    }

    /// Property 1b (the `max_line_length` option): the reader gives the reference lines up to
    /// the first line over the limit, then fails; small limits, so that happens often.
    #[test]
    fn reader_stops_at_the_first_line_over_the_limit(
        (input, range) in input_and_range(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        encoding in encoding(),
        max in 0..=24usize,
    ) {
        let limits = Limits { max_line_length: Some(max), ..Limits::NONE };
        let setup = ReaderSetup { range, plan, chunk_size, encoding, limits, json: JsonBatches::Plain };
        let expected = reference_output(range.select(&input), encoding, limits);
        prop_assert_eq!(reader_output(&input, &setup), expected);
    }

    /// Property 1c (the engine's longest string): the reader gives the reference lines up to
    /// the first one with more UTF-16 units than the engine's strings can hold, then fails;
    /// batches of many shorter lines never count as too long. With a line limit too, whichever
    /// line comes first decides.
    #[test]
    fn reader_stops_at_the_first_line_the_engine_cannot_hold(
        (input, range) in input_and_range(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        encoding in encoding(),
        max_string_length in 1..=24usize,
        max_line_length in prop::option::weighted(0.3, 0..=24usize),
    ) {
        let limits = Limits { max_line_length, max_string_length };
        let setup = ReaderSetup { range, plan, chunk_size, encoding, limits, json: JsonBatches::Plain };
        let expected = reference_output(range.select(&input), encoding, limits);
        prop_assert_eq!(reader_output(&input, &setup), expected);
    }

    /// Property 2: decoding alone matches the standard library and picks the right form.
    #[test]
    fn decode_matches_the_reference(bytes in input_bytes()) {
        for encoding in [Encoding::Utf8, Encoding::Latin1] {
            let text = decode(Bytes::copy_from_slice(&bytes), encoding).text;
            prop_assert_eq!(text_to_string(&text), reference_decode(&bytes, encoding));
            prop_assert_eq!(text, expected_text(&bytes, encoding));
        }
    }

    /// Property 3: the counter counts the reference lines, however the input is chunked.
    #[test]
    fn line_counter_matches_the_reference(input in input_bytes(), plan in read_plan()) {
        let expected = reference_lines(&input).len() as u64;
        prop_assert_eq!(counted_lines(&input, &plan), expected);
    }
}

proptest! {
    // Fewer cases than above: each input is a few KiB.
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Property 4: the SIMD wrappers say what the standard library says: ASCII or not, and the
    /// UTF-16 of valid UTF-8 (or nothing for invalid input), also after any prefix is cut off.
    #[test]
    fn simd_transcoding_matches_the_standard_library(bytes in long_input_bytes(), cut in any::<Index>()) {
        let bytes = &bytes[cut.index(bytes.len() + 1)..];
        prop_assert_eq!(is_ascii(bytes), bytes.is_ascii());
        let expected = std::str::from_utf8(bytes).ok().map(|text| text.encode_utf16().collect::<Vec<u16>>());
        prop_assert_eq!(utf8_to_utf16(bytes), expected);
        let ascii_run: Vec<u8> = bytes.iter().map(|&byte| byte & 0x7f).collect();
        prop_assert!(is_ascii(&ascii_run));
    }

    /// Property 8: the SIMD newline count is the number of `\n` bytes, in every slice (every
    /// alignment and length, across the counter's blocks).
    #[test]
    fn newline_count_matches_a_byte_by_byte_count(bytes in long_input_bytes(), cut in any::<Index>(), end in any::<Index>()) {
        let bytes = &bytes[cut.index(bytes.len() + 1)..];
        let bytes = &bytes[..end.index(bytes.len() + 1)];
        let expected = bytes.iter().filter(|&&byte| byte == b'\n').count() as u64;
        prop_assert_eq!(count_newlines(bytes), expected);
    }
}

// ---------------------------------------------------------------------------------------------
// The reference itself, on cases worked out by hand

/// The reference cuts lines where `readline` does.
#[test]
fn reference_lines_follow_readline() {
    let cases: &[(&[u8], &[&[u8]])] = &[
        (b"", &[]),
        (b"\n", &[b""]),
        (b"\r\n", &[b""]),
        (b"\r\r\n", &[b"", b""]),
        (b"\n\r", &[b"", b""]),
        (b"a", &[b"a"]),
        (b"a\r\nb\rc\n\nd", &[b"a", b"b", b"c", b"", b"d"]),
    ];
    for &(input, expected) in cases {
        assert_eq!(reference_lines(input), expected, "input {input:?}");
    }
}

/// Ranges select the bytes `fs.createReadStream` would read, and budget the reader accordingly.
#[test]
fn byte_ranges_select_like_create_read_stream() {
    let input = b"0123456789";
    let range = |start, end| ByteRange { start, end };
    assert_eq!(range(0, None).select(input), b"0123456789");
    assert_eq!(range(2, Some(4)).select(input), b"234");
    assert_eq!(range(4, Some(4)).select(input), b"4");
    assert_eq!(range(5, Some(4)).select(input), b"");
    assert_eq!(range(8, Some(20)).select(input), b"89");
    assert_eq!(range(11, None).select(input), b"");
    assert_eq!(range(5, Some(4)).remaining(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// Filtering

/// Whether `line` (decoded) includes `string`, ASCII letters compared either case if asked.
fn includes(line: &str, string: &str, ignore_case: bool) -> bool {
    if ignore_case {
        line.to_ascii_lowercase()
            .contains(&string.to_ascii_lowercase())
    } else {
        line.contains(string)
    }
}

/// Strings to look for: short ones from the soup's own alphabet, so that they match often,
/// with U+FFFD (what invalid bytes decode to), terminators (which never match) and letters of
/// both cases.
fn match_strings() -> impl Strategy<Value = Vec<String>> {
    let string = prop::sample::select(vec![
        "a",
        "b",
        "ab",
        "A",
        "aB",
        "\u{e9}",
        "\u{4e2d}",
        "\u{fffd}",
        "a\u{fffd}",
        "\u{2028}",
        "\u{1f600}",
        "\n",
        "a\r",
        "\u{ff}",
        "\u{100}",
        " ",
    ]);
    prop::collection::vec(string.prop_map(str::to_owned), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The filter keeps exactly the reference lines whose decoded text includes one of the
    /// strings (or, inverted, none), with their indexes and bytes in the run, and counts the
    /// run's lines, whatever the bytes.
    #[test]
    fn filter_keeps_the_lines_that_include_a_string(
        input in input_bytes(),
        strings in match_strings(),
        ignore_case in any::<bool>(),
        invert in any::<bool>(),
        encoding in encoding(),
    ) {
        let lines = reference_lines(&input);
        // The run as the framer gives it: each line ending with `\n`.
        let mut run = lines.join(&b'\n');
        if !lines.is_empty() {
            run.push(b'\n');
        }
        let what = Match { strings: strings.clone(), ignore_case, invert };
        let (mut kept, mut found) = (Vec::new(), Vec::new());
        let line_count = LineFilter::new(&what, encoding).keep(&run, &mut kept, &mut found);
        prop_assert_eq!(line_count, lines.len() as u64);
        let line_starts: Vec<usize> = lines
            .iter()
            .scan(0, |start, line| {
                let this = *start;
                *start += line.len() + 1;
                Some(this)
            })
            .collect();
        for kept_line in &found {
            let start = line_starts[kept_line.index as usize];
            let line = &lines[kept_line.index as usize];
            prop_assert_eq!(kept_line.range.clone(), start..start + line.len() + 1);
        }
        let indexes: Vec<u64> = found.iter().map(|kept_line| kept_line.index).collect();
        let expected: Vec<(u64, String)> = lines
            .iter()
            .map(|line| reference_decode(line, encoding))
            .enumerate()
            .filter(|(_, line)| strings.iter().any(|s| includes(line, s, ignore_case)) != invert)
            .map(|(index, line)| (index as u64, line))
            .collect();
        let mut got_lines: Vec<&[u8]> = kept.split(|&b| b == b'\n').collect();
        got_lines.pop(); // after the last `\n`
        prop_assert_eq!(LineFilter::new(&what, encoding).count(&run), indexes.len() as u64);
        let got: Vec<(u64, String)> = indexes
            .iter()
            .copied()
            .zip(got_lines.iter().map(|line| reference_decode(line, encoding)))
            .collect();
        prop_assert_eq!(indexes.len(), got_lines.len());
        prop_assert_eq!(got, expected);
    }

    /// A reader with a filter gives the reference lines that include a string (or none), with
    /// their numbers in the input and where each started and ended, however the input is read.
    #[test]
    fn filtered_reader_gives_the_matching_lines_with_their_numbers(
        input in input_bytes(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        strings in match_strings(),
        ignore_case in any::<bool>(),
        invert in any::<bool>(),
        encoding in encoding(),
    ) {
        let what = Match { strings: strings.clone(), ignore_case, invert };
        let source = Source::new(ChunkedSource::new(input.clone(), plan), None, chunk_size);
        let framer = LineFramer::new(encoding).with_match(Some(&what));
        let mut reader = Reader::new(source, framer, Progress::default());
        let mut got = Vec::new();
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        while let Some(batch) = reader.next_blocking().unwrap() {
            let kept = batch.kept.clone().expect("kept lines");
            let text = text_to_string(&batch.text);
            prop_assert_eq!(kept.numbers.len(), text.split('\n').count());
            prop_assert_eq!(kept.starts.len(), kept.numbers.len());
            got.extend(kept.numbers.into_iter().zip(text.split('\n').map(str::to_owned)));
            starts.extend(kept.starts.iter().map(|start| batch.start + start));
            ends.extend(batch_line_ends(&batch));
        }
        let reference_ends = reference_line_ends(&input);
        let expected: Vec<(u64, String)> = reference_lines(&input)
            .iter()
            .map(|line| reference_decode(line, encoding))
            .enumerate()
            .filter(|(_, line)| strings.iter().any(|s| includes(line, s, ignore_case)) != invert)
            .map(|(index, line)| (index as u64 + 1, line))
            .collect();
        let expected_ends: Vec<u64> =
            expected.iter().map(|(number, _)| reference_ends[*number as usize - 1]).collect();
        let expected_starts: Vec<u64> = expected
            .iter()
            .map(|(number, _)| if *number == 1 { 0 } else { reference_ends[*number as usize - 2] })
            .collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(starts, expected_starts);
        prop_assert_eq!(ends, expected_ends);
    }
}

// ---------------------------------------------------------------------------------------------
// Byte sources

/// What a reader makes of `input` fed as the chunks `plan` cuts, through a fed source (the
/// path a stream's chunks take from JS), read to the end on a current-thread runtime.
fn fed_output(input: &[u8], plan: &[ReadStep], chunk_size: usize, limit: usize) -> Vec<String> {
    let (feed, fed_input) = fastlines_core::fed(limit, 1);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let chunks = chunks_by_plan(input, plan);
    runtime.block_on(async move {
        let feeder = async {
            for chunk in chunks {
                if !feed.push(chunk) {
                    feed.room().await;
                }
            }
            feed.end();
        };
        let source = Source::new(fed_input, None, chunk_size);
        let mut reader = Reader::new(source, LineFramer::new(Encoding::Utf8), Progress::default());
        let read = async {
            let mut lines = Vec::new();
            while let Some(batch) = reader.next_async().await.expect("no failure") {
                lines.extend(text_to_string(&batch.text).split('\n').map(str::to_owned));
            }
            lines
        };
        tokio::join!(feeder, read).1
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A fed source (chunks of any size, a read-ahead of any bound) gives the reference lines.
    #[test]
    fn fed_source_lines_match_the_reference(
        input in input_bytes(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        limit in 1usize..64,
    ) {
        let expected = reference_output(&input, Encoding::Utf8, Limits::NONE).0;
        prop_assert_eq!(fed_output(&input, &plan, chunk_size, limit), expected);
    }
}

/// A runtime with a background task's thread besides the one the test drives.
fn two_workers() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("runtime")
}

/// What a fed stream (`ReadStream::fed`) gives its consumer, on one thread with its feeder as
/// in JS: the feeder pushes `bursts[i]` chunks at a time, waiting for room when the queue is
/// full, and the consumer frames what it may itself (`try_next`), waits for the next push when
/// told it is starved, and waits on the background (`next`) when told to or when `waits[i]`
/// says so. The background task frames whenever `wake_bytes` are queued or the consumer waits
/// on it, so both sides frame, in many interleavings.
fn fed_stream_output(
    input: &[u8],
    plan: &[ReadStep],
    (chunk_size, limit, wake_bytes): (usize, usize, usize),
    bursts: &[usize],
    waits: &[bool],
) -> Vec<String> {
    use fastlines_core::{ReadStream, TryNext};
    let runtime = two_workers();
    let chunks = chunks_by_plan(input, plan);
    runtime.block_on(async move {
        let (feed, fed_input) = fastlines_core::fed(limit, wake_bytes);
        let source = Source::new(fed_input, None, chunk_size);
        let stream = ReadStream::fed(source, LineFramer::new(Encoding::Utf8));
        let pushed = tokio::sync::Notify::new();
        let feeder = async {
            let mut chunks = chunks.into_iter();
            for burst in bursts.iter().cycle() {
                let mut pushed_any = false;
                for chunk in chunks.by_ref().take(*burst) {
                    pushed_any = true;
                    if !feed.push(chunk) {
                        feed.room().await;
                    }
                }
                if !pushed_any {
                    break;
                }
                pushed.notify_one();
                tokio::task::yield_now().await;
            }
            feed.end();
            pushed.notify_one();
        };
        let consumer = async {
            let mut lines = Vec::new();
            for step in 0.. {
                let next = if waits[step % waits.len()] {
                    stream.next().await
                } else {
                    match stream.try_next() {
                        TryNext::Ready(next) => next,
                        TryNext::Wait => stream.next().await,
                        TryNext::Starved => {
                            pushed.notified().await;
                            continue;
                        }
                    }
                };
                match next {
                    Some(batch) => {
                        let batch = batch.expect("no failure");
                        lines.extend(text_to_string(&batch.text).split('\n').map(str::to_owned));
                    }
                    None => break,
                }
            }
            lines
        };
        tokio::join!(feeder, consumer).1
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A fed stream gives the reference lines in order, whichever side frames each part.
    #[test]
    fn fed_stream_lines_match_the_reference(
        input in input_bytes(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        limit in 1usize..64,
        wake in 1usize..64,
        bursts in proptest::collection::vec(1usize..4, 1..8),
        waits in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        let expected = reference_output(&input, Encoding::Utf8, Limits::NONE).0;
        let got = fed_stream_output(&input, &plan, (chunk_size, limit, wake), &bursts, &waits);
        prop_assert_eq!(got, expected);
    }
}

/// What a fed stream gives a consumer whose feeder hands it chunks, as `lib/byte-source.js`
/// does: the feeder runs alongside the consumer on its thread. When the consumer waits for a
/// feed (it was told `Starved`) and `hand_over[i]` says so, a small chunk is pushed and framed
/// in one step (`try_next_fed`) and the consumer gets what that gave; otherwise the chunk is
/// pushed and the consumer, if it waits, is told to take items as usual. After `Drained`, the
/// next `try_next` must frame nothing: that is what lets the consumer wait for the next chunk
/// without asking first.
fn fed_and_framed_output(
    input: &[u8],
    plan: &[ReadStep],
    (chunk_size, wake_bytes, max_line_length): (usize, usize, Option<usize>),
    hand_over: &[bool],
) -> (Vec<String>, Option<ReadError>) {
    use fastlines_core::{FedNext, ReadStream, TryNext, FRAME_HERE_BYTES, READ_AHEAD_BYTES};
    use std::cell::Cell;
    let runtime = two_workers();
    let chunks = chunks_by_plan(input, plan);
    runtime.block_on(async move {
        let (feed, fed_input) = fastlines_core::fed(READ_AHEAD_BYTES, wake_bytes);
        let stream = ReadStream::fed(
            Source::new(fed_input, None, chunk_size),
            LineFramer::new(Encoding::Utf8).with_max_line_length(max_line_length),
        );
        // Set while the consumer waits for a feed; the feeder tells it what happened: what the
        // hand-over gave (with `feeds` then), or `None` after a plain push or the end.
        let waiting = Cell::new(false);
        // Chunks pushed and the end, counted: what may complete another item.
        let feeds = Cell::new(0usize);
        // The consumer's sign that it took its step after a hand-over, which the feeder waits
        // for, so that the step sees what the hand-over left.
        let stepped = tokio::sync::Notify::new();
        let (fed, mut handed) =
            tokio::sync::mpsc::unbounded_channel::<Option<(FedNext<Batch>, usize)>>();
        let feeder = async {
            for (i, chunk) in chunks.into_iter().enumerate() {
                if waiting.get() && hand_over[i % hand_over.len()] && chunk.len() < FRAME_HERE_BYTES
                {
                    waiting.set(false);
                    feeds.set(feeds.get() + 1);
                    fed.send(Some((stream.try_next_fed(&feed, chunk), feeds.get())))
                        .expect("a consumer");
                    stepped.notified().await;
                } else {
                    feeds.set(feeds.get() + 1);
                    let room = feed.push(chunk);
                    if waiting.replace(false) {
                        fed.send(None).expect("a consumer");
                    }
                    if !room {
                        feed.room().await;
                    }
                }
                tokio::task::yield_now().await;
            }
            feeds.set(feeds.get() + 1);
            feed.end();
            if waiting.replace(false) {
                fed.send(None).expect("a consumer");
            }
        };
        let consumer = async {
            let mut lines = Vec::new();
            let take = |lines: &mut Vec<String>, batch: Batch| {
                lines.extend(text_to_string(&batch.text).split('\n').map(str::to_owned));
            };
            // `feeds` when the last hand-over said `Drained`.
            let mut drained = None;
            let mut handed_over = false;
            loop {
                let step = stream.try_next();
                if std::mem::take(&mut handed_over) {
                    stepped.notify_one();
                }
                let next = match step {
                    TryNext::Ready(_) if drained == Some(feeds.get()) => {
                        panic!("drained, then framed more unfed")
                    }
                    TryNext::Ready(next) => next,
                    // The background task may hold the reader for a moment (a push woke it).
                    TryNext::Wait => stream.next().await,
                    TryNext::Starved => {
                        waiting.set(true);
                        drained = None;
                        let feed = handed.recv().await.expect("a feeder");
                        handed_over = feed.is_some();
                        match feed {
                            Some((FedNext::Drained(batch), fed_so_far)) => {
                                take(&mut lines, batch);
                                drained = Some(fed_so_far);
                            }
                            Some((FedNext::Over(Some(failure)), _)) => {
                                stepped.notify_one();
                                return (lines, Some(failure));
                            }
                            Some((FedNext::Over(None), _)) => panic!("over before the end"),
                            Some((FedNext::Starved | FedNext::Elsewhere, _)) | None => {}
                        }
                        continue;
                    }
                };
                drained = None;
                match next {
                    Some(Ok(batch)) => take(&mut lines, batch),
                    Some(Err(failure)) => return (lines, Some(failure)),
                    None => return (lines, None),
                }
            }
        };
        tokio::join!(feeder, consumer).1
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A consumer that feeds small chunks itself gets the reference lines in order, and the
    /// failure of a line over `maxLineLength` after them: what framing on after an item finds
    /// in what was already fed, where a hand-over must not say `Drained`.
    #[test]
    fn fed_and_framed_lines_match_the_reference(
        input in input_bytes(),
        plan in read_plan(),
        chunk_size in chunk_size(),
        wake in 1usize..64,
        max_line_length in prop::option::weighted(0.5, 0..=24usize),
        hand_over in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        let limits = Limits { max_line_length, ..Limits::NONE };
        let expected = reference_output(&input, Encoding::Utf8, limits);
        let setup = (chunk_size, wake, max_line_length);
        prop_assert_eq!(fed_and_framed_output(&input, &plan, setup, &hand_over), expected);
    }
}

#[cfg(unix)]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The one unsafe call of `source::descriptor`: a duplicate of an open file's descriptor
    /// reads what reading the file by its path from the same offset reads (the safe
    /// reference), and shares the offset with the original, as `dup(2)` promises.
    #[test]
    fn a_duplicated_descriptor_reads_what_the_path_holds(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        offset in any::<Index>(),
    ) {
        use std::io::{Seek, SeekFrom};
        use std::os::fd::AsRawFd;
        let path = std::env::temp_dir().join(format!("fastlines-dup-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let offset = offset.index(bytes.len() + 1) as u64;
        let mut original = std::fs::File::open(&path).unwrap();
        original.seek(SeekFrom::Start(offset)).unwrap();
        // SAFETY: `original` is open, and held until the end of this case.
        let mut duplicate = unsafe { fastlines_core::duplicate(original.as_raw_fd()) }.unwrap();
        let mut read = Vec::new();
        duplicate.read_to_end(&mut read).unwrap();
        let mut reference = std::fs::File::open(&path).unwrap();
        reference.seek(SeekFrom::Start(offset)).unwrap();
        let mut expected = Vec::new();
        reference.read_to_end(&mut expected).unwrap();
        prop_assert_eq!(read, expected);
        prop_assert_eq!(original.stream_position().unwrap(), bytes.len() as u64);
        std::fs::remove_file(&path).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn a_number_that_names_no_descriptor_is_refused() {
    // SAFETY: neither number names a descriptor of this process, which the contract allows.
    let (negative, past_any) = unsafe {
        (
            fastlines_core::duplicate(-1),
            fastlines_core::duplicate(1 << 30),
        )
    };
    assert_eq!(negative.unwrap_err().raw_os_error(), Some(9));
    assert_eq!(past_any.unwrap_err().raw_os_error(), Some(9));
}

// ---------------------------------------------------------------------------------------------
// Shares of a file, and counts in parts

/// The lines a reader gives for each share of the file at `path`, read in order: every share's
/// lines, until one fails (then its lines before the failure and the error).
fn shares_output(
    path: &std::path::Path,
    count: u64,
    chunk_size: usize,
    encoding: Encoding,
    limits: Limits,
) -> (Vec<String>, Option<ReadError>) {
    let mut lines = Vec::new();
    for index in 0..count {
        let options = ReadOptions {
            share: Share::new(index, count),
            ..whole_file(chunk_size)
        };
        let framer = LineFramer::new(encoding)
            .with_max_line_length(limits.max_line_length)
            .with_max_string_length(limits.max_string_length);
        let source =
            fastlines_core::open(path, &options, fastlines_core::Reach::until(&|| false)).unwrap();
        let mut reader = Reader::new(source, framer, Progress::default());
        loop {
            match reader.next_blocking() {
                Ok(Some(batch)) => {
                    lines.extend(text_to_string(&batch.text).split('\n').map(str::to_owned))
                }
                Ok(None) => break,
                Err(err) => return (lines, Some(err)),
            }
        }
    }
    (lines, None)
}

fn whole_file(chunk_size: usize) -> ReadOptions {
    ReadOptions {
        start: 0,
        end: None,
        chunk_size,
        decompress: Decompress::Off,
        share: None,
    }
}

/// A file of this test process holding `bytes`, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!("fastlines-{name}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Shares 0..n-1 read in order give exactly the file's lines, whatever the cuts go
    /// through (a `\r\n`, a character, a line longer than several shares), with the same
    /// failure at the same line when one is too long.
    #[test]
    fn shares_read_in_order_give_the_files_lines(
        input in input_bytes(),
        count in 1u64..=16,
        chunk_size in chunk_size(),
        encoding in encoding(),
        max_line_length in prop::option::weighted(0.3, 0usize..=24),
    ) {
        let file = TempFile::new("shares", &input);
        let limits = Limits { max_line_length, ..Limits::NONE };
        let got = shares_output(&file.0, count, chunk_size, encoding, limits);
        prop_assert_eq!(got, reference_output(&input, encoding, limits));
    }

    /// A count in parts, of every line or of those a filter keeps, is the one-pass count, for
    /// every number of parts and within every byte range.
    #[test]
    fn counts_in_parts_are_the_one_pass_count(
        (input, range) in input_and_range(),
        parts in 1usize..=16,
        strings in match_strings(),
    ) {
        let file = TempFile::new("parts", &input);
        let options = ReadOptions {
            start: range.start,
            end: range.end,
            ..whole_file(64)
        };
        let filter = LineFilter::new(
            &Match { strings, ignore_case: false, invert: false },
            Encoding::Utf8,
        );
        let cancelled = AtomicBool::new(false);
        let threads = Threads::Parts(NonZeroUsize::new(parts).unwrap());
        let one = Threads::Parts(NonZeroUsize::MIN);
        for filter in [None, Some(&filter)] {
            let in_parts = count_lines(&file.0, &options, filter, threads, &cancelled).unwrap();
            let in_one = count_lines(&file.0, &options, filter, one, &cancelled).unwrap();
            prop_assert_eq!(in_parts, in_one);
        }
        let all = count_lines(&file.0, &options, None, one, &cancelled).unwrap();
        prop_assert_eq!(all, Some(reference_lines(range.select(&input)).len() as u64));
    }
}
