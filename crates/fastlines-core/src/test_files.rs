//! Files for the unit tests: anonymous temporary files holding given bytes.

use std::fs::File;
use std::io::{Seek, Write};

/// An anonymous temporary file (unlinked at once, so nothing is left behind) holding `bytes`,
/// positioned at its start.
pub(crate) fn file_of(bytes: &[u8]) -> File {
    let path = std::env::temp_dir().join(format!(
        "fastlines-test-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    file.write_all(bytes).unwrap();
    file.rewind().unwrap();
    file
}
