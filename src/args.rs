//! What JS passes in, turned into core types. The JS layer has already validated every value,
//! so this only converts.

use std::path::PathBuf;
use std::task::Poll;

use fastlines_core::{Encoding, LineFramer, OsError, ReadError, ReadOptions};
use napi::bindgen_prelude::{Either, Uint8Array, Undefined};
use napi_derive::napi;

/// Options as the JS layer forwards them, already validated.
#[napi(object)]
pub struct NativeOptions {
    pub start: f64,
    /// Inclusive; absent for "to the end".
    pub end: Option<f64>,
    pub chunk_size: u32,
    pub latin1: bool,
    /// Bytes; absent for no limit.
    pub max_line_length: Option<f64>,
}

impl NativeOptions {
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            start: self.start as u64,
            end: self.end.map(|end| end as u64),
            chunk_size: self.chunk_size as usize,
        }
    }

    pub fn line_framer(&self) -> LineFramer {
        let encoding = if self.latin1 {
            Encoding::Latin1
        } else {
            Encoding::Utf8
        };
        let max_line_length = self.max_line_length.map(|max| max as usize);
        LineFramer::new(encoding).with_max_line_length(max_line_length)
    }
}

/// Why a step failed, reported as data: the JS layer builds the `Error` from it. A failed
/// syscall has `errno` and `syscall`; a line over the limit has `maxLineLength`.
#[napi(object)]
pub struct NativeError {
    pub errno: Option<i32>,
    pub syscall: Option<String>,
    pub max_line_length: Option<f64>,
}

impl From<OsError> for NativeError {
    fn from(err: OsError) -> Self {
        NativeError {
            errno: Some(err.errno),
            syscall: Some(err.syscall.to_owned()),
            max_line_length: None,
        }
    }
}

impl From<ReadError> for NativeError {
    fn from(err: ReadError) -> Self {
        match err {
            ReadError::Os(err) => err.into(),
            ReadError::LineTooLong { max_line_length } => NativeError {
                errno: None,
                syscall: None,
                max_line_length: Some(max_line_length as f64),
            },
        }
    }
}

/// What one step gives JS: the item, `null` at the end, or the failure.
pub type Step<T> = Option<Either<T, NativeError>>;

/// A stream's next item as a step, the item made into its JS form by `into_js`.
pub fn step<T, J>(next: Option<Result<T, ReadError>>, into_js: impl FnOnce(T) -> J) -> Step<J> {
    next.map(|item| item.map_or_else(|err| Either::B(err.into()), |item| Either::A(into_js(item))))
}

/// A step taken only if it is ready: `undefined` in JS when it is not.
pub fn ready<T, J>(
    polled: Poll<Option<Result<T, ReadError>>>,
    into_js: impl FnOnce(T) -> J,
) -> Either<Step<J>, Undefined> {
    match polled {
        Poll::Ready(next) => Either::A(step(next, into_js)),
        Poll::Pending => Either::B(()),
    }
}

/// The path bytes JS encoded (UTF-8 for strings, raw for Buffers, as `fs` does).
#[cfg(unix)]
pub fn path_from_bytes(bytes: &Uint8Array) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub fn path_from_bytes(bytes: &Uint8Array) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}
