//! The bounders' two options, `keep` and `terminal`: what they do while the
//! input streams in, and what they add to a preview at the end.
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

use super::keep::{Keep, Matches};
use super::limits::{Limits, MIN_MAX_BYTES};
use super::result::{Notice, NoticeKind, Preview};
use super::spill::{Bounded, SpillOutcome};
use super::stream::Kept;
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
    term: Option<TermCounts>,
    matches: Option<Matches>,
}

/// What a pending spill's options add when it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpillExtras {
    /// The terminal line, with room reserved for it.
    term_line: Option<String>,
    /// The matches and the rendered input, bounded again beside a section.
    keep: Option<(Matches, Kept)>,
}

/// Lines of `text` (a last line without `\n` counts).
fn lines_of(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
        + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// [`Kept::bound`] for a kept input with options: `plain` is the rendered
/// input (without options).
pub(crate) fn bound(
    extras: &Extras,
    limits: Limits,
    plain: &Kept,
) -> Result<Bounded<'static>, crate::Error> {
    let bound_plain = |limits: Limits| plain.bound_plain(limits);
    // The terminal line: only when something changed and it takes at most a
    // quarter of max_bytes.
    let line = extras
        .term
        .and_then(|c| c.line())
        .filter(|l| l.len() <= limits.max_bytes() / 4);
    match bound_plain(limits)? {
        Bounded::Fits(mut p) => {
            if let Some(line) = line {
                let fits = p.text.len() + line.len() + 2 <= limits.max_bytes()
                    && lines_of(&p.text) < limits.max_lines();
                if fits {
                    p.append_notice(NoticeKind::Terminal, &line);
                }
            }
            Ok(Bounded::Fits(p))
        }
        Bounded::NeedsSpill(pending) => {
            let content = line.as_ref().and_then(|l| {
                let need = l.len() + 2;
                let content = limits.resized(
                    limits.max_lines().checked_sub(1)?,
                    limits.max_bytes().checked_sub(need)?,
                );
                (content.max_lines() >= 1 && content.max_bytes() >= MIN_MAX_BYTES)
                    .then_some(content)
            });
            let (mut pending, term_line) = match content {
                None => (pending, None),
                Some(content) => match bound_plain(content)? {
                    Bounded::NeedsSpill(p) => (p, line),
                    // Not reached: what does not fit larger limits does not
                    // fit smaller ones.
                    fits @ Bounded::Fits(_) => return Ok(fits),
                },
            };
            pending.extras = Some(Box::new(SpillExtras {
                term_line,
                keep: extras.matches.clone().map(|m| (m, plain.clone())),
            }));
            Ok(Bounded::NeedsSpill(pending))
        }
    }
}

impl SpillExtras {
    /// The final preview: `preview` (the rendered input at `limits`), with
    /// the kept section after the notice when omitted lines match, and the
    /// terminal line last.
    pub(crate) fn apply(
        &self,
        preview: Preview<'static>,
        limits: Limits,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Preview<'static> {
        let mut preview = preview;
        if let Some(kept) = self.kept_section(&preview, limits, outcome, hint) {
            preview = kept;
        }
        if let Some(line) = &self.term_line {
            preview.append_notice(NoticeKind::Terminal, line);
        }
        preview
    }

    /// The preview bounded again beside the kept section, when omitted lines
    /// match: the section takes at most a quarter of `limits`, and what it
    /// leaves of that quarter goes back to the head and tail.
    fn kept_section(
        &self,
        preview: &Preview<'static>,
        limits: Limits,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Option<Preview<'static>> {
        let (matches, kept) = self.keep.as_ref()?;
        let range = preview.omitted_range?;
        // A first look with the whole quarter: nothing to keep, no section.
        let r_lines = limits.max_lines() / 4;
        let r_bytes = limits.max_bytes() / 4;
        matches.section(range, None, r_lines, usize::MAX)?;
        let rest = limits.resized(
            limits.max_lines() - r_lines,
            limits.max_bytes().checked_sub(r_bytes + 1)?,
        );
        rest.check_cut().ok()?;
        let Ok(Bounded::NeedsSpill(again)) = kept.bound_plain(rest) else {
            return None;
        };
        let (p, at) = again.render_parts(outcome.clone(), hint);
        let (section, used_lines) =
            matches.section(p.omitted_range?, p.spill_path.as_deref(), r_lines, r_bytes)?;
        // What the section leaves of its quarter goes back to the rest: the
        // input is bounded again beside a section of the size it took, and
        // the section is chosen again, within that size, for the (smaller)
        // omitted middle of the larger head and tail.
        let (p, at, section) = if used_lines < r_lines || section.len() < r_bytes {
            let (cap_lines, cap_bytes) = (used_lines, section.len());
            let rest = limits.resized(
                limits.max_lines() - cap_lines,
                limits.max_bytes().checked_sub(cap_bytes + 1)?,
            );
            match kept.bound_plain(rest) {
                Ok(Bounded::NeedsSpill(again)) => {
                    let (q, q_at) = again.render_parts(outcome, hint);
                    match q.omitted_range.and_then(|range| {
                        matches.section_capped(
                            range,
                            q.spill_path.as_deref(),
                            cap_lines,
                            cap_bytes,
                            r_bytes,
                        )
                    }) {
                        Some((s2, _)) => (q, q_at, s2),
                        None => (p, at, section),
                    }
                }
                _ => (p, at, section),
            }
        } else {
            (p, at, section)
        };
        let text = &p.text;
        let mut out = String::with_capacity(text.len() + section.len() + 1);
        out.push_str(text.get(..at)?);
        out.push('\n');
        // The section's first line is its header: a notice.
        let header_start = out.len();
        let header_end = header_start + section.find('\n').unwrap_or(section.len());
        out.push_str(&section);
        // The tail, after the `\n` that ended the notice.
        out.push_str(
            text.get(at..)
                .map_or("", |t| t.strip_prefix('\n').unwrap_or(t)),
        );
        let mut p = p;
        p.text = out.into();
        // The cut's notice ends at `at`, before the section: it stays first.
        p.notices
            .push(Notice::new(NoticeKind::Kept, header_start, header_end));
        Some(p)
    }
}
