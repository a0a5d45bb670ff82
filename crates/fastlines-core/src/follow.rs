//! Following a file as it grows, as `tail -F` does: reading what is appended, woken by the OS
//! (see [`crate::watch`]), never by a timer; and going on through the file's rotations.
//!
//! Where it starts is fixed when following is asked for ([`Anchor`]), not when the background
//! task first runs: lines appended in between are read, and a rotation in between is followed
//! by the rules below, as if the follower had been running.
//!
//! After each wake-up the follower reads everything there is (one notification can stand for
//! many writes, and a write can land between the notification and the read), on the watcher's
//! thread when it can (see [`read_here`]). Having caught up, it looks at the path when a name
//! came or went in its directories, and at the file's length when the wake-up brought nothing
//! to read (see [`FollowTrip::what_to_look_at`]), and finds:
//! - the same file, no shorter than what was read: wait for the next change;
//! - another file at the path (renamed away and recreated, logrotate's default): read the old
//!   file to its end, its last line included even without a terminator, then the new one from
//!   its start;
//! - the same file, shorter than what was read (truncated in place, logrotate's `copytruncate`):
//!   read it again from its start, dropping the partial line held from before;
//! - nothing at the path (deleted, or renamed and not yet recreated): wait for it to reappear.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::spawn_blocking;

use crate::anchor::{open_log, Anchor, FileId, Reopened};
use crate::buffer::READ_AHEAD_BYTES;
use crate::channel::ItemSender;
use crate::error::{OsError, ReadError};
use crate::frame::{Batch, LineFramer};
use crate::last_lines::start_of_last_lines;
use crate::reader::{Progress, Reader};
use crate::source::{capped_read_size, read_size_for, ReadOptions, Source};
use crate::stream::{
    read_here, run_trips, Cancel, Changes, Producer, ReadAhead, ReadStream, Stop, TripEnd,
    TripReader, TripThread,
};
use crate::watch::{names_nothing, Change, OnChange, Watch};

/// The most bytes a follower reads in one trip on the watcher's thread, which every follower in
/// the process shares: past them, it hands its reader back to be read on the blocking pool, so
/// that a large append (a long line with no end yet, or many lines that `match` passes over)
/// does not keep the other followers from hearing of theirs. A log written a line at a time
/// adds far less per change; the read-ahead holds at most as much.
const BYTES_PER_WATCHER_TRIP: u64 = 1024 * 1024;

/// The bytes a place in a follower's channel stands for. A follower woken for each write reads
/// a line or two a batch; with a place per read (64 KiB), 16 such batches filled its read-ahead,
/// and a consumer busy for a moment left the rest of its lines unread in the file, lost to a
/// `copytruncate`. In places of a short line's bytes, its read-ahead holds about
/// [`READ_AHEAD_BYTES`] whatever the writes (8,192 batches of a line of up to 255 bytes).
const FOLLOWER_PLACE_BYTES: usize = 128;

/// A follower's read-ahead: see [`FOLLOWER_PLACE_BYTES`].
fn follower_read_ahead() -> ReadAhead {
    ReadAhead::in_places(
        READ_AHEAD_BYTES / FOLLOWER_PLACE_BYTES,
        FOLLOWER_PLACE_BYTES,
    )
}

/// Where a follower starts reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowFrom {
    /// At the end of the file as it was at the anchor: only lines appended after that.
    End,
    /// At `options.start`, a byte offset (a saved position, say).
    Start,
    /// With the last this many lines as of the anchor.
    LastLines(u64),
}

impl ReadStream<Batch> {
    /// Follows the file `anchor` took as it grows, starting `from` where it says as of the
    /// anchor: see the `follow` task in `follow.rs`. Must be called inside a Tokio runtime;
    /// bounded like [`Self::spawn`].
    pub fn follow(
        anchor: Anchor,
        options: ReadOptions,
        framer: LineFramer,
        from: FollowFrom,
    ) -> Self {
        Self::start(follower_read_ahead(), framer, Arc::default(), |producer| {
            follow(producer, anchor, options, from)
        })
    }
}

/// A follower's reader and what it needs between trips to the blocking pool. Fields drop in
/// order: the file is closed before the stream hears that it is.
pub(crate) struct FollowTrip {
    reader: Reader<LineFramer>,
    items: ItemSender<Batch>,
    /// The file found at the path in place of the one being read, opened at once: read from its
    /// start once the old one is read to its end.
    next_file: Option<File>,
    /// What the watcher heard of the path, and the path.
    news: Arc<PathNews>,
    /// The bytes read when this trip began, or when the follower last caught up in it: a
    /// catch-up that finds the same figure brought nothing to read (see
    /// [`FollowTrip::what_to_look_at`]).
    caught_up_at: Option<u64>,
    /// The reader's bytes read, shared, to be watched while it reads.
    progress: Progress,
    /// In a trip on the watcher's thread, the bytes read past which it stops reading (see
    /// [`BYTES_PER_WATCHER_TRIP`]); `None` on the blocking pool.
    read_until: Option<u64>,
    _file_closed: tokio::sync::oneshot::Sender<()>,
}

/// The background task of a follower: opens the file, watches its path, then reads whenever
/// the path changes (on the watcher's thread, or on the blocking pool when that cannot: see
/// [`read_here`]), until the stream is closed.
pub(crate) async fn follow(
    producer: Producer<LineFramer, FollowTrip>,
    anchor: Anchor,
    options: ReadOptions,
    from: FollowFrom,
) {
    let Producer {
        framer,
        items,
        progress,
        stop,
        file_closed,
        started_at,
    } = producer;
    let changes = Arc::new(Changes::default());
    // The first catch-up looks at the path.
    let news = Arc::new(PathNews::new(anchor.path().to_owned(), true));
    let on_change: OnChange = {
        let (stop, changes, news) = (Arc::clone(&stop), Arc::clone(&changes), Arc::clone(&news));
        Arc::new(move |change| {
            news.hear(change);
            read_here(&stop, &changes);
        })
    };
    let mut to_open = ToOpen {
        anchor,
        options,
        from,
        framer,
        file_closed,
    };
    // The watch lives in this task: cancelling the stream aborts the task and drops the watch.
    let mut watch = None;
    let (source, offset, after_cr, _watch, framer, file_closed) = loop {
        let watched_before = watch.is_some();
        let opening = open_and_watch(to_open, watch, &news, &on_change, &stop);
        match opening.await {
            Ok(Ok(Opening::Opened(opened))) => break opened,
            Ok(Ok(Opening::Awaited(back, watching))) => {
                (to_open, watch) = (back, Some(watching));
                // Unwatched, no file coming to the path would wake it.
                if let Err(err) = news.refusal() {
                    items.send(Err(err)).await;
                    return;
                }
                // Once watched, a name that comes wakes the task (see `read_here`: no reader is
                // parked yet); the first look after the watch is made sees one that came before.
                if watched_before {
                    changes.next_change().await;
                }
            }
            Ok(Err(err)) => {
                items.send(Err(err)).await;
                return;
            }
            Err(_) => return, // the runtime is shutting down
        }
    };
    let _ = started_at.set(offset);
    let mut reader = Reader::new(source, framer, progress.clone());
    if after_cr {
        reader.after_carriage_return(offset);
    }
    let trip = FollowTrip {
        reader,
        items,
        next_file: None,
        news,
        caught_up_at: None,
        progress,
        read_until: None,
        _file_closed: file_closed,
    };
    run_trips(trip, stop, Some(&changes)).await;
}

/// What a follower opens its file with, handed to the blocking pool and back while it waits
/// for a file to come to the path (see [`Opening::Awaited`]).
struct ToOpen {
    anchor: Anchor,
    options: ReadOptions,
    from: FollowFrom,
    framer: LineFramer,
    /// Dropped once the file is closed: see [`FollowTrip`].
    file_closed: tokio::sync::oneshot::Sender<()>,
}

/// A follower's file opened, where it starts, whether that is just after a `\r`, its watch, and
/// what it was opened with that it reads with.
type Opened = (
    Source,
    u64,
    bool,
    Watch,
    LineFramer,
    tokio::sync::oneshot::Sender<()>,
);

/// How a look for the followed file ended.
enum Opening {
    Opened(Opened),
    /// The anchored file is gone (deleted, or moved out of its directory) and nothing is at the
    /// path yet: the follower waits for a file to come there, as a running follower does, with
    /// the watch that will tell it. Failing with `ENOENT` instead, as for a path that named
    /// nothing at the call, failed a follower whose log was deleted between the call and the
    /// first step, where a follower a moment older waits.
    Awaited(ToOpen, Watch),
}

/// Looks for the followed file on the blocking pool, and watches its path (with `watch`, or a
/// new watch calling `on_change`): see [`open_following`].
fn open_and_watch(
    to_open: ToOpen,
    watch: Option<Watch>,
    news: &Arc<PathNews>,
    on_change: &OnChange,
    stop: &Arc<Stop<FollowTrip>>,
) -> tokio::task::JoinHandle<Result<Opening, ReadError>> {
    let (news, on_change, stop) = (Arc::clone(news), Arc::clone(on_change), Arc::clone(stop));
    spawn_blocking(move || {
        let stopped = || stop.is_cancelled();
        let ToOpen {
            anchor,
            options,
            from,
            framer,
            ..
        } = &to_open;
        // While it waits (watched), the files the watcher saw come, oldest first, as a running
        // follower reads them; else the path.
        let arrived = watch.as_ref().and_then(|_| news.arrivals.oldest());
        let found = open_following(anchor, arrived, options, *from, framer, &stopped)?;
        if let Some((source, ..)) = &found {
            news.arrivals.reading(&source.input);
        }
        let watch = match watch {
            Some(watch) => watch,
            None => {
                let reading = found.as_ref().map(|(source, ..)| &source.input);
                Watch::new(&news.path, reading, on_change)
                    .map_err(|err| OsError::new(&err, "watch"))?
            }
        };
        Ok(match found {
            Some((source, offset, after_cr)) => {
                let ToOpen {
                    framer,
                    file_closed,
                    ..
                } = to_open;
                Opening::Opened((source, offset, after_cr, watch, framer, file_closed))
            }
            None => Opening::Awaited(to_open, watch),
        })
    })
}

/// Opens the file to follow (see [`Anchor::reopen`]) and positions it where `from` says, as of
/// the anchor (the last lines as `framer` frames them); also gives that offset, and whether it
/// is just after a `\r` (see [`follows_carriage_return`]).
///
/// The anchored file, now shorter than it was then, was truncated in place: it is read from its
/// start, and so is one that was shorter then than a `start` given (a saved position past the
/// end means the log was truncated since, however long it grew again before the first step). A
/// file that replaced it at the path is read from its start, as a running follower reads one;
/// one that appeared where nothing was is read from `start`, or else from its start. `None`
/// when the anchored file cannot be found and nothing is at the path: it is waited for.
fn open_following(
    anchor: &Anchor,
    arrived: Option<File>,
    options: &ReadOptions,
    from: FollowFrom,
    framer: &LineFramer,
    stopped: &dyn Fn() -> bool,
) -> Result<Option<(Source, u64, bool)>, ReadError> {
    let reopened = match arrived {
        Some(file) => anchor.judge(file),
        None => anchor.reopen(),
    };
    let (file, offset) = match reopened.map_err(|err| OsError::new(&err, "open"))? {
        Reopened::Gone => return Ok(None),
        Reopened::Fifo => return Err(OsError::new(&pipe_error(), "read").into()),
        Reopened::Anchored(file, len) => {
            let now = file
                .metadata()
                .map_err(|err| OsError::new(&err, "fstat"))?
                .len();
            let offset = match from {
                _ if now < len => 0,
                FollowFrom::Start
                    if options.start > len && !holds_bytes_unsized(&file, now, options.start)? =>
                {
                    0
                }
                FollowFrom::End => len,
                FollowFrom::Start => options.start,
                FollowFrom::LastLines(n) => {
                    let chunk_size = capped_read_size(options.chunk_size, len);
                    start_of_last_lines(&file, n, len, chunk_size, framer, stopped)?
                }
            };
            (file, offset)
        }
        Reopened::Replaced(file) => (file, 0),
        Reopened::Appeared(file) if from == FollowFrom::Start => (file, options.start),
        Reopened::Appeared(file) => (file, 0),
    };
    start_at(file, offset, options).map(Some)
}

/// `file`, to be read from `offset` on: its source, the offset, and whether that is just after a
/// `\r` (see [`follows_carriage_return`]).
fn start_at(
    mut file: File,
    offset: u64,
    options: &ReadOptions,
) -> Result<(Source, u64, bool), ReadError> {
    fail_if_directory(&file)?;
    let after_cr = follows_carriage_return(&file, offset)?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|err| OsError::new(&err, "read"))?;
    // Sized as `readLines` sizes a read of a file that grows: its buffer is allocated whole, and
    // eight followers of a small log with `highWaterMark` at 256 MiB took 2.5 GB of address space.
    let chunk_size = read_size_for(&file, offset, None, options.chunk_size);
    Ok((
        Source::new(file, None, chunk_size).at(offset),
        offset,
        after_cr,
    ))
}

/// A directory fails as its first read fails (`EISDIR`), as `readLines` fails there, before its
/// watch is looked for: a follower of `/` or `..` failed with `EINVAL` (syscall `watch`), since
/// such a path names no file in a directory.
fn fail_if_directory(file: &File) -> Result<(), ReadError> {
    if file.metadata().is_ok_and(|meta| meta.is_dir()) {
        crate::read::read_at(file, &mut [0], 0).map_err(|err| OsError::new(&err, "read"))?;
    }
    Ok(())
}

/// Whether the byte before `offset` in `file` is a `\r`: a follower starting there skips a `\n`
/// that comes first (see [`Reader::after_carriage_return`]), the rest of the `\r\n` that ended
/// the line before. Such a start is the end of a file a writer was caught in the middle of a
/// `\r\n` in: the end at the call, or a position saved then (`readLastLines`', or a reader's),
/// with the `\n` written since.
fn follows_carriage_return(file: &File, offset: u64) -> Result<bool, ReadError> {
    if offset == 0 {
        return Ok(false);
    }
    let mut byte = [0];
    let read = crate::read::read_at(file, &mut byte, offset - 1)
        .map_err(|err| OsError::new(&err, "read"))?;
    Ok(read == 1 && byte[0] == b'\r')
}

impl TripReader for FollowTrip {
    type Item = Batch;

    fn items(&self) -> &ItemSender<Batch> {
        &self.items
    }

    fn next_item(&mut self, stop: &dyn Cancel) -> Result<Option<Batch>, ReadError> {
        self.next(&|| stop.is_cancelled())
    }

    fn nothing_more(&self) -> TripEnd<Batch> {
        if self.read_enough() {
            TripEnd::TripDone
        } else {
            TripEnd::CaughtUp
        }
    }

    fn begin_trip(&mut self, thread: TripThread) {
        self.reader.begin_pass();
        // What this wake-up read is judged from here: against the last catch-up, a wake-up
        // after a trip that ended with its batch waiting for room (so read more since) seemed
        // to bring something, and a truncation it came for went unseen.
        let read = self.reader.bytes_read();
        self.caught_up_at = Some(read);
        self.read_until = match thread {
            TripThread::Watcher => Some(read + BYTES_PER_WATCHER_TRIP),
            TripThread::BlockingPool => None,
        };
    }
}

impl FollowTrip {
    /// Nothing more to read now; or, once the watcher could not watch what the path names, its
    /// error, as a watch refused at the start fails (syscall `watch`): the follower would
    /// otherwise wait at the end for ever, woken by no write.
    fn unless_unwatchable(&self) -> Result<Option<Batch>, ReadError> {
        self.news.refusal().map(|()| None)
    }

    /// Whether this trip read what a trip on its thread may read (see
    /// [`BYTES_PER_WATCHER_TRIP`]).
    fn read_enough(&self) -> bool {
        read_enough(self.read_until, &self.progress)
    }

    /// The next batch there is, going on to the next file when the path was rotated; `None`
    /// once everything is read and the path still names the file being read (or nothing), once
    /// `stopped()`, or once this trip read enough (see [`FollowTrip::read_enough`]).
    fn next(&mut self, stopped: &dyn Fn() -> bool) -> Result<Option<Batch>, ReadError> {
        let (read_until, progress) = (self.read_until, self.progress.clone());
        let stopped = &|| stopped() || read_enough(read_until, &progress);
        loop {
            if stopped() {
                return Ok(None);
            }
            if self.next_file.is_some() {
                if let Some(batch) = self.reader.next_unless(stopped)? {
                    return Ok(Some(batch));
                }
                if stopped() {
                    return Ok(None);
                }
                let next_file = self.next_file.take().expect("a next file");
                self.restart(next_file);
                continue;
            }
            if let Some(batch) = self.reader.next_appended(stopped)? {
                return Ok(Some(batch));
            }
            if stopped() {
                return Ok(None);
            }
            if let Some(arrived) = self.news.arrivals.next_after(self.reader.input()) {
                self.next_file = Some(arrived);
                continue;
            }
            let change = match self.what_to_look_at() {
                Look::Nothing => return Ok(None),
                Look::Length => truncation(self.reader.input()),
                Look::Path => path_change(&self.news.path, self.reader.input()),
            };
            match change? {
                PathChange::None | PathChange::Gone => return self.unless_unwatchable(),
                PathChange::Replaced(next_file) => self.next_file = Some(next_file),
                PathChange::Truncated => {
                    self.reader
                        .input()
                        .seek(SeekFrom::Start(0))
                        .map_err(|err| OsError::new(&err, "read"))?;
                    // A line ended by a lone `\r` is whole: only a partial line is dropped.
                    let held = self.reader.take_complete_at_break()?;
                    self.reader.drop_unframed();
                    self.reader.framer_mut().restart();
                    if held.is_some() {
                        return Ok(held);
                    }
                }
            }
        }
    }

    /// What to look at once caught up: the path when a name came or went in its directories
    /// (the path may name another file now, or nothing); the file's length when this wake-up
    /// brought nothing to read (the file may have been truncated below what was read); else
    /// nothing. Writes alone need no look: a rotation shows as a name event, and looking at the
    /// path costs three system calls, more than reading the line that woke the follower.
    fn what_to_look_at(&mut self) -> Look {
        let read = self.reader.bytes_read();
        let nothing_new = self.caught_up_at.replace(read) == Some(read);
        if self.news.renamed.swap(false, Ordering::SeqCst) {
            Look::Path
        } else if nothing_new {
            Look::Length
        } else {
            Look::Nothing
        }
    }

    /// Reads `file` from its start, as a new input: offsets from 0, nothing carried over.
    fn restart(&mut self, file: File) {
        self.reader.replace_input(file);
        self.reader.framer_mut().restart();
    }
}

/// What the watcher heard of the followed path, for the follower to act on once caught up.
#[derive(Debug)]
struct PathNews {
    /// The followed path, absolute.
    path: PathBuf,
    /// Set when a name came or went in the path's directories: the path may name another file
    /// now.
    renamed: AtomicBool,
    /// The OS's error number once what the path names could not be watched (0 until then): no
    /// write would wake the follower, which fails with it once it has read what there is.
    unwatchable: AtomicI32,
    /// The files the path named as the watcher saw them come, not read yet.
    arrivals: Arrivals,
}

impl PathNews {
    fn new(path: PathBuf, renamed: bool) -> Self {
        Self {
            path,
            renamed: AtomicBool::new(renamed),
            unwatchable: AtomicI32::new(0),
            arrivals: Arrivals::default(),
        }
    }

    /// The error a follower fails with once what the path names could not be watched.
    fn refusal(&self) -> Result<(), ReadError> {
        match self.unwatchable.load(Ordering::SeqCst) {
            0 => Ok(()),
            errno => Err(OsError::new(&io::Error::from_raw_os_error(errno), "watch").into()),
        }
    }

    /// Takes in a change the watcher saw: anything but a write may have put another file at the
    /// path (opened at once, see [`Arrivals::note`]) or left nothing watchable there.
    fn hear(&self, change: Change) {
        if let Change::Unwatchable(errno) = change {
            self.unwatchable.store(errno, Ordering::SeqCst);
        }
        if change != Change::Written {
            self.arrivals.note(&self.path);
            self.renamed.store(true, Ordering::SeqCst);
        }
    }
}

/// The files the followed path named, in the order they came to it, each opened on the
/// watcher's thread as its name event came: a follower behind its writer (its consumer slow,
/// its batches waiting for room) reads every file that rotations put at the path, where looking
/// at the path once it has caught up finds only the newest, after two rotations. At most
/// [`MAX_ARRIVALS`] wait.
#[derive(Debug, Default)]
struct Arrivals {
    state: Mutex<ArrivalState>,
}

/// How many files that came to the path a follower holds open, waiting to be read, at most: a
/// consumer that stopped while the log rotated every few seconds held one descriptor per
/// rotation (190 after 300), towards the process's limit, where other code then fails with
/// `EMFILE`. Files that come while this many wait are not opened: once caught up, the follower
/// finds the newest at the path, having skipped those between, as `tail -F` skips every file
/// that came and went while it was not looking.
const MAX_ARRIVALS: usize = 16;

#[derive(Debug, Default)]
struct ArrivalState {
    /// The file the path was last seen to name: the newest queued, or the one being read.
    newest: Option<FileId>,
    /// Files that came after the one being read, oldest first; at most [`MAX_ARRIVALS`].
    queued: VecDeque<(FileId, File)>,
}

impl Arrivals {
    fn lock(&self) -> std::sync::MutexGuard<'_, ArrivalState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The follower reads `file`, the one the path named when it began.
    fn reading(&self, file: &File) {
        self.lock().newest = FileId::of_file(file).ok().map(|(id, _)| id);
    }

    /// The oldest file queued, for a follower that waits for a file to come (see
    /// [`Opening::Awaited`]): it reads the files that came in the order they came, as a running
    /// follower does, rather than whichever the path names when it looks (one that came and went
    /// meanwhile would be lost, or read after a newer one).
    fn oldest(&self) -> Option<File> {
        self.lock().queued.pop_front().map(|(_, file)| file)
    }

    /// Opens the file `path` names now, if it is not the last one seen there and the queue has
    /// room, and queues it. Nothing there, nothing readable yet, or no room, is for the
    /// follower's own look (see [`path_change`]). Called on the watcher's thread only, and opens
    /// with the state unlocked, so that the follower taking the queue never waits on a file
    /// system.
    fn note(&self, path: &Path) {
        let Ok((id, _)) = FileId::of_path(path) else {
            return;
        };
        {
            let state = self.lock();
            if state.newest == Some(id) || state.queued.len() >= MAX_ARRIVALS {
                return;
            }
        }
        let Ok(Some(file)) = open_log(path) else {
            return;
        };
        // What was opened is what the path names by then, which may be newer still.
        let Ok((id, _)) = FileId::of_file(&file) else {
            return;
        };
        let mut state = self.lock();
        if state.newest != Some(id) && state.queued.len() < MAX_ARRIVALS {
            state.newest = Some(id);
            state.queued.push_back((id, file));
        }
    }

    /// The oldest file queued that is not `reading` (a file may be queued after the follower
    /// found it at the path itself), if any.
    fn next_after(&self, reading: &File) -> Option<File> {
        let mut state = self.lock();
        if state.queued.is_empty() {
            return None;
        }
        let reading = FileId::of_file(reading).ok().map(|(id, _)| id);
        while let Some((id, file)) = state.queued.pop_front() {
            if Some(id) != reading {
                return Some(file);
            }
        }
        None
    }
}

/// What a caught-up follower looks at (see [`FollowTrip::what_to_look_at`]).
enum Look {
    Nothing,
    Length,
    Path,
}

/// What became of the followed path, seen after reading `file` (opened from it) to its end.
enum PathChange {
    /// It still names `file`, which is no shorter than what was read.
    None,
    /// It names nothing now.
    Gone,
    /// It names another file, opened here.
    Replaced(File),
    /// It names `file`, which is now shorter than what was read of it.
    Truncated,
}

/// Whether a trip that stops reading at `read_until` bytes read, if anywhere, read them.
fn read_enough(read_until: Option<u64>, progress: &Progress) -> bool {
    read_until.is_some_and(|until| progress.bytes() >= until)
}

/// What became of `path`; a failure names the call that failed, as Node's errors do.
fn path_change(path: &Path, file: &File) -> Result<PathChange, ReadError> {
    let (reading, len) = FileId::of_file(file).map_err(|err| OsError::new(&err, "fstat"))?;
    let at_path = match FileId::of_path(path) {
        Ok((at_path, _)) => at_path,
        Err(err) if names_nothing(&err) => return Ok(PathChange::Gone),
        Err(err) => return Err(OsError::new(&err, "stat").into()),
    };
    if reading != at_path {
        return match open_log(path) {
            Ok(Some(next_file)) => Ok(PathChange::Replaced(next_file)),
            Ok(None) => Ok(PathChange::Gone),
            Err(err) if names_nothing(&err) => Ok(PathChange::Gone),
            Err(err) => Err(OsError::new(&err, "open").into()),
        };
    }
    truncated_below(file, len)
}

/// Whether `file` is now shorter than what was read of it (`None` or `Truncated`).
fn truncation(file: &File) -> Result<PathChange, ReadError> {
    let (_, len) = FileId::of_file(file).map_err(|err| OsError::new(&err, "fstat"))?;
    truncated_below(file, len)
}

/// Whether `file`, `len` bytes long by its `fstat`, was truncated below where it was read to. A
/// file whose size the OS does not give (see [`holds_bytes_unsized`]) is read on, not read again from its
/// start (a follower of `/proc/version` gave its line twice).
fn truncated_below(mut file: &File, len: u64) -> Result<PathChange, ReadError> {
    let read_to = file
        .stream_position()
        .map_err(|err| OsError::new(&err, "lseek"))?;
    if len >= read_to || holds_bytes_unsized(file, len, read_to)? {
        return Ok(PathChange::None);
    }
    Ok(PathChange::Truncated)
}

/// Whether `file`, `len` bytes long by its `fstat`, holds the byte before `offset` all the same:
/// a file whose size the OS does not give (procfs says 0) has its bytes there, and an offset in
/// it (a `start`, or how far it was read) is not past a truncation.
fn holds_bytes_unsized(file: &File, len: u64, offset: u64) -> Result<bool, ReadError> {
    if len != 0 || offset == 0 {
        return Ok(false);
    }
    let read = crate::read::read_at(file, &mut [0], offset - 1)
        .map_err(|err| OsError::new(&err, "read"))?;
    Ok(read == 1)
}

/// The error a follower of a pipe fails with, as seeking it fails: `ESPIPE`.
#[cfg(target_os = "linux")]
fn pipe_error() -> io::Error {
    rustix::io::Errno::SPIPE.into()
}

/// `ESPIPE`, 29 on macOS and the BSDs too; elsewhere no FIFO is told apart (see `anchor.rs`).
#[cfg(not(target_os = "linux"))]
fn pipe_error() -> io::Error {
    io::Error::from_raw_os_error(29)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use tokio::sync::mpsc;

    use super::*;
    use crate::channel::{channel, Item, ItemReceiver};
    use crate::decode::{Encoding, Text};
    use crate::reader::Progress;
    use crate::stream::{Changes, Stop};

    /// A follower of `path` from its start, parked in a stream whose channel holds one item,
    /// as the watcher's thread finds it.
    fn parked_follower(path: &Path) -> (Stop<FollowTrip>, ItemReceiver<Batch>) {
        parked_follower_framing(path, LineFramer::new(Encoding::Utf8))
    }

    /// [`parked_follower`], framing with `framer`.
    fn parked_follower_framing(
        path: &Path,
        framer: LineFramer,
    ) -> (Stop<FollowTrip>, ItemReceiver<Batch>) {
        parked_follower_ahead(path, framer, ReadAhead::in_places(1, usize::MAX))
    }

    /// [`parked_follower_framing`], its channel holding `read_ahead`.
    fn parked_follower_ahead(
        path: &Path,
        framer: LineFramer,
        read_ahead: ReadAhead,
    ) -> (Stop<FollowTrip>, ItemReceiver<Batch>) {
        let file = File::open(path).expect("open");
        let (items, taken, _waiter) = channel(
            read_ahead.places,
            read_ahead.place_bytes,
            <LineFramer as crate::frame::Framer>::weight,
        );
        let progress = Progress::default();
        let trip = FollowTrip {
            reader: Reader::new(Source::new(file, None, 64 * 1024), framer, progress.clone()),
            items,
            next_file: None,
            news: Arc::new(PathNews::new(path.to_owned(), false)),
            caught_up_at: None,
            progress,
            read_until: None,
            _file_closed: tokio::sync::oneshot::channel().0,
        };
        let stop = Stop::default();
        stop.park(trip);
        (stop, taken)
    }

    fn append(path: &Path, text: &str) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("open to append");
        file.write_all(text.as_bytes()).expect("append");
    }

    /// What `copytruncate` does to `path` (truncated in place), then `text` written.
    fn truncate_and_append(path: &Path, text: &str) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .expect("open");
        file.set_len(0).expect("truncate");
        append(path, text);
    }

    fn text(item: Result<Item<Batch>, mpsc::error::TryRecvError>) -> Text {
        item.expect("an item").expect("not a failure").text
    }

    fn one_byte(text: &'static str) -> Text {
        Text::OneByte(bytes::Bytes::from_static(text.as_bytes()))
    }

    /// A follower of a new file `name` in a scratch directory (its path, whose directory the
    /// caller removes), parked after a wake-up that ended with its batch waiting for room in a
    /// full channel: "zero" was read and taken, and the wake-up's short read of "one" found the
    /// channel full and handed the reader back. As the task does, the batch is sent once there
    /// is room and the reader parked; then "one" is taken.
    fn parked_after_a_full_channel(
        name: &str,
    ) -> (
        PathBuf,
        Stop<FollowTrip>,
        ItemReceiver<Batch>,
        Changes<FollowTrip>,
    ) {
        let dir =
            std::env::temp_dir().join(format!("fastlines-follow-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join(name);
        std::fs::write(&path, "zero\n").expect("write");
        let (stop, mut taken) = parked_follower(&path);
        let changes = Changes::default();
        read_here(&stop, &changes);
        append(&path, "one\n");
        read_here(&stop, &changes);
        let (reader, end) = changes
            .take_handed_back()
            .expect("handed back: the channel is full");
        let TripEnd::ChannelFull(one) = end else {
            panic!("the wake-up ends with a batch waiting for room");
        };
        assert_eq!(text(taken.try_recv()), one_byte("zero"));
        let reader = reader.expect("a reader");
        reader.items.try_send(one).expect("room now");
        stop.park(reader);
        assert_eq!(text(taken.try_recv()), one_byte("one"));
        (path, stop, taken, changes)
    }

    /// A read that returns less than it asked for finds the file's end, so the wake-up that
    /// made it stops there without another read; the same wake-up must not speak for a later
    /// one. Here a wake-up's short read is followed by a full channel (its batch waits for
    /// room), and the next wake-up, for a write made since, must read that write: it may be the
    /// last one, which nothing else will announce.
    #[test]
    fn a_wake_up_after_a_full_channel_reads_what_was_written_since() {
        let (path, stop, mut taken, changes) = parked_after_a_full_channel("full.log");
        append(&path, "two\n");
        read_here(&stop, &changes);
        assert_eq!(text(taken.try_recv()), one_byte("two"));
        std::fs::remove_dir_all(path.parent().expect("a directory")).expect("clean up");
    }

    /// copytruncate right after a pass that ended with a full channel: the reader is at 9
    /// bytes, `caught_up_at` still says 5 (the last catch-up), the file now holds "x\n". The
    /// task parked the reader after forwarding its batch and queued a trip; the watcher's
    /// thread takes the reader first, for the truncation's event, while the task's trip finds
    /// it out and waits for the next change. The watcher's pass reads nothing, yet judges that
    /// it brought something (9 != 5), so it never looks at the length: "x" is not read.
    #[test]
    fn a_truncation_right_after_a_full_channel_is_noticed() {
        let (path, stop, mut taken, changes) = parked_after_a_full_channel("truncated.log");
        truncate_and_append(&path, "x\n");
        read_here(&stop, &changes);
        assert!(changes.take_handed_back().is_none(), "caught up: parked");
        assert_eq!(
            text(taken.try_recv()),
            one_byte("x"),
            "the truncated file is read again from its start"
        );
        std::fs::remove_dir_all(path.parent().expect("a directory")).expect("clean up");
    }

    /// A consumer busy elsewhere while the log is written a line per write: the follower reads
    /// each write as it comes, a batch each, and must go on reading them for a read-ahead's
    /// worth, so that a `copytruncate` loses none of them. With a place per read, it stopped
    /// after 16 batches and the truncation lost the rest.
    #[test]
    fn a_busy_consumer_loses_no_line_written_a_write_at_a_time_to_a_copytruncate() {
        let dir = scratch("busy-consumer");
        let path = dir.join("app.log");
        std::fs::write(&path, "").expect("write");
        let (stop, mut taken) = parked_follower_ahead(
            &path,
            LineFramer::new(Encoding::Utf8),
            follower_read_ahead(),
        );
        let changes = Changes::default();
        let written: Vec<String> = (0..2000).map(|n| format!("line {n}")).collect();
        for line in &written {
            append(&path, &format!("{line}\n"));
            read_here(&stop, &changes);
            assert!(
                changes.take_handed_back().is_none(),
                "{line}: read and caught up, with room to spare"
            );
        }
        truncate_and_append(&path, "after\n");
        read_here(&stop, &changes);
        let mut lines = Vec::new();
        while let Ok(item) = taken.try_recv() {
            let Text::OneByte(bytes) = item.expect("not a failure").text else {
                panic!("ASCII lines come as one-byte text");
            };
            let text = std::str::from_utf8(&bytes).expect("ASCII");
            lines.extend(text.split('\n').map(str::to_owned));
        }
        let mut want = written;
        want.push("after".to_owned());
        assert_eq!(lines, want);
        std::fs::remove_dir_all(dir).expect("clean up");
    }

    #[test]
    fn a_follower_that_waited_reads_the_files_that_came_in_the_order_they_came() {
        let dir = scratch("arrivals");
        let path = dir.join("app.log");
        let arrivals = Arrivals::default();
        std::fs::write(&path, "first\n").expect("a file");
        arrivals.note(&path);
        std::fs::write(dir.join("next"), "second\n").expect("a file");
        std::fs::rename(dir.join("next"), &path).expect("a rename");
        arrivals.note(&path);
        let text = |mut file: File| {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut file, &mut text).expect("a read");
            text
        };
        let first = arrivals.oldest().expect("the first file");
        arrivals.reading(&first);
        let second = arrivals.next_after(&first).expect("the second file");
        assert!(arrivals.next_after(&second).is_none());
        assert_eq!(
            (text(first), text(second)),
            ("first\n".into(), "second\n".into())
        );
        std::fs::remove_dir_all(dir).expect("scratch removed");
    }

    /// A scratch directory for a test named `name`, made empty.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fastlines-follow-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    }

    /// A wake-up on the watcher's thread for `appended` reads about
    /// [`BYTES_PER_WATCHER_TRIP`] of it and hands the reader back to read the rest on the
    /// blocking pool, where a trip reads on until it has an item; then `want` comes out.
    fn a_large_append_is_handed_back(name: &str, framer: LineFramer, appended: &str, want: &str) {
        let dir = scratch(name);
        let path = dir.join("large.log");
        std::fs::write(&path, "").expect("write");
        let (stop, mut taken) = parked_follower_framing(&path, framer);
        let changes = Changes::default();
        read_here(&stop, &changes);
        append(&path, appended);
        read_here(&stop, &changes);
        let (reader, end) = changes.take_handed_back().expect("handed back");
        assert!(matches!(end, TripEnd::TripDone), "more to read");
        let mut reader = reader.expect("a reader");
        let read = reader.reader.bytes_read();
        assert!(
            (BYTES_PER_WATCHER_TRIP..BYTES_PER_WATCHER_TRIP + 256 * 1024).contains(&read),
            "read {read} bytes on the watcher's thread"
        );
        assert!(matches!(
            taken.try_recv(),
            Err(mpsc::error::TryRecvError::Empty)
        ));

        reader.begin_trip(TripThread::BlockingPool);
        let batch = reader.next(&|| false).expect("read").expect("a batch");
        assert_eq!(
            batch.text,
            Text::OneByte(bytes::Bytes::from(want.to_owned()))
        );
        assert_eq!(reader.reader.bytes_read(), appended.len() as u64);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    /// The watcher's thread is every follower's: a line of 8 MiB appended to one file, read
    /// there whole, kept the others from hearing of their files meanwhile.
    #[test]
    fn a_long_appended_line_is_read_on_the_blocking_pool() {
        let line = "x".repeat(8 << 20);
        a_large_append_is_handed_back(
            "long",
            LineFramer::new(Encoding::Utf8),
            &format!("{line}\n"),
            &line,
        );
    }

    /// As [`a_long_appended_line_is_read_on_the_blocking_pool`], for 8 MiB of lines that a
    /// filter passes over before the one it keeps.
    #[test]
    fn lines_a_filter_passes_over_are_read_on_the_blocking_pool() {
        let keep = crate::filter::Match {
            strings: vec!["KEEP".to_owned()],
            ignore_case: false,
            invert: false,
        };
        let framer = LineFramer::new(Encoding::Utf8).with_match(Some(&keep));
        let passed_over = "passed over\n".repeat((8 << 20) / 12);
        a_large_append_is_handed_back("filtered", framer, &format!("{passed_over}KEEP\n"), "KEEP");
    }

    /// The path renamed away and a FIFO made in its place: the watcher's thread, shared by
    /// every follower of the process, opens it in `path_change` and waits there for a writer.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_in_place_of_the_followed_file_does_not_hold_the_watchers_thread() {
        let dir = std::env::temp_dir().join(format!("fastlines-follow-f-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("fifo.log");
        std::fs::write(&path, "zero\n").expect("write");
        let (stop, mut taken) = parked_follower(&path);
        let changes = Changes::default();
        read_here(&stop, &changes);
        assert_eq!(text(taken.try_recv()), one_byte("zero"));

        std::fs::rename(&path, dir.join("fifo.log.1")).expect("rename");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .expect("mkfifo");
        let reader = stop.take().expect("parked");
        reader.news.renamed.store(true, Ordering::SeqCst); // as the watcher does for a name event
        stop.park(reader);
        let stop = Arc::new(stop);
        let (done, returned) = std::sync::mpsc::channel();
        let watcher = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                read_here(&*stop, &Changes::default());
                let _ = done.send(());
            })
        };
        let came_back = returned
            .recv_timeout(std::time::Duration::from_secs(2))
            .is_ok();
        if !came_back {
            // Unblock the thread: a writer at the other end lets its open return.
            let _writer = std::fs::OpenOptions::new().write(true).open(&path);
        }
        watcher.join().expect("joined");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert!(
            came_back,
            "read_here still in open(2) of the FIFO after 2 s"
        );
        assert!(
            matches!(taken.try_recv(), Err(mpsc::error::TryRecvError::Empty)),
            "no line and no failure: the FIFO is taken as nothing at the path"
        );
    }
}
