//! The reader behind `readLinesSync`: batches of lines read on the calling (JS) thread.

use fastlines_core::{open, LineFramer, Progress, ReadOptions, Reader};
use napi::bindgen_prelude::{Either, Uint8Array};
use napi_derive::napi;
use std::path::PathBuf;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::{step, Step};
use crate::position::{JsBatch, LastBatch, NativeBatchPlace};

/// Batches of lines read on the calling thread. The file is opened by the first `read()` so
/// that an open error surfaces where iteration starts.
#[napi]
pub struct NativeLineReaderSync {
    state: SyncState,
    /// Outlives the reader, so progress still reads right after the file is closed.
    progress: Progress,
    start: u64,
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
    pub fn new(path: Uint8Array, options: NativeReadOptions, lines: NativeLineOptions) -> Self {
        let start = options.start as u64;
        let framer = LineFramer::from(&lines).starting_at(start);
        let state = SyncState::Unopened(path_from_bytes(&path), (&options).into(), framer);
        NativeLineReaderSync {
            state,
            progress: Progress::default(),
            start,
            last_batch: LastBatch::default(),
        }
    }

    #[napi(ts_return_type = "string | NativeError | null")]
    pub fn read(&mut self) -> Step<JsBatch> {
        if let SyncState::Unopened(..) = self.state {
            if let Err(err) = self.open() {
                return Some(Either::B(err.into()));
            }
        }
        let SyncState::Reading(reader) = &mut self.state else {
            return None;
        };
        let next = reader.next_blocking().transpose();
        if !matches!(next, Some(Ok(_))) {
            self.state = SyncState::Closed;
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
        self.last_batch.to_js(serial, Some(self.start))
    }

    #[napi(getter)]
    pub fn bytes_read(&self) -> f64 {
        self.progress.bytes() as f64
    }

    /// Closes the file now.
    #[napi]
    pub fn close(&mut self) {
        self.state = SyncState::Closed;
    }
}

impl NativeLineReaderSync {
    /// Opens the file, leaving the reader closed if that fails.
    fn open(&mut self) -> Result<(), fastlines_core::OsError> {
        let SyncState::Unopened(path, options, framer) =
            std::mem::replace(&mut self.state, SyncState::Closed)
        else {
            return Ok(());
        };
        let source = open(&path, &options)?;
        self.state = SyncState::Reading(Reader::new(source, framer, self.progress.clone()));
        Ok(())
    }
}
