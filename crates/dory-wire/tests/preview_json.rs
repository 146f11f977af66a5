//! The canonical JSON of `Preview::to_json` and `RunResult::to_json` on real
//! previews: plain cuts, kept lines, terminal rendering, a run's three views
//! with a stderr section and lost bytes. Each document has every key in its
//! order, the fields' values, and the notices the bounder wrote: each a
//! whole line of `text`, in order, with its kind; `text` without them is the
//! output shown. The schema itself is checked from Python (`jsonschema`).

use dory_wire::preview::{
    Bounded, Bounder, Keep, NoticeKind, Preview, RunBounder, RunEnd, SpillOutcome, View,
};
use dory_wire::{RunResult, Stream};
use serde_json::Value;

const PREVIEW_KEYS: [&str; 14] = [
    "text",
    "truncated",
    "total_lines",
    "total_bytes",
    "head_bytes",
    "tail_bytes",
    "omitted_lines",
    "omitted_bytes",
    "omitted_range",
    "spill_id",
    "spill_path",
    "spill_error",
    "notices",
    "tokens",
];

const RUN_KEYS: [&str; 9] = [
    "proc_id",
    "idempotency_key",
    "exit_code",
    "timed_out",
    "stdout",
    "stderr",
    "combined",
    "stdout_lost_bytes",
    "stderr_lost_bytes",
];

/// The keys of the object that starts at `json` (top level only), in order.
fn keys_in_order(json: &str) -> Vec<String> {
    // serde_json's Map is sorted; read the keys with a streaming walk.
    let value: Value = serde_json::from_str(json).expect("valid JSON");
    let object = value.as_object().expect("an object");
    let mut found: Vec<(usize, String)> = object
        .keys()
        .map(|k| {
            let quoted = serde_json::to_string(k).expect("a key") + ":";
            let at = top_level_find(json, &quoted).unwrap_or_else(|| panic!("{k} at top level"));
            (at, k.clone())
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, k)| k).collect()
}

/// Where `needle` occurs at depth 1 of the object `json`, outside strings.
fn top_level_find(json: &str, needle: &str) -> Option<usize> {
    let bytes = json.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        if depth == 1 && b == b'"' && json[i..].starts_with(needle) {
            return Some(i);
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Checks `preview.to_json()` against the preview and returns its kinds.
fn check(preview: &Preview<'_>) -> Vec<NoticeKind> {
    let json = preview.to_json();
    assert_eq!(keys_in_order(&json), PREVIEW_KEYS, "{json}");
    let v: Value = serde_json::from_str(&json).expect("valid JSON");
    check_value(preview, &v);
    preview.notices.iter().map(|n| n.kind).collect()
}

/// Checks a parsed preview document against `preview`.
fn check_value(preview: &Preview<'_>, v: &Value) {
    assert_eq!(v["text"], *preview.text);
    assert_eq!(v["truncated"], preview.truncated);
    for (key, value) in [
        ("total_lines", preview.total_lines),
        ("total_bytes", preview.total_bytes),
        ("head_bytes", preview.head_bytes),
        ("tail_bytes", preview.tail_bytes),
        ("omitted_lines", preview.omitted_lines),
        ("omitted_bytes", preview.omitted_bytes),
    ] {
        assert_eq!(v[key].as_u64(), Some(value), "{key}");
    }
    match preview.omitted_range {
        Some((first, last)) => {
            assert_eq!(v["omitted_range"]["first"].as_u64(), Some(first));
            assert_eq!(v["omitted_range"]["last"].as_u64(), Some(last));
            assert_eq!(v["omitted_range"].as_object().map(|o| o.len()), Some(2));
        }
        None => assert!(v["omitted_range"].is_null()),
    }
    for (key, value) in [
        ("spill_id", &preview.spill_id),
        ("spill_path", &preview.spill_path),
        ("spill_error", &preview.spill_error),
    ] {
        match value {
            Some(s) => assert_eq!(v[key], **s, "{key}"),
            None => assert!(v[key].is_null(), "{key}"),
        }
    }
    let lines: Vec<&str> = preview.text.split('\n').collect();
    let notices = v["notices"].as_array().expect("notices");
    assert_eq!(notices.len(), preview.notices.len());
    for ((kind, line, text), j) in preview.notice_lines().zip(notices) {
        assert_eq!(
            (kind.as_str(), line, text),
            (
                j["kind"].as_str().expect("kind"),
                j["line"].as_u64().expect("line"),
                j["text"].as_str().expect("text")
            )
        );
    }
    let mut last_line = 0;
    let mut last_end = 0;
    for (n, j) in preview.notices.iter().zip(notices) {
        let text = preview.notice_text(n);
        assert_eq!(j["kind"], n.kind.as_str());
        assert_eq!(NoticeKind::from_name(n.kind.as_str()), Some(n.kind));
        assert_eq!(j["text"], text);
        assert_eq!(j.as_object().map(|o| o.len()), Some(3));
        assert!(
            text.starts_with("[... ") && text.ends_with(" ...]"),
            "{text:?}"
        );
        assert!(!text.contains('\n'));
        // A whole line of the text, after the one before.
        let line = j["line"].as_u64().expect("line") as usize;
        assert!(line > last_line && n.start >= last_end, "in order");
        assert_eq!(lines[line - 1], text, "line {line}");
        assert!(n.start == 0 || preview.text.as_bytes()[n.start - 1] == b'\n');
        assert!(n.end == preview.text.len() || preview.text.as_bytes()[n.end] == b'\n');
        (last_line, last_end) = (line, n.end);
    }
    assert_eq!(
        preview.truncated,
        preview
            .notices
            .iter()
            .any(|n| n.kind == NoticeKind::Omitted)
    );
}

/// `text` without its notice lines.
fn without_notices(preview: &Preview<'_>) -> String {
    let mut out = String::new();
    let mut at = 0;
    for n in &preview.notices {
        out.push_str(&preview.text[at..n.start]);
        at = (n.end + 1).min(preview.text.len());
    }
    out.push_str(&preview.text[at..]);
    out
}

/// What a plain cut shows of `input`: head, a `\n` when the head ends
/// inside a line, and tail.
fn shown(input: &str, p: &Preview<'_>) -> String {
    let head = &input[..p.head_bytes as usize];
    let tail = &input[input.len() - p.tail_bytes as usize..];
    let mut out = head.to_owned();
    if !head.is_empty() && !head.ends_with('\n') {
        out.push('\n');
    }
    out + tail
}

fn render(bounder: &Bounder, input: &[u8], outcome: SpillOutcome) -> Preview<'static> {
    match bounder.bound(input).expect("bounded") {
        Bounded::Fits(p) => p.into_owned(),
        Bounded::NeedsSpill(pending) => pending.render(outcome, Some("read it with sed")),
    }
}

#[test]
fn input_that_fits_has_no_notice() {
    let input = "one \"quoted\" line\twith a tab\u{1}\n".repeat(3);
    let p = render(
        &Bounder::new(10, 1000),
        input.as_bytes(),
        SpillOutcome::NotSaved,
    );
    assert_eq!(check(&p), []);
    assert_eq!(without_notices(&p), input);
    assert!(p
        .to_json()
        .contains(r#"one \"quoted\" line\twith a tab\u0001\n"#));
}

#[test]
fn a_cut_has_one_omitted_notice_in_every_form() {
    let input: String = (1..=300)
        .map(|i| format!("[{i:04}] step {i}: ok ✓\n"))
        .collect();
    for (max_bytes, outcome) in [
        (
            600,
            SpillOutcome::Saved {
                path: "/tmp/tool output/it's.txt".into(),
            },
        ),
        (600, SpillOutcome::NotSaved),
        (
            600,
            SpillOutcome::Failed {
                reason: "disk full".into(),
            },
        ),
        (80, SpillOutcome::NotSaved),
        (40, SpillOutcome::NotSaved),
    ] {
        for max_lines in [1, 7, 40] {
            let p = render(
                &Bounder::new(max_lines, max_bytes),
                input.as_bytes(),
                outcome.clone(),
            );
            assert!(p.truncated);
            assert_eq!(check(&p), [NoticeKind::Omitted], "{max_lines} {max_bytes}");
            assert_eq!(
                without_notices(&p),
                shown(&input, &p),
                "{max_lines} {max_bytes}"
            );
        }
    }
    // A head ending inside a line: the notice is a line of its own still.
    let long = "x".repeat(5000);
    let p = render(
        &Bounder::new(5, 300),
        long.as_bytes(),
        SpillOutcome::NotSaved,
    );
    assert_eq!(check(&p), [NoticeKind::Omitted]);
    assert_eq!(without_notices(&p), shown(&long, &p));
}

#[test]
fn kept_lines_and_the_terminal_line_are_notices() {
    let mut input = String::new();
    for i in 1..=400 {
        input.push_str(&format!(
            "\x1b[32mcompiling\x1b[0m crate {i}\r\x1b[Kbuilt crate {i}\n"
        ));
        if i == 200 {
            input.push_str("error[E0308]: mismatched types\n");
        }
    }
    let path = SpillOutcome::Saved {
        path: "/w/.tool-output/x.txt".into(),
    };
    let keep = Bounder::new(40, 4000).with_keep(Keep::defaults());
    let p = render(&keep, input.as_bytes(), path.clone());
    assert_eq!(check(&p), [NoticeKind::Omitted, NoticeKind::Kept]);
    assert!(without_notices(&p).contains("201:error[E0308]: mismatched types\n"));
    let both = keep.clone().with_terminal(true);
    let p = render(&both, input.as_bytes(), path.clone());
    assert_eq!(
        check(&p),
        [NoticeKind::Omitted, NoticeKind::Kept, NoticeKind::Terminal]
    );
    assert!(!without_notices(&p).contains('\x1b'));
    let terminal = Bounder::new(40, 4000).with_terminal(true);
    let p = render(&terminal, input.as_bytes(), path);
    assert_eq!(check(&p), [NoticeKind::Omitted, NoticeKind::Terminal]);
    // Input that fits, rendered: the terminal line alone.
    let small = "50%\r100%\n";
    let p = render(&terminal, small.as_bytes(), SpillOutcome::NotSaved);
    assert!(!p.truncated);
    assert_eq!(check(&p), [NoticeKind::Terminal]);
    assert_eq!(without_notices(&p), "100%\n");
}

#[test]
fn lines_of_the_input_that_look_like_notices_are_not_notices() {
    let input = "[... 5 bytes omitted ...]\n".repeat(3);
    let p = render(
        &Bounder::new(10, 1000),
        input.as_bytes(),
        SpillOutcome::NotSaved,
    );
    assert_eq!(check(&p), []);
    let big = "[... 5 bytes omitted ...]\n".repeat(300);
    let p = render(
        &Bounder::new(10, 300),
        big.as_bytes(),
        SpillOutcome::NotSaved,
    );
    assert_eq!(check(&p), [NoticeKind::Omitted]);
    assert!(p.text.matches("[... ").count() > 1);
}

/// A run with much stdout after an error on stderr, and lost bytes.
fn run_views(keep: bool) -> [Preview<'static>; 3] {
    let mut run = RunBounder::new(40, 2000).with_spill_id("run-0123");
    if keep {
        run = run.with_keep(Keep::defaults()).with_terminal(true);
    }
    for i in 0..300 {
        run.push(
            Stream::Stdout,
            format!("[{i:04}] step {i}: ok\n").as_bytes(),
        );
    }
    run.push(Stream::Stderr, b"warning: deprecated flag\n");
    run.push(Stream::Stderr, b"error: the one line that mattered\n");
    run.lose(Stream::Stdout, 9000, 9100);
    for i in 300..600 {
        run.push(
            Stream::Stdout,
            format!("[{i:04}] step {i}: ok\n").as_bytes(),
        );
    }
    let pending = run.finish().expect("finished");
    View::ALL.map(|view| {
        let outcome = SpillOutcome::Saved {
            path: format!("/w/{}.txt", pending.spill_id(view)),
        };
        pending.render(view, outcome, None)
    })
}

#[test]
fn a_runs_views_have_the_stderr_section_and_the_loss_line() {
    for keep in [false, true] {
        let [stdout, stderr, combined] = run_views(keep);
        assert_eq!(check(&stdout), [NoticeKind::Omitted, NoticeKind::Lost]);
        assert_eq!(check(&stderr), []);
        // With keep, the error is also kept from the omitted middle.
        let expected: &[NoticeKind] = if keep {
            &[
                NoticeKind::Omitted,
                NoticeKind::Kept,
                NoticeKind::Stderr,
                NoticeKind::Lost,
            ]
        } else {
            &[NoticeKind::Omitted, NoticeKind::Stderr, NoticeKind::Lost]
        };
        assert_eq!(check(&combined), expected);
        let stderr = &combined.notices[expected.len() - 2];
        let stderr_header = combined.notice_text(stderr);
        assert_eq!(stderr_header, "[... the last 59 of 59 bytes of stderr ...]");
        assert!(without_notices(&combined)
            .ends_with("warning: deprecated flag\nerror: the one line that mattered\n"));
        let lost = stdout.notice_text(&stdout.notices[1]);
        assert!(lost.starts_with("[... 100 bytes lost"), "{lost}");
    }
}

/// A finished run's combined view ends with the end line, listed as a
/// notice of kind `end` after the stderr section and the loss line.
#[test]
fn a_finished_runs_combined_view_ends_with_the_end_notice() {
    let mut run = RunBounder::new(40, 2000).with_spill_id("run-0123");
    for i in 0..300 {
        run.push(Stream::Stdout, format!("[{i:04}] ok\n").as_bytes());
    }
    run.push(Stream::Stderr, b"error: the one line that mattered\n");
    run.lose(Stream::Stdout, 9000, 9100);
    run.push(Stream::Stdout, "done\n".repeat(300).as_bytes());
    let end = RunEnd::new(None, true).timeout_seconds(Some(30.0));
    let pending = run.finish_ended(&end).expect("finished");
    let combined = pending.render(View::Combined, SpillOutcome::NotSaved, None);
    assert_eq!(
        check(&combined),
        [
            NoticeKind::Omitted,
            NoticeKind::Stderr,
            NoticeKind::Lost,
            NoticeKind::End
        ]
    );
    let v: Value = serde_json::from_str(&combined.to_json()).expect("JSON");
    let last = &v["notices"][3];
    assert_eq!(last["kind"], "end");
    assert_eq!(
        last["text"],
        "[... timed out after 30 s: killed, no exit code ...]"
    );
    assert_eq!(
        last["line"].as_u64(),
        Some(combined.text.lines().count() as u64)
    );
    assert!(combined.text.len() <= 2000 && combined.text.lines().count() <= 40);
    // The other views have no end line.
    for view in [View::Stdout, View::Stderr] {
        let p = pending.render(view, SpillOutcome::NotSaved, None);
        assert!(!check(&p).contains(&NoticeKind::End));
    }
}

#[test]
fn a_run_result_is_one_document_with_exact_integers() {
    let mut result = RunResult::new("p_1".into(), "run-k \"quoted\"".into(), run_views(false));
    result.exit_code = Some(i64::MIN);
    result.stdout_lost_bytes = u64::MAX;
    result.stderr_lost_bytes = (1 << 53) + 1;
    let json = result.to_json();
    assert_eq!(keys_in_order(&json), RUN_KEYS);
    assert!(json.contains(r#""exit_code":-9223372036854775808,"#));
    assert!(json.contains(r#""stdout_lost_bytes":18446744073709551615,"#));
    assert!(json.ends_with(r#""stderr_lost_bytes":9007199254740993}"#));
    let v: Value = serde_json::from_str(&json).expect("valid JSON");
    assert_eq!(v["proc_id"], "p_1");
    assert_eq!(v["idempotency_key"], "run-k \"quoted\"");
    assert_eq!(v["timed_out"], false);
    for (key, preview) in [
        ("stdout", &result.stdout),
        ("stderr", &result.stderr),
        ("combined", &result.combined),
    ] {
        check_value(preview, &v[key]);
        // Embedded byte for byte as the preview writes itself.
        assert!(json.contains(&format!("\"{key}\":{},", preview.to_json())));
    }
    result.exit_code = None;
    result.timed_out = true;
    let json = result.to_json();
    assert!(json.contains(r#","exit_code":null,"timed_out":true,"#));
}

#[test]
fn invalid_utf8_and_controls_round_trip() {
    let mut input = b"bad \xff\xfe byte\x07 and \x1f\n".repeat(200);
    input.extend_from_slice("the end \u{2028}\n".as_bytes());
    let p = render(&Bounder::new(6, 400), &input, SpillOutcome::NotSaved);
    assert_eq!(check(&p), [NoticeKind::Omitted]);
    assert!(p.to_json().contains("\\u0007"));
    assert!(p.to_json().contains('\u{fffd}'));
}

#[test]
fn the_shared_cases_give_the_same_bytes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/api/canonical-json.json"
    );
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the cases")).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 5);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let input: String = case["input"]
            .as_array()
            .expect("input")
            .iter()
            .map(|piece| {
                piece[0]
                    .as_str()
                    .expect("text")
                    .repeat(piece[1].as_u64().expect("times") as usize)
            })
            .collect();
        let limit = |key: &str| case[key].as_u64().expect("a limit") as usize;
        let mut bounder = Bounder::new(limit("max_lines"), limit("max_bytes"))
            .with_terminal(case["terminal"].as_bool().expect("terminal"));
        bounder = match &case["keep"] {
            Value::Null => bounder,
            Value::String(word) if word == "defaults" => bounder.with_keep(Keep::defaults()),
            patterns => bounder.with_keep(
                Keep::patterns(
                    patterns
                        .as_array()
                        .expect("patterns")
                        .iter()
                        .map(|p| p.as_str().expect("a pattern")),
                )
                .expect("valid patterns"),
            ),
        };
        let outcome = match case["spill_path"].as_str() {
            Some(path) => SpillOutcome::Saved { path: path.into() },
            None => SpillOutcome::NotSaved,
        };
        let spill_id = case["spill_id"].as_str().expect("spill_id");
        let preview = bounder
            .bound_with_spill_id(input.as_bytes(), spill_id)
            .expect("bounded")
            .render(outcome, case["hint"].as_str());
        check(&preview);
        // DORY_CANONICAL_ACTUAL=FILE: every case's JSON as it is now, one
        // JSON line each, to review and take a deliberate change.
        if let Some(out) = std::env::var_os("DORY_CANONICAL_ACTUAL") {
            use std::io::Write as _;
            let line = serde_json::json!({"name": name, "json": preview.to_json()});
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&out)
                .expect("writable");
            writeln!(file, "{line}").expect("written");
            continue;
        }
        assert_eq!(
            preview.to_json(),
            case["json"].as_str().expect("json"),
            "{name}"
        );
    }
}
