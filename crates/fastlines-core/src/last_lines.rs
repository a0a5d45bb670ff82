//! Finding where the last lines of a file start, reading backward from its end: the bytes read
//! are those lines plus at most one read, however large the file. The lines themselves are then
//! read forward from there, by the usual readers, so they are exactly the lines those give.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use memchr::memrchr2_iter;

use crate::error::OsError;

/// Where the last lines of a file's first bytes start, and where those bytes end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastLines {
    /// Offset of the first byte of the first of the last lines.
    pub start: u64,
    /// How many bytes of the file were considered: the end of the last line.
    pub len: u64,
}

/// Where the last `n` lines of `path` start, the file taken as ending at `end` (inclusive) if
/// that is before its end; read backward `chunk_size` bytes at a time. Lines are `readline`'s:
/// a terminator at the very end starts no empty line. `None` once `cancelled` is set (checked
/// between reads).
pub fn last_lines(
    path: &Path,
    n: u64,
    end: Option<u64>,
    chunk_size: usize,
    cancelled: &AtomicBool,
) -> Result<Option<LastLines>, OsError> {
    let file = File::open(path).map_err(|err| OsError::new(&err, "open"))?;
    let size = file
        .metadata()
        .map_err(|err| OsError::new(&err, "fstat"))?
        .len();
    let len = end.map_or(size, |end| size.min(end.saturating_add(1)));
    last_lines_in(&file, n, len, chunk_size, cancelled)
}

/// Where the last `n` lines of the first `len` bytes of `file` start, as [`last_lines`].
pub(crate) fn last_lines_in(
    file: &File,
    n: u64,
    len: u64,
    chunk_size: usize,
    cancelled: &AtomicBool,
) -> Result<Option<LastLines>, OsError> {
    let start = start_of_last(n, len, chunk_size, |buf, offset| {
        if cancelled.load(Ordering::Relaxed) {
            return Err(Cancelled::Yes);
        }
        read_at(file, buf, offset).map_err(Cancelled::No)
    });
    match start {
        Ok(start) => Ok(Some(LastLines { start, len })),
        Err(Cancelled::Yes) => Ok(None),
        Err(Cancelled::No(err)) => Err(err),
    }
}

/// Why a backward scan stopped early.
enum Cancelled {
    Yes,
    No(OsError),
}

/// Where the last `n` lines of the first `len` bytes start, given `read_at`, which fills its
/// buffer from an offset. Scans backward for line starts: after a `\n`, and after a `\r` not
/// followed by `\n`; the byte after each chunk's last is remembered for that `\r` check.
fn start_of_last<E>(
    n: u64,
    len: u64,
    chunk_size: usize,
    mut read_at: impl FnMut(&mut [u8], u64) -> Result<(), E>,
) -> Result<u64, E> {
    if n == 0 {
        return Ok(len);
    }
    let mut chunk = vec![0; chunk_size.max(1)];
    let mut chunk_end = len;
    // The byte just after the current chunk, if any: already read, with the later chunk.
    let mut after: Option<u8> = None;
    let mut found = 0;
    while chunk_end > 0 {
        let chunk_start = chunk_end.saturating_sub(chunk.len() as u64);
        let bytes = &mut chunk[..(chunk_end - chunk_start) as usize];
        read_at(bytes, chunk_start)?;
        for at in memrchr2_iter(b'\n', b'\r', bytes) {
            let line_start = chunk_start + at as u64 + 1;
            let next = bytes.get(at + 1).copied().or(after);
            let ends_a_line = bytes[at] == b'\n' || next != Some(b'\n');
            if ends_a_line && line_start < len {
                found += 1;
                if found == n {
                    return Ok(line_start);
                }
            }
        }
        after = bytes.first().copied();
        chunk_end = chunk_start;
    }
    Ok(0)
}

/// Fills `buf` from `offset`, as many reads as it takes; bytes the file no longer has (it
/// shrank meanwhile) read as `\0`, which starts no line.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> Result<(), OsError> {
    let mut filled = 0;
    while filled < buf.len() {
        match positioned_read(file, &mut buf[filled..], offset + filled as u64) {
            Ok(0) => {
                buf[filled..].fill(0);
                break;
            }
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(OsError::new(&err, "read")),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn positioned_read(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn positioned_read(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::tests::reference_lines;

    /// The last `n` lines from `input`, found backward in reads of `chunk_size`, which read
    /// no more than those lines and one chunk.
    fn last(input: &[u8], n: u64, chunk_size: usize) -> Vec<Vec<u8>> {
        let mut bytes_read = 0;
        let start = start_of_last(n, input.len() as u64, chunk_size, |buf, offset| {
            bytes_read += buf.len();
            let offset = offset as usize;
            buf.copy_from_slice(&input[offset..offset + buf.len()]);
            Ok::<_, ()>(())
        })
        .unwrap() as usize;
        assert!(bytes_read <= input.len() - start + chunk_size);
        reference_lines(&input[start..])
    }

    #[test]
    fn the_last_lines_are_the_reference_last_lines() {
        let inputs: &[&[u8]] = &[
            b"",
            b"\n",
            b"\r",
            b"\r\n",
            b"a",
            b"a\n",
            b"a\r\nb",
            b"a\rb\r",
            b"\n\n\r\r\n\r",
            b"one\ntwo\r\nthree\rfour\r\n\r\nfive",
            b"x\r\n\r\n\ry\n",
        ];
        for input in inputs {
            let all = reference_lines(input);
            for n in 0..=all.len() as u64 + 2 {
                let expected = all[all.len().saturating_sub(n as usize)..].to_vec();
                for chunk_size in 1..=input.len() + 1 {
                    assert_eq!(
                        last(input, n, chunk_size),
                        expected,
                        "{input:?}, last {n} in reads of {chunk_size}"
                    );
                }
            }
        }
    }
}
