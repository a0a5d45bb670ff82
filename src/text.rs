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

/// A batch of lines joined by `\n`, becoming one JS string.
pub struct JsText {
    pub text: Text,
    /// Lend the text to the engine as an external string instead of copying it (see
    /// [`create_external`]).
    pub external: bool,
}

impl JsText {
    /// How a stream makes its batches into JS text: `external` as its line options say.
    pub fn maker(external: bool) -> impl Fn(Text) -> JsText {
        move |text| JsText { text, external }
    }
}

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

/// Batches shorter than this are copied even where external strings are asked for: tracking
/// and finalizing an external string costs more than copying a short one.
const MIN_EXTERNAL_LEN: usize = 1024;

impl ToNapiValue for JsText {
    /// # Safety
    /// Called by napi on the JS thread with a live `env`, as the trait requires.
    unsafe fn to_napi_value(env: sys::napi_env, text: Self) -> Result<sys::napi_value> {
        let text = if text.external && text.text.len() >= MIN_EXTERNAL_LEN {
            // SAFETY: `env` is live (trait contract).
            match unsafe { create_external(env, text.text) } {
                Ok(value) => return Ok(value),
                Err(refused) => refused,
            }
        } else {
            text.text
        };
        let mut value = ptr::null_mut();
        // SAFETY: `env` is live (trait contract); each pointer and length describe a slice that
        // outlives the call, and napi copies it before returning. Every byte is a valid Latin-1
        // code unit, and the UTF-16 comes from a transcoder that emits only valid UTF-16.
        let status = unsafe {
            match &text {
                Text::OneByte(bytes) => sys::napi_create_string_latin1(
                    env,
                    bytes.as_ptr().cast::<c_char>(),
                    bytes.len() as isize,
                    &mut value,
                ),
                Text::Utf16(units) => sys::napi_create_string_utf16(
                    env,
                    units.as_ptr(),
                    units.len() as isize,
                    &mut value,
                ),
            }
        };
        check_status!(status, "Failed to create a string for a batch of lines")?;
        Ok(value)
    }
}

/// Lends `text` to the engine as an external string: no copy on the JS thread, and the text's
/// memory (a pooled read buffer, or the transcoded UTF-16) goes back when the engine collects
/// the string. Bun adopts such strings as they are; V8 allocates them in its old generation,
/// where they wait for a full collection, which measured slower than copying, so the JS layer
/// asks for them on Bun only. If the engine refuses, the text comes back for the caller to copy.
///
/// # Safety
/// `env` must be live, on the JS thread.
unsafe fn create_external(
    env: sys::napi_env,
    text: Text,
) -> std::result::Result<sys::napi_value, Text> {
    let lent = Box::new(text);
    let mut value = ptr::null_mut();
    let mut copied = false;
    // The text moves to the heap with the box, so its data pointer is the one the engine keeps.
    let (data, len) = match &*lent {
        Text::OneByte(bytes) => (bytes.as_ptr().cast::<c_void>(), bytes.len()),
        Text::Utf16(units) => (units.as_ptr().cast::<c_void>(), units.len()),
    };
    let is_utf16 = matches!(&*lent, Text::Utf16(_));
    let hint = Box::into_raw(lent).cast::<c_void>();
    // SAFETY: `env` is live (caller's contract). `data` points at `len` code units owned by the
    // boxed text behind `hint`, which stays alive and unmoved until `release_text` drops it:
    // the engine calls it exactly once when it is done with the string (synchronously if it
    // copied instead). The units are valid Latin-1, or valid UTF-16 from the transcoder.
    let status = unsafe {
        if is_utf16 {
            sys::node_api_create_external_string_utf16(
                env,
                data.cast::<u16>(),
                len as isize,
                Some(release_text),
                hint,
                &mut value,
                &mut copied,
            )
        } else {
            sys::node_api_create_external_string_latin1(
                env,
                data.cast::<c_char>().cast_mut(),
                len as isize,
                Some(release_text),
                hint,
                &mut value,
                &mut copied,
            )
        }
    };
    if status != sys::Status::napi_ok {
        // SAFETY: on failure the engine took nothing and never calls `release_text`, so the
        // box is still ours to take back, once.
        return Err(*unsafe { Box::from_raw(hint.cast::<Text>()) });
    }
    Ok(value)
}

/// The finalizer of an external string: gives the lent text back (its buffer returns to its
/// reader's pool).
///
/// # Safety
/// Called by the engine, once, with the `hint` that [`create_external`] passed.
unsafe extern "C" fn release_text(
    _env: sys::node_api_basic_env,
    _data: *mut c_void,
    hint: *mut c_void,
) {
    // SAFETY: `hint` is the box leaked by `create_external`, and the engine calls this once.
    drop(unsafe { Box::from_raw(hint.cast::<Text>()) });
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
