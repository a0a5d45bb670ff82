//! A descriptor fastlines is handed (a runtime's stdin, a `FileHandle`'s fd) and reads itself:
//! duplicated first, so that fastlines reads and closes its own descriptor and never the
//! owner's, which goes on sharing the open file (its offset included).
//!
//! A duplicate shares its open file's flags too, so a pipe or socket is read without setting
//! `O_NONBLOCK` there, which would leave the owner's descriptor (a shell's pipe into stdin, a
//! FIFO's `FileHandle`) failing with `EAGAIN` after fastlines is done with it: on Linux a pipe is
//! opened again through `/proc/self/fd`, an open file of fastlines' own on the same pipe, and a
//! socket is read with `MSG_DONTWAIT`, per call.
//!
//! The unsafe calls in this module are the duplication, where a raw number becomes a descriptor
//! only by a promise that it names an open file, and a socket's registration with the reactor,
//! by a promise that the descriptor outlives it.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, RawFd};

use bytes::Bytes;
use tokio::net::unix::pipe;

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
        let pipe = own_open_file(file);
        super::widen_pipe(&pipe);
        ReadyStream::Pipe(pipe::Receiver::from_file(pipe)?)
    } else if kind.is_socket() {
        ReadyStream::Socket(SocketReader::new(file)?)
    } else if taken.is_empty() {
        return Ok(Descriptor::Blocking(file));
    } else {
        return Err(io::ErrorKind::InvalidInput.into());
    };
    Ok(Descriptor::Ready(ReadyInput { taken, stream }))
}

/// The pipe `pipe` reads, opened again for reading through `/proc/self/fd`: an open file of its
/// own, whose flags (`O_NONBLOCK`, which Tokio's reader sets) are not the owner's. Where that
/// open fails (no `/proc`), and off Linux, where opening `/dev/fd/N` duplicates, `pipe` itself:
/// its owner's descriptor is then left non-blocking.
fn own_open_file(pipe: File) -> File {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{Mode, OFlags};
        use std::os::fd::AsRawFd;
        let path = format!("/proc/self/fd/{}", pipe.as_raw_fd());
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        if let Ok(own) = rustix::fs::open(path, flags, Mode::empty()) {
            return File::from(own);
        }
    }
    pipe
}

/// A socket handed over, read as it becomes readable. On Linux each read is a `recv` with
/// `MSG_DONTWAIT`, so the socket's own flags stay as its owner set them; elsewhere it is made
/// non-blocking.
#[derive(Debug)]
pub(crate) struct SocketReader {
    #[cfg(target_os = "linux")]
    socket: tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>,
    #[cfg(not(target_os = "linux"))]
    socket: tokio::net::UnixStream,
}

impl SocketReader {
    /// Registers `file`, a socket, with the reactor.
    fn new(file: File) -> io::Result<Self> {
        let owned = std::os::fd::OwnedFd::from(file);
        #[cfg(target_os = "linux")]
        // SAFETY: `register_with_interest` asks that the descriptor stay open, on the same open
        // file, for as long as the AsyncFd lives. It is an OwnedFd, which the AsyncFd owns: it
        // is closed only when the AsyncFd drops it, after taking it off the reactor, and nothing
        // else holds its number (it is a duplicate of fastlines' own, see `duplicate`).
        let socket = unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(owned, tokio::io::Interest::READABLE)
        }
        .map_err(io::Error::from)?;
        #[cfg(not(target_os = "linux"))]
        let socket = {
            let socket = std::os::unix::net::UnixStream::from(owned);
            socket.set_nonblocking(true)?;
            tokio::net::UnixStream::from_std(socket)?
        };
        Ok(SocketReader { socket })
    }
}

impl tokio::io::AsyncRead for SocketReader {
    #[cfg(target_os = "linux")]
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        use rustix::net::RecvFlags;
        loop {
            let mut ready = std::task::ready!(self.socket.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let read = ready.try_io(|socket| {
                rustix::net::recv(socket, &mut *unfilled, RecvFlags::DONTWAIT)
                    .map(|(read, _)| read)
                    .map_err(io::Error::from)
            });
            match read {
                Ok(read) => {
                    buf.advance(read?);
                    return std::task::Poll::Ready(Ok(()));
                }
                // Not readable after all: the readiness is cleared, and polled for again.
                Err(_would_block) => continue,
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

/// A descriptor of our own for the open file `fd` names: `dup(2)`, close-on-exec. A number
/// that names no open descriptor fails with `EBADF`.
///
/// # Safety
///
/// `fd` names a descriptor its owner keeps open for the length of the call, or none at all:
/// a number some other part of the process is closing, or may close and reuse meanwhile, would
/// be duplicated in its place (Rust's I/O safety), and the copy read would take its bytes.
pub unsafe fn duplicate(fd: RawFd) -> io::Result<File> {
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc_ebadf()));
    }
    // SAFETY: `borrow_raw` asks that `fd` stay open while the borrow lives: it lives for this
    // one statement, and this function's contract is that the owner keeps `fd` open for the
    // call. A number that names no open descriptor makes `dup` fail with `EBADF`; nothing is
    // read through the borrow itself.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(File::from(borrowed.as_fd().try_clone_to_owned()?))
}

const fn libc_ebadf() -> i32 {
    9
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::fs::{fcntl_getfl, OFlags};
    use std::io::Write;
    use std::os::fd::OwnedFd;
    use tokio::io::AsyncReadExt;

    /// Seeded bytes and the sizes of the writes that send them (some larger than a pipe holds).
    fn seeded_writes(seed: u64) -> (Vec<u8>, Vec<usize>) {
        let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % below) as usize
        };
        let sizes: Vec<usize> = (0..next(60) + 1)
            .map(|_| match next(4) {
                0 => next(8) + 1,
                1 => next(4096) + 1,
                _ => next(200_000) + 1,
            })
            .collect();
        let bytes = (0..sizes.iter().sum()).map(|_| next(256) as u8).collect();
        (bytes, sizes)
    }

    /// What reading a duplicate of `owner` through [`descriptor`] gives while `writer` sends
    /// `bytes` in writes of `sizes`, with `owner`'s flags before and after.
    fn read_through(
        owner: OwnedFd,
        mut writer: impl Write + Send + 'static,
        bytes: Vec<u8>,
        sizes: Vec<usize>,
    ) -> (Vec<u8>, OFlags, OFlags) {
        let before = fcntl_getfl(&owner).unwrap();
        let writes = std::thread::spawn(move || {
            let mut at = 0;
            for size in sizes {
                writer.write_all(&bytes[at..at + size]).unwrap();
                at += size;
            }
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let read = runtime.block_on(async {
            // SAFETY: `owner` is open, and held until the end of this test.
            let own = unsafe { duplicate(std::os::fd::AsRawFd::as_raw_fd(&owner)) }.unwrap();
            let Descriptor::Ready(mut input) = descriptor(own, Bytes::new()).unwrap() else {
                panic!("a pipe or socket is read through the reactor");
            };
            let mut read = Vec::new();
            input.read_to_end(&mut read).await.unwrap();
            read
        });
        writes.join().unwrap();
        (read, before, fcntl_getfl(&owner).unwrap())
    }

    /// The reads of a pipe or socket handed over give what was written, in every seeded
    /// pattern of writes, and leave the owner's descriptor as blocking as it was: a shell's
    /// pipe into stdin, read after fastlines, failed with `EAGAIN` when the duplicate was made
    /// non-blocking (the duplicate shares the owner's open file and its flags).
    #[test]
    fn a_pipe_or_socket_handed_over_gives_what_was_written_and_stays_blocking() {
        for seed in 0..6 {
            let (bytes, sizes) = seeded_writes(seed);
            let (reader, writer) = std::io::pipe().unwrap();
            let (read, before, after) =
                read_through(reader.into(), writer, bytes.clone(), sizes.clone());
            assert!(read == bytes, "pipe, seed {seed}");
            assert!(!before.contains(OFlags::NONBLOCK));
            assert_eq!(after, before, "pipe, seed {seed}");

            let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
            let (read, before, after) = read_through(reader.into(), writer, bytes.clone(), sizes);
            assert!(read == bytes, "socket, seed {seed}");
            assert!(!before.contains(OFlags::NONBLOCK));
            assert_eq!(after, before, "socket, seed {seed}");
        }
    }
}
