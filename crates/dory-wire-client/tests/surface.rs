//! The client crate's public surface against `tests/api/surface.json`:
//! the `use` lines below are exactly the `dory_wire_client::` paths of its
//! `client_concepts` (a rename stops this file compiling), the crate exports
//! nothing unlisted, and the `client_options` named for Rust exist on
//! `ReadOptions` with the core's defaults.
#![allow(unused_imports)]

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

// ---- the list: exactly the dory_wire_client:: paths of client_concepts
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
use dory_wire_client::Setup;
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
