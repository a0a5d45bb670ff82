//! The napi binding of fastlines: a thin layer that moves what `fastlines-core` produces into
//! JS. One call crosses the boundary per batch of lines (or chunk), never per line; the JS
//! layer (`lib/`) turns batches into lines and failures into Node-style errors.
//!
//! - `input`: options and paths from JS, as core types;
//! - `byte_source`: the byte sources JS feeds chunk by chunk or hands over as a descriptor;
//! - `feeding`: the per-chunk calls that queue a chunk in a fed source, and feed a small chunk
//!   and take what it completes;
//! - `streams`, `sync`, `count`, `last_lines`: the classes JS calls, a few lines each over the
//!   core;
//! - `runtime`: fastlines' own Tokio runtime and the bridge from its tasks to JS promises;
//! - `teardown`: stopping the readers an env leaves open when it is torn down;
//! - `output`: what a step gives JS, failures as typed data;
//! - `position`: where the batch JS holds was in the file, for `reader.position`;
//! - `text`: batches and chunks made into JS strings and Buffers.

#![deny(clippy::all)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod byte_source;
mod count;
mod engine_memory;
mod feeding;
mod input;
mod last_lines;
mod output;
mod position;
mod runtime;
mod streams;
mod sync;
mod teardown;
mod text;

pub use byte_source::NativeByteSource;
pub use count::NativeLineCount;
pub use feeding::{feed, flush, push, push_text};
pub use last_lines::NativeLastLines;
pub use streams::{NativeChunkStream, NativeFollowAnchor, NativeLineStream};
pub use sync::NativeLineReaderSync;
