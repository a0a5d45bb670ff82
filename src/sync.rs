//! The reader behind `readLinesSync`: batches of lines read on the calling (JS) thread.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use fastlines_core::{open, Framer, LineFramer, Progress, Reach, ReadOptions, Reader};
use napi::bindgen_prelude::{Either, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::{step, Step};
use crate::position::{JsBatch, LastBatch, NativeBatchPlace};
use crate::teardown::{register, Registration, Stop};

/// Batches of lines read on the calling thread. The file is opened by the first `read()` so
/// that an open error surfaces where iteration starts.
#[napi]
pub struct NativeLineReaderSync {
    /// Shared only with the env's set of open readers, which closes it at the env's teardown
    /// (see `teardown.rs`); every other use is this object's, on the JS thread.
    state: Arc<Mutex<SyncState>>,
    _open: Registration,
    /// Outlives the reader, so progress still reads right after the file is closed.
    progress: Progress,
    /// Where reading started, once the file is open (a share starts at its first line).
    started_at: Option<u64>,
    last_batch: LastBatch,
}

enum SyncState {
    Unopened(PathBuf, ReadOptions, LineFramer),
    Reading(Reader<LineFramer>),
    Closed,
}

#[napi]
impl NativeLineReaderSync {
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        path: Uint8Array,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> napi::Result<Self> {
        let framer = LineFramer::from(&lines);
        // A share starts at its first line, known once the file is open.
        let started_at = options.share.is_none().then_some(options.start as u64);
        let state = SyncState::Unopened(path_from_bytes(&path), (&options).into(), framer);
        let state = Arc::new(Mutex::new(state));
        Ok(NativeLineReaderSync {
            _open: register(env, &state)?,
            state,
            progress: Progress::default(),
            started_at,
            last_batch: LastBatch::default(),
        })
    }

    #[napi(ts_return_type = "string | NativeError | null")]
    pub fn read(&mut self) -> Step<JsBatch> {
        let mut state = lock(&self.state);
        if let SyncState::Unopened(..) = *state {
            match open_state(&mut state, &self.progress) {
                Ok(offset) => self.started_at = offset.or(self.started_at),
                Err(err) => return Some(Either::B(err.into())),
            }
        }
        let SyncState::Reading(reader) = &mut *state else {
            return None;
        };
        let next = reader.next_blocking().transpose();
        if !matches!(next, Some(Ok(_))) {
            *state = SyncState::Closed;
        }
        // Never lent strings here (whatever `lines` says): their memory comes back when the
        // engine runs their finalizers, which a synchronous loop does not let it do (on Bun, a
        // 1 GB file held 1 GB until the loop ended).
        step(next, self.last_batch.maker(None))
    }

    /// Where the batch with serial number `serial` was in the file (see `position.rs`): 1 for
    /// the first batch JS got, 0 for an empty batch where reading started, once that is known;
    /// null for one no longer kept.
    #[napi]
    pub fn batch_place(&self, serial: u32) -> Option<NativeBatchPlace> {
        self.last_batch.to_js(serial, self.started_at)
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.progress.bytes() as f64
    }

    /// Closes the file now.
    #[napi]
    pub fn close(&mut self) {
        self.state.stop();
    }
}

/// Opens the file, leaving the reader closed if that fails; gives where reading starts (`None`
/// if it was not unopened).
fn open_state(
    state: &mut SyncState,
    progress: &Progress,
) -> Result<Option<u64>, fastlines_core::OsError> {
    let SyncState::Unopened(path, options, framer) = std::mem::replace(state, SyncState::Closed)
    else {
        return Ok(None);
    };
    // Nothing stops a sync reader while it opens (it opens on the JS thread); a share's end is
    // looked for no further than a line it takes.
    let reach = Reach::until(&|| false).within_longest_line(framer.longest_line());
    let source = open(&path, &options, reach)?;
    let offset = source.offset();
    *state = SyncState::Reading(Reader::new(source, framer, progress.clone()));
    Ok(Some(offset))
}

fn lock(state: &Mutex<SyncState>) -> MutexGuard<'_, SyncState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Stop for Mutex<SyncState> {
    /// Closes the file (dropping the reader outside the lock).
    fn stop(&self) {
        let state = std::mem::replace(&mut *lock(self), SyncState::Closed);
        drop(state);
    }
}
