//! Where a follower starts, fixed when following is asked for rather than when reading begins:
//! the file the path names then, and its length ([`Anchor`]). Taking it costs an `lstat` and a
//! `stat` and opens nothing, so a follower nobody reads holds no descriptor; when reading
//! begins, the file is found again ([`Anchor::reopen`]), renamed or not, and what happened to it
//! in between is judged by the rules a running follower applies (see [`crate::follow`]).

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use crate::source::open_now;
use crate::watch::names_nothing;

/// Tells one file from another, also from a later file given the same inode number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
    /// When the file was created, where the file system records it: an inode number freed by a
    /// deletion is soon given to a new file (ext4 and tmpfs do), and this tells the two apart.
    born: Option<std::time::SystemTime>,
}

impl FileId {
    /// The file `path` names (through symbolic links), and its length.
    pub(crate) fn of_path(path: &Path) -> io::Result<(Self, u64)> {
        #[cfg(target_os = "linux")]
        if let Some(found) = statx::of(rustix::fs::CWD, path, rustix::fs::AtFlags::empty()) {
            return found;
        }
        std::fs::metadata(path).map(|meta| (FileId::of(&meta), meta.len()))
    }

    /// The file open as `file`, and its length.
    pub(crate) fn of_file(file: &File) -> io::Result<(Self, u64)> {
        #[cfg(target_os = "linux")]
        if let Some(found) = statx::of(file, "", rustix::fs::AtFlags::EMPTY_PATH) {
            return found;
        }
        file.metadata().map(|meta| (FileId::of(&meta), meta.len()))
    }

    fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileId {
            #[cfg(unix)]
            dev: meta.dev(),
            #[cfg(unix)]
            ino: meta.ino(),
            born: meta.created().ok(),
        }
    }
}

/// On Linux the creation time comes only from `statx(2)`, which Rust's standard library calls
/// for glibc targets but not for musl ones, where `Metadata::created` always fails: a file
/// deleted and recreated with the same inode number then looked like the same file. So on Linux
/// a file's identity is taken with one `statx` call through rustix (no `unsafe` here), on every
/// C library.
#[cfg(target_os = "linux")]
mod statx {
    use std::io;
    use std::os::fd::AsFd;
    use std::time::{Duration, SystemTime};

    use rustix::fs::{AtFlags, StatxFlags};

    use super::FileId;

    /// What `statx(dirfd, path, flags)` says of the file's identity and length; `None` where
    /// the kernel has no `statx` (before Linux 4.11), and then `Metadata` is asked instead.
    pub(super) fn of<Fd: AsFd, P: rustix::path::Arg>(
        dirfd: Fd,
        path: P,
        flags: AtFlags,
    ) -> Option<io::Result<(FileId, u64)>> {
        let wanted = StatxFlags::INO | StatxFlags::SIZE | StatxFlags::BTIME;
        let stx = match rustix::fs::statx(dirfd, path, flags, wanted) {
            Ok(stx) => stx,
            Err(rustix::io::Errno::NOSYS) => return None,
            Err(err) => return Some(Err(err.into())),
        };
        let born = (StatxFlags::from_bits_retain(stx.stx_mask).contains(StatxFlags::BTIME))
            .then(|| {
                let since =
                    Duration::new(stx.stx_btime.tv_sec.unsigned_abs(), stx.stx_btime.tv_nsec);
                if stx.stx_btime.tv_sec >= 0 {
                    SystemTime::UNIX_EPOCH.checked_add(since)
                } else {
                    SystemTime::UNIX_EPOCH.checked_sub(since)
                }
            })
            .flatten();
        let dev = (u64::from(stx.stx_dev_major) << 32) | u64::from(stx.stx_dev_minor);
        let id = FileId {
            dev,
            ino: stx.stx_ino,
            born,
        };
        Some(Ok((id, stx.stx_size)))
    }
}

/// A followed path and the file it named when following was asked for.
#[derive(Debug, Clone)]
pub struct Anchor {
    /// The path, absolute: a later `chdir` changes nothing.
    path: PathBuf,
    /// Where the path led, through every symbolic link on the way (its last name's, or a
    /// directory's, such as a deployment's `current`), when that is elsewhere: a log whose link
    /// is re-pointed to a new file (or directory) is still found at its old name.
    real_path: Option<PathBuf>,
    /// The file at the path and its length then; `None` if nothing could be found there.
    file: Option<(FileId, u64)>,
    /// Whether that was a regular file (a log), not a directory or a FIFO: only a log is waited
    /// for when it cannot be found ([`Reopened::Gone`]).
    regular: bool,
}

/// The file to follow when reading begins, and how it relates to the anchor.
pub(crate) enum Reopened {
    /// The file the path named at the anchor (still there, or renamed), and its length then.
    Anchored(File, u64),
    /// The file the path names now, which came after the anchored one (that one is gone, or
    /// moved where it cannot be found): all of it was written after the anchor.
    Replaced(File),
    /// The file the path names now, where nothing was at the anchor.
    Appeared(File),
    /// The anchored log is gone (deleted, or moved where it cannot be found) and no log is at
    /// the path: a follower waits for one, as a running follower does.
    Gone,
    /// A FIFO at the path, where no log was anchored: a follower fails as for any pipe
    /// (`ESPIPE`), without opening it, which would let a writer waiting for a reader go on, to
    /// meet `EPIPE` once it was closed again.
    Fifo,
}

impl Anchor {
    /// The file `path` names now. A path that names nothing (or that cannot be looked at) is
    /// anchored too: whatever appears there later was written after this. A relative path is
    /// made absolute now, or kept as it is if the current directory is gone (then it is taken
    /// from the current directory when reading begins).
    pub fn take(path: &Path) -> Self {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let real_path = std::fs::canonicalize(&path)
            .ok()
            .filter(|real| *real != path);
        let file = FileId::of_path(&path).ok();
        let regular = file.is_some() && std::fs::metadata(&path).is_ok_and(|meta| meta.is_file());
        Anchor {
            path,
            real_path,
            file,
            regular,
        }
    }

    /// The followed path, absolute.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The anchored file's length, if one was there.
    pub fn file_len(&self) -> Option<u64> {
        self.file.map(|(_, len)| len)
    }

    /// Opens the file to follow from: the anchored one if it can still be found (at the path,
    /// where the path led through its links at the call, or renamed within that directory),
    /// else the one at the path now.
    /// A log anchored and gone, with no log at the path (nothing there, or nothing a running
    /// follower would read: see [`open_log`]), is [`Reopened::Gone`]. Fails as `open(2)` of the
    /// anchored file fails where it is found (a log the follower may not read fails, rather than
    /// wait), or of the path where no log was anchored.
    pub(crate) fn reopen(&self) -> io::Result<Reopened> {
        if !self.regular && is_fifo(&self.path) {
            return Ok(Reopened::Fifo);
        }
        let Some((id, len)) = self.file else {
            return open_now(&self.path).map(Reopened::Appeared);
        };
        if let Some(file) = open_if(&self.path, id)? {
            return Ok(Reopened::Anchored(file, len));
        }
        if let Some(file) = self.find_moved(id)? {
            return Ok(Reopened::Anchored(file, len));
        }
        if !self.regular {
            return open_now(&self.path).map(Reopened::Replaced);
        }
        match open_log(&self.path) {
            Ok(Some(file)) => Ok(Reopened::Replaced(file)),
            Ok(None) => Ok(Reopened::Gone),
            Err(err) if names_nothing(&err) => Ok(Reopened::Gone),
            Err(err) => Err(err),
        }
    }

    /// `file`, come to the path (as the watcher saw it come), as it relates to the anchor: the
    /// anchored file come back, read on from where the anchor says, or a new one.
    pub(crate) fn judge(&self, file: File) -> io::Result<Reopened> {
        match self.file {
            Some((id, len)) if FileId::of_file(&file)?.0 == id => Ok(Reopened::Anchored(file, len)),
            _ => Ok(Reopened::Replaced(file)),
        }
    }

    /// The anchored file where it went: still where the path led through its links then, or
    /// renamed within that directory (logrotate's default, `app.log` to `app.log.1`).
    fn find_moved(&self, id: FileId) -> io::Result<Option<File>> {
        match &self.real_path {
            Some(target) => match open_if(target, id)? {
                Some(file) => Ok(Some(file)),
                None => target.parent().map_or(Ok(None), |dir| find_in_dir(dir, id)),
            },
            None => self
                .path
                .parent()
                .map_or(Ok(None), |dir| find_in_dir(dir, id)),
        }
    }
}

/// Whether `path` names a FIFO (through its links).
#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.file_type().is_fifo())
}

#[cfg(not(unix))]
fn is_fifo(_: &Path) -> bool {
    false
}

/// `path` opened, if it names the file `id`; its error if it does but cannot be opened (the
/// follower may not read it).
fn open_if(path: &Path, id: FileId) -> io::Result<Option<File>> {
    if !FileId::of_path(path).is_ok_and(|(there, _)| there == id) {
        return Ok(None);
    }
    let file = open_now(path)?;
    // What was opened is what the path names by then, which may be another file.
    Ok((FileId::of_file(&file)?.0 == id).then_some(file))
}

/// Opens the log `path` names: `None` when what is there is not a regular file, which a
/// follower takes as nothing there. It is looked at before it is opened: a FIFO would hold the
/// watcher's thread, shared by every follower of the process, in `open(2)` until a writer came
/// (on Linux the open does not wait, but it would let a writer waiting in its own `open(2)`
/// go on, to meet `EPIPE` once it is closed again), and a directory, a socket or a device holds
/// no log. The look may be overtaken by a swap: the file opened is looked at again.
pub(crate) fn open_log(path: &Path) -> io::Result<Option<File>> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(None);
    }
    let file = open_now(path)?;
    Ok(file.metadata()?.is_file().then_some(file))
}

/// The file `id` under any name in `dir`. The directory's entries carry their inode numbers, so
/// only an entry with the right one is looked at.
#[cfg(unix)]
fn find_in_dir(dir: &Path, id: FileId) -> io::Result<Option<File>> {
    use std::os::unix::fs::DirEntryExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    for entry in entries.filter_map(Result::ok) {
        if entry.ino() == id.ino {
            if let Some(file) = open_if(&entry.path(), id)? {
                return Ok(Some(file));
            }
        }
    }
    Ok(None)
}

/// Without inode numbers in directory entries, every entry would have to be opened: a renamed
/// file is not looked for.
#[cfg(not(unix))]
fn find_in_dir(_: &Path, _: FileId) -> io::Result<Option<File>> {
    Ok(None)
}
