//! Where the lines JS holds were in the file, told only when JS asks (`reader.position`,
//! `lineNumber`, `lineOffset`, numbered batches): the places of the batches handed to JS last,
//! recorded as each becomes a JS value and numbered in that order, so a batch read ahead does
//! not count until JS has it, and JS asks for the one its cursor holds.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use fastlines_core::{Batch, KeptLines, LineLayout, NotOneText, Text};
use napi::bindgen_prelude::{sys, Float64Array, Result, ToNapiValue, TypeName, ValueType};
use napi_derive::napi;

use crate::text::{JsText, Lending};

/// How JS measures a line's bytes from its text (see [`LineLayout::Uniform`]).
#[napi(string_enum = "lowercase")]
pub enum NativeMeasure {
    /// One byte per character: ASCII, or Latin-1; or per element of a batch left as bytes.
    Chars,
    /// The text's UTF-8 length.
    Utf8,
}

/// Where the batch JS holds was in the file: `start` and `end` (just past its last line), and
/// either `terminatorLength` (every line took its measured text plus this many bytes) or
/// `lineEnds` (where each line ended, from `start`). A filtered batch also lists its lines'
/// `lineNumbers` and `lineStarts` (from `start`); an unfiltered one's lines are consecutive.
/// For `readJsonLines`, `notOneText` lists the lines not shaped like one JSON text (by index),
/// and `notOneTextStarts` where each starts in the batch's bytes (before it was decoded), if any is.
#[napi(object)]
pub struct NativeBatchPlace {
    pub start: f64,
    pub end: f64,
    pub measure: NativeMeasure,
    pub terminator_length: Option<u32>,
    pub line_ends: Option<Float64Array>,
    pub line_numbers: Option<Float64Array>,
    pub line_starts: Option<Float64Array>,
    pub not_one_text: Option<Float64Array>,
    pub not_one_text_starts: Option<Float64Array>,
}

/// A batch's place, kept natively until JS asks for it.
#[derive(Debug, Clone)]
struct Place {
    start: u64,
    end: u64,
    one_byte: bool,
    layout: LineLayout,
    kept: Option<KeptLines>,
    not_one_text: Option<NotOneText>,
}

impl Place {
    /// No line yet, at `offset`.
    fn empty_at(offset: u64) -> Place {
        Place {
            start: offset,
            end: offset,
            one_byte: true,
            layout: LineLayout::Uniform { terminator_len: 1 },
            kept: None,
            not_one_text: None,
        }
    }

    fn to_js(&self) -> NativeBatchPlace {
        let (terminator_length, line_ends) = match &self.layout {
            LineLayout::Uniform { terminator_len } => (Some(u32::from(*terminator_len)), None),
            LineLayout::Ends(ends) => (None, Some(float64_array(ends))),
        };
        NativeBatchPlace {
            start: self.start as f64,
            end: self.end as f64,
            measure: if self.one_byte {
                NativeMeasure::Chars
            } else {
                NativeMeasure::Utf8
            },
            terminator_length,
            line_ends,
            line_numbers: self.kept.as_ref().map(|kept| float64_array(&kept.numbers)),
            line_starts: self.kept.as_ref().map(|kept| float64_array(&kept.starts)),
            not_one_text: self.not_one_text.as_ref().map(|not| {
                Float64Array::new(not.indexes.iter().map(|&line| f64::from(line)).collect())
            }),
            // Asked for only when a line is listed: an empty array would be made for nothing.
            not_one_text_starts: self
                .not_one_text
                .as_ref()
                .filter(|not| !not.starts.is_empty())
                .map(|not| float64_array(&not.starts)),
        }
    }
}

/// Offsets and counts as JS numbers: exact up to 2^53, past any file.
fn float64_array(values: &[u64]) -> Float64Array {
    Float64Array::new(values.iter().map(|&value| value as f64).collect())
}

/// The places of the batches a reader handed to JS last, by serial number: the first batch
/// is 1, and 0 stands for where reading started, before any.
///
/// A JS reader makes a batch a JS value before its cursor takes it, across an `await`, so a
/// step queued behind the one in progress may have made the next batch a value already while
/// JS still hands out the lines of the one before: the last [`KEPT_PLACES`] are kept.
#[derive(Debug, Clone, Default)]
pub struct LastBatch(Arc<Mutex<Recent>>);

/// How many places [`LastBatch`] keeps: the cursor's batch and the one made after it.
const KEPT_PLACES: usize = 2;

#[derive(Debug, Default)]
struct Recent {
    /// How many batches were handed to JS: the serial number of the last one.
    handed: u64,
    /// The places of the last few, the last one at the back.
    places: VecDeque<Place>,
}

impl LastBatch {
    /// The place of the batch with serial number `serial`, if it is one of the last handed
    /// out; for 0, an empty batch where reading started (`started_at`), if that is known yet.
    pub fn to_js(&self, serial: u32, started_at: Option<u64>) -> Option<NativeBatchPlace> {
        if serial == 0 {
            return started_at.map(|offset| Place::empty_at(offset).to_js());
        }
        let recent = self.recent();
        let back = recent.handed.checked_sub(u64::from(serial))?;
        let index = recent
            .places
            .len()
            .checked_sub(1 + usize::try_from(back).ok()?)?;
        Some(recent.places[index].to_js())
    }

    fn push(&self, place: Place) {
        let mut recent = self.recent();
        recent.handed += 1;
        if recent.places.len() == KEPT_PLACES {
            recent.places.pop_front();
        }
        recent.places.push_back(place);
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How a reader makes its batches into JS strings that record their place here.
    pub fn maker(&self, lending: Option<Lending>) -> impl Fn(Batch) -> JsBatch {
        let last = self.clone();
        move |batch| JsBatch {
            place: Place {
                start: batch.start,
                end: batch.end,
                one_byte: matches!(batch.text, Text::OneByte(_) | Text::Ascii { .. }),
                layout: batch.layout,
                kept: batch.kept,
                not_one_text: batch.not_one_text,
            },
            text: JsText {
                text: batch.text,
                lending,
            },
            last: last.clone(),
        }
    }
}

/// A batch on its way to JS: a string, whose place is numbered and kept once JS gets it.
pub struct JsBatch {
    text: JsText,
    place: Place,
    last: LastBatch,
}

impl TypeName for JsBatch {
    fn type_name() -> &'static str {
        JsText::type_name()
    }

    fn value_type() -> ValueType {
        JsText::value_type()
    }
}

impl ToNapiValue for JsBatch {
    /// # Safety
    /// Called by napi on the JS thread with a live `env`, as the trait requires.
    unsafe fn to_napi_value(env: sys::napi_env, batch: Self) -> Result<sys::napi_value> {
        batch.last.push(batch.place);
        // SAFETY: the same call, with the same `env` (trait contract).
        unsafe { JsText::to_napi_value(env, batch.text) }
    }
}
