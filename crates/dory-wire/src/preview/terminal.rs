//! Terminal rendering: the text a terminal would leave on screen, line by
//! line, in memory bounded by the limits. The rules are in `docs/preview.md`
//! ("Terminal rendering").
//!
//! - Every `\n` of the input ends exactly one rendered line and nothing else
//!   does, so rendered line `n` is input line `n`: the notices' line numbers
//!   are those of the raw bytes (the spill).
//! - `\r\n` is a plain line end (rendered `\n`). Any other `\r` returns to
//!   the line's start: the line shows the last non-empty *segment* written
//!   after a `\r` (a shorter redraw does not leave the end of a longer one).
//! - Escape sequences (CSI, OSC and the other string sequences, and the
//!   short `ESC …` ones) are removed, as are the C0 controls other than
//!   `\t`, `\n` and `\r` (backspace included) and DEL.
//!
//! A segment keeps only its first and last `cap` bytes (`cap` at least the
//! bounder's head window): when it is shown, the bytes between are written
//! as spaces. No bounder window ever holds them (a window is at most `cap`
//! bytes from an end of the rendered input, so from an end of the line).

use super::stream::{grow_capped, Ring};

/// What rendering changed: the counts of the terminal line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct TermCounts {
    /// Segments replaced by a later one on the same line.
    pub(crate) redraws: u64,
    /// Escape sequences removed.
    pub(crate) escapes: u64,
    /// Other control bytes removed.
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

/// The line being rendered: its shown segment, in bounded memory.
#[derive(Debug, Clone)]
struct Segment {
    head: Vec<u8>,
    rest: Ring,
    len: u64,
    cap: usize,
}

impl Segment {
    fn new(cap: usize) -> Self {
        Segment {
            head: Vec::new(),
            rest: Ring::new(cap),
            len: 0,
            cap,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        let take = self.cap.saturating_sub(self.head.len()).min(bytes.len());
        grow_capped(&mut self.head, take, self.cap);
        self.head.extend_from_slice(&bytes[..take]);
        if take < bytes.len() {
            self.rest.push(&bytes[take..]);
        }
    }

    fn clear(&mut self) {
        self.head.clear();
        if self.len > self.cap as u64 {
            self.rest = Ring::new(self.cap);
        }
        self.len = 0;
    }

    /// Writes the segment out and clears it.
    fn emit(&mut self, out: &mut dyn FnMut(&[u8])) {
        out(&self.head);
        if self.len > self.head.len() as u64 {
            let rest = std::mem::replace(&mut self.rest, Ring::new(self.cap)).into_vec();
            let mut gap = self.len - self.head.len() as u64 - rest.len() as u64;
            const SPACES: [u8; 1024] = [b' '; 1024];
            while gap > 0 {
                let n = gap.min(SPACES.len() as u64) as usize;
                out(&SPACES[..n]);
                gap -= n as u64;
            }
            out(&rest);
        }
        self.head.clear();
        self.len = 0;
    }
}

/// The terminal renderer of one stream.
#[derive(Debug, Clone)]
pub(crate) struct Terminal {
    esc: Esc,
    /// A `\r` was the last byte: the next one says whether it ends a line.
    cr: bool,
    /// A `\r` ended a segment: the next shown byte starts a new one.
    redraw: bool,
    segment: Segment,
    counts: TermCounts,
}

/// True for the bytes that are not shown as they are.
fn special(b: u8) -> bool {
    b < 0x20 || b == 0x7F
}

impl Terminal {
    /// A renderer keeping at most `cap` bytes at each end of a line.
    pub(crate) fn new(cap: usize) -> Self {
        Terminal {
            esc: Esc::Ground,
            cr: false,
            redraw: false,
            segment: Segment::new(cap.max(1)),
            counts: TermCounts::default(),
        }
    }

    /// Bytes of buffer held: at most twice `cap`.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.segment.head.capacity() + self.segment.rest.capacity()
    }

    /// The counts so far.
    pub(crate) fn counts(&self) -> TermCounts {
        self.counts
    }

    /// Renders `chunk`, writing out every rendered line it completes.
    pub(crate) fn push(&mut self, chunk: &[u8], out: &mut dyn FnMut(&[u8])) {
        let mut i = 0;
        while i < chunk.len() {
            if self.esc == Esc::Ground && !self.cr {
                let run = chunk[i..].iter().position(|&b| special(b));
                let end = run.map_or(chunk.len(), |n| i + n);
                if end > i {
                    self.shown(&chunk[i..end]);
                    i = end;
                    continue;
                }
            }
            self.byte(chunk[i], out);
            i += 1;
        }
    }

    /// Ends the input: the last line (without `\n`) is written out.
    pub(crate) fn finish(&mut self, out: &mut dyn FnMut(&[u8])) {
        self.esc = Esc::Ground;
        self.cr = false;
        self.redraw = false;
        self.segment.emit(out);
    }

    /// Plain bytes shown on the line.
    fn shown(&mut self, bytes: &[u8]) {
        if self.redraw {
            self.redraw = false;
            if self.segment.len > 0 {
                self.counts.redraws += 1;
                self.segment.clear();
            }
        }
        self.segment.push(bytes);
    }

    fn line_end(&mut self, out: &mut dyn FnMut(&[u8])) {
        self.esc = Esc::Ground;
        self.cr = false;
        self.redraw = false;
        self.segment.emit(out);
        out(b"\n");
    }

    fn byte(&mut self, b: u8, out: &mut dyn FnMut(&[u8])) {
        if b == b'\n' {
            // Ends the line whatever came before (a sequence is cut short).
            self.line_end(out);
            return;
        }
        if self.cr {
            // A `\r` not followed by `\n`: back to the line's start.
            self.cr = false;
            self.redraw = true;
        }
        match self.esc {
            Esc::Ground => self.ground(b),
            Esc::Start => match b {
                b'[' => self.esc = Esc::Csi,
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
                0x20..=0x3F => {}
                0x40..=0x7E => self.esc = Esc::Ground,
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

    fn ground(&mut self, b: u8) {
        match b {
            b'\r' => self.cr = true,
            0x1B => {
                self.counts.escapes += 1;
                self.esc = Esc::Start;
            }
            b'\t' => self.shown(b"\t"),
            _ if special(b) => self.counts.controls += 1,
            _ => self.shown(&[b]),
        }
    }
}

#[cfg(test)]
pub(crate) fn render(data: &[u8], cap: usize) -> (Vec<u8>, TermCounts) {
    let mut t = Terminal::new(cap);
    let mut text = Vec::new();
    t.push(data, &mut |b| text.extend_from_slice(b));
    t.finish(&mut |b| text.extend_from_slice(b));
    (text, t.counts())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(data: &[u8]) -> String {
        String::from_utf8_lossy(&render(data, 4096).0).into_owned()
    }

    #[test]
    fn redraws_show_the_last_segment() {
        assert_eq!(shown(b"\r[###   ]\r[######]\n"), "[######]\n");
        assert_eq!(shown(b"abc\rX"), "X");
        assert_eq!(shown(b"50%\r100%\r"), "100%");
        assert_eq!(shown(b"done\r\n"), "done\n");
        assert_eq!(shown(b"a\r\r\nb\r\n"), "a\nb\n");
        assert_eq!(shown(b"old\r\x1b[Knew\n"), "new\n");
        let (_, c) = render(b"1\r2\r3\n4\r\n", 64);
        assert_eq!((c.redraws, c.escapes, c.controls), (2, 0, 0));
    }

    #[test]
    fn escapes_and_controls_are_removed() {
        assert_eq!(shown(b"\x1b[31merror\x1b[0m: x\n"), "error: x\n");
        assert_eq!(
            shown(b"\x1b]0;title\x07text\x1b]8;;http://x\x1b\\link\n"),
            "textlink\n"
        );
        assert_eq!(shown(b"a\x08b\x00c\x7fd\te\n"), "abcd\te\n");
        assert_eq!(shown(b"\x1b(Bx\x1b7y\x1b=\n"), "xy\n");
        assert_eq!(shown(b"\x1b[12\nnext\n"), "\nnext\n");
        assert_eq!(shown(b"\x1b]unterminated\nz"), "\nz");
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
    fn every_split_renders_the_same() {
        let data: &[u8] = b"a\x1b[1;31mb\r\ncd\rEF\x1b]0;x\x1b\\g\r\x1b\n\x08\x1b(Bz\r";
        let whole = render(data, 3);
        for split in 0..=data.len() {
            let mut t = Terminal::new(3);
            let mut text = Vec::new();
            t.push(&data[..split], &mut |b| text.extend_from_slice(b));
            t.push(&data[split..], &mut |b| text.extend_from_slice(b));
            t.finish(&mut |b| text.extend_from_slice(b));
            assert_eq!((text, t.counts()), whole, "split {split}");
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
        // A million redraws cost the segment, not the history.
        let mut t = Terminal::new(64);
        let mut out = 0usize;
        for i in 0..1_000_000u32 {
            t.push(format!("\r{i}").as_bytes(), &mut |b| out += b.len());
        }
        t.push(b"\n", &mut |b| out += b.len());
        assert_eq!(out, "999999\n".len());
        assert_eq!(t.counts().redraws, 999_999);
    }
}
