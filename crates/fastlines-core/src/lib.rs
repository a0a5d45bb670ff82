//! The pure-Rust core of fastlines: reads a file in large chunks, cuts the bytes into complete
//! lines exactly the way Node's `readline` does (`\n`, `\r\n` and lone `\r`), and decodes them.
//!
//! Nothing here knows about napi; the binding crate only moves what this crate produces across
//! the boundary. One module per stage, in the order the data flows through them:
//! - `source`: opening a path (file, device or FIFO) at the start of a byte range (or of a
//!   line-aligned [`Share`] of the file, which `share` finds), or a byte
//!   source: fed chunk by chunk from outside ([`fed`]), or a descriptor handed over
//!   ([`descriptor`]);
//! - `read`: one read of an input, and its failure as a [`ReadError`];
//! - `decompress`: decoding gzip or zstd bytes as they are read, between the source and the
//!   buffer ([`Decompress`]);
//! - `buffer`: the reusable read buffer, whose memory is recycled once JS has copied what it
//!   handed out;
//! - `split`: finding complete lines in that buffer and normalizing their terminators;
//! - `frame`: cutting what was read into items: batches of lines ([`LineFramer`], with the line
//!   and string limits) or raw chunks ([`ChunkFramer`]);
//! - `decode`: turning a batch into [`Text`] a JS engine adopts with a plain copy, through
//!   `transcode`, the one module that calls a native library (simdutf) through its FFI;
//! - `reader`: the read loop that drives a source, the buffer and a framer ([`Reader`]);
//! - `count`: counting lines without making them ([`count_lines`]);
//! - `last_lines`: the last lines of a file, read backward ([`read_last_lines`]);
//! - `parts`: a search's reader of a large regular file framing it in line-aligned parts, the
//!   next one on a helper thread (taken from the process-wide allowance in `helpers`, which
//!   counts in parts share) while this one is read, handed out in order;
//! - `stream`: running a reader in the background on a Tokio runtime, with bounded read-ahead
//!   ([`ReadStream`]) in a `channel` whose consumer may wait on its own thread ([`Wake`]); `fed_stream`: the same for a fed source, whose consumer frames what
//!   little is queued on its own thread instead of waiting for the background ([`TryNext`]);
//! - `follow` and `watch`: a stream that follows a file as it grows and rotates, woken by the
//!   OS's file notifications ([`ReadStream::follow`]), from where `anchor` fixed it to start
//!   when following was asked for ([`Anchor`]);
//! - `error`: why reading failed, as data ([`ReadError`]).
//!
//! The modules are private; this root is the API. Benchmarks and property tests reach the
//! stages inside through `internals`, behind the `internals` feature.
//!
//! `unsafe` is refused everywhere but in the two modules that wrap what needs it in safe (or
//! documented `unsafe`) functions: `transcode` (simdutf's FFI) and `source::descriptor` (a
//! descriptor JS hands over); each block there says why it holds (`SAFETY:`).
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod anchor;
mod buffer;
mod channel;
mod count;
mod decode;
mod decompress;
mod error;
mod fed_stream;
mod filter;
mod follow;
mod frame;
mod helpers;
mod json;
mod last_lines;
mod parts;
mod read;
mod reader;
mod share;
mod source;
mod split;
mod stream;
#[cfg(test)]
mod test_files;
#[allow(unsafe_code)]
mod transcode;
mod watch;

pub use anchor::Anchor;
pub use buffer::READ_AHEAD_BYTES;
pub use channel::Wake;
pub use count::{
    count_blocking, count_lines, count_lines_async, count_opened, Threads, MIN_PART_BYTES,
};
pub use decode::{Encoding, Text};
pub use decompress::Decompress;
pub use error::{DecompressError, OsError, ReadError};
pub use fed_stream::{FED_WAKE_BYTES, FRAME_HERE_BYTES};
pub use filter::{LineFilter, Match};
pub use follow::FollowFrom;
pub use frame::{Batch, ChunkFramer, Framer, KeptLines, LineFramer, LineLayout};
pub use json::{JsonBatches, NotOneText};
pub use last_lines::{read_last_lines, LastLines, LastLinesOfPipe, LastLinesRead};
pub use reader::{Progress, Reader};
pub use share::{Reach, Share};
#[cfg(unix)]
pub use source::duplicate;
pub use source::{
    descriptor, fed, open, open_unblocked, Descriptor, FedInput, Feed, ReadOptions, Reads,
    ReadyInput, Source,
};
pub use stream::{FedNext, ReadStream, TryNext};

/// The stages' own types, for the crate's benchmarks and property tests only: not API.
#[cfg(feature = "internals")]
pub mod internals {
    pub use crate::buffer::ReadBuf;
    pub use crate::count::LineCounter;
    pub use crate::decode::decode;
    pub use crate::split::{count_newlines, without_final_terminator, LineSplitter};
    pub use crate::transcode::{is_ascii, utf8_to_utf16};
}
