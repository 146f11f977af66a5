//! Where to cut: the head and tail a preview keeps, and the notice between them.
//!
//! Everything here reads only a [`Retained`] value — the first and last
//! `2 × max_bytes + 8` bytes, rendered once, and two totals — which both the
//! whole-input and the streaming bounder build identically, so they give the
//! same bytes. All positions are offsets in a window's rendered text: line
//! ends are found once per render ([`Lines`], as far in as a cut can reach;
//! again, further, only when the pointer's notice does not fit) and every
//! size is a difference of two offsets, so no byte is decoded twice.
//!
//! Layout of a truncated preview, and what each part costs:
//! ```text
//! head                 rendered bytes, plus 1 for a "\n" when it ends inside a line
//! notice               one line
//! "\n" tail            1 + rendered bytes, only when the tail is not empty
//! ```
//! Lines: head lines + 1 + tail lines (a line shown in part counts as one).
//!
//! Filling one side takes whole lines while they fit; a line is cut (at a
//! character boundary) when it alone is too long for that side's budget.
//! Each side first fills its share of each budget ([`Split`](super::Split):
//! half each, the tail getting the odd byte and line, so that with a single
//! line to spare the tail is shown; or an eighth to the head and the rest to
//! the tail); then the tail, and
//! after it the head, grow into whatever the other side left unused. What is
//! still left then shows part of the next line, tail side first, when at
//! least [`MIN_PARTIAL`] bytes of it fit beside the notice's longer wording.
//!
//! The notice's digits depend on the cut and the cut on the notice's length.
//! The reserve for the notice starts at the shortest notice of its form and
//! grows to the length of the notice of the cut it leaves room for, until
//! that notice fits: a few rounds at most, each a few searches of the line
//! table.

use super::limits::Limits;
use super::notice::{self, Counts, Form};
use super::render::Window;

/// The fewest rendered bytes of a line worth showing in part from leftover
/// budget: a shorter fragment says little and costs a longer notice.
pub(crate) const MIN_PARTIAL: usize = 16;

/// What a bounder keeps of an input that must be cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Retained<'a> {
    /// The first `min(total, head_window)` bytes, rendered.
    pub(crate) head: Window<'a>,
    /// The last `tail_window` bytes, rendered; `None` when `head` holds the
    /// whole input (it is then the tail window too).
    pub(crate) tail: Option<Window<'a>>,
    /// Input bytes.
    pub(crate) total: u64,
    /// `\n` bytes in the whole input.
    pub(crate) newlines: u64,
    /// The raw lines terminal rendering hid (`None` without `terminal`):
    /// the notice's line numbers are then the raw input's.
    pub(crate) hidden: Option<Box<Hidden>>,
}

/// Where terminal rendering hid raw lines, as far as a notice can need it:
/// rendered line `k` is raw line `k + hidden lines before it`, known for
/// the first and the last `max_lines + 2` rendered lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Hidden {
    /// Raw lines hidden in all.
    pub(crate) total: u64,
    /// `(rendered lines before, hidden lines so far)` at each place lines
    /// were hidden, while the rendered lines before are at most `reach`.
    head: Vec<(u64, u64)>,
    /// The same for the last places: the last one at or before
    /// `rendered lines - reach`, and all after it.
    tail: std::collections::VecDeque<(u64, u64)>,
    reach: u64,
}

impl Hidden {
    /// The map for previews of at most `max_lines` lines.
    pub(crate) fn new(max_lines: usize) -> Self {
        Hidden {
            reach: (max_lines as u64).saturating_add(2),
            ..Hidden::default()
        }
    }

    /// `n` raw lines hidden after `newlines` rendered lines.
    pub(crate) fn add(&mut self, newlines: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.total += n;
        let total = self.total;
        let put = |last: Option<&mut (u64, u64)>| match last {
            Some(last) if last.0 == newlines => {
                last.1 = total;
                true
            }
            _ => false,
        };
        if newlines <= self.reach && !put(self.head.last_mut()) {
            self.head.push((newlines, total));
        }
        if !put(self.tail.back_mut()) {
            self.tail.push_back((newlines, total));
        }
        let floor = newlines.saturating_sub(self.reach);
        while self.tail.len() >= 2 && self.tail[1].0 <= floor {
            self.tail.pop_front();
        }
    }

    /// Bytes held.
    pub(crate) fn retained_bytes(&self) -> usize {
        (self.head.capacity() + self.tail.capacity()) * std::mem::size_of::<(u64, u64)>()
    }

    /// The raw number of rendered line `k` (0 for 0; one past the rendered
    /// lines gives one past the raw ones).
    fn raw(&self, k: u64) -> u64 {
        let Some(before) = k.checked_sub(1) else {
            return 0;
        };
        let last_at = |(c, _): &(u64, u64)| *c <= before;
        let hidden = if before <= self.reach {
            let i = self.head.partition_point(last_at);
            i.checked_sub(1).map_or(0, |i| self.head[i].1)
        } else {
            let i = self.tail.partition_point(last_at);
            i.checked_sub(1).map_or(0, |i| self.tail[i].1)
        };
        k + hidden
    }
}

impl<'a> Retained<'a> {
    /// What a bounder keeps of the whole input `data`, which holds `newlines`
    /// `\n` bytes: its head and tail windows, borrowed (one window when the
    /// input fits in the head's).
    #[inline]
    pub(crate) fn borrowed(data: &'a [u8], limits: &Limits, newlines: u64) -> Self {
        let head_window = limits.head_window();
        let (head, tail) = if data.len() <= head_window {
            (Window::borrowed(data, 0), None)
        } else {
            let tail_from = data.len() - data.len().min(limits.tail_window());
            (
                Window::borrowed(&data[..head_window], 0),
                Some(Window::borrowed(&data[tail_from..], tail_from as u64)),
            )
        };
        Retained {
            head,
            tail,
            total: data.len() as u64,
            newlines,
            hidden: None,
        }
    }

    /// The same, owning its windows' text.
    pub(crate) fn into_owned(self) -> Retained<'static> {
        Retained {
            head: self.head.into_owned(),
            tail: self.tail.map(Window::into_owned),
            total: self.total,
            newlines: self.newlines,
            hidden: self.hidden,
        }
    }

    fn tail(&self) -> &Window<'a> {
        self.tail.as_ref().unwrap_or(&self.head)
    }

    /// Lines of the input: every `\n` ends one, plus a final unterminated
    /// run (with raw lines hidden by terminal rendering: the raw input's).
    pub(crate) fn total_lines(&self) -> u64 {
        self.shown_lines() + self.hidden.as_ref().map_or(0, |h| h.total)
    }

    /// Lines of the (rendered) text.
    fn shown_lines(&self) -> u64 {
        let open_last = self
            .tail()
            .text()
            .as_bytes()
            .last()
            .is_some_and(|&b| b != b'\n');
        self.newlines + u64::from(open_last)
    }
}

/// The line boundaries a cut may use, found once per render.
#[derive(Debug)]
pub(crate) struct Lines {
    /// `ends` then `starts`, in one allocation.
    bounds: Vec<usize>,
    /// Where `starts` begins in `bounds`.
    split: usize,
    /// The last end is the input's end, after a final line without `\n`.
    open_end: bool,
}

impl Lines {
    /// The table of the lines within `reach` preview bytes of either end:
    /// every boundary that far in, and the first one beyond it (the end of
    /// the next line). No side is ever given a larger budget than `reach`,
    /// so no fill looks further.
    fn new(r: &Retained<'_>, limits: &Limits, reach: usize) -> Self {
        // Whole lines of a side number at most max_lines - 1; one more is
        // needed to know the size of the next line.
        let most = limits.max_lines();
        let head = r.head.text().as_bytes();
        let mut ends = Vec::with_capacity(most.min(32).saturating_mul(2));
        let mut reached_end = true;
        let newlines = Newlines::new();
        for i in newlines.iter(head) {
            if ends.len() >= most {
                reached_end = false;
                break;
            }
            ends.push(i + 1);
            if i + 1 > reach {
                reached_end = false;
                break;
            }
        }
        let last = ends.last().copied().unwrap_or(0);
        let open_end = r.tail.is_none() && reached_end && last < head.len() && ends.len() < most;
        if open_end {
            ends.push(head.len());
        }

        let tail = r.tail();
        let text = tail.text().as_bytes();
        let len = text.len();
        let from = tail.start();
        let split = ends.len();
        let mut starts = ends;
        let mut reached_start = true;
        let scan = text.get(from..len.saturating_sub(1)).unwrap_or_default();
        for i in newlines.iter(scan).rev() {
            if starts.len() - split >= most {
                reached_start = false;
                break;
            }
            let start = from + i + 1;
            starts.push(start);
            if start.saturating_add(reach) < len {
                reached_start = false;
                break;
            }
        }
        if r.tail.is_none() && reached_start && len > 0 && starts.len() - split < most {
            starts.push(0);
        }
        Lines {
            bounds: starts,
            split,
            open_end,
        }
    }

    /// Head window: the end of each line (after its `\n`), ascending, as far
    /// as a line may be shown whole; the input's end when a final line
    /// without `\n` lies within reach (`open_end`).
    fn ends(&self) -> &[usize] {
        &self.bounds[..self.split]
    }

    /// Tail window: the start of each line, descending, as far as a line may
    /// be shown whole (the input's start included when within reach).
    fn starts(&self) -> &[usize] {
        &self.bounds[self.split..]
    }
}

/// Finds the `\n` bytes of a window. A line table searches a few short lines
/// per render, where calling `memchr`'s runtime-detected (AVX2) routines costs
/// a dispatch per search: on x86-64, whose baseline has SSE2, its SSE2
/// searcher is called directly and inlined. Elsewhere (and on an x86-64
/// target built without SSE2) the portable entry point is used.
#[derive(Clone, Copy)]
struct Newlines {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    sse2: Option<memchr::arch::x86_64::sse2::memchr::One>,
}

impl Newlines {
    fn new() -> Self {
        Newlines {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            sse2: memchr::arch::x86_64::sse2::memchr::One::new(b'\n'),
        }
    }

    /// The offsets of the `\n` bytes of `text`, from either end.
    fn iter<'s, 'h>(&'s self, text: &'h [u8]) -> NewlineIter<'s, 'h> {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(sse2) = &self.sse2 {
            return NewlineIter::Sse2(sse2.iter(text));
        }
        NewlineIter::Any(memchr::memchr_iter(b'\n', text), std::marker::PhantomData)
    }
}

/// See [`Newlines::iter`].
enum NewlineIter<'s, 'h> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Sse2(memchr::arch::x86_64::sse2::memchr::OneIter<'s, 'h>),
    Any(memchr::Memchr<'h>, std::marker::PhantomData<&'s ()>),
}

impl Iterator for NewlineIter<'_, '_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            NewlineIter::Sse2(it) => it.next(),
            NewlineIter::Any(it, _) => it.next(),
        }
    }
}

impl DoubleEndedIterator for NewlineIter<'_, '_> {
    #[inline]
    fn next_back(&mut self) -> Option<usize> {
        match self {
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            NewlineIter::Sse2(it) => it.next_back(),
            NewlineIter::Any(it, _) => it.next_back(),
        }
    }
}

/// One side of a cut: how far it reaches and what it costs in the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Side {
    /// Head: the end of the kept prefix; tail: the start of the kept suffix
    /// (an offset in the side's window text).
    edge: usize,
    /// Preview bytes, separator included.
    cost: usize,
    /// Notice bytes set aside to say that the line at the edge is shown in part.
    ann: usize,
    /// Preview lines.
    lines: usize,
    /// Lines shown whole.
    whole: usize,
    /// Whether the line at the edge is shown in part.
    partial: bool,
}

/// How a side treats the line after its whole lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fill {
    /// `false`: cut it only when it alone is too long for the side's budget;
    /// `true` (leftover budget): show the part of it that fits if that is at
    /// least [`MIN_PARTIAL`] bytes.
    leftover: bool,
    /// The notice names lines shown in part, so showing one costs those words.
    annotate: bool,
}

/// A head and a tail with something hidden between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    head: Side,
    tail: Side,
    /// Absolute input offsets of the two edges.
    head_end: u64,
    tail_start: u64,
}

impl Cut {
    /// Input bytes shown before the notice.
    pub(crate) fn head_bytes(&self) -> u64 {
        self.head_end
    }

    /// Input bytes shown after the notice.
    pub(crate) fn tail_bytes(&self, total: u64) -> u64 {
        total - self.tail_start
    }

    fn cost(&self) -> usize {
        self.head.cost + self.tail.cost
    }

    /// Preview lines (head lines, the notice, tail lines).
    pub(crate) fn preview_lines(&self) -> usize {
        self.head.lines + 1 + self.tail.lines
    }
}

/// The planner of one render: the retained input, its limits and lines.
pub(crate) struct Planner<'a> {
    r: &'a Retained<'a>,
    limits: Limits,
    lines: Lines,
    total_lines: u64,
    /// The largest budget a side may be given (see [`Planner::new`]).
    reach: usize,
    /// The form the planner is for, and [`least_notice`] of it.
    form: Form<'a>,
    least: usize,
}

/// A solved cut, its notice counts and the notice's length.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    pub(crate) cut: Cut,
    pub(crate) counts: Counts,
    pub(crate) notice_len: usize,
}

impl Plan {
    /// Input bytes the preview shows.
    pub(crate) fn shown(&self, total: u64) -> u64 {
        self.cut.head_bytes() + self.cut.tail_bytes(total)
    }
}

impl<'a> Planner<'a> {
    /// The planner of previews with a notice of `form` (or of a longer
    /// form: [`Planner::solve_as`]). Every notice of a form is at least
    /// [`least_notice`] long, so head and tail together never have more than
    /// `max_bytes` less that: the line table stops there, which spares the
    /// searches for lines no cut can show (about half of them, with a path).
    pub(crate) fn new(r: &'a Retained<'a>, limits: Limits, form: Form<'a>) -> Self {
        let total_lines = r.total_lines();
        let least = least_notice(r, &limits, total_lines, &form);
        let reach = limits.max_bytes().saturating_sub(least);
        Planner {
            lines: Lines::new(r, &limits, reach),
            total_lines,
            least,
            r,
            limits,
            reach,
            form,
        }
    }

    /// The same with a line table reaching `reach` bytes in (the tests
    /// compare plans with the whole table).
    #[cfg(test)]
    fn with_reach(r: &'a Retained<'a>, limits: Limits, form: Form<'a>, reach: usize) -> Self {
        Planner {
            lines: Lines::new(r, &limits, reach),
            reach,
            ..Self::new(r, limits, form)
        }
    }

    /// Whether head and tail share one window (then they limit each other).
    fn shared(&self) -> bool {
        self.r.tail.is_none()
    }

    /// Fills the head with at most `budget` preview bytes and `max_lines`
    /// lines, ending at or before `limit` (a text offset).
    fn fill_head(&self, budget: usize, max_lines: usize, limit: usize, fill: Fill) -> Side {
        debug_assert!(
            budget <= self.reach,
            "budget {budget} beyond the line table"
        );
        let w = &self.r.head;
        let ends = self.lines.ends();
        let open = |k: usize| usize::from(self.lines.open_end && k == ends.len());
        let cap = budget.min(limit);
        let mut k = sorted_count(ends, |e| e <= cap).min(max_lines);
        if k > 0 && ends[k - 1] + open(k) > budget {
            k -= 1;
        }
        let edge = k.checked_sub(1).map_or(0, |i| ends[i]);
        let mut side = Side {
            edge,
            cost: edge + open(k),
            ann: 0,
            lines: k,
            whole: k,
            partial: false,
        };
        if k >= max_lines || open(k) == 1 {
            return side;
        }
        let next = ends.get(k).copied();
        let complete = next.is_some_and(|e| e <= limit);
        let piece_end = next.unwrap_or(usize::MAX).min(limit).min(w.text().len());
        if piece_end <= edge {
            return side;
        }
        if !fill.leftover && complete && piece_end - edge <= budget {
            // It would fit on its own: never cut it, leave the room to the tail.
            return side;
        }
        // Keep what fits, plus the "\n" before the notice and the words
        // saying that line `whole + 1` is shown in part.
        let ann = if fill.annotate {
            notice::partial_len(k as u64 + 1)
        } else {
            0
        };
        let room = budget.saturating_sub(side.cost + 1 + ann);
        let mut x = w.floor_boundary(edge.saturating_add(room).min(piece_end), edge);
        if w.inside_crlf(x) {
            x -= 1;
        }
        let shown = x - edge;
        let least = if fill.leftover { MIN_PARTIAL } else { 1 };
        if shown >= least && x < piece_end {
            side.cost += shown + 1;
            side.ann = ann;
            side.lines += 1;
            side.edge = x;
            side.partial = true;
        }
        side
    }

    /// Fills the tail with at most `budget` preview bytes and `max_lines`
    /// lines, starting at or after `limit` (a text offset).
    fn fill_tail(&self, budget: usize, max_lines: usize, limit: usize, fill: Fill) -> Side {
        debug_assert!(
            budget <= self.reach,
            "budget {budget} beyond the line table"
        );
        let w = self.r.tail();
        let len = w.text().len();
        let starts = self.lines.starts();
        let lowest = limit.max((len + 1).saturating_sub(budget));
        let k = sorted_count(starts, |s| s >= lowest).min(max_lines);
        let edge = k.checked_sub(1).map_or(len, |i| starts[i]);
        let mut side = Side {
            edge,
            cost: if k > 0 { len - edge + 1 } else { 0 },
            ann: 0,
            lines: k,
            whole: k,
            partial: false,
        };
        if k >= max_lines {
            return side;
        }
        let next = starts.get(k).copied();
        let complete = next.is_some_and(|s| s >= limit);
        let floor = limit.max(w.start());
        let piece_start = next.map_or(floor, |s| s.max(floor));
        if piece_start >= edge {
            return side;
        }
        // The "\n" after the notice comes with the first piece of the tail.
        let sep = usize::from(k == 0);
        if !fill.leftover && complete && edge - piece_start < budget {
            // It would fit on its own (with the "\n" before it): never cut it.
            return side;
        }
        // The words saying that line `total - whole` is shown in part.
        let ann = if fill.annotate {
            notice::partial_len(self.total_lines.saturating_sub(k as u64))
        } else {
            0
        };
        let room = budget.saturating_sub(side.cost + sep + ann);
        let mut x = w.ceil_boundary(edge.saturating_sub(room).max(piece_start), edge);
        if x < edge && w.inside_crlf(x) {
            x += 1;
        }
        let shown = edge - x;
        // A part must show more than the line's ending.
        let bytes = w.text().as_bytes();
        let ending = match (
            bytes.get(edge.wrapping_sub(2)),
            bytes.get(edge.wrapping_sub(1)),
        ) {
            (Some(b'\r'), Some(b'\n')) => 2,
            (_, Some(b'\n')) => 1,
            _ => 0,
        };
        let least = if fill.leftover {
            MIN_PARTIAL
        } else {
            ending + 1
        };
        if shown >= least && x > piece_start {
            side.cost += sep + shown;
            side.ann = ann;
            side.lines += 1;
            side.edge = x;
            side.partial = true;
        }
        side
    }

    /// The limit the head's edge puts on the tail (shared window only).
    fn tail_limit(&self, head: &Side) -> usize {
        if self.shared() {
            head.edge
        } else {
            0
        }
    }

    /// The limit the tail's edge puts on the head (shared window only).
    fn head_limit(&self, tail: &Side) -> usize {
        if self.shared() {
            tail.edge
        } else {
            usize::MAX
        }
    }

    /// The cut when `bytes` preview bytes are left for head and tail.
    fn cut(&self, bytes: usize, annotate: bool) -> Option<Cut> {
        let lines = self.limits.max_lines().saturating_sub(1);
        let fill = Fill {
            leftover: false,
            annotate,
        };
        // The first tail only limits the first head, and only when the two
        // share one window: apart, its fill would be thrown away.
        let (head_bytes, head_lines) = self.limits.split().head_share(bytes, lines);
        let first_limit = if self.shared() {
            let first_tail = self.fill_tail(
                bytes - head_bytes,
                lines - head_lines,
                self.tail_limit(&Side::EMPTY),
                fill,
            );
            self.head_limit(&first_tail)
        } else {
            usize::MAX
        };
        let first_head = self.fill_head(head_bytes, head_lines, first_limit, fill);
        let tail = self.fill_tail(
            bytes - first_head.used(),
            lines - first_head.lines,
            self.tail_limit(&first_head),
            fill,
        );
        let head = self.fill_head(
            bytes - tail.used(),
            lines - tail.lines,
            self.head_limit(&tail),
            fill,
        );
        self.make_cut(head, tail)
    }

    /// The cut of two sides, when something lies between them.
    fn make_cut(&self, head: Side, tail: Side) -> Option<Cut> {
        let head_end = self.r.head.input_offset(head.edge);
        let tail_start = self.r.tail().input_offset(tail.edge);
        (head_end < tail_start).then_some(Cut {
            head,
            tail,
            head_end,
            tail_start,
        })
    }

    /// The cut that shows nothing.
    fn empty_cut(&self) -> Cut {
        Cut {
            head: Side::EMPTY,
            tail: Side {
                edge: self.r.tail().text().len(),
                ..Side::EMPTY
            },
            head_end: 0,
            tail_start: self.r.total,
        }
    }

    /// The notice's numbers for a cut.
    fn counts(&self, cut: &Cut) -> Counts {
        let (first, last) = match &self.r.hidden {
            None => (
                cut.head.whole as u64 + 1,
                self.total_lines.saturating_sub(cut.tail.whole as u64),
            ),
            // Raw numbers: the omitted range takes the hidden lines around
            // it, a line shown in part is named by its own number.
            Some(h) => {
                let (w, t) = (cut.head.whole as u64, cut.tail.whole as u64);
                let shown = self.r.shown_lines();
                let first = if cut.head.partial {
                    h.raw(w + 1)
                } else {
                    h.raw(w) + 1
                };
                let last = if cut.tail.partial {
                    h.raw(shown.saturating_sub(t))
                } else {
                    h.raw(shown.saturating_sub(t) + 1).saturating_sub(1)
                };
                (first, last.max(first))
            }
        };
        Counts {
            omitted_bytes: cut.tail_start - cut.head_end,
            first,
            last,
            total_lines: self.total_lines,
            first_partial: cut.head.partial,
            last_partial: cut.tail.partial,
        }
    }

    fn plan(&self, cut: Cut, form: &Form<'_>) -> Plan {
        let counts = self.counts(&cut);
        Plan {
            cut,
            counts,
            notice_len: notice::len(form, &counts),
        }
    }

    /// The minimal marker alone (a total fallback for limits that
    /// [`Limits::check_cut`] refuses).
    pub(crate) fn notice_only(&self) -> Plan {
        self.plan(self.empty_cut(), &Form::Minimal)
    }

    /// The preview with a notice of the planner's form, or `None` when even
    /// its notice alone does not fit.
    pub(crate) fn solve(&self) -> Option<Plan> {
        self.solve_with::<true>(&self.form, self.least)
    }

    /// The preview with a notice of `form`, which must be at least as long
    /// as the planner's (its line table reaches no further).
    pub(crate) fn solve_as(&self, form: &Form<'_>) -> Option<Plan> {
        let least = least_notice(self.r, &self.limits, self.total_lines, form);
        self.solve_with::<true>(form, least)
    }

    /// [`Planner::solve_as`], given [`least_notice`] of `form`;
    /// `SHORTCUT = false` fills every extension even when it cannot grow (the
    /// tests check that the shortcut changes nothing).
    fn solve_with<const SHORTCUT: bool>(&self, form: &Form<'_>, least: usize) -> Option<Plan> {
        let max_bytes = self.limits.max_bytes();
        let mut reserve = least;
        // No side is given more than max_bytes - reserve, which the line
        // table covers (a debug build checks each fill).
        debug_assert!(
            max_bytes.saturating_sub(reserve) <= self.reach,
            "{form:?} is shorter than the planner's"
        );
        // Lines shown in part are paid for by their side (`Side::ann`): the
        // reserve is for the rest of the notice.
        let annotate = matches!(form, Form::Plain | Form::Pointer(_));
        let mut plan = loop {
            let Some(bytes) = max_bytes.checked_sub(reserve) else {
                // The reserve outgrew the limit; the notice alone may still fit.
                let plan = self.plan(self.empty_cut(), form);
                if plan.notice_len > max_bytes {
                    return None;
                }
                break plan;
            };
            let cut = self
                .cut(bytes, annotate)
                .unwrap_or_else(|| self.empty_cut());
            let plan = self.plan(cut, form);
            let base = plan.notice_len - notice::partial_words_len(form, &plan.counts);
            if base <= reserve {
                break plan;
            }
            reserve = base;
        };
        // Leftover budget: part of the next line, tail side first.
        for tail_side in [true, false] {
            if let Some(better) = self.extend::<SHORTCUT>(&plan, form, annotate, tail_side) {
                plan = better;
            }
        }
        Some(plan)
    }

    /// `plan` with its tail (or head) grown into the budget left over, when
    /// that shows more.
    fn extend<const SHORTCUT: bool>(
        &self,
        plan: &Plan,
        form: &Form<'_>,
        annotate: bool,
        tail_side: bool,
    ) -> Option<Plan> {
        let max_bytes = self.limits.max_bytes();
        let cut = plan.cut;
        let lines_left = self.limits.max_lines().checked_sub(cut.preview_lines())?;
        let slack = max_bytes.checked_sub(cut.cost() + plan.notice_len)?;
        let partial = if tail_side {
            cut.tail.partial
        } else {
            cut.head.partial
        };
        // A new part of a line needs a line and MIN_PARTIAL bytes; a part
        // already shown may grow by any amount.
        if slack == 0 || (!partial && (lines_left == 0 || slack < MIN_PARTIAL)) {
            return None;
        }
        // The notice grows when it names one more line shown in part (an
        // upper bound: the omitted bytes only shrink); that is paid here, so
        // the side is filled as if the notice said nothing about it.
        let mut counts = plan.counts;
        if tail_side {
            counts.last_partial = true;
        } else {
            counts.first_partial = true;
        }
        // Only the words naming lines shown in part change.
        let grown = if annotate {
            notice::partial_words_len(form, &counts)
                .saturating_sub(notice::partial_words_len(form, &plan.counts))
        } else {
            0
        };
        let room = slack.checked_sub(grown)?;
        if SHORTCUT && !partial && room < MIN_PARTIAL && !self.next_line_fits(&cut, tail_side, room)
        {
            // No part of a line can be shown, and no whole line fits: the
            // fill below would give back the same side.
            return None;
        }
        let fill = Fill {
            leftover: true,
            annotate: false,
        };
        let (head, tail) = if tail_side {
            let tail = self.fill_tail(
                cut.tail.cost + room,
                cut.tail.lines + lines_left,
                self.tail_limit(&cut.head),
                fill,
            );
            (cut.head, tail)
        } else {
            let head = self.fill_head(
                cut.head.cost + room,
                cut.head.lines + lines_left,
                self.head_limit(&cut.tail),
                fill,
            );
            (head, cut.tail)
        };
        let better = self.plan(self.make_cut(head, tail)?, form);
        let fits = better.cut.cost() + better.notice_len <= max_bytes
            && better.cut.preview_lines() <= self.limits.max_lines();
        (fits && better.shown(self.r.total) > plan.shown(self.r.total)).then_some(better)
    }

    /// Whether the whole line next to a side of `cut` (that shows no line in
    /// part) costs at most `room` more preview bytes.
    fn next_line_fits(&self, cut: &Cut, tail_side: bool, room: usize) -> bool {
        if tail_side {
            let len = self.r.tail().text().len();
            self.lines
                .starts()
                .get(cut.tail.whole)
                .is_some_and(|&s| (len + 1).saturating_sub(s).saturating_sub(cut.tail.cost) <= room)
        } else {
            self.lines
                .ends()
                .get(cut.head.whole)
                .is_some_and(|&e| e.saturating_sub(cut.head.cost) <= room)
        }
    }

    /// Where the notice starts in the text [`Planner::assemble`] gives.
    pub(crate) fn notice_start(&self, plan: &Plan) -> usize {
        let head = &self.r.head.text()[..plan.cut.head.edge];
        head.len() + usize::from(!head.is_empty() && !head.ends_with('\n'))
    }

    /// Assembles head, notice and tail into the preview text.
    pub(crate) fn assemble(&self, plan: &Plan, form: &Form<'_>) -> String {
        let head = &self.r.head.text()[..plan.cut.head.edge];
        let tail_text = self.r.tail().text();
        let tail = &tail_text[plan.cut.tail.edge..];
        let mut text = String::with_capacity(plan.cut.cost() + plan.notice_len);
        text.push_str(head);
        if !head.is_empty() && !head.ends_with('\n') {
            text.push('\n');
        }
        notice::write(&mut text, form, &plan.counts);
        if !tail.is_empty() {
            text.push('\n');
            text.push_str(tail);
        }
        text
    }
}

/// The shortest notice of `form` any cut within `limits` can have: head and
/// tail show at most `max_bytes` input bytes (rendering never shrinks them)
/// and `max_lines - 1` lines, and naming lines shown in part only adds words.
fn least_notice(r: &Retained<'_>, limits: &Limits, total_lines: u64, form: &Form<'_>) -> usize {
    // The last omitted line is at least the rendered lines' (hidden lines
    // only raise it).
    let least_lines = r
        .shown_lines()
        .saturating_sub((limits.max_lines() as u64).saturating_sub(1))
        .max(1);
    notice::len(
        form,
        &Counts {
            omitted_bytes: r.total.saturating_sub(limits.max_bytes() as u64).max(1),
            first: 1,
            last: least_lines,
            total_lines,
            first_partial: false,
            last_partial: false,
        },
    )
}

/// How many leading elements of `sorted` satisfy `pred`, which holds for a
/// prefix of it: a branch-free count for the short tables of small previews
/// (a binary search mispredicts about every step), a binary search beyond.
fn sorted_count(sorted: &[usize], pred: impl Fn(usize) -> bool) -> usize {
    if sorted.len() <= 32 {
        sorted.iter().map(|&x| usize::from(pred(x))).sum()
    } else {
        sorted.partition_point(|&x| pred(x))
    }
}

impl Side {
    const EMPTY: Side = Side {
        edge: 0,
        cost: 0,
        ann: 0,
        lines: 0,
        whole: 0,
        partial: false,
    };

    /// Budget the side takes: its preview bytes and the notice words it needs.
    fn used(&self) -> usize {
        self.cost + self.ann
    }
}

#[cfg(test)]
mod tests {
    use dory_testkit::Rng;

    use super::super::limits::Limits;
    use super::super::notice::{Form, Pointer};
    use super::{sorted_count, Planner, Retained};

    /// A seeded input: lines of random length with CRLF, two- and four-byte
    /// characters and invalid bytes.
    fn input(rng: &mut Rng) -> Vec<u8> {
        let most = [60, 400, 3000][rng.range(0, 2)];
        let size = rng.range(0, most);
        let line = 1 + rng.below(120);
        let mut data = Vec::with_capacity(size + 4);
        while data.len() < size {
            match rng.below(100) {
                0..=1 => data.extend_from_slice(b"\r\n"),
                2..=3 => data.extend_from_slice("é".as_bytes()),
                4 => data.extend_from_slice("😀".as_bytes()),
                5 => data.push(0xff),
                _ => data.push(b'a' + rng.below(26) as u8),
            }
            if rng.below(line) == 0 {
                data.push(b'\n');
            }
        }
        data
    }

    #[test]
    fn the_extension_shortcut_and_the_table_reach_change_no_plan() {
        let pointer = Pointer::new("/w/out.txt", None);
        let forms = [
            Form::Pointer(pointer),
            Form::Plain,
            Form::Compact,
            Form::Minimal,
        ];
        let mut solved = 0;
        let mut rng = Rng::new(13);
        for seed in 0..3000u64 {
            let data = input(&mut rng);
            let limits = Limits::new(rng.range(1, 23), rng.range(32, 731));
            let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
            let r = Retained::borrowed(&data, &limits, newlines);
            for form in &forms {
                let planner = Planner::new(&r, limits, *form);
                let fast = planner.solve();
                // With the whole line table, and filling every extension.
                let every_line = Planner::with_reach(&r, limits, *form, usize::MAX);
                let full = every_line.solve_with::<false>(form, every_line.least);
                match (fast, full) {
                    (Some(a), Some(b)) => {
                        assert_eq!(
                            (a.cut, a.counts, a.notice_len),
                            (b.cut, b.counts, b.notice_len),
                            "seed {seed}, {form:?}"
                        );
                        solved += 1;
                    }
                    (None, None) => {}
                    (a, b) => panic!("seed {seed}, {form:?}: {a:?} against {b:?}"),
                }
            }
        }
        assert!(solved > 5000, "only {solved} plans were compared");
    }

    #[test]
    fn sorted_count_is_the_partition_point() {
        // Ascending tables (line ends) and descending ones (line starts), on
        // both sides of the length where the count switches to a binary search.
        for len in 0..=40usize {
            let ascending: Vec<usize> = (0..len).map(|i| 3 * i + 1).collect();
            let descending: Vec<usize> = ascending.iter().rev().copied().collect();
            for at in 0..=3 * len + 2 {
                assert_eq!(
                    sorted_count(&ascending, |e| e <= at),
                    ascending.partition_point(|&e| e <= at),
                    "ascending, len {len}, at {at}"
                );
                assert_eq!(
                    sorted_count(&descending, |s| s >= at),
                    descending.partition_point(|&s| s >= at),
                    "descending, len {len}, at {at}"
                );
            }
        }
    }
}
