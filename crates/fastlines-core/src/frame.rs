//! Framing: turning the bytes in the read buffer into the items a consumer takes, and leaving
//! what is incomplete for the next read. [`LineFramer`] makes batches of decoded lines,
//! [`ChunkFramer`] raw chunks; both run inside a [`Reader`](crate::Reader).

use bytes::Bytes;

use crate::buffer::ReadBuf;
use crate::decode::{decode, Decoded, Encoding, Text};
use crate::error::ReadError;
use crate::filter::{LineFilter, Match};
use crate::json::{array_text, lines_not_one_text, JsonBatches, NotOneText, ARRAY_TEXT_FRAMING};
use crate::split::{
    count_newlines, first_line_longer_than, without_final_terminator, LineSplitter, Run,
};
use crate::transcode::is_ascii;

/// Turns what has been read so far into items, leaving incomplete data in the buffer.
pub trait Framer {
    type Item;
    /// Removes the next complete item from the front of `buf`, if there is one.
    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Self::Item>, ReadError>;
    /// At end of input: removes the last item from what is left in `buf`.
    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Self::Item>, ReadError>;
    /// How much of `data` stands complete when the input breaks off right after it (damaged
    /// compressed data, a failed read): for lines, up to the last terminator, a lone `\r`
    /// included, since no byte after it can undo the end of its line.
    fn complete_at_break(&self, data: &[u8]) -> usize {
        memchr::memrchr2(b'\n', b'\r', data).map_or(0, |last| last + 1)
    }
    /// Where in the input the first byte it frames is, which a reader learns only once its
    /// source is open (a share starts at its first line): framers that give no offsets ignore it.
    fn start_at(&mut self, _offset: u64) {}
    /// A framer for a part of the same input that frames it as this one would from the part's
    /// start, numbering its lines from 1, for reading a file in parts on two threads (see
    /// `parts.rs`); `None` where that does not pay, the default.
    fn for_part(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// The longest line, in bytes without its terminator, this framer frames before it fails
    /// ([`ReadError::LineTooLong`]), if it has a limit: a reader in parts need look no further
    /// for where a line ends (see `parts.rs`).
    fn longest_line(&self) -> Option<usize> {
        None
    }
    /// About how many bytes of input `item` holds, which bounds the read-ahead in bytes (see
    /// `channel.rs`): 0, one place, for items never larger than a read (chunks, counts).
    fn weight(_item: &Self::Item) -> usize {
        0
    }
    /// How many lines of the input it framed (counted by framers that number lines; 0 for the
    /// others).
    fn lines_framed(&self) -> u64 {
        0
    }
    /// `item`, framed by a [`Framer::for_part`] framer whose part begins after `lines` lines of
    /// the input, numbered as one framer of the whole input numbers it.
    fn after_lines(item: Self::Item, _lines: u64) -> Self::Item
    where
        Self: Sized,
    {
        item
    }
}

/// A batch of complete lines, decoded and joined by `\n` (see `without_final_terminator`),
/// so that JS makes all of them with one `split('\n')`, or for a JSON reader on V8 as one JSON
/// array's text (see [`LineFramer::with_json`]); and where they were in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub text: Text,
    /// Offset in the input of the batch's first byte.
    pub start: u64,
    /// Offset in the input just past the batch's last line and its terminator: where reading
    /// resumes with the next line.
    pub end: u64,
    /// How to find where each line of the batch ended in the input.
    pub layout: LineLayout,
    /// With a filter, which lines of the input the batch holds: they are not consecutive, so
    /// their numbers and starts are listed.
    pub kept: Option<KeptLines>,
    /// For a framer for a JSON reader ([`LineFramer::with_json`]): the batch's lines that are
    /// not shaped like one JSON text, by index and where each starts (see `json.rs`); when there
    /// are none, a JSON array's text may be parsed as it is, and a batch's bytes in one piece.
    pub not_one_text: Option<NotOneText>,
}

/// The lines a filter kept in a [`Batch`], one entry per line in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLines {
    /// Each line's number in the input, counting every line (1 for the input's first line).
    pub numbers: Vec<u64>,
    /// Where each line started, counted from the batch's start.
    pub starts: Vec<u64>,
}

/// Where the lines of a [`Batch`] ended in the input, kept cheap for the usual files: JS works
/// out a line's end from its text only when asked for a position inside a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineLayout {
    /// Every line took its text's bytes in the input (one per character for [`Text::OneByte`],
    /// its UTF-8 length for [`Text::Utf16`]) plus a terminator of this many bytes (`\n`: 1,
    /// `\r\n`: 2).
    Uniform { terminator_len: u8 },
    /// Where each line ended, past its terminator, counted from the batch's start (the last
    /// line's end may be left out: it is the batch's `end`): for mixed terminators, lone `\r`,
    /// or replaced bytes.
    Ends(Vec<u64>),
}

impl LineLayout {
    /// The layout of `run`, decoded exactly or not. Only runs with a `\r\n` pay for counting
    /// their lines, and only mixed or replaced ones for listing where each ended.
    fn of(run: &Run, exact: bool) -> LineLayout {
        if exact && run.crlf_at.is_empty() {
            return LineLayout::Uniform { terminator_len: 1 };
        }
        if exact && count_newlines(&run.lines) == run.crlf_at.len() as u64 {
            return LineLayout::Uniform { terminator_len: 2 };
        }
        LineLayout::Ends(run.raw_line_ends())
    }
}

/// The most bytes a batch of more than one line holds. Each line takes at least its
/// terminator, so a batch holds at most this many lines, and JS splits a batch into an array of
/// them: V8 aborts the process (a fatal error, no exception) at an array of 2^27 elements, which
/// a read of 128 MiB of empty lines made (a `highWaterMark` that large over a decompression
/// bomb, or over a file of them). A longer single line is still one batch.
pub const MAX_BATCH_BYTES: usize = 32 << 20;

/// Frames batches of complete lines ([`Batch`]).
#[derive(Debug, Clone)]
pub struct LineFramer {
    splitter: LineSplitter,
    /// Offset in the input of the first byte not yet framed.
    offset: u64,
    encoding: Encoding,
    limit: LineLimit,
    /// The longest string, in UTF-16 code units, the consumer's engine can make. A batch is
    /// never longer than this many bytes (nor [`MAX_BATCH_BYTES`]) unless it is a single line,
    /// and a byte never decodes to more than one unit; so only a single line can be too long for
    /// the engine, and then [`ReadError::StringTooLong`] says so instead of a failure to make the
    /// string.
    max_string_length: usize,
    /// Only the lines it keeps are framed, and `lines_before` counts the input's lines.
    filter: Option<LineFilter>,
    /// How many lines of the input came before the first one not yet framed (counted only
    /// with a filter: the numbers of unfiltered lines follow from their order). A followed
    /// file's replacement goes on counting, as JS does for unfiltered lines.
    lines_before: u64,
    /// What a JSON reader's batches list and how their text comes.
    json: JsonBatches,
    /// The line being collected, as far as it is measured against `max_string_length`.
    pending: PendingLine,
}

impl LineFramer {
    pub fn new(encoding: Encoding) -> Self {
        LineFramer {
            splitter: LineSplitter::default(),
            offset: 0,
            encoding,
            limit: LineLimit::None,
            max_string_length: usize::MAX,
            filter: None,
            lines_before: 0,
            json: JsonBatches::Plain,
            pending: PendingLine::default(),
        }
    }

    /// Whether it frames only some lines.
    pub fn filters(&self) -> bool {
        self.filter.is_some()
    }

    /// Frames only the lines that match `what` (see [`LineFilter`]).
    pub fn with_match(mut self, what: Option<&Match>) -> Self {
        self.filter = what.map(|what| LineFilter::new(what, self.encoding));
        self
    }

    /// Fails with [`ReadError::LineTooLong`] at the first line longer than `max` bytes (without
    /// its terminator), after the lines before it; so at most `max` plus one read of a line is
    /// ever held in memory.
    pub fn with_max_line_length(mut self, max: Option<usize>) -> Self {
        self.limit = max.map_or(LineLimit::None, LineLimit::Max);
        self
    }

    /// Fails with [`ReadError::StringTooLong`] at a line of more than `max` UTF-16 code units
    /// (the engine's longest string), after the lines before it.
    pub fn with_max_string_length(mut self, max: usize) -> Self {
        self.max_string_length = max;
        self
    }

    /// Has each batch list its lines that are not shaped like one JSON text
    /// ([`Batch::not_one_text`]), and with [`JsonBatches::Arrays`] come as one JSON array's
    /// text ([`array_text`]), for readers that parse them. A line may then be
    /// [`ARRAY_TEXT_FRAMING`] units shorter than the engine's longest string.
    pub fn with_json(mut self, json: JsonBatches) -> Self {
        self.json = json;
        self
    }

    /// The lines of `lines` (as the splitter joins them) not shaped like one JSON text, for a
    /// framer for a JSON reader.
    fn json_check(&self, lines: &[u8]) -> Option<NotOneText> {
        (self.json != JsonBatches::Plain).then(|| lines_not_one_text(lines))
    }

    /// The text of a batch of `lines` (as the splitter joins them): decoded, or for
    /// [`JsonBatches::Bytes`] if it is ASCII (the same text in every encoding) kept as bytes,
    /// with its lines counted; for [`JsonBatches::Arrays`] first made one JSON array's text.
    fn batch_text(&self, lines: Bytes) -> Decoded {
        if self.json == JsonBatches::Arrays {
            return decode(Bytes::from(array_text(&lines)), self.encoding);
        }
        let bytes = without_final_terminator(lines);
        if self.json == JsonBatches::Bytes && is_ascii(&bytes) {
            // A batch of more than one line holds at most MAX_BATCH_BYTES, a byte a line at least.
            let lines = count_newlines(&bytes) as u32 + 1;
            return Decoded {
                text: Text::Ascii { bytes, lines },
                exact: true,
            };
        }
        decode(bytes, self.encoding)
    }

    /// The most UTF-16 units a line may take: the engine's longest string, less what a JSON
    /// array's text adds to a batch of one line.
    fn longest_line_units(&self) -> usize {
        let framing = match self.json {
            JsonBatches::Arrays => ARRAY_TEXT_FRAMING,
            JsonBatches::Plain | JsonBatches::Bytes => 0,
        };
        self.max_string_length.saturating_sub(framing)
    }

    /// The most bytes of lines a batch of more than one line takes: its text is then never
    /// longer than the engine's longest string. A JSON array's text adds a byte per line, and a
    /// line takes at least its terminator, so it is at most twice the lines' bytes, and 1.
    fn max_run(&self) -> usize {
        let most = if self.json == JsonBatches::Arrays {
            self.max_string_length.saturating_sub(1) / 2
        } else {
            self.max_string_length
        };
        most.min(MAX_BATCH_BYTES)
    }

    /// The longest string the consumer's engine makes, in UTF-16 code units, and the encoding
    /// that measures a line's bytes in them (see [`PendingLine::units_at_least`]).
    pub(crate) fn string_limit(&self) -> (usize, Encoding) {
        (self.max_string_length, self.encoding)
    }

    /// The longest line it collects, if it has a limit.
    pub fn max_line_length(&self) -> Option<usize> {
        match self.limit {
            LineLimit::Max(max) | LineLimit::Exceeded(max) => Some(max),
            LineLimit::None => None,
        }
    }

    /// Frames another input from its start (a followed file was replaced or truncated): what
    /// was left of a line is the caller's to drop, and offsets count from 0 again (line
    /// numbers go on).
    pub(crate) fn restart(&mut self) {
        self.splitter.reset();
        self.pending = PendingLine::default();
        self.offset = 0;
    }

    /// The error of a line too long for the engine's strings.
    fn string_too_long(&self) -> ReadError {
        ReadError::StringTooLong {
            max_string_length: self.longest_line_units(),
        }
    }

    /// Fails with [`ReadError::StringTooLong`] if `run`, a run the line limit kept, is one line
    /// sure to be too long for the engine (a run longer than the engine's longest string is one
    /// line, see [`LineSplitter::take_complete`], and so is the input's last line), whether a
    /// filter keeps it or not: so a line fails by the same measure whether it came whole in one
    /// read (as a search's parts are read) or was collected over many.
    fn check_whole_line(&self, run: &Run) -> Result<(), ReadError> {
        if run.raw_len <= self.longest_line_units() {
            return Ok(());
        }
        let line = run.lines.strip_suffix(b"\n").unwrap_or(&run.lines);
        let units = PendingLine::default().units_at_least(line, self.encoding);
        if units > self.longest_line_units() {
            return Err(self.string_too_long());
        }
        Ok(())
    }

    /// Fails with [`ReadError::StringTooLong`] once the line being collected in `buf` (all of
    /// it: no terminator yet) is sure to be too long for the engine, rather than when it ends:
    /// a line that never ends (`/dev/zero`, a binary on stdin) would otherwise grow the buffer
    /// until the allocator aborts the process. With a filter too, though it might have dropped
    /// the line: to know, the line would have to be held to its end, and `readLines` without
    /// the filter, or `readline`, fails there as well.
    ///
    /// Not with a line limit, which bounds the line already and decides first: a line over
    /// both fails as over the line limit, and it is not known yet whether it will be.
    fn check_pending_line(&mut self, buf: &ReadBuf) -> Result<(), ReadError> {
        let len = LineSplitter::pending_line_len(buf);
        if self.limit != LineLimit::None || len <= self.longest_line_units() {
            return Ok(());
        }
        if self
            .pending
            .units_at_least(&buf.data()[..len], self.encoding)
            > self.longest_line_units()
        {
            return Err(self.string_too_long());
        }
        Ok(())
    }

    /// The batch of what `run` holds: all of it, or with a filter the lines it keeps (`None`
    /// when it keeps none).
    fn batch_of(&mut self, run: Run) -> Result<Option<Batch>, ReadError> {
        match self.filter.take() {
            None => self.batch(run).map(Some),
            Some(filter) => {
                let batch = self.filtered(run, &filter);
                self.filter = Some(filter);
                batch
            }
        }
    }

    /// The lines of `run` that `filter` keeps, as a batch whose layout lists where each ended
    /// in the input, with their numbers and starts; the batch ends after its last line. Only
    /// the kept lines are measured: a run's other lines are only counted, by the filter.
    fn filtered(&mut self, run: Run, filter: &LineFilter) -> Result<Option<Batch>, ReadError> {
        let (mut kept, mut lines) = (Vec::new(), Vec::new());
        let line_count = filter.keep(&run.terminated_lines(), &mut kept, &mut lines);
        let run_start = self.offset;
        self.offset += run.raw_len as u64;
        let first_number = self.lines_before + 1;
        self.lines_before += line_count;
        let Some(last) = lines.last() else {
            return Ok(None);
        };
        let not_one_text = self.json_check(&kept);
        let decoded = self.batch_text(Bytes::from(kept));
        if decoded.text.len() > self.max_string_length {
            return Err(self.string_too_long());
        }
        let input_offset = |offset: usize| run.input_offset(offset);
        Ok(Some(Batch {
            text: decoded.text,
            start: run_start,
            end: run_start + input_offset(last.range.end),
            layout: LineLayout::Ends(
                lines
                    .iter()
                    .map(|line| input_offset(line.range.end))
                    .collect(),
            ),
            kept: Some(KeptLines {
                numbers: lines.iter().map(|line| first_number + line.index).collect(),
                starts: lines
                    .iter()
                    .map(|line| input_offset(line.range.start))
                    .collect(),
            }),
            not_one_text,
        }))
    }

    /// Decodes `run` into the next batch.
    fn batch(&mut self, run: Run) -> Result<Batch, ReadError> {
        let decoded = self.batch_text(run.lines.clone());
        if decoded.text.len() > self.max_string_length {
            return Err(self.string_too_long());
        }
        let start = self.offset;
        self.offset += run.raw_len as u64;
        Ok(Batch {
            text: decoded.text,
            start,
            end: self.offset,
            layout: LineLayout::of(&run, decoded.exact),
            kept: None,
            not_one_text: self.json_check(&run.lines),
        })
    }
}

impl Framer for LineFramer {
    type Item = Batch;

    /// A batch holds whole lines, so one of a line longer than a read is that line's bytes.
    fn weight(batch: &Batch) -> usize {
        batch.text.len()
    }

    /// Counts offsets from `offset`.
    fn start_at(&mut self, offset: u64) {
        self.offset = offset;
    }

    /// Only a search's framer reads in parts: its reading thread, which searches every byte,
    /// is the bound, where JS, making every line's string, is for the others.
    fn longest_line(&self) -> Option<usize> {
        self.max_line_length()
    }

    fn for_part(&self) -> Option<Self> {
        self.filters().then(|| LineFramer {
            splitter: LineSplitter::default(),
            offset: 0,
            lines_before: 0,
            ..self.clone()
        })
    }

    fn lines_framed(&self) -> u64 {
        self.lines_before
    }

    fn after_lines(mut batch: Batch, lines: u64) -> Batch {
        if let Some(kept) = &mut batch.kept {
            for number in &mut kept.numbers {
                *number += lines;
            }
        }
        batch
    }

    /// With a filter, runs whose lines all fail it are passed over here: `None` must mean
    /// that no complete line is left in `buf`.
    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Batch>, ReadError> {
        loop {
            self.limit.check()?;
            let Some(mut run) = self.splitter.take_complete(buf, self.max_run()) else {
                // No terminator yet: the line being collected may already be over the limit.
                self.limit.collect(LineSplitter::pending_line_len(buf));
                self.limit.check()?;
                self.check_pending_line(buf)?;
                return Ok(None);
            };
            self.pending = PendingLine::default();
            match self.limit.keep(&run.lines) {
                0 => return self.limit.check().map(|()| None), // the first line was over the limit
                kept => {
                    run.keep_first(kept);
                    self.check_whole_line(&run)?;
                    if let Some(batch) = self.batch_of(run)? {
                        return Ok(Some(batch));
                    }
                }
            }
        }
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Batch>, ReadError> {
        self.limit.check()?;
        let Some(last_line) = self.splitter.take_rest(buf) else {
            return Ok(None);
        };
        self.limit.collect(last_line.lines.len());
        self.limit.check()?;
        self.check_whole_line(&last_line)?;
        self.batch_of(last_line)
    }
}

/// The longest line a [`LineFramer`] collects, and whether a longer one was met, as one state
/// (after ripgrep's `BufferAllocation`): no flag can disagree with the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineLimit {
    /// Lines of any length (up to what the engine can hold as a string).
    None,
    /// Lines of at most this many bytes, terminator excluded.
    Max(usize),
    /// A line over this many bytes was met: the lines before it may still go out, and nothing
    /// after them.
    Exceeded(usize),
}

impl LineLimit {
    /// How many bytes of `lines` (complete, terminators included) the lines before the first
    /// one over the limit take: all of them unless a line is over it, which makes the limit
    /// [`LineLimit::Exceeded`].
    fn keep(&mut self, lines: &[u8]) -> usize {
        if let LineLimit::Max(max) = *self {
            if let Some(start) = first_line_longer_than(lines, max) {
                *self = LineLimit::Exceeded(max);
                return start;
            }
        }
        lines.len()
    }

    /// Notes a line of `len` bytes so far (collected, or the last one of the input).
    fn collect(&mut self, len: usize) {
        if let LineLimit::Max(max) = *self {
            if len > max {
                *self = LineLimit::Exceeded(max);
            }
        }
    }

    /// Fails once a line over the limit was met.
    fn check(&self) -> Result<(), ReadError> {
        match *self {
            LineLimit::Exceeded(max_line_length) => Err(ReadError::LineTooLong { max_line_length }),
            LineLimit::None | LineLimit::Max(_) => Ok(()),
        }
    }
}

/// How many UTF-16 code units the line being collected decodes to at least, counted as it grows
/// (each byte once), so that measuring a line that never ends costs a pass over it, not one per
/// read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct PendingLine {
    /// How many of the line's first bytes are counted.
    counted: usize,
    /// The units those bytes decode to at least.
    units: usize,
}

impl PendingLine {
    /// The least number of units `line` (the line collected so far, which only grows) decodes
    /// to. In UTF-8, every byte that is not a continuation byte (`0b10xx_xxxx`) starts a
    /// character or an invalid sequence, and each becomes at least one unit (a character, or
    /// U+FFFD); a character cut at the end still becomes at least one, whatever follows.
    fn units_at_least(&mut self, line: &[u8], encoding: Encoding) -> usize {
        let new = &line[self.counted.min(line.len())..];
        self.units += units_at_least(new, encoding);
        self.counted = line.len();
        self.units
    }
}

/// Frames each read as it came: raw bytes, nothing split. The bytes are a view of a pooled
/// buffer, to be copied into a JS Buffer: JS-owned memory that the engine accounts for, where
/// adopting native buffers left up to 119 MB waiting for finalizers on Node.
#[derive(Debug, Default)]
pub struct ChunkFramer;

impl Framer for ChunkFramer {
    type Item = Bytes;

    /// Chunks are bytes, not lines: every byte read before the break is handed out.
    fn complete_at_break(&self, data: &[u8]) -> usize {
        data.len()
    }

    fn take(&mut self, buf: &mut ReadBuf) -> Result<Option<Bytes>, ReadError> {
        Ok((!buf.is_empty()).then(|| buf.split_to(buf.len())))
    }

    fn finish(&mut self, buf: &mut ReadBuf) -> Result<Option<Bytes>, ReadError> {
        self.take(buf)
    }
}

/// At least how many UTF-16 code units `bytes` decode to, in `encoding`: for UTF-8, the bytes
/// not of the form `0b10xx_xxxx`, each of which starts a character (or is a U+FFFD) wherever
/// the bytes were cut. Counted only past the engine's limit, so plainly (bytecount, x86-64's
/// counter, is not on every target).
pub(crate) fn units_at_least(bytes: &[u8], encoding: Encoding) -> usize {
    match encoding {
        Encoding::Latin1 => bytes.len(),
        Encoding::Utf8 => bytes.iter().filter(|&&byte| (byte as i8) >= -0x40).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::{Progress, Reader};
    use crate::source::Source;

    /// Every item a line reader over `input` gives, read `chunk_size` bytes at a time, as text,
    /// with the error that ended it (if any).
    fn read_all(
        input: &[u8],
        chunk_size: usize,
        framer: LineFramer,
    ) -> (Vec<String>, Option<ReadError>) {
        let source = Source::new(input, None, chunk_size);
        let mut reader = Reader::new(source, framer, Progress::default());
        let mut batches = Vec::new();
        loop {
            match reader
                .next_blocking()
                .map(|batch| batch.map(|batch| batch.text))
            {
                Ok(Some(Text::OneByte(bytes) | Text::Ascii { bytes, .. })) => {
                    batches.push(String::from_utf8_lossy(&bytes).into())
                }
                Ok(Some(Text::Utf16(units))) => batches.push(String::from_utf16_lossy(&units)),
                Ok(None) => return (lines_of(batches), None),
                Err(err) => return (lines_of(batches), Some(err)),
            }
        }
    }

    /// Each batch's JSON check from a framer over `input` read `chunk_size` bytes at a time.
    fn json_checks(input: &[u8], chunk_size: usize, framer: LineFramer) -> Vec<Option<Vec<u32>>> {
        let mut reader = Reader::new(
            Source::new(input, None, chunk_size),
            framer,
            Progress::default(),
        );
        let mut checks = Vec::new();
        while let Some(batch) = reader.next_blocking().unwrap() {
            checks.push(batch.not_one_text.map(|not| not.indexes));
        }
        checks
    }

    /// A read of 64 MiB of empty lines became one batch of 64 Mi lines, which JS splits into an
    /// array (V8 aborts the process at 2^27 elements); a single longer line is still one batch.
    #[test]
    fn a_batch_of_many_lines_holds_no_more_bytes_than_max_batch_bytes() {
        let empty_lines = 2 * MAX_BATCH_BYTES + 5;
        let mut input = vec![b'\n'; empty_lines];
        let long_line = MAX_BATCH_BYTES + 7;
        input.resize(empty_lines + long_line, b'x');
        input.push(b'\n');
        let source = Source::new(&input[..], None, input.len());
        let mut reader = Reader::new(source, LineFramer::new(Encoding::Utf8), Progress::default());
        let mut lines_per_batch = Vec::new();
        while let Some(batch) = reader.next_blocking().expect("read") {
            let Text::OneByte(text) = batch.text else {
                panic!("ASCII is one byte a character");
            };
            let lines = count_newlines(&text) as usize + 1;
            if lines == 1 && text.len() == long_line {
                lines_per_batch.push(0); // the long line, alone
            } else {
                assert_eq!(text.len(), lines - 1, "empty lines");
                lines_per_batch.push(lines);
            }
        }
        assert_eq!(
            lines_per_batch,
            [MAX_BATCH_BYTES, MAX_BATCH_BYTES, 5, 0],
            "batches of empty lines, then the long line"
        );
    }

    #[test]
    fn the_json_check_covers_each_batch_of_kept_lines_and_only_when_asked() {
        let input = b"{\"a\": 1}\r\n[2]\n\"x\"";
        let framer = || LineFramer::new(Encoding::Utf8).with_json(JsonBatches::Arrays);
        assert_eq!(
            json_checks(input, 1 << 10, framer()),
            [Some(vec![]), Some(vec![])]
        );
        assert_eq!(
            json_checks(input, 1 << 10, LineFramer::new(Encoding::Utf8)),
            [None, None]
        );
        // A blank line is listed; with a filter that leaves it out, nothing is.
        let blank = b"1\n\n2\n";
        assert_eq!(json_checks(blank, 1 << 10, framer()), [Some(vec![1])]);
        let digits = Match {
            strings: vec!["1".into(), "2".into()],
            ignore_case: false,
            invert: false,
        };
        let filtered = framer().with_match(Some(&digits));
        assert_eq!(json_checks(blank, 1 << 10, filtered), [Some(vec![])]);
        // Lines that make an array together, none of them one text, after one that is.
        assert_eq!(
            json_checks(b"0\n[[1\n2]]\n3],[4\n", 1 << 10, framer()),
            [Some(vec![1, 2, 3])]
        );
    }

    #[test]
    fn a_json_readers_batches_come_as_bytes_or_as_one_json_arrays_text() {
        let input = b"{\"a\": 1}\r\n\n[2]\n\"x\"";
        let batches = |json| {
            let framer = LineFramer::new(Encoding::Utf8).with_json(json);
            let mut reader = Reader::new(
                Source::new(&input[..], None, 4),
                framer,
                Progress::default(),
            );
            let mut batches = Vec::new();
            while let Some(batch) = reader.next_blocking().unwrap() {
                let (Text::OneByte(text) | Text::Ascii { bytes: text, .. }) = batch.text else {
                    panic!("ASCII is one byte a character");
                };
                batches.push((
                    String::from_utf8_lossy(&text).into_owned(),
                    batch.not_one_text.map(|not| not.indexes),
                ));
            }
            batches
        };
        let plain = batches(JsonBatches::Plain);
        assert!(plain.iter().all(|(_, check)| check.is_none()));
        let bytes = batches(JsonBatches::Bytes);
        let arrays = batches(JsonBatches::Arrays);
        assert_eq!(bytes.len(), plain.len());
        assert_eq!(arrays.len(), plain.len());
        for ((plain, _), ((bytes, listed), (array, listed_too))) in
            plain.iter().zip(bytes.iter().zip(&arrays))
        {
            assert_eq!(bytes, plain, "bytes: joined by \\n as for readLines");
            assert_eq!(*array, format!("[{}\n]", plain.replace('\n', "\n,")));
            assert_eq!(listed, listed_too);
            assert!(listed.is_some());
        }
        let listed: Vec<_> = bytes
            .iter()
            .map(|(_, listed)| listed.clone().unwrap())
            .collect();
        assert!(
            listed.iter().any(|lines| !lines.is_empty()),
            "the blank line: {listed:?}"
        );
    }

    #[test]
    fn json_byte_batches_are_the_ascii_lines_with_their_count_and_others_decoded() {
        // CRLF, an empty line, a line not JSON; then non-ASCII and an invalid byte, which come
        // decoded. 8-byte reads make batches of a line or two.
        let ascii = b"{\"a\": 1}\r\n\n[\n\"x\"\n2\n{}\n";
        let input = [&ascii[..], b"\"\xc3\xa9\xe4\xb8\xad\"\n\"\xff\""].concat();
        for encoding in [Encoding::Utf8, Encoding::Latin1] {
            let framer = LineFramer::new(encoding).with_json(JsonBatches::Bytes);
            let mut reader = Reader::new(
                Source::new(&input[..], None, 8),
                framer,
                Progress::default(),
            );
            let (mut as_bytes, mut listed, mut lines_before) = (Vec::new(), Vec::new(), 0);
            let mut decoded = 0;
            while let Some(batch) = reader.next_blocking().unwrap() {
                let not = batch.not_one_text.expect("checked");
                let Text::Ascii { bytes, lines } = batch.text else {
                    assert!(!batch.text.is_empty() && batch.start >= ascii.len() as u64 - 1);
                    decoded += 1;
                    continue;
                };
                assert!(bytes.is_ascii());
                let split: Vec<&[u8]> = bytes.split(|&byte| byte == b'\n').collect();
                assert_eq!(lines as usize, split.len());
                for (index, start) in not.indexes.iter().zip(&not.starts) {
                    let line_start: usize = split[..*index as usize]
                        .iter()
                        .map(|line| line.len() + 1)
                        .sum();
                    assert_eq!(
                        *start as usize, line_start,
                        "where listed line {index} starts"
                    );
                    listed.push(lines_before + index);
                }
                lines_before += lines;
                as_bytes.extend(
                    split
                        .iter()
                        .map(|line| String::from_utf8_lossy(line).into_owned()),
                );
            }
            assert_eq!(
                as_bytes,
                ["{\"a\": 1}", "", "[", "\"x\"", "2", "{}"],
                "{encoding:?}"
            );
            assert_eq!(listed, [1, 2], "the empty line and the open bracket");
            assert!(decoded > 0, "the non-ASCII lines come decoded");
        }
    }

    fn limited(max: usize) -> LineFramer {
        LineFramer::new(Encoding::Latin1).with_max_line_length(Some(max))
    }

    fn lines_of(batches: Vec<String>) -> Vec<String> {
        batches
            .iter()
            .flat_map(|b| b.split('\n'))
            .map(String::from)
            .collect()
    }

    const TOO_LONG: Option<ReadError> = Some(ReadError::LineTooLong { max_line_length: 5 });

    #[test]
    fn the_lines_before_an_overlong_line_come_out_then_the_error() {
        for chunk_size in 1..=20 {
            let (lines, err) = read_all(b"ab\r\ncde\rfghij\nklmnop\nq\n", chunk_size, limited(5));
            assert_eq!(lines, ["ab", "cde", "fghij"], "chunk size {chunk_size}");
            assert_eq!(err, TOO_LONG, "chunk size {chunk_size}");
        }
    }

    #[test]
    fn a_line_of_exactly_the_limit_passes_and_terminators_do_not_count() {
        for chunk_size in 1..=8 {
            let (lines, err) = read_all(b"abcde\r\nfghij\rklmno", chunk_size, limited(5));
            assert_eq!(
                (lines, err),
                (vec!["abcde".into(), "fghij".into(), "klmno".into()], None)
            );
        }
    }

    #[test]
    fn an_overlong_last_line_without_terminator_fails() {
        for chunk_size in 1..=8 {
            assert_eq!(
                read_all(b"ok\nabcdef", chunk_size, limited(5)),
                (vec!["ok".into()], TOO_LONG)
            );
        }
    }

    #[test]
    fn an_overlong_line_stops_reading_within_a_read_of_the_limit() {
        let line = vec![b'x'; 1 << 20];
        let framer = LineFramer::new(Encoding::Utf8).with_max_line_length(Some(1000));
        let progress = Progress::default();
        let mut reader = Reader::new(Source::new(&line[..], None, 64), framer, progress.clone());
        assert!(matches!(
            reader.next_blocking(),
            Err(ReadError::LineTooLong { .. })
        ));
        assert!(progress.bytes() <= 1000 + 64);
    }

    fn engine_of(max_string_length: usize, encoding: Encoding) -> LineFramer {
        LineFramer::new(encoding).with_max_string_length(max_string_length)
    }

    const STRING_TOO_LONG: Option<ReadError> = Some(ReadError::StringTooLong {
        max_string_length: 4,
    });

    #[test]
    fn a_line_longer_than_the_engine_can_hold_fails_after_the_lines_before_it() {
        for chunk_size in 1..=24 {
            for input in [&b"ab\ncd\r\nefgh\nijklm\nn\n"[..], b"ab\ncd\r\nefgh\nijklm"] {
                let (lines, err) = read_all(input, chunk_size, engine_of(4, Encoding::Utf8));
                assert_eq!(
                    lines,
                    ["ab", "cd", "efgh"],
                    "{input:?} in reads of {chunk_size}"
                );
                assert_eq!(err, STRING_TOO_LONG, "{input:?} in reads of {chunk_size}");
            }
        }
    }

    #[test]
    fn the_engine_limit_counts_utf16_units_not_bytes() {
        // Four characters in 9 bytes, and one that takes two units (a surrogate pair).
        let (lines, err) = read_all(
            "\u{e9}\u{4e2d}\u{e9}\u{4e2d}\n".as_bytes(),
            3,
            engine_of(4, Encoding::Utf8),
        );
        assert_eq!(
            (lines, err),
            (vec!["\u{e9}\u{4e2d}\u{e9}\u{4e2d}".into()], None)
        );
        let (lines, err) = read_all(
            "a\u{1f600}b\nabc\u{1f600}\n".as_bytes(),
            3,
            engine_of(4, Encoding::Utf8),
        );
        assert_eq!((lines, err), (vec!["a\u{1f600}b".into()], STRING_TOO_LONG));
    }

    #[test]
    fn a_line_that_never_ends_fails_within_a_read_of_the_engine_limit() {
        // A MiB with no terminator stands for one that never ends: it is not read to its end.
        for encoding in [Encoding::Utf8, Encoding::Latin1] {
            let progress = Progress::default();
            let endless = std::io::Read::take(std::io::repeat(b'a'), 1 << 20);
            let source = Source::new(endless, None, 64);
            let mut reader = Reader::new(source, engine_of(1000, encoding), progress.clone());
            let too_long = ReadError::StringTooLong {
                max_string_length: 1000,
            };
            assert_eq!(reader.next_blocking().err(), Some(too_long));
            assert!(
                progress.bytes() <= 1000 + 64,
                "{encoding:?}: {}",
                progress.bytes()
            );
        }
        // Three bytes a character: a line of 1,000 characters is 3,000 bytes, which do not fail.
        let cjk = "\u{4e2d}".repeat(1000) + "\n";
        for chunk_size in [1, 7, 64, 4096] {
            let (lines, err) =
                read_all(cjk.as_bytes(), chunk_size, engine_of(1000, Encoding::Utf8));
            assert_eq!((lines.len(), err), (1, None), "reads of {chunk_size}");
        }
    }

    #[test]
    fn with_a_filter_a_line_too_long_for_the_engine_fails_whether_kept_or_not_whatever_the_reads() {
        let input = b"ab\nxyxyxyxy\nzz\n";
        for (strings, before) in [(["ab"], vec!["ab".to_string()]), (["zz"], vec![])] {
            let what = Match {
                strings: strings.iter().map(|s| s.to_string()).collect(),
                ignore_case: false,
                invert: false,
            };
            for chunk_size in 1..=24 {
                let framer = engine_of(4, Encoding::Utf8).with_match(Some(&what));
                assert_eq!(
                    read_all(input, chunk_size, framer),
                    (before.clone(), STRING_TOO_LONG),
                    "{strings:?} in reads of {chunk_size}"
                );
            }
        }
    }

    #[test]
    fn a_line_is_too_long_for_the_engine_early_exactly_when_it_is_once_it_ends() {
        // Soups of ASCII, multi-byte characters, invalid bytes, `\r` and `\n`: whatever the
        // reads, the lines and the error are those of a reference that measures each line's
        // UTF-16 length once it ends.
        let pieces: [&[u8]; 8] = [
            b"a",
            b"\n",
            b"\r",
            "\u{e9}".as_bytes(),
            "\u{4e2d}".as_bytes(),
            "\u{1f600}".as_bytes(),
            b"\x80",
            b"\xe4\xb8",
        ];
        let mut state = 0x2545_f491_u32;
        for case in 0..400 {
            let mut input = Vec::new();
            for _ in 0..(case % 40) {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                input.extend_from_slice(pieces[state as usize % pieces.len()]);
            }
            let limit = 1 + case % 9;
            let reference = {
                let text = String::from_utf8_lossy(&input)
                    .replace("\r\n", "\n")
                    .replace('\r', "\n");
                let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
                if lines.last().is_some_and(String::is_empty) {
                    lines.pop();
                }
                match lines
                    .iter()
                    .position(|line| line.encode_utf16().count() > limit)
                {
                    Some(at) => (
                        lines[..at].to_vec(),
                        Some(ReadError::StringTooLong {
                            max_string_length: limit,
                        }),
                    ),
                    None => (lines, None),
                }
            };
            for chunk_size in [1, 2, 3, 5, 64] {
                assert_eq!(
                    read_all(&input, chunk_size, engine_of(limit, Encoding::Utf8)),
                    reference,
                    "{input:?}, limit {limit}, reads of {chunk_size}"
                );
            }
        }
    }

    #[test]
    fn many_short_lines_in_one_read_never_make_a_string_too_long() {
        // One read of 30 bytes holds ten lines: batches are cut to at most the engine's limit,
        // between lines, a `\r\n` cut in two included.
        let input = b"ab\r\ncd\r\nef\r\ngh\r\nij\r\nkl\r\nmn\r\nop\r\nqr\r\nst\r\n";
        for limit in [3, 4, 5, 7] {
            let (lines, err) = read_all(input, 64, engine_of(limit, Encoding::Latin1));
            assert_eq!(
                lines,
                ["ab", "cd", "ef", "gh", "ij", "kl", "mn", "op", "qr", "st"]
            );
            assert_eq!(err, None, "limit {limit}");
        }
    }
}
