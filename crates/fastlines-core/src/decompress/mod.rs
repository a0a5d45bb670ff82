//! Decompressing on the reading thread: between the source and the read buffer, so that what
//! the framers see is the decompressed bytes and the JS thread only ever sees lines.
//!
//! [`Input`] is what a [`Reader`](crate::Reader) reads from: the source's bytes as they are, or
//! [`Decompressed`], which reads compressed bytes into a buffer of its own and decodes them into
//! the reader's buffer, one read at a time. The read buffer's chunk size bounds each read's
//! output, so a decompression bomb fills no more memory than a plain file would. The formats
//! live in their own modules: [`gzip`] and [`zstd`].

mod gzip;
mod zstd;

use std::borrow::Cow;
use std::io::Read;

use tokio::io::AsyncRead;

use crate::error::{DecompressError, ReadError};
use crate::read::{read_async, read_retrying};

use self::gzip::Gzip;
use self::zstd::Zstd;

/// Which decompression a read applies (the `decompress` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Decompress {
    /// The bytes as they are.
    #[default]
    Off,
    Gzip,
    Zstd,
    /// gzip or zstd by the file's first bytes, else as they are.
    Auto,
}

impl DecompressError {
    /// Damaged deflate data or gzip header, with zlib's message.
    fn zlib(message: &str) -> Self {
        DecompressError {
            code: "Z_DATA_ERROR",
            errno: -3,
            message: Cow::Owned(message.to_owned()),
        }
    }

    /// A libzstd error result: libzstd returns `-(error number)` as a `size_t`.
    fn zstd(result: usize) -> Self {
        let errno = result.wrapping_neg();
        let code = ZSTD_ERROR_CODES
            .iter()
            .find(|(number, _)| *number == errno)
            .map_or("ZSTD_error_GENERIC", |(_, code)| code);
        DecompressError {
            code,
            errno: errno as i32,
            message: Cow::Borrowed(zstd_safe::get_error_name(result)),
        }
    }
}

/// libzstd's error numbers (`zstd_errors.h`, 1.5.7) and the names Node gives them as `code`.
const ZSTD_ERROR_CODES: [(usize, &str); 36] = [
    (1, "ZSTD_error_GENERIC"),
    (10, "ZSTD_error_prefix_unknown"),
    (12, "ZSTD_error_version_unsupported"),
    (14, "ZSTD_error_frameParameter_unsupported"),
    (16, "ZSTD_error_frameParameter_windowTooLarge"),
    (20, "ZSTD_error_corruption_detected"),
    (22, "ZSTD_error_checksum_wrong"),
    (24, "ZSTD_error_literals_headerWrong"),
    (30, "ZSTD_error_dictionary_corrupted"),
    (32, "ZSTD_error_dictionary_wrong"),
    (34, "ZSTD_error_dictionaryCreation_failed"),
    (40, "ZSTD_error_parameter_unsupported"),
    (41, "ZSTD_error_parameter_combination_unsupported"),
    (42, "ZSTD_error_parameter_outOfBound"),
    (44, "ZSTD_error_tableLog_tooLarge"),
    (46, "ZSTD_error_maxSymbolValue_tooLarge"),
    (48, "ZSTD_error_maxSymbolValue_tooSmall"),
    (49, "ZSTD_error_cannotProduce_uncompressedBlock"),
    (50, "ZSTD_error_stabilityCondition_notRespected"),
    (60, "ZSTD_error_stage_wrong"),
    (62, "ZSTD_error_init_missing"),
    (64, "ZSTD_error_memory_allocation"),
    (66, "ZSTD_error_workSpace_tooSmall"),
    (70, "ZSTD_error_dstSize_tooSmall"),
    (72, "ZSTD_error_srcSize_wrong"),
    (74, "ZSTD_error_dstBuffer_null"),
    (80, "ZSTD_error_noForwardProgress_destFull"),
    (82, "ZSTD_error_noForwardProgress_inputEmpty"),
    (100, "ZSTD_error_frameIndex_tooLarge"),
    (102, "ZSTD_error_seekableIO"),
    (104, "ZSTD_error_dstBuffer_wrong"),
    (105, "ZSTD_error_srcBuffer_wrong"),
    (106, "ZSTD_error_sequenceProducer_failed"),
    (107, "ZSTD_error_externalSequences_invalid"),
    (120, "ZSTD_error_maxCode"),
    (0, "ZSTD_error_no_error"),
];

/// One decoding call: compressed bytes taken, decompressed bytes given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    consumed: usize,
    produced: usize,
}

impl Step {
    fn consumed(consumed: usize) -> Self {
        Step {
            consumed,
            produced: 0,
        }
    }
}

/// A decoding call that met damage, after the `step` it still made: the bytes it gave before
/// the damage are handed out before the error.
#[derive(Debug)]
struct Failed {
    step: Step,
    error: DecompressError,
}

/// A magic number `'auto'` recognizes, as a test per byte.
type Magic = [fn(u8) -> bool];

/// gzip's magic and deflate's method byte.
const GZIP_MAGIC: [fn(u8) -> bool; 3] = [|b| b == 0x1f, |b| b == 0x8b, |b| b == 0x08];
/// A zstd frame's magic.
const ZSTD_MAGIC: [fn(u8) -> bool; 4] =
    [|b| b == 0x28, |b| b == 0xb5, |b| b == 0x2f, |b| b == 0xfd];
/// A zstd skippable frame's magic: 50-5f, then 2a 4d 18.
const SKIPPABLE_MAGIC: [fn(u8) -> bool; 4] = [
    |b| b & 0xf0 == 0x50,
    |b| b == 0x2a,
    |b| b == 0x4d,
    |b| b == 0x18,
];

/// How the first bytes of a file stand against a magic number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Against {
    /// They start with it.
    Matches,
    /// They are too few to tell, and could still start with it.
    MayMatch,
    Differs,
}

fn against(head: &[u8], magic: &Magic) -> Against {
    let n = head.len().min(magic.len());
    if !head[..n].iter().zip(magic).all(|(&byte, is)| is(byte)) {
        Against::Differs
    } else if n == magic.len() {
        Against::Matches
    } else {
        Against::MayMatch
    }
}

/// How the bytes are decoded; `Detect` until the first bytes are there to tell.
#[derive(Debug)]
enum Decoder {
    Detect,
    Plain,
    Gzip(Gzip),
    Zstd(Zstd),
}

impl Decoder {
    fn new(decompress: Decompress) -> Self {
        match decompress {
            Decompress::Off => Decoder::Plain,
            Decompress::Gzip => Decoder::Gzip(Gzip::new()),
            Decompress::Zstd => Decoder::Zstd(Zstd::new()),
            Decompress::Auto => Decoder::Detect,
        }
    }

    /// What `'auto'` makes of a file starting with `head` (all of it when `whole`): gzip or
    /// zstd by their magic numbers, else the bytes as they are, so a text file that happens to
    /// start with `1f` stays text. `None` while `head` is too short to tell; a head that can
    /// start no magic is told at once, so a pipe's first short line is not held back.
    fn detect(head: &[u8], whole: bool) -> Option<Self> {
        let gzip = against(head, &GZIP_MAGIC);
        let zstd = [against(head, &ZSTD_MAGIC), against(head, &SKIPPABLE_MAGIC)];
        if gzip == Against::Matches {
            return Some(Decoder::Gzip(Gzip::new()));
        }
        if zstd.contains(&Against::Matches) {
            return Some(Decoder::Zstd(Zstd::new()));
        }
        let undecided = gzip == Against::MayMatch || zstd.contains(&Against::MayMatch);
        (whole || !undecided).then_some(Decoder::Plain)
    }
}

/// Bytes of compressed input read per read of the source: bgzip's block size, enough for each
/// read to feed several of the reader's chunks.
const COMPRESSED_READ_BYTES: usize = 64 * 1024;

/// What a read did: the bytes it gave the read buffer, or why it failed; and the bytes of the
/// source it took either way, which `bytesRead` counts: a read that meets damage may have read
/// the source first. A read that took bytes and gave none (a gzip header, a skippable frame,
/// ignored trailing bytes) is not the end: only one that did neither is ([`Filled::at_end`]).
#[derive(Debug)]
pub(crate) struct Filled {
    pub(crate) produced: Result<usize, ReadError>,
    pub(crate) consumed: usize,
}

/// What a reader reads from: the source's bytes, or its decompressed bytes.
#[derive(Debug)]
pub(crate) enum Input<I> {
    Plain(I),
    Decompressed(Box<Decompressed<I>>),
}

impl<I> Input<I> {
    pub(crate) fn new(source: I, decompress: Decompress) -> Self {
        match decompress {
            Decompress::Off => Input::Plain(source),
            _ => Input::Decompressed(Box::new(Decompressed::new(source, decompress))),
        }
    }

    /// The source read from.
    pub(crate) fn source(&self) -> &I {
        match self {
            Input::Plain(source) => source,
            Input::Decompressed(decompressed) => &decompressed.source,
        }
    }
}

impl<I: Read> Input<I> {
    /// One read into `into`, blocking.
    pub(crate) fn read(&mut self, into: &mut [u8]) -> Filled {
        match self {
            Input::Plain(source) => Filled::plain(read_retrying(source, into)),
            Input::Decompressed(decompressed) => {
                let mut consumed = 0;
                let produced = decompressed.read(into, &mut consumed);
                Filled { produced, consumed }
            }
        }
    }
}

impl<I: AsyncRead + Unpin> Input<I> {
    /// One read into `into`, waiting on the source's readiness (a pipe's).
    pub(crate) async fn read_async(&mut self, into: &mut [u8]) -> Filled {
        match self {
            Input::Plain(source) => Filled::plain(read_async(source, into).await),
            Input::Decompressed(decompressed) => {
                let mut consumed = 0;
                let produced = decompressed.read_async(into, &mut consumed).await;
                Filled { produced, consumed }
            }
        }
    }
}

impl Filled {
    /// The input is all read: nothing given, nothing taken.
    pub(crate) fn at_end(&self) -> bool {
        matches!(self.produced, Ok(0)) && self.consumed == 0
    }

    /// A read of the source itself: what it gave is what it took.
    pub(crate) fn plain(read: Result<usize, ReadError>) -> Self {
        Filled {
            consumed: *read.as_ref().unwrap_or(&0),
            produced: read,
        }
    }
}

/// What decoding the buffered input calls for next.
enum Next {
    /// This many bytes were given.
    Gave(usize),
    /// The decoder needs more input than is buffered.
    NeedInput,
    /// Plain bytes with nothing buffered: read them straight into the caller's buffer.
    ReadDirect,
    /// The input is all decoded.
    End,
}

/// A source's bytes decoded as they are read.
pub(crate) struct Decompressed<I> {
    source: I,
    /// Compressed bytes read: `pending[start..end]` is what the decoder has not taken yet.
    pending: Box<[u8]>,
    start: usize,
    end: usize,
    /// The source is at its end: what is pending is all the input left.
    source_done: bool,
    decoder: Decoder,
    /// Damage met by a read that still gave bytes: the next read reports it, so the bytes
    /// before the damage reach the framer first.
    failed: Option<DecompressError>,
}

impl<I> std::fmt::Debug for Decompressed<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressed")
            .field("pending", &(self.end - self.start))
            .field("source_done", &self.source_done)
            .field("decoder", &self.decoder)
            .finish_non_exhaustive()
    }
}

impl<I> Decompressed<I> {
    fn new(source: I, decompress: Decompress) -> Self {
        Decompressed {
            source,
            pending: vec![0; COMPRESSED_READ_BYTES].into_boxed_slice(),
            start: 0,
            end: 0,
            source_done: false,
            decoder: Decoder::new(decompress),
            failed: None,
        }
    }

    /// Decodes what is pending into `into` as far as it goes without reading the source: on
    /// across members and frames until `into` is full, so a file of many small members (gzip
    /// appended a flush at a time, bgzip with small blocks) still fills each read.
    fn decode_pending(&mut self, into: &mut [u8]) -> Result<Next, DecompressError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let mut gave = 0;
        loop {
            let pending = &self.pending[self.start..self.end];
            let room = &mut into[gave..];
            let decoded = match &mut self.decoder {
                Decoder::Detect => match Decoder::detect(pending, self.source_done) {
                    Some(decoder) => {
                        self.decoder = decoder;
                        continue;
                    }
                    None => return Ok(Next::NeedInput),
                },
                Decoder::Plain => return Ok(self.copy_pending(into)),
                Decoder::Gzip(gzip) => gzip.decode(pending, room),
                Decoder::Zstd(zstd) => zstd.decode(pending, room),
            };
            let step = match decoded {
                Ok(step) => step,
                Err(Failed { step, error }) => {
                    self.start += step.consumed;
                    gave += step.produced;
                    if gave == 0 {
                        return Err(error);
                    }
                    self.failed = Some(error);
                    return Ok(Next::Gave(gave));
                }
            };
            self.start += step.consumed;
            gave += step.produced;
            if gave == into.len() {
                return Ok(Next::Gave(gave));
            }
            if step.consumed == 0 && step.produced == 0 {
                return if gave > 0 {
                    Ok(Next::Gave(gave))
                } else {
                    self.at_a_standstill()
                };
            }
        }
    }

    /// Plain bytes: those pending, else a read straight from the source.
    fn copy_pending(&mut self, into: &mut [u8]) -> Next {
        let pending = &self.pending[self.start..self.end];
        if pending.is_empty() {
            return if self.source_done {
                Next::End
            } else {
                Next::ReadDirect
            };
        }
        let n = pending.len().min(into.len());
        into[..n].copy_from_slice(&pending[..n]);
        self.start += n;
        Next::Gave(n)
    }

    /// The decoder moved nothing: it needs more input, or, at the end of the source, the input
    /// ends here, cleanly or not.
    fn at_a_standstill(&self) -> Result<Next, DecompressError> {
        if !self.source_done {
            return Ok(Next::NeedInput);
        }
        let leftover = &self.pending[self.start..self.end];
        match &self.decoder {
            Decoder::Gzip(gzip) => gzip.finish(leftover)?,
            Decoder::Zstd(zstd) => zstd.finish()?,
            Decoder::Detect | Decoder::Plain => {}
        }
        Ok(Next::End)
    }

    /// Moves the pending bytes to the front, for the next read of the source to go after them
    /// (into `pending[end..]`).
    fn make_room(&mut self) {
        self.pending.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
    }

    /// After `n` bytes of the source went into `pending[end..]`: what decoding them gives. A
    /// read goes to the source at most once, so that the caller can stop between reads however
    /// much input gives no output: a decoder that needs still more input gives 0 for now.
    fn decode_filled(&mut self, into: &mut [u8], n: usize) -> Result<usize, ReadError> {
        self.end += n;
        self.source_done = n == 0;
        match self.decode_pending(into)? {
            Next::Gave(produced) => Ok(produced),
            Next::NeedInput | Next::ReadDirect | Next::End => Ok(0),
        }
    }
}

impl<I: Read> Decompressed<I> {
    /// Decompressed bytes into `into`, reading the source at most once and adding what it read
    /// to `consumed`, so that a read that fails still counts.
    fn read(&mut self, into: &mut [u8], consumed: &mut usize) -> Result<usize, ReadError> {
        match self.decode_pending(into)? {
            Next::Gave(produced) => Ok(produced),
            Next::End => Ok(0),
            Next::NeedInput => {
                self.make_room();
                let n = read_retrying(&mut self.source, &mut self.pending[self.end..])?;
                *consumed += n;
                self.decode_filled(into, n)
            }
            Next::ReadDirect => {
                let n = read_retrying(&mut self.source, into)?;
                *consumed += n;
                self.source_done = n == 0;
                Ok(n)
            }
        }
    }
}

impl<I: AsyncRead + Unpin> Decompressed<I> {
    /// [`Decompressed::read`], waiting on the source's readiness.
    async fn read_async(
        &mut self,
        into: &mut [u8],
        consumed: &mut usize,
    ) -> Result<usize, ReadError> {
        match self.decode_pending(into)? {
            Next::Gave(produced) => Ok(produced),
            Next::End => Ok(0),
            Next::NeedInput => {
                self.make_room();
                let n = read_async(&mut self.source, &mut self.pending[self.end..]).await?;
                *consumed += n;
                self.decode_filled(into, n)
            }
            Next::ReadDirect => {
                let n = read_async(&mut self.source, into).await?;
                *consumed += n;
                self.source_done = n == 0;
                Ok(n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"one\ntwo\r\nthree\rfour\n\nfive";

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).expect("compressed");
        encoder.finish().expect("compressed")
    }

    fn zstd(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(zstd_safe::compress_bound(data.len()));
        zstd_safe::compress(&mut out, data, 3).expect("compressed");
        out
    }

    /// A skippable frame holding `payload`.
    fn skippable(payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![0x5a, 0x2a, 0x4d, 0x18];
        frame.extend((payload.len() as u32).to_le_bytes());
        frame.extend(payload);
        frame
    }

    /// Everything `input` decompresses to, read `chunk` bytes at a time, and the error that
    /// ended it, if any; with the source bytes the reads counted.
    fn read_all(
        input: &[u8],
        decompress: Decompress,
        chunk: usize,
    ) -> (Vec<u8>, Option<ReadError>, usize) {
        let mut reader = Input::new(input, decompress);
        let (mut out, mut consumed) = (Vec::new(), 0);
        let mut buf = vec![0; chunk];
        loop {
            let filled = reader.read(&mut buf);
            let at_end = filled.at_end();
            consumed += filled.consumed;
            match filled.produced {
                _ if at_end => return (out, None, consumed),
                Ok(produced) => out.extend(&buf[..produced]),
                Err(err) => return (out, Some(err), consumed),
            }
        }
    }

    #[test]
    fn gzip_members_cut_anywhere_read_as_one() {
        for cut in 0..=TEXT.len() {
            let file = [gzip(&TEXT[..cut]), gzip(&TEXT[cut..])].concat();
            for chunk in [1, 3, 64] {
                let (out, err, consumed) = read_all(&file, Decompress::Gzip, chunk);
                assert_eq!(
                    (&out[..], err, consumed),
                    (TEXT, None, file.len()),
                    "cut {cut}"
                );
            }
        }
    }

    #[test]
    fn zstd_frames_and_skippable_frames_read_as_one() {
        for cut in 0..=TEXT.len() {
            let file = [
                skippable(b"before"),
                zstd(&TEXT[..cut]),
                skippable(b""),
                zstd(&TEXT[cut..]),
                skippable(b"after"),
            ]
            .concat();
            for decompress in [Decompress::Zstd, Decompress::Auto] {
                let (out, err, _) = read_all(&file, decompress, 5);
                assert_eq!((&out[..], err), (TEXT, None), "cut {cut}");
            }
        }
    }

    #[test]
    fn after_the_last_gzip_member_zeros_pad_and_other_bytes_fail_unless_they_start_one() {
        let member = gzip(TEXT);
        let garbage = || Some(DecompressError::zlib("incorrect header check"));
        for (trailing, err) in [
            (&b"\0\0\0\0"[..], None),
            (b"\0", None),
            (b"\0x", garbage()),
            (b"\0\0\x1f\x8b", garbage()),
            (b"garbage", garbage()),
            (b"\x1fx", garbage()),
            // One byte may be the start of a member cut short, as `gzip -d` and Node's zlib
            // call it; a zero pads.
            (b"x", Some(DecompressError::UNEXPECTED_END)),
            (b"\n", Some(DecompressError::UNEXPECTED_END)),
            (b"\x1f", Some(DecompressError::UNEXPECTED_END)),
            (b"\x1f\x8b", Some(DecompressError::UNEXPECTED_END)),
        ] {
            let (out, got, _) = read_all(&[&member[..], trailing].concat(), Decompress::Gzip, 64);
            assert_eq!(
                (&out[..], got),
                (TEXT, err.map(ReadError::from)),
                "{trailing:?}"
            );
        }
    }

    #[test]
    fn bytes_after_the_last_zstd_frame_fail_as_no_frame() {
        let file = [zstd(TEXT), b"garbage".to_vec()].concat();
        let (out, err, _) = read_all(&file, Decompress::Zstd, 64);
        assert_eq!(out, TEXT);
        let Some(ReadError::Decompress(err)) = err else {
            panic!("{err:?}")
        };
        assert_eq!(
            (err.code, err.errno, &*err.message),
            ("ZSTD_error_prefix_unknown", 10, "Unknown frame descriptor")
        );
    }

    #[test]
    fn a_truncated_input_gives_what_it_holds_then_an_unexpected_end() {
        let long: Vec<u8> = (0..2000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        for (file, decompress) in [
            (gzip(&long), Decompress::Gzip),
            (zstd(&long), Decompress::Zstd),
        ] {
            for cut in 0..file.len() {
                let (out, err, _) = read_all(&file[..cut], decompress, 100);
                assert!(long.starts_with(&out), "{decompress:?} cut {cut}");
                assert_eq!(
                    err,
                    Some(DecompressError::UNEXPECTED_END.into()),
                    "{decompress:?} cut {cut}"
                );
            }
        }
    }

    #[test]
    fn damaged_gzip_data_gets_zlib_s_code_and_message() {
        let (_, err, _) = read_all(
            b"\x1f\x8b\x08\0\0\0\0\0\0\x03\xff\xff\xff",
            Decompress::Gzip,
            64,
        );
        assert_eq!(
            err,
            Some(ReadError::Decompress(DecompressError::zlib(
                "invalid block type"
            )))
        );
        let (_, err, _) = read_all(b"xx", Decompress::Gzip, 64);
        let Some(ReadError::Decompress(err)) = err else {
            panic!("{err:?}")
        };
        assert_eq!(
            (err.code, err.errno, &*err.message),
            ("Z_DATA_ERROR", -3, "incorrect header check")
        );
    }

    #[test]
    fn damage_met_on_zlib_s_fast_path_keeps_its_message() {
        // "ab\n", then a match 32,577 bytes back: found while inflating with room for 258 bytes
        // or more, the path where zlib-rs 0.6.8 reported "repeated call with bad state".
        let mut file = b"\x1f\x8b\x08\0\0\0\0\0\0\x03\x4b\x4c\xe2\x02\x5e\xa0\x0f".to_vec();
        file.extend([0; 32]);
        for chunk in [5, 64 * 1024] {
            let (out, err, _) = read_all(&file, Decompress::Gzip, chunk);
            assert_eq!(out, b"ab\n", "chunk {chunk}");
            let expected = DecompressError::zlib("invalid distance too far back");
            assert_eq!(err, Some(ReadError::Decompress(expected)), "chunk {chunk}");
        }
    }

    #[test]
    fn auto_reads_other_bytes_as_they_are() {
        for plain in [
            &b""[..],
            b"\x1f",
            b"\x1f\x8b",
            b"\x1f\x8b\x00rest",
            b"(\xb5/",
            b"\x5a\x2a\x4d",
            b"text\n",
        ] {
            for chunk in [1, 2, 64] {
                let (out, err, consumed) = read_all(plain, Decompress::Auto, chunk);
                assert_eq!(
                    (&out[..], err, consumed),
                    (plain, None, plain.len()),
                    "{plain:?}"
                );
            }
        }
        let (out, _, _) = read_all(&gzip(TEXT), Decompress::Auto, 7);
        assert_eq!(out, TEXT);
    }

    #[test]
    fn auto_decides_as_soon_as_the_first_bytes_tell() {
        let plain = |decoder: Option<Decoder>| matches!(decoder, Some(Decoder::Plain));
        assert!(
            plain(Decoder::detect(b"a", false)),
            "no magic starts with a"
        );
        assert!(plain(Decoder::detect(b"\x1fx", false)));
        assert!(
            plain(Decoder::detect(b"\x1f", true)),
            "a whole file of one byte"
        );
        for undecided in [&b""[..], b"\x1f", b"\x1f\x8b", b"(\xb5/", b"\x5f*M"] {
            assert!(Decoder::detect(undecided, false).is_none(), "{undecided:?}");
        }
        assert!(matches!(
            Decoder::detect(b"\x1f\x8b\x08", false),
            Some(Decoder::Gzip(_))
        ));
        assert!(matches!(
            Decoder::detect(b"\x5f*M\x18", false),
            Some(Decoder::Zstd(_))
        ));
    }

    #[test]
    fn an_empty_input_is_an_unexpected_end_for_either_format() {
        for decompress in [Decompress::Gzip, Decompress::Zstd] {
            let (_, err, _) = read_all(b"", decompress, 64);
            assert_eq!(err, Some(DecompressError::UNEXPECTED_END.into()));
        }
    }
}
