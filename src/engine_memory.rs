//! What fastlines tells the engine it holds outside the engine's heap, so that the engine weighs
//! a JS object by the native memory it keeps alive: a reader's read-ahead (`streams.rs`), the
//! text of a lent string (`text.rs`).

use napi::Env;

/// Bytes reported to the engine for one JS value, for as long as that value lives; zero when
/// nothing was reported or the engine refused the report, so that what is taken back is
/// exactly what was told.
pub struct Reported(i64);

impl Reported {
    /// Nothing reported.
    pub const NONE: Reported = Reported(0);

    /// Tells the engine that `bytes` more are held outside its heap.
    pub fn report(env: &Env, bytes: usize) -> Self {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        Reported(env.adjust_external_memory(bytes).map_or(0, |_| bytes))
    }

    /// Tells the engine that what was reported is held no more: from the value's finalizer.
    pub fn take_back(&self, env: &Env) {
        if self.0 != 0 {
            // A refusal only leaves the engine's estimate as it was.
            let _ = env.adjust_external_memory(-self.0);
        }
    }
}
