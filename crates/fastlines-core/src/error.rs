//! Why reading failed, as data: the binding turns these into the errors Node would give.

use std::borrow::Cow;
use std::io;

/// A failed system call, carrying what Node puts on its fs errors: the error number as libuv
/// reports it (made positive) and the name of the syscall. The JS layer adds `code`, `path` and the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OsError {
    pub errno: i32,
    pub syscall: &'static str,
}

impl OsError {
    pub fn new(err: &io::Error, syscall: &'static str) -> Self {
        OsError {
            errno: uv_errno(err),
            syscall,
        }
    }
}

/// On Unix libuv reports the OS's own error numbers. A failure without one (for example a path
/// the OS cannot represent) becomes `EINVAL`, so every failure still reaches JS with an errno.
#[cfg(unix)]
fn uv_errno(err: &io::Error) -> i32 {
    const EINVAL: i32 = 22;
    err.raw_os_error().unwrap_or(EINVAL)
}

#[cfg(windows)]
fn uv_errno(err: &io::Error) -> i32 {
    windows_uv_errno(err.kind())
}

/// On Windows libuv translates Win32 errors into numbers of its own (`UV_ENOENT` is -4058); this
/// gives the ones a file read can meet, so `code` is `ENOENT` there too. Compiled in tests on
/// every OS so the table is checked here as well.
#[cfg(any(windows, test))]
fn windows_uv_errno(kind: io::ErrorKind) -> i32 {
    use io::ErrorKind::*;
    match kind {
        NotFound => 4058,
        // libuv maps ERROR_ACCESS_DENIED to EPERM, so Node reports that.
        PermissionDenied => 4048,
        IsADirectory => 4068,
        NotADirectory => 4052,
        InvalidInput | InvalidFilename => 4071,
        _ => 4070,
    }
}

impl std::fmt::Display for OsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} failed: {}",
            self.syscall,
            io::Error::from_raw_os_error(self.errno)
        )
    }
}

impl std::error::Error for OsError {}

/// Why decompressing failed, with what Node's `zlib` puts on its error for the same bytes:
/// `Z_DATA_ERROR` (errno -3) and zlib's message for damaged gzip data, `Z_BUF_ERROR` (-5)
/// for an unexpected end of either format, and libzstd's error name and number for damaged
/// zstd data (`ZSTD_error_corruption_detected`, 20).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecompressError {
    pub code: &'static str,
    pub errno: i32,
    pub message: Cow<'static, str>,
}

impl DecompressError {
    /// The input ended inside a member or frame, or before the first.
    pub const UNEXPECTED_END: DecompressError = DecompressError {
        code: "Z_BUF_ERROR",
        errno: -5,
        message: Cow::Borrowed("unexpected end of file"),
    };
}

impl std::fmt::Display for DecompressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Why reading stopped before the end of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A system call failed.
    Os(OsError),
    /// A line ran past the longest a reader was allowed to collect; reading stops there, after
    /// the complete lines before it.
    LineTooLong { max_line_length: usize },
    /// A line has more UTF-16 code units than the consumer's engine can hold in one string;
    /// reading stops there, after the complete lines before it.
    StringTooLong { max_string_length: usize },
    /// The compressed input is damaged or ends early; reading stops there, after the complete
    /// lines before the damage.
    Decompress(DecompressError),
    /// A byte source fed from outside (see `source::fed`) failed: whoever fed it holds the
    /// error, and reports it after the complete lines before the failure.
    Source,
    /// A bug: the reading thread panicked. Reported rather than ending the stream, which would
    /// look like the end of the file and silently drop the rest.
    Panicked,
}

impl From<OsError> for ReadError {
    fn from(err: OsError) -> Self {
        ReadError::Os(err)
    }
}

impl From<DecompressError> for ReadError {
    fn from(err: DecompressError) -> Self {
        ReadError::Decompress(err)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Os(err) => err.fmt(f),
            ReadError::Decompress(err) => err.fmt(f),
            ReadError::Source => write!(f, "the byte source failed"),
            ReadError::Panicked => write!(f, "the reading thread panicked"),
            ReadError::LineTooLong { max_line_length } => {
                write!(f, "a line is longer than {max_line_length} bytes")
            }
            ReadError::StringTooLong { max_string_length } => {
                write!(
                    f,
                    "a line is longer than the longest string ({max_string_length} characters)"
                )
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// What a fed source's reads fail with, inside an `io::Error`, once its feeder says the source
/// failed: [`ReadError::from_read`] makes it [`ReadError::Source`] again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SourceFailed;

impl std::fmt::Display for SourceFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the byte source failed")
    }
}

impl std::error::Error for SourceFailed {}

impl ReadError {
    /// A failed read: the source's own failure if it was a fed source's, else the OS's.
    pub(crate) fn from_read(err: &io::Error) -> Self {
        match err.get_ref() {
            Some(inner) if inner.is::<SourceFailed>() => ReadError::Source,
            _ => ReadError::Os(OsError::new(err, "read")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_errors_use_libuv_numbers() {
        assert_eq!(windows_uv_errno(io::ErrorKind::NotFound), 4058);
        assert_eq!(windows_uv_errno(io::ErrorKind::PermissionDenied), 4048);
        assert_eq!(windows_uv_errno(io::ErrorKind::UnexpectedEof), 4070);
    }

    #[cfg(unix)]
    #[test]
    fn unix_errors_keep_the_os_number() {
        let missing = std::fs::File::open("/nonexistent/fastlines").unwrap_err();
        assert_eq!(OsError::new(&missing, "open").errno, 2);
        let no_code = io::Error::other("no OS code");
        assert_eq!(OsError::new(&no_code, "open").errno, 22);
    }
}
