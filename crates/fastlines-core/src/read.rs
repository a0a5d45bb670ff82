//! One read of an input, blocking or async, and what its failure is as a [`ReadError`]: the
//! OS's (with the syscall Node would name), or a fed source's own.

use std::fs::File;
use std::io::{self, Read};

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::error::ReadError;

/// One `read`, retried when a signal interrupts it (std leaves that to the caller).
pub(crate) fn read_retrying(input: &mut impl Read, into: &mut [u8]) -> Result<usize, ReadError> {
    loop {
        match input.read(into) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            other => return other.map_err(|err| ReadError::from_read(&err)),
        }
    }
}

/// One read of an input that signals readiness (a pipe, a fed source).
pub(crate) async fn read_async(
    input: &mut (impl AsyncRead + Unpin),
    into: &mut [u8],
) -> Result<usize, ReadError> {
    input
        .read(into)
        .await
        .map_err(|err| ReadError::from_read(&err))
}

/// One read of `file` at `offset`, leaving its position alone (Windows moves it; nothing here
/// relies on it there).
#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}
