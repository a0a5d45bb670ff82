//! What JS gets back from a step: an item, `null` at the end, or a failure as typed data
//! ([`NativeError`]) that `lib/errors.js` turns into the error Node would give.

use fastlines_core::{FedNext, OsError, ReadError, TryNext};
use napi::bindgen_prelude::{Either, Either3, Undefined};
use napi_derive::napi;

/// Which failure a [`NativeError`] reports.
#[napi(string_enum = "camelCase")]
pub enum NativeErrorKind {
    /// A system call failed: `errno` and `syscall` say which and how.
    Os,
    /// A line is longer than `maxLineLength`: `limit` is that many bytes.
    LineTooLong,
    /// A line is longer than the engine's longest string: `limit` is that many UTF-16 units.
    StringTooLong,
    /// The compressed input is damaged or ends early: `code`, `errno` and `message` are what
    /// Node's `zlib` gives for it.
    Decompress,
    /// The byte source JS fed failed: JS holds its error.
    Source,
    /// A bug: the native reading thread panicked.
    Panicked,
}

/// Why a step failed, reported as data: the JS layer builds the `Error` from it, switching on
/// `kind`.
#[napi(object)]
pub struct NativeError {
    pub kind: NativeErrorKind,
    /// `os`: the error number as libuv reports it, made positive.
    pub errno: Option<i32>,
    /// `os`: the failed system call (`open`, `read`).
    pub syscall: Option<String>,
    /// `lineTooLong` and `stringTooLong`: the limit that was exceeded.
    pub limit: Option<f64>,
    /// `decompress`: Node's `zlib` error code (`Z_DATA_ERROR`, `Z_BUF_ERROR`,
    /// `ZSTD_error_...`).
    pub code: Option<String>,
    /// `decompress`: zlib's or libzstd's message.
    pub message: Option<String>,
}

impl NativeError {
    /// A failure of `kind` with none of the fields set.
    fn of(kind: NativeErrorKind) -> Self {
        NativeError {
            kind,
            errno: None,
            syscall: None,
            limit: None,
            code: None,
            message: None,
        }
    }
}

impl From<OsError> for NativeError {
    fn from(err: OsError) -> Self {
        NativeError {
            errno: Some(err.errno),
            syscall: Some(err.syscall.to_owned()),
            ..NativeError::of(NativeErrorKind::Os)
        }
    }
}

impl From<ReadError> for NativeError {
    fn from(err: ReadError) -> Self {
        match err {
            ReadError::Os(err) => err.into(),
            ReadError::LineTooLong { max_line_length } => NativeError {
                limit: Some(max_line_length as f64),
                ..NativeError::of(NativeErrorKind::LineTooLong)
            },
            ReadError::StringTooLong { max_string_length } => NativeError {
                limit: Some(max_string_length as f64),
                ..NativeError::of(NativeErrorKind::StringTooLong)
            },
            ReadError::Decompress(err) => NativeError {
                errno: Some(err.errno),
                code: Some(err.code.to_owned()),
                message: Some(err.message.into_owned()),
                ..NativeError::of(NativeErrorKind::Decompress)
            },
            ReadError::Source => NativeError::of(NativeErrorKind::Source),
            ReadError::Panicked => NativeError::of(NativeErrorKind::Panicked),
        }
    }
}

/// What one step gives JS: the item, `null` at the end, or the failure.
pub type Step<T> = Option<Either<T, NativeError>>;

/// A stream's next item as a step, the item made into its JS form by `into_js`.
pub fn step<T, J>(next: Option<Result<T, ReadError>>, into_js: impl FnOnce(T) -> J) -> Step<J> {
    next.map(|item| item.map_or_else(|err| Either::B(err.into()), |item| Either::A(into_js(item))))
}

/// A step taken only if it is ready: `undefined` in JS when JS has to wait for it (`read()`),
/// `false` when a fed source has to be fed more first (see `fastlines_core::TryNext`).
pub fn ready<T, J>(
    next: TryNext<T>,
    into_js: impl FnOnce(T) -> J,
) -> Either3<Step<J>, Undefined, bool> {
    match next {
        TryNext::Ready(next) => Either3::A(step(next, into_js)),
        TryNext::Wait => Either3::B(()),
        TryNext::Starved => Either3::C(false),
    }
}

/// What JS gets after feeding a chunk (see `fastlines_core::FedNext`): the item, when nothing
/// more is framed until the next chunk; `null` or the failure; `false` when no item is complete
/// yet; `undefined` when JS takes what comes next as usual, with `tryRead()` or `read()`.
pub fn fed<T, J>(
    next: FedNext<T>,
    into_js: impl FnOnce(T) -> J,
) -> Either3<Step<J>, Undefined, bool> {
    match next {
        FedNext::Drained(item) => Either3::A(Some(Either::A(into_js(item)))),
        FedNext::Over(failure) => Either3::A(failure.map(|err| Either::B(err.into()))),
        FedNext::Starved => Either3::C(false),
        FedNext::Elsewhere => Either3::B(()),
    }
}
