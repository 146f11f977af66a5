//! The server's shared state: configuration, processes by id, idempotency
//! keys, the setup command and the fault-injection dice.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dory_testkit::Rng;
use tokio::sync::watch;

use crate::config::Config;
use crate::process::{self, CommandSpec, Proc, SpawnOptions};

/// Why a process could not be started.
#[derive(Debug)]
pub(crate) enum StartError {
    /// The OS refused to start it (program not found, ...).
    Spawn(std::io::Error),
    /// `--max-processes` are running already.
    TooMany,
}

/// Result of a start request.
#[derive(Debug)]
pub(crate) enum Started {
    /// A new process was started.
    New(Arc<Proc>),
    /// The idempotency key was used before: this is its process.
    Replay(Arc<Proc>),
}

/// Shared state of the server.
#[derive(Debug)]
pub(crate) struct Registry {
    /// The configuration in force.
    pub(crate) cfg: Config,
    procs: Mutex<HashMap<String, Arc<Proc>>>,
    keys: Mutex<HashMap<String, String>>,
    /// The setup command's process (stderr merged into stdout).
    pub(crate) setup: Arc<Proc>,
    /// Supervisors not yet finished (setup included), for shutdown.
    running: watch::Sender<usize>,
    /// User processes whose exit is not yet published (`--max-processes`).
    user_running: Arc<AtomicUsize>,
    next_id: AtomicU64,
    ids: RandomState,
    responses: AtomicU64,
    /// Start answers lost so far (`--lose-start-answers`).
    lost_starts: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    /// Whether this start's answer is to be lost (`--lose-start-answers`).
    pub(crate) fn lose_start_answer(&self) -> bool {
        let n = self.cfg.lose_start_answers;
        n > 0 && self.lost_starts.fetch_add(1, Ordering::Relaxed) < n
    }

    /// Builds the registry and starts the setup command.
    pub(crate) fn new(cfg: Config) -> std::io::Result<Arc<Self>> {
        let opts = SpawnOptions {
            timeout: None,
            head_limit: None,
            merge_stderr: true,
            retention_bytes: cfg.retention_bytes,
            read_size: cfg.read_size(),
            drain_grace: Duration::from_millis(cfg.drain_grace_ms),
            running: None,
        };
        let (setup, fut) = process::spawn(
            "setup".to_owned(),
            &CommandSpec::Shell(cfg.setup_command.clone()),
            &opts,
        )?;
        let (running, _) = watch::channel(1);
        let reg = Arc::new(Registry {
            cfg,
            procs: Mutex::new(HashMap::new()),
            keys: Mutex::new(HashMap::new()),
            setup,
            running,
            user_running: Arc::new(AtomicUsize::new(0)),
            next_id: AtomicU64::new(0),
            ids: RandomState::new(),
            responses: AtomicU64::new(0),
            lost_starts: AtomicU64::new(0),
        });
        reg.track(fut);
        Ok(reg)
    }

    /// Spawns a process supervisor and counts it as running until it ends.
    fn track(self: &Arc<Self>, fut: impl std::future::Future<Output = ()> + Send + 'static) {
        let running = self.running.clone();
        tokio::spawn(async move {
            fut.await;
            running.send_modify(|n| *n = n.saturating_sub(1));
        });
    }

    fn fresh_id(&self) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let noise = self.ids.hash_one(n);
        format!("p_{:x}{:012x}", n, noise & 0xffff_ffff_ffff)
    }

    /// Starts a process, or returns the one already started with `key`.
    pub(crate) fn start(
        self: &Arc<Self>,
        spec: &CommandSpec,
        timeout: Option<Duration>,
        key: Option<&str>,
        head_limit: Option<usize>,
    ) -> Result<Started, StartError> {
        // Holding the key map across the spawn makes two concurrent requests
        // with the same key start one process.
        let mut keys = lock(&self.keys);
        if let Some(existing) = key.and_then(|k| keys.get(k)) {
            if let Some(p) = self.get(existing) {
                return Ok(Started::Replay(p));
            }
        }
        if self.user_running.load(Ordering::Acquire) >= self.cfg.max_processes {
            return Err(StartError::TooMany);
        }
        let opts = SpawnOptions {
            timeout,
            head_limit,
            merge_stderr: false,
            retention_bytes: self.cfg.retention_bytes,
            read_size: self.cfg.read_size(),
            drain_grace: Duration::from_millis(self.cfg.drain_grace_ms),
            running: Some(Arc::clone(&self.user_running)),
        };
        let id = self.fresh_id();
        self.user_running.fetch_add(1, Ordering::AcqRel);
        let (proc, fut) = match process::spawn(id.clone(), spec, &opts) {
            Ok(started) => started,
            Err(e) => {
                self.user_running.fetch_sub(1, Ordering::AcqRel);
                return Err(StartError::Spawn(e));
            }
        };
        self.running.send_modify(|n| *n += 1);
        self.track(fut);
        lock(&self.procs).insert(id.clone(), Arc::clone(&proc));
        if let Some(k) = key {
            keys.insert(k.to_owned(), id);
        }
        Ok(Started::New(proc))
    }

    /// The process with this id, if any.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Proc>> {
        lock(&self.procs).get(id).cloned()
    }

    /// Frees the retained output of processes whose output has expired.
    pub(crate) fn sweep(&self, now: Instant) {
        let procs: Vec<Arc<Proc>> = lock(&self.procs).values().cloned().collect();
        let expiry = self.cfg.expiry();
        for p in procs {
            let mut st = p.lock();
            if Proc::is_expired(&st, now, expiry) {
                st.out.clear();
                st.head = None;
            }
        }
    }

    /// Kills every running process group and waits (bounded) until each
    /// supervisor has reaped its process.
    pub(crate) async fn shutdown(&self, wait: Duration) {
        let procs: Vec<Arc<Proc>> = lock(&self.procs).values().cloned().collect();
        for p in procs.iter().chain(std::iter::once(&self.setup)) {
            process::shutdown_kill(p);
        }
        let mut rx = self.running.subscribe();
        let _ = tokio::time::timeout(wait, rx.wait_for(|n| *n == 0)).await;
    }

    /// Byte budget after which the next NDJSON response is cut, if any
    /// (fault injection). Deterministic for a given seed and response order.
    pub(crate) fn drop_budget(&self) -> Option<u64> {
        if let Some(n) = self.cfg.drop_after_bytes {
            return Some(n);
        }
        let seed = self.cfg.drop_seed?;
        let k = self.responses.fetch_add(1, Ordering::Relaxed);
        // One generator per response, seeded from the run's seed and the
        // response number: the same seed cuts the same responses at the same bytes.
        let mut rng = Rng::new(seed ^ Rng::new(k).next_u64());
        // 53 random bits -> uniform in [0, 1).
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if u >= self.cfg.drop_probability {
            return None;
        }
        Some(1 + rng.below(self.cfg.drop_max_bytes.max(1)))
    }
}
