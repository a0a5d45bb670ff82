//! gzip: members of deflate data, one after another (`cat a.gz b.gz`, bgzip), each inflated by
//! zlib-rs, a port of the zlib Node's `zlib` runs, so damage gets zlib's own messages.

use zlib_rs::{Inflate, InflateFlush, Status};

use super::{DecompressError, Failed, Step};

/// zlib's window bits for a gzip member: the largest window (15), plus 16 for the gzip header
/// and trailer instead of zlib's.
const GZIP_WINDOW_BITS: u8 = 16 + 15;

/// The two bytes every gzip member starts with.
const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Decodes gzip members, deciding what follows each one as `gzip -d` does.
pub(super) struct Gzip {
    /// The member being inflated; `None` between members. (zlib-rs' `reset` would forget the
    /// gzip window bits, so each member gets a new one.)
    member: Option<Inflate>,
    /// Bytes after the last member that do not start another: `gzip -d` ignores them ("trailing
    /// garbage ignored", or zeros, which it ignores silently), and so is everything after.
    ignoring: bool,
}

impl std::fmt::Debug for Gzip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gzip")
            .field("in_member", &self.member.is_some())
            .field("ignoring", &self.ignoring)
            .finish()
    }
}

impl Gzip {
    /// A decoder expecting a member: an empty input is an unexpected end, as for `gzip -d`.
    pub(super) fn new() -> Self {
        Gzip {
            member: Some(Inflate::new(true, GZIP_WINDOW_BITS)),
            ignoring: false,
        }
    }

    pub(super) fn decode(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Failed> {
        if self.member.is_none() && !self.ignoring {
            self.after_member(input);
        }
        let Some(member) = &mut self.member else {
            let consumed = if self.ignoring { input.len() } else { 0 };
            return Ok(Step::consumed(consumed));
        };
        let (in_before, out_before) = (member.total_in(), member.total_out());
        let status = member.decompress(input, output, InflateFlush::NoFlush);
        let step = Step {
            consumed: (member.total_in() - in_before) as usize,
            produced: (member.total_out() - out_before) as usize,
        };
        match status {
            Ok(Status::StreamEnd) => {
                self.member = None;
                Ok(step)
            }
            Ok(Status::Ok | Status::BufError) => Ok(step),
            Err(err) => Err(Failed {
                step,
                error: DecompressError::zlib(member.error_message().unwrap_or(err.as_str())),
            }),
        }
    }

    /// What follows a member: another one if its magic is there, else bytes to ignore. Nothing
    /// is decided until enough bytes are there to tell.
    fn after_member(&mut self, input: &[u8]) {
        match input {
            [] | [0x1f] => {}
            [a, b, ..] if [*a, *b] == MAGIC => {
                self.member = Some(Inflate::new(true, GZIP_WINDOW_BITS));
            }
            _ => self.ignoring = true,
        }
    }

    /// At the end of the input, with `leftover` not consumed: an unexpected end inside a
    /// member, or after the first byte of one (as `gzip -d` sees a lone `1f`).
    pub(super) fn finish(&self, leftover: &[u8]) -> Result<(), DecompressError> {
        if self.member.is_some() || leftover == [MAGIC[0]] {
            return Err(DecompressError::UNEXPECTED_END);
        }
        Ok(())
    }
}
