//! Waking followers when their files change: one OS watcher for the whole process (Linux allows
//! 128 inotify instances per user, and a process may follow thousands of files), watching the
//! directory of each followed path once, however many followers it has. A directory watch sees
//! what a follower must react to: writes to the file, its truncation, and its name being
//! renamed away, deleted or created again.
//!
//! Each follower holds a [`Watch`]: a [`Notify`] that the watcher's thread wakes on every event
//! naming its path. A wake-up that comes while the follower is busy is kept (one permit), so a
//! change between the follower's last read and its wait is never missed.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use notify::event::{EventKind, ModifyKind};
use notify::{Event, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::Notify;

/// A follower's registration: woken while it lives, unregistered when dropped (and each
/// directory unwatched with its last follower).
#[derive(Debug)]
pub struct Watch {
    /// The directories (canonical) and names it is woken for: the path's, and, when the path
    /// is a symbolic link, its target's too (writes to the target show in the target's
    /// directory).
    names: Vec<(PathBuf, OsString)>,
    wake: Arc<Notify>,
}

impl Watch {
    /// Starts waking the returned watch on every change to `path` (with a file name).
    pub fn new(path: &Path) -> io::Result<Watch> {
        let mut names = vec![canonical_dir_and_name(path)?];
        if let Ok(target) = std::fs::canonicalize(path) {
            let target = canonical_dir_and_name(&target)?;
            if target != names[0] {
                names.push(target);
            }
        }
        let mut watch = Watch {
            names: Vec::new(),
            wake: Arc::new(Notify::new()),
        };
        for (dir, name) in names {
            // Added one at a time, so that dropping `watch` removes exactly what was added.
            watchers().add(&dir, &name, &watch.wake)?;
            watch.names.push((dir, name));
        }
        Ok(watch)
    }

    /// Resolves at the next change to the path since the last call (at once if there was one).
    pub async fn changed(&self) {
        self.wake.notified().await;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        for (dir, name) in &self.names {
            watchers().remove(dir, name, &self.wake);
        }
    }
}

/// The canonical form of the directory of `path`, and its name there. Directories are watched
/// by their canonical path only: the OS watches a directory once however it is named (through
/// a symbolic link, say), and reports its events under one of those names, which must be the
/// one listeners are found by.
fn canonical_dir_and_name(path: &Path) -> io::Result<(PathBuf, OsString)> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    Ok((std::fs::canonicalize(dir)?, name.to_owned()))
}

/// The process's watcher and who listens to what. Two locks, never held together by the
/// watcher's thread: it takes only `listeners`, while adding or removing a directory holds
/// `watcher` across the OS call, which waits for that thread.
struct Watchers {
    watcher: Mutex<Option<RecommendedWatcher>>,
    listeners: Arc<Mutex<Listeners>>,
}

/// Directory → file name → the watches of that path.
type Listeners = HashMap<PathBuf, HashMap<OsString, Vec<Arc<Notify>>>>;

fn watchers() -> &'static Watchers {
    static WATCHERS: OnceLock<Watchers> = OnceLock::new();
    WATCHERS.get_or_init(|| Watchers {
        watcher: Mutex::new(None),
        listeners: Arc::default(),
    })
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Watchers {
    fn add(&self, dir: &Path, name: &OsString, wake: &Arc<Notify>) -> io::Result<()> {
        let mut watcher = lock(&self.watcher);
        let first_in_dir = {
            let mut listeners = lock(&self.listeners);
            let files = listeners.entry(dir.to_owned()).or_default();
            let first = files.is_empty();
            let wakes = files.entry(name.clone()).or_default();
            wakes.push(Arc::clone(wake));
            first
        };
        if !first_in_dir {
            return Ok(());
        }
        let watched = match &mut *watcher {
            Some(watcher) => watcher.watch(dir, RecursiveMode::NonRecursive),
            None => self.start().and_then(|mut started| {
                let watched = started.watch(dir, RecursiveMode::NonRecursive);
                *watcher = Some(started);
                watched
            }),
        };
        watched.map_err(|err| {
            lock(&self.listeners).remove(dir);
            into_io_error(err)
        })
    }

    /// Stops waking `wake` for `name` in `dir`; the directory is unwatched with its last
    /// listener, on the blocking pool when there is one: the OS call waits for the watcher's
    /// thread, and a follower's watch is dropped on an async worker.
    fn remove(&'static self, dir: &Path, name: &OsString, wake: &Arc<Notify>) {
        let mut listeners = lock(&self.listeners);
        let Some(files) = listeners.get_mut(dir) else {
            return;
        };
        if let Some(wakes) = files.get_mut(name) {
            wakes.retain(|other| !Arc::ptr_eq(other, wake));
            if wakes.is_empty() {
                files.remove(name);
            }
        }
        if !files.is_empty() {
            return;
        }
        listeners.remove(dir);
        drop(listeners);
        let dir = dir.to_owned();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || self.unwatch_unused(&dir))),
            Err(_) => self.unwatch_unused(&dir),
        }
    }

    /// Unwatches `dir` unless someone listens there again (then `add` has watched it anew).
    fn unwatch_unused(&self, dir: &Path) {
        let mut watcher = lock(&self.watcher);
        if lock(&self.listeners).contains_key(dir) {
            return;
        }
        if let Some(watcher) = &mut *watcher {
            // The directory may be gone already, and its watch with it.
            let _ = watcher.unwatch(dir);
        }
    }

    /// The OS watcher, delivering events on its own thread to [`wake_listeners`].
    fn start(&self) -> notify::Result<RecommendedWatcher> {
        let listeners = Arc::clone(&self.listeners);
        notify::recommended_watcher(move |event: notify::Result<Event>| {
            wake_listeners(&lock(&listeners), event.ok());
        })
    }
}

/// Wakes the watches of every path `event` names, or every watch when the event is lost or
/// stands for changes it cannot name (the OS's queue overflowed). Reads and opens (a
/// follower's own included) and metadata changes wake nobody: they change no line.
fn wake_listeners(listeners: &Listeners, event: Option<Event>) {
    let named = event.filter(|event| !event.need_rescan());
    let Some(event) = named else {
        listeners
            .values()
            .flat_map(HashMap::values)
            .flatten()
            .for_each(|wake| wake.notify_one());
        return;
    };
    if matches!(
        event.kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
    ) {
        return;
    }
    for path in &event.paths {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            continue;
        };
        if let Some(wakes) = listeners.get(dir).and_then(|files| files.get(name)) {
            wakes.iter().for_each(|wake| wake.notify_one());
        }
    }
}

fn into_io_error(err: notify::Error) -> io::Error {
    match err.kind {
        notify::ErrorKind::Io(err) => err,
        notify::ErrorKind::PathNotFound => io::Error::from(io::ErrorKind::NotFound),
        _ => io::Error::other(err.to_string()),
    }
}
