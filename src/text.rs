//! Handing decoded text to the JS engine as a string, with no re-decoding: copied into the
//! engine's heap, or lent to it as an external string where that is cheaper.

use std::ffi::{c_char, c_void};
use std::ptr;

use bytes::Bytes;
use fastlines_core::Text;
use napi::bindgen_prelude::{
    check_status, sys, BufferSlice, Result, ToNapiValue, TypeName, ValueType,
};
use napi::Env;

use crate::engine_memory::Reported;

/// When to lend text to the engine as an external string instead of copying it (see
/// [`create_external`]): the JS layer picks the policy that measured fastest on its engine.
#[derive(Debug, Clone, Copy)]
pub struct Lending {
    /// Strings of at least this many bytes are lent; shorter ones are copied, since tracking
    /// and finalizing an external string costs more than copying a short one.
    pub from_bytes: usize,
    /// Tell the engine about the memory it holds through lent strings, so that it collects
    /// them as that memory grows (V8 otherwise waits for a full collection).
    pub report_memory: bool,
}

/// A batch of lines joined by `\n`, becoming one JS string; or, ASCII kept as bytes, a `Buffer`
/// of them with their count as its `lineCount` (see [`count_lines_of`]).
pub struct JsText {
    pub text: Text,
    pub lending: Option<Lending>,
}

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for JsText {
    /// # Safety
    /// Called by napi on the JS thread with a live `env`, as the trait requires.
    unsafe fn to_napi_value(env: sys::napi_env, text: Self) -> Result<sys::napi_value> {
        let lines = match text.text {
            Text::Ascii { lines, .. } => Some(lines),
            Text::OneByte(_) | Text::Utf16(_) => None,
        };
        let value = match text.lending {
            Some(lending) if byte_len(&text.text) >= lending.from_bytes => {
                // SAFETY: `env` is live (trait contract).
                match unsafe { create_external(env, text.text, lending.report_memory) } {
                    Ok(value) => value,
                    // SAFETY: the same.
                    Err(refused) => unsafe { create_copy(env, refused) }?,
                }
            }
            // SAFETY: the same.
            _ => unsafe { create_copy(env, text.text) }?,
        };
        if let Some(lines) = lines {
            // SAFETY: the same; `value` is the Buffer just made in it.
            unsafe { count_lines_of(env, value, lines) }?;
        }
        Ok(value)
    }
}

/// `text` copied into the engine: a string, or a `Buffer` for ASCII kept as bytes.
///
/// # Safety
/// `env` must be live, on the JS thread.
unsafe fn create_copy(env: sys::napi_env, text: Text) -> Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    // SAFETY: `env` is live (caller's contract); each pointer and length describe a slice that
    // outlives the call, and napi copies it before returning. Any byte is a Latin-1 code unit
    // and any u16 a UTF-16 one (a JS string may hold a lone surrogate): napi asks nothing more
    // of the units.
    let status = unsafe {
        match &text {
            Text::OneByte(bytes) => sys::napi_create_string_latin1(
                env,
                bytes.as_ptr().cast::<c_char>(),
                bytes.len() as isize,
                &mut value,
            ),
            Text::Utf16(units) => {
                sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut value)
            }
            Text::Ascii { bytes, .. } => {
                let buffer = BufferSlice::copy_from(&Env::from_raw(env), bytes)?;
                return BufferSlice::to_napi_value(env, buffer);
            }
        }
    };
    check_status!(status, "Failed to create a string for a batch of lines")?;
    Ok(value)
}

/// Gives a batch kept as bytes, `buffer`, the count of its lines (joined by `\n`) as its
/// `lineCount`, which JS would otherwise take a search per line to find (28 ns a line on Bun,
/// a twentieth of a `JSON.parse` of a pino line).
///
/// # Safety
/// `env` must be live, on the JS thread, and `buffer` an object made in it.
unsafe fn count_lines_of(env: sys::napi_env, buffer: sys::napi_value, lines: u32) -> Result<()> {
    // SAFETY: `env` is live and `buffer` one of its objects (caller's contract); the name is a
    // NUL-terminated C string.
    unsafe {
        let count = u32::to_napi_value(env, lines)?;
        check_status!(
            sys::napi_set_named_property(env, buffer, c"lineCount".as_ptr(), count),
            "Failed to count the lines of a batch"
        )
    }
}

/// The bytes `text` holds.
fn byte_len(text: &Text) -> usize {
    match text {
        Text::OneByte(bytes) | Text::Ascii { bytes, .. } => bytes.len(),
        Text::Utf16(units) => units.len() * 2,
    }
}

/// Text lent to the engine, with what was reported to it for the text.
struct Lent {
    text: Text,
    reported: Reported,
}

/// Lends `text` to the engine as an external string (for ASCII kept as bytes, an external
/// `Buffer`): no copy on the JS thread, and the text's memory (a pooled read buffer, or the
/// transcoded UTF-16) goes back when the engine collects the string. Bun adopts such strings at
/// every size; V8 allocates them in its old generation, which pays only for strings that would
/// land there anyway (above 128 KiB), and needs the memory reported (`report_memory`) to collect
/// them in time. If the engine refuses, the text comes back for the caller to copy.
///
/// # Safety
/// `env` must be live, on the JS thread.
unsafe fn create_external(
    env: sys::napi_env,
    text: Text,
    report_memory: bool,
) -> std::result::Result<sys::napi_value, Text> {
    let env = Env::from_raw(env);
    let reported = if report_memory {
        Reported::report(&env, byte_len(&text))
    } else {
        Reported::NONE
    };
    let lent = Box::new(Lent { text, reported });
    let mut value = ptr::null_mut();
    let mut copied = false;
    // The text moved to the heap with the box; its data pointer is the one the engine keeps.
    let hint = Box::into_raw(lent);
    // SAFETY: `hint` is the box just leaked, alive until `release_text` or the failure path
    // below takes it back.
    let text = unsafe { &(*hint).text };
    // SAFETY: `env` is live (caller's contract). The pointer and length describe the code
    // units owned by the boxed text behind `hint`, which stays alive and unmoved until
    // `release_text` drops it: the engine calls it exactly once when it is done with the
    // string (synchronously if it copied instead). As for a copied string, napi asks nothing
    // of the units themselves.
    let status = unsafe {
        match text {
            Text::Utf16(units) => sys::node_api_create_external_string_utf16(
                env.raw(),
                units.as_ptr(),
                units.len() as isize,
                Some(release_text),
                hint.cast(),
                &mut value,
                &mut copied,
            ),
            Text::OneByte(bytes) => sys::node_api_create_external_string_latin1(
                env.raw(),
                bytes.as_ptr().cast::<c_char>().cast_mut(),
                bytes.len() as isize,
                Some(release_text),
                hint.cast(),
                &mut value,
                &mut copied,
            ),
            // The engine may write to a Buffer's bytes where it may not to a string's; the JS
            // side never does (lib/cursor.js, AsciiLines), and the bytes are this box's alone
            // for JS to read: the reader's buffer they lie in is reused only once they are
            // released.
            Text::Ascii { bytes, .. } => sys::napi_create_external_buffer(
                env.raw(),
                bytes.len(),
                bytes.as_ptr().cast_mut().cast::<c_void>(),
                Some(release_buffer),
                hint.cast(),
                &mut value,
            ),
        }
    };
    // A null string is a refusal too: where the engine lacks the function (Node before 20.4),
    // napi-sys's stand-in reports success and makes nothing.
    if status != sys::Status::napi_ok || value.is_null() {
        // SAFETY: on failure the engine took nothing and never calls `release_text`, so the
        // box is still ours to take back, once.
        let refused = unsafe { Box::from_raw(hint) };
        refused.reported.take_back(&env);
        return Err(refused.text);
    }
    Ok(value)
}

/// The finalizer of an external `Buffer`: as [`release_text`].
///
/// # Safety
/// Called by the engine, once, with the `hint` that [`create_external`] passed.
unsafe extern "C" fn release_buffer(env: sys::napi_env, data: *mut c_void, hint: *mut c_void) {
    // SAFETY: the same call, whose `env` is the same pointer under the type the string's takes.
    unsafe { release_text(env.cast(), data, hint) }
}

/// The finalizer of an external string: gives the lent text back (its buffer returns to its
/// reader's pool) and takes back what was reported for it.
///
/// # Safety
/// Called by the engine, once, with the `hint` that [`create_external`] passed.
unsafe extern "C" fn release_text(
    env: sys::node_api_basic_env,
    _data: *mut c_void,
    hint: *mut c_void,
) {
    // SAFETY: `hint` is the box leaked by `create_external`, and the engine calls this once.
    let lent = unsafe { Box::from_raw(hint.cast::<Lent>()) };
    // A finalizer's `env` is live unless it is null (the env is being torn down).
    if !env.is_null() {
        lent.reported.take_back(&Env::from_raw(env.cast()));
    }
}

/// Raw bytes of a chunk, becoming a JS `Buffer` that owns a copy of them.
pub struct JsChunk(pub Bytes);

impl TypeName for JsChunk {
    fn type_name() -> &'static str {
        "Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for JsChunk {
    /// # Safety
    /// Called by napi on the JS thread with a live `env`, as the trait requires.
    unsafe fn to_napi_value(env: sys::napi_env, chunk: Self) -> Result<sys::napi_value> {
        let buffer = BufferSlice::copy_from(&Env::from_raw(env), &chunk.0)?;
        // SAFETY: `env` is live (trait contract) and `buffer` was created in it just above.
        unsafe { BufferSlice::to_napi_value(env, buffer) }
    }
}
