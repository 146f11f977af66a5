//! Command-line flags and their environment variables.

use std::time::Duration;

use clap::Parser;

/// Reference server for the Dory process-output protocol.
///
/// Every limit and interval can be set by a flag or by the environment
/// variable named in its help, so tests can make them small.
#[derive(Parser, Debug, Clone)]
#[command(name = "dory-refserver", version, about)]
pub(crate) struct Config {
    /// TCP port on 127.0.0.1 (0 picks a free port; the bound URL is printed).
    #[arg(long, env = "DORY_PORT", default_value_t = 0)]
    pub(crate) port: u16,

    /// Only this computer id is served (any id is accepted when unset).
    #[arg(long, env = "DORY_COMPUTER_ID")]
    pub(crate) computer_id: Option<String>,

    /// Setup command run with `sh -c` at startup; its stderr is merged into stdout.
    #[arg(long, env = "DORY_SETUP_COMMAND", default_value = "echo setup: ok")]
    pub(crate) setup_command: String,

    /// Raw bytes retained per process across both streams.
    #[arg(long, env = "DORY_RETENTION_BYTES", default_value_t = 10_000_000)]
    pub(crate) retention_bytes: usize,

    /// Retained output expires this many milliseconds after exit.
    #[arg(long, env = "DORY_EXPIRY_MS", default_value_t = 3_600_000)]
    pub(crate) expiry_ms: u64,

    /// Heartbeat interval on followed output, in milliseconds.
    #[arg(long, env = "DORY_HEARTBEAT_MS", default_value_t = 15_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) heartbeat_ms: u64,

    /// Synchronous exec keeps at most this many bytes of each stream.
    #[arg(long, env = "DORY_SYNC_LIMIT_BYTES", default_value_t = 1_048_576)]
    pub(crate) sync_limit_bytes: usize,

    /// Largest chunk read from a process pipe (one frame's data).
    #[arg(long, env = "DORY_MAX_CHUNK_BYTES", default_value_t = 65_536,
          value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub(crate) max_chunk_bytes: u64,

    /// Largest accepted request body; larger bodies get 413.
    #[arg(long, env = "DORY_MAX_BODY_BYTES", default_value_t = 1_048_576)]
    pub(crate) max_body_bytes: usize,

    /// Read buffer for the request head; a longer head gets 431 (minimum 8192).
    #[arg(long, env = "DORY_MAX_HEADER_BYTES", default_value_t = 65_536)]
    pub(crate) max_header_bytes: usize,

    /// Most header fields accepted in one request.
    #[arg(long, env = "DORY_MAX_HEADERS", default_value_t = 100)]
    pub(crate) max_headers: usize,

    /// Time allowed to receive a request head, in milliseconds.
    #[arg(long, env = "DORY_HEADER_READ_TIMEOUT_MS", default_value_t = 30_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_read_timeout_ms: u64,

    /// Most connections served at once; further ones get 503.
    #[arg(long, env = "DORY_MAX_CONNECTIONS", default_value_t = 1024)]
    pub(crate) max_connections: usize,

    /// Most processes running at once; further starts get 503.
    #[arg(long, env = "DORY_MAX_PROCESSES", default_value_t = 256)]
    pub(crate) max_processes: usize,

    /// After the process exits, wait this long (ms) for its pipes to close
    /// before killing what is left of its process group.
    #[arg(long, env = "DORY_DRAIN_GRACE_MS", default_value_t = 2_000)]
    pub(crate) drain_grace_ms: u64,

    /// How often (ms) expired output is freed.
    #[arg(long, env = "DORY_SWEEP_INTERVAL_MS", default_value_t = 1_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) sweep_interval_ms: u64,

    /// Fault injection: cut every NDJSON response after this many body bytes.
    #[arg(long, env = "DORY_DROP_AFTER_BYTES")]
    pub(crate) drop_after_bytes: Option<u64>,

    /// Fault injection: seed for dropping NDJSON responses at random points.
    #[arg(long, env = "DORY_DROP_SEED")]
    pub(crate) drop_seed: Option<u64>,

    /// Fault injection: probability that a seeded response is cut (0..=1).
    #[arg(long, env = "DORY_DROP_PROBABILITY", default_value_t = 1.0,
          value_parser = parse_probability)]
    pub(crate) drop_probability: f64,

    /// Fault injection: a seeded cut happens after 1..=N body bytes.
    #[arg(long, env = "DORY_DROP_MAX_BYTES", default_value_t = 65_536,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) drop_max_bytes: u64,

    /// Fault injection: the first N starts (`POST …/processes`) start their
    /// process, then lose the answer (the connection closes mid-body).
    #[arg(long, env = "DORY_LOSE_START_ANSWERS", default_value_t = 0)]
    pub(crate) lose_start_answers: u64,

    /// Fault injection: answer every request `302 Found` to this URL (the
    /// request's path and query appended).
    #[arg(long, env = "DORY_REDIRECT_TO")]
    pub(crate) redirect_to: Option<String>,
}

fn parse_probability(s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|e| format!("not a number: {e}"))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err("must be between 0 and 1".to_owned())
    }
}

impl Config {
    /// Retained output lifetime after exit.
    pub(crate) fn expiry(&self) -> Duration {
        Duration::from_millis(self.expiry_ms)
    }

    /// Heartbeat interval on followed output.
    pub(crate) fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.heartbeat_ms)
    }

    /// Size of one pipe read; never larger than the retention limit so that
    /// a fresh chunk always fits (with zero retention nothing fits anyway).
    pub(crate) fn read_size(&self) -> usize {
        let max = usize::try_from(self.max_chunk_bytes).unwrap_or(usize::MAX);
        if self.retention_bytes == 0 {
            max
        } else {
            max.min(self.retention_bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        Config::try_parse_from(std::iter::once("dory-refserver").chain(args.iter().copied()))
    }

    #[test]
    fn defaults_match_the_protocol() {
        let c = parse(&[]).expect("defaults");
        assert_eq!(c.retention_bytes, 10_000_000);
        assert_eq!(c.expiry(), Duration::from_secs(3600));
        assert_eq!(c.heartbeat(), Duration::from_secs(15));
        assert_eq!(c.sync_limit_bytes, 1 << 20);
        assert!(c.drop_after_bytes.is_none() && c.drop_seed.is_none());
    }

    #[test]
    fn read_size_fits_retention() {
        let c = parse(&["--retention-bytes", "10", "--max-chunk-bytes", "100"]).expect("args");
        assert_eq!(c.read_size(), 10);
        let c = parse(&["--retention-bytes", "0", "--max-chunk-bytes", "100"]).expect("args");
        assert_eq!(c.read_size(), 100);
    }

    #[test]
    fn bad_values_are_rejected() {
        assert!(parse(&["--drop-probability", "1.5"]).is_err());
        assert!(parse(&["--heartbeat-ms", "0"]).is_err());
        assert!(parse(&["--max-chunk-bytes", "0"]).is_err());
        assert!(parse(&["--port", "70000"]).is_err());
    }
}
