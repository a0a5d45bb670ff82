//! Where `readLastLines` (and a follower's `lastLines`) start reading: found on the blocking pool
//! by reading the file backward; the lines are then read forward by a line stream.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use fastlines_core::last_lines;
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::input::path_from_bytes;
use crate::output::NativeError;
use crate::runtime::spawn_blocking_promise;

/// Where the last lines start, and where the bytes they were counted in end (exclusive).
#[napi(object)]
pub struct NativeLastLines {
    pub start: f64,
    pub end: f64,
}

/// A backward scan for where the last `n` lines of a file start, which `cancel()` (or
/// finalizing this object) stops between reads.
#[napi]
pub struct NativeLastLinesScan {
    path: PathBuf,
    n: u64,
    end: Option<u64>,
    chunk_size: usize,
    cancelled: Arc<AtomicBool>,
}

#[napi]
impl NativeLastLinesScan {
    /// `end`: the inclusive offset the file is taken to end at, if before its end.
    #[napi(constructor)]
    pub fn new(path: Uint8Array, n: f64, end: Option<f64>, chunk_size: u32) -> Self {
        NativeLastLinesScan {
            path: path_from_bytes(&path),
            n: n as u64,
            end: end.map(|end| end as u64),
            chunk_size: chunk_size as usize,
            cancelled: Arc::default(),
        }
    }

    /// Resolves with where the lines start, a `NativeError`, or `null` if cancelled.
    #[napi(ts_return_type = "Promise<NativeLastLines | NativeError | null>")]
    pub fn scan<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (path, n, end, chunk_size) = (self.path.clone(), self.n, self.end, self.chunk_size);
        let cancelled = Arc::clone(&self.cancelled);
        spawn_blocking_promise(env, move || -> ScanStep {
            match last_lines(&path, n, end, chunk_size, &cancelled) {
                Ok(found) => found.map(|found| {
                    Either::A(NativeLastLines {
                        start: found.start as f64,
                        end: found.len as f64,
                    })
                }),
                Err(err) => Some(Either::B(err.into())),
            }
        })
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

/// What a scan gives JS: where the lines start, a failure, or `null` when it was cancelled.
type ScanStep = Option<Either<NativeLastLines, NativeError>>;

impl Drop for NativeLastLinesScan {
    fn drop(&mut self) {
        self.cancel();
    }
}
