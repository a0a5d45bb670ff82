//! zstd: frames one after another, skippable frames passed over, decoded by libzstd (the library
//! Node's `zlib` runs for zstd) through zstd-safe's safe API.

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::{DecompressError, Failed, Step};

/// The most output libzstd is given per call: Node's `zlib` default `chunkSize`. How libzstd
/// checks a damaged frame depends on the room it has (a frame whose stated size fits may be
/// decoded straight into the output), so decoding in the pieces Node uses gives the error code
/// Node gives for the same bytes.
const NODE_CHUNK_SIZE: usize = 16 * 1024;

/// Decodes zstd frames until the input ends; bytes that are not a frame fail, as for `zstd -d`.
pub(super) struct Zstd {
    context: DCtx<'static>,
    /// Output decoded into a piece of its own, when the caller had less room than a piece:
    /// `staged[given..]` is still to be handed out.
    staged: Vec<u8>,
    given: usize,
    /// Inside a frame (or before the first): the input may not end here. libzstd says a frame
    /// is done, its output all given, by returning 0 from a call that moved bytes.
    in_frame: bool,
}

impl std::fmt::Debug for Zstd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Zstd")
            .field("in_frame", &self.in_frame)
            .finish_non_exhaustive()
    }
}

impl Zstd {
    pub(super) fn new() -> Self {
        Zstd {
            context: DCtx::create(),
            staged: Vec::new(),
            given: 0,
            in_frame: true,
        }
    }

    /// Decodes into `output` in pieces of exactly [`NODE_CHUNK_SIZE`] as long as each piece
    /// fills up (once one does not, libzstd needs more input or a frame ended). Room for less
    /// than a piece gets a piece of its own, staged and handed out over the next calls.
    pub(super) fn decode(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Failed> {
        let mut step = Step::consumed(0);
        loop {
            step.produced += self.give_staged(&mut output[step.produced..]);
            let room = output.len() - step.produced;
            if room == 0 {
                return Ok(step);
            }
            let rest = &input[step.consumed..];
            let piece = if room >= NODE_CHUNK_SIZE {
                let into = &mut output[step.produced..step.produced + NODE_CHUNK_SIZE];
                self.decode_piece(rest, into)
            } else {
                self.stage_piece(rest)
            };
            let (moved, failed) = match piece {
                Ok(moved) => (moved, None),
                Err(Failed { step, error }) => (step, Some(error)),
            };
            step.consumed += moved.consumed;
            if room >= NODE_CHUNK_SIZE {
                step.produced += moved.produced;
            }
            if let Some(error) = failed {
                step.produced += self.give_staged(&mut output[step.produced..]);
                return Err(Failed { step, error });
            }
            if moved.produced < NODE_CHUNK_SIZE {
                step.produced += self.give_staged(&mut output[step.produced..]);
                return Ok(step);
            }
        }
    }

    /// Decodes one piece into the stage (empty when called).
    fn stage_piece(&mut self, input: &[u8]) -> Result<Step, Failed> {
        let mut staged = std::mem::take(&mut self.staged);
        staged.resize(NODE_CHUNK_SIZE, 0);
        let piece = self.decode_piece(input, &mut staged);
        let produced = match &piece {
            Ok(step) | Err(Failed { step, .. }) => step.produced,
        };
        staged.truncate(produced);
        self.staged = staged;
        self.given = 0;
        piece
    }

    /// Hands out what is staged, as much as `output` holds.
    fn give_staged(&mut self, output: &mut [u8]) -> usize {
        let staged = &self.staged[self.given..];
        let n = staged.len().min(output.len());
        output[..n].copy_from_slice(&staged[..n]);
        self.given += n;
        n
    }

    /// One call of libzstd.
    fn decode_piece(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Failed> {
        let mut input = InBuffer::around(input);
        let mut output = OutBuffer::around(output);
        let result = self.context.decompress_stream(&mut output, &mut input);
        let step = Step {
            consumed: input.pos,
            produced: output.pos(),
        };
        match result {
            // A call that moved nothing says nothing new: after a frame, libzstd given no input
            // hints at the next frame's header all the same.
            Ok(hint) => {
                if step.consumed > 0 || step.produced > 0 {
                    self.in_frame = hint != 0;
                }
                Ok(step)
            }
            Err(code) => Err(Failed {
                step,
                error: DecompressError::zstd(code),
            }),
        }
    }

    /// At the end of the input: an unexpected end inside a frame, or before any.
    pub(super) fn finish(&self) -> Result<(), DecompressError> {
        if self.in_frame {
            return Err(DecompressError::UNEXPECTED_END);
        }
        Ok(())
    }
}
