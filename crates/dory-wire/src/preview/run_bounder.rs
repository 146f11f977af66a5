//! Bounding a whole run: stdout, stderr and the two combined in the order
//! they arrived, in memory bounded by the limits, with lost ranges said.

use std::borrow::Cow;
use std::collections::VecDeque;

use crate::error::Error;
use crate::sink::Sink;
use crate::types::{Event, Stream};

use super::bounded::{Bounded, RetainedInput};
use super::digest::spill_id_of;
use super::fit;
use super::keep::Keep;
use super::limits::{Limits, TokenLimit, MIN_MAX_BYTES};
use super::plan::MIN_PARTIAL;
use super::result::{Notice, NoticeKind, Preview};
use super::ring::Ring;
use super::spill::SpillOutcome;
use super::stream::StreamingBounder;

/// The default `max_lines` of a run's previews (every client's `run` uses it).
pub const DEFAULT_RUN_MAX_LINES: usize = 400;

/// The default `max_bytes` of a run's previews: 16 KiB, a model-sized result.
pub const DEFAULT_RUN_MAX_BYTES: usize = 16 * 1024;

/// The least `max_bytes` a run accepts (see [`RunBounder::check_limits`]).
pub const MIN_RUN_MAX_BYTES: usize = 80;

/// One of the three views of a run's output that a [`RunBounder`] bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum View {
    /// Standard output alone.
    Stdout,
    /// Standard error alone.
    Stderr,
    /// Both, in the order their bytes arrived (what `2>&1` gives).
    Combined,
}

impl View {
    /// The three views, in this order.
    pub const ALL: [View; 3] = [View::Stdout, View::Stderr, View::Combined];

    /// `"stdout"`, `"stderr"` or `"combined"`.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Stdout => "stdout",
            View::Stderr => "stderr",
            View::Combined => "combined",
        }
    }

    /// The view named `name` (see [`View::as_str`]).
    pub fn from_name(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.as_str() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl From<Stream> for View {
    fn from(stream: Stream) -> Self {
        match stream {
            Stream::Stdout => View::Stdout,
            Stream::Stderr => View::Stderr,
        }
    }
}

/// The spill id a run keyed by `idempotency_key` uses: 32 hex digits derived
/// from the key, prefixed `run-`, so calling again with the same key names
/// the same files and renders the same previews. Each view's file is named
/// `<id>-<view>` (see [`RunBounder::with_spill_id`]).
pub fn run_spill_id(idempotency_key: &str) -> String {
    format!("run-{}", spill_id_of(idempotency_key.as_bytes()))
}

/// Lost ranges of one view: counts and the first range, in bounded memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Losses {
    bytes: u64,
    ranges: u64,
    /// The first range recorded, with its arrival number.
    first: Option<(u64, Stream, u64, u64)>,
}

impl Losses {
    fn add(&mut self, seq: u64, stream: Stream, start: u64, end: u64) {
        self.bytes = self.bytes.saturating_add(end - start);
        self.ranges += 1;
        if self.first.is_none() {
            self.first = Some((seq, stream, start, end));
        }
    }

    fn merged(a: Losses, b: Losses) -> Losses {
        let first = match (a.first, b.first) {
            (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
            (x, y) => x.or(y),
        };
        Losses {
            bytes: a.bytes.saturating_add(b.bytes),
            ranges: a.ranges + b.ranges,
            first,
        }
    }

    /// The loss line for a preview of at most `max_bytes` bytes: the rich
    /// form while it takes at most a quarter of them, else the compact one.
    fn line(&self, max_bytes: usize) -> Option<String> {
        let (_, stream, start, end) = self.first?;
        let bytes = self.bytes;
        let unit = if bytes == 1 { "byte" } else { "bytes" };
        let rich = if self.ranges == 1 {
            format!(
                "[... {bytes} {unit} lost: {} offsets {start}-{end} were not retained ...]",
                stream.as_str()
            )
        } else {
            format!(
                "[... {bytes} {unit} lost in {} ranges, the first {} offsets {start}-{end}: not retained ...]",
                self.ranges,
                stream.as_str()
            )
        };
        Some(if rich.len() <= max_bytes / 4 {
            rich
        } else {
            format!("[... {bytes} {unit} lost ...]")
        })
    }
}

/// How a run's process ended, as its `exit` frame says: the exit code
/// (`None` when the service ended the process without one: killed, or timed
/// out) and whether it hit its deadline, with the deadline the run asked for.
///
/// [`RunBounder::finish_ended`] ends the combined view with one line saying
/// it ([`NoticeKind::End`]):
///
/// ```text
/// [... exit code 0 ...]
/// [... exit code 2 ...]
/// [... timed out after 30 s: killed, no exit code ...]
/// [... timed out after 30 s, exit code 124 ...]
/// [... killed: no exit code ...]
/// ```
///
/// ```
/// use dory_wire::preview::RunEnd;
///
/// assert_eq!(RunEnd::new(Some(1), false).line(16384), "[... exit code 1 ...]");
/// let timeout = RunEnd::new(None, true).timeout_seconds(Some(2.5));
/// assert_eq!(timeout.line(16384), "[... timed out after 2.5 s: killed, no exit code ...]");
/// assert_eq!(timeout.line(80), "[... timed out: killed, no exit code ...]");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RunEnd {
    /// The exit code; `None` when the process was killed or timed out.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline.
    pub timed_out: bool,
    /// The deadline the run was started with, in seconds (named in the line
    /// of a timed-out run when it is known).
    pub timeout: Option<f64>,
}

impl RunEnd {
    /// The end an `exit` frame gives: `exit_code` and `timed_out`, no
    /// deadline known.
    pub fn new(exit_code: Option<i64>, timed_out: bool) -> Self {
        RunEnd {
            exit_code,
            timed_out,
            timeout: None,
        }
    }

    /// The deadline the run was started with (a positive number of seconds).
    #[must_use]
    pub fn timeout_seconds(self, seconds: Option<f64>) -> Self {
        RunEnd {
            timeout: seconds.filter(|t| t.is_finite() && *t > 0.0),
            ..self
        }
    }

    /// The end line for a preview of at most `max_bytes` bytes (without its
    /// `\n`): a timed-out run names its deadline while the line takes at
    /// most a quarter of `max_bytes`, else the line leaves it out.
    pub fn line(&self, max_bytes: usize) -> String {
        match (self.timed_out, self.exit_code) {
            (false, Some(code)) => format!("[... exit code {code} ...]"),
            (false, None) => "[... killed: no exit code ...]".to_owned(),
            (true, code) => {
                let how = match code {
                    Some(code) => format!(", exit code {code}"),
                    None => ": killed, no exit code".to_owned(),
                };
                match self.timeout {
                    Some(t) => {
                        let rich = format!("[... timed out after {t} s{how} ...]");
                        if rich.len() <= max_bytes / 4 {
                            return rich;
                        }
                        format!("[... timed out{how} ...]")
                    }
                    None => format!("[... timed out{how} ...]"),
                }
            }
        }
    }
}

/// Bounds a run's output as it arrives: a preview of stdout, of stderr and
/// of both combined in arrival order, each within the same limits, in
/// memory proportional to the limits whatever the output's size.
///
/// - **Streaming equals whole.** Without losses, each view's preview is
///   exactly [`Bounder::bound`](super::Bounder::bound) of that view's bytes
///   with the same limits and spill id, however the output was split.
/// - **Lost output is said.** A range recorded with [`lose`](Self::lose)
///   (a `skipped` event under gap policy `skip`) is never silently absent:
///   the preview of every view it belongs to ends with a line
///   `[... N bytes lost: stdout offsets A-B were not retained ...]`, and the
///   rest of the view is bounded within the limits less that line.
/// - **The end of stderr is never lost to stdout.** When the combined cut
///   would hide a byte of stderr's last lines, a quarter of the budget goes to a
///   section showing stderr's last lines (`[... the last N of T bytes of
///   stderr ...]` and the bytes). The rules are in `docs/preview.md`.
///
/// Each view's spill id is `<spill id>-<view>` (`…-stdout`, `…-stderr`,
/// `…-combined`): write each chunk to the view's spill as you push it, then
/// render each view with what saving did.
///
/// ```
/// use dory_wire::preview::{RunBounder, SpillOutcome, View};
/// use dory_wire::Stream;
///
/// let mut run = RunBounder::new(40, 2000).with_spill_id("run-1");
/// for i in 0..10_000 {
///     run.push(Stream::Stdout, format!("step {i}\n").as_bytes());
/// }
/// run.push(Stream::Stderr, b"error: the one line that mattered\n");
/// run.push(Stream::Stdout, "done\n".repeat(500).as_bytes());
/// let pending = run.finish()?;
/// assert_eq!(pending.spill_id(View::Combined), "run-1-combined");
/// let combined = pending.render(View::Combined, SpillOutcome::NotSaved, None);
/// assert!(combined.text.contains("error: the one line that mattered\n"));
/// assert!(combined.text.len() <= 2000);
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RunBounder {
    limits: Limits,
    views: [StreamingBounder; 3],
    /// The last bytes of stderr, for the combined view's stderr section.
    stderr_tail: Ring,
    /// Where stderr's last bytes sit in the combined view: `(start, len)`
    /// runs, at least the ring's worth, oldest first.
    stderr_spans: VecDeque<(u64, u64)>,
    /// Bytes the runs in `stderr_spans` cover.
    spans_cover: u64,
    losses: [Losses; 2],
    seq: u64,
    /// Whether the views render as a terminal would (then the stderr
    /// section and its runs are of rendered bytes).
    terminal: bool,
}

impl RunBounder {
    /// A run bounder whose previews have at most `max_lines` lines and
    /// `max_bytes` bytes each. Any limits are accepted, as for
    /// [`Bounder::new`](super::Bounder::new).
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Self::with_limits(Limits::new(max_lines, max_bytes))
    }

    /// Whether these limits can be honoured for any output of a run, which
    /// is not known in advance: a cut needs a line for its notice and one
    /// for a loss line, and [`MIN_RUN_MAX_BYTES`] bytes hold the longest
    /// compact loss line beside the shortest cut. Clients call it before
    /// starting a command, so bad limits never start one.
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when `max_lines < 2` or `max_bytes <`
    /// [`MIN_RUN_MAX_BYTES`].
    pub fn check_limits(max_lines: usize, max_bytes: usize) -> Result<(), Error> {
        if max_lines < 2 || max_bytes < MIN_RUN_MAX_BYTES {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "a run needs max_lines >= 2 and max_bytes >= {MIN_RUN_MAX_BYTES} (a notice and a loss line, whatever the output), got max_lines={max_lines} and max_bytes={max_bytes}"
                ),
            });
        }
        Ok(())
    }

    /// Whether a token limit can be honoured for any output of a run: like
    /// the bytes ([`check_limits`](Self::check_limits)), a cut beside a loss
    /// line needs `max_tokens ≥` [`MIN_RUN_MAX_BYTES`] (every token is at
    /// least one byte). No token limit, or one that only counts, passes.
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when `max_tokens <` [`MIN_RUN_MAX_BYTES`].
    pub fn check_tokens(tokens: Option<TokenLimit>) -> Result<(), Error> {
        match tokens {
            Some(t) if t.max_tokens < MIN_RUN_MAX_BYTES => Err(Error::InvalidLimits {
                reason: format!(
                    "a run needs max_tokens >= {MIN_RUN_MAX_BYTES} (a notice and a loss line, whatever the output), got max_tokens={}",
                    t.max_tokens
                ),
            }),
            _ => Ok(()),
        }
    }

    /// A run bounder for these limits.
    pub fn with_limits(limits: Limits) -> Self {
        RunBounder {
            limits,
            views: [
                StreamingBounder::with_limits(limits),
                StreamingBounder::with_limits(limits),
                StreamingBounder::with_limits(limits),
            ],
            stderr_tail: Ring::new((limits.max_bytes() / 4).saturating_add(4)),
            stderr_spans: VecDeque::new(),
            spans_cover: 0,
            losses: [Losses::default(); 2],
            seq: 0,
            terminal: false,
        }
    }

    /// Keeps, in each view, the lines matching `keep` that fall in its
    /// omitted middle (see [`StreamingBounder::with_keep`]). Call it before
    /// pushing data.
    #[must_use]
    pub fn with_keep(self, keep: Keep) -> Self {
        let [out, err, both] = self.views;
        RunBounder {
            views: [
                out.with_keep(keep.clone()),
                err.with_keep(keep.clone()),
                both.with_keep(keep),
            ],
            ..self
        }
    }

    /// Renders each view as a terminal would (see
    /// [`StreamingBounder::with_terminal`]); the combined view is rendered
    /// from the bytes in arrival order, as a terminal showing both streams
    /// would. Call it before pushing data.
    #[must_use]
    pub fn with_terminal(self, terminal: bool) -> Self {
        let [out, err, both] = self.views;
        RunBounder {
            views: [
                out.with_terminal(terminal),
                err.with_terminal(terminal),
                both.with_terminal(terminal),
            ],
            terminal,
            ..self
        }
    }

    /// Where each view's cut preview puts its budget between head and tail
    /// (see [`Split`](super::Split)). Call it before pushing data.
    #[must_use]
    pub fn with_split(self, split: super::Split) -> Self {
        let [out, err, both] = self.views;
        RunBounder {
            limits: self.limits.with_split(split),
            views: [
                out.with_split(split),
                err.with_split(split),
                both.with_split(split),
            ],
            ..self
        }
    }

    /// Names the views' spills `<spill_id>-stdout`, `<spill_id>-stderr` and
    /// `<spill_id>-combined` instead of ids derived from their content (and
    /// skips hashing it). Call it before pushing data.
    #[must_use]
    pub fn with_spill_id(self, spill_id: &str) -> Self {
        let [out, err, both] = self.views;
        RunBounder {
            views: [
                out.with_spill_id(format!("{spill_id}-stdout")),
                err.with_spill_id(format!("{spill_id}-stderr")),
                both.with_spill_id(format!("{spill_id}-combined")),
            ],
            ..self
        }
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The id `view`'s spill is saved under, known from the start when
    /// [`with_spill_id`](Self::with_spill_id) named it (`None` otherwise:
    /// the id is then derived from the content, known at
    /// [`finish`](Self::finish)).
    pub fn spill_id(&self, view: View) -> Option<&str> {
        self.views[view.index()].spill_id()
    }

    /// Feeds the next bytes of `stream`, in the order they arrived.
    pub fn push(&mut self, stream: Stream, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        if self.terminal {
            self.push_rendered(stream, data);
            self.seq += 1;
            return;
        }
        self.views[View::from(stream).index()].push(data);
        self.views[View::Combined.index()].push(data);
        if stream == Stream::Stderr {
            self.stderr_tail.push(data);
            let len = data.len() as u64;
            let start = self.views[View::Combined.index()].total_bytes() - len;
            self.add_span(start, len);
        }
        self.seq += 1;
    }

    /// [`push`](Self::push) under `terminal`: the stderr ring takes the
    /// stderr view's rendered bytes, and the runs are the rendered bytes of
    /// the combined view's rows last written by a stderr push (a row is
    /// given out when it can no longer change, maybe during a later push).
    fn push_rendered(&mut self, stream: Stream, data: &[u8]) {
        let index = View::from(stream).index();
        let stderr = stream == Stream::Stderr;
        if stderr {
            let ring = &mut self.stderr_tail;
            self.views[index].push_with(data, true, &mut |b, _, _| ring.push(b));
        } else {
            self.views[index].push(data);
        }
        let cap = self.stderr_tail.cap() as u64;
        let (spans, cover) = (&mut self.stderr_spans, &mut self.spans_cover);
        self.views[View::Combined.index()].push_with(data, stderr, &mut |b, tag, at| {
            if tag {
                add_span(spans, cover, cap, at, b.len() as u64);
            }
        });
    }

    /// Records that stderr's bytes sit at `start..start + len` of the
    /// combined view.
    fn add_span(&mut self, start: u64, len: u64) {
        let cap = self.stderr_tail.cap() as u64;
        add_span(
            &mut self.stderr_spans,
            &mut self.spans_cover,
            cap,
            start,
            len,
        );
    }

    /// Records that `stream` lost offsets `[start, end)` (a `skipped`
    /// event). An empty or inverted range records nothing.
    pub fn lose(&mut self, stream: Stream, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let index = View::from(stream).index();
        self.losses[index].add(self.seq, stream, start, end);
        self.seq += 1;
    }

    /// Bytes of `view` pushed so far.
    pub fn total_bytes(&self, view: View) -> u64 {
        self.views[view.index()].total_bytes()
    }

    /// Bytes of `view` recorded as lost so far.
    pub fn lost_bytes(&self, view: View) -> u64 {
        self.losses(view).bytes
    }

    /// Bytes of buffer held: at most `6 × (2 × max_bytes + 8)`, plus a
    /// quarter of `max_bytes` of stderr's end and 16 bytes for each run of it
    /// between stdout's (at most as many runs as those bytes), whatever was
    /// pushed. Under [`with_terminal`](Self::with_terminal) each of the
    /// three views' renderers adds at most `8 × max(2 × max_bytes + 8, 4096)
    /// + 16 KiB` (its window of rows; `docs/preview.md`).
    pub fn retained_bytes(&self) -> usize {
        self.views
            .iter()
            .map(StreamingBounder::retained_bytes)
            .sum::<usize>()
            + self.stderr_tail.capacity()
            + self.stderr_spans.capacity() * std::mem::size_of::<(u64, u64)>()
    }

    fn losses(&self, view: View) -> Losses {
        match view {
            View::Stdout | View::Stderr => self.losses[view.index()],
            View::Combined => Losses::merged(self.losses[0], self.losses[1]),
        }
    }

    /// Ends the output. The previews are those of the bytes alone: no line
    /// says how the process ended (see [`finish_ended`](Self::finish_ended)).
    ///
    /// # Errors
    /// [`Error::InvalidLimits`] when a view must be cut and the limits leave
    /// no room for a cut, or when output was lost and the limits leave no
    /// room for the line saying so.
    pub fn finish(self) -> Result<RunPending, Error> {
        self.finish_with(None)
    }

    /// Ends the output of a process that ended as `end` says: the combined
    /// view's last line is the end line ([`RunEnd::line`], a notice of kind
    /// [`NoticeKind::End`]), after the stderr section and the loss line, and
    /// its bytes are bounded within the limits less that line (one line,
    /// its bytes and two `\n`). When those smaller limits leave no room for
    /// the cut the view needs, the line is left out and the view is what
    /// [`finish`](Self::finish) gives. The stdout and stderr views are
    /// those of [`finish`](Self::finish).
    ///
    /// ```
    /// use dory_wire::preview::{NoticeKind, RunBounder, RunEnd, SpillOutcome, View};
    /// use dory_wire::Stream;
    ///
    /// let mut run = RunBounder::new(400, 16384);
    /// run.push(Stream::Stderr, b"error: no such file\n");
    /// let pending = run.finish_ended(&RunEnd::new(Some(2), false))?;
    /// let combined = pending.render(View::Combined, SpillOutcome::NotSaved, None);
    /// assert_eq!(combined.text, "error: no such file\n[... exit code 2 ...]\n");
    /// assert_eq!(combined.notices[0].kind, NoticeKind::End);
    /// let stderr = pending.render(View::Stderr, SpillOutcome::NotSaved, None);
    /// assert_eq!(stderr.text, "error: no such file\n");
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn finish_ended(self, end: &RunEnd) -> Result<RunPending, Error> {
        self.finish_with(Some(end))
    }

    fn finish_with(self, end: Option<&RunEnd>) -> Result<RunPending, Error> {
        let losses = View::ALL.map(|v| self.losses(v));
        let raw_stderr = self.views[View::Stderr.index()].total_bytes();
        let limits = self.limits;
        let terminal = self.terminal;
        let mut stderr_tail = self.stderr_tail;
        let mut stderr_spans = self.stderr_spans;
        let mut spans_cover = self.spans_cover;
        let cap = stderr_tail.cap() as u64;
        let [out, err, both] = self.views;
        // Under `terminal` the rows still held are given out now: stderr's
        // to the ring, the combined view's stderr rows to the runs.
        let err = err.into_retained_with(&mut |b, _, _| stderr_tail.push(b));
        let both = both.into_retained_with(&mut |b, tag, at| {
            if tag {
                add_span(&mut stderr_spans, &mut spans_cover, cap, at, b.len() as u64);
            }
        });
        let stderr_total = if terminal { err.total() } else { raw_stderr };
        let kept = [out.into_retained(), err, both];
        let spill_ids = [0, 1, 2].map(|i| kept[i].spill_id().to_owned());
        let mut views = Vec::with_capacity(3);
        for (view, kept) in View::ALL.into_iter().zip(kept) {
            let loss = losses[view.index()];
            let end = end.copied().filter(|_| view == View::Combined);
            views.push(ViewPending::at(view, kept, limits, loss, end)?);
        }
        let mut views = views.into_iter();
        let (Some(stdout), Some(stderr), Some(combined)) =
            (views.next(), views.next(), views.next())
        else {
            unreachable!("three views")
        };
        let mut pending = RunPending {
            views: [stdout, stderr, combined],
            spill_ids,
            stderr_tail: stderr_tail.into_vec(),
            stderr_total,
            stderr_spans: stderr_spans.into(),
        };
        if let Some(limit) = limits.tokens() {
            for view in View::ALL {
                pending.fit_uncut(view, limits, limit)?;
            }
        }
        Ok(pending)
    }
}

/// Records in `spans` (covering `cover` bytes) that stderr's bytes sit at
/// `start..start + len` of the combined view, keeping the runs that cover
/// the last `cap` bytes, no more.
fn add_span(spans: &mut VecDeque<(u64, u64)>, cover: &mut u64, cap: u64, start: u64, len: u64) {
    if len == 0 {
        return;
    }
    match spans.back_mut() {
        Some(last) if last.0 + last.1 == start => last.1 += len,
        _ => spans.push_back((start, len)),
    }
    *cover += len;
    while let Some(&(_, first)) = spans.front() {
        if *cover - first < cap {
            break;
        }
        spans.pop_front();
        *cover -= first;
    }
}

impl Sink for RunBounder {
    fn output(&mut self, stream: Stream, data: Cow<'_, [u8]>, _start: u64, _end: u64) {
        self.push(stream, &data);
    }

    fn event(&mut self, event: Event) {
        if let Event::Skipped { stream, start, end } = event {
            self.lose(stream, start, end);
        }
    }
}

#[derive(Debug, Clone)]
struct ViewPending {
    view: View,
    /// The view's bytes bounded at `content`.
    bounded: Bounded<'static>,
    /// The limits less the loss line's and the end line's room.
    content: Limits,
    loss_line: Option<String>,
    /// The combined view's end line ([`RunBounder::finish_ended`]).
    end_line: Option<String>,
    lost_bytes: u64,
    lost_ranges: u64,
    /// The view's kept bytes: the combined view's, to bound again beside a
    /// stderr section; every view's under a token limit, to bound again at
    /// smaller byte budgets.
    kept: Option<RetainedInput>,
    /// Under a token limit: what the view is bounded at again.
    fit: Option<Box<ViewFit>>,
}

/// A view's token limit and what its bounding takes besides its bytes.
#[derive(Debug, Clone)]
struct ViewFit {
    /// The limits the view was bounded at (no token limit).
    limits: Limits,
    limit: TokenLimit,
    loss: Losses,
    end: Option<RunEnd>,
}

impl ViewPending {
    /// `view`'s bytes (`kept`) bounded at `limits`, less the room of its
    /// loss line and end line. Under a token limit in `limits`, what bounds
    /// it again at smaller byte budgets is kept beside it.
    fn at(
        view: View,
        kept: RetainedInput,
        limits: Limits,
        loss: Losses,
        end: Option<RunEnd>,
    ) -> Result<ViewPending, Error> {
        let tokens = limits.tokens();
        let limits = limits.without_tokens();
        let (content, line) = match loss.line(limits.max_bytes()) {
            None => (limits, None),
            Some(line) => {
                let need = line.len() + 2;
                if limits.max_lines() == 0 || limits.max_bytes() < need {
                    return Err(Error::InvalidLimits {
                        reason: format!(
                            "{} bytes of {} were lost and the limits leave no room to say so: the line needs {need} bytes and a line, max_bytes={} and max_lines={}",
                            loss.bytes,
                            view.as_str(),
                            limits.max_bytes(),
                            limits.max_lines()
                        ),
                    });
                }
                (
                    limits.resized(limits.max_lines() - 1, limits.max_bytes() - need),
                    Some(line),
                )
            }
        };
        let ended = end.and_then(|end| {
            let end_line = end.line(limits.max_bytes());
            let need = end_line.len() + 2;
            let less = content
                .max_lines()
                .checked_sub(1)
                .zip(content.max_bytes().checked_sub(need));
            // The line takes its room when the rest still holds the view (a
            // cut, if it needs one); else it is left out.
            less.and_then(|(lines, bytes)| {
                let less = content.resized(lines, bytes);
                kept.bound(less).ok().map(|b| (b, less, end_line))
            })
        });
        let (bounded, content, end_line) = match ended {
            Some((bounded, less, end_line)) => (bounded, less, Some(end_line)),
            None => (kept.bound(content)?, content, None),
        };
        let keep_bytes = view == View::Combined || tokens.is_some();
        Ok(ViewPending {
            view,
            bounded,
            content,
            end_line,
            loss_line: line,
            lost_bytes: loss.bytes,
            lost_ranges: loss.ranges,
            kept: keep_bytes.then_some(kept),
            fit: tokens.map(|limit| {
                Box::new(ViewFit {
                    limits,
                    limit,
                    loss,
                    end,
                })
            }),
        })
    }

    /// The same view bounded at byte budget `max_bytes` (its lines and
    /// split unchanged).
    fn again(&self, max_bytes: usize) -> Option<ViewPending> {
        let fit = self.fit.as_ref()?;
        let kept = self.kept.clone()?;
        let limits = fit
            .limits
            .resized(fit.limits.max_lines(), max_bytes)
            .with_token_limit(Some(fit.limit));
        ViewPending::at(self.view, kept, limits, fit.loss, fit.end).ok()
    }

    /// The least byte budget the view can be cut at: a cut's least beside
    /// the room of the compact loss line.
    fn least_budget(&self) -> usize {
        let loss = self
            .fit
            .as_ref()
            .and_then(|f| f.loss.line(0))
            .map_or(0, |line| line.len() + 2);
        MIN_MAX_BYTES + loss
    }
}

/// A finished run, waiting for each view's spill outcome.
///
/// Render each view with [`render`](Self::render) once you know whether its
/// spill was saved. A view that [`needs_spill`](Self::needs_spill) `false`
/// shows every byte it has, so its spill (if you wrote one) can be removed.
#[derive(Debug, Clone)]
pub struct RunPending {
    views: [ViewPending; 3],
    spill_ids: [String; 3],
    stderr_tail: Vec<u8>,
    stderr_total: u64,
    stderr_spans: Vec<(u64, u64)>,
}

impl RunPending {
    /// The id to save `view`'s full bytes under (the one
    /// [`RunBounder::spill_id`] gave).
    pub fn spill_id(&self, view: View) -> &str {
        &self.spill_ids[view.index()]
    }

    /// Whether `view` is cut, so that its preview points at a spill.
    pub fn needs_spill(&self, view: View) -> bool {
        matches!(self.views[view.index()].bounded, Bounded::NeedsSpill(_))
    }

    /// Bytes of `view` (lost bytes not included).
    pub fn total_bytes(&self, view: View) -> u64 {
        match &self.views[view.index()].bounded {
            Bounded::Fits(p) => p.total_bytes,
            Bounded::NeedsSpill(p) => p.total_bytes(),
        }
    }

    /// Bytes of `view` that were lost, and in how many ranges.
    pub fn lost(&self, view: View) -> (u64, u64) {
        let v = &self.views[view.index()];
        (v.lost_bytes, v.lost_ranges)
    }

    /// Renders `view` for its spill outcome (ignored when the view is not
    /// cut). The text is the view's bytes bounded as by
    /// [`PendingSpill::render`](super::PendingSpill::render), then (combined
    /// view only) the stderr section, then the loss line, then (combined
    /// view of [`RunBounder::finish_ended`] only) the end line; the other
    /// fields describe the view's bytes.
    ///
    /// Under a token limit the text encodes to at most `max_tokens` tokens:
    /// when the view at its limits encodes to more, it is bounded again at
    /// the largest byte budget whose preview fits (as
    /// [`Limits::with_max_tokens`] says), and [`Preview::tokens`] holds the
    /// count.
    pub fn render(
        &self,
        view: View,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Preview<'static> {
        let v = &self.views[view.index()];
        let mut preview = self.render_view(v, outcome.clone(), hint);
        let Some(fit) = &v.fit else {
            return preview;
        };
        if fit::count(&mut preview, fit.limit) {
            return preview;
        }
        let over = preview.tokens.unwrap_or(0) as usize;
        let at = |b: usize| {
            v.again(b)
                .map(|again| self.render_view(&again, outcome.clone(), hint))
        };
        // `fit_uncut` refused a token limit below the least budget, whose
        // preview (at most that many bytes) always fits.
        fit::bisect(
            fit.limit,
            v.least_budget(),
            fit.limits.max_bytes(),
            over,
            at,
        )
        .unwrap_or(preview)
    }

    /// Under a token limit: a view within its lines and bytes whose text
    /// encodes to more tokens is bounded again at the byte budget of its
    /// length less one (each time smaller) until it fits or must be cut, so
    /// that [`needs_spill`](Self::needs_spill) is known before rendering.
    fn fit_uncut(&mut self, view: View, limits: Limits, limit: TokenLimit) -> Result<(), Error> {
        loop {
            let v = &self.views[view.index()];
            let least = v.least_budget();
            if let Bounded::NeedsSpill(_) = v.bounded {
                return Self::check_tokens(view, limit, least);
            }
            let mut p = self.render_view(v, SpillOutcome::NotSaved, None);
            if fit::count(&mut p, limit) {
                return Ok(());
            }
            Self::check_tokens(view, limit, least)?;
            limits.check_cut()?;
            // Longer than max_tokens ≥ least: the budget stays at least that.
            let again = v
                .again(p.text.len() - 1)
                .ok_or_else(|| Error::InvalidLimits {
                    reason: format!(
                        "{} must be cut to fit max_tokens={} and the limits leave no room",
                        view.as_str(),
                        limit.max_tokens
                    ),
                })?;
            self.views[view.index()] = again;
        }
    }

    /// A cut of `view` under `limit` needs `least` tokens: a preview of
    /// `least` bytes is the smallest the view can be cut to.
    fn check_tokens(view: View, limit: TokenLimit, least: usize) -> Result<(), Error> {
        if limit.max_tokens < least {
            return Err(Error::InvalidLimits {
                reason: format!(
                    "{} must be cut and max_tokens={} is below {least}, the least its cut preview needs",
                    view.as_str(),
                    limit.max_tokens
                ),
            });
        }
        Ok(())
    }

    /// [`render`](Self::render) at the view's limits, the token limit ignored.
    fn render_view(
        &self,
        v: &ViewPending,
        outcome: SpillOutcome,
        hint: Option<&str>,
    ) -> Preview<'static> {
        let mut preview = match &v.bounded {
            Bounded::Fits(p) => p.clone(),
            Bounded::NeedsSpill(p) => p.render(outcome.clone(), hint),
        };
        let section = match v.view {
            View::Combined if preview.truncated => self.stderr_section(v.content),
            _ => None,
        };
        if let Some((section, lines, taken)) = section {
            if self.hides_stderr_end(&preview, taken) {
                let rest = v.content.resized(
                    v.content.max_lines() - lines,
                    v.content.max_bytes() - section.len() - 1,
                );
                let again = v.kept.as_ref().and_then(|k| k.bound(rest).ok());
                if let Some(Bounded::NeedsSpill(p)) = again {
                    let mut p = p.render(outcome, hint);
                    let mut text = p.text.into_owned();
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    // The section's first line is its header: a notice.
                    let start = text.len();
                    let end = start + section.find('\n').unwrap_or(section.len());
                    text.push_str(&section);
                    p.text = Cow::Owned(text);
                    p.notices.push(Notice::new(NoticeKind::Stderr, start, end));
                    preview = p;
                }
            }
        }
        if let Some(line) = &v.loss_line {
            preview.append_notice(NoticeKind::Lost, line);
        }
        if let Some(line) = &v.end_line {
            preview.append_notice(NoticeKind::End, line);
        }
        preview
    }

    /// Whether the combined preview hides a byte of stderr's last `taken`
    /// (the ones its section would show).
    fn hides_stderr_end(&self, p: &Preview<'_>, taken: u64) -> bool {
        let (hidden_from, hidden_to) = (p.head_bytes, p.total_bytes - p.tail_bytes);
        let mut rest = taken;
        for &(start, len) in self.stderr_spans.iter().rev() {
            if rest == 0 {
                break;
            }
            let take = len.min(rest);
            let (from, to) = (start + len - take, start + len);
            if from < hidden_to && hidden_from < to {
                return true;
            }
            rest -= take;
        }
        rest > 0
    }

    /// The stderr section for a combined view bounded at `content`: its
    /// text (ending with `\n`) and lines, when a quarter of the budget holds
    /// it and leaves the rest room for a cut.
    fn stderr_section(&self, content: Limits) -> Option<(String, usize, u64)> {
        let r_lines = content.max_lines() / 4;
        let r_bytes = content.max_bytes() / 4;
        if r_lines < 2 || content.max_bytes() - r_bytes < MIN_MAX_BYTES + 1 {
            return None;
        }
        let total = self.stderr_total;
        let header = |n: u64| {
            let unit = if total == 1 { "byte" } else { "bytes" };
            format!("[... the last {n} of {total} {unit} of stderr ...]\n")
        };
        let widest = header((r_bytes as u64).min(total)).len();
        // Room for the shown bytes and the `\n` that may end them.
        let budget = r_bytes.checked_sub(widest + 1)?;
        if budget < MIN_PARTIAL {
            return None;
        }
        let (shown, taken) = select_tail(&self.stderr_tail, total, budget, r_lines - 1)?;
        let mut text = header(taken);
        text.push_str(&shown);
        if !shown.ends_with('\n') {
            text.push('\n');
        }
        let lines = 1 + shown.matches('\n').count() + usize::from(!shown.ends_with('\n'));
        Some((text, lines, taken))
    }
}

/// The end of stderr that fits in `budget` rendered bytes and `max_lines`
/// lines, whole lines first: the text and the input bytes it shows.
/// `tail` holds stderr's last bytes, of `total` in all.
fn select_tail(tail: &[u8], total: u64, budget: usize, max_lines: usize) -> Option<(String, u64)> {
    let mut from = 0;
    if (tail.len() as u64) < total {
        // The buffer starts mid-stream: start at a character.
        while from < tail.len().min(3) && (0x80..0xC0).contains(&tail[from]) {
            from += 1;
        }
    }
    // Units: one character, or one maximal invalid sequence (one U+FFFD).
    let mut units: Vec<(usize, &str)> = Vec::new();
    for chunk in tail[from..].utf8_chunks() {
        let valid = chunk.valid();
        let mut at = 0;
        for c in valid.chars() {
            let len = c.len_utf8();
            units.push((len, &valid[at..at + len]));
            at += len;
        }
        if !chunk.invalid().is_empty() {
            units.push((chunk.invalid().len(), "\u{FFFD}"));
        }
    }
    let last = units.len().checked_sub(1)?;
    let (mut start, mut size, mut lines) = (units.len(), 0usize, 0usize);
    for (i, &(_, out)) in units.iter().enumerate().rev() {
        let lines_after = if i == last {
            1
        } else if out == "\n" {
            lines + 1
        } else {
            lines
        };
        if size + out.len() > budget || lines_after > max_lines {
            break;
        }
        size += out.len();
        lines = lines_after;
        start = i;
    }
    // Whole lines first: drop a partial first line when a whole one remains.
    let partial = start > 0 || (tail.len() as u64) < total;
    if partial && start > 0 && units[start - 1].1 != "\n" {
        if let Some(nl) = (start..last).find(|&i| units[i].1 == "\n") {
            start = nl + 1;
        }
    }
    if start > last {
        return None;
    }
    let shown: String = units[start..].iter().map(|u| u.1).collect();
    let taken = units[start..].iter().map(|u| u.0 as u64).sum();
    Some((shown, taken))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> usize {
        text.matches('\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
    }

    fn bounder(max_lines: usize, max_bytes: usize, items: &[(Stream, &[u8])]) -> RunBounder {
        let mut run = RunBounder::new(max_lines, max_bytes).with_spill_id("t");
        for (stream, data) in items {
            run.push(*stream, data);
        }
        run
    }

    #[test]
    fn end_lines_say_each_end() {
        let line = |code, timed_out, t| RunEnd::new(code, timed_out).timeout_seconds(t).line(1000);
        assert_eq!(line(Some(0), false, None), "[... exit code 0 ...]");
        assert_eq!(line(Some(-1), false, Some(5.0)), "[... exit code -1 ...]");
        assert_eq!(line(None, false, None), "[... killed: no exit code ...]");
        assert_eq!(
            line(None, true, Some(30.0)),
            "[... timed out after 30 s: killed, no exit code ...]"
        );
        assert_eq!(
            line(None, true, None),
            "[... timed out: killed, no exit code ...]"
        );
        assert_eq!(
            line(Some(124), true, Some(0.5)),
            "[... timed out after 0.5 s, exit code 124 ...]"
        );
        // A deadline that is no positive number is not named.
        assert_eq!(line(None, true, Some(f64::NAN)), line(None, true, None));
        // The deadline is given up when the line would take over a quarter.
        let long = RunEnd::new(None, true).timeout_seconds(Some(1e300));
        assert_eq!(long.line(1000), "[... timed out: killed, no exit code ...]");
        assert!(RunEnd::new(Some(i64::MIN), false).line(0).len() <= 40);
    }

    #[test]
    fn the_end_line_is_the_combined_views_last_and_only_there() {
        let items: [(Stream, &[u8]); 2] = [(Stream::Stdout, b"out\n"), (Stream::Stderr, b"err")];
        let plain = bounder(10, 1000, &items).finish().unwrap();
        let ended = bounder(10, 1000, &items)
            .finish_ended(&RunEnd::new(Some(1), false))
            .unwrap();
        for view in [View::Stdout, View::Stderr] {
            assert_eq!(
                ended.render(view, SpillOutcome::NotSaved, None),
                plain.render(view, SpillOutcome::NotSaved, None)
            );
        }
        let p = ended.render(View::Combined, SpillOutcome::NotSaved, None);
        assert_eq!(p.text, "out\nerr\n[... exit code 1 ...]\n");
        assert!(!p.truncated);
        assert_eq!((p.total_bytes, p.head_bytes), (7, 7));
        let notices: Vec<_> = p.notice_lines().collect();
        assert_eq!(notices, [(NoticeKind::End, 3, "[... exit code 1 ...]")]);
    }

    #[test]
    fn the_end_line_follows_the_loss_line_and_takes_its_room() {
        let mut run = bounder(6, 400, &[(Stream::Stdout, "line\n".repeat(100).as_bytes())]);
        run.lose(Stream::Stderr, 0, 10);
        let pending = run.finish_ended(&RunEnd::new(None, false)).unwrap();
        let p = pending.render(View::Combined, SpillOutcome::NotSaved, None);
        assert!(p.truncated);
        assert!(lines(&p.text) <= 6 && p.text.len() <= 400, "{}", p.text);
        let kinds: Vec<_> = p.notices.iter().map(|n| n.kind).collect();
        assert_eq!(
            kinds,
            [NoticeKind::Omitted, NoticeKind::Lost, NoticeKind::End]
        );
        assert!(p.text.ends_with(
            "[... 10 bytes lost: stderr offsets 0-10 were not retained ...]\n[... killed: no exit code ...]\n"
        ));
    }

    /// Output that fits the limits but not beside the end line is cut, the
    /// line within the limits; limits with no room for a cut beside it
    /// leave the line out.
    #[test]
    fn the_end_line_holds_the_limits_at_every_budget() {
        let data = "ok\n".repeat(20);
        let end = RunEnd::new(None, true).timeout_seconds(Some(30.0));
        for max_lines in 0..25 {
            for max_bytes in 0..120 {
                let make = || bounder(max_lines, max_bytes, &[(Stream::Stdout, data.as_bytes())]);
                let Ok(plain) = make().finish() else {
                    assert!(make().finish_ended(&end).is_err());
                    continue;
                };
                let ended = make().finish_ended(&end).unwrap();
                let p = ended.render(View::Combined, SpillOutcome::NotSaved, None);
                assert!(
                    lines(&p.text) <= max_lines && p.text.len() <= max_bytes,
                    "{max_lines}/{max_bytes}: {:?}",
                    p.text
                );
                let has_end = p.notices.iter().any(|n| n.kind == NoticeKind::End);
                if !has_end {
                    let q = plain.render(View::Combined, SpillOutcome::NotSaved, None);
                    assert_eq!(p, q, "{max_lines}/{max_bytes}: left out, as finish()");
                } else {
                    assert!(p.text.ends_with(" ...]\n"));
                }
                if max_lines >= 2 && max_bytes >= 80 {
                    assert!(has_end, "{max_lines}/{max_bytes}: {:?}", p.text);
                }
            }
        }
    }

    /// A run whose stderr line is held in the combined view's window while
    /// stdout redraws below it: the combined view still shows it, the
    /// stderr view ends with it.
    #[test]
    fn a_run_shows_stderr_held_in_the_window() {
        use super::super::terminal::buildkit;
        use super::super::{RunBounder, SpillOutcome, View};
        use crate::Stream;
        let mut run = RunBounder::new(12, 600).with_terminal(true);
        for i in 0..200 {
            run.push(Stream::Stdout, format!("line {i}\n").as_bytes());
        }
        run.push(Stream::Stderr, b"\x1b[31merror: boom\x1b[0m\n");
        run.push(Stream::Stdout, &buildkit(4, 30));
        let pending = run.finish().expect("limits");
        let combined = pending.render(View::Combined, SpillOutcome::NotSaved, None);
        assert!(combined.text.len() <= 600, "{}", combined.text);
        assert!(combined.text.contains("error: boom\n"), "{}", combined.text);
        assert!(
            combined.text.contains("#3 step 3: 30s\n"),
            "{}",
            combined.text
        );
        assert!(!combined.text.contains("29s"), "{}", combined.text);
        let stderr = pending.render(View::Stderr, SpillOutcome::NotSaved, None);
        assert!(stderr.text.starts_with("error: boom\n"), "{}", stderr.text);
    }
}
