//! The bounders' two options, `keep` and `terminal`: what they do while the
//! input streams in, and what they leave for the preview at the end.
//!
//! Both act on the *rendered* input (the raw bytes when `terminal` is off):
//! the terminal renderer turns the raw chunks into rendered ones, raw line
//! for raw line (a line whose row was rewritten given out as hidden: an
//! empty line to the matcher, a gap in the bounder's numbering), the
//! matcher reads the rendered lines, and the bounder keeps the
//! rendered head and tail. At the end a bounder with an option on bounds the
//! rendered input at its limits less the room of what the options add — the
//! terminal line, then (at render) the kept section — so the hard ceiling
//! holds, and the whole-input bounder is this very streaming path.
//!
//! Here: the options and their state while the input streams in, and what
//! they leave at its end ([`Extras`]); the bounding with those additions is
//! in the `bounded` module.

use super::keep::{Keep, Matches};
use super::limits::Limits;
use super::terminal::{Out, TermCounts, Terminal};

/// The options of a bounder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct Shape {
    pub(crate) keep: Keep,
    pub(crate) terminal: bool,
}

impl Shape {
    /// Whether both options are off (the bounder is the plain one).
    pub(crate) fn is_off(&self) -> bool {
        self.keep.is_none() && !self.terminal
    }
}

/// The options' state in a streaming bounder.
#[derive(Debug, Clone)]
pub(crate) struct Shaper {
    terminal: Option<Terminal>,
    matches: Option<Matches>,
    /// The terminal's rendered lines gathered during one push, given out
    /// as one piece (empty between pushes).
    block: Vec<u8>,
}

/// The most bytes [`Shaper::block`] gathers.
const BLOCK_BYTES: usize = 4096;

impl Shaper {
    /// The state for `shape` at `limits`; `None` when both are off.
    pub(crate) fn new(shape: &Shape, limits: Limits) -> Option<Box<Shaper>> {
        if shape.is_off() {
            return None;
        }
        Some(Box::new(Shaper {
            terminal: shape
                .terminal
                .then(|| Terminal::new(limits.head_window().max(super::keep::SCAN_BYTES))),
            matches: (!shape.keep.is_none()).then(|| Matches::new(shape.keep.clone(), limits)),
            block: Vec::new(),
        }))
    }

    /// Bytes of buffer held.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.matches.as_ref().map_or(0, Matches::retained_bytes)
            + self.terminal.as_ref().map_or(0, Terminal::retained_bytes)
            + self.block.capacity()
    }

    /// Renders `chunk` (written by a push tagged `tag`), giving each
    /// rendered piece to `out`.
    pub(crate) fn push(&mut self, chunk: &[u8], tag: bool, out: &mut dyn FnMut(Out<'_>)) {
        let matches = &mut self.matches;
        match &mut self.terminal {
            Some(t) => {
                t.set_tag(tag);
                let mut gather = Gather {
                    block: &mut self.block,
                    tag,
                };
                t.push(chunk, &mut |o| gather.add(o, matches, out));
                gather.flush(matches, out);
            }
            None => {
                if let Some(m) = matches.as_mut() {
                    m.push(chunk);
                }
                out(Out::Text(chunk, tag));
            }
        }
    }

    /// Ends the input: the rest of the rendering to `out`, and what the
    /// options add at the end.
    pub(crate) fn finish(mut self, out: &mut dyn FnMut(Out<'_>)) -> Extras {
        let matches = &mut self.matches;
        if let Some(t) = &mut self.terminal {
            let mut gather = Gather {
                block: &mut self.block,
                tag: false,
            };
            t.finish(&mut |o| gather.add(o, matches, out));
            gather.flush(matches, out);
        }
        if let Some(m) = &mut self.matches {
            m.finish();
        }
        Extras {
            term: self.terminal.as_ref().map(Terminal::counts),
            matches: self.matches,
        }
    }
}

/// The terminal's small pieces of one tag, gathered into one (fewer,
/// larger pieces for the matcher and the bounder; the same bytes in the
/// same order, all given out before the push returns).
struct Gather<'a> {
    block: &'a mut Vec<u8>,
    /// The tag of the gathered bytes.
    tag: bool,
}

impl Gather<'_> {
    fn add(&mut self, o: Out<'_>, matches: &mut Option<Matches>, out: &mut dyn FnMut(Out<'_>)) {
        match o {
            Out::Text(b, tag) if b.len() < BLOCK_BYTES => {
                if tag != self.tag || self.block.len() + b.len() > BLOCK_BYTES {
                    self.flush(matches, out);
                }
                if self.block.capacity() < BLOCK_BYTES {
                    self.block.reserve_exact(BLOCK_BYTES - self.block.len());
                }
                self.block.extend_from_slice(b);
                self.tag = tag;
            }
            _ => {
                self.flush(matches, out);
                feed(matches, o);
                out(o);
            }
        }
    }

    /// Gives out what is gathered.
    fn flush(&mut self, matches: &mut Option<Matches>, out: &mut dyn FnMut(Out<'_>)) {
        if self.block.is_empty() {
            return;
        }
        let o = Out::Text(self.block, self.tag);
        feed(matches, o);
        out(o);
        self.block.clear();
    }
}

/// Gives the matcher what the terminal gave out: a hidden raw line is an
/// empty line to it, so that its line numbers stay the raw input's.
fn feed(matches: &mut Option<Matches>, o: Out<'_>) {
    let Some(m) = matches.as_mut() else {
        return;
    };
    match o {
        Out::Text(b, _) => m.push(b),
        Out::Hidden(mut n) => {
            const NEWLINES: [u8; 256] = [b'\n'; 256];
            while n > 0 {
                let k = n.min(NEWLINES.len() as u64) as usize;
                m.push(&NEWLINES[..k]);
                n -= k as u64;
            }
        }
    }
}

/// What a finished input's options add to its preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Extras {
    /// The terminal's counts (`Some` when `terminal` is on).
    pub(super) term: Option<TermCounts>,
    pub(super) matches: Option<Matches>,
}
