//! Runs every vector of kind "preview" found below `tests/vectors/` (see
//! `docs/VECTORS.md`): the expectation, and every invariant, for the
//! whole-input bounder and for the streaming bounder fed in seeded random chunks.

mod common;

use base64::Engine;
use common::preview::{count_lines, expected_notices, keep_of, lossy, notice_of};
use dory_wire::preview::{
    token_limit, tokenizers, Bounded, Bounder, Keep, Limits, Preview, SpillOutcome, TokenLimit,
    DEFAULT_TOKENIZER,
};
use serde_json::Value;

struct Case {
    name: String,
    input: Vec<u8>,
    max_lines: usize,
    max_bytes: usize,
    outcome: SpillOutcome,
    hint: Option<String>,
    /// The vector's `keep`: the option, or the core's error for it.
    keep: Result<Keep, dory_wire::Error>,
    terminal: bool,
    /// The vector's `max_tokens` and `tokenizer` as the core reads them
    /// (`token_limit`), or its error (a tokenizer this build lacks).
    tokens: Result<Option<TokenLimit>, dory_wire::Error>,
    tokenizer: Option<String>,
    expect: Value,
}

/// A vector's `keep`: absent or null (none), `"defaults"`, or a list of
/// patterns (which the core may refuse).
fn parse_keep(name: &str, v: &Value) -> Result<Result<Keep, dory_wire::Error>, String> {
    keep_of(v.get("keep").unwrap_or(&Value::Null)).map_err(|e| format!("{name}: {e}"))
}

impl Case {
    /// Whether this build has the tokenizer the vector names (the default
    /// when it names none but sets max_tokens).
    fn has_tokenizer(&self) -> bool {
        let name = self.tokenizer.as_deref().unwrap_or(DEFAULT_TOKENIZER);
        tokenizers().contains(&name)
    }

    /// Whether an option changes the preview's shape (kept lines, rendering):
    /// then the invariants of a plain head + notice + tail are not checked.
    fn options(&self) -> bool {
        self.terminal || self.keep.as_ref().map_or(true, |k| !k.is_none())
    }

    /// The bounder of the vector: its limits and options.
    fn bounder(&self) -> Result<Bounder, dory_wire::Error> {
        let limits =
            Limits::new(self.max_lines, self.max_bytes).with_token_limit(self.tokens.clone()?);
        Ok(Bounder::with_limits(limits)
            .with_keep(self.keep.clone()?)
            .with_terminal(self.terminal))
    }
}

fn parse(v: &Value) -> Result<Case, String> {
    let name = v["name"]
        .as_str()
        .ok_or("vector without a name")?
        .to_owned();
    let input = match (v.get("input"), v.get("input_b64")) {
        (Some(text), None) => text
            .as_str()
            .ok_or("input is not a string")?
            .as_bytes()
            .to_vec(),
        (None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().ok_or("input_b64 is not a string")?)
            .map_err(|e| format!("input_b64: {e}"))?,
        _ => return Err(format!("{name}: exactly one of input and input_b64")),
    };
    let limit = |key: &str| {
        v[key]
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| format!("{name}: {key} missing"))
    };
    let outcome = match v.get("spill") {
        None | Some(Value::Null) => SpillOutcome::NotSaved,
        Some(spill) if spill.get("fails").and_then(Value::as_bool) == Some(true) => {
            SpillOutcome::Failed {
                reason: "the writer failed".into(),
            }
        }
        Some(spill) => SpillOutcome::Saved {
            path: spill["path"]
                .as_str()
                .ok_or_else(|| format!("{name}: bad spill"))?
                .to_owned(),
        },
    };
    let terminal = match v.get("terminal") {
        None => false,
        Some(t) => t
            .as_bool()
            .ok_or_else(|| format!("{name}: terminal is not a bool"))?,
    };
    let max_tokens = match v.get("max_tokens") {
        None | Some(Value::Null) => None,
        Some(n) => Some(
            n.as_u64()
                .ok_or_else(|| format!("{name}: max_tokens is not a whole number"))?
                as usize,
        ),
    };
    let tokenizer = match v.get("tokenizer") {
        None | Some(Value::Null) => None,
        Some(t) => Some(
            t.as_str()
                .ok_or_else(|| format!("{name}: tokenizer is not a string"))?,
        ),
    };
    Ok(Case {
        tokens: token_limit(max_tokens, tokenizer),
        tokenizer: tokenizer.map(str::to_owned),
        keep: parse_keep(&name, v)?,
        terminal,
        max_lines: limit("max_lines")?,
        max_bytes: limit("max_bytes")?,
        hint: v.get("hint").and_then(Value::as_str).map(str::to_owned),
        expect: v.get("expect").cloned().unwrap_or(Value::Null),
        name,
        input,
        outcome,
    })
}

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// Every invariant of docs/VECTORS.md for one preview of `case.input`.
fn check_invariants(case: &Case, p: &Preview) -> Result<(), String> {
    let data = &case.input;
    let text = p.text.as_bytes();
    // The token limit holds, counted again here, and is the count recorded.
    if let Ok(Some(limit)) = &case.tokens {
        let n = limit.tokenizer.count(&p.text);
        ensure(p.tokens == Some(n as u64), || {
            format!("tokens {:?}, counted {n}", p.tokens)
        })?;
        ensure(n <= limit.max_tokens, || {
            format!("{n} tokens > max_tokens {}", limit.max_tokens)
        })?;
    }
    // Valid UTF-8 is guaranteed by `String`; both limits hold.
    ensure(text.len() <= case.max_bytes, || {
        format!("{} bytes > max_bytes", text.len())
    })?;
    ensure(count_lines(text) <= case.max_lines as u64, || {
        format!("{} lines > max_lines", count_lines(text))
    })?;
    if case.options() {
        // Kept lines and rendering change the text's shape (docs/preview.md,
        // "Kept lines", "Terminal rendering"); the counts still add up, and
        // the expectation (exact text) says the rest.
        ensure(
            p.head_bytes + p.omitted_bytes + p.tail_bytes == p.total_bytes,
            || "bytes do not add up".into(),
        )?;
        ensure(p.truncated == p.spill_id.is_some(), || "spill id".into())?;
        if case.keep.as_ref().is_ok_and(Keep::is_none) {
            ensure(!p.text.contains("[... kept "), || {
                "kept lines without keep".into()
            })?;
        }
        if !case.terminal {
            ensure(!p.text.contains("[... terminal: "), || {
                "a terminal line without terminal".into()
            })?;
        }
        return Ok(());
    }
    // Counts add up.
    ensure(p.total_bytes == data.len() as u64, || "total_bytes".into())?;
    ensure(p.total_lines == count_lines(data), || "total_lines".into())?;
    ensure(
        p.head_bytes + p.omitted_bytes + p.tail_bytes == p.total_bytes,
        || "bytes do not add up".into(),
    )?;
    if !p.truncated {
        ensure(p.text == lossy(data), || {
            "untruncated preview is not the input".into()
        })?;
        return ensure(
            p.omitted_bytes == 0 && p.omitted_lines == 0 && p.omitted_range.is_none(),
            || "untruncated preview reports omissions".into(),
        );
    }
    let head = usize::try_from(p.head_bytes).map_err(|e| e.to_string())?;
    let tail_start = data.len() - usize::try_from(p.tail_bytes).map_err(|e| e.to_string())?;
    ensure(head < tail_start, || "head and tail overlap".into())?;
    for cut in [head, tail_start] {
        ensure(
            lossy(&data[..cut]) + &lossy(&data[cut..]) == lossy(data),
            || format!("cut at {cut} splits a character"),
        )?;
        ensure(
            !(cut > 0 && data[cut - 1] == b'\r' && data.get(cut) == Some(&b'\n')),
            || format!("cut at {cut} splits \\r\\n"),
        )?;
    }
    // A rendering of a prefix, exactly one notice line, a rendering of a suffix.
    let notice = notice_of(p, data).ok_or_else(|| {
        format!(
            "preview is not head + notice + tail: {:?} (head {head}, tail from {tail_start})",
            p.text
        )
    })?;
    let allowed = expected_notices(p, data, case.hint.as_deref());
    ensure(allowed.iter().any(|n| n == notice), || {
        format!("notice {notice:?} is none of {allowed:?}")
    })?;
    ensure(
        notice.starts_with("[... ") && notice.ends_with(" ...]") && notice.contains("omitted"),
        || format!("notice {notice:?} lost its shape"),
    )?;
    ensure(!notice.contains('\n'), || "the notice spans lines".into())?;
    // The range names exactly the lines with a hidden byte.
    let first = count_lines(&data[..head]) + u64::from(head == 0 || data[head - 1] == b'\n');
    let last = data[..tail_start].iter().filter(|&&b| b == b'\n').count() as u64
        + u64::from(data[tail_start - 1] != b'\n');
    ensure(p.omitted_range == Some((first, last)), || {
        format!("range {:?} != {:?}", p.omitted_range, (first, last))
    })?;
    ensure(p.omitted_lines == last - first + 1, || {
        "omitted_lines".into()
    })?;
    ensure(p.spill_id.as_ref().is_some_and(|id| !id.is_empty()), || {
        "no spill id".into()
    })?;
    if let Some(path) = &p.spill_path {
        ensure(
            matches!(&case.outcome, SpillOutcome::Saved { path: given } if given == path),
            || "spill_path".into(),
        )?;
    } else {
        let expect_error = !matches!(case.outcome, SpillOutcome::NotSaved);
        ensure(p.spill_error.is_some() == expect_error, || {
            "spill_error".into()
        })?;
    }
    Ok(())
}

fn check_expect(case: &Case, p: &Preview) -> Result<(), String> {
    let e = &case.expect;
    if let Some(text) = e.get("preview") {
        ensure(text.as_str() == Some(&*p.text), || {
            format!("preview:\n got {:?}\nwant {text}", p.text)
        })?;
    }
    if let Some(want) = e.get("tokens") {
        let got = p.tokens;
        ensure(want.as_u64() == got, || {
            format!("tokens: got {got:?}, want {want}")
        })?;
    }
    if let Some(t) = e.get("truncated") {
        ensure(t.as_bool() == Some(p.truncated), || "truncated".into())?;
    }
    for (key, got) in [
        ("omitted_lines", p.omitted_lines),
        ("omitted_bytes", p.omitted_bytes),
    ] {
        if let Some(want) = e.get(key) {
            ensure(want.as_u64() == Some(got), || {
                format!("{key}: got {got}, want {want}")
            })?;
        }
    }
    if let Some(range) = e.get("omitted_range") {
        let want = range.as_array().map(|r| (r[0].as_u64(), r[1].as_u64()));
        ensure(
            want == p.omitted_range.map(|(a, b)| (Some(a), Some(b))),
            || "omitted_range".into(),
        )?;
    }
    let strings = |key: &str| -> Vec<String> {
        e.get(key)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    for s in strings("starts_with") {
        ensure(p.text.starts_with(&s), || {
            format!("does not start with {s:?}")
        })?;
    }
    for s in strings("ends_with") {
        ensure(p.text.ends_with(&s), || format!("does not end with {s:?}"))?;
    }
    for s in strings("contains") {
        ensure(p.text.contains(&s), || format!("does not contain {s:?}"))?;
    }
    for s in strings("not_contains") {
        ensure(!p.text.contains(&s), || format!("contains {s:?}"))?;
    }
    Ok(())
}

fn run(case: &Case) -> Result<(), String> {
    if let Err(e) = &case.tokens {
        // A tokenizer this build lacks (docs/VECTORS.md): the error a
        // caller gets, whatever the vector expects of a build that has it.
        if !case.has_tokenizer() {
            return ensure(
                matches!(e, dory_wire::Error::InvalidArgument { argument, .. } if argument == "tokenizer"),
                || format!("a tokenizer this build lacks gave {e:?}"),
            );
        }
    }
    let bounder = match case.bounder() {
        Ok(bounder) => bounder,
        Err(e) => {
            let want = case.expect.get("error").map(|e| &e["code"]);
            return ensure(want.and_then(Value::as_str) == Some(e.code()), || {
                format!("the options were refused: {e}")
            });
        }
    };
    if let Some(code) = case.expect.get("error").map(|e| &e["code"]) {
        let code = code.as_str().ok_or("error without code")?;
        ensure(
            bounder.bound(&case.input).err().map(|e| e.code()) == Some(code),
            || format!("Bounder::bound did not fail with {code}"),
        )?;
        let mut streaming = bounder.streaming();
        streaming.push(&case.input);
        return ensure(
            streaming.finish().err().map(|e| e.code()) == Some(code),
            || format!("StreamingBounder::finish did not fail with {code}"),
        );
    }
    let hint = case.hint.as_deref();
    let whole = bounder
        .bound(&case.input)
        .map_err(|e| e.to_string())?
        .render(case.outcome.clone(), hint);
    check_invariants(case, &whole)?;
    check_expect(case, &whole)?;
    // Bounding the preview again with the same limits gives it back unchanged.
    match bounder
        .bound(whole.text.as_bytes())
        .map_err(|e| e.to_string())?
    {
        Bounded::Fits(again) => ensure(again.text == whole.text, || {
            "re-bounding changed the preview".into()
        })?,
        Bounded::NeedsSpill(_) => return Err("re-bounding the preview truncated it".into()),
    }
    // Streaming, one byte at a time (small inputs) and in seeded random chunks.
    let mut splits: Vec<Vec<usize>> = Vec::new();
    if case.input.len() <= 4096 {
        splits.push(vec![1; case.input.len()]);
    }
    for seed in 0..6u64 {
        let mut rng = common::Rng(seed.wrapping_mul(0x1234_5678_9ABC) ^ case.input.len() as u64);
        let most = [2, 17, 300, 5000][(seed % 4) as usize];
        let mut sizes = Vec::new();
        let mut left = case.input.len();
        while left > 0 {
            // Zero-sized pushes are allowed and must change nothing.
            let size = ((rng.next_u64() % (most + 1)) as usize).min(left);
            sizes.push(size);
            left -= size;
        }
        splits.push(sizes);
    }
    for sizes in splits {
        let mut streaming = bounder.streaming();
        let mut at = 0;
        for size in sizes {
            streaming.push(&case.input[at..at + size]);
            at += size;
        }
        let streamed = streaming
            .finish()
            .map_err(|e| e.to_string())?
            .render(case.outcome.clone(), hint);
        ensure(streamed == whole, || {
            format!("streaming differs from whole:\n{streamed:?}\n{whole:?}")
        })?;
    }
    Ok(())
}

#[test]
fn preview_vectors() {
    let vectors = common::vectors("preview");
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (file, v) in &vectors {
        let result = parse(v).and_then(|case| {
            ensure(names.insert(case.name.clone()), || {
                format!("duplicate name {}", case.name)
            })?;
            run(&case).map_err(|e| format!("{}: {e}", case.name))
        });
        if let Err(e) = result {
            failures.push(format!("{}: {e}", file.display()));
        }
    }
    let ran = vectors.len();
    println!("ran {ran} preview vectors");
    assert!(
        ran > 0,
        "no preview vectors found below {}",
        common::vectors_dir().display()
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} preview vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Writes what the bounder gives for every preview vector as JSON lines to
/// `$DORY_PREVIEW_ACTUAL` (for reviewing a deliberate change of wording):
/// `cargo test -p dory-wire --test preview_vectors -- --ignored`.
#[test]
#[ignore = "writes a review file; run on demand"]
fn write_actual_previews() {
    let Ok(out) = std::env::var("DORY_PREVIEW_ACTUAL") else {
        return;
    };
    let mut lines = String::new();
    for (_, v) in common::vectors("preview") {
        let case = parse(&v).expect("a valid vector");
        let actual = match case.bounder().and_then(|b| b.bound(&case.input)) {
            Err(e) => serde_json::json!({"name": case.name, "error": {"code": e.code()}}),
            Ok(bounded) => {
                let p = bounded.render(case.outcome.clone(), case.hint.as_deref());
                serde_json::json!({
                    "name": case.name,
                    "truncated": p.truncated,
                    "preview": p.text,
                    "omitted_lines": p.omitted_lines,
                    "omitted_bytes": p.omitted_bytes,
                    "omitted_range": p.omitted_range.map(|(a, b)| vec![a, b]),
                    "spill_error": p.spill_error,
                    "tokens": p.tokens,
                })
            }
        };
        lines += &format!("{actual}\n");
    }
    std::fs::write(out, lines).expect("writable review file");
}
