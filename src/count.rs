//! The line count behind `countLines`: run on the blocking pool, making no strings.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use fastlines_core::{count_lines, count_matching_lines, Encoding, LineFilter, Match, ReadOptions};
use napi::bindgen_prelude::{Either, Object, Result, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::input::{path_from_bytes, NativeLineOptions, NativeReadOptions};
use crate::output::NativeError;
use crate::runtime::spawn_blocking_promise;
use crate::teardown::{register, Registration};

/// A line count run on the blocking pool, which `cancel()` stops between reads, as do
/// finalizing this object (collected, or its worker ended; JS keeps it while it awaits) and
/// tearing down its env.
#[napi]
pub struct NativeLineCount {
    path: PathBuf,
    options: ReadOptions,
    /// Counts only the lines that match, if the options say so.
    filter: Option<Arc<LineFilter>>,
    cancelled: Arc<AtomicBool>,
    _open: Registration,
}

#[napi]
impl NativeLineCount {
    #[napi(constructor)]
    pub fn new(
        env: &Env,
        path: Uint8Array,
        options: NativeReadOptions,
        lines: NativeLineOptions,
    ) -> Result<Self> {
        let encoding = Encoding::from(&lines.encoding);
        let filter = lines
            .r#match
            .as_ref()
            .map(|what| Arc::new(LineFilter::new(&Match::from(what), encoding)));
        let cancelled = Arc::default();
        Ok(NativeLineCount {
            path: path_from_bytes(&path),
            options: (&options).into(),
            filter,
            _open: register(env, &cancelled)?,
            cancelled,
        })
    }

    /// Resolves with the count, a `NativeError`, or `null` if cancelled. The count owns what
    /// it needs, so it may outlive this object (see `NativeLineStream`).
    #[napi(ts_return_type = "Promise<number | NativeError | null>")]
    pub fn count<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        let (path, options, filter) = (self.path.clone(), self.options, self.filter.clone());
        let cancelled = Arc::clone(&self.cancelled);
        spawn_blocking_promise(env, move || -> CountStep {
            let counted = match &filter {
                None => count_lines(&path, &options, &cancelled),
                Some(filter) => count_matching_lines(&path, &options, filter, &cancelled),
            };
            match counted {
                Ok(lines) => lines.map(|lines| Either::A(lines as f64)),
                Err(err) => Some(Either::B(err.into())),
            }
        })
    }

    #[napi]
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

/// What a count gives JS: the count, a failure, or `null` when it was cancelled.
type CountStep = Option<Either<f64, NativeError>>;

impl Drop for NativeLineCount {
    fn drop(&mut self) {
        self.cancel();
    }
}
