//! A complete retained-output program on `dory-wire-client`.
//!
//! Starts one bounded process with a fresh idempotency key, replays the start
//! to confirm it names the same process, reads the retained output frame by
//! frame and saves the consumed offsets of each stream after every frame;
//! when a connection drops it reopens the output from those offsets (at most
//! three connections) and never starts the command again. A gap or expired
//! output is an error, not papered over. The bytes (NUL and a non-UTF-8 byte
//! included) are checked exactly, and the process is killed in cleanup.
//!
//! Environment: `DORY_URL` (the server), `CE_COMPUTER_ID` (default "c1"),
//! `DORY_MAX_CONNECTIONS` (default 3).
//!
//! Prints "Retained bytes and replay identity verified" and exits 0 on success.
//!
//! ```text
//! DORY_URL=http://127.0.0.1:8080 cargo run -p dory-wire-client --example retained_output
//! ```

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::process::ExitCode;

use dory_wire::{Cursor, Error};
use dory_wire_client::{Client, FrameType, Process, ReadOptions, StartOptions};

const COMMAND: [&str; 3] = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
const STDOUT: &[u8] = b"hello\x00\xff";
const STDERR: &[u8] = b"notice";

/// A fresh idempotency key (random, without a dependency).
fn fresh_key() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("retained-output-{:016x}", hasher.finish())
}

/// The process's whole output (stdout, stderr) and how many connections it took.
async fn read_all(
    process: &Process,
    max_connections: u32,
) -> Result<(Vec<u8>, Vec<u8>, u32), String> {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut offsets = Cursor::default();
    for connection in 1..=max_connections {
        let mut stream = process
            .iter_output(ReadOptions::new().from_cursor(offsets))
            .map_err(|e| e.to_string())?;
        while let Some(frame) = stream.next().await {
            match frame {
                Ok(frame) => {
                    match frame.frame_type {
                        FrameType::Stdout => stdout.extend_from_slice(&frame.bytes),
                        FrameType::Stderr => stderr.extend_from_slice(&frame.bytes),
                        _ => {}
                    }
                    // Save after every frame: this is where a reconnect resumes.
                    offsets = Cursor::new(frame.stdout_offset(), frame.stderr_offset());
                    if frame.frame_type == FrameType::Exit {
                        if frame.exit_code != Some(0) || frame.timed_out == Some(true) {
                            return Err(format!(
                                "guest process failed: exit code {:?}, timed out {:?}",
                                frame.exit_code, frame.timed_out
                            ));
                        }
                        return Ok((stdout, stderr, connection));
                    }
                }
                // The output is still retained: reopen it from the consumed offsets.
                Err(Error::StreamDisconnected { cursor, .. }) => {
                    offsets = cursor;
                    break;
                }
                // Lost bytes need a decision of the caller; never restart the command.
                Err(other) => return Err(other.to_string()),
            }
        }
    }
    Err(format!(
        "output still incomplete after {max_connections} connections (stdout_offset {}, stderr_offset {})",
        offsets.stdout, offsets.stderr
    ))
}

async fn run() -> Result<(), String> {
    let computer_id = std::env::var("CE_COMPUTER_ID").unwrap_or_else(|_| "c1".to_owned());
    let max_connections = std::env::var("DORY_MAX_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let client = Client::new(None).map_err(|e| e.to_string())?;
    let computer = client.computers().get(computer_id);
    let processes = computer.processes();
    let options = StartOptions::new()
        .timeout_seconds(30.0)
        .idempotency_key(fresh_key());
    let started = processes
        .start(COMMAND, options.clone())
        .await
        .map_err(|e| e.to_string())?;
    let outcome = async {
        // Replaying the same start key identifies the same process, not new work.
        let replay = processes
            .start(COMMAND, options)
            .await
            .map_err(|e| e.to_string())?;
        if replay.proc_id != started.proc_id {
            return Err(format!(
                "process replay changed identity: {} then {}",
                started.proc_id, replay.proc_id
            ));
        }
        let process = processes
            .get(&started.proc_id)
            .await
            .map_err(|e| e.to_string())?;
        let (stdout, stderr, connections) = read_all(&process, max_connections).await?;
        if stdout != STDOUT || stderr != STDERR {
            return Err(format!(
                "output was incomplete or different: {stdout:?} {stderr:?}"
            ));
        }
        eprintln!(
            "retained output of {} read over {connections} connection(s)",
            started.proc_id
        );
        Ok(())
    }
    .await;
    // Cleanup: kill explicitly, whatever happened.
    let killed = processes.kill(&started.proc_id).await;
    outcome?;
    killed.map_err(|e| e.to_string())?;
    println!("Retained bytes and replay identity verified");
    Ok(())
}

fn main() -> ExitCode {
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
    match runtime.block_on(run()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
