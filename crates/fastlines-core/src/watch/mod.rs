//! Telling followers that their files changed: one OS watcher for the whole process (Linux
//! allows 128 inotify instances per user, and a process may follow thousands of files), which
//! calls each follower's [`OnChange`] on the watcher's own thread for every change that may
//! concern its path: writes to the file, its truncation, and its name being renamed away,
//! deleted or created again (a symbolic link re-pointed included).
//!
//! On Linux, inotify directly (`inotify.rs`): the file itself is watched for writes and its
//! directory only for names, as GNU `tail -F` does, so writes to other files in the directory
//! wake nobody. Elsewhere, the `notify` crate (`notify.rs`): FSEvents on macOS (which, unlike
//! kqueue, reports writes to the files in a watched directory), ReadDirectoryChangesW on
//! Windows, each watching the directories.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

#[cfg(target_os = "linux")]
#[path = "inotify.rs"]
mod backend;
#[cfg(not(target_os = "linux"))]
#[path = "notify.rs"]
mod backend;

/// What a watch calls when its path may have changed: on the watcher's thread, which it holds
/// meanwhile (so it does little: reads what was appended, or wakes a task). Calls for one path
/// never overlap, and several changes may come as one call.
pub(crate) type OnChange = Arc<dyn Fn(Change) + Send + Sync>;

/// What changed, as far as the watcher knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// The file was written to (or truncated): only its contents changed.
    Written,
    /// A name came or went (the path may name another file, or nothing, now), or the OS lost
    /// count of what happened.
    Named,
    /// As `Named`, but what the path names now could not be watched, with the OS's error
    /// number (`ENOSPC`: the user's watches are used up): no write to it would call anyone.
    Unwatchable(i32),
}

impl Change {
    /// One change standing for both.
    fn and(self, other: Change) -> Change {
        match (self, other) {
            (Change::Unwatchable(errno), _) | (_, Change::Unwatchable(errno)) => {
                Change::Unwatchable(errno)
            }
            (Change::Named, _) | (_, Change::Named) => Change::Named,
            _ => Change::Written,
        }
    }
}

/// The listeners one batch of events calls, each once, with what all those events say: by
/// listener id, in the order of their first event.
#[derive(Default)]
struct Calls {
    calls: Vec<(Change, OnChange)>,
    by_id: HashMap<u64, usize>,
}

impl Calls {
    fn add(&mut self, id: u64, change: Change, on_change: &OnChange) {
        match self.by_id.get(&id) {
            Some(&at) => self.calls[at].0 = self.calls[at].0.and(change),
            None => {
                self.by_id.insert(id, self.calls.len());
                self.calls.push((change, Arc::clone(on_change)));
            }
        }
    }

    /// Makes the calls (outside any lock) and forgets them. A call that panics is one
    /// follower's bug: the others, which share this thread, are still called.
    fn call(&mut self) {
        self.by_id.clear();
        for (change, on_change) in self.calls.drain(..) {
            let _ = catch_unwind(AssertUnwindSafe(|| on_change(change)));
        }
    }
}

/// A follower's registration: called while it lives, unregistered when dropped (and each
/// directory or file unwatched with its last follower).
#[derive(Debug)]
pub(crate) struct Watch {
    _registration: backend::Registration,
}

impl Watch {
    /// Starts calling `on_change` on every change to `path` (with a file name), and, while
    /// the path names no file, to `reading`, the file its follower opened (see the backend).
    pub(crate) fn new(
        path: &Path,
        reading: Option<&File>,
        on_change: OnChange,
    ) -> io::Result<Watch> {
        Ok(Watch {
            _registration: backend::Registration::new(path, reading, on_change)?,
        })
    }
}

/// The followers a watcher calls, by the id their registration holds (a map of id to listener).
struct Listeners<L> {
    next_id: u64,
    by_id: HashMap<u64, L>,
}

impl<L> Default for Listeners<L> {
    fn default() -> Self {
        Listeners {
            next_id: 0,
            by_id: HashMap::new(),
        }
    }
}

impl<L> Listeners<L> {
    /// Adds `listener` under a new id, which it returns.
    fn add(&mut self, listener: L) -> u64 {
        self.next_id += 1;
        self.by_id.insert(self.next_id, listener);
        self.next_id
    }
}

impl<L> std::ops::Deref for Listeners<L> {
    type Target = HashMap<u64, L>;

    fn deref(&self) -> &Self::Target {
        &self.by_id
    }
}

impl<L> std::ops::DerefMut for Listeners<L> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.by_id
    }
}

/// Whether `err`, looking up or opening a followed path, means that it names no file to read
/// for now, as `tail -F` takes it, and the follower waits for one: nothing there, a name on the
/// way that is a file or a loop of links for now (a link or a directory being swapped), or a
/// file not readable yet (made by a rotation with a mode that a `chmod` then widens, which
/// wakes the follower as a name event does). The watcher then waits where the path is still
/// there, in the nearest directory above (see [`canonical_dir_and_name`]).
pub(crate) fn names_nothing(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::PermissionDenied
    ) || is_link_loop(err)
}

#[cfg(target_os = "linux")]
fn is_link_loop(err: &io::Error) -> bool {
    rustix::io::Errno::from_io_error(err) == Some(rustix::io::Errno::LOOP)
}

/// Elsewhere a loop of links ends the follower, as other failures do.
#[cfg(not(target_os = "linux"))]
fn is_link_loop(_: &io::Error) -> bool {
    false
}

/// The directories (canonical) and names whose changes concern `path`: its own, every symbolic
/// link on the way to its file (a directory link such as a deployment's `current`, a link to
/// a link), and the file's own name where the links lead (the target can be renamed or
/// replaced in its own directory, or, for a link re-pointed before its new target was made,
/// be created there). Any of them re-pointed, renamed or replaced changes what the path names.
fn names_of(path: &Path) -> io::Result<Vec<(PathBuf, OsString)>> {
    let mut names = Vec::new();
    add_names(&mut names, canonical_dir_and_name(path)?);
    let (links, target) = links_on(path);
    for link in links {
        add_names(&mut names, link);
    }
    if let Ok(target) = canonical_dir_and_name(&target) {
        add_names(&mut names, target);
    }
    Ok(names)
}

/// The most links followed on the way along a path, as Linux's `MAXSYMLINKS`: past it the
/// path is a loop, which names nothing.
const MAX_LINKS: usize = 40;

/// The symbolic links met on the way along `path`, each as the directory it is in (with every
/// link before it followed) and its name there, and where the path leads once they are all
/// followed: as `realpath` resolves it, but going on past a name that is not there.
fn links_on(path: &Path) -> (Vec<(PathBuf, OsString)>, PathBuf) {
    let mut ahead = Vec::new();
    push_ahead(
        &mut ahead,
        &std::env::current_dir().unwrap_or_default().join(path),
    );
    let (mut links, mut at) = (Vec::new(), PathBuf::from("/"));
    while let Some(step) = ahead.pop() {
        match step {
            Step::Root(root) => at = root,
            Step::Up => {
                at.pop();
            }
            Step::Into(name) => {
                let next = at.join(&name);
                match std::fs::read_link(&next) {
                    Ok(target) if links.len() < MAX_LINKS => {
                        links.push((at.clone(), name));
                        push_ahead(&mut ahead, &target);
                    }
                    _ => at = next,
                }
            }
        }
    }
    (links, at)
}

/// One step along a path (see [`links_on`]).
enum Step {
    /// To the root (or a Windows prefix and its root).
    Root(PathBuf),
    /// To the directory above.
    Up,
    /// Into the name.
    Into(OsString),
}

/// Puts the steps along `path` ahead of those left, its first step last (the walk pops them).
fn push_ahead(ahead: &mut Vec<Step>, path: &Path) {
    let mut root = PathBuf::new();
    let mut steps = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                root.push(component.as_os_str());
                steps.clear();
                steps.push(Step::Root(root.clone()));
            }
            Component::CurDir => {}
            Component::ParentDir => steps.push(Step::Up),
            Component::Normal(name) => steps.push(Step::Into(name.to_owned())),
        }
    }
    ahead.extend(steps.into_iter().rev());
}

/// Adds `dir` and `name` to `names`, and, while nothing has that name there, `dir`'s own name
/// in the directory above: the follower waits for the name to come, and if `dir` is deleted
/// or moved meanwhile, it has to wait for `dir` to come back instead. No event of `dir` itself
/// says so in time: a deleted directory's watch ends only once nothing holds it, and a file
/// of it that the follower still has open does.
fn add_names(names: &mut Vec<(PathBuf, OsString)>, (dir, name): (PathBuf, OsString)) {
    let waiting = matches!(dir.join(&name).symlink_metadata(), Err(err) if names_nothing(&err));
    let above = waiting
        .then(|| canonical_dir_and_name(&dir).ok())
        .flatten()
        .filter(|(above, _)| *above != dir);
    for listened in std::iter::once((dir, name)).chain(above) {
        if !names.contains(&listened) {
            names.push(listened);
        }
    }
}

/// The canonical form of the directory of `path`, and its name there; when that directory is
/// not there (deleted, or not made yet, or for now a file, a loop of links or out of reach: see
/// [`names_nothing`]), the nearest directory above it that is, and the name of the next one
/// down, whose making is the change to wait for. Directories are watched by
/// their canonical path only: the OS watches a directory once however it is named (through a
/// symbolic link, say), and reports its events under one of those names, which must be the one
/// listeners are found by.
pub(crate) fn canonical_dir_and_name(path: &Path) -> io::Result<(PathBuf, OsString)> {
    let (mut dir, mut name) = dir_and_name(path)?;
    loop {
        match std::fs::canonicalize(dir) {
            Ok(canonical) if canonical.is_dir() => return Ok((canonical, name.to_owned())),
            Ok(_) => (dir, name) = dir_and_name(dir)?,
            Err(err) if names_nothing(&err) => (dir, name) = dir_and_name(dir)?,
            Err(err) => return Err(err),
        }
    }
}

/// The directory `path` is in (`.` for a bare name) and its name there.
fn dir_and_name(path: &Path) -> io::Result<(&Path, &OsStr)> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    Ok((dir, name))
}
