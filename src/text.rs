//! Handing decoded text to the JS engine as a string, with one copy and no re-decoding.

use std::ffi::c_char;
use std::ptr;

use fastlines_core::Text;
use napi::bindgen_prelude::{check_status, sys, Result, ToNapiValue, TypeName, ValueType};

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
        // SAFETY: `env` is live (trait contract); the pointer and length describe a byte slice
        // that outlives the call, and napi copies it before returning. One-byte text is valid
        // Latin-1 by construction and `Utf8` text was validated by the core.
        let status = unsafe {
            match &text.0 {
                Text::OneByte(bytes) => sys::napi_create_string_latin1(
                    env,
                    bytes.as_ptr().cast::<c_char>(),
                    bytes.len() as isize,
                    &mut value,
                ),
                Text::Utf8(bytes) => sys::napi_create_string_utf8(
                    env,
                    bytes.as_ptr().cast::<c_char>(),
                    bytes.len() as isize,
                    &mut value,
                ),
            }
        };
        check_status!(status, "Failed to create a string for a batch of lines")?;
        Ok(value)
    }
}
