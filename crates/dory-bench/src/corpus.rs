//! Deterministic benchmark corpora: process-output NDJSON bodies with correct
//! offsets and a final `exit` frame, and a plain-text log for the preview.
//!
//! Every corpus is a pure function of its kind and size (a fixed-seed
//! SplitMix64 generator, `dory_testkit::Rng`, no clock, no platform
//! dependence), so every machine and every language benchmarks the same bytes.
//!
//! | kind | what |
//! |---|---|
//! | A | 4 KiB text chunks of log lines (stdout) |
//! | B | 64 KiB text chunks of log lines (stdout) |
//! | C | 4 KiB chunks of random bytes, base64 (stdout) |
//! | D | build-log mix: 100–300-byte text frames, 5% CJK/emoji, 2% base64, stdout and stderr interleaved, a few heartbeats |
//! | P | plain log text (not NDJSON), the preview bounder's input |

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;

/// Bump when the generator's output changes, so stale files are regenerated.
pub const GENERATOR_VERSION: u32 = 1;

/// The corpora, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// 4 KiB text chunks of log lines.
    A,
    /// 64 KiB text chunks of log lines.
    B,
    /// 4 KiB chunks of random bytes, base64-encoded.
    C,
    /// The build-log mix.
    D,
    /// Plain log text for the preview bounder.
    P,
}

impl Kind {
    /// The NDJSON corpora the readers are measured on.
    pub const READER: [Kind; 4] = [Kind::A, Kind::B, Kind::C, Kind::D];
    /// Every corpus.
    pub const ALL: [Kind; 5] = [Kind::A, Kind::B, Kind::C, Kind::D, Kind::P];

    /// The one-letter name used in file names and tables.
    pub fn letter(self) -> &'static str {
        match self {
            Kind::A => "A",
            Kind::B => "B",
            Kind::C => "C",
            Kind::D => "D",
            Kind::P => "P",
        }
    }

    /// Parses [`Kind::letter`].
    pub fn from_letter(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == s)
    }

    /// A short description for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::A => "4 KiB text chunks",
            Kind::B => "64 KiB text chunks",
            Kind::C => "4 KiB base64 chunks",
            Kind::D => "build-log mix",
            Kind::P => "plain log text",
        }
    }

    /// The file name of this corpus at `mb` megabytes.
    pub fn file_name(self, mb: u64) -> String {
        let ext = if self == Kind::P { "log" } else { "ndjson" };
        format!("{}-{mb}MB-v{GENERATOR_VERSION}.{ext}", self.letter())
    }
}

pub use dory_testkit::Rng;

/// One of `items`, drawn with `rng` (the lists below are never empty).
fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    rng.choose(items).copied().unwrap_or_default()
}

const LEVELS: [&str; 5] = ["INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"];
const CRATES: [&str; 12] = [
    "serde",
    "tokio",
    "hyper",
    "regex",
    "libc",
    "syn",
    "quote",
    "memchr",
    "rand",
    "clap",
    "anyhow",
    "dory-wire",
];
const WORDS: [&str; 16] = [
    "compiling",
    "checking",
    "linking",
    "downloaded",
    "running",
    "finished",
    "fetching",
    "resolving",
    "building",
    "testing",
    "warning: unused variable",
    "note: see issue",
    "error[E0308]: mismatched types",
    "expected `u64`, found `usize`",
    "--> src/lib.rs",
    "help: consider borrowing here",
];
const CJK: [&str; 12] = [
    "编译完成",
    "错误：找不到文件",
    "テストが失敗しました",
    "ビルド成功",
    "경고: 사용되지 않는 변수",
    "완료",
    "🚀 deploy",
    "✅ passed",
    "❌ failed",
    "🔥",
    "📦 打包中",
    "⚠️ 注意",
];

/// Generates ASCII log lines (some with quotes, backslashes and tabs, so JSON
/// escaping is exercised) into `out` until it holds at least `want` bytes.
fn log_lines(rng: &mut Rng, line_no: &mut u64, out: &mut Vec<u8>, want: usize) {
    while out.len() < want {
        *line_no += 1;
        let n = *line_no;
        let level = pick(rng, &LEVELS);
        let krate = pick(rng, &CRATES);
        let word = pick(rng, &WORDS);
        let secs = n / 1000;
        let _ = write!(
            out,
            "2025-06-{:02}T{:02}:{:02}:{:02}.{:03}Z {level} [worker-{}] {word} {krate} v{}.{}.{} (/home/build/src/{krate})",
            1 + (secs / 86_400) % 28,
            (secs / 3600) % 24,
            (secs / 60) % 60,
            secs % 60,
            n % 1000,
            rng.below(8),
            rng.below(3),
            rng.below(40),
            rng.below(20),
        );
        match rng.below(10) {
            0 => {
                let _ = write!(out, " path=\"C:\\\\Users\\\\ci\\\\{krate}\"");
            }
            1 => out.extend_from_slice(b"\tstep=\"link\""),
            _ => {}
        }
        let extra = rng.range(0, 60);
        let _ = write!(
            out,
            " elapsed={}ms id={:016x}",
            rng.below(5000),
            rng.next_u64()
        );
        out.resize(out.len() + extra, b'.');
        out.push(b'\n');
    }
}

/// Generates text lines mixing CJK and emoji with ASCII.
fn cjk_lines(rng: &mut Rng, out: &mut Vec<u8>, want: usize) {
    while out.len() < want {
        let words = rng.range(2, 6);
        for i in 0..words {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(pick(rng, &CJK).as_bytes());
        }
        out.push(b'\n');
    }
}

/// Appends `s` as the contents of a JSON string (no quotes), escaping `"`,
/// `\` and control characters; other characters are written raw, as UTF-8.
pub fn escape_json_into(s: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut from = 0;
    for (i, &b) in s.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&s[from..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(esc);
        }
        from = i + 1;
    }
    out.extend_from_slice(&s[from..]);
}

/// Writes NDJSON frames, tracking each stream's offset.
struct Frames {
    body: Vec<u8>,
    offsets: [u64; 2],
}

impl Frames {
    fn new(capacity: usize) -> Self {
        Frames {
            body: Vec::with_capacity(capacity),
            offsets: [0, 0],
        }
    }

    fn text(&mut self, stderr: bool, data: &[u8]) {
        let name = if stderr { "stderr" } else { "stdout" };
        self.offsets[usize::from(stderr)] += data.len() as u64;
        self.body.extend_from_slice(b"{\"type\":\"");
        self.body.extend_from_slice(name.as_bytes());
        self.body.extend_from_slice(b"\",\"data\":\"");
        escape_json_into(data, &mut self.body);
        let _ = writeln!(
            self.body,
            "\",\"offset\":{}}}",
            self.offsets[usize::from(stderr)]
        );
    }

    fn base64(&mut self, stderr: bool, data: &[u8]) {
        let name = if stderr { "stderr" } else { "stdout" };
        self.offsets[usize::from(stderr)] += data.len() as u64;
        self.body.extend_from_slice(b"{\"type\":\"");
        self.body.extend_from_slice(name.as_bytes());
        self.body.extend_from_slice(b"\",\"data\":\"");
        let encoded = base64::engine::general_purpose::STANDARD.encode(data);
        self.body.extend_from_slice(encoded.as_bytes());
        let _ = writeln!(
            self.body,
            "\",\"encoding\":\"base64\",\"offset\":{}}}",
            self.offsets[usize::from(stderr)]
        );
    }

    fn heartbeat(&mut self) {
        self.body.extend_from_slice(b"{\"type\":\"heartbeat\"}\n");
    }

    fn exit(mut self) -> Vec<u8> {
        self.body
            .extend_from_slice(b"{\"type\":\"exit\",\"exit_code\":0,\"timed_out\":false}\n");
        self.body
    }
}

/// The largest prefix of `buf[..max]` that ends on a UTF-8 character boundary
/// (`buf` being valid UTF-8), at least one character long.
fn char_floor(buf: &[u8], max: usize) -> usize {
    if max >= buf.len() {
        return buf.len();
    }
    let mut at = max;
    while at > 0 && (buf[at] & 0xC0) == 0x80 {
        at -= 1;
    }
    if at == 0 {
        // One character longer than `max`: take it whole.
        at = 1;
        while at < buf.len() && (buf[at] & 0xC0) == 0x80 {
            at += 1;
        }
    }
    at
}

/// Generates corpus `kind` of about `target` bytes (NDJSON body, or plain text for P).
pub fn generate(kind: Kind, target: usize) -> Vec<u8> {
    let seed = match kind {
        Kind::A => 0xA,
        Kind::B => 0xB,
        Kind::C => 0xC,
        Kind::D => 0xD,
        Kind::P => 0xF,
    };
    let mut rng = Rng::new(0xD0A7_0000 + seed);
    let mut line_no = 0u64;
    match kind {
        Kind::A | Kind::B => {
            let chunk = if kind == Kind::A { 4096 } else { 65536 };
            let mut frames = Frames::new(target + 2 * chunk);
            let mut text = Vec::new();
            while frames.body.len() < target {
                log_lines(&mut rng, &mut line_no, &mut text, chunk);
                frames.text(false, &text[..chunk]);
                text.drain(..chunk);
            }
            frames.exit()
        }
        Kind::C => {
            let mut frames = Frames::new(target + 8192);
            let mut raw = vec![0u8; 4096];
            while frames.body.len() < target {
                rng.fill(&mut raw);
                frames.base64(false, &raw);
            }
            frames.exit()
        }
        Kind::D => {
            let mut frames = Frames::new(target + 1024);
            let mut pending: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
            let mut stderr = false;
            let mut raw = Vec::new();
            let mut cjk = Vec::new();
            let mut n = 0u64;
            while frames.body.len() < target {
                n += 1;
                // Streams alternate in runs: mostly stdout, bursts of stderr.
                if rng.percent(if stderr { 30 } else { 8 }) {
                    stderr = !stderr;
                }
                if n % 5_000 == 0 {
                    frames.heartbeat();
                }
                let len = rng.range(100, 300);
                let roll = rng.below(100);
                if roll < 2 {
                    raw.resize(len * 3 / 4, 0);
                    rng.fill(&mut raw);
                    frames.base64(stderr, &raw);
                } else if roll < 7 {
                    cjk.clear();
                    cjk_lines(&mut rng, &mut cjk, len);
                    let cut = char_floor(&cjk, len);
                    frames.text(stderr, &cjk[..cut]);
                } else {
                    let text = &mut pending[usize::from(stderr)];
                    log_lines(&mut rng, &mut line_no, text, len);
                    frames.text(stderr, &text[..len]);
                    text.drain(..len);
                }
            }
            frames.exit()
        }
        Kind::P => {
            let mut text = Vec::with_capacity(target + 256);
            log_lines(&mut rng, &mut line_no, &mut text, target);
            text
        }
    }
}

/// Makes sure every corpus exists in `dir` at `mb` megabytes (generating and
/// atomically renaming only the missing ones), and returns their paths.
pub fn ensure(dir: &Path, mb: u64) -> io::Result<Vec<(Kind, PathBuf)>> {
    fs::create_dir_all(dir)?;
    let target = usize::try_from(mb * 1_000_000).unwrap_or(usize::MAX);
    let mut paths = Vec::new();
    for kind in Kind::ALL {
        let path = dir.join(kind.file_name(mb));
        if !path.exists() {
            let body = generate(kind, target);
            let tmp = path.with_extension("tmp");
            fs::write(&tmp, &body)?;
            fs::rename(&tmp, &path)?;
        }
        paths.push((kind, path));
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dory_wire::{Cursor, End, Endpoint, Event, Reader, ReaderOptions, Stream};

    fn decode(body: &[u8]) -> ([Vec<u8>; 2], End) {
        let mut reader = Reader::new(
            Endpoint::ProcessOutput,
            Cursor::default(),
            ReaderOptions::default(),
        );
        reader.open(200, "application/x-ndjson", None).unwrap();
        let mut events = Vec::new();
        let mut out = [Vec::new(), Vec::new()];
        for piece in body.chunks(65536) {
            reader.feed(piece, &mut events).unwrap();
            for e in events.drain(..) {
                if let Event::Output { stream, data, .. } = e {
                    out[usize::from(stream == Stream::Stderr)].extend_from_slice(&data);
                }
            }
        }
        (out, reader.finish(&mut events).unwrap())
    }

    #[test]
    fn corpora_are_deterministic_and_decode_to_the_end() {
        for kind in Kind::READER {
            let body = generate(kind, 300_000);
            assert_eq!(body, generate(kind, 300_000), "{kind:?}");
            assert!(body.len() >= 300_000);
            let (out, end) = decode(&body);
            assert!(
                matches!(
                    end,
                    End::Exited {
                        exit_code: Some(0),
                        ..
                    }
                ),
                "{kind:?}"
            );
            assert!(!out[0].is_empty());
            assert_eq!(out[1].is_empty(), kind != Kind::D, "{kind:?}");
        }
    }

    #[test]
    fn build_log_mix_has_its_ingredients() {
        let body = generate(Kind::D, 2_000_000);
        let text = String::from_utf8(body).unwrap();
        let frames = text.lines().count() as f64;
        let base64 = text.matches("\"encoding\":\"base64\"").count() as f64;
        let cjk = text.lines().filter(|l| !l.is_ascii()).count() as f64;
        assert!(
            (0.01..0.03).contains(&(base64 / frames)),
            "{}",
            base64 / frames
        );
        assert!((0.035..0.065).contains(&(cjk / frames)), "{}", cjk / frames);
        assert!(text.contains("\"type\":\"stderr\""));
        assert!(text.contains("\"type\":\"heartbeat\""));
    }

    #[test]
    fn chunk_sizes_are_exact() {
        let (out, _) = decode(&generate(Kind::A, 100_000));
        assert_eq!(out[0].len() % 4096, 0);
        let (out, _) = decode(&generate(Kind::C, 100_000));
        assert_eq!(out[0].len() % 4096, 0);
    }

    #[test]
    fn char_floor_never_splits_a_character() {
        let s = "a漢字😀".as_bytes();
        assert_eq!(char_floor(s, 2), 1);
        assert_eq!(char_floor(s, 4), 4);
        assert_eq!(char_floor(s, 100), s.len());
        assert_eq!(char_floor("漢".as_bytes(), 1), 3);
    }
}
