//! Where to cut: the head and tail a preview keeps, and the notice between them.
//!
//! Everything here reads only a [`Retained`] view — the first and last
//! `2 × max_bytes + 8` bytes and two totals — which both the whole-input and
//! the streaming bounder build identically, so they give the same bytes.
//!
//! Layout of a truncated preview, and what each part costs:
//! ```text
//! head                 rendered bytes, plus 1 for a "\n" when it ends inside a line
//! notice               one line
//! "\n" tail            1 + rendered bytes, only when the tail is not empty
//! ```
//! Lines: head lines + 1 + tail lines (a cut line counts as one line).
//!
//! Filling one side takes whole lines while they fit; a line is cut (at a
//! character boundary) only when it alone is too long for that side's budget.
//! Each side first fills half of each budget (the tail gets the odd byte and
//! line: with a single line to spare, the tail is shown); then the tail, and
//! after it the head, grow into whatever the other side left unused.
//!
//! The notice's digits depend on the cut and the cut on the notice's length:
//! the reserve `n` for the notice is the smallest for which the notice of the
//! cut made with `max_bytes - n` bytes fits in `n` bytes.

use memchr::{memchr, memchr_iter, memrchr};

use super::limits::Limits;
use super::notice::{self, Counts, Pointer};
use super::render::{prefix_within, push_rendered, rendered_len, suffix_within, unit_start_before};

/// The part of the input a bounder keeps, with the input's totals.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retained<'a> {
    /// `data[..head.len()]`: the first `min(total, head_window)` bytes.
    pub(crate) head: &'a [u8],
    /// `data[total - tail.len()..]`: the last `min(total, tail_window)` bytes.
    pub(crate) tail: &'a [u8],
    /// Input bytes.
    pub(crate) total: u64,
    /// `\n` bytes in the whole input.
    pub(crate) newlines: u64,
}

impl Retained<'_> {
    /// Absolute offset of `tail[0]`.
    fn tail_base(&self) -> u64 {
        self.total.saturating_sub(self.tail.len() as u64)
    }

    /// Lines of the input: every `\n` ends one, plus a final unterminated run.
    pub(crate) fn total_lines(&self) -> u64 {
        let open_last = self.tail.last().is_some_and(|&b| b != b'\n');
        self.newlines + u64::from(open_last)
    }

    /// The rendered input when it fits both limits as it is.
    pub(crate) fn unchanged(&self, limits: &Limits) -> Option<String> {
        let whole = self.head.len() as u64 == self.total;
        // Rendering never shrinks the input, so more bytes than the limit never fit.
        if !whole || self.total > limits.max_bytes() as u64 {
            return None;
        }
        if self.total_lines() > limits.max_lines() as u64
            || rendered_len(self.head) > limits.max_bytes()
        {
            return None;
        }
        Some(String::from_utf8_lossy(self.head).into_owned())
    }
}

/// One side of a cut: how far it reaches and what it costs in the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Side {
    /// Head: the end of the kept prefix. Tail: the start of the kept suffix (absolute).
    edge: u64,
    /// Preview bytes, separator included.
    cost: u64,
    /// Preview lines.
    lines: u64,
}

/// A head `data[..a]` and a tail `data[b..]` with `a < b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    head: Side,
    tail: Side,
}

impl Cut {
    /// Input bytes shown before the notice.
    pub(crate) fn head_bytes(&self) -> u64 {
        self.head.edge
    }

    /// Input bytes shown after the notice.
    pub(crate) fn tail_bytes(&self, total: u64) -> u64 {
        total - self.tail.edge
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Fills the head with at most `budget` preview bytes and `max_lines` lines,
/// ending at or before `limit`.
fn fill_head(r: &Retained<'_>, budget: u64, max_lines: u64, limit: u64) -> Side {
    let head = r.head;
    let end = to_usize(limit.min(head.len() as u64));
    let (mut pos, mut used, mut lines) = (0usize, 0u64, 0u64);
    while lines < max_lines && pos < end {
        let (line_end, complete) = match memchr(b'\n', &head[pos..end]) {
            Some(i) => (pos + i + 1, true),
            // A run cut by the window or the tail: longer than any budget, or
            // shared with the tail; either way it may only be cut.
            None => (end, end as u64 == r.total),
        };
        let piece = &head[pos..line_end];
        if complete {
            let size = rendered_len(piece) as u64;
            if used + size <= budget {
                used += size;
                lines += 1;
                pos = line_end;
                continue;
            }
            if size <= budget {
                // It would fit on its own: never cut it, leave the room to the tail.
                break;
            }
        }
        // Too long for this side: keep what fits, plus the "\n" before the notice.
        let room = to_usize(budget.saturating_sub(used + 1));
        let (mut raw, mut rendered) = prefix_within(piece, room);
        if raw > 0 && piece[raw - 1] == b'\r' && piece.get(raw) == Some(&b'\n') {
            raw -= 1;
            rendered -= 1;
        }
        if raw > 0 {
            used += rendered as u64 + 1;
            lines += 1;
            pos += raw;
        }
        break;
    }
    Side {
        edge: pos as u64,
        cost: used,
        lines,
    }
}

/// Fills the tail with at most `budget` preview bytes and `max_lines` lines,
/// starting at or after `limit` (0 or the end of the head: a unit boundary).
fn fill_tail(r: &Retained<'_>, budget: u64, max_lines: u64, limit: u64) -> Side {
    let tail = r.tail;
    let base = r.tail_base();
    let floor_abs = limit.max(base);
    // `floor` starts a unit when it is the limit (a cut or the input start).
    let floor_is_start = floor_abs == limit;
    let floor = to_usize(floor_abs - base);
    let (mut pos, mut used, mut lines) = (tail.len(), 0u64, 0u64);
    while lines < max_lines && pos > floor {
        // The "\n" ending the line (if any) is at pos - 1; its start follows the previous one.
        let (start, complete) = match memrchr(b'\n', &tail[floor..pos - 1]) {
            Some(i) => (floor + i + 1, true),
            None => (floor, floor_abs == 0),
        };
        let piece = &tail[start..pos];
        // The "\n" after the notice comes with the first piece of the tail.
        let sep = u64::from(lines == 0);
        if complete {
            let size = rendered_len(piece) as u64;
            if used + sep + size <= budget {
                used += sep + size;
                lines += 1;
                pos = start;
                continue;
            }
            // It would fit on its own (with the "\n" before it): never cut it.
            if size < budget {
                break;
            }
        }
        let room = to_usize(budget.saturating_sub(used + sep));
        // Rendering never shrinks bytes, so a suffix that fits starts at or after `lowest`.
        let lowest = start.max(pos.saturating_sub(room));
        let known_start = complete || (start == floor && floor_is_start);
        let q = unit_start_before(tail, start, known_start, lowest);
        let (offset, mut rendered) = suffix_within(&tail[q..pos], lowest - q, room);
        let mut x = q + offset;
        if x < pos && x > 0 && tail[x - 1] == b'\r' && tail[x] == b'\n' {
            x += 1;
            rendered -= 1;
        }
        if x < pos {
            used += sep + rendered as u64;
            lines += 1;
            pos = x;
        }
        break;
    }
    Side {
        edge: base + pos as u64,
        cost: used,
        lines,
    }
}

/// The cut made when `reserve` bytes are set aside for the notice, if any fit.
fn cut(r: &Retained<'_>, limits: &Limits, reserve: u64) -> Option<Cut> {
    let bytes = (limits.max_bytes() as u64).checked_sub(reserve)?;
    let lines = limits.max_lines() as u64 - 1;
    let first_tail = fill_tail(r, bytes - bytes / 2, lines - lines / 2, 0);
    let first_head = fill_head(r, bytes / 2, lines / 2, first_tail.edge);
    let tail = fill_tail(
        r,
        bytes - first_head.cost,
        lines - first_head.lines,
        first_head.edge,
    );
    let head = fill_head(r, bytes - tail.cost, lines - tail.lines, tail.edge);
    Some(Cut { head, tail })
}

/// The notice's numbers for a cut.
fn counts(r: &Retained<'_>, cut: &Cut) -> Counts {
    let a = to_usize(cut.head.edge);
    let b = cut.tail.edge;
    let first = memchr_iter(b'\n', &r.head[..a.min(r.head.len())]).count() as u64 + 1;
    // The last omitted byte is b - 1; it lies in the tail window.
    let from = to_usize(b.saturating_sub(1).saturating_sub(r.tail_base()));
    let after = memchr_iter(b'\n', r.tail.get(from..).unwrap_or_default()).count() as u64;
    let last = (r.newlines + 1).saturating_sub(after).max(first);
    Counts {
        omitted_lines: last - first + 1,
        omitted_bytes: b.saturating_sub(cut.head.edge),
        first,
        last,
        total_lines: r.total_lines(),
    }
}

/// The cut that shows nothing: every byte omitted. Always within the limits.
fn empty_cut(r: &Retained<'_>) -> Cut {
    let side = |edge| Side {
        edge,
        cost: 0,
        lines: 0,
    };
    Cut {
        head: side(0),
        tail: side(r.total),
    }
}

/// Solves the notice-length fixpoint: the smallest reserve whose notice fits.
/// `None` when even a preview of the notice alone would exceed `max_bytes`.
pub(crate) fn solve(
    r: &Retained<'_>,
    limits: &Limits,
    pointer: Option<Pointer<'_>>,
) -> Option<(Cut, Counts)> {
    let total_lines = r.total_lines();
    let mut scratch = String::new();
    let mut notice_len = |counts: &Counts| {
        scratch.clear();
        notice::write(&mut scratch, counts, pointer);
        scratch.len() as u64
    };
    // Bounds on the notice: every count at its smallest, then at its largest.
    let shortest = notice_len(&Counts {
        omitted_lines: 1,
        omitted_bytes: 1,
        first: 1,
        last: 1,
        total_lines,
    });
    let longest = notice_len(&Counts {
        omitted_lines: total_lines,
        omitted_bytes: r.total,
        first: total_lines,
        last: total_lines,
        total_lines,
    });
    let max_bytes = limits.max_bytes() as u64;
    for reserve in shortest..=longest.min(max_bytes) {
        let Some(cut) = cut(r, limits, reserve) else {
            break;
        };
        let counts = counts(r, &cut);
        if cut.head.edge < cut.tail.edge && notice_len(&counts) <= reserve {
            return Some((cut, counts));
        }
    }
    // Unreachable for the plain notice (see `MIN_MAX_BYTES`); kept total for safety.
    let cut = empty_cut(r);
    let counts = counts(r, &cut);
    (notice_len(&counts) <= max_bytes).then_some((cut, counts))
}

/// Assembles head, notice and tail into the preview text.
pub(crate) fn assemble(
    r: &Retained<'_>,
    cut: &Cut,
    counts: &Counts,
    pointer: Option<Pointer<'_>>,
) -> String {
    let a = to_usize(cut.head.edge).min(r.head.len());
    let b = to_usize(cut.tail.edge.saturating_sub(r.tail_base())).min(r.tail.len());
    let mut text = String::with_capacity(to_usize(cut.head.cost + cut.tail.cost) + 256);
    push_rendered(&mut text, &r.head[..a]);
    if a > 0 && r.head[a - 1] != b'\n' {
        text.push('\n');
    }
    notice::write(&mut text, counts, pointer);
    if b < r.tail.len() {
        text.push('\n');
        push_rendered(&mut text, &r.tail[b..]);
    }
    text
}

/// Preview lines of a cut (head lines, the notice, tail lines).
pub(crate) fn preview_lines(cut: &Cut) -> u64 {
    cut.head.lines + 1 + cut.tail.lines
}
