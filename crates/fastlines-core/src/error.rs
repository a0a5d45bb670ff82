use std::io;

/// `EINVAL`: used for failures that carry no OS error code (for example a path the OS cannot
/// represent), so every failure still reaches JS with an errno.
const EINVAL: i32 = 22;

/// A failed system call, carrying what Node puts on its fs errors: the (positive) OS error
/// number and the name of the syscall. The JS layer adds `code`, `path` and the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OsError {
    pub errno: i32,
    pub syscall: &'static str,
}

impl OsError {
    pub fn new(err: &io::Error, syscall: &'static str) -> Self {
        OsError {
            errno: err.raw_os_error().unwrap_or(EINVAL),
            syscall,
        }
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
