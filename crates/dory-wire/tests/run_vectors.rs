//! Runs every vector of kind "run" found below `tests/vectors/` (see
//! `docs/VECTORS.md`): the expectation of each view, and the invariants —
//! both limits held, the same bytes however the output is split, and each
//! view without losses or a stderr section equal to `Bounder::bound` of its
//! bytes.
//!
//! `DORY_BLESS_RUN=1` rewrites the `expect` of the files in
//! `tests/vectors/run/` from this implementation, for review in the diff.

mod common;

use base64::Engine;
use common::preview::keep_of;
use dory_testkit::Rng;
use dory_wire::preview::{
    token_limit, Bounder, Keep, Limits, Preview, RunBounder, SpillOutcome, TokenLimit, View,
};
use dory_wire::Stream;
use serde_json::{json, Map, Value};

#[derive(Debug, Clone)]
enum Item {
    Output(Stream, Vec<u8>),
    Lost(Stream, u64, u64),
}

struct Case {
    name: String,
    max_lines: usize,
    max_bytes: usize,
    spill_id: String,
    items: Vec<Item>,
    outcomes: [SpillOutcome; 3],
    hint: Option<String>,
    /// The vector's `keep` (absent or null: none), or the core's error for it.
    keep: Result<Keep, dory_wire::Error>,
    terminal: bool,
    /// The vector's `max_tokens` and `tokenizer` (docs/VECTORS.md).
    tokens: Option<TokenLimit>,
}

impl Case {
    fn limits(&self) -> Limits {
        Limits::new(self.max_lines, self.max_bytes).with_token_limit(self.tokens)
    }
}

fn stream_of(name: &str) -> Result<Stream, String> {
    match name {
        "stdout" => Ok(Stream::Stdout),
        "stderr" => Ok(Stream::Stderr),
        other => Err(format!("unknown stream {other:?}")),
    }
}

fn parse(v: &Value) -> Result<Case, String> {
    let name = v["name"]
        .as_str()
        .ok_or("vector without a name")?
        .to_owned();
    let mut items = Vec::new();
    for item in v["input"].as_array().ok_or("input is not a list")? {
        let obj = item.as_object().ok_or("input item is not an object")?;
        if let Some(stream) = obj.get("lost") {
            let stream = stream_of(stream.as_str().ok_or("lost names no stream")?)?;
            let at = |k: &str| {
                obj.get(k)
                    .and_then(Value::as_u64)
                    .ok_or(format!("lost without {k}"))
            };
            items.push(Item::Lost(stream, at("from")?, at("to")?));
            continue;
        }
        let (key, value) = obj.iter().next().ok_or("empty input item")?;
        let (stream, b64) = match key.strip_suffix("_b64") {
            Some(s) => (s, true),
            None => (key.as_str(), false),
        };
        let text = value.as_str().ok_or("input data is not a string")?;
        let data = if b64 {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| format!("{name}: {e}"))?
        } else {
            text.as_bytes().to_vec()
        };
        items.push(Item::Output(stream_of(stream)?, data));
    }
    let outcome = |view: View| match v.get("spill").and_then(|s| s.get(view.as_str())) {
        None | Some(Value::Null) => SpillOutcome::NotSaved,
        Some(s) if s.get("fails").and_then(Value::as_bool) == Some(true) => SpillOutcome::Failed {
            reason: "the writer failed".into(),
        },
        Some(s) => SpillOutcome::Saved {
            path: s["path"].as_str().unwrap_or_default().to_owned(),
        },
    };
    let keep =
        keep_of(v.get("keep").unwrap_or(&Value::Null)).map_err(|e| format!("{name}: {e}"))?;
    let terminal = match v.get("terminal") {
        None => false,
        Some(t) => t.as_bool().ok_or("terminal is not a bool")?,
    };
    let max_tokens = v
        .get("max_tokens")
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    let tokenizer = v.get("tokenizer").and_then(Value::as_str);
    // Run vectors name tokenizers every build has ("approx").
    let tokens = token_limit(max_tokens, tokenizer).map_err(|e| format!("{name}: {e}"))?;
    Ok(Case {
        keep,
        terminal,
        tokens,
        max_lines: v["max_lines"].as_u64().ok_or("max_lines")? as usize,
        max_bytes: v["max_bytes"].as_u64().ok_or("max_bytes")? as usize,
        spill_id: v["spill_id"].as_str().ok_or("spill_id")?.to_owned(),
        outcomes: View::ALL.map(outcome),
        hint: v.get("hint").and_then(Value::as_str).map(str::to_owned),
        items,
        name,
    })
}

/// The run's result as the vectors write it, or the error's code.
fn play(case: &Case, items: &[Item]) -> Result<Value, String> {
    let keep = case.keep.clone().map_err(|e| e.code().to_owned())?;
    let mut run = RunBounder::with_limits(case.limits())
        .with_keep(keep)
        .with_terminal(case.terminal)
        .with_spill_id(&case.spill_id);
    for item in items {
        match item {
            Item::Output(stream, data) => run.push(*stream, data),
            Item::Lost(stream, from, to) => run.lose(*stream, *from, *to),
        }
    }
    let pending = match run.finish() {
        Ok(p) => p,
        Err(e) => return Err(e.code().to_owned()),
    };
    let mut out = Map::new();
    for (view, outcome) in View::ALL.into_iter().zip(case.outcomes.clone()) {
        let p = pending.render(view, outcome, case.hint.as_deref());
        let (lost_bytes, lost_ranges) = pending.lost(view);
        let mut result = json!({
                "preview": p.text,
                "truncated": p.truncated,
                "total_bytes": pending.total_bytes(view),
                "lost_bytes": lost_bytes,
                "lost_ranges": lost_ranges,
                "needs_spill": pending.needs_spill(view),
                "spill_id": pending.spill_id(view),
                "spill_path": p.spill_path,
                "spill_error": p.spill_error.is_some(),
        });
        // The count, for vectors with a token limit (the others' results
        // are unchanged).
        if case.tokens.is_some() {
            result["tokens"] = json!(p.tokens);
        }
        out.insert(view.as_str().into(), result);
    }
    Ok(Value::Object(out))
}

fn lines_of(text: &str) -> usize {
    text.matches('\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The same items with every output split at seeded points.
fn resplit(items: &[Item], rng: &mut Rng, byte_by_byte: bool) -> Vec<Item> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Output(stream, data) => {
                let mut rest = &data[..];
                while !rest.is_empty() {
                    let n = if byte_by_byte {
                        1
                    } else {
                        1 + rng.below(rest.len() as u64) as usize
                    };
                    out.push(Item::Output(*stream, rest[..n].to_vec()));
                    rest = &rest[n..];
                }
            }
            lost => out.push(lost.clone()),
        }
    }
    out
}

fn view_bytes(items: &[Item], view: View) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Output(stream, data) = item {
            if view == View::Combined || View::from(*stream) == view {
                out.extend_from_slice(data);
            }
        }
    }
    out
}

fn check(case: &Case, expect: &Value) -> Result<(), String> {
    let got = play(case, &case.items);
    match (&got, expect.get("error")) {
        (Err(code), Some(e)) => {
            return if e["code"] == code.as_str() {
                Ok(())
            } else {
                Err(format!("error {code}, expected {e}"))
            }
        }
        (Err(code), None) => return Err(format!("unexpected error {code}")),
        (Ok(_), Some(e)) => return Err(format!("expected error {e}, got a result")),
        (Ok(_), None) => {}
    }
    let result = got.as_ref().map_err(Clone::clone)?;
    for view in View::ALL {
        let name = view.as_str();
        let want = &expect[name];
        let have = &result[name];
        for (key, value) in want.as_object().ok_or(format!("expect.{name} missing"))? {
            if &have[key] != value {
                return Err(format!("{name}.{key}: got {} expected {value}", have[key]));
            }
        }
        let text = have["preview"].as_str().unwrap_or_default();
        if let Some(limit) = case.tokens {
            let n = limit.tokenizer.count(text);
            if have["tokens"] != json!(n) || n > limit.max_tokens {
                return Err(format!(
                    "{name}: {n} tokens counted, {} reported, max_tokens {}",
                    have["tokens"], limit.max_tokens
                ));
            }
        }
        if text.len() > case.max_bytes || lines_of(text) > case.max_lines {
            return Err(format!(
                "{name}: {} bytes, {} lines over the limits",
                text.len(),
                lines_of(text)
            ));
        }
        // Without losses or a stderr section, the view is `bound()` of its bytes.
        let plain = have["lost_bytes"] == 0 && !text.contains("[... the last ");
        if plain {
            let bytes = view_bytes(&case.items, view);
            let id = format!("{}-{name}", case.spill_id);
            let keep = case.keep.clone().map_err(|e| e.to_string())?;
            let whole: Preview = Bounder::with_limits(case.limits())
                .with_keep(keep)
                .with_terminal(case.terminal)
                .bound_with_spill_id(&bytes, &id)
                .map_err(|e| format!("{name}: bound() failed: {e}"))?
                .render(case.outcomes[view as usize].clone(), case.hint.as_deref());
            if whole.text != text {
                return Err(format!(
                    "{name}: differs from bound() of its bytes:\n{}\n---\n{text}",
                    whole.text
                ));
            }
        }
    }
    let mut rng = Rng(0x5eed_0000 + case.items.len() as u64);
    for round in 0..7 {
        let items = resplit(&case.items, &mut rng, round == 0);
        if play(case, &items) != got {
            return Err(format!("split round {round} gives another result"));
        }
    }
    Ok(())
}

#[test]
fn run_vectors() {
    let vectors = common::vectors("run");
    assert!(vectors.len() >= 15, "only {} run vectors", vectors.len());
    if std::env::var_os("DORY_BLESS_RUN").is_some() {
        bless();
        return;
    }
    let mut failures = Vec::new();
    for (path, v) in &vectors {
        let case = parse(v).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Err(e) = check(&case, &v["expect"]) {
            failures.push(format!("{} / {}: {e}", path.display(), case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_runner_can_fail() {
    let (_, v) = common::vectors("run")
        .into_iter()
        .find(|(_, v)| v["expect"].get("combined").is_some())
        .expect("a run vector with a result");
    let case = parse(&v).unwrap();
    let mut expect = v["expect"].clone();
    expect["combined"]["preview"] = json!("not this");
    assert!(check(&case, &expect).is_err());
    let mut expect = v["expect"].clone();
    expect["stdout"]["lost_bytes"] = json!(12345);
    assert!(check(&case, &expect).is_err());
    assert!(check(&case, &json!({"error": {"code": "invalid_limits"}})).is_err());
}

fn bless() {
    let dir = common::vectors_dir().join("run");
    for path in common::json_files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut file: Value = serde_json::from_str(&text).unwrap();
        for v in file["vectors"].as_array_mut().unwrap() {
            let case = parse(v).unwrap();
            v["expect"] = match play(&case, &case.items) {
                Ok(result) => result,
                Err(code) => json!({"error": {"code": code}}),
            };
        }
        let mut out = serde_json::to_string_pretty(&file).unwrap();
        out.push('\n');
        std::fs::write(&path, out).unwrap();
    }
}

/// Seeded random runs: every view within both limits at any limits (tiny
/// ones included), the only error `invalid_limits`, and the same result
/// however the output is split.
#[test]
fn random_runs_hold_the_limits_and_split_invariance() {
    let mut rng = Rng(0xd0e5_2026);
    let words: [&[u8]; 8] = [
        b"ok\n",
        b"error: x\n",
        b"\xe2\x82\xac",
        b"\xff",
        b"\r\n",
        b"long line ",
        b"\n",
        b"step 1\n",
    ];
    for round in 0..1500 {
        let mut items = Vec::new();
        for _ in 0..rng.range(0, 40) {
            if rng.percent(5) {
                let from = rng.below(1000);
                items.push(Item::Lost(
                    if rng.percent(50) {
                        Stream::Stdout
                    } else {
                        Stream::Stderr
                    },
                    from,
                    from + rng.below(5000),
                ));
                continue;
            }
            let stream = if rng.percent(70) {
                Stream::Stdout
            } else {
                Stream::Stderr
            };
            let mut data = Vec::new();
            for _ in 0..rng.range(1, 30) {
                data.extend_from_slice(rng.choose(&words).unwrap());
            }
            items.push(Item::Output(stream, data));
        }
        let max_lines = rng.range(0, 30);
        let max_bytes = *rng
            .choose(&[0, 10, 31, 32, 40, 64, 100, 200, 400, 1000])
            .unwrap();
        let path = |v: &str| SpillOutcome::Saved {
            path: format!("/w/out/{v}.txt"),
        };
        let case = Case {
            name: format!("random {round}"),
            max_lines,
            max_bytes,
            spill_id: "r".into(),
            outcomes: [path("a"), SpillOutcome::NotSaved, path("c")],
            hint: None,
            keep: Ok(Keep::none()),
            terminal: false,
            // Every third round a token limit too (approx: in every build).
            tokens: (round % 3 == 0).then(|| TokenLimit {
                max_tokens: *rng.choose(&[20, 31, 32, 40, 80, 150, 400]).unwrap(),
                tokenizer: dory_wire::tokens::Tokenizer::Approx,
            }),
            items,
        };
        let got = play(&case, &case.items);
        match &got {
            Err(code) => assert_eq!(code, "invalid_limits", "{}", case.name),
            Ok(result) => {
                for view in View::ALL {
                    let text = result[view.as_str()]["preview"].as_str().unwrap();
                    assert!(
                        text.len() <= max_bytes && lines_of(text) <= max_lines,
                        "{} {}: {} bytes, {} lines over {max_lines}/{max_bytes}:\n{text}",
                        case.name,
                        view.as_str(),
                        text.len(),
                        lines_of(text)
                    );
                    if let Some(limit) = case.tokens {
                        let n = limit.tokenizer.count(text);
                        assert!(n <= limit.max_tokens, "{}: {n} tokens", case.name);
                        assert_eq!(result[view.as_str()]["tokens"], json!(n), "{}", case.name);
                    }
                    let lost = result[view.as_str()]["lost_bytes"].as_u64().unwrap();
                    assert_eq!(
                        lost > 0,
                        text.contains(" lost"),
                        "{}: the loss is said",
                        case.name
                    );
                }
            }
        }
        let again = resplit(&case.items, &mut rng, false);
        assert_eq!(play(&case, &again), got, "{}: split", case.name);
    }
}

/// Memory is bounded by the limits, not the output.
#[test]
fn memory_is_bounded_by_the_limits() {
    let (lines, bytes) = (200, 4096);
    let mut run = RunBounder::new(lines, bytes).with_spill_id("m");
    let chunk: Vec<u8> = (0..65536u32)
        .map(|i| {
            if i % 61 == 60 {
                b'\n'
            } else {
                b'a' + (i % 26) as u8
            }
        })
        .collect();
    for i in 0..400 {
        run.push(
            if i % 3 == 0 {
                Stream::Stderr
            } else {
                Stream::Stdout
            },
            &chunk,
        );
        assert!(run.retained_bytes() <= 6 * (2 * bytes + 8) + bytes / 4 + 4 + 32 * (bytes / 4 + 5));
    }
    assert_eq!(run.total_bytes(View::Combined), 400 * 65536);
    let pending = run.finish().unwrap();
    let p = pending.render(View::Combined, SpillOutcome::NotSaved, None);
    assert!(p.text.len() <= bytes);
}

/// Limits a run accepts can say a cut and the longest loss line.
#[test]
fn checked_limits_always_render() {
    use dory_wire::preview::MIN_RUN_MAX_BYTES;
    assert!(RunBounder::check_limits(1, 4096).is_err());
    assert!(RunBounder::check_limits(2, MIN_RUN_MAX_BYTES - 1).is_err());
    assert_eq!(
        RunBounder::check_limits(0, 0).unwrap_err().code(),
        "invalid_limits"
    );
    let mut run = RunBounder::new(2, MIN_RUN_MAX_BYTES).with_spill_id("x");
    run.push(Stream::Stdout, &[b'a'; 5000]);
    run.lose(Stream::Stdout, 5000, u64::MAX);
    run.push(Stream::Stderr, b"e\n");
    let pending = run.finish().expect("checked limits always finish");
    for view in View::ALL {
        let p = pending.render(view, SpillOutcome::NotSaved, None);
        assert!(
            p.text.len() <= MIN_RUN_MAX_BYTES && lines_of(&p.text) <= 2,
            "{}",
            p.text
        );
    }
}
