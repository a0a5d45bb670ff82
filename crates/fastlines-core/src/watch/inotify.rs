//! The watcher on Linux: one inotify instance for the process, read by one thread. Each
//! followed file is watched itself for writes (`IN_MODIFY`, which a truncation raises too), and
//! its directory only for names coming and going (`IN_CREATE`, `IN_MOVED_FROM`, `IN_MOVED_TO`,
//! `IN_DELETE`), as GNU `tail -F` does: a write to another file in the directory wakes
//! nobody, where a directory watch for writes woke the watcher for every one.
//!
//! A name event for a followed path looks again at what the path names: the new file there is
//! watched for writes (a rotated log's new file, or the new target of a re-pointed symbolic
//! link), and so is the directory of a link's new target, before the follower is called. So a
//! write to the new file either comes after the watch and raises an event, or before the call
//! and is read by the follower then. While the path names nothing, the name of its directory
//! is listened to in the directory above as well, and a missing directory is waited for in
//! the nearest one there (see `names_of`): a log directory deleted and made again, with or
//! without the directories above it, is followed into.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use inotify::{Event, EventMask, Inotify, WatchDescriptor, WatchMask, Watches};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};

use super::{canonical_dir_and_name, names_nothing, names_of, Calls, Change, Listeners, OnChange};

/// What a followed file is watched for.
const FILE_EVENTS: WatchMask = WatchMask::MODIFY;

/// Added to every mask a watch is made with: a file or directory watched already (by another
/// follower, or looked at again after a name event) keeps its mask, with these events added.
/// Without it, inotify replaces the mask, and the kernel clears it before setting it again: a
/// write to a followed file in between raised no event, and its follower, waiting at the end,
/// saw that line only at the next write.
const ADD: WatchMask = WatchMask::MASK_ADD;

/// What a followed file's directory is watched for: its names, not its files' contents, and its
/// own move, after which its watch no longer stands for its path. And its files' attributes: a
/// file made by a rotation may be readable only once a `chmod` after it, which says when to
/// open it (writes change no attribute, so they raise none of these).
fn name_events() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
}

/// The most looks [`State::repoint`] takes at a path whose names keep changing under it.
const MAX_LOOKS: usize = 8;

/// The events read at once: many writes between two reads come in one read, and the followers
/// they concern are called once each.
const EVENT_BUFFER_BYTES: usize = 64 * 1024;

/// A follower's place among the listeners, removed when dropped.
#[derive(Debug)]
pub(crate) struct Registration {
    id: u64,
}

impl Registration {
    pub(crate) fn new(
        path: &Path,
        reading: Option<&File>,
        on_change: OnChange,
    ) -> io::Result<Registration> {
        let mut state = watcher()?;
        let id = state.listeners.add(Listener {
            path: path.to_owned(),
            on_change,
            names: Vec::new(),
            file: None,
            unwatchable: None,
        });
        match state
            .listen(id, path)
            .and_then(|()| reading.map_or(Ok(()), |file| state.watch_reading(id, file)))
        {
            Ok(()) => Ok(Registration { id }),
            Err(err) => {
                // Under the lock held here: a `Registration` dropped here would take it again
                // on this thread, and wait for ever, and every follower with it (a follower of
                // `/`, or of a file in a directory it may not list).
                state.remove(id);
                Err(err)
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Ok(mut state) = watcher() {
            state.remove(self.id);
        }
    }
}

/// Who listens to what, shared by the followers and the watcher's thread.
struct State {
    watches: Watches,
    listeners: Listeners<Listener>,
    /// What each watch descriptor (by its number) watches.
    watched: HashMap<i32, Watched>,
}

struct Listener {
    /// The followed path, as given.
    path: PathBuf,
    on_change: OnChange,
    /// The directories (by watch descriptor) and names it listens to (see [`names_of`]).
    names: Vec<(i32, OsString)>,
    /// The watch of the file the path names, if it names one.
    file: Option<i32>,
    /// The OS's error number, once what the path names could not be watched: every call says
    /// so from then on (see [`Change::Unwatchable`]).
    unwatchable: Option<i32>,
}

struct Watched {
    wd: WatchDescriptor,
    what: WatchedKind,
}

enum WatchedKind {
    /// A file, and who is called when it is written to (an id once per listening).
    File(Vec<u64>),
    /// A directory at this canonical path (`None` once it moved away: it stands for no path
    /// then), and who is called when each name comes or goes.
    Dir(Option<PathBuf>, HashMap<OsString, Vec<u64>>),
}

/// The error number of a watch the OS refused, if `err` is one: not a name that names nothing
/// for now (see [`names_nothing`]), which is waited for.
fn refusal(err: &io::Error) -> Option<i32> {
    if names_nothing(err) {
        None
    } else {
        err.raw_os_error()
    }
}

/// Whether `err`, watching `dir`, is the OS refusing a directory that is there but may not be
/// read (see [`State::listen_to_nearest`]).
fn unreadable_dir(err: &io::Error, dir: &Path) -> bool {
    err.kind() == io::ErrorKind::PermissionDenied && dir.is_dir()
}

/// The error number of a directory's watch that [`State::listen_to_nearest`] gave up on: it
/// goes up past every directory that names nothing, so what it returns is a refusal, but for a
/// path that names nothing all the way up (no `/`).
fn dir_refusal(err: &io::Error) -> Option<i32> {
    match err.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => None,
        _ => err.raw_os_error(),
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The process's watcher, started (with its thread) on first use. A start that fails (no
/// descriptor left for the inotify instance, the user's instances used up, no thread) fails
/// that follower with the OS's error, and the next follower tries again: a failure is not kept.
fn watcher() -> io::Result<MutexGuard<'static, State>> {
    static STATE: OnceLock<Arc<Mutex<State>>> = OnceLock::new();
    static STARTING: Mutex<()> = Mutex::new(());
    if let Some(state) = STATE.get() {
        return Ok(lock(state));
    }
    let _starting = STARTING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(state) = STATE.get() {
        return Ok(lock(state));
    }
    let inotify = Inotify::init()?;
    wait_in_reads(&inotify)?;
    let state = Arc::new(Mutex::new(State::new(inotify.watches())));
    let shared = Arc::clone(&state);
    std::thread::Builder::new()
        .name("fastlines-watch".into())
        .spawn(move || read_events(inotify, &shared))?;
    Ok(lock(STATE.get_or_init(|| state)))
}

/// Makes reads of `inotify` wait for events. (The crate's own blocking read sets and clears
/// `O_NONBLOCK` around each read: four more system calls per wake-up.)
fn wait_in_reads(inotify: &Inotify) -> io::Result<()> {
    let flags = fcntl_getfl(inotify)?;
    fcntl_setfl(inotify, flags - OFlags::NONBLOCK)?;
    Ok(())
}

/// The watcher's thread: reads events as they come, and calls each follower they concern once
/// per read, outside the lock.
fn read_events(mut inotify: Inotify, state: &Mutex<State>) {
    let mut buffer = vec![0; EVENT_BUFFER_BYTES];
    let mut calls = Calls::default();
    loop {
        let events = match inotify.read_events(&mut buffer) {
            Ok(events) => events,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => {
                // Nothing more will come: let every follower look once, then stop.
                lock(state).call_everyone(&mut calls);
                calls.call();
                return;
            }
        };
        lock(state).on_events(events, &mut calls);
        calls.call();
    }
}

impl State {
    /// Watches what listener `id` listens to for `path`: the names on the way to it, and the
    /// file it names if it names one (it may come later: its directory's events will say so).
    fn listen(&mut self, id: u64, path: &Path) -> io::Result<()> {
        for (dir, name) in names_of(path)? {
            self.listen_to_nearest(id, dir, name)?;
        }
        // Nothing there to watch for writes (a loop of links, say, in place of a follower's
        // file gone before its first step, see `follow.rs`) is waited past, as a look again
        // after a name came waits past it (see `repoint_once`); a refusal fails.
        match self.watch_file(id) {
            Err(err) if refusal(&err).is_some() => Err(err),
            _ => Ok(()),
        }
    }

    /// Stops listener `id`'s listening, dropping the watches no one else listens through.
    fn remove(&mut self, id: u64) {
        if let Some(listener) = self.listeners.remove(&id) {
            self.forget(id, listener.names, listener.file);
        }
    }

    fn new(watches: Watches) -> State {
        State {
            watches,
            listeners: Listeners::default(),
            watched: HashMap::new(),
        }
    }

    /// Adds to `calls` who each of `events` (one read's) concerns.
    fn on_events<'a>(&mut self, events: impl Iterator<Item = Event<&'a OsStr>>, calls: &mut Calls) {
        for event in events {
            self.on_event(event.wd, event.mask, event.name, calls);
        }
    }

    /// Adds to `calls` who `event` concerns.
    fn on_event(
        &mut self,
        wd: WatchDescriptor,
        mask: EventMask,
        name: Option<&OsStr>,
        calls: &mut Calls,
    ) {
        if mask.contains(EventMask::Q_OVERFLOW) {
            // Events were lost, name events among them maybe: every path is looked at again.
            let ids: Vec<u64> = self.listeners.keys().copied().collect();
            for id in ids {
                self.repoint(id);
            }
            return self.call_everyone(calls);
        }
        let wd = wd.get_watch_descriptor_id();
        if mask.contains(EventMask::IGNORED) {
            // The kernel dropped the watch: its file or directory is gone. Who listened to
            // names in a directory now waits for it to be made again, in the nearest directory
            // above that is there (see `names_of`), and looks at its path once: it may have been
            // made again, file and all, before this watch was taken.
            let ids = self.forget_watch(wd);
            return self.repoint_and_call(ids, calls);
        }
        if mask.contains(EventMask::MOVE_SELF) {
            // A watched directory moved: who listens to names in it looks at its path again:
            // it names nothing now, until a directory is made there again (a file of the moved
            // one that a follower has open stays watched).
            let ids: Vec<u64> = match self.watched.get_mut(&wd).map(|watched| &mut watched.what) {
                Some(WatchedKind::Dir(path, names)) => {
                    *path = None;
                    names.values().flatten().copied().collect()
                }
                _ => return,
            };
            return self.repoint_and_call(ids, calls);
        }
        let (ids, change) = match (self.watched.get(&wd).map(|watched| &watched.what), name) {
            (Some(WatchedKind::File(ids)), _) => (ids.clone(), Change::Written),
            (Some(WatchedKind::Dir(_, names)), Some(name)) => {
                let ids = names.get(name).cloned().unwrap_or_default();
                for &id in &ids {
                    self.repoint(id);
                }
                (ids, Change::Named)
            }
            _ => return,
        };
        for id in ids {
            self.call(calls, id, change);
        }
    }

    /// Has listener `id` called with `change`, or with why its path cannot be watched.
    fn call(&self, calls: &mut Calls, id: u64, change: Change) {
        if let Some(listener) = self.listeners.get(&id) {
            let change = listener.unwatchable.map_or(change, Change::Unwatchable);
            calls.add(id, change, &listener.on_change);
        }
    }

    /// Looks again at the paths of `ids` (see [`Self::repoint`]), and has each called once.
    fn repoint_and_call(&mut self, mut ids: Vec<u64>, calls: &mut Calls) {
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            self.repoint(id);
        }
        for id in ids {
            self.call(calls, id, Change::Named);
        }
    }

    fn call_everyone(&self, calls: &mut Calls) {
        for &id in self.listeners.keys() {
            self.call(calls, id, Change::Named);
        }
    }

    /// Has `id` called when `name` in `dir` comes or goes, watching `dir` if nobody did.
    ///
    /// The directory is asked of the kernel each time, not looked up by its path among those
    /// watched: one deleted while a follower holds a file of it open keeps its watch (and its
    /// path among them) until that file is closed, and a directory made again at the path
    /// meanwhile is another one, which a follower waiting for its file must watch. The kernel
    /// gives the descriptor a directory has already (the same under another path), or a new one.
    fn listen_to_name(&mut self, id: u64, dir: &Path, name: OsString) -> io::Result<()> {
        let descriptor = self.watches.add(dir, name_events() | ADD)?;
        let wd = descriptor.get_watch_descriptor_id();
        self.watched.entry(wd).or_insert_with(|| Watched {
            wd: descriptor,
            what: WatchedKind::Dir(Some(dir.to_owned()), HashMap::new()),
        });
        if let Some(Watched {
            what: WatchedKind::Dir(path, names),
            ..
        }) = self.watched.get_mut(&wd)
        {
            // Where the kernel found it just now, even if it stood elsewhere before.
            *path = Some(dir.to_owned());
            names.entry(name.clone()).or_default().push(id);
        }
        if let Some(listener) = self.listeners.get_mut(&id) {
            listener.names.push((wd, name));
        }
        Ok(())
    }

    /// [`Self::listen_to_name`], or, when `dir` is no directory by the time it is watched
    /// (deleted, or swapped for a file or a loop of links, since [`names_of`] found it), the
    /// same in the nearest directory above that is one. A directory that is there but may not
    /// be read (`EACCES`: entered, not listed, as a mode of 0711 allows) is no directory to
    /// wait for: its watch is refused, since waiting above it for its name would never hear of
    /// a rotation in it (`tail -F` polls there instead).
    fn listen_to_nearest(
        &mut self,
        id: u64,
        mut dir: PathBuf,
        mut name: OsString,
    ) -> io::Result<()> {
        loop {
            match self.listen_to_name(id, &dir, name) {
                Err(err)
                    if names_nothing(&err)
                        && !unreadable_dir(&err, &dir)
                        && dir.parent().is_some() =>
                {
                    (dir, name) = canonical_dir_and_name(&dir)?;
                }
                listened => return listened,
            }
        }
    }

    /// Watches the file `id`'s path names now for writes (through a symbolic link, its target).
    /// A directory there is not watched: its follower fails at its first read (`EISDIR`), and a
    /// watch of it for writes, made first, would stand for its watch for names too, which other
    /// followers of files in it make later (and would be removed with it).
    fn watch_file(&mut self, id: u64) -> io::Result<()> {
        let Some(listener) = self.listeners.get(&id) else {
            return Ok(());
        };
        let path = listener.path.clone();
        self.watch_file_at(id, &path)
    }

    /// Watches `file`, which listener `id`'s follower opened, for writes if its path names no
    /// file now: found renamed away (or at a symbolic link's old target) before the first step,
    /// it is read on until a file comes at the path, as a running follower keeps the watch of
    /// the file its path named (see [`Self::repoint_once`]). Through `/proc/self/fd`, which
    /// names the open file wherever it is now; as in [`Self::listen`], only a refusal fails.
    fn watch_reading(&mut self, id: u64, file: &File) -> io::Result<()> {
        if self
            .listeners
            .get(&id)
            .is_none_or(|listener| listener.file.is_some())
        {
            return Ok(());
        }
        let open_file = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        match self.watch_file_at(id, &open_file) {
            Err(err) if refusal(&err).is_some() => Err(err),
            _ => Ok(()),
        }
    }

    /// Watches the file `path` names for writes to it, for listener `id` (see [`Self::watch_file`]).
    fn watch_file_at(&mut self, id: u64, path: &Path) -> io::Result<()> {
        if std::fs::metadata(path)?.is_dir() {
            return Ok(());
        }
        let wd = self.watches.add(path, FILE_EVENTS | ADD)?;
        let number = wd.get_watch_descriptor_id();
        if let Some(Watched {
            what: WatchedKind::Dir(..),
            ..
        }) = self.watched.get(&number)
        {
            // The path named a directory other followers watch for names by the time it was
            // watched: inotify added writes to their mask, which would call them for every
            // write to a file in it. Take them off (this one replaces the mask: for an instant
            // the directory is watched for nothing, a price only such a race pays).
            self.watches.add(path, name_events())?;
            return Ok(());
        }
        let watched = self.watched.entry(number).or_insert(Watched {
            wd,
            what: WatchedKind::File(Vec::new()),
        });
        if let WatchedKind::File(ids) = &mut watched.what {
            ids.push(id);
        }
        if let Some(listener) = self.listeners.get_mut(&id) {
            listener.file = Some(number);
        }
        Ok(())
    }

    /// Looks again at what `id`'s path names after a name came or went: watches the file
    /// there now and the directories of its names, then lets go of the ones before. A
    /// directory that cannot be watched any more keeps its old watch, and the file watched
    /// before stays watched; but a watch the OS refuses (its limit reached) leaves the path
    /// unwatchable, which its follower is told (a file or directory that names nothing is
    /// waited for instead). A name that changed between the look and the watches raised no
    /// event for them, so it looks once more when they stand, until what it watches is what it
    /// finds (a few times at most: a directory removed with everything in it, as `rm -rf`
    /// does, while the watcher follows it up the tree).
    fn repoint(&mut self, id: u64) {
        for _ in 0..MAX_LOOKS {
            let Some((path, watched)) = self.repoint_once(id) else {
                return;
            };
            if names_of(&path).unwrap_or_default() == watched {
                return;
            }
        }
    }

    /// [`Self::repoint`]'s one look: the path, and the names it found to watch.
    fn repoint_once(&mut self, id: u64) -> Option<(PathBuf, Vec<(PathBuf, OsString)>)> {
        let listener = self.listeners.get_mut(&id)?;
        let path = listener.path.clone();
        // A look that fails says nothing of the path: what it listened to stays (released, it
        // would leave the follower deaf to the path's coming back).
        let Ok(names) = names_of(&path) else {
            return Some((path, Vec::new()));
        };
        let old_names = std::mem::take(&mut listener.names);
        let old_file = listener.file.take();
        let mut kept = Vec::new();
        let mut refused = None;
        for (dir, name) in names.clone() {
            if let Err(err) = self.listen_to_nearest(id, dir.clone(), name) {
                refused = refused.or(dir_refusal(&err));
                kept.extend(
                    old_names
                        .iter()
                        .filter(|(wd, _)| self.dir_path(*wd) == Some(&*dir))
                        .cloned(),
                );
            }
        }
        if let Err(err) = self.watch_file(id) {
            refused = refused.or(refusal(&err));
        }
        // A path that names no file now keeps the watch of the one it named: its follower
        // still reads it (renamed away, or in a directory moved away) until a new file comes.
        let old_file = match self.listeners.get_mut(&id) {
            Some(listener) if listener.file.is_none() => {
                listener.file = old_file;
                None
            }
            _ => old_file,
        };
        let released: Vec<_> = old_names
            .into_iter()
            .filter(|name| !kept.contains(name))
            .collect();
        if let Some(listener) = self.listeners.get_mut(&id) {
            listener.names.extend(kept);
            listener.unwatchable = listener.unwatchable.or(refused);
        }
        self.forget(id, released, old_file);
        Some((path, names))
    }

    fn dir_path(&self, wd: i32) -> Option<&Path> {
        match self.watched.get(&wd) {
            Some(Watched {
                what: WatchedKind::Dir(path, _),
                ..
            }) => path.as_deref(),
            _ => None,
        }
    }

    /// Stops `id` listening to `names` and to the writes of `file`, unwatching what nobody
    /// listens to any more.
    fn forget(&mut self, id: u64, names: Vec<(i32, OsString)>, file: Option<i32>) {
        for (wd, name) in names {
            let Some(Watched {
                what: WatchedKind::Dir(_, listening),
                ..
            }) = self.watched.get_mut(&wd)
            else {
                continue;
            };
            if let Some(ids) = listening.get_mut(&name) {
                remove_one(ids, id);
                if ids.is_empty() {
                    listening.remove(&name);
                }
            }
            if listening.is_empty() {
                self.unwatch(wd);
            }
        }
        if let Some(wd) = file {
            if let Some(Watched {
                what: WatchedKind::File(ids),
                ..
            }) = self.watched.get_mut(&wd)
            {
                remove_one(ids, id);
                if ids.is_empty() {
                    self.unwatch(wd);
                }
            }
        }
    }

    fn unwatch(&mut self, wd: i32) {
        if let Some(watched) = self.watched.remove(&wd) {
            // The file or directory may be gone already, and its watch with it.
            let _ = self.watches.remove(watched.wd);
        }
    }

    /// A watch the kernel dropped: nobody listens there any more. Returns who listened to
    /// names there, if it was a directory's.
    fn forget_watch(&mut self, wd: i32) -> Vec<u64> {
        if self.watched.remove(&wd).is_none() {
            return Vec::new();
        }
        let mut named_there = Vec::new();
        for (&id, listener) in self.listeners.iter_mut() {
            let names = listener.names.len();
            listener.names.retain(|(other, _)| *other != wd);
            if listener.names.len() < names {
                named_there.push(id);
            }
            if listener.file == Some(wd) {
                listener.file = None;
            }
        }
        named_there
    }
}

/// Removes one occurrence of `id` from `ids` (a listener may listen to one name twice: a link
/// and its target in the same directory under the same name cannot, but a repoint adds before
/// it removes).
fn remove_one(ids: &mut Vec<u64>, id: u64) {
    if let Some(at) = ids.iter().position(|&other| other == id) {
        ids.swap_remove(at);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// Far past the few milliseconds an event takes: only a lost event waits this long.
    const HANG: Duration = Duration::from_secs(60);

    fn scratch_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fastlines-watch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    fn append(path: &Path, text: &str) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open to append");
        file.write_all(text.as_bytes()).expect("append");
    }

    /// A listener of `path`, added to a `State` by hand, whose calls do nothing.
    fn silent_listener(path: &Path) -> Listener {
        Listener {
            path: path.to_owned(),
            on_change: Arc::new(|_| {}),
            names: Vec::new(),
            file: None,
            unwatchable: None,
        }
    }

    /// A listener's calls, and the changes they were called with, in order.
    fn recorded() -> (OnChange, mpsc::Receiver<Change>) {
        let (sender, calls) = mpsc::channel();
        let on_change: OnChange = Arc::new(move |change| {
            let _ = sender.send(change);
        });
        (on_change, calls)
    }

    /// Waits for a call with a name change, passing over calls for writes before it.
    fn until_named(calls: &mpsc::Receiver<Change>) {
        while calls.recv_timeout(HANG).expect("a call") != Change::Named {}
    }

    #[test]
    fn writes_call_written_names_call_named_and_a_new_file_at_the_path_is_watched() {
        let dir = scratch_dir("kinds");
        let path = dir.join("app.log");
        append(&path, "");
        let (on_change, calls) = recorded();
        let _registration = Registration::new(&path, None, on_change).expect("watched");
        append(&path, "one\n");
        assert_eq!(calls.recv_timeout(HANG), Ok(Change::Written));
        std::fs::rename(&path, dir.join("app.log.1")).expect("rename");
        assert_eq!(calls.recv_timeout(HANG), Ok(Change::Named));
        append(&path, "");
        until_named(&calls);
        append(&path, "two\n");
        assert_eq!(
            calls.recv_timeout(HANG),
            Ok(Change::Written),
            "the file created at the path is watched for writes"
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// A follower's file renamed away before its watch is made, nothing at the path: the file
    /// it opened is watched through its descriptor until a file comes at the path.
    #[test]
    fn the_file_read_is_watched_while_the_path_names_none() {
        let dir = scratch_dir("reading");
        let path = dir.join("app.log");
        let renamed = dir.join("app.log.1");
        append(&path, "");
        let reading = File::open(&path).expect("open");
        std::fs::rename(&path, &renamed).expect("rename");
        let (on_change, calls) = recorded();
        let _registration = Registration::new(&path, Some(&reading), on_change).expect("watched");
        append(&renamed, "one\n");
        assert_eq!(calls.recv_timeout(HANG), Ok(Change::Written));
        append(&path, "");
        until_named(&calls);
        while calls.try_recv().is_ok() {}
        append(&path, "new\n");
        assert_eq!(
            calls.recv_timeout(HANG),
            Ok(Change::Written),
            "the file that came is watched"
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// A follower of a directory (a mistake: its first read fails) that starts before a follower
    /// of a file in it: the directory's one watch descriptor was made as a file's, so the second
    /// follower's names were never listened to, and the watch went with the first follower.
    #[test]
    fn a_follower_of_a_directory_leaves_the_names_in_it_to_other_followers() {
        let dir = scratch_dir("directory");
        let path = dir.join("app.log");
        append(&path, "");
        let mistaken = Registration::new(&dir, None, Arc::new(|_| {})).expect("watched");
        let (on_change, calls) = recorded();
        let _registration = Registration::new(&path, None, on_change).expect("watched");
        std::fs::rename(&path, dir.join("app.log.1")).expect("rename");
        until_named(&calls);
        drop(mistaken);
        append(&path, "");
        until_named(&calls);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// A symbolic link re-pointed at a file not made yet (the link first, then the file):
    /// the new target's name must be listened to, or its creation wakes nobody.
    #[test]
    fn a_link_re_pointed_at_a_file_made_later_calls_when_it_is_made() {
        let dir = scratch_dir("dangling");
        let path = dir.join("current.log");
        let (first, second) = (dir.join("a.log"), dir.join("b.log"));
        append(&first, "one\n");
        std::os::unix::fs::symlink(&first, &path).expect("link");
        let (on_change, calls) = recorded();
        let _registration = Registration::new(&path, None, on_change).expect("watched");
        let staged = dir.join("current.log.new");
        std::os::unix::fs::symlink(&second, &staged).expect("link");
        std::fs::rename(&staged, &path).expect("re-point");
        until_named(&calls);
        while calls.try_recv().is_ok() {}
        append(&second, "two\n");
        assert!(
            calls.recv_timeout(Duration::from_secs(2)).is_ok(),
            "the new target appeared and grew: the follower is called"
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// A follower starting (or looking again after a name event) watches a file that others
    /// may watch already. Re-adding a watch with the same mask replaces it, and the kernel
    /// clears the mask before setting it again: a write in between raised no event, and a
    /// follower waiting at the end of the file missed that line until the next write. A write's
    /// event is queued before `write(2)` returns, so each write is checked at once.
    #[test]
    fn a_file_watched_again_while_it_is_written_loses_no_write() {
        const WRITES: usize = 200_000;
        let dir = scratch_dir("again");
        let path = dir.join("app.log");
        append(&path, "");
        let mut inotify = Inotify::init().expect("inotify"); // reads do not wait
        let state = Arc::new(Mutex::new(State::new(inotify.watches())));
        let waiting = lock(&state).listeners.add(silent_listener(&path));
        lock(&state).watch_file(waiting).expect("watched");
        let writing = Arc::new(AtomicBool::new(true));
        let others = std::thread::spawn({
            let (state, writing, path) = (Arc::clone(&state), Arc::clone(&writing), path.clone());
            move || {
                while writing.load(Ordering::Relaxed) {
                    let mut state = lock(&state);
                    let other = state.listeners.add(silent_listener(&path));
                    state.watch_file(other).expect("watched");
                    let gone = state.listeners.remove(&other).expect("listening");
                    state.forget(other, gone.names, gone.file);
                }
            }
        });
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open to append");
        let mut buffer = vec![0; EVENT_BUFFER_BYTES];
        let mut lost = 0;
        for _ in 0..WRITES {
            file.write_all(b"x").expect("append");
            match inotify.read_events(&mut buffer) {
                Ok(events) => lost += usize::from(events.count() == 0),
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => lost += 1,
                Err(err) => panic!("reading events: {err}"),
            }
        }
        writing.store(false, Ordering::Relaxed);
        others.join().expect("joined");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!(lost, 0, "writes that raised no event, of {WRITES}");
    }

    /// Feeds every event queued on `inotify` (whose reads do not wait) to `state`; returns who
    /// they call.
    fn handle_queued(inotify: &mut Inotify, state: &mut State) -> Vec<u64> {
        let mut buffer = vec![0; EVENT_BUFFER_BYTES];
        let mut calls = Calls::default();
        loop {
            match inotify.read_events(&mut buffer) {
                Ok(events) => state.on_events(events, &mut calls),
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
                Err(err) => panic!("reading events: {err}"),
            }
        }
        calls.by_id.keys().copied().collect()
    }

    /// `rm -rf` of a log's directory and the one above it, then `mkdir -p` and the file made
    /// again, before the watcher had seen the deletion. The follower still holds the old file
    /// open, so the deleted directory keeps its watch; the directory made at its path is
    /// another one, and it is the one whose new file the follower waits for. (Found by a CI run
    /// of follow.spec on linux-x64-musl: the follower watched the deleted directory, and waited
    /// for ever.)
    #[test]
    fn a_directory_made_again_while_the_deleted_one_is_held_is_watched_itself() {
        let top = scratch_dir("made-again");
        let dir = top.join("a").join("b");
        let path = dir.join("app.log");
        std::fs::create_dir_all(&dir).expect("a directory");
        append(&path, "one\n");
        let held = std::fs::File::open(&path).expect("the follower's file");
        let mut inotify = Inotify::init().expect("inotify"); // reads do not wait
        let mut state = State::new(inotify.watches());
        let id = state.listeners.add(silent_listener(&path));
        for (dir, name) in names_of(&path).expect("names") {
            state.listen_to_nearest(id, dir, name).expect("listening");
        }
        state.watch_file(id).expect("watched");
        std::fs::remove_dir_all(top.join("a")).expect("rm -rf");
        std::fs::create_dir_all(&dir).expect("mkdir -p");
        handle_queued(&mut inotify, &mut state);
        append(&path, "two\n");
        let called = handle_queued(&mut inotify, &mut state);
        drop(held);
        std::fs::remove_dir_all(&top).expect("clean up");
        assert_eq!(
            called,
            [id],
            "the file made in the new directory calls its follower"
        );
    }

    /// One directory under two paths, as a bind mount shows it (here `dir` and `dir/sub/..`,
    /// which the callers would have made canonical): inotify gives its one watch descriptor for
    /// both, and the second listener must not take the first one's names.
    #[test]
    fn one_directory_under_two_paths_keeps_every_listeners_names() {
        let dir = scratch_dir("two-paths");
        let (first_path, second_path) = (dir.join("app.log"), dir.join("other.log"));
        let other_way = dir.join("sub").join("..");
        std::fs::create_dir_all(dir.join("sub")).expect("a directory");
        append(&first_path, "");
        append(&second_path, "");
        let mut inotify = Inotify::init().expect("inotify");
        let mut state = State::new(inotify.watches());
        let first = state.listeners.add(silent_listener(&first_path));
        let second = state.listeners.add(silent_listener(&second_path));
        state
            .listen_to_name(first, &dir, "app.log".into())
            .expect("listening");
        state
            .listen_to_name(second, &other_way, "other.log".into())
            .expect("listening");
        std::fs::rename(&first_path, dir.join("app.log.1")).expect("rename");
        let mut buffer = vec![0; EVENT_BUFFER_BYTES];
        let mut calls = Calls::default();
        let events = inotify.read_events_blocking(&mut buffer).expect("events");
        state.on_events(events, &mut calls);
        let called: Vec<u64> = calls.by_id.keys().copied().collect();
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!(
            called,
            [first],
            "the rotation is heard by the first listener"
        );
    }
}
