//! Where a follower starts, fixed when following is asked for rather than when reading begins:
//! the file the path names then, and its length ([`Anchor`]). Taking it costs an `lstat` and a
//! `stat` and opens nothing, so a follower nobody reads holds no descriptor; when reading
//! begins, the file is found again ([`Anchor::reopen`]), renamed or not, and what happened to it
//! in between is judged by the rules a running follower applies (see [`crate::follow`]).

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// Tells one file from another, also from a later file given the same inode number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
    /// When the file was created, where the file system records it: an inode number freed by a
    /// deletion is soon given to a new file (ext4 does), and this tells the two apart.
    born: Option<std::time::SystemTime>,
}

impl FileId {
    pub(crate) fn of(meta: &Metadata) -> Self {
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

/// A followed path and the file it named when following was asked for.
#[derive(Debug, Clone)]
pub struct Anchor {
    /// The path, absolute: a later `chdir` changes nothing.
    path: PathBuf,
    /// Where a symbolic link at the path pointed, when it was one: a log whose link is
    /// re-pointed to a new file is still found at its old name.
    link_target: Option<PathBuf>,
    /// The file at the path and its length then; `None` if nothing could be found there.
    file: Option<(FileId, u64)>,
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
}

impl Anchor {
    /// The file `path` names now. A path that names nothing (or that cannot be looked at) is
    /// anchored too: whatever appears there later was written after this. A relative path is
    /// made absolute now, or kept as it is if the current directory is gone (then opening it
    /// fails when reading begins, as it would have here).
    pub fn take(path: &Path) -> Self {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let link_target = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(&path).ok(),
            _ => None,
        };
        let file = std::fs::metadata(&path)
            .ok()
            .map(|meta| (FileId::of(&meta), meta.len()));
        Anchor {
            path,
            link_target,
            file,
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
    /// at the link's old target, or renamed within its directory), else the one at the path now.
    /// Fails as `open(2)` of the path fails when neither is there.
    pub(crate) fn reopen(&self) -> io::Result<Reopened> {
        let at_path = File::open(&self.path);
        let Some((id, len)) = self.file else {
            return at_path.map(Reopened::Appeared);
        };
        if let Ok(file) = &at_path {
            if FileId::of(&file.metadata()?) == id {
                return at_path.map(|file| Reopened::Anchored(file, len));
            }
        }
        if let Some(file) = self.find_moved(id) {
            return Ok(Reopened::Anchored(file, len));
        }
        at_path.map(Reopened::Replaced)
    }

    /// The anchored file where it went: still at the link's old target, or renamed within its
    /// directory (logrotate's default, `app.log` to `app.log.1`).
    fn find_moved(&self, id: FileId) -> Option<File> {
        match &self.link_target {
            Some(target) => open_if(target, id).or_else(|| find_in_dir(target.parent()?, id)),
            None => find_in_dir(self.path.parent()?, id),
        }
    }
}

/// `path` opened, if it is the file `id`.
fn open_if(path: &Path, id: FileId) -> Option<File> {
    let file = File::open(path).ok()?;
    (FileId::of(&file.metadata().ok()?) == id).then_some(file)
}

/// The file `id` under any name in `dir`. The directory's entries carry their inode numbers, so
/// only an entry with the right one is opened.
#[cfg(unix)]
fn find_in_dir(dir: &Path, id: FileId) -> Option<File> {
    use std::os::unix::fs::DirEntryExt;
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|entry| entry.ino() == id.ino)
        .find_map(|entry| open_if(&entry.path(), id))
}

/// Without inode numbers in directory entries, every entry would have to be opened: a renamed
/// file is not looked for.
#[cfg(not(unix))]
fn find_in_dir(_: &Path, _: FileId) -> Option<File> {
    None
}
