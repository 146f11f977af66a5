//! `dory-refserver`: the reference server for the Dory process-output
//! protocol (`PROTOCOL.md`, v1).
//!
//! It runs real processes (`sh -c` or an argv), captures their stdout and
//! stderr as raw bytes and serves them over HTTP/1.1 on 127.0.0.1 as NDJSON
//! frames with byte offsets, retention and eviction, gaps, expiry, heartbeats,
//! idempotent starts, synchronous exec and setup logs. Fault injection cuts
//! NDJSON responses mid-body so clients can prove they resume correctly.
//!
//! Architecture, one concept per module:
//! - [`config`]: flags and environment variables;
//! - [`output`]: the retained chunks of one process and their eviction;
//! - [`process`]: spawning, deadline, kill and exit of one process group;
//! - [`registry`]: processes by id, idempotency keys, setup, fault dice;
//! - [`follow`]: serving output to one consumer (replay, live, gap, exit);
//! - [`frames`]: NDJSON frame and JSON document encoding;
//! - [`fault`]: cutting a response body and dropping the connection;
//! - [`http`]: routing, validation and the endpoints.
//!
//! On startup it prints exactly one line, `listening on http://127.0.0.1:PORT`,
//! to stdout. SIGTERM or SIGINT kills every process group and exits.
#![forbid(unsafe_code)]

mod config;
mod fault;
mod follow;
mod frames;
mod http;
mod output;
mod process;
mod registry;

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser as _;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::config::Config;
use crate::registry::Registry;

/// How long shutdown waits for killed processes to be reaped.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);
/// hyper's smallest accepted read buffer.
const MIN_BUF: usize = 8192;

fn main() -> std::process::ExitCode {
    let cfg = Config::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dory-refserver: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(cfg)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dory-refserver: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cfg: Config) -> std::io::Result<()> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, cfg.port))).await?;
    let port = listener.local_addr()?.port();
    let reg = Registry::new(cfg)?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on http://127.0.0.1:{port}")?;
        out.flush()?;
    }

    let sweeper = {
        let reg = Arc::clone(&reg);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(reg.cfg.sweep_interval_ms));
            loop {
                tick.tick().await;
                reg.sweep(Instant::now());
            }
        })
    };

    let connections = Arc::new(Semaphore::new(reg.cfg.max_connections));
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => serve(&reg, &connections, stream),
                // Out of descriptors and the like: back off briefly, keep serving.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            () = &mut shutdown => break,
        }
    }
    sweeper.abort();
    reg.shutdown(SHUTDOWN_WAIT).await;
    Ok(())
}

fn serve(reg: &Arc<Registry>, connections: &Arc<Semaphore>, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let io = TokioIo::new(stream);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(reg.cfg.header_read_timeout_ms))
        .max_buf_size(reg.cfg.max_header_bytes.max(MIN_BUF))
        .max_headers(reg.cfg.max_headers);
    match Arc::clone(connections).try_acquire_owned() {
        Ok(permit) => {
            let reg = Arc::clone(reg);
            tokio::spawn(async move {
                let svc = service_fn(move |req| http::handle(Arc::clone(&reg), req));
                // Errors here are the peer's (reset, malformed request) or an
                // injected fault; either way the connection is done.
                let _ = builder.serve_connection(io, svc).await;
                drop(permit);
            });
        }
        Err(_) => {
            tokio::spawn(async move {
                let svc = service_fn(|_req| async {
                    Ok::<_, std::convert::Infallible>(http::overloaded())
                });
                let _ = builder.keep_alive(false).serve_connection(io, svc).await;
            });
        }
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
