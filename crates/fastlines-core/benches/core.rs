//! Throughput of the core's hot paths, each against a naive byte loop doing the same job:
//! - `splitter/*`: 64 KiB reads into a [`ReadBuf`], cut with [`LineSplitter::take_complete`]
//!   and their final terminator dropped with [`without_final_terminator`], the way `LineFramer` does before decoding;
//! - `counter/*`: [`LineCounter`] over 64 KiB chunks, the way `count_lines` does;
//! - `decode/*`: [`decode`] on the batches the splitter hands out (ASCII, UTF-8-heavy text,
//!   text with invalid bytes).
//!
//! Inputs are ~8 MiB of log-like lines generated deterministically, so every run (and every
//! machine) measures the same bytes. That is past L2 but within many L3 caches, the way a file
//! just read from the page cache often is. Throughput is in decimal GB/s of input bytes.
//!
//! `cargo bench -p fastlines-core` runs them all (`-- splitter` for one group); see
//! `benches/compare.sh` for saving a baseline and flagging regressions against it.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};
use fastlines_core::internals::{
    decode, without_final_terminator, LineCounter, LineSplitter, ReadBuf,
};
use fastlines_core::{Encoding, Text};

/// Bytes per read (`fs.createReadStream`'s default; fastlines' own default was 48 KiB when this
/// was written, which measured the same).
const READ_SIZE: usize = 64 * 1024;
/// Bytes of input per benchmark.
const INPUT_SIZE: usize = 8 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Inputs

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

#[derive(Clone, Copy)]
enum Flavor {
    /// Plain ASCII server logs.
    Ascii,
    /// Every line carries accented, CJK, Cyrillic, Greek or emoji text: a third of the bytes
    /// are in multi-byte sequences.
    Utf8Heavy,
    /// ASCII logs with Latin-1 bytes (a cp1252 file read as UTF-8) or a truncated sequence in
    /// two lines out of three: 1% of the bytes are invalid, and every batch needs replacing.
    Invalid,
}

const LEVELS: &[&str] = &["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
const COMPONENTS: &[&str] = &["http", "db.pool", "auth", "scheduler", "cache", "worker-3"];
const ASCII_MESSAGES: &[&str] = &[
    "GET /api/v1/users/{} 200",
    "POST /api/v1/orders 201 bytes={}",
    "cache miss key=session:{} ttl=300",
    "connection {} returned to pool (idle=7 busy=3)",
    "job {} finished: processed 1024 records, 0 errors",
    "slow query (>{}ms): SELECT id, name, email FROM users WHERE org_id = $1 ORDER BY created_at",
    "retrying upstream request attempt={}",
    "user {} logged in from 10.0.3.17 via password",
];
const UTF8_MESSAGES: &[&str] = &[
    "utilisateur «Zoë Müller» a téléversé {} fichiers — déjà vu, naïve café",
    "用户 张伟 登录成功，会话 {} 已创建（北京）",
    "ユーザー「山田太郎」がログインしました：セッション {}",
    "Привет, мир! заказ №{} оформлен и оплачен",
    "🚀 deploy {} ok ✅ — 🎉🎉 all green 💚",
    "Ελληνικά: παραγγελία {} ολοκληρώθηκε με επιτυχία",
    "résumé of {} naïve coöperations in Zürich, São Paulo and Kraków",
];
const INVALID_MESSAGES: &[&[u8]] = &[
    b"caf\xe9 order {} served to Jos\xe9",
    b"na\xefve r\xe9sum\xe9 uploaded by user {}",
    b"\xa9 2024 ACME Corp. build {}",
    b"truncated sequence \xe4\xb8 in record {}",
    b"GET /api/v1/users/{} 200",
    b"cache miss key=session:{} ttl=300",
];

/// About [`INPUT_SIZE`] bytes of whole log lines, each ended by `newline`.
fn log_lines(flavor: Flavor, newline: &[u8]) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(INPUT_SIZE + 512);
    let mut millis = 0u64;
    while out.len() < INPUT_SIZE {
        millis += rng.below(40) as u64;
        let (h, m, s, ms) = (
            millis / 3_600_000 % 24,
            millis / 60_000 % 60,
            millis / 1000 % 60,
            millis % 1000,
        );
        let level = rng.pick(LEVELS);
        let component = rng.pick(COMPONENTS);
        let head = format!("2024-05-17T{h:02}:{m:02}:{s:02}.{ms:03}Z {level:<5} [{component}] ");
        out.extend_from_slice(head.as_bytes());
        let message: &[u8] = match flavor {
            Flavor::Ascii => rng.pick(ASCII_MESSAGES).as_bytes(),
            Flavor::Utf8Heavy => rng.pick(UTF8_MESSAGES).as_bytes(),
            Flavor::Invalid => rng.pick(INVALID_MESSAGES),
        };
        let number = rng.below(100_000).to_string();
        for (i, part) in message.split(|&b| b == b'{').enumerate() {
            if i > 0 {
                out.extend_from_slice(number.as_bytes());
                out.extend_from_slice(&part[1..]); // skip the '}'
            } else {
                out.extend_from_slice(part);
            }
        }
        let tail = format!(" trace={:016x} dur={}ms", rng.next(), rng.below(5000));
        out.extend_from_slice(tail.as_bytes());
        out.extend_from_slice(newline);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The splitter

/// The reader's path: each read lands in a [`ReadBuf`]; every complete line in it is cut off
/// and joined, and the run goes to `sink` (then dropped, which recycles its buffer).
fn fastlines_split(input: &[u8], mut sink: impl FnMut(&[u8])) {
    let mut splitter = LineSplitter::default();
    let mut buf = ReadBuf::new(READ_SIZE);
    for read in input.chunks(READ_SIZE) {
        buf.spare(read.len()).copy_from_slice(read);
        buf.commit(read.len());
        if let Some(run) = splitter.take_complete(&mut buf, usize::MAX) {
            sink(&without_final_terminator(run.lines));
        }
    }
    if let Some(rest) = splitter.take_rest(&mut buf) {
        sink(&without_final_terminator(rest.lines));
    }
}

/// The same contract, naively: reads are appended to a `Vec`, a byte loop finds each line end,
/// and each complete line is copied to the output with `\n` as its terminator.
fn naive_split(input: &[u8], mut sink: impl FnMut(&[u8])) {
    let mut buf: Vec<u8> = Vec::with_capacity(2 * READ_SIZE);
    let mut out: Vec<u8> = Vec::with_capacity(2 * READ_SIZE);
    let mut skip_lf = false;
    for read in input.chunks(READ_SIZE) {
        let mut i = buf.len(); // the carried partial line holds no terminator
        buf.extend_from_slice(read);
        let mut line_start = 0;
        if skip_lf && !read.is_empty() {
            skip_lf = false;
            if buf[i] == b'\n' {
                i += 1;
                line_start = i;
            }
        }
        out.clear();
        while i < buf.len() {
            let byte = buf[i];
            if byte == b'\n' || byte == b'\r' {
                out.extend_from_slice(&buf[line_start..i]);
                out.push(b'\n');
                if byte == b'\r' {
                    match buf.get(i + 1) {
                        Some(b'\n') => i += 1,
                        Some(_) => {}
                        None => skip_lf = true,
                    }
                }
                line_start = i + 1;
            }
            i += 1;
        }
        if !out.is_empty() {
            sink(&out[..out.len() - 1]);
        }
        buf.drain(..line_start);
    }
    if !buf.is_empty() {
        sink(&buf);
    }
}

fn bench_splitter(c: &mut Criterion) {
    let mut group = group(c, "splitter");
    for (name, newline) in [("lf", &b"\n"[..]), ("crlf", &b"\r\n"[..])] {
        let input = log_lines(Flavor::Ascii, newline);
        let (mut ours, mut naive) = (Vec::new(), Vec::new());
        fastlines_split(&input, |run| ours.push(run.to_vec()));
        naive_split(&input, |run| naive.push(run.to_vec()));
        assert_eq!(ours, naive, "the naive splitter must do the same job");
        group.throughput(Throughput::BytesDecimal(input.len() as u64));
        group.bench_function(format!("{name}/fastlines"), |b| {
            b.iter(|| {
                fastlines_split(black_box(&input), |run| {
                    black_box(run);
                })
            });
        });
        group.bench_function(format!("{name}/naive"), |b| {
            b.iter(|| {
                naive_split(black_box(&input), |run| {
                    black_box(run);
                })
            });
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// The counter

fn fastlines_count(input: &[u8]) -> u64 {
    let mut counter = LineCounter::default();
    input
        .chunks(READ_SIZE)
        .for_each(|chunk| counter.feed(chunk));
    counter.finish()
}

/// Counts `\n` byte by byte (plus a final line without terminator): right for LF files only.
fn naive_count_lf(input: &[u8]) -> u64 {
    let mut lines = 0;
    for chunk in input.chunks(READ_SIZE) {
        for &byte in chunk {
            if byte == b'\n' {
                lines += 1;
            }
        }
    }
    lines + u64::from(input.last().is_some_and(|&b| b != b'\n'))
}

/// Counts `\n`, `\r\n` and lone `\r` byte by byte, like [`LineCounter`].
fn naive_count_any(input: &[u8]) -> u64 {
    let mut lines = 0;
    let mut after_cr = false;
    for chunk in input.chunks(READ_SIZE) {
        for &byte in chunk {
            if byte == b'\r' || (byte == b'\n' && !after_cr) {
                lines += 1;
            }
            after_cr = byte == b'\r';
        }
    }
    lines + u64::from(input.last().is_some_and(|&b| b != b'\n' && b != b'\r'))
}

fn bench_counter(c: &mut Criterion) {
    let mut group = group(c, "counter");
    for (name, newline) in [("lf", &b"\n"[..]), ("crlf", &b"\r\n"[..])] {
        let input = log_lines(Flavor::Ascii, newline);
        let naive: fn(&[u8]) -> u64 = if name == "lf" {
            naive_count_lf
        } else {
            naive_count_any
        };
        assert_eq!(fastlines_count(&input), naive(&input));
        group.throughput(Throughput::BytesDecimal(input.len() as u64));
        group.bench_function(format!("{name}/fastlines"), |b| {
            b.iter(|| fastlines_count(black_box(&input)));
        });
        group.bench_function(format!("{name}/naive"), |b| {
            b.iter(|| naive(black_box(&input)));
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// The decoder

/// The batches `decode` gets in the reader: the joined runs of 64 KiB reads.
fn batches(input: &[u8]) -> Vec<Bytes> {
    let mut batches = Vec::new();
    fastlines_split(input, |run| batches.push(Bytes::copy_from_slice(run)));
    batches
}

/// `decode`'s job with naive parts: a byte-by-byte ASCII check, then std's UTF-8 validation
/// (and `from_utf8_lossy` for invalid input), then std's char-by-char UTF-16 encoding.
fn naive_decode(bytes: &Bytes) -> Text {
    let mut ascii = true;
    for &byte in bytes.iter() {
        if byte >= 0x80 {
            ascii = false;
            break;
        }
    }
    if ascii {
        return Text::OneByte(bytes.clone());
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Text::Utf16(text.encode_utf16().collect()),
        Err(_) => Text::Utf16(String::from_utf8_lossy(bytes).encode_utf16().collect()),
    }
}

fn bench_decode(c: &mut Criterion) {
    let mut group = group(c, "decode");
    let flavors = [
        ("ascii", Flavor::Ascii),
        ("utf8_heavy", Flavor::Utf8Heavy),
        ("invalid", Flavor::Invalid),
    ];
    for (flavor_name, flavor) in flavors {
        let batches = batches(&log_lines(flavor, b"\n"));
        let bytes: usize = batches.iter().map(Bytes::len).sum();
        group.throughput(Throughput::BytesDecimal(bytes as u64));
        for batch in &batches {
            let text = decode(batch.clone(), Encoding::Utf8).text;
            assert_eq!(text, naive_decode(batch), "the naive decoder must agree");
        }
        group.bench_function(format!("{flavor_name}/fastlines"), |b| {
            b.iter(|| {
                for batch in black_box(&batches) {
                    black_box(decode(batch.clone(), Encoding::Utf8));
                }
            });
        });
        group.bench_function(format!("{flavor_name}/naive"), |b| {
            b.iter(|| {
                for batch in black_box(&batches) {
                    black_box(naive_decode(batch));
                }
            });
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------

/// Every iteration runs over a whole input (0.1 to 20 ms), so each sample times a fixed number
/// of them (flat sampling) rather than a growing one: the slope fit buys nothing at that size.
fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    group
}

/// Short runs: each benchmark costs ~4 s, so the whole suite stays around a minute and a half
/// on two noisy cores. Command-line flags (`--measurement-time`, `--sample-size`, ...) override.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_splitter, bench_counter, bench_decode
}
criterion_main!(benches);
