//! The one place fastlines calls a native library through its FFI: simdutf's SIMD validation
//! and UTF-8 → UTF-16 transcoding, wrapped in safe functions. Everything unsafe stays here,
//! each block with the reason it is sound, and `tests/properties.rs` checks these functions
//! against the standard library on arbitrary bytes.

/// Whether `bytes` is all ASCII, checked with SIMD.
pub fn is_ascii(bytes: &[u8]) -> bool {
    simdutf::validate_ascii(bytes)
}

/// `bytes` as UTF-16 code units, or `None` if it is not valid UTF-8.
///
/// Three SIMD passes, each many times faster than a scalar transcoder: validation, the exact
/// UTF-16 length (so the output is allocated once, at its size), and the conversion itself,
/// which may then skip all error handling.
pub fn utf8_to_utf16(bytes: &[u8]) -> Option<Vec<u16>> {
    if !simdutf::validate_utf8(bytes) {
        return None;
    }
    let len = simdutf::utf16_length_from_utf8(bytes);
    let mut units = Vec::<u16>::with_capacity(len);
    // SAFETY: `bytes` was just validated as UTF-8, as the converter requires. Both pointers
    // come from live allocations and are non-null and aligned (a `Vec`'s pointer is dangling
    // but aligned and non-null when empty, and then nothing is read or written). `bytes` is
    // readable for its length, and `units` has room for `len` code units: exactly what valid
    // UTF-8 of this length converts to, which is all the converter may write.
    let written = unsafe {
        simdutf::convert_valid_utf8_to_utf16le(bytes.as_ptr(), bytes.len(), units.as_mut_ptr())
    };
    assert_eq!(
        written, len,
        "simdutf wrote another length than it computed"
    );
    // SAFETY: the converter initialized the first `written` (= `len` = capacity) units.
    unsafe { units.set_len(written) };
    Some(units)
}
