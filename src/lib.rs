//! The napi binding of fastlines: a thin layer that moves what `fastlines-core` produces into
//! JS. One call crosses the boundary per batch of lines (or chunk), never per line; the JS
//! layer (`index.js`) turns batches into lines and failures into Node-style fs errors.

#![deny(clippy::all)]

mod args;
mod readers;
mod runtime;
mod text;

pub use readers::{NativeChunkStream, NativeLineCount, NativeLineReaderSync, NativeLineStream};
