//! Filtering: keeping the lines of a run that contain any of some strings (or, inverted, none
//! of them), found by searching the whole run at once rather than line by line, ripgrep's way:
//! `memmem` for one string, Aho-Corasick for several or for ASCII case-insensitive matching.
//! Each match is widened to its line; the lines between matches are skipped (or, inverted,
//! kept) whole. Only the lines kept go on to be decoded.
//!
//! The search runs on the bytes, before decoding, and still gives exactly the lines whose
//! decoded text `includes` one of the strings: a string encoded as the file is (UTF-8, or
//! Latin-1 for `encoding: 'latin1'`) matches the bytes of a line exactly where it matches its
//! text, since a decoder replaces invalid bytes without ever taking a valid character's bytes
//! with them. The one exception, a string holding U+FFFD (which invalid bytes decode to), is
//! checked on the decoded text of the lines that are not valid UTF-8.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::Hash;
use std::ops::Range;

use memchr::memmem;
use memchr::{memchr, memchr_iter, memrchr};

use crate::decode::Encoding;
use crate::split::count_newlines;

/// What a filter looks for, as JS gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The strings, at least one, none empty.
    pub strings: Vec<String>,
    /// ASCII letters match either case (as `grep -i` in the C locale); other characters as
    /// they are.
    pub ignore_case: bool,
    /// Keep the lines that contain none of the strings.
    pub invert: bool,
}

/// `items` without repeats by `key`, first ones kept: an Aho-Corasick automaton gives each
/// repeated needle a match of its own at every place the string occurs, so 100,000 copies of one
/// string took 7 s over a 7 MB log where one took 4 ms; and each repeated U+FFFD string was
/// looked for again in every line with invalid UTF-8.
fn distinct<T, K: Eq + Hash>(items: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = HashSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(key(item)))
        .collect()
}

/// `bytes` as a search compares them: ASCII letters in lower case with `ignore_case`.
fn folded(bytes: &[u8], ignore_case: bool) -> Vec<u8> {
    if ignore_case {
        bytes.to_ascii_lowercase()
    } else {
        bytes.to_vec()
    }
}

/// Keeps the lines of a run that match (see the module docs).
#[derive(Debug, Clone)]
pub struct LineFilter {
    /// `None`: no string can occur in a line (each holds a terminator, or, in Latin-1, a
    /// character above U+00FF), so no line matches.
    searcher: Option<Searcher>,
    /// The strings holding U+FFFD, checked on the decoded text of lines with invalid UTF-8:
    /// each once, its ASCII letters in lower case with `ignore_case`.
    replacement: Vec<String>,
    ignore_case: bool,
    invert: bool,
}

#[derive(Debug, Clone)]
enum Searcher {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Searcher {
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            Searcher::One(finder) => finder.find(haystack),
            Searcher::Many(automaton) => automaton.find(haystack).map(|found| found.start()),
        }
    }
}

/// Above this many bytes of strings, the search is a contiguous NFA, not a DFA.
///
/// aho-corasick builds a DFA for up to 100 strings, and fills in each state's transitions by
/// walking its chain of failure links: as deep as the state for a repetitive string, so
/// `'a'.repeat(20_000) + 'b'` took 2.5 s to build, on the JS thread, as the reader was made
/// (and 100 strings of 5,000 bytes took 244 MB). Up to this size a DFA builds in a millisecond
/// at worst (`'a'.repeat(256)`: 0.9 ms; 1,024 bytes: 12 ms); past it, the NFA builds in linear
/// time and space (20,000 bytes: 4.5 ms) and searches a little slower.
const DFA_STRING_BYTES: usize = 256;

/// The automaton to search for `strings` with: aho-corasick's own choice (a DFA, for a few
/// strings) unless they are long (see [`DFA_STRING_BYTES`]).
fn automaton_kind(strings: &[Vec<u8>]) -> Option<AhoCorasickKind> {
    let bytes: usize = strings.iter().map(Vec::len).sum();
    (bytes > DFA_STRING_BYTES).then_some(AhoCorasickKind::ContiguousNFA)
}

impl LineFilter {
    /// A filter for `what` in a file of `encoding`.
    pub fn new(what: &Match, encoding: Encoding) -> LineFilter {
        let needles: Vec<Vec<u8>> = what
            .strings
            .iter()
            .filter_map(|string| encode(string, encoding))
            .filter(|bytes| !holds_terminator(bytes))
            .collect();
        let needles = distinct(needles, |needle| folded(needle, what.ignore_case));
        let searcher = match needles.as_slice() {
            [] => None,
            [one] if !what.ignore_case => Some(Searcher::One(Box::new(
                memmem::Finder::new(one).into_owned(),
            ))),
            many => Some(Searcher::Many(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(what.ignore_case)
                    .match_kind(MatchKind::LeftmostFirst)
                    .kind(automaton_kind(many))
                    .build(many)
                    .expect("a few literal strings always build"),
            )),
        };
        let replacement = match encoding {
            Encoding::Utf8 => {
                let strings = what
                    .strings
                    .iter()
                    .filter(|string| {
                        string.contains('\u{fffd}') && !holds_terminator(string.as_bytes())
                    })
                    .map(|string| {
                        if what.ignore_case {
                            string.to_ascii_lowercase()
                        } else {
                            string.clone()
                        }
                    })
                    .collect();
                distinct(strings, String::clone)
            }
            Encoding::Latin1 => Vec::new(),
        };
        LineFilter {
            searcher,
            replacement,
            ignore_case: what.ignore_case,
            invert: what.invert,
        }
    }

    /// Appends to `kept` the lines of `run` (complete lines, each ending with `\n`, as the
    /// splitter cuts them) that the filter keeps, in order and in the same form, and to
    /// `lines` where each was in the run. Returns how many lines `run` holds: counted on the
    /// way, so that the caller numbers lines without a pass of its own.
    pub fn keep(&self, run: &[u8], kept: &mut Vec<u8>, lines: &mut Vec<KeptLine>) -> u64 {
        self.each_kept(run, Numbering::On, |range, first, count| {
            kept.extend_from_slice(&run[range.clone()]);
            if count == 1 {
                lines.push(KeptLine {
                    index: first,
                    range,
                });
                return;
            }
            let mut start = range.start;
            for (i, newline) in memchr_iter(b'\n', &run[range.clone()]).enumerate() {
                let end = range.start + newline + 1;
                lines.push(KeptLine {
                    index: first + i as u64,
                    range: start..end,
                });
                start = end;
            }
        })
    }

    /// How many lines of `run` (as for [`Self::keep`]) the filter keeps.
    pub fn count(&self, run: &[u8]) -> u64 {
        let mut kept = 0;
        self.each_kept(run, Numbering::Off, |_, _, count| kept += count);
        kept
    }

    /// Calls `on_kept(bytes, first, count)` for each stretch of kept lines of `run`, in order:
    /// their bytes, the index of the first in the run (with [`Numbering::On`]; else 0), and how
    /// many there are. Returns how many lines `run` holds (with [`Numbering::On`]; else 0).
    fn each_kept(
        &self,
        run: &[u8],
        numbering: Numbering,
        mut on_kept: impl FnMut(Range<usize>, u64, u64),
    ) -> u64 {
        let mut counter = LineCounter {
            numbering,
            ..LineCounter::default()
        };
        let mut ahead = MatchAhead::default();
        let mut at = 0;
        while at < run.len() {
            let (start, end) = match self.next_match(run, at, &mut ahead) {
                Some(found) => line_around(run, found),
                None => (run.len(), run.len()),
            };
            if self.invert && at < start {
                // The lines before the matching one are kept, the matching one is not.
                let (first, count) = counter.stretch(run, at, start);
                on_kept(at..start, first, count);
            } else if !self.invert && start < end {
                on_kept(start..end, counter.index_at(run, start), 1);
            }
            if start == run.len() {
                break;
            }
            at = end;
        }
        counter.index_at(run, run.len())
    }

    /// Where the next matching line from `at` (a line start) has a match, if one has; `ahead`
    /// keeps the search's last find in this run.
    fn next_match(&self, run: &[u8], at: usize, ahead: &mut MatchAhead) -> Option<usize> {
        let by_bytes = ahead.from(at, || Some(at + self.searcher.as_ref()?.find(&run[at..])?));
        if self.replacement.is_empty() {
            return by_bytes;
        }
        // Strings holding U+FFFD: the first line from `at` that matches either way.
        let mut line_start = at;
        while line_start < run.len() {
            let line_end =
                memchr(b'\n', &run[line_start..]).map_or(run.len(), |i| line_start + i + 1);
            if by_bytes.is_some_and(|found| found < line_end) {
                return by_bytes;
            }
            if self.replacement_matches(&run[line_start..line_end]) {
                return Some(line_start);
            }
            line_start = line_end;
        }
        None
    }

    /// Whether `line` (with its `\n`), not valid UTF-8, holds one of the U+FFFD strings once its
    /// text is decoded, the terminator left out as the line's string leaves it out.
    fn replacement_matches(&self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if std::str::from_utf8(line).is_ok() {
            return false;
        }
        let text = String::from_utf8_lossy(line);
        let text = if self.ignore_case {
            Cow::Owned(text.to_ascii_lowercase())
        } else {
            text
        };
        self.replacement
            .iter()
            .any(|string| text.contains(string.as_str()))
    }
}

/// The first match of a filter's byte search at or after where it last looked in a run, kept
/// while it lies ahead. The search for U+FFFD strings steps through the lines before it one at a
/// time, and looking again from each of them made a run's search quadratic: a 4 MiB read of
/// lines with invalid UTF-8 took 5 s to search for `\u{FFFD}` where one for `a` took 76 ms.
#[derive(Debug, Default)]
struct MatchAhead {
    /// Where the search last looked from, and the first match at or after it.
    last: Option<(usize, Option<usize>)>,
}

impl MatchAhead {
    /// The first match at or after `at`, as `search` (from `at`) finds it: the last find when it
    /// looked from at or before `at` and found nothing before `at`, since nothing lies between.
    fn from(&mut self, at: usize, search: impl FnOnce() -> Option<usize>) -> Option<usize> {
        if let Some((from, found)) = self.last {
            if from <= at && found.is_none_or(|found| found >= at) {
                return found;
            }
        }
        let found = search();
        self.last = Some((at, found));
        found
    }
}

/// Whether a string's bytes hold a terminator: no line holds one, so such a string never
/// matches (and must not be looked for in a run, whose lines all end with `\n`).
fn holds_terminator(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b == b'\n' || b == b'\r')
}

/// The bytes `string` stands for in a file of `encoding`; `None` if no byte sequence of that
/// encoding decodes to it (Latin-1 has nothing above U+00FF).
fn encode(string: &str, encoding: Encoding) -> Option<Vec<u8>> {
    match encoding {
        Encoding::Utf8 => Some(string.as_bytes().to_vec()),
        Encoding::Latin1 => string
            .chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect(),
    }
}

/// A line a filter kept: its index in the run (0 for the run's first line), and its bytes
/// there, terminator included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLine {
    pub index: u64,
    pub range: Range<usize>,
}

/// The line of `run` around byte `at`: from after the `\n` before it to past the `\n` after it.
fn line_around(run: &[u8], at: usize) -> (usize, usize) {
    let start = memrchr(b'\n', &run[..at]).map_or(0, |i| i + 1);
    let end = memchr(b'\n', &run[at..]).map_or(run.len(), |i| at + i + 1);
    (start, end)
}

/// Whether a filter numbers the lines it keeps: counting every line of a run is a pass over
/// it as long as the search, which a count of matching lines does without.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Numbering {
    #[default]
    On,
    Off,
}

/// The index of the line at an offset of a run, counted forward as the filter moves through it.
#[derive(Debug, Default)]
struct LineCounter {
    numbering: Numbering,
    offset: usize,
    index: u64,
}

impl LineCounter {
    /// The index of the line starting at `offset`, at or after the last one asked for (0
    /// without numbering).
    fn index_at(&mut self, run: &[u8], offset: usize) -> u64 {
        if self.numbering == Numbering::Off {
            return 0;
        }
        self.index += count_newlines(&run[self.offset..offset]);
        self.offset = offset;
        self.index
    }

    /// The index of the line starting at `from` (0 without numbering) and how many lines
    /// `from..to` holds: counted once, as the numbering moves on to `to`.
    fn stretch(&mut self, run: &[u8], from: usize, to: usize) -> (u64, u64) {
        if self.numbering == Numbering::Off {
            return (0, count_newlines(&run[from..to]));
        }
        let first = self.index_at(run, from);
        (first, self.index_at(run, to) - first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filter for `strings` in UTF-8 text.
    fn filter(strings: &[&str], ignore_case: bool) -> LineFilter {
        let what = Match {
            strings: strings.iter().map(|s| s.to_string()).collect(),
            ignore_case,
            invert: false,
        };
        LineFilter::new(&what, Encoding::Utf8)
    }

    fn patterns(strings: &[&str], ignore_case: bool) -> usize {
        match filter(strings, ignore_case).searcher {
            Some(Searcher::Many(automaton)) => automaton.patterns_len(),
            Some(Searcher::One(_)) => 1,
            None => 0,
        }
    }

    #[test]
    fn repeated_strings_are_searched_for_once() {
        assert_eq!(patterns(&["ERROR"; 100_000], false), 1);
        assert_eq!(patterns(&["ERROR", "WARN", "ERROR"], false), 2);
        assert_eq!(patterns(&["error", "ERROR", "Error"], true), 1);
        assert_eq!(patterns(&["error", "ERROR"], false), 2);
        assert_eq!(patterns(&["é", "É"], true), 2, "ASCII letters only fold");
    }

    #[test]
    fn long_strings_are_searched_for_with_an_automaton_built_in_linear_time() {
        let kind = |filter: &LineFilter| match &filter.searcher {
            Some(Searcher::Many(automaton)) => Some(automaton.kind()),
            _ => None,
        };
        let repetitive = format!("{}b", "a".repeat(20_000));
        for (strings, ignore_case) in [(vec![&*repetitive, "c"], false), (vec![&*repetitive], true)]
        {
            let long = filter(&strings, ignore_case);
            assert_eq!(kind(&long), Some(AhoCorasickKind::ContiguousNFA));
            let upper = repetitive.to_uppercase();
            let text = format!("{}\nx{repetitive}x\nx{upper}x\n", "a".repeat(30_000));
            assert_eq!(long.count(text.as_bytes()), 1 + u64::from(ignore_case));
        }
        let short = filter(&["ERROR", "WARN"], false);
        assert_eq!(
            kind(&short),
            Some(AhoCorasickKind::DFA),
            "aho-corasick's own choice"
        );
    }

    #[test]
    fn repeated_replacement_strings_are_checked_once() {
        let replacement = |strings: &[&str], ignore_case| filter(strings, ignore_case).replacement;
        assert_eq!(replacement(&["x\u{fffd}"; 10_000], false), ["x\u{fffd}"]);
        assert_eq!(replacement(&["X\u{fffd}", "x\u{fffd}"], false).len(), 2);
        assert_eq!(
            replacement(&["X\u{fffd}", "x\u{fffd}"], true),
            ["x\u{fffd}"]
        );
    }

    #[test]
    fn a_match_ahead_is_searched_for_again_only_once_passed() {
        let matches = [60, 90];
        let first_from = |at: usize| matches.into_iter().find(|&found| found >= at);
        let mut ahead = MatchAhead::default();
        let mut searches = 0;
        for at in 0..120 {
            let found = ahead.from(at, || {
                searches += 1;
                first_from(at)
            });
            assert_eq!(found, first_from(at), "from {at}");
        }
        assert_eq!(
            searches, 3,
            "from 0 (finds 60), 61 (finds 90) and 91 (finds none)"
        );
    }

    /// The lines of `run` that a filter for `strings` keeps.
    fn kept(strings: &[&str], run: &[u8]) -> Vec<u8> {
        let (mut kept, mut lines) = (Vec::new(), Vec::new());
        filter(strings, false).keep(run, &mut kept, &mut lines);
        kept
    }

    #[test]
    fn a_replacement_string_with_a_terminator_matches_no_line() {
        let run = b"a\xff\nb\xff\nc\n";
        assert_eq!(kept(&["\u{fffd}\n"], run), b"");
        assert_eq!(kept(&["a\u{fffd}\n", "\u{fffd}\r"], run), b"");
        assert_eq!(kept(&["\u{fffd}"], run), b"a\xff\nb\xff\n");
        assert_eq!(kept(&["a\u{fffd}"], run), b"a\xff\n");
    }
}
