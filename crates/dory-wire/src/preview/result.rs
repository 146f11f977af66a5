//! The bounded preview and its accounting, as plain data.

use std::borrow::Cow;

/// A bounded preview of some output, with exact accounting.
///
/// When nothing was cut, `text` is the input rendered as UTF-8 and every
/// `omitted_*`/`spill_*` field is empty. Counts always add up:
/// `head_bytes + omitted_bytes + tail_bytes == total_bytes`.
///
/// Like [`String::from_utf8_lossy`], the text borrows the input when it is
/// the input unchanged (it fits and is valid UTF-8): no copy is made. A
/// preview that was cut, or that comes from a
/// [`StreamingBounder`](super::StreamingBounder), owns its text
/// (`Preview<'static>`); [`Preview::into_owned`] gives one that outlives
/// the input.
///
/// ```
/// use std::borrow::Cow;
/// use dory_wire::preview::{Bounder, Preview, SpillOutcome};
///
/// let input = b"short output\n".to_vec();
/// let preview = Bounder::new(10, 100).bound(&input)?.render(SpillOutcome::NotSaved, None);
/// assert!(matches!(preview.text, Cow::Borrowed("short output\n")));
/// let kept: Preview<'static> = preview.into_owned();
/// drop(input);
/// assert_eq!(kept.text, "short output\n");
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Preview<'a> {
    /// The preview: valid UTF-8 within both limits, notice included;
    /// borrowed from the input when it is the input unchanged.
    pub text: Cow<'a, str>,
    /// Whether anything was cut (then `text` holds exactly one notice line).
    pub truncated: bool,
    /// Lines of the input (a final run without `\n` counts as a line).
    pub total_lines: u64,
    /// Bytes of the input.
    pub total_bytes: u64,
    /// Input bytes shown before the notice (all of them when not truncated).
    pub head_bytes: u64,
    /// Input bytes shown after the notice.
    pub tail_bytes: u64,
    /// Input lines with at least one byte not shown.
    pub omitted_lines: u64,
    /// Input bytes not shown.
    pub omitted_bytes: u64,
    /// First and last omitted line, 1-based and inclusive.
    pub omitted_range: Option<(u64, u64)>,
    /// The spill id the caller was asked to save the full output under.
    pub spill_id: Option<String>,
    /// The path the notice points at (only when it does).
    pub spill_path: Option<String>,
    /// Why the notice does not point at a saved file, when the caller tried to
    /// save one (writer failure, refused or oversized path or hint).
    pub spill_error: Option<String>,
    /// The notice lines the bounder wrote into `text`, in the order they
    /// appear: the cut's notice, the kept-lines header, the terminal line, a
    /// run's stderr-section header, loss line and end line. Empty when nothing was
    /// written (input that fits, unchanged). Lines of the input that merely
    /// look like notices are never listed.
    pub notices: Vec<Notice>,
    /// How many tokens `text` encodes to under the token limit's tokenizer
    /// ([`Limits::with_max_tokens`](super::Limits::with_max_tokens)), counted
    /// in full; `None` without a token limit.
    pub tokens: Option<u64>,
}

/// What a notice line of a [`Preview`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum NoticeKind {
    /// The cut: `[... N bytes omitted: lines F-L of T; sed -n 'F,Lp' <path> ...]`
    /// in one of its forms (one per cut preview).
    Omitted,
    /// The header of the kept-lines section (`keep`):
    /// `[... kept N omitted lines matching the keep patterns ...]`.
    Kept,
    /// The terminal line (`terminal`):
    /// `[... terminal: N redraws collapsed, … ...]`.
    Terminal,
    /// The header of a run's stderr section (combined view):
    /// `[... the last N of T bytes of stderr ...]`.
    Stderr,
    /// A run's loss line: `[... N bytes lost: … ...]`.
    Lost,
    /// How a run's process ended, the last line of a finished run's
    /// combined view: `[... exit code 1 ...]`, `[... timed out after 30 s:
    /// killed, no exit code ...]`, `[... killed: no exit code ...]`.
    End,
}

impl NoticeKind {
    /// The kinds, in the order of [`NoticeKind::as_str`]'s documentation.
    pub const ALL: [NoticeKind; 6] = [
        NoticeKind::Omitted,
        NoticeKind::Kept,
        NoticeKind::Terminal,
        NoticeKind::Stderr,
        NoticeKind::Lost,
        NoticeKind::End,
    ];

    /// `"omitted"`, `"kept"`, `"terminal"`, `"stderr"`, `"lost"` or `"end"`: the
    /// `kind` of the notice in [`Preview::to_json`].
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Omitted => "omitted",
            NoticeKind::Kept => "kept",
            NoticeKind::Terminal => "terminal",
            NoticeKind::Stderr => "stderr",
            NoticeKind::Lost => "lost",
            NoticeKind::End => "end",
        }
    }

    /// The kind named `name` (see [`NoticeKind::as_str`]).
    pub fn from_name(name: &str) -> Option<NoticeKind> {
        NoticeKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One notice line of a [`Preview`]: its kind and where it is in `text`
/// (a whole line, without its `\n`: `text[start..end]`, see
/// [`Preview::notice_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Notice {
    /// What the notice says.
    pub kind: NoticeKind,
    /// Byte offset of its first byte in the preview's `text`.
    pub start: usize,
    /// Byte offset just past its last byte (before its `\n`, if any).
    pub end: usize,
}

impl Notice {
    /// The notice of `kind` at `text[start..end]`.
    pub fn new(kind: NoticeKind, start: usize, end: usize) -> Self {
        Notice { kind, start, end }
    }
}

impl Preview<'_> {
    /// The same preview, owning its text (a copy only when it was borrowed).
    pub fn into_owned(self) -> Preview<'static> {
        Preview {
            text: Cow::Owned(self.text.into_owned()),
            truncated: self.truncated,
            total_lines: self.total_lines,
            total_bytes: self.total_bytes,
            head_bytes: self.head_bytes,
            tail_bytes: self.tail_bytes,
            omitted_lines: self.omitted_lines,
            omitted_bytes: self.omitted_bytes,
            omitted_range: self.omitted_range,
            spill_id: self.spill_id,
            spill_path: self.spill_path,
            spill_error: self.spill_error,
            notices: self.notices,
            tokens: self.tokens,
        }
    }

    /// The text of `notice`, a notice of this preview (empty when it is
    /// not one: its range is not in `text`).
    pub fn notice_text(&self, notice: &Notice) -> &str {
        self.text.get(notice.start..notice.end).unwrap_or("")
    }

    /// Appends `line` to `text` as a line of its own (after a `\n` when the
    /// text does not end with one), followed by `\n`, and records it as a
    /// notice of `kind`.
    pub(crate) fn append_notice(&mut self, kind: NoticeKind, line: &str) {
        let text = self.text.to_mut();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let start = text.len();
        text.push_str(line.strip_suffix('\n').unwrap_or(line));
        let end = text.len();
        text.push('\n');
        self.notices.push(Notice::new(kind, start, end));
    }
}

impl Preview<'static> {
    /// The preview of input `text` that fits, as [`Bounder`](super::Bounder)
    /// gives it: `text` unchanged, its lines and bytes counted, nothing
    /// omitted, no spill, no notice. Its fields are public: the bindings
    /// rebuild a preview from its fields with it (to write its JSON).
    ///
    /// ```
    /// use dory_wire::preview::Preview;
    ///
    /// let p = Preview::new("a\nb".into());
    /// assert_eq!((p.total_lines, p.total_bytes, p.head_bytes), (2, 3, 3));
    /// assert!(!p.truncated && p.notices.is_empty());
    /// ```
    pub fn new(text: String) -> Self {
        let bytes = text.len() as u64;
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64
            + u64::from(!text.is_empty() && !text.ends_with('\n'));
        Preview::unchanged(Cow::Owned(text), lines, bytes)
    }
}

impl<'a> Preview<'a> {
    /// The preview of input that fits: its rendering, unchanged.
    pub(crate) fn unchanged(text: Cow<'a, str>, total_lines: u64, total_bytes: u64) -> Self {
        Preview {
            text,
            truncated: false,
            total_lines,
            total_bytes,
            head_bytes: total_bytes,
            tail_bytes: 0,
            omitted_lines: 0,
            omitted_bytes: 0,
            omitted_range: None,
            spill_id: None,
            spill_path: None,
            spill_error: None,
            notices: Vec::new(),
            tokens: None,
        }
    }
}

/// Writes `s` as a JSON string (serde_json's escaping: `"`, `\` and the
/// control characters; everything else as it is).
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    // Serializing a `str` into a `String` cannot fail.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

/// Writes an optional string as a JSON string or `null`.
pub(crate) fn push_json_opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_json_str(out, s),
        None => out.push_str("null"),
    }
}

impl Preview<'_> {
    /// The preview as one canonical JSON object, the same bytes in every
    /// language (the Python, JavaScript and Component bindings give this
    /// writer's output): compact, keys in this order, every key always
    /// present (`null` when empty), integers exact:
    ///
    /// `{"text", "truncated", "total_lines", "total_bytes", "head_bytes",
    /// "tail_bytes", "omitted_lines", "omitted_bytes", "omitted_range":
    /// {"first", "last"} | null, "spill_id", "spill_path", "spill_error",
    /// "notices": [{"kind", "line", "text"}], "tokens"}`
    ///
    /// `text` is the whole preview, notices included; each notice's `line`
    /// is its 1-based line number in `text` and its `text` the line itself
    /// (without `\n`); `tokens` is [`Preview::tokens`] (`null` without a
    /// token limit). The JSON Schema is `docs/schema/preview.schema.json`.
    ///
    /// ```
    /// use dory_wire::preview::{Bounder, SpillOutcome};
    ///
    /// let input = "line\n".repeat(100);
    /// let preview = Bounder::new(4, 200).bound(input.as_bytes())?.render(SpillOutcome::NotSaved, None);
    /// let json: serde_json::Value = serde_json::from_str(&preview.to_json()).unwrap();
    /// assert_eq!(json["notices"][0]["kind"], "omitted");
    /// assert_eq!(json["notices"][0]["line"], 2);
    /// assert_eq!(json["notices"][0]["text"], "[... 485 bytes omitted: lines 2-98 of 100 ...]");
    /// # Ok::<(), dory_wire::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 256 + 64 * self.notices.len());
        self.write_json(&mut out);
        out
    }

    /// [`Preview::to_json`], appended to `out`.
    pub(crate) fn write_json(&self, out: &mut String) {
        use std::fmt::Write as _;
        out.push_str("{\"text\":");
        push_json_str(out, &self.text);
        out.push_str(if self.truncated {
            ",\"truncated\":true"
        } else {
            ",\"truncated\":false"
        });
        // Writing to a `String` cannot fail.
        let _ = write!(
            out,
            ",\"total_lines\":{},\"total_bytes\":{},\"head_bytes\":{},\"tail_bytes\":{},\"omitted_lines\":{},\"omitted_bytes\":{}",
            self.total_lines,
            self.total_bytes,
            self.head_bytes,
            self.tail_bytes,
            self.omitted_lines,
            self.omitted_bytes
        );
        match self.omitted_range {
            Some((first, last)) => {
                let _ = write!(
                    out,
                    ",\"omitted_range\":{{\"first\":{first},\"last\":{last}}}"
                );
            }
            None => out.push_str(",\"omitted_range\":null"),
        }
        out.push_str(",\"spill_id\":");
        push_json_opt(out, self.spill_id.as_deref());
        out.push_str(",\"spill_path\":");
        push_json_opt(out, self.spill_path.as_deref());
        out.push_str(",\"spill_error\":");
        push_json_opt(out, self.spill_error.as_deref());
        out.push_str(",\"notices\":[");
        for (i, (kind, line, text)) in self.notice_lines().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"kind\":\"");
            out.push_str(kind.as_str());
            let _ = write!(out, "\",\"line\":{line},\"text\":");
            push_json_str(out, text);
            out.push('}');
        }
        match self.tokens {
            Some(n) => {
                let _ = write!(out, "],\"tokens\":{n}}}");
            }
            None => out.push_str("],\"tokens\":null}"),
        }
    }

    /// Each notice of [`Preview::notices`], in order, as its kind, its
    /// 1-based line number in `text` and its text (what
    /// [`Preview::to_json`] writes for it).
    pub fn notice_lines(&self) -> impl Iterator<Item = (NoticeKind, u64, &str)> + '_ {
        let bytes = self.text.as_bytes();
        // Line numbers counted once, from the text's start, in order.
        let (mut line, mut at) = (1u64, 0usize);
        self.notices.iter().map(move |notice| {
            let upto = notice.start.min(bytes.len()).max(at);
            line += memchr::memchr_iter(b'\n', &bytes[at..upto]).count() as u64;
            at = upto;
            (notice.kind, line, self.notice_text(notice))
        })
    }
}
