//! Decoding: turning a run of lines into text a JS engine adopts with a plain copy. ASCII and
//! Latin-1 stay one byte per character; other UTF-8 is transcoded to UTF-16 here, on the
//! reading thread, with invalid sequences replaced exactly as Node's decoders replace them.

use bytes::Bytes;

use crate::transcode;

/// How file bytes map to characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8; invalid sequences become U+FFFD the way WHATWG (and so Node) decoders do.
    Utf8,
    /// ISO-8859-1: every byte is the code point of the same value.
    Latin1,
}

/// Decoded text, in a form a JS engine turns into a string with a plain copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// One byte per UTF-16 code unit (ASCII, or Latin-1): engines store these as one-byte strings.
    OneByte(Bytes),
    /// UTF-16 code units, for text with characters beyond ASCII. Transcoding here, on the
    /// reading thread, beats both engines' UTF-8 decoding on their JS thread (measured: V8 in
    /// Node 20-24 at 160-260 MB/s; Bun 1.4 slower than this too).
    Utf16(Vec<u16>),
    /// ASCII kept as bytes, for a consumer that parses the bytes itself: a JSON reader's batch
    /// on Bun ([`JsonBatches::Bytes`](crate::JsonBatches::Bytes)), with how many lines it joins
    /// (a batch of one empty line has no byte to tell it by).
    Ascii { bytes: Bytes, lines: u32 },
}

impl Text {
    /// The length in UTF-16 code units: what JS engines limit strings by.
    pub fn len(&self) -> usize {
        match self {
            Text::OneByte(bytes) | Text::Ascii { bytes, .. } => bytes.len(),
            Text::Utf16(units) => units.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Text decoded from bytes, and whether it encodes back to exactly those bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: Text,
    /// No byte was replaced: each character stands for its bytes in the encoding (so a line's
    /// length in bytes can be told from its text, see `LineLayout`).
    pub exact: bool,
}

/// Decodes `bytes`, which never end inside a line. Invalid UTF-8 is replaced here, so every
/// runtime gets the same lines whatever its own decoder would have done.
pub fn decode(bytes: Bytes, encoding: Encoding) -> Decoded {
    let exact = |text| Decoded { text, exact: true };
    match encoding {
        Encoding::Latin1 => exact(Text::OneByte(bytes)),
        Encoding::Utf8 if transcode::is_ascii(&bytes) => exact(Text::OneByte(bytes)),
        Encoding::Utf8 => match transcode::utf8_to_utf16(&bytes) {
            Some(units) => exact(Text::Utf16(units)),
            None => Decoded {
                text: Text::Utf16(replacing_invalid(&bytes)),
                exact: false,
            },
        },
    }
}

/// Transcodes invalid UTF-8, replacing each maximal invalid subpart with U+FFFD: the WHATWG
/// Encoding Standard's rule, which V8, Node's `TextDecoder` and `String::from_utf8_lossy` all
/// follow. Valid input, the usual case, takes simdutf's SIMD path instead.
fn replacing_invalid(bytes: &[u8]) -> Vec<u16> {
    String::from_utf8_lossy(bytes).encode_utf16().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf8(bytes: &[u8]) -> Text {
        decode(Bytes::copy_from_slice(bytes), Encoding::Utf8).text
    }

    fn utf16(text: &str) -> Text {
        Text::Utf16(text.encode_utf16().collect())
    }

    #[test]
    fn ascii_and_latin1_stay_one_byte() {
        assert_eq!(utf8(b"plain"), Text::OneByte(Bytes::from_static(b"plain")));
        let latin1 = decode(Bytes::from_static(b"caf\xe9"), Encoding::Latin1);
        assert_eq!(latin1.text, Text::OneByte(Bytes::from_static(b"caf\xe9")));
        assert!(latin1.exact);
    }

    #[test]
    fn other_utf8_becomes_utf16() {
        let text = "caf\u{e9} \u{4e2d} \u{1f600} \u{feff}";
        assert_eq!(utf8(text.as_bytes()), utf16(text));
    }

    #[test]
    fn invalid_utf8_becomes_one_replacement_per_maximal_subpart() {
        // A truncated 3-byte sequence is one subpart; a surrogate encoding is three.
        assert_eq!(utf8(b"caf\xe9"), utf16("caf\u{fffd}"));
        assert!(!decode(Bytes::from_static(b"caf\xe9"), Encoding::Utf8).exact);
        assert_eq!(utf8(b"\xe4\xb8x"), utf16("\u{fffd}x"));
        assert_eq!(utf8(b"\xed\xa0\x80"), utf16("\u{fffd}\u{fffd}\u{fffd}"));
        assert_eq!(utf8(b"\xff\xfe"), utf16("\u{fffd}\u{fffd}"));
        assert_eq!(utf8(b"\xc0\xaf"), utf16("\u{fffd}\u{fffd}"));
    }

    #[test]
    fn replacement_matches_the_standard_library_on_soup() {
        let soup: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for window in soup.windows(37).step_by(5) {
            if window.is_ascii() {
                continue;
            }
            let expected = String::from_utf8_lossy(window);
            assert_eq!(utf8(window), utf16(&expected), "{window:?}");
        }
    }
}
