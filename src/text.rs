//! Handing decoded text to the JS engine as a string, with one copy and no re-decoding.

use std::ffi::c_char;
use std::ptr;

use bytes::Bytes;
use fastlines_core::Text;
use napi::bindgen_prelude::{
    check_status, sys, BufferSlice, Result, ToNapiValue, TypeName, ValueType,
};
use napi::Env;

/// A batch of lines joined by `\n`, becoming one JS string.
pub struct JsText(pub Text);

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
        let mut value = ptr::null_mut();
        // SAFETY: `env` is live (trait contract); each pointer and length describe a slice that
        // outlives the call, and napi copies it before returning. Every byte is a valid Latin-1
        // code unit, and the UTF-16 comes from a transcoder that emits only valid UTF-16.
        let status = unsafe {
            match &text.0 {
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
