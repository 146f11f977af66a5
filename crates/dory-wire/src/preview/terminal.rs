//! Terminal rendering: the lines a terminal would leave on screen, streaming,
//! in memory bounded by the limits. The rules are in `docs/preview.md`
//! ("Terminal rendering").
//!
//! - The renderer keeps a *window* of the last [`WINDOW_ROWS`] screen rows
//!   (fewer when they hold more than [`Terminal::held_budget`] bytes). Text
//!   is written at the cursor; `\b` moves it one character left, `\r` (not
//!   before `\n`) back to the row's start, `ESC[nA`/`ESC[nF` up and
//!   `ESC[nB`/`ESC[nE` down within the window, `ESC[nG` to a column, and
//!   `ESC[K` (0, 1, 2) erases in the row.
//! - Every raw `\n` ends one raw line and moves the cursor one row down (a
//!   new row at the bottom). The raw line whose `\n` was the last on a row
//!   *owns* it: when the row leaves the window (or the input ends), that raw
//!   line is given out with the row's final text. A raw line whose row was
//!   taken by a later `\n` is *hidden*: it is given out as
//!   [`Out::Hidden`], so the consumer numbers lines as the raw bytes do.
//! - Lines are given out in raw order. A row taken back out of order (its
//!   owner older than a row above it) is given out when that row leaves.
//! - Escape sequences are parsed as vte's table does (CSI, the string
//!   sequences, the short `ESC …` ones) and removed; C0 controls other than
//!   `\t`, `\n`, `\r` and `\b`, and DEL, are removed.
//!
//! A row keeps only its first and last `cap` bytes: the bytes between are
//! given out as spaces, where no bounder window ever reaches (a window is at
//! most `cap` bytes from an end of the rendered input, so of the line).

use std::collections::VecDeque;

use super::ring::grow_capped;

/// The most rows the renderer can move back to: a cursor-up further than the
/// rows it holds is removed and does nothing.
pub(crate) const WINDOW_ROWS: usize = 64;

/// What the renderer gives out, in raw line order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out<'a> {
    /// Rendered bytes, and the tag of the push that last wrote their row.
    Text(&'a [u8], bool),
    /// Raw lines not shown: a later line rewrote their row.
    Hidden(u64),
}

/// What rendering changed: the counts of the terminal line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct TermCounts {
    /// Segments replaced by a later one on the same line, and raw lines
    /// hidden because a later line rewrote their row.
    pub(crate) redraws: u64,
    /// Escape sequences removed.
    pub(crate) escapes: u64,
    /// Other control bytes removed (backspaces included).
    pub(crate) controls: u64,
}

impl TermCounts {
    /// Whether nothing was changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.redraws == 0 && self.escapes == 0 && self.controls == 0
    }

    /// The terminal line: `[... terminal: 3 redraws collapsed, 12 escape
    /// sequences removed, 1 control byte removed ...]`, naming only the
    /// counts that are not zero.
    pub(crate) fn line(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut parts = Vec::with_capacity(3);
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        if self.redraws > 0 {
            parts.push(plural(self.redraws, "redraw", "redraws") + " collapsed");
        }
        if self.escapes > 0 {
            parts.push(plural(self.escapes, "escape sequence", "escape sequences") + " removed");
        }
        if self.controls > 0 {
            parts.push(plural(self.controls, "control byte", "control bytes") + " removed");
        }
        Some(format!("[... terminal: {} ...]", parts.join(", ")))
    }
}

/// Where the escape parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    /// Plain text.
    Ground,
    /// After `ESC`.
    Start,
    /// `ESC` and intermediate bytes (`0x20-0x2F`).
    Intermediate,
    /// `ESC [` and parameter or intermediate bytes.
    Csi,
    /// `ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _`: until BEL or `ESC \`.
    Str,
    /// `ESC` inside a string sequence.
    StrEscape,
}

/// The CSI sequence being read: its first parameter, and whether it is one
/// the renderer acts on (no private marker, no intermediate byte).
#[derive(Debug, Clone, Copy, Default)]
struct Csi {
    param: u32,
    /// A `;` or `:` ended the first parameter.
    past_first: bool,
    /// A private marker (`<=>?`) or an intermediate byte was read.
    private: bool,
}

/// The text of one row, in bounded memory: its first bytes, its last
/// bytes, and its length (the bytes between are spaces).
#[derive(Debug, Clone, Default)]
struct Line {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    len: u64,
}

/// A run of spaces, to write a gap out.
const SPACES: [u8; 1024] = [b' '; 1024];

impl Line {
    /// Bytes held.
    fn held(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn capacity(&self) -> usize {
        self.head.capacity() + self.tail.capacity()
    }

    /// Where the retained tail starts in the line.
    fn tail_start(&self) -> u64 {
        self.len - self.tail.len() as u64
    }

    fn clear(&mut self) {
        self.head.clear();
        self.tail.clear();
        self.len = 0;
    }

    /// The byte at `pos`, when retained.
    fn byte_at(&self, pos: u64) -> Option<u8> {
        if pos < self.head.len() as u64 {
            self.head.get(pos as usize).copied()
        } else if pos >= self.tail_start() && pos < self.len {
            self.tail.get((pos - self.tail_start()) as usize).copied()
        } else {
            None
        }
    }

    /// Appends `bytes` at the end.
    fn append(&mut self, mut bytes: &[u8], cap: usize) {
        if self.tail.is_empty() && self.len == self.head.len() as u64 && self.head.len() < cap {
            let take = (cap - self.head.len()).min(bytes.len());
            grow_capped(&mut self.head, take, cap);
            self.head.extend_from_slice(&bytes[..take]);
            self.len += take as u64;
            bytes = &bytes[take..];
        }
        if bytes.is_empty() {
            return;
        }
        self.len += bytes.len() as u64;
        if bytes.len() >= cap {
            self.tail.clear();
            bytes = &bytes[bytes.len() - cap..];
        } else {
            let over = (self.tail.len() + bytes.len()).saturating_sub(cap);
            self.tail.drain(..over);
        }
        // Grows geometrically, never past `cap`.
        let needed = self.tail.len() + bytes.len();
        if needed > self.tail.capacity() {
            let target = self
                .tail
                .capacity()
                .saturating_mul(2)
                .clamp(needed, cap.max(needed));
            self.tail.reserve_exact(target - self.tail.len());
        }
        self.tail.extend(bytes);
    }

    /// Spaces up to `col` (a cursor past the end writes there).
    fn pad_to(&mut self, col: u64, cap: usize) {
        let mut n = col.saturating_sub(self.len);
        if n > 2 * cap as u64 + 2 * SPACES.len() as u64 {
            // Far past the end: the old tail is now in the middle, where no
            // window reaches, and the end is spaces (the gap's).
            let fill = (cap.saturating_sub(self.head.len()) as u64).min(n) as usize;
            if self.tail.is_empty() && self.len == self.head.len() as u64 {
                self.head.resize(self.head.len() + fill, b' ');
                self.len += fill as u64;
                n -= fill as u64;
            }
            self.tail.clear();
            self.len += n;
            return;
        }
        while n > 0 {
            let k = n.min(SPACES.len() as u64) as usize;
            self.append(&SPACES[..k], cap);
            n -= k as u64;
        }
    }

    /// Writes byte `b` over the line at `col` (before its end): a byte that
    /// starts a character replaces the whole character there; the rest of
    /// a character (`cont` bytes still expected) is inserted after it.
    /// Returns the column after it.
    fn overwrite(&mut self, col: u64, b: u8, cont: &mut u8, cap: usize) -> u64 {
        let continuation = (0x80..0xC0).contains(&b);
        let old = if continuation && *cont > 0 {
            *cont -= 1;
            0
        } else {
            *cont = match b {
                0xC0..=0xDF => 1,
                0xE0..=0xEF => 2,
                0xF0..=0xF7 => 3,
                _ => 0,
            };
            self.char_len_at(col)
        };
        let old = old.min(self.len - col);
        let tail_start = self.tail_start();
        if col + old <= self.head.len() as u64 {
            let (at, end) = (col as usize, (col + old) as usize);
            if old == 1 {
                self.head[at] = b;
            } else {
                self.head.splice(at..end, [b]);
                self.len = self.len + 1 - old;
                self.spill_head(cap);
            }
        } else if col >= tail_start {
            let at = (col - tail_start) as usize;
            if old == 1 {
                self.tail[at] = b;
            } else {
                self.tail.drain(at..at + old as usize);
                self.tail.insert(at, b);
                self.len = self.len + 1 - old;
                let over = self.tail.len().saturating_sub(cap);
                self.tail.drain(..over);
            }
        } else {
            // Not retained (or across the gap's edge): the byte is lost
            // there, as any byte of the middle of a long line.
            return col + old.max(1);
        }
        col + 1
    }

    /// Bytes of the character at `col` (1 when it is not retained).
    fn char_len_at(&self, col: u64) -> u64 {
        let width = match self.byte_at(col) {
            Some(0xC0..=0xDF) => 2,
            Some(0xE0..=0xEF) => 3,
            Some(0xF0..=0xF7) => 4,
            _ => return 1,
        };
        let mut n = 1;
        while n < width && matches!(self.byte_at(col + n), Some(0x80..=0xBF)) {
            n += 1;
        }
        n
    }

    /// After `head` grew past `cap`: its last bytes go to the tail (or to
    /// the gap when there is one).
    fn spill_head(&mut self, cap: usize) {
        if self.head.len() <= cap {
            return;
        }
        let gap = self.len - self.held() as u64;
        let extra = self.head.split_off(cap);
        if gap == 0 {
            for &b in extra.iter().rev() {
                self.tail.push_front(b);
            }
            let over = self.tail.len().saturating_sub(cap);
            self.tail.drain(..over);
        }
    }

    /// The column before `col`: one character left, never before 0.
    fn back(&self, col: u64) -> u64 {
        let Some(mut col) = col.checked_sub(1) else {
            return 0;
        };
        let mut steps = 0;
        while col > 0 && steps < 3 && matches!(self.byte_at(col), Some(0x80..=0xBF)) {
            col -= 1;
            steps += 1;
        }
        col
    }

    /// Erases from `col` to the end.
    fn truncate(&mut self, col: u64) {
        if col >= self.len {
            return;
        }
        if col <= self.head.len() as u64 {
            self.head.truncate(col as usize);
            self.tail.clear();
        } else if col >= self.tail_start() {
            self.tail.truncate((col - self.tail_start()) as usize);
        } else {
            self.tail.clear();
        }
        self.len = col;
    }

    /// Spaces over the bytes before `end` (byte for byte).
    fn blank_to(&mut self, end: u64) {
        let end = end.min(self.len);
        let h = (end as usize).min(self.head.len());
        self.head[..h].fill(b' ');
        let tail_start = self.tail_start();
        if end > tail_start {
            let n = ((end - tail_start) as usize).min(self.tail.len());
            self.tail.range_mut(..n).for_each(|b| *b = b' ');
        }
    }

    /// Gives the line out (head, the gap as spaces, tail).
    fn write_out(&self, tag: bool, out: &mut dyn FnMut(Out<'_>)) {
        if !self.head.is_empty() {
            out(Out::Text(&self.head, tag));
        }
        let mut gap = self.len - self.held() as u64;
        while gap > 0 {
            let n = gap.min(SPACES.len() as u64) as usize;
            out(Out::Text(&SPACES[..n], tag));
            gap -= n as u64;
        }
        let (a, b) = self.tail.as_slices();
        for part in [a, b] {
            if !part.is_empty() {
                out(Out::Text(part, tag));
            }
        }
    }
}

/// One screen row of the window.
#[derive(Debug, Clone, Default)]
struct Row {
    line: Line,
    /// The raw line that owns the row (its `\n` was the last on it); 0 for
    /// none (the bottom row, or a row whose owner was given out already).
    owner: u64,
    /// The raw line during which the row's text was last written.
    written_in: u64,
    /// The tag of the push that last wrote the row.
    tag: bool,
}

/// The terminal renderer of one stream.
#[derive(Debug, Clone)]
pub(crate) struct Terminal {
    esc: Esc,
    csi: Csi,
    /// A `\r` was the last byte: the next one says whether it ends a line.
    cr: bool,
    /// The cursor returned to a row's start: the next text (or erase)
    /// replaces the row's text (a redraw).
    fresh: bool,
    cap: usize,
    /// The window, oldest row first; never empty.
    rows: VecDeque<Row>,
    cursor: usize,
    col: u64,
    /// Continuation bytes still expected by a character written over text.
    cont: u8,
    /// The raw line being read (1-based).
    line: u64,
    /// The next raw line to give out.
    next: u64,
    /// Bytes held by the rows other than the cursor's.
    held: usize,
    /// The tag of the current push.
    tag: bool,
    /// A `\n` was read on a row above the bottom (then a row leaving may
    /// have older owners below it).
    reowned: bool,
    /// The buffers of a row that left, for the next new row.
    spare: Option<Line>,
    counts: TermCounts,
}

/// The furthest column `ESC[nG` moves to (a wider terminal is rare, and
/// each column past a row's end is a space written out).
const MAX_COLUMN: u64 = 1024;

/// A row's buffers are reused when they hold at most this many bytes.
const SPARE_CAPACITY: usize = 4096;

/// True for the bytes that are not shown as they are.
fn special(b: u8) -> bool {
    b < 0x20 || b == 0x7F
}

/// Where the first byte of `bytes` that is [`special`] is: eight bytes at
/// a time (a word test for a byte below `0x20` or equal to `0x7F`), then
/// byte by byte.
fn first_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for c in &mut chunks {
        if let Ok(word) = <[u8; 8]>::try_from(c) {
            let x = u64::from_le_bytes(word);
            // A byte below 0x20 (exact for "any": bytes of 0x80 and up
            // have their high bit set in `x`), or a byte equal to 0x7F.
            let low = x.wrapping_sub(0x20 * ONES) & !x;
            let y = x ^ (0x7F * ONES);
            let del = y.wrapping_sub(ONES) & !y;
            if (low | del) & HIGH != 0 {
                if let Some(i) = c.iter().position(|&b| special(b)) {
                    return Some(base + i);
                }
            }
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| special(b))
        .map(|i| base + i)
}

/// Gives out raw line `owner` as `row`'s text and `\n`, after the hidden
/// lines before it.
fn give(next: &mut u64, owner: u64, row: &Row, out: &mut dyn FnMut(Out<'_>)) {
    if owner > *next {
        out(Out::Hidden(owner - *next));
    }
    row.line.write_out(row.tag, out);
    out(Out::Text(b"\n", row.tag));
    *next = owner + 1;
}

impl Terminal {
    /// A renderer keeping at most `cap` bytes at each end of a row.
    pub(crate) fn new(cap: usize) -> Self {
        let mut rows = VecDeque::with_capacity(4);
        rows.push_back(Row::default());
        Terminal {
            esc: Esc::Ground,
            csi: Csi::default(),
            cr: false,
            fresh: false,
            cap: cap.max(1),
            rows,
            cursor: 0,
            col: 0,
            cont: 0,
            line: 1,
            next: 1,
            held: 0,
            tag: false,
            reowned: false,
            spare: None,
            counts: TermCounts::default(),
        }
    }

    /// The most bytes the rows other than the cursor's hold: beyond it the
    /// oldest rows leave the window early.
    pub(crate) fn held_budget(&self) -> usize {
        self.cap.saturating_mul(2)
    }

    /// Bytes of buffer held: the cursor's row at most `2 × cap` (plus the
    /// growth of its deque), the others about twice [`held_budget`](Self::held_budget)
    /// and a small buffer each.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.rows.iter().map(|r| r.line.capacity()).sum::<usize>()
            + self.spare.as_ref().map_or(0, Line::capacity)
            + self.rows.capacity() * std::mem::size_of::<Row>()
    }

    /// The counts so far.
    pub(crate) fn counts(&self) -> TermCounts {
        self.counts
    }

    /// Tags what the next pushes write (given back with their rows' text).
    pub(crate) fn set_tag(&mut self, tag: bool) {
        self.tag = tag;
    }

    /// Renders `chunk`, giving out every raw line that can no longer change.
    pub(crate) fn push(&mut self, chunk: &[u8], out: &mut dyn FnMut(Out<'_>)) {
        let mut i = 0;
        while i < chunk.len() {
            if self.esc == Esc::Ground && !self.cr {
                let run = first_special(&chunk[i..]);
                let end = run.map_or(chunk.len(), |n| i + n);
                if end > i {
                    self.text(&chunk[i..end]);
                    i = end;
                    continue;
                }
            }
            self.byte(chunk[i], out);
            i += 1;
        }
    }

    /// Ends the input: every row left is given out in raw order, the
    /// bottom row (text after the last `\n`) last, without `\n`.
    pub(crate) fn finish(&mut self, out: &mut dyn FnMut(Out<'_>)) {
        self.esc = Esc::Ground;
        self.cr = false;
        self.fresh = false;
        let rows = std::mem::take(&mut self.rows);
        let mut owned: Vec<&Row> = rows.iter().filter(|r| r.owner != 0).collect();
        owned.sort_by_key(|r| r.owner);
        for row in owned {
            give(&mut self.next, row.owner, row, out);
        }
        if self.line > self.next {
            out(Out::Hidden(self.line - self.next));
            self.next = self.line;
        }
        if let Some(bottom) = rows.back() {
            bottom.line.write_out(bottom.tag, out);
        }
        self.rows.push_back(Row::default());
        self.cursor = 0;
        self.col = 0;
        self.held = 0;
    }

    /// Plain bytes written at the cursor.
    fn text(&mut self, mut bytes: &[u8]) {
        let cap = self.cap;
        let line = self.line;
        self.replace_if_fresh();
        let row = &mut self.rows[self.cursor];
        row.written_in = line;
        row.tag = self.tag;
        while self.col < row.line.len && !bytes.is_empty() {
            self.col = row.line.overwrite(self.col, bytes[0], &mut self.cont, cap);
            bytes = &bytes[1..];
        }
        if bytes.is_empty() {
            return;
        }
        if self.col > row.line.len {
            row.line.pad_to(self.col, cap);
        }
        row.line.append(bytes, cap);
        self.col = row.line.len;
        self.cont = 0;
    }

    /// After a return to the row's start: the row's text is replaced (one
    /// redraw when this raw line wrote it; an older line's text is counted
    /// when that line is hidden).
    fn replace_if_fresh(&mut self) {
        if !self.fresh {
            return;
        }
        self.fresh = false;
        self.col = 0;
        let row = &mut self.rows[self.cursor];
        if row.line.len > 0 {
            if row.written_in == self.line {
                self.counts.redraws += 1;
            }
            row.line.clear();
        }
    }

    fn line_end(&mut self, out: &mut dyn FnMut(Out<'_>)) {
        self.esc = Esc::Ground;
        self.cr = false;
        self.cont = 0;
        let row = &mut self.rows[self.cursor];
        if row.owner != 0 {
            // The row's old line is hidden: this one takes the row.
            self.counts.redraws += 1;
        }
        row.owner = self.line;
        row.tag = self.tag;
        self.line += 1;
        self.col = 0;
        if self.cursor + 1 == self.rows.len() {
            self.held += self.rows[self.cursor].line.held();
            let row = self.recycled();
            self.rows.push_back(row);
            self.cursor += 1;
            self.fresh = false;
            while self.rows.len() > WINDOW_ROWS {
                self.flush_top(out);
            }
        } else {
            // A row above the bottom was taken: owners may now be out of order.
            self.reowned = true;
            self.move_to(self.cursor + 1);
            self.fresh = true;
        }
        while self.held > self.held_budget() && self.cursor > 0 {
            self.flush_top(out);
        }
    }

    /// A cleared row, reusing the buffers of one that left (when small).
    fn recycled(&mut self) -> Row {
        let line = self.spare.take().unwrap_or_default();
        Row {
            line,
            ..Row::default()
        }
    }

    /// The oldest row leaves the window: its owner is given out, after any
    /// older owner still in the window.
    fn flush_top(&mut self, out: &mut dyn FnMut(Out<'_>)) {
        let Some(row) = self.rows.pop_front() else {
            return;
        };
        self.cursor -= 1;
        self.held -= row.line.held();
        if row.owner != 0 {
            while self.reowned {
                let older = self
                    .rows
                    .iter_mut()
                    .filter(|r| r.owner != 0 && r.owner < row.owner)
                    .min_by_key(|r| r.owner);
                let Some(older) = older else { break };
                give(&mut self.next, older.owner, older, out);
                older.owner = 0;
            }
            let mut row = row;
            if row.line.tail.is_empty() && row.line.len == row.line.head.len() as u64 {
                // The common short row: its text and `\n` in one piece.
                if row.owner > self.next {
                    out(Out::Hidden(row.owner - self.next));
                }
                row.line.head.push(b'\n');
                out(Out::Text(&row.line.head, row.tag));
                self.next = row.owner + 1;
            } else {
                give(&mut self.next, row.owner, &row, out);
            }
            if row.line.capacity() <= SPARE_CAPACITY {
                row.line.clear();
                self.spare = Some(row.line);
            }
            return;
        }
        if row.line.capacity() <= SPARE_CAPACITY {
            let mut line = row.line;
            line.clear();
            self.spare = Some(line);
        }
    }

    /// The cursor goes to row `to` (of the window).
    fn move_to(&mut self, to: usize) {
        if to == self.cursor {
            return;
        }
        self.held += self.rows[self.cursor].line.held();
        self.cursor = to;
        self.held -= self.rows[self.cursor].line.held();
        self.cont = 0;
    }

    fn byte(&mut self, b: u8, out: &mut dyn FnMut(Out<'_>)) {
        if b == b'\n' {
            // Ends the line whatever came before (a sequence is cut short).
            self.line_end(out);
            return;
        }
        if self.cr {
            // A `\r` not followed by `\n`: back to the row's start.
            self.cr = false;
            self.home();
        }
        match self.esc {
            Esc::Ground => self.ground(b),
            Esc::Start => match b {
                b'[' => {
                    self.esc = Esc::Csi;
                    self.csi = Csi::default();
                }
                b']' | b'P' | b'X' | b'^' | b'_' => self.esc = Esc::Str,
                0x20..=0x2F => self.esc = Esc::Intermediate,
                0x30..=0x7E => self.esc = Esc::Ground,
                _ => {
                    self.esc = Esc::Ground;
                    self.ground(b);
                }
            },
            Esc::Intermediate => match b {
                0x20..=0x2F => {}
                0x30..=0x7E => self.esc = Esc::Ground,
                _ => {
                    self.esc = Esc::Ground;
                    self.ground(b);
                }
            },
            Esc::Csi => match b {
                b'0'..=b'9' => {
                    if !self.csi.past_first {
                        let d = u32::from(b - b'0');
                        self.csi.param = (self.csi.param * 10 + d).min(1 << 20);
                    }
                }
                b';' | b':' => self.csi.past_first = true,
                0x20..=0x3F => self.csi.private = true,
                0x40..=0x7E => {
                    self.esc = Esc::Ground;
                    if !self.csi.private {
                        self.csi_final(b);
                    }
                }
                _ => {
                    self.esc = Esc::Ground;
                    self.ground(b);
                }
            },
            Esc::Str => match b {
                0x07 => self.esc = Esc::Ground,
                0x1B => self.esc = Esc::StrEscape,
                _ => {}
            },
            Esc::StrEscape => {
                if b == b'\\' {
                    self.esc = Esc::Ground;
                } else {
                    // The string ends here; this `ESC` starts a new sequence.
                    self.counts.escapes += 1;
                    self.esc = Esc::Start;
                    self.byte(b, out);
                }
            }
        }
    }

    /// Back to the row's start: the next text replaces the row.
    fn home(&mut self) {
        self.col = 0;
        self.cont = 0;
        self.fresh = true;
    }

    /// The final byte of a CSI sequence the renderer may act on.
    fn csi_final(&mut self, b: u8) {
        let n = self.csi.param.max(1) as usize;
        match b {
            // Further up than the window: removed, nothing moves.
            b'A' | b'F' if n <= self.cursor => {
                self.move_to(self.cursor - n);
                if b == b'F' {
                    self.col = 0;
                }
                self.fresh = self.col == 0;
            }
            b'B' | b'E' => {
                let to = self.cursor.saturating_add(n).min(self.rows.len() - 1);
                self.move_to(to);
                if b == b'E' {
                    self.col = 0;
                }
                self.fresh = self.col == 0;
            }
            b'G' => {
                if n == 1 {
                    self.home();
                } else {
                    // A column no terminal is as wide as would be spaces
                    // out of nothing: it is capped.
                    self.col = (n as u64 - 1).min(MAX_COLUMN);
                    self.cont = 0;
                    self.fresh = false;
                }
            }
            b'K' => self.erase(self.csi.param),
            _ => {}
        }
    }

    /// `ESC[K` (0: to the end, 1: to the start, 2: the whole row).
    fn erase(&mut self, mode: u32) {
        if mode > 2 {
            return;
        }
        if self.fresh && mode != 1 {
            // After a return: the row's text is replaced by nothing.
            self.replace_if_fresh();
            return;
        }
        let (cap, line, col) = (self.cap, self.line, self.col);
        let row = &mut self.rows[self.cursor];
        row.written_in = line;
        row.tag = self.tag;
        self.cont = 0;
        match mode {
            0 => row.line.truncate(col),
            1 => row.line.blank_to(col.saturating_add(1)),
            _ => {
                row.line.clear();
                row.line.pad_to(col, cap);
            }
        }
    }

    fn ground(&mut self, b: u8) {
        match b {
            b'\r' => self.cr = true,
            0x1B => {
                self.counts.escapes += 1;
                self.esc = Esc::Start;
            }
            b'\t' => self.text(b"\t"),
            0x08 => {
                self.counts.controls += 1;
                if !self.fresh {
                    let row = &self.rows[self.cursor];
                    self.col = row.line.back(self.col);
                    self.cont = 0;
                }
            }
            _ if special(b) => self.counts.controls += 1,
            _ => self.text(&[b]),
        }
    }
}

/// The rendered text and hidden lines of `data`, and the counts.
#[cfg(test)]
pub(crate) fn render_lines(data: &[u8], cap: usize) -> (Vec<u8>, Vec<u64>, TermCounts) {
    let mut t = Terminal::new(cap);
    let mut text = Vec::new();
    let mut hidden = Vec::new();
    let mut sink = |o: Out<'_>| match o {
        Out::Text(b, _) => text.extend_from_slice(b),
        Out::Hidden(n) => {
            let line = text.iter().filter(|&&b| b == b'\n').count() as u64;
            hidden.push(line);
            hidden.push(n);
        }
    };
    t.push(data, &mut sink);
    t.finish(&mut sink);
    (text, hidden, t.counts())
}

#[cfg(test)]
pub(crate) fn render(data: &[u8], cap: usize) -> (Vec<u8>, TermCounts) {
    let (text, _, counts) = render_lines(data, cap);
    (text, counts)
}

/// A buildkit-like progress: `rows` rows drawn, then `frames` times the
/// cursor goes up `rows` rows and rewrites them.
#[cfg(test)]
pub(crate) fn buildkit(rows: usize, frames: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for r in 0..rows {
        data.extend_from_slice(format!("#{r} step {r}: 0s\n").as_bytes());
    }
    for f in 1..=frames {
        data.extend_from_slice(format!("\x1b[{rows}A").as_bytes());
        for r in 0..rows {
            data.extend_from_slice(format!("#{r} step {r}: {f}s\x1b[K\n").as_bytes());
        }
    }
    data.extend_from_slice(b"done\n");
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(data: &[u8]) -> String {
        String::from_utf8_lossy(&render(data, 4096).0).into_owned()
    }

    fn counts(data: &[u8]) -> (u64, u64, u64) {
        let c = render(data, 4096).1;
        (c.redraws, c.escapes, c.controls)
    }

    #[test]
    fn first_special_finds_the_first_control_byte() {
        for b in 0..=255u8 {
            for len in [1usize, 7, 8, 9, 16, 31, 40] {
                for at in 0..len {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    bytes.push(0x7F);
                    let naive = bytes.iter().position(|&x| special(x));
                    assert_eq!(first_special(&bytes), naive, "{b} {len} {at}");
                    assert_eq!(first_special(&bytes[..len]), naive.filter(|&i| i < len));
                }
            }
        }
        assert_eq!(first_special(b""), None);
    }

    #[test]
    fn redraws_show_the_last_segment() {
        assert_eq!(shown(b"\r[###   ]\r[######]\n"), "[######]\n");
        assert_eq!(shown(b"abc\rX"), "X");
        assert_eq!(shown(b"50%\r100%\r"), "100%");
        assert_eq!(shown(b"done\r\n"), "done\n");
        assert_eq!(shown(b"a\r\r\nb\r\n"), "a\nb\n");
        assert_eq!(shown(b"old\r\x1b[Knew\n"), "new\n");
        assert_eq!(counts(b"old\r\x1b[Knew\n"), (1, 1, 0));
        assert_eq!(counts(b"1\r2\r3\n4\r\n"), (2, 0, 0));
        // `ESC[1G` (and `ESC[G`) return to the start as `\r` does.
        assert_eq!(shown(b"10%\x1b[1G20%\x1b[G30%\n"), "30%\n");
        assert_eq!(counts(b"10%\x1b[1G20%\x1b[G30%\n"), (2, 2, 0));
    }

    #[test]
    fn escapes_and_controls_are_removed() {
        assert_eq!(shown(b"\x1b[31merror\x1b[0m: x\n"), "error: x\n");
        assert_eq!(
            shown(b"\x1b]0;title\x07text\x1b]8;;http://x\x1b\\link\n"),
            "textlink\n"
        );
        assert_eq!(shown(b"x\x00y\x7fz\tw\x01\n"), "xyz\tw\n");
        assert_eq!(shown(b"\x1b(Bx\x1b7y\x1b=\n"), "xy\n");
        assert_eq!(shown(b"\x1b[12\nnext\n"), "\nnext\n");
        assert_eq!(shown(b"\x1b]unterminated\nz"), "\nz");
        // Private and intermediate CSI sequences are removed, never acted on.
        assert_eq!(shown(b"a\n\x1b[?1Ab\x1b[1 Kc\n"), "a\nbc\n");
        let (_, c) = render(b"\x1b[1m\x1b]0;t\x1b\\\x01\x02\x1b", 64);
        assert_eq!((c.redraws, c.escapes, c.controls), (0, 3, 2));
        let line = TermCounts {
            redraws: 1,
            escapes: 2,
            controls: 0,
        }
        .line();
        assert_eq!(
            line.as_deref(),
            Some("[... terminal: 1 redraw collapsed, 2 escape sequences removed ...]")
        );
        assert_eq!(TermCounts::default().line(), None);
    }

    #[test]
    fn backspace_moves_left_and_text_overwrites() {
        assert_eq!(shown(b"abc\x08\x08X\n"), "aXc\n");
        assert_eq!(counts(b"abc\x08\x08X\n"), (0, 0, 2));
        // A spinner leaves its last frame only.
        assert_eq!(shown(b"|\x08/\x08-\x08\\\x08done\n"), "done\n");
        // Never before the segment's start.
        assert_eq!(shown(b"ab\x08\x08\x08\x08X\n"), "Xb\n");
        assert_eq!(shown(b"old\r\x08new\n"), "new\n");
        // One character left, whatever its bytes; a character over another
        // of another length replaces it whole.
        assert_eq!(shown("aé\x08X\n".as_bytes()), "aX\n");
        assert_eq!(shown("ab\x08é!\n".as_bytes()), "aé!\n");
        assert_eq!(shown("⠋\x08⠙\x08⠹ ok\n".as_bytes()), "⠹ ok\n");
        // `_\bX` overstrike shows the last byte written.
        assert_eq!(shown(b"_\x08X_\x08Y\n"), "XY\n");
    }

    #[test]
    fn erase_in_line_acts_at_the_cursor() {
        assert_eq!(shown(b"abcdef\x08\x08\x08\x1b[K\n"), "abc\n");
        assert_eq!(shown(b"abcdef\x08\x08\x08\x1b[0Kxy\n"), "abcxy\n");
        assert_eq!(shown(b"abcdef\x08\x08\x1b[1K\n"), "     f\n");
        assert_eq!(shown(b"abc\x1b[2Kx\n"), "   x\n");
        assert_eq!(shown(b"abc\x1b[2K\rx\n"), "x\n");
        assert_eq!(shown(b"abc\r\x1b[2Kx\n"), "x\n");
        // An erase after a return empties the row: what it erased is gone.
        assert_eq!(shown(b"progress 50%\r\x1b[K"), "");
        assert_eq!(counts(b"progress 50%\r\x1b[K"), (1, 1, 0));
        assert_eq!(shown(b"keep\x1b[5K\n"), "keep\n");
    }

    #[test]
    fn a_multi_line_redraw_shows_each_row_once() {
        let (text, hidden, c) = render_lines(&buildkit(3, 5), 4096);
        assert_eq!(
            String::from_utf8_lossy(&text),
            "#0 step 0: 5s\n#1 step 1: 5s\n#2 step 2: 5s\ndone\n"
        );
        // The 15 raw lines of the first five frames are hidden, before the
        // first line shown: line numbers stay the raw ones (16, 17, 18, 19).
        assert_eq!(hidden, vec![0, 15]);
        assert_eq!((c.redraws, c.escapes, c.controls), (15, 20, 0));
        // `ESC[nF` (up, to the row's start) is the same redraw.
        let data = b"a 1\nb 1\n\x1b[2Fa 2\nb 2\n";
        assert_eq!(shown(data), "a 2\nb 2\n");
        // Down again: `ESC[nB` (same column) / `ESC[nE` (the row's start),
        // never below the bottom row.
        assert_eq!(
            shown(b"a\nb\nc\n\x1b[3AA\x1b[1EB\x1b[9Bz\n"),
            "A\nB\nc\n z\n"
        );
    }

    #[test]
    fn a_row_moved_to_keeps_its_column_or_is_replaced() {
        // After `\n` the cursor is at column 0: the row's text is replaced.
        assert_eq!(shown(b"long old line\n\x1b[1Anew\n"), "new\n");
        // Up from column 3: written over at column 3. The `\n` after it is
        // on the first row, so raw line 2 shows it and the bottom row's text
        // is the last line, without `\n`.
        assert_eq!(shown(b"abcdef\nxyz\x1b[1AQ\n"), "abcQef\nxyz");
        assert_eq!(render_lines(b"abcdef\nxyz\x1b[1AQ\n", 64).1, vec![0, 1]);
        // A column past the row's end is reached with spaces.
        assert_eq!(shown(b"ab\nxyzw\x1b[1AQ"), "ab  Q\nxyzw");
        assert_eq!(shown(b"\x1b[5GX\n"), "    X\n");
    }

    #[test]
    fn rows_taken_out_of_order_keep_raw_order() {
        let (text, hidden, c) = render_lines(b"L1\nL2\n\x1b[1Ax\n\x1b[2Ay\n", 64);
        // Raw lines 1 and 2 are hidden; 3 shows `x` (row 2), 4 shows `y`.
        assert_eq!(String::from_utf8_lossy(&text), "x\ny\n");
        assert_eq!(hidden, vec![0, 2]);
        assert_eq!(c.redraws, 2);
    }

    #[test]
    fn a_cursor_up_beyond_the_window_is_removed() {
        let mut data = Vec::new();
        for i in 0..WINDOW_ROWS + 6 {
            data.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        let mut want = String::from_utf8_lossy(&data).into_owned();
        want.push_str("X\n");
        data.extend_from_slice(format!("\x1b[{}AX\n", WINDOW_ROWS + 6).as_bytes());
        let (text, hidden, c) = render_lines(&data, 4096);
        assert_eq!(String::from_utf8_lossy(&text), want);
        assert!(hidden.is_empty());
        assert_eq!((c.redraws, c.escapes), (0, 1));
        // The window's last row is still reachable; one more is not.
        let up = |n: usize| {
            let mut d = Vec::new();
            for i in 0..WINDOW_ROWS * 2 {
                d.extend_from_slice(format!("{i}\n").as_bytes());
            }
            d.extend_from_slice(format!("\x1b[{n}AX\n").as_bytes());
            render_lines(&d, 4096)
        };
        assert_eq!(up(WINDOW_ROWS - 1).1, vec![WINDOW_ROWS as u64 + 1, 1]);
        assert!(up(WINDOW_ROWS).1.is_empty());
        // Rows holding more than the budget leave the window early.
        let mut d = Vec::new();
        for _ in 0..4 {
            d.extend_from_slice(&[b'x'; 100]);
            d.push(b'\n');
        }
        d.extend_from_slice(b"\x1b[4AY\n");
        let (text, hidden, _) = render_lines(&d, 64);
        assert!(hidden.is_empty(), "{hidden:?}");
        assert!(text.ends_with(b"Y\n"));
    }

    #[test]
    fn every_split_renders_the_same() {
        let mut data: Vec<u8> =
            b"a\x1b[1;31mb\r\ncd\rEF\x1b]0;x\x1b\\g\r\x1b\n\x08\x1b(Bz\r".to_vec();
        data.extend_from_slice(
            "one\ntwo\nthree\n\x1b[2Aé\x08X\x1b[K\n\x1b[1Fñy\x1b[1K\x1b[1E".as_bytes(),
        );
        data.extend_from_slice(b"|\x08/\x08-\x1b[3Gq\x1b[2K\x1b[9Bend\x1b[99A\n");
        data.extend_from_slice(&buildkit(2, 2));
        for cap in [3, 4096] {
            let whole = render_lines(&data, cap);
            for split in 0..=data.len() {
                let mut t = Terminal::new(cap);
                let mut text = Vec::new();
                let mut hidden = Vec::new();
                let mut sink = |o: Out<'_>| match o {
                    Out::Text(b, _) => text.extend_from_slice(b),
                    Out::Hidden(n) => {
                        hidden.push(text.iter().filter(|&&b| b == b'\n').count() as u64);
                        hidden.push(n);
                    }
                };
                t.push(&data[..split], &mut sink);
                t.push(&data[split..], &mut sink);
                t.finish(&mut sink);
                assert_eq!((text, hidden, t.counts()), whole, "cap {cap} split {split}");
            }
        }
    }

    #[test]
    fn no_panic_on_any_bytes() {
        let mut rng = dory_testkit::Rng::new(7);
        let alphabet: &[&[u8]] = &[
            b"\n",
            b"\r",
            b"\x08",
            b"\x1b[",
            b"A",
            b"B",
            b"E",
            b"F",
            b"G",
            b"K",
            b"1",
            b"2",
            b";",
            b"?",
            b"x",
            "é".as_bytes(),
            b"\xe2",
            b"\x82",
            b"\x1b",
            b"]",
            b"\x07",
        ];
        for _ in 0..2000 {
            let mut data = Vec::new();
            for _ in 0..rng.range(0, 200) {
                data.extend_from_slice(alphabet[rng.below(alphabet.len() as u64) as usize]);
            }
            for cap in [1, 2, 5] {
                let (text, hidden, _) = render_lines(&data, cap);
                let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
                let hidden: u64 = hidden.iter().skip(1).step_by(2).sum();
                let raw = data.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(lines + hidden, raw, "{data:?}");
            }
        }
    }

    #[test]
    fn long_lines_keep_their_ends_and_length() {
        let mut line = b"start".to_vec();
        line.extend_from_slice(&[b'x'; 10_000]);
        line.extend_from_slice(b"end\n");
        let (text, _) = render(&line, 100);
        assert_eq!(text.len(), line.len());
        assert_eq!(&text[..100], &line[..100]);
        assert_eq!(&text[text.len() - 100..], &line[line.len() - 100..]);
        // Backspaces and erases at the end of a long line.
        let mut long = line[..line.len() - 1].to_vec();
        long.extend_from_slice(b"\x08\x08\x08END\x1b[K!\n");
        let (text, _) = render(&long, 100);
        assert!(text.ends_with(b"xxxEND!\n"));
        assert_eq!(text.len(), line.len() + 1);
        // A million redraws cost the row, not the history.
        let mut t = Terminal::new(64);
        let mut out = 0usize;
        for i in 0..1_000_000u32 {
            t.push(format!("\r{i}").as_bytes(), &mut |o| {
                if let Out::Text(b, _) = o {
                    out += b.len();
                }
            });
        }
        t.finish(&mut |o| {
            if let Out::Text(b, _) = o {
                out += b.len();
            }
        });
        assert_eq!(out, "999999".len());
        assert_eq!(t.counts().redraws, 999_999);
        // A million multi-line redraws, and a million lines: memory stays
        // bounded by the window.
        let mut t = Terminal::new(64);
        let mut hidden = 0u64;
        let mut most = 0;
        for i in 0..200_000u32 {
            let frame = format!("\x1b[3Aa {i}\nb {i}\nc {i}\n");
            t.push(frame.as_bytes(), &mut |o| {
                if let Out::Hidden(n) = o {
                    hidden += n;
                }
            });
            t.push(format!("line {i}\n").as_bytes(), &mut |o| {
                if let Out::Hidden(n) = o {
                    hidden += n;
                }
            });
            most = most.max(t.retained_bytes());
        }
        assert!(hidden > 0);
        assert!(most <= 64 * 1024, "{most}");
    }
}
