//! The client crate's public surface against `tests/api/surface.json`:
//! the `use` lines below are exactly the `dory_wire_client::` paths of its
//! `client_concepts` (a rename stops this file compiling), the crate exports
//! nothing unlisted, the `client_options` named for Rust exist on
//! `ReadOptions` with the core's defaults, and the `run_options` named for
//! Rust exist on `RunOptions` with the listed defaults (the core's).
#![allow(unused_imports)]

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

// ---- the list: exactly the dory_wire_client:: paths of client_concepts
use dory_wire_client::search_file;
use dory_wire_client::Client;
use dory_wire_client::ClientBuilder;
use dory_wire_client::CommandArg;
use dory_wire_client::Computer;
use dory_wire_client::Computers;
use dory_wire_client::Encoding;
use dory_wire_client::ExecAnswer;
use dory_wire_client::Frame;
use dory_wire_client::FrameType;
use dory_wire_client::Frames;
use dory_wire_client::OutputStream;
use dory_wire_client::Process;
use dory_wire_client::Processes;
use dory_wire_client::ReadOptions;
use dory_wire_client::ReconnectHook;
use dory_wire_client::Result;
use dory_wire_client::RunOptions;
use dory_wire_client::RunResult;
use dory_wire_client::RunSpill;
use dory_wire_client::SearchFileError;
use dory_wire_client::Setup;
use dory_wire_client::SpillDirectory;
use dory_wire_client::StartOptions;
use dory_wire_client::DEFAULT_TIMEOUT;
use dory_wire_client::ENV_URL;
// ---- end of the list

fn surface() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/api/surface.json");
    let text = std::fs::read_to_string(&path).expect("tests/api/surface.json is readable");
    serde_json::from_str(&text).expect("tests/api/surface.json is JSON")
}

fn listed() -> BTreeSet<String> {
    surface()["client_concepts"]
        .as_array()
        .expect("client_concepts")
        .iter()
        .filter_map(|c| c["rust"].as_str())
        .filter(|p| p.starts_with("dory_wire_client::"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_use_list_is_the_surface_file() {
    let this =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/surface.rs"))
            .expect("this file");
    let start = this.find("// ---- the list").expect("the list");
    let end = this.find("// ---- end of the list").expect("its end");
    let used: BTreeSet<String> = this[start..end]
        .lines()
        .filter_map(|l| l.strip_prefix("use ").and_then(|l| l.strip_suffix(';')))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        used,
        listed(),
        "tests/api/surface.json and this file's use lines"
    );
}

#[test]
fn the_crate_exports_nothing_unlisted() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    let mut exported = BTreeSet::new();
    let mut statement = String::new();
    for line in lib.lines() {
        if line.starts_with("pub use ") || !statement.is_empty() {
            statement.push_str(line.trim());
            if statement.ends_with(';') {
                let items = statement
                    .rsplit_once('{')
                    .map(|(_, rest)| rest.trim_end_matches("};").to_owned())
                    .unwrap_or_else(|| {
                        statement
                            .rsplit("::")
                            .next()
                            .unwrap_or("")
                            .trim_end_matches(';')
                            .to_owned()
                    });
                for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                    exported.insert(format!("dory_wire_client::{item}"));
                }
                statement.clear();
            }
        } else if let Some(rest) = line.strip_prefix("pub type ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            exported.insert(format!("dory_wire_client::{name}"));
        }
    }
    let listed = listed();
    let unlisted: Vec<_> = exported.difference(&listed).collect();
    let absent: Vec<_> = listed.difference(&exported).collect();
    assert!(
        unlisted.is_empty() && absent.is_empty(),
        "exported, not listed: {unlisted:?}; listed, not exported: {absent:?}"
    );
}

#[test]
fn the_read_options_are_the_listed_ones_with_the_cores_defaults() {
    // Each Rust name of client_options is a setter of ReadOptions (this
    // compiles only if they exist), and the defaults are the core's.
    let options = ReadOptions::new()
        .follow(true)
        .gap_policy(dory_wire::GapPolicy::Fail)
        .retries(dory_wire::DEFAULT_RETRIES)
        .backoff(dory_wire::DEFAULT_BACKOFF)
        .max_backoff(dory_wire::DEFAULT_MAX_BACKOFF)
        .jitter(true)
        .liveness_timeout(dory_wire::DEFAULT_LIVENESS_TIMEOUT)
        .on_reconnect(|_| {});
    assert_eq!(options.follow, dory_wire::FollowOptions::default());
    let names: BTreeSet<String> = surface()["client_options"]
        .as_array()
        .expect("client_options")
        .iter()
        .filter_map(|o| o["rust"].as_str().map(str::to_owned))
        .collect();
    let setters: BTreeSet<String> = [
        "follow",
        "gap_policy",
        "retries",
        "backoff",
        "max_backoff",
        "jitter",
        "liveness_timeout",
        "on_reconnect",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert!(
        names.is_subset(&setters),
        "client_options names a Rust option ReadOptions lacks: {:?}",
        names.difference(&setters).collect::<Vec<_>>()
    );
    let defaults = surface()["client_options"]
        .as_array()
        .expect("client_options")
        .clone();
    for option in defaults {
        let default = &option["default"];
        let secs = |d: Duration| serde_json::json!(d.as_secs_f64());
        let core = dory_wire::FollowOptions::default();
        let expected = match option["rust"].as_str() {
            Some("follow") => serde_json::json!(core.follow),
            Some("gap_policy") => serde_json::json!(core.gap_policy.as_str()),
            Some("retries") => serde_json::json!(core.retries),
            Some("backoff") => secs(core.backoff),
            Some("max_backoff") => secs(core.max_backoff),
            Some("jitter") => serde_json::json!(core.jitter),
            Some("liveness_timeout") => secs(core.liveness_timeout),
            _ => continue,
        };
        assert_eq!(default, &expected, "{option}: the default is the core's");
    }
}

#[test]
fn the_run_options_are_the_listed_ones_with_their_defaults() {
    // Each Rust name of run_options is a setter of RunOptions (this compiles
    // only if they exist); the follow options are those of ReadOptions.
    let set = RunOptions::new()
        .max_lines(10)
        .max_bytes(100)
        .spill(SpillDirectory::new("spill"))
        .idempotency_key("k")
        .timeout_seconds(1.0)
        .hint("h")
        .on_output(|_, _, _| {})
        .kill_on_cancel(true)
        .keep(dory_wire::preview::Keep::none())
        .terminal(false)
        .max_tokens(100, dory_wire::tokens::Tokenizer::Approx)
        .gap_policy(dory_wire::GapPolicy::Skip)
        .read_options(ReadOptions::new());
    assert!(set.has_spill() && set.has_on_output());
    let setters: BTreeSet<&str> = [
        "max_lines",
        "max_bytes",
        "spill",
        "idempotency_key",
        "timeout_seconds",
        "hint",
        "on_output",
        "kill_on_cancel",
        "keep",
        "terminal",
        "max_tokens",
    ]
    .into_iter()
    .collect();
    let listed = surface()["run_options"]
        .as_array()
        .expect("run_options")
        .clone();
    let names: BTreeSet<&str> = listed.iter().filter_map(|o| o["rust"].as_str()).collect();
    assert_eq!(
        names, setters,
        "run_options' Rust names and RunOptions' setters"
    );

    let defaults = RunOptions::new();
    for option in &listed {
        let actual = match option["rust"].as_str() {
            Some("max_lines") => serde_json::json!(defaults.max_lines),
            Some("max_bytes") => serde_json::json!(defaults.max_bytes),
            Some("spill") => serde_json::json!(defaults.has_spill().then_some("set")),
            Some("idempotency_key") => serde_json::json!(defaults.idempotency_key),
            Some("timeout_seconds") => serde_json::json!(defaults.timeout_seconds),
            Some("hint") => serde_json::json!(defaults.hint),
            Some("on_output") => serde_json::json!(defaults.has_on_output().then_some("set")),
            Some("kill_on_cancel") => serde_json::json!(defaults.kill_on_cancel),
            // "defaults" is Keep::defaults() (the other forms: null, patterns).
            Some("keep") if defaults.keep == dory_wire::preview::Keep::defaults() => {
                serde_json::json!("defaults")
            }
            Some("keep") => serde_json::json!(defaults.keep.as_slice()),
            Some("terminal") => serde_json::json!(defaults.terminal),
            // One setter takes both: the tokenizer's default is the core's.
            Some("max_tokens") if option["python"] == "tokenizer" => {
                serde_json::json!(dory_wire::preview::DEFAULT_TOKENIZER)
            }
            Some("max_tokens") => serde_json::json!(defaults.tokens.map(|t| t.max_tokens)),
            other => panic!("unexpected run option {other:?}"),
        };
        assert_eq!(option["default"], actual, "{option}: the default");
    }
    // The listed limits are the core's constants.
    assert_eq!(
        defaults.max_lines,
        dory_wire::preview::DEFAULT_RUN_MAX_LINES
    );
    assert_eq!(
        defaults.max_bytes,
        dory_wire::preview::DEFAULT_RUN_MAX_BYTES
    );
    // The follow options of a run are the read defaults.
    assert_eq!(defaults.read.follow, dory_wire::FollowOptions::default());
}
