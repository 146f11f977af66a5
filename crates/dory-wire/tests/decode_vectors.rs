//! Runs every `kind: "decode"` vector of `tests/vectors/**/*.json`, fed whole,
//! byte by byte and at seeded random splits: all must give the same events,
//! end and cursor, equal to the vector's expectation.

mod common;

use common::{body_of, decode, subset_matches, vectors, Rng};
use serde_json::Value;

#[test]
fn every_decode_vector_at_every_split() {
    let vectors = vectors("decode");
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (path, v) in &vectors {
        let name = v["name"].as_str().unwrap_or("<unnamed>").to_owned();
        assert!(names.insert(name.clone()), "duplicate vector name {name}");
        let body = body_of(v);
        let whole = decode(v, &body, &[]);
        let expect = &v["expect"];
        let mut problems = Vec::new();
        if let Some(events) = expect.get("events") {
            let expected: Vec<Value> = events.as_array().cloned().unwrap_or_default();
            if expected != whole.events {
                problems.push(format!(
                    "events\n    expected {}\n    got      {}",
                    Value::from(expected),
                    Value::from(whole.events.clone())
                ));
            }
        }
        if let Some(end) = expect.get("end") {
            if !subset_matches(end, &whole.end) {
                problems.push(format!(
                    "end\n    expected {end}\n    got      {}",
                    whole.end
                ));
            }
        }
        if let Some(cursor) = expect.get("cursor") {
            if !subset_matches(cursor, &whole.cursor) {
                problems.push(format!(
                    "cursor\n    expected {cursor}\n    got      {}",
                    whole.cursor
                ));
            }
        }
        let bytewise: Vec<usize> = (1..body.len()).collect();
        if decode(v, &body, &bytewise) != whole {
            problems.push("byte-by-byte feeding differs from feeding whole".into());
        }
        let mut rng = Rng(0xD0E7 ^ body.len() as u64);
        for _ in 0..8 {
            let cuts = rng.cuts(body.len(), 6);
            if decode(v, &body, &cuts) != whole {
                problems.push(format!(
                    "feeding split at {cuts:?} differs from feeding whole"
                ));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} ({}):\n  {}",
                name,
                path.display(),
                problems.join("\n  ")
            ));
        }
    }
    println!("ran {} decode vectors", vectors.len());
    assert!(
        !vectors.is_empty(),
        "no decode vectors found under tests/vectors"
    );
    assert!(
        failures.is_empty(),
        "{} of {} decode vectors failed:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}
