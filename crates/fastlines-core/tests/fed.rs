//! A fed stream's consumer that waits (`ReadStream::next_or_starved`, what JS's `read()` of a
//! byte source awaits) is always answered: with an item, the end, or `Starved` once the
//! background task has framed all it was fed and sent nothing. A wait that outlived its source's
//! last chunk is what kept abandoned readers of quiet sources alive: a JS step waiting natively
//! is held by the engine until it settles.

use std::sync::mpsc;
use std::time::Duration;

use fastlines_core::{
    fed, Batch, Encoding, Feed, LineFramer, ReadStream, Source, Text, TryNext, FRAME_HERE_BYTES,
};

/// Runs `test` on a runtime of two workers on a thread of its own, and gives its outcome; a
/// hang fails after a minute (the test takes milliseconds).
fn settles<T: Send + 'static>(test: impl std::future::Future<Output = T> + Send + 'static) -> T {
    let (done, outcome) = mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("runtime");
        let _ = done.send(runtime.block_on(test));
    });
    outcome
        .recv_timeout(Duration::from_secs(60))
        .expect("every wait settled")
}

/// What a wait gave, as text: a batch's lines, "end", or "starved".
fn described(next: TryNext<Batch>) -> String {
    match next {
        TryNext::Ready(Some(Ok(batch))) => match batch.text {
            Text::OneByte(bytes) | Text::Ascii { bytes, .. } => {
                String::from_utf8(bytes.to_vec()).expect("ASCII")
            }
            Text::Utf16(units) => String::from_utf16(&units).expect("UTF-16"),
        },
        TryNext::Ready(Some(Err(err))) => format!("failed: {err}"),
        TryNext::Ready(None) => "end".to_owned(),
        TryNext::Wait => "wait".to_owned(),
        TryNext::Starved => "starved".to_owned(),
    }
}

/// A fed stream of lines, read 64 KiB at a time, and its feed. Inside a Tokio runtime.
fn fed_lines() -> (Feed, ReadStream<Batch>) {
    let (feed, input) = fed(1024 * 1024, 64 * 1024);
    let stream = ReadStream::fed(
        Source::new(input, None, 64 * 1024),
        LineFramer::new(Encoding::Utf8),
    );
    (feed, stream)
}

/// What the next wait of `stream`'s consumer gives (see [`described`]).
async fn wait(stream: &ReadStream<Batch>) -> String {
    described(stream.next_or_starved().await)
}

#[test]
fn a_waiting_consumer_is_told_to_feed_once_all_it_fed_completes_no_line() {
    let steps = settles(async {
        let (feed, stream) = fed_lines();
        // More than the consumer frames on its own thread: the background task frames it.
        feed.push(&vec![b'x'; FRAME_HERE_BYTES + 1000]);
        let mut steps = vec![wait(&stream).await, wait(&stream).await];
        feed.push(b"y\nlast");
        feed.end();
        for _ in 0..3 {
            steps.push(wait(&stream).await);
        }
        steps
    });
    let line = format!("{}y", "x".repeat(FRAME_HERE_BYTES + 1000));
    assert_eq!(steps, ["starved", "starved", &line, "last", "end"]);
}

#[test]
fn a_waiting_consumer_gets_what_the_background_frames_and_then_the_end() {
    let lines = "line\n".repeat(FRAME_HERE_BYTES / 5 + 100);
    let fed_lines_text = lines.clone();
    let steps = settles(async move {
        let (feed, stream) = fed_lines();
        feed.push(fed_lines_text.as_bytes());
        let mut steps = vec![wait(&stream).await, wait(&stream).await];
        feed.end();
        steps.push(wait(&stream).await);
        steps
    });
    assert_eq!(
        steps,
        [lines.trim_end_matches('\n'), "starved", "end"],
        "the lines, then a wait that finds all framed and sent, then the end"
    );
}
