//! The background stream's promise about files: however a stream ends, its file is closed.
//! Checked through /proc/self/fd, so on Linux.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use fastlines_core::{Batch, Decompress, Encoding, LineFramer, ReadError, ReadOptions, ReadStream};

/// A file in the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, content: &[u8]) -> Self {
        let path =
            std::env::temp_dir().join(format!("fastlines-core-{}-{name}", std::process::id()));
        std::fs::write(&path, content).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Whether this process has `path` open, from /proc/self/fd.
fn is_open(path: &Path) -> bool {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .any(|target| target == path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_sent_into_a_full_channel_still_closes_the_file() {
    // Two 512 KiB reads of whole lines fill the channel (it holds two); the third read is all
    // of a line over the limit, so its error meets the full channel.
    let mut content = b"a line of 16 b.\n".repeat(65_536);
    content.extend(vec![b'x'; 300_000]);
    let file = TempFile::new("full-channel-error", &content);
    let options = ReadOptions {
        start: 0,
        end: None,
        chunk_size: 512 * 1024,
        decompress: Decompress::Off,
        share: None,
    };
    let framer = LineFramer::new(Encoding::Utf8).with_max_line_length(Some(100_000));
    let stream: ReadStream<Batch> = ReadStream::spawn(file.0.clone(), options, framer);
    // Let the reads run ahead until the channel is full before taking anything.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut batches = 0;
    let error = loop {
        match stream.next().await {
            Some(Ok(_)) => batches += 1,
            Some(Err(err)) => break err,
            None => panic!("the stream ended without the error"),
        }
    };
    assert_eq!(
        error,
        ReadError::LineTooLong {
            max_line_length: 100_000
        }
    );
    assert!(batches >= 2);
    assert!(stream.next().await.is_none());
    // Without close(): the producer drops the file before the channel, so by the time the
    // stream has ended the file is closed.
    assert!(
        !is_open(&file.0),
        "the file is still open after the stream ended"
    );
}
