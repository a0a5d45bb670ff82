use bytes::Bytes;

/// How file bytes map to characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8; invalid sequences become U+FFFD the way WHATWG (and so Node) decoders do.
    Utf8,
    /// ISO-8859-1: every byte is the code point of the same value.
    Latin1,
}

/// Decoded text, in the form a JS engine can turn into a string with one copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// One byte per UTF-16 code unit (ASCII, or Latin-1): engines store these as one-byte strings.
    OneByte(Bytes),
    /// Valid UTF-8 with at least one non-ASCII character.
    Utf8(Bytes),
}

impl Text {
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Text::OneByte(bytes) | Text::Utf8(bytes) => bytes,
        }
    }
}

/// Decodes `bytes`, which never end inside a line: invalid UTF-8 is replaced here, so every
/// runtime gets the same lines whatever its own decoder would have done.
pub fn decode(bytes: Bytes, encoding: Encoding) -> Text {
    match encoding {
        Encoding::Latin1 => Text::OneByte(bytes),
        Encoding::Utf8 if bytes.is_ascii() => Text::OneByte(bytes),
        Encoding::Utf8 if simdutf8::basic::from_utf8(&bytes).is_ok() => Text::Utf8(bytes),
        Encoding::Utf8 => Text::Utf8(replace_invalid_utf8(&bytes)),
    }
}

/// Replaces each maximal invalid subpart with U+FFFD: the Unicode "best practice" that the
/// WHATWG Encoding Standard, V8 and Node's `TextDecoder` all follow, and so does
/// `String::from_utf8_lossy`.
fn replace_invalid_utf8(bytes: &[u8]) -> Bytes {
    Bytes::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf8(bytes: &[u8]) -> Text {
        decode(Bytes::copy_from_slice(bytes), Encoding::Utf8)
    }

    #[test]
    fn ascii_and_latin1_stay_one_byte() {
        assert_eq!(utf8(b"plain"), Text::OneByte(Bytes::from_static(b"plain")));
        let latin1 = decode(Bytes::from_static(b"caf\xe9"), Encoding::Latin1);
        assert_eq!(latin1, Text::OneByte(Bytes::from_static(b"caf\xe9")));
    }

    #[test]
    fn valid_utf8_is_kept_as_is() {
        let text = "caf\u{e9} \u{4e2d} \u{1f600} \u{feff}";
        assert_eq!(utf8(text.as_bytes()), Text::Utf8(Bytes::from(text)));
    }

    #[test]
    fn invalid_utf8_becomes_one_replacement_per_maximal_subpart() {
        // A truncated 3-byte sequence is one subpart; a surrogate encoding is three.
        assert_eq!(utf8(b"caf\xe9").as_bytes(), "caf\u{fffd}".as_bytes());
        assert_eq!(utf8(b"\xe4\xb8x").as_bytes(), "\u{fffd}x".as_bytes());
        assert_eq!(
            utf8(b"\xed\xa0\x80").as_bytes(),
            "\u{fffd}\u{fffd}\u{fffd}".as_bytes()
        );
        assert_eq!(utf8(b"\xff\xfe").as_bytes(), "\u{fffd}\u{fffd}".as_bytes());
    }
}
