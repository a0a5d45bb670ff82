//! JSON Lines for `readJsonLines` ([`JsonBatches`]). On Bun a batch of ASCII lines comes as
//! their bytes, which JS parses with `Bun.JSONL` between the lines listed here (see
//! [`JsonBatches::Bytes`]). On V8 a batch's lines come as the text of one JSON array,
//! `[` + the lines joined by `\n,` + `\n]` ([`array_text`]), with the lines not shaped like one
//! JSON text listed ([`lines_not_one_text`]). Where none is, JS parses the batch with one
//! `JSON.parse` of that text, as it came from here: on V8 that took 0.64-0.73x the time of a
//! parse per line (200 MB of pino-style lines), and taking the text from here rather than
//! joining the lines in JS took 0.85x the time of that join and parse (2026-12-07, in memory,
//! 48 KB batches, medians of 5). JS splits the text at `\n,` for the lines themselves.
//!
//! Lines that are not one JSON text each can still make a valid array together: `[[1` then
//! `2]]` then `3],[4` parse as three values, none of them a line's. The separators rule out
//! strings across lines (a raw `\n` is not allowed in a JSON string); what is left is a line
//! that closes what it did not open, leaves open what it opened, or holds a comma outside
//! brackets. Lines free of those (and not blank) are one JSON text each exactly when their array
//! parses, and then each element is `JSON.parse` of its line. Whether their tokens are valid
//! JSON is the parse's to say: JS parses the lines one by one where the array does not parse.
//! A line listed here is blank or not JSON at all (each reason to list it breaks the grammar),
//! so JS skips those it is told to skip without parsing them, and parses the others alone.

use memchr::{memchr2, memchr_iter};

use crate::split::count_newlines;

/// The lines of a batch that are not shaped like one JSON text (see [`lines_not_one_text`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotOneText {
    /// Their indexes in the batch, ascending.
    pub indexes: Vec<u32>,
    /// Where each starts in the batch's lines as the splitter joins them: in the bytes of a
    /// [`JsonBatches::Bytes`] batch, which its reader parses between them.
    pub starts: Vec<u64>,
}

/// The lines of `lines` (complete lines joined by `\n`, as the splitter gives them, the last
/// one with or without its `\n`) that are not shaped like one JSON text (see [`is_one_text`]):
/// none when every line is.
pub fn lines_not_one_text(lines: &[u8]) -> NotOneText {
    let mut not = NotOneText::default();
    if lines.is_empty() {
        return not;
    }
    let text = lines.strip_suffix(b"\n").unwrap_or(lines);
    let mut start = 0;
    let ends = memchr_iter(b'\n', text).chain(std::iter::once(text.len()));
    for (index, end) in ends.enumerate() {
        if !is_one_text(&text[start..end]) {
            not.indexes.push(index as u32);
            not.starts.push(start as u64);
        }
        start = end + 1;
    }
    not
}

/// What a [`LineFramer`](crate::LineFramer) does to its batches for a JSON reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonBatches {
    /// Nothing: lines joined by `\n`, not checked (every reader but a JSON one).
    #[default]
    Plain,
    /// One JSON array's text ([`array_text`]), with the lines not shaped like one JSON text
    /// listed ([`lines_not_one_text`]), for a reader that parses a batch with one `JSON.parse`
    /// where none is (on V8), and skips those without a parse that would throw.
    Arrays,
    /// With those lines listed too, a batch of ASCII kept as bytes
    /// ([`Text::Ascii`](crate::Text::Ascii)), for a reader that parses the bytes between the
    /// lines listed with `Bun.JSONL` (on JavaScriptCore, where an array's parse does not gain),
    /// which spares the JS thread the lines' strings and their split. Other batches are decoded
    /// and joined by `\n`, for a parse line by line: Bun.JSONL decodes UTF-8 on the JS thread,
    /// and on records with non-ASCII strings it took 1.2x the time of a `JSON.parse` per line
    /// of the text transcoded here (nested records, 60 MB in memory, 2026-12-07).
    Bytes,
}

/// What [`array_text`] adds to a batch of one line: `[` before it, `\n]` after.
pub const ARRAY_TEXT_FRAMING: usize = 3;

/// `lines` (complete lines joined by `\n`, the last one with or without its `\n`) as the text
/// of one JSON array: `[`, each line followed by `\n` and, but for the last, `,`, then `]`. A
/// line holds no `\n`, so splitting what is between the brackets at `\n,` gives the lines back,
/// even a line that starts with a comma (the split goes left to right).
pub fn array_text(lines: &[u8]) -> Vec<u8> {
    let text = lines.strip_suffix(b"\n").unwrap_or(lines);
    let separators = count_newlines(text) as usize;
    let mut array = Vec::with_capacity(text.len() + separators + ARRAY_TEXT_FRAMING);
    array.push(b'[');
    let mut start = 0;
    for newline in memchr_iter(b'\n', text) {
        array.extend_from_slice(&text[start..=newline]);
        array.push(b',');
        start = newline + 1;
    }
    array.extend_from_slice(&text[start..]);
    array.extend_from_slice(b"\n]");
    array
}

/// Whether `line` (no `\n` in it) is shaped like one JSON text: not blank, no `"` string left
/// open, every `[`/`{` closed by a later `]`/`}` on the line and none closed before it is opened,
/// and no `,` outside them. Brackets and commas inside strings do not count.
fn is_one_text(line: &[u8]) -> bool {
    let (mut depth, mut seen, mut at) = (0u32, false, 0);
    while at < line.len() {
        match line[at] {
            b'"' => match end_of_string(&line[at + 1..]) {
                Some(closing) => {
                    seen = true;
                    at += 1 + closing;
                }
                None => return false,
            },
            b'[' | b'{' => {
                depth += 1;
                seen = true;
            }
            b']' | b'}' => match depth.checked_sub(1) {
                Some(outer) => depth = outer,
                None => return false,
            },
            b',' if depth == 0 => return false,
            b' ' | b'\t' => {}
            _ => seen = true,
        }
        at += 1;
    }
    seen && depth == 0
}

/// Where the string whose opening quote came just before `rest` ends: the index in `rest` of its
/// closing quote, or `None` if the line ends first. A backslash escapes the byte after it.
fn end_of_string(rest: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        at += memchr2(b'"', b'\\', rest.get(at..)?)?;
        if rest[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: the same rules, byte by byte, one line at a time, written as plainly as
    /// they are stated.
    fn reference(lines: &[u8]) -> Vec<u32> {
        if lines.is_empty() {
            return Vec::new(); // no line at all
        }
        let text = lines.strip_suffix(b"\n").unwrap_or(lines);
        let shaped = |line: &[u8]| {
            let (mut depth, mut in_string, mut escaped, mut seen) = (0i64, false, false, false);
            for &byte in line {
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if byte == b'\\' {
                        escaped = true;
                    } else if byte == b'"' {
                        in_string = false;
                    }
                    continue;
                }
                match byte {
                    b' ' | b'\t' => {}
                    b'"' => in_string = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth -= 1,
                    b',' if depth == 0 => return false,
                    _ => {}
                }
                if depth < 0 {
                    return false;
                }
                seen |= !matches!(byte, b' ' | b'\t' | b']' | b'}');
            }
            seen && depth == 0 && !in_string
        };
        text.split(|&byte| byte == b'\n')
            .enumerate()
            .filter(|(_, line)| !shaped(line))
            .map(|(index, _)| index as u32)
            .collect()
    }

    #[test]
    fn lines_shaped_like_one_text_each() {
        let shaped: &[&[u8]] = &[
            b"1\n",
            b"{\"a\": [1, 2, {\"b\": \"],[\"}]}\n[]\n\"x\\\"]\"",
            b"\"\\\\\"\n{}\n",
            // Not JSON, but shaped like one text: the parse says no.
            b"1 2\n",
            b"{\"a\":1 \"b\"}",
            b"\xef\xbb\xbf{}\n",
        ];
        for lines in shaped {
            assert_eq!(
                lines_not_one_text(lines),
                NotOneText::default(),
                "{:?}",
                String::from_utf8_lossy(lines)
            );
        }
        let cases: &[(&[u8], &[u32])] = &[
            (b"[[1\n2]]\n3],[4\n", &[0, 1, 2]),
            (b"1,2\n", &[0]),
            (b"{\"a\":1}\n\n{}\n", &[1]),
            (b"1\n \t\n", &[1]),
            (b"]\n1", &[0]),
            (b"\"open\n\"", &[0, 1]),
            (b"\"escaped end\\\"\n2\n", &[0]),
            (b"\"backslash at the end\\", &[0]),
            (b"{\"a\": [1}\n", &[0]),
            (b"[\n]\n", &[0, 1]),
            (b"\n", &[0]),
        ];
        for (lines, not) in cases {
            assert_eq!(
                lines_not_one_text(lines).indexes,
                *not,
                "{:?}",
                String::from_utf8_lossy(lines)
            );
            assert_eq!(
                reference(lines),
                *not,
                "{:?}",
                String::from_utf8_lossy(lines)
            );
        }
    }

    /// The reference of `array_text`: the lines, split, joined again as the doc says.
    fn array_reference(lines: &[u8]) -> Vec<u8> {
        let text = lines.strip_suffix(b"\n").unwrap_or(lines);
        let joined = text
            .split(|&byte| byte == b'\n')
            .collect::<Vec<_>>()
            .join(&b"\n,"[..]);
        [&b"["[..], &joined, b"\n]"].concat()
    }

    #[test]
    fn an_array_text_splits_back_into_its_lines() {
        assert_eq!(array_text(b"{}\n[1]\n"), b"[{}\n,[1]\n]");
        assert_eq!(array_text(b"1"), b"[1\n]");
        assert_eq!(array_text(b"\n"), b"[\n]", "one empty line");
        assert_eq!(array_text(b",a\n\n"), b"[,a\n,\n]");
        // Split at `\n,` as JS does: at each `\n`, dropping the `,` after it.
        let text = array_text(b",a\n\n,\n");
        let inner = &text[1..text.len() - 2];
        let lines: Vec<&[u8]> = inner
            .split(|&byte| byte == b'\n')
            .enumerate()
            .map(|(index, line)| if index == 0 { line } else { &line[1..] })
            .collect();
        assert_eq!(lines, [&b",a"[..], b"", b","]);
    }

    proptest! {
        #[test]
        fn the_array_text_matches_the_reference(lines in proptest::collection::vec(
            prop::sample::select(b",x\n".to_vec()), 0..64)) {
            prop_assume!(!lines.is_empty());
            prop_assert_eq!(array_text(&lines), array_reference(&lines));
        }

        #[test]
        fn matches_the_reference(lines in proptest::collection::vec(
            prop::sample::select(b"[]{}\",\\ \tx1\n".to_vec()), 0..64)) {
            let not = lines_not_one_text(&lines);
            prop_assert_eq!(&not.indexes, &reference(&lines));
            let text = lines.strip_suffix(b"\n").unwrap_or(&lines);
            let mut starts = vec![0u64];
            starts.extend(memchr_iter(b'\n', text).map(|newline| newline as u64 + 1));
            let listed: Vec<u64> = not.indexes.iter().map(|&index| starts[index as usize]).collect();
            prop_assert_eq!(not.starts, listed);
        }
    }
}
