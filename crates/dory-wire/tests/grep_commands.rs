//! Every `grep` command a notice gives lists exactly the lines the notice
//! counts: for every search vector and every keep vector, the vector's input
//! is written to a file, the command the core names for that file is run
//! with `sh -c`, and the line numbers it prints are compared with the lines
//! the core matched. Skipped, with the reason printed, where the machine has
//! no `sh` or `grep`.

mod common;

use std::path::PathBuf;
use std::process::Command;

use base64::Engine;
use dory_wire::preview::{Bounder, Keep, SpillOutcome};
use dory_wire::search::{SearchOptions, Searcher, MAX_MATCH_BYTES};
use serde_json::Value;

/// The vector's input bytes (`input` or `input_b64`).
fn input_of(v: &Value) -> Vec<u8> {
    match v.get("input_b64").and_then(Value::as_str) {
        Some(b) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("input_b64 is base64"),
        None => v["input"].as_str().unwrap_or_default().as_bytes().to_vec(),
    }
}

/// Whether `sh -c 'grep …'` can run here.
fn have_grep() -> bool {
    let ok = Command::new("sh")
        .args([
            "-c",
            "grep --version >/dev/null 2>&1 || echo x | grep -E x >/dev/null",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("no sh or grep on this machine: the grep commands are not run");
    }
    ok
}

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dory-grep-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Runs `command` and returns the line numbers it prints (`N:…`).
fn run(command: &str) -> Result<Vec<u64>, String> {
    let out = Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| format!("{command}: {e}"))?;
    // 0: lines found, 1: none; anything else (or a warning) is a failure.
    if !matches!(out.status.code(), Some(0 | 1)) || !out.stderr.is_empty() {
        return Err(format!(
            "{command}: status {:?}, stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let digits: Vec<u8> = l
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .copied()
                .collect();
            String::from_utf8(digits)
                .ok()
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| {
                    format!(
                        "{command}: not a grep -n line: {:?}",
                        String::from_utf8_lossy(l)
                    )
                })
        })
        .collect()
}

/// The vector's search options, with limits large enough to list every match.
fn all_matches(v: &Value, input: &[u8]) -> Option<Vec<u64>> {
    let options = SearchOptions {
        context: 0,
        max_lines: 1 << 20,
        max_bytes: 1 << 30,
        ignore_case: v
            .get("ignore_case")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    };
    let mut s = Searcher::new(v["pattern"].as_str()?, options).ok()?;
    s.push(input);
    let r = s.finish(None);
    let lines: Vec<u64> = r
        .text
        .lines()
        .filter(|l| !l.starts_with("[... "))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    assert_eq!(lines.len() as u64, r.matched_lines, "{}", v["name"]);
    Some(lines)
}

/// What the vector's search says of the file at `path`: the command, and
/// the notice's text when the output is cut.
fn search_at(v: &Value, input: &[u8], path: &str) -> Option<(Option<String>, String)> {
    let options = common::search::options_of(v);
    let mut s = Searcher::new(v["pattern"].as_str()?, options).ok()?;
    s.push(input);
    let r = s.finish(Some(path));
    Some((r.command, r.text))
}

#[test]
fn every_search_vectors_command_lists_what_it_counts() {
    if !have_grep() {
        return;
    }
    let dir = scratch("search");
    let mut ran = 0;
    let mut failures = Vec::new();
    for (i, (_, v)) in common::vectors("search").into_iter().enumerate() {
        let input = input_of(&v);
        let path = dir.join(format!("vector-{i}.txt"));
        std::fs::write(&path, &input).expect("writable");
        let path = path.to_str().expect("a UTF-8 path");
        let Some((command, text)) = search_at(&v, &input, path) else {
            continue; // the core refuses the vector's arguments
        };
        let want = all_matches(&v, &input).expect("the pattern compiles");
        match command {
            Some(command) => {
                ran += 1;
                match run(&command) {
                    Ok(got) if got == want => {}
                    Ok(got) => failures.push(format!(
                        "{}: {command} printed {got:?}, the core matched {want:?}",
                        v["name"]
                    )),
                    Err(e) => failures.push(format!("{}: {e}", v["name"])),
                }
            }
            None => {
                // No command: a long line, or the pattern or input has no
                // exact ERE; a cut notice says so plainly.
                let long = input
                    .split(|&b| b == b'\n')
                    .any(|l| l.len() > MAX_MATCH_BYTES);
                let cut = text
                    .lines()
                    .last()
                    .is_some_and(|l| l.contains(" more matching line"));
                if cut && !long && !text.contains("; no grep command: ") && text.contains(" of ") {
                    failures.push(format!(
                        "{}: no command and the notice does not say why: {text:?}",
                        v["name"]
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 20, "only {ran} commands run");
}

/// The lines the keep patterns match by the rule of docs/preview.md: each
/// line's first 4096 bytes, a `\r` before its end dropped.
fn keep_matches(patterns: &[String], input: &[u8]) -> Vec<u64> {
    let joined: Vec<String> = patterns.iter().map(|p| format!("(?:{p})")).collect();
    let regex = regex::bytes::Regex::new(&joined.join("|")).expect("the patterns compile");
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.is_empty() || input.ends_with(b"\n") {
        lines.pop();
    }
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let mut l = &l[..l.len().min(4096)];
            if l.len() < 4096 {
                l = l.strip_suffix(b"\r").unwrap_or(l);
            }
            regex.is_match(l)
        })
        .map(|(n, _)| n as u64 + 1)
        .collect()
}

/// The header's pointer in a preview: the command, or why there is none.
fn pointer(text: &str) -> Option<Result<String, String>> {
    let header = text.lines().find(|l| l.starts_with("[... kept "))?;
    let body = header.strip_suffix(" ...]")?;
    if let Some((_, c)) = body.split_once("; all matches: ") {
        return Some(Ok(c.to_owned()));
    }
    body.split_once("; no grep command: ")
        .map(|(_, r)| Err(r.to_owned()))
}

/// The header's pointer for `keep` over `input` saved at `path`: with the
/// vector's limits, else with a section large enough to name it.
fn keep_pointer(
    keep: &Keep,
    v: &Value,
    input: &[u8],
    path: &str,
) -> Option<Result<String, String>> {
    let limits = [
        (
            v["max_lines"].as_u64().unwrap_or(40) as usize,
            v["max_bytes"].as_u64().unwrap_or(4000) as usize,
        ),
        (12, 200_000),
        (4, 200_000),
    ];
    limits.into_iter().find_map(|(lines, bytes)| {
        let bounded = Bounder::new(lines, bytes)
            .with_keep(keep.clone())
            .bound(input)
            .ok()?;
        let p = bounded.render(
            SpillOutcome::Saved {
                path: path.to_owned(),
            },
            None,
        );
        pointer(&p.text)
    })
}

#[test]
fn every_keep_vectors_command_lists_what_it_counts() {
    if !have_grep() {
        return;
    }
    let dir = scratch("keep");
    let mut ran = 0;
    let mut failures = Vec::new();
    let file = common::vectors_dir().join("preview").join("keep.json");
    let vectors: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("keep.json")).expect("JSON");
    for (i, v) in vectors["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .enumerate()
    {
        let Ok(Ok(keep)) = common::preview::keep_of(v.get("keep").unwrap_or(&Value::Null)) else {
            continue;
        };
        if keep.is_none() {
            continue;
        }
        let input = input_of(v);
        let path = dir.join(format!("vector-{i}.txt"));
        std::fs::write(&path, &input).expect("writable");
        let path = path.to_str().expect("a UTF-8 path");
        let want = keep_matches(keep.as_slice(), &input);
        match keep_pointer(&keep, v, &input, path) {
            None => {} // no line of it is omitted, whatever the limits
            // No ERE form: said plainly, and no command to run.
            Some(Err(reason)) if reason.starts_with("a keep pattern has ") => {}
            Some(Err(reason)) => failures.push(format!("{}: no grep command: {reason}", v["name"])),
            Some(Ok(command)) => {
                ran += 1;
                // grep reads a `\r` before `\n`, which keep drops
                // (docs/preview.md): on such input, the same lines once the
                // `\r` are dropped, and the file itself otherwise.
                let crlf = input.windows(2).any(|w| w == b"\r\n");
                let command = if crlf {
                    let stripped = dir.join(format!("vector-{i}-lf.txt"));
                    let mut lf = input.clone();
                    let mut at = 0;
                    lf.retain(|&b| {
                        at += 1;
                        !(b == b'\r' && input.get(at) == Some(&b'\n'))
                    });
                    std::fs::write(&stripped, lf).expect("writable");
                    command.replace(path, stripped.to_str().expect("UTF-8"))
                } else {
                    command
                };
                match run(&command) {
                    Ok(got) if got == want => {}
                    Ok(got) => failures.push(format!(
                        "{}: {command} printed {got:?}, keep matched {want:?}",
                        v["name"]
                    )),
                    Err(e) => failures.push(format!("{}: {e}", v["name"])),
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 10, "only {ran} commands run");
}

/// A pattern with no ERE form: the header says so, and names no command.
#[test]
fn a_keep_pattern_without_a_grep_form_says_so() {
    let keep = Keep::patterns(["\\bpanic\\b"]).expect("valid");
    let input: String = (0..100)
        .map(|i| {
            if i == 50 {
                "thread panic here\n".to_owned()
            } else {
                format!("ok {i}\n")
            }
        })
        .collect();
    let pointer = keep_pointer(&keep, &Value::Null, input.as_bytes(), "/w/out.txt");
    assert_eq!(
        pointer,
        Some(Err(
            "a keep pattern has a word boundary (\\b, \\B, \\< or \\>)".to_owned()
        ))
    );
}

/// Generated inputs (CRLF and lone `\r`, non-ASCII, invalid UTF-8, NUL, a
/// last line without `\n`) and patterns: whenever the search names a
/// command, it prints exactly the lines the search matched.
#[test]
fn generated_inputs_and_patterns() {
    if !have_grep() {
        return;
    }
    const PIECES: &[&[u8]] = &[
        b"error",
        b"ERROR",
        b"Error",
        b"line ",
        b"15",
        b"5",
        b" ok",
        b"ok",
        b" ",
        b"\t",
        b"\r\n",
        b"\n",
        b"\n",
        b"\n",
        b"\r",
        "é".as_bytes(),
        "É".as_bytes(),
        "●".as_bytes(),
        "\u{212a}".as_bytes(),
        "\u{2003}".as_bytes(),
        b"\xff",
        b"\xc3",
        b"\0",
        b"k",
        b"K",
        b"a",
        b"b",
        b"x",
        b"::",
        b"FAILED",
        b"[",
        b"]",
        b"(",
        b")",
        b".",
        b"-",
    ];
    const PATTERNS: &[(&str, bool)] = &[
        ("error", false),
        ("error", true),
        ("(?i)ERROR", false),
        ("^line \\d+5 ok$", false),
        ("k", true),
        ("a.b", false),
        ("^$", false),
        ("[^ ]+$", false),
        ("^[[:space:]]*(●|×) ", false),
        ("[[:space:]]x", false),
        ("\\s", false),
        ("\\d+", false),
        ("é|É", false),
        ("(?:a|b)+:", false),
        ("x|", false),
        ("[]\\[().-]", false),
        ("ok$", false),
        ("^[^ ]+::[^ ]+ (FAILED|ERROR)( |$)", false),
    ];
    let dir = scratch("generated");
    let path = dir.join("out.txt");
    let path_str = path.to_str().expect("UTF-8").to_owned();
    let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let (mut ran, mut none) = (0, 0);
    let mut failures = Vec::new();
    for round in 0..300 {
        let mut input = Vec::new();
        for _ in 0..next(60) {
            input.extend_from_slice(PIECES[next(PIECES.len())]);
        }
        // Most rounds are text a tool prints: ASCII, or UTF-8 without NUL.
        match round % 3 {
            0 => input.retain(u8::is_ascii),
            1 => {
                let text = String::from_utf8_lossy(&input).replace('\0', "");
                input = text.into_bytes();
            }
            _ => {}
        }
        if round % 4 == 0 {
            input.retain(|&b| b != b'\r');
        }
        let (pattern, ignore_case) = PATTERNS[round % PATTERNS.len()];
        let options = SearchOptions {
            max_lines: 3,
            ignore_case,
            ..SearchOptions::default()
        };
        let mut s = Searcher::new(pattern, options).expect("a valid pattern");
        s.push(&input);
        let r = s.finish(Some(&path_str));
        let v = serde_json::json!({"pattern": pattern, "ignore_case": ignore_case, "name": round});
        let want = all_matches(&v, &input).expect("compiles");
        let Some(command) = r.command else {
            none += 1;
            continue;
        };
        ran += 1;
        std::fs::write(&path, &input).expect("writable");
        match run(&command) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!(
                "{command} on {:?}: printed {got:?}, the search matched {want:?}",
                String::from_utf8_lossy(&input)
            )),
            Err(e) => failures.push(e),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{ran} commands run, {none} refused");
    assert!(ran >= 150, "only {ran} commands run ({none} refused)");
}
