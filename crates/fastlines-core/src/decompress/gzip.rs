//! gzip: members of deflate data, one after another (`cat a.gz b.gz`, bgzip), each inflated by
//! zlib-ng, which inflates as the zlib Node's `zlib` runs does, so damage gets zlib's messages.

use flate2::{Decompress, FlushDecompress, Status};

use super::{DecompressError, Failed, Step};

/// zlib's window bits for a gzip member: the largest window, 15 (flate2 adds the 16 that asks
/// for the gzip header and trailer instead of zlib's).
const WINDOW_BITS: u8 = 15;

/// The two bytes every gzip member starts with.
const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Decodes gzip members; after the last, zeros pad, and anything else fails.
pub(super) struct Gzip {
    inflate: Decompress,
    /// Between members: what follows the last one is still to be looked at.
    between_members: bool,
    /// After the last member, a zero: padding, which `gzip -d` and Node's zlib ignore, as is
    /// every zero after it. A byte other than zero after it fails as other trailing bytes do.
    padding: bool,
}

impl std::fmt::Debug for Gzip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gzip")
            .field("between_members", &self.between_members)
            .field("padding", &self.padding)
            .finish_non_exhaustive()
    }
}

impl Gzip {
    /// A decoder expecting a member: an empty input is an unexpected end, as for `gzip -d`.
    pub(super) fn new() -> Self {
        Gzip {
            inflate: Decompress::new_gzip(WINDOW_BITS),
            between_members: false,
            padding: false,
        }
    }

    pub(super) fn decode(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Failed> {
        if self.between_members && !self.padding {
            self.after_member(input)?;
        }
        if self.padding {
            return match input.iter().position(|&byte| byte != 0) {
                None => Ok(Step::consumed(input.len())),
                Some(at) => Err(trailing_garbage(at)),
            };
        }
        if self.between_members {
            return Ok(Step::consumed(0));
        }
        let (in_before, out_before) = (self.inflate.total_in(), self.inflate.total_out());
        let status = self
            .inflate
            .decompress(input, output, FlushDecompress::None);
        let step = Step {
            consumed: (self.inflate.total_in() - in_before) as usize,
            produced: (self.inflate.total_out() - out_before) as usize,
        };
        match status {
            Ok(Status::StreamEnd) => {
                self.between_members = true;
                Ok(step)
            }
            Ok(Status::Ok | Status::BufError) => Ok(step),
            Err(err) => Err(Failed {
                step,
                error: DecompressError::zlib(err.message().unwrap_or("invalid data")),
            }),
        }
    }

    /// What follows a member: another one if its magic is there, padding if it is a zero, else
    /// a failure. Nothing is decided until enough bytes are there to tell.
    fn after_member(&mut self, input: &[u8]) -> Result<(), Failed> {
        match input {
            [0, ..] => {
                self.padding = true;
                Ok(())
            }
            // Any other byte may start a member, which its next byte tells (see `finish` for a
            // lone last one).
            [] | [_] => Ok(()),
            [a, b, ..] if [*a, *b] == MAGIC => {
                // Keeps the gzip window bits: a reset is zlib's inflateReset2 with them.
                self.inflate.reset(true);
                self.between_members = false;
                Ok(())
            }
            _ => Err(trailing_garbage(0)),
        }
    }

    /// At the end of the input, with `leftover` not consumed: an unexpected end inside a
    /// member, or after a lone byte that is not padding, which may be the first of one
    /// (`gzip -d` and Node's zlib say so too).
    pub(super) fn finish(&self, leftover: &[u8]) -> Result<(), DecompressError> {
        if !self.between_members || matches!(leftover, [byte] if *byte != 0) {
            return Err(DecompressError::UNEXPECTED_END);
        }
        Ok(())
    }
}

/// Bytes after the last member that neither start another nor pad, met `at` bytes into the
/// input: they fail as Node's zlib fails there ("incorrect header check"), after every line.
/// `gzip -d` ignores them and everything after, warning "trailing garbage ignored" and exiting
/// with status 2: a reader has no warning to give, and what follows them may be data (a member
/// after a stray byte), which ignoring would lose unseen.
fn trailing_garbage(at: usize) -> Failed {
    Failed {
        step: Step::consumed(at),
        error: DecompressError::zlib("incorrect header check"),
    }
}
