//! Runs a command on a Dory computer and reads its whole output, exactly.
use dory_wire::{Error, Stream};
use dory_wire_client::{Client, ReadOptions, StartOptions};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let client = Client::new(None)?; // base URL: the DORY_URL environment variable
    let computer = client.computers().get("c1");
    let command = ["sh", "-c", "printf 'hello\\000\\377'; printf 'notice' >&2"];
    let options = StartOptions::new()
        .timeout_seconds(30.0)
        .idempotency_key("readme-1");
    let started = computer.processes().start(command, options).await?;
    let process = computer.processes().get(&started.proc_id).await?;

    // The whole output through dropped connections: the core's follower
    // decides every reconnect; the hook sees each one. Never re-runs.
    let on_reconnect = |r: &dory_wire::Reconnect| {
        eprintln!(
            "reconnect {} ({}) at {:?} after {:?}",
            r.attempt,
            r.reason.as_str(),
            r.cursor,
            r.delay
        )
    };
    let transcript = process
        .read_output(ReadOptions::new().on_reconnect(on_reconnect))
        .await?;
    assert_eq!(transcript.stream(Stream::Stdout).bytes(), b"hello\0\xff"); // exact bytes
    println!("stderr: {}", transcript.stream(Stream::Stderr).text()); // stderr: notice
    process.kill().await?;
    Ok(())
}
