//! The pure-Rust core of fastlines: reads a file in large chunks, cuts the bytes into complete
//! lines exactly the way Node's `readline` does (`\n`, `\r\n` and lone `\r`), and decodes them.
//!
//! Nothing here knows about napi; the binding crate only moves what this crate produces across
//! the boundary. The modules follow the data:
//! - [`read`]: opening a file or pipe and filling a reusable buffer from it;
//! - [`buffer`]: that buffer, whose memory is recycled once JS has copied what it handed out;
//! - [`split`]: finding complete lines in that buffer, normalizing terminators, counting lines;
//! - [`decode`]: turning a run of lines into text a JS engine can adopt cheaply;
//! - [`stream`]: running a reader on a Tokio runtime with bounded read-ahead.

pub mod buffer;
pub mod decode;
pub mod error;
pub mod read;
pub mod split;
pub mod stream;

pub use decode::{Encoding, Text};
pub use error::{OsError, ReadError};
pub use read::{count_lines, ChunkFramer, Framer, LineFramer, ReadOptions, Reader};
pub use stream::ReadStream;
