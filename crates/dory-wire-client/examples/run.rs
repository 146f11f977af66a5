//! One call for agents on `dory-wire-client`: `Computer::run`.
//!
//! Runs a noisy build-like command (3,000 lines on stdout, warnings on
//! stderr, one line hidden in the middle, the failure on stderr at the
//! end) with a model-sized limit (40 lines / 2 KiB), through however many
//! dropped connections the server makes; prints the combined preview — the
//! one to show a model — and recovers the hidden line from the spill file
//! its notice names, with the notice's own line range. Live progress goes to
//! stderr through the output hook (text decoded per stream).
//!
//! Environment: `DORY_URL` (the server), `CE_COMPUTER_ID` (default "c1"),
//! `DORY_SPILL_DIR` (default: a new directory under the system's temporary
//! directory, removed at the end).
//!
//! Prints "Run preview and spill verified" and exits 0 on success.
//!
//! ```text
//! DORY_URL=http://127.0.0.1:8080 cargo run -p dory-wire-client --example run
//! ```
//!
//! Through dropped connections: against a reference server that cuts
//! responses at random points, e.g. `dory-refserver --port 0
//! --max-chunk-bytes 1024 --drop-seed 7 --drop-max-bytes 4096` (about 60
//! reconnects; the previews and the spill are the same as on a clean
//! server). A server that cuts every response after fewer bytes than one
//! frame (`--drop-after-bytes 80` with 64 KiB frames) never lets a read
//! progress: the call ends with `stream_disconnected` once its retries are
//! spent, as it must.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dory_wire::Stream;
use dory_wire_client::{Client, ReadOptions, RunOptions, SpillDirectory};

/// 3,000 numbered lines, a warning on stderr every 500, the hidden line at
/// 1,717, the failure on stderr last.
const NOISY: &str = r#"i=1
while [ $i -le 3000 ]; do
  echo "compiling unit $i ... ok"
  if [ $((i % 500)) -eq 0 ]; then echo "warning: unit $i uses a deprecated API" >&2; fi
  if [ $i -eq 1717 ]; then echo "HIDDEN: the build id is 5f3a9c"; fi
  i=$((i + 1))
done
echo "error: 1 test failed: unit_1717 (exit 1)" >&2
exit 1"#;
const HIDDEN: &str = "HIDDEN: the build id is 5f3a9c";

/// The line range `F,L` of the notice's `sed -n 'F,Lp' <path>`.
fn sed_range(text: &str) -> Option<(usize, usize)> {
    let at = text.find("sed -n '")? + "sed -n '".len();
    let rest = &text[at..];
    let (first, rest) = rest.split_once(',')?;
    let last = rest.split_once("p'")?.0;
    Some((first.parse().ok()?, last.parse().ok()?))
}

async fn run(spill_dir: PathBuf) -> Result<(), String> {
    let computer_id = std::env::var("CE_COMPUTER_ID").unwrap_or_else(|_| "c1".to_owned());
    let client = Client::new(None).map_err(|e| e.to_string())?;
    let computer = client.computers().get(computer_id);

    let reconnects = Arc::new(AtomicU64::new(0));
    let counted = reconnects.clone();
    let warnings = Arc::new(AtomicU64::new(0));
    let warned = warnings.clone();
    let mut bytes = 0u64;
    let options = RunOptions::new()
        .max_lines(40)
        .max_bytes(2048)
        .timeout_seconds(60.0)
        .spill(SpillDirectory::new(&spill_dir))
        .hint("grep the file for more")
        .kill_on_cancel(true)
        .read_options(ReadOptions::new().retries(10).on_reconnect(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
        }))
        .on_output(move |stream, data, text| {
            bytes += data.len() as u64;
            if stream == Stream::Stderr {
                for line in text.lines().filter(|l| l.starts_with("warning:")) {
                    warned.fetch_add(1, Ordering::Relaxed);
                    eprintln!("  live: [{bytes} bytes so far] {line}");
                }
            }
        });
    let result = computer
        .run(["sh", "-c", NOISY], options)
        .await
        .map_err(|e| e.to_string())?;

    println!(
        "process {} exited {:?} (key {}, {} reconnects, {} warnings seen live)",
        result.proc_id,
        result.exit_code,
        result.idempotency_key,
        reconnects.load(Ordering::Relaxed),
        warnings.load(Ordering::Relaxed)
    );
    println!("---- the combined preview (what a model sees) ----");
    print!("{}", result.combined.text);
    println!("---- end of the preview ----");

    let combined = &result.combined;
    if result.exit_code != Some(1) {
        return Err(format!("expected exit code 1, got {:?}", result.exit_code));
    }
    if !combined.truncated || combined.text.len() > 2048 {
        return Err("the combined preview should be cut to 2 KiB".to_owned());
    }
    if !combined.text.contains("error: 1 test failed") {
        return Err("stderr's last line is missing from the combined preview".to_owned());
    }
    if combined.text.contains(HIDDEN) {
        return Err("the hidden line should not be in the preview".to_owned());
    }
    let path = combined
        .spill_path
        .as_deref()
        .ok_or_else(|| format!("no spill path: {:?}", combined.spill_error))?;
    let (first, last) = sed_range(&combined.text).ok_or("the notice names no line range")?;
    let saved = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let omitted: Vec<&str> = saved
        .lines()
        .skip(first.saturating_sub(1))
        .take(last + 1 - first)
        .collect();
    let hidden = omitted
        .iter()
        .find(|l| l.starts_with("HIDDEN:"))
        .ok_or("the hidden line is not in the omitted lines of the spill")?;
    println!(
        "recovered from {path} (lines {first}-{last} of {}): {hidden}",
        combined.total_lines
    );
    if saved.len() as u64 != combined.total_bytes {
        return Err("the spill is not the whole combined output".to_owned());
    }
    println!("Run preview and spill verified");
    Ok(())
}

fn main() -> ExitCode {
    let (spill_dir, ours) = match std::env::var_os("DORY_SPILL_DIR") {
        Some(dir) => (PathBuf::from(dir), false),
        None => (
            std::env::temp_dir().join(format!("dory-run-example-{}", std::process::id())),
            true,
        ),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(run(spill_dir.clone()));
    if ours {
        let _ = std::fs::remove_dir_all(&spill_dir);
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
