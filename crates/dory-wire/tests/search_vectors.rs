//! Runs every vector of kind "search" found below `tests/vectors/` (see
//! `docs/VECTORS.md`): the same result whole, byte by byte and at seeded
//! splits, equal to the keys of `expect`, within both limits.
//!
//! `DORY_BLESS_SEARCH=1` rewrites the `expect` of the files in
//! `tests/vectors/search/` from this implementation, for review in the diff.

mod common;

use common::search::options_of;

use base64::Engine;
use dory_testkit::Rng;
use dory_wire::search::Searcher;
use serde_json::{json, Value};

/// The vector's input bytes.
fn input_of(v: &Value) -> Vec<u8> {
    match v.get("input_b64").and_then(Value::as_str) {
        Some(b) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("input_b64 is base64"),
        None => v["input"]
            .as_str()
            .expect("input or input_b64")
            .as_bytes()
            .to_vec(),
    }
}

/// The result of searching `input` pushed in the pieces `cuts` makes, as
/// the JSON of VECTORS.md.
fn search(v: &Value, input: &[u8], cuts: &[usize]) -> Value {
    let pattern = v["pattern"].as_str().expect("a pattern");
    let mut searcher = match Searcher::new(pattern, options_of(v)) {
        Ok(s) => s,
        Err(e) => return json!({"error": common::error_json(&e)}),
    };
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        searcher.push(&input[at..cut]);
        at = cut;
    }
    let r = searcher.finish(v.get("path").and_then(Value::as_str));
    json!({
        "text": r.text,
        "truncated": r.truncated,
        "total_lines": r.total_lines,
        "total_bytes": r.total_bytes,
        "matched_lines": r.matched_lines,
        "shown_lines": r.shown_lines,
        "omitted_lines": r.omitted_lines,
        "partial_line": r.partial_line,
        "long_lines": r.long_lines,
        "first_long_line": r.first_long_line,
        "spill_path": r.spill_path,
        "command": r.command,
    })
}

/// What is wrong with the runner's results for `v` against `expect`.
fn check(v: &Value, expect: &Value) -> Result<(), String> {
    let input = input_of(v);
    let whole = search(v, &input, &[]);
    let mut splits = vec![("bytewise".to_owned(), (1..input.len()).collect::<Vec<_>>())];
    let mut rng = Rng::new(0x5EA4 ^ input.len() as u64);
    for _ in 0..8 {
        let cuts = rng.cuts(input.len(), 6);
        splits.push((format!("cuts {cuts:?}"), cuts));
    }
    for (name, cuts) in &splits {
        let got = search(v, &input, cuts);
        if got != whole {
            return Err(format!(
                "{name}: {got} differs from the whole input's {whole}"
            ));
        }
    }
    let expected = expect.as_object().ok_or("expect is not an object")?;
    if expected.is_empty() {
        return Err("expect is empty".into());
    }
    for (key, value) in expected {
        let (got, want) = match key.as_str() {
            "error" => (&whole["error"]["code"], &value["code"]),
            _ => (&whole[key], value),
        };
        if got != want {
            return Err(format!(
                "{key}: expected {want}, got {got} (result {whole})"
            ));
        }
        if key == "error" {
            if let Some(arg) = value.get("argument") {
                if &whole["error"]["argument"] != arg {
                    return Err(format!("error.argument: expected {arg}, got {whole}"));
                }
            }
        }
    }
    if let Some(text) = whole["text"].as_str() {
        let options = options_of(v);
        if text.len() > options.max_bytes || text.matches('\n').count() > options.max_lines {
            return Err(format!("over the limits: {text:?}"));
        }
    }
    Ok(())
}

fn bless() {
    for path in common::json_files(&common::vectors_dir().join("search")) {
        let text = std::fs::read_to_string(&path).expect("readable");
        let mut file: Value = serde_json::from_str(&text).expect("JSON");
        for v in file["vectors"].as_array_mut().expect("vectors") {
            let input = input_of(v);
            let mut got = search(v, &input, &[]);
            if let Some(err) = got.get_mut("error") {
                let mut e = json!({"code": err["code"]});
                if let Some(a) = err.get("argument") {
                    e["argument"] = a.clone();
                }
                got = json!({"error": e});
            } else if let Some(obj) = got.as_object_mut() {
                obj.remove("spill_path");
                obj.remove("total_bytes");
            }
            v["expect"] = got;
        }
        let out = serde_json::to_string_pretty(&file).expect("JSON") + "\n";
        std::fs::write(&path, out).expect("writable");
    }
}

#[test]
fn every_search_vector() {
    if std::env::var_os("DORY_BLESS_SEARCH").is_some() {
        bless();
        return;
    }
    let vectors = common::vectors("search");
    assert!(vectors.len() >= 20, "only {} search vectors", vectors.len());
    let mut failures = Vec::new();
    for (path, v) in &vectors {
        if let Err(e) = check(v, &v["expect"]) {
            failures.push(format!("{} / {}: {e}", path.display(), v["name"]));
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
    let (_, v) = common::vectors("search")
        .into_iter()
        .find(|(_, v)| v["expect"].get("text").is_some())
        .expect("a search vector with a text");
    assert!(check(&v, &v["expect"]).is_ok());
    let mut expect = v["expect"].clone();
    expect["text"] = json!("not this");
    assert!(check(&v, &expect).is_err());
    let mut expect = v["expect"].clone();
    expect["matched_lines"] = json!(12345);
    assert!(check(&v, &expect).is_err());
    assert!(check(&v, &json!({})).is_err());
}
