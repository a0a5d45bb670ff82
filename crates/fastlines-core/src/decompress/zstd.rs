//! zstd: frames one after another, skippable frames passed over, decoded by libzstd (the library
//! Node's `zlib` runs for zstd) through zstd-safe's safe API.

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use super::{DecompressError, Failed, Step};

/// Decodes zstd frames until the input ends; bytes that are not a frame fail, as for `zstd -d`.
pub(super) struct Zstd {
    context: DCtx<'static>,
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
            in_frame: true,
        }
    }

    pub(super) fn decode(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step, Failed> {
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
