//! Whether each line of a batch is shaped like one JSON text, for `readJsonLines`: then JS may
//! parse the whole batch as one JSON array, `[` + the lines joined by `\n,` + `\n]`, with one
//! `JSON.parse` instead of one per line (on V8 that took 0.64-0.73x the time per line did, on
//! 200 MB of pino-style lines).
//!
//! Lines that are not one JSON text each can still make a valid array together: `[[1` then
//! `2]]` then `3],[4` parse as three values, none of them a line's. The separators rule out
//! strings across lines (a raw `\n` is not allowed in a JSON string); what is left is a line
//! that closes what it did not open, leaves open what it opened, or holds a comma outside
//! brackets. A batch whose every line is free of those (and not blank) is one JSON text per
//! line exactly when the array parses, and then each element is `JSON.parse` of its line. Whether
//! its tokens are valid JSON is the parse's to say: JS parses the lines one by one when the array
//! does not parse, or when this check says no.

use memchr::memchr3;

/// Whether every line of `lines` (complete lines joined by `\n`, as the splitter gives them, the
/// last one with or without its `\n`) is shaped like one JSON text: not blank, no `"` string
/// left open, every `[`/`{` closed by a later `]`/`}` on the line and none closed before it is
/// opened, and no `,` outside them. Brackets and commas inside strings do not count.
pub fn one_text_per_line(lines: &[u8]) -> bool {
    let mut shape = LineShape::default();
    let mut at = 0;
    while at < lines.len() {
        if shape.in_string {
            // Inside a string only a quote or a backslash matters: jump to the next one, or to
            // the line's end (a string left open there fails the line).
            let Some(found) = memchr3(b'"', b'\\', b'\n', &lines[at..]) else {
                return false;
            };
            at += found;
            match lines[at] {
                b'"' => shape.in_string = false,
                // The escaped byte, whatever it is, but the line's end: no escape crosses it.
                b'\\' if lines.get(at + 1) != Some(&b'\n') => at += 1,
                _ => return false,
            }
            at += 1;
            continue;
        }
        let byte = lines[at];
        if byte == b'\n' {
            if !shape.is_one_text() {
                return false;
            }
            shape = LineShape::default();
        } else if !shape.step(byte) {
            return false;
        }
        at += 1;
    }
    // Every line ending with a `\n` was checked there; a last one without, here.
    matches!(lines.last(), None | Some(b'\n')) || shape.is_one_text()
}

/// What a line's bytes outside strings showed so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct LineShape {
    /// Brackets opened and not yet closed.
    depth: u32,
    /// Inside a `"` string.
    in_string: bool,
    /// Something other than spaces and tabs was met: the line is not blank.
    seen: bool,
}

impl LineShape {
    /// Takes one byte outside strings; false when the line cannot be one JSON text.
    fn step(&mut self, byte: u8) -> bool {
        match byte {
            b' ' | b'\t' => {}
            b'"' => {
                self.in_string = true;
                self.seen = true;
            }
            b'[' | b'{' => {
                self.depth += 1;
                self.seen = true;
            }
            b']' | b'}' => match self.depth.checked_sub(1) {
                Some(depth) => self.depth = depth,
                None => return false,
            },
            b',' if self.depth == 0 => return false,
            _ => self.seen = true,
        }
        true
    }

    /// Whether the line, ending here, is shaped like one JSON text.
    fn is_one_text(&self) -> bool {
        self.seen && self.depth == 0 && !self.in_string
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: the same rules, byte by byte, one line at a time, written as plainly as
    /// they are stated.
    fn reference(lines: &[u8]) -> bool {
        if lines.is_empty() {
            return true; // no line at all
        }
        let text = lines.strip_suffix(b"\n").unwrap_or(lines);
        text.split(|&byte| byte == b'\n').all(|line| {
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
        })
    }

    #[test]
    fn lines_shaped_like_one_text_each() {
        let yes: &[&[u8]] = &[
            b"1\n",
            b"{\"a\": [1, 2, {\"b\": \"],[\"}]}\n[]\n\"x\\\"]\"",
            b"\"\\\\\"\n{}\n",
            // Not JSON, but shaped like one text: the parse says no.
            b"1 2\n",
            b"{\"a\":1 \"b\"}",
            b"\xef\xbb\xbf{}\n",
        ];
        for lines in yes {
            assert!(
                one_text_per_line(lines),
                "{:?}",
                String::from_utf8_lossy(lines)
            );
        }
        let no: &[&[u8]] = &[
            b"[[1\n2]]\n3],[4\n",
            b"1,2\n",
            b"{\"a\":1}\n\n{}\n",
            b"1\n \t\n",
            b"]\n",
            b"\"open\n\"",
            b"\"escaped end\\\"\n",
            b"{\"a\": [1}\n",
            b"[\n]\n",
        ];
        for lines in no {
            assert!(
                !one_text_per_line(lines),
                "{:?}",
                String::from_utf8_lossy(lines)
            );
            assert!(!reference(lines), "{:?}", String::from_utf8_lossy(lines));
        }
    }

    proptest! {
        #[test]
        fn matches_the_reference(lines in proptest::collection::vec(
            prop::sample::select(b"[]{}\",\\ \tx1\n".to_vec()), 0..64)) {
            prop_assert_eq!(one_text_per_line(&lines), reference(&lines));
        }
    }
}
