//! A descriptor fastlines is handed (a runtime's stdin, a `FileHandle`'s fd) and reads itself:
//! duplicated first, so that fastlines reads and closes its own descriptor and never the
//! owner's, which goes on sharing the open file (its offset included).
//!
//! The one unsafe call in this module is the duplication: a raw number becomes a descriptor
//! only by a promise that it names an open file.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, RawFd};

use bytes::Bytes;
use tokio::net::unix::pipe;
use tokio::net::UnixStream;

use super::{Descriptor, ReadyInput, ReadyStream};

/// How to read `file`, a descriptor of our own (see [`duplicate`]), after `taken`: the bytes its
/// previous reader read from it and did not use. Only a pipe or a socket can be handed over
/// with bytes taken (a file is read from an offset instead): for anything else `taken` must be
/// empty, or this fails with `InvalidInput`. Must be called inside a Tokio runtime: a pipe or
/// socket is registered with its reactor.
pub fn descriptor(file: File, taken: Bytes) -> io::Result<Descriptor> {
    let kind = file.metadata()?.file_type();
    use std::os::unix::fs::FileTypeExt;
    let stream = if kind.is_fifo() {
        super::widen_pipe(&file);
        ReadyStream::Pipe(pipe::Receiver::from_file(file)?)
    } else if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
        socket.set_nonblocking(true)?;
        ReadyStream::Socket(UnixStream::from_std(socket)?)
    } else if taken.is_empty() {
        return Ok(Descriptor::Blocking(file));
    } else {
        return Err(io::ErrorKind::InvalidInput.into());
    };
    Ok(Descriptor::Ready(ReadyInput { taken, stream }))
}

/// A descriptor of our own for the open file `fd` names: `dup(2)`, close-on-exec. `fd` must
/// stay open for the length of the call (its owner holds it); a number that names no open
/// descriptor fails with `EBADF`.
pub fn duplicate(fd: RawFd) -> io::Result<File> {
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc_ebadf()));
    }
    // SAFETY: `borrow_raw` asks that `fd` stay open while the borrow lives. The borrow lives
    // for this one statement, and the caller's contract is that the owner keeps `fd` open for
    // the length of the call (JS holds the FileHandle or stream that owns it, and calls in on
    // its own thread). A number that names no open descriptor makes `dup` fail with `EBADF`;
    // nothing is read through the borrow itself.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(File::from(borrowed.as_fd().try_clone_to_owned()?))
}

const fn libc_ebadf() -> i32 {
    9
}
