//! The watcher on macOS and Windows, through the `notify` crate: each followed path's
//! directory is watched once, however many followers it has, and sees writes to the file as
//! well as its name coming and going. A name event also looks again where a symbolic link
//! points, and watches the directory of its new target.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use notify::event::{EventKind, ModifyKind};
use notify::{Event, RecommendedWatcher, RecursiveMode, Watcher};

use super::{names_of, Calls, Change, Listeners, OnChange};

/// A follower's place among the listeners, removed when dropped.
#[derive(Debug)]
pub(crate) struct Registration {
    id: u64,
}

impl Registration {
    /// `_reading`, the file the follower opened, is not watched by itself: these watches are
    /// of directories, heard by name, so a file renamed away is heard no more, whether before
    /// the first step or after.
    pub(crate) fn new(
        path: &Path,
        _reading: Option<&File>,
        on_change: OnChange,
    ) -> io::Result<Registration> {
        let names = names_of(path)?;
        let watchers = watchers();
        let mut watcher = lock(&watchers.watcher);
        let id = lock(&watchers.state).listeners.add(Listener {
            path: path.to_owned(),
            on_change,
            names: Vec::new(),
        });
        let registration = Registration { id };
        for (dir, name) in names {
            // One at a time, so that dropping `registration` removes exactly what was added.
            watchers.listen(&mut watcher, id, dir, name)?;
        }
        Ok(registration)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let watchers = watchers();
        let unused = {
            let mut state = lock(&watchers.state);
            let Some(listener) = state.listeners.remove(&self.id) else {
                return;
            };
            listener
                .names
                .iter()
                .filter(|(dir, name)| state.forget(self.id, dir, name))
                .map(|(dir, _)| dir.clone())
                .collect::<Vec<_>>()
        };
        for dir in unused {
            watchers.unwatch_later(dir);
        }
    }
}

/// The process's watcher and who listens to what. Two locks, never held together by the
/// watcher's thread: it takes only `state`, while adding or removing a directory holds
/// `watcher` across the OS call, which waits for that thread.
struct Watchers {
    watcher: Mutex<Option<RecommendedWatcher>>,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    listeners: Listeners<Listener>,
    /// Directory → file name → the listeners of that path.
    dirs: HashMap<PathBuf, HashMap<OsString, Vec<u64>>>,
}

struct Listener {
    path: PathBuf,
    on_change: OnChange,
    /// The directories and names it listens to (see [`names_of`]).
    names: Vec<(PathBuf, OsString)>,
}

impl State {
    /// Stops `id` listening to `name` in `dir`; true if nobody listens in `dir` any more.
    fn forget(&mut self, id: u64, dir: &Path, name: &OsString) -> bool {
        let Some(files) = self.dirs.get_mut(dir) else {
            return false;
        };
        if let Some(ids) = files.get_mut(name) {
            if let Some(at) = ids.iter().position(|&other| other == id) {
                ids.swap_remove(at);
            }
            if ids.is_empty() {
                files.remove(name);
            }
        }
        if !files.is_empty() {
            return false;
        }
        self.dirs.remove(dir);
        true
    }
}

fn watchers() -> &'static Watchers {
    static WATCHERS: OnceLock<Watchers> = OnceLock::new();
    WATCHERS.get_or_init(|| Watchers {
        watcher: Mutex::new(None),
        state: Arc::default(),
    })
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Watchers {
    /// Has `id` listen to `name` in `dir`, watching `dir` if nobody did.
    fn listen(
        &'static self,
        watcher: &mut Option<RecommendedWatcher>,
        id: u64,
        dir: PathBuf,
        name: OsString,
    ) -> io::Result<()> {
        let first_in_dir = {
            let mut state = lock(&self.state);
            let Some(listener) = state.listeners.get_mut(&id) else {
                return Ok(());
            };
            listener.names.push((dir.clone(), name.clone()));
            let files = state.dirs.entry(dir.clone()).or_default();
            let first = files.is_empty();
            files.entry(name).or_default().push(id);
            first
        };
        if !first_in_dir {
            return Ok(());
        }
        let watched = match watcher {
            Some(watcher) => watcher.watch(&dir, RecursiveMode::NonRecursive),
            None => self.start().and_then(|mut started| {
                let watched = started.watch(&dir, RecursiveMode::NonRecursive);
                *watcher = Some(started);
                watched
            }),
        };
        watched.map_err(into_io_error)
    }

    /// Unwatches `dir` unless someone listens there again, on the blocking pool when there is
    /// one: the OS call waits for the watcher's thread, and a follower's watch is dropped on an
    /// async worker.
    fn unwatch_later(&'static self, dir: PathBuf) {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || self.unwatch_unused(&dir))),
            Err(_) => self.unwatch_unused(&dir),
        }
    }

    fn unwatch_unused(&self, dir: &Path) {
        let mut watcher = lock(&self.watcher);
        if lock(&self.state).dirs.contains_key(dir) {
            return;
        }
        if let Some(watcher) = &mut *watcher {
            // The directory may be gone already, and its watch with it.
            let _ = watcher.unwatch(dir);
        }
    }

    /// The OS watcher, delivering events on its own thread to [`Watchers::on_event`].
    fn start(&'static self) -> notify::Result<RecommendedWatcher> {
        notify::recommended_watcher(move |event: notify::Result<Event>| {
            self.on_event(event.ok());
        })
    }

    /// Calls the listeners of every path `event` names, or every listener when the event is
    /// lost or stands for changes it cannot name (the OS's queue overflowed). Reads and opens
    /// (a follower's own included) and metadata changes call nobody: they change no line. A
    /// name coming or going also re-points a listener that follows a symbolic link.
    fn on_event(&'static self, event: Option<Event>) {
        let mut calls = Calls::default();
        let mut renamed = Vec::new();
        {
            let state = lock(&self.state);
            let Some(event) = event.filter(|event| !event.need_rescan()) else {
                for (&id, listener) in state.listeners.iter() {
                    calls.add(id, Change::Named, &listener.on_change);
                }
                drop(state);
                return calls.call();
            };
            let change = match event.kind {
                EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => return,
                EventKind::Modify(ModifyKind::Data(_)) => Change::Written,
                _ => Change::Named,
            };
            for path in &event.paths {
                let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
                    continue;
                };
                let Some(ids) = state.dirs.get(dir).and_then(|files| files.get(name)) else {
                    continue;
                };
                for &id in ids {
                    if let Some(listener) = state.listeners.get(&id) {
                        calls.add(id, change, &listener.on_change);
                        if change == Change::Named && !renamed.contains(&id) {
                            renamed.push(id);
                        }
                    }
                }
            }
        }
        for id in renamed {
            self.repoint_later(id);
        }
        calls.call();
    }

    /// Looks again at what `id`'s path names, off this thread (watching a directory waits for
    /// it), listening to a symbolic link's new target directory and no longer to the old one.
    fn repoint_later(&'static self, id: u64) {
        let repoint = move || {
            let Some(path) = lock(&self.state).listeners.get(&id).map(|l| l.path.clone()) else {
                return;
            };
            let Ok(names) = names_of(&path) else {
                return;
            };
            let mut watcher = lock(&self.watcher);
            let old = match lock(&self.state).listeners.get_mut(&id) {
                Some(listener) if listener.names != names => std::mem::take(&mut listener.names),
                _ => return,
            };
            for (dir, name) in names {
                // A directory that cannot be watched leaves the old one.
                let _ = self.listen(&mut watcher, id, dir, name);
            }
            drop(watcher);
            let unused: Vec<PathBuf> = {
                let mut state = lock(&self.state);
                old.iter()
                    .filter(|(dir, name)| state.forget(id, dir, name))
                    .map(|(dir, _)| dir.clone())
                    .collect()
            };
            unused.into_iter().for_each(|dir| self.unwatch_later(dir));
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(repoint)),
            Err(_) => drop(std::thread::spawn(repoint)),
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
