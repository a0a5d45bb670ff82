//! What JS passes in, turned into core types. The JS layer (`lib/options.js`) has already
//! validated every value, so this only converts.

use std::path::PathBuf;

use fastlines_core::{
    Decompress, Encoding, FollowFrom, JsonBatches, LineFramer, Match, ReadOptions, Share,
};
use napi::bindgen_prelude::Uint8Array;

use crate::text::Lending;
use napi_derive::napi;

/// Which bytes to read and how: `fs.createReadStream`'s `start`, `end` and `highWaterMark`,
/// and the `decompress` option.
#[napi(object)]
pub struct NativeReadOptions {
    pub start: f64,
    /// Inclusive; absent for "to the end".
    pub end: Option<f64>,
    pub chunk_size: u32,
    /// Absent: the bytes as they are.
    pub decompress: Option<NativeDecompress>,
    /// `share: [index, count]`; absent: the whole range.
    pub share: Option<NativeShare>,
}

/// Share `index` of `count` of the file (`index < count`, checked in JS), cut from `size` bytes
/// if given, else from the file's size when it opens.
#[napi(object)]
pub struct NativeShare {
    pub index: f64,
    pub count: f64,
    pub size: Option<f64>,
}

impl NativeShare {
    fn to_share(&self) -> Option<Share> {
        let share = Share::new(self.index as u64, self.count as u64)?;
        Some(match self.size {
            Some(size) => share.cut_from(size as u64),
            None => share,
        })
    }
}

/// How the bytes are decompressed: by format, or by the file's first bytes (`auto`).
#[napi(string_enum = "lowercase")]
pub enum NativeDecompress {
    Gzip,
    Zstd,
    Auto,
}

impl From<&NativeReadOptions> for ReadOptions {
    fn from(options: &NativeReadOptions) -> Self {
        ReadOptions {
            start: options.start as u64,
            end: options.end.map(|end| end as u64),
            chunk_size: options.chunk_size as usize,
            decompress: match options.decompress {
                None => Decompress::Off,
                Some(NativeDecompress::Gzip) => Decompress::Gzip,
                Some(NativeDecompress::Zstd) => Decompress::Zstd,
                Some(NativeDecompress::Auto) => Decompress::Auto,
            },
            share: options.share.as_ref().and_then(NativeShare::to_share),
        }
    }
}

/// Where a follower starts: at the end of the file (`atEnd`), with its last `lastLines` lines,
/// or else at the read options' `start`.
#[napi(object)]
pub struct NativeFollowOptions {
    pub at_end: bool,
    pub last_lines: Option<f64>,
}

impl From<&NativeFollowOptions> for FollowFrom {
    fn from(options: &NativeFollowOptions) -> Self {
        match (options.at_end, options.last_lines) {
            (true, _) => FollowFrom::End,
            (false, Some(n)) => FollowFrom::LastLines(n as u64),
            (false, None) => FollowFrom::Start,
        }
    }
}

/// How bytes become characters.
#[napi(string_enum = "lowercase")]
pub enum NativeEncoding {
    Utf8,
    Latin1,
}

/// How a JSON reader's batches come: each batch's place lists the lines not shaped like one JSON
/// text, and the batch is one JSON array's text (on V8), or (on JavaScriptCore) if ASCII the
/// bytes of its lines joined by line feeds, a Buffer with a `lineCount`, for Bun.JSONL, else its
/// lines joined by line feeds; see fastlines-core's `json.rs`.
#[napi(string_enum = "lowercase")]
pub enum NativeJsonBatches {
    Arrays,
    Bytes,
}

impl From<&NativeJsonBatches> for JsonBatches {
    fn from(batches: &NativeJsonBatches) -> Self {
        match batches {
            NativeJsonBatches::Arrays => JsonBatches::Arrays,
            NativeJsonBatches::Bytes => JsonBatches::Bytes,
        }
    }
}

/// How the line readers make lines.
#[napi(object)]
pub struct NativeLineOptions {
    pub encoding: NativeEncoding,
    /// Bytes; absent for no limit.
    pub max_line_length: Option<f64>,
    /// The longest string the engine can make, in UTF-16 code units
    /// (`buffer.constants.MAX_STRING_LENGTH`).
    pub max_string_length: f64,
    /// When to hand batches to the engine as external strings rather than copies (`text.rs`
    /// says where that pays); absent: always copy.
    pub lend_strings: Option<NativeLending>,
    /// Only the lines that match; absent: every line.
    pub r#match: Option<NativeMatch>,
    /// How a JSON reader's batches come (`readJsonLines`); absent: lines joined by `\n`, not
    /// checked.
    pub json_batches: Option<NativeJsonBatches>,
}

/// Which lines to keep: those that include any of `strings` (none with `invert`), ASCII
/// letters either case with `ignoreCase`.
#[napi(object)]
pub struct NativeMatch {
    pub strings: Vec<String>,
    pub ignore_case: bool,
    pub invert: bool,
}

impl From<&NativeMatch> for Match {
    fn from(what: &NativeMatch) -> Self {
        Match {
            strings: what.strings.clone(),
            ignore_case: what.ignore_case,
            invert: what.invert,
        }
    }
}

/// When the engine gets lent strings: see `text::Lending`.
#[napi(object)]
pub struct NativeLending {
    pub from_bytes: u32,
    pub report_memory: bool,
}

impl NativeLineOptions {
    pub fn lending(&self) -> Option<Lending> {
        self.lend_strings.as_ref().map(|lend| Lending {
            from_bytes: lend.from_bytes as usize,
            report_memory: lend.report_memory,
        })
    }
}

impl From<&NativeEncoding> for Encoding {
    fn from(encoding: &NativeEncoding) -> Self {
        match encoding {
            NativeEncoding::Utf8 => Encoding::Utf8,
            NativeEncoding::Latin1 => Encoding::Latin1,
        }
    }
}

impl From<&NativeLineOptions> for LineFramer {
    fn from(options: &NativeLineOptions) -> Self {
        LineFramer::new(Encoding::from(&options.encoding))
            .with_max_line_length(options.max_line_length.map(|max| max as usize))
            .with_max_string_length(options.max_string_length as usize)
            .with_match(options.r#match.as_ref().map(Match::from).as_ref())
            .with_json(
                options
                    .json_batches
                    .as_ref()
                    .map_or(JsonBatches::Plain, JsonBatches::from),
            )
    }
}

/// The path bytes JS encoded (UTF-8 for strings, raw for Buffers, as `fs` does).
#[cfg(unix)]
pub fn path_from_bytes(bytes: &Uint8Array) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub fn path_from_bytes(bytes: &Uint8Array) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}
