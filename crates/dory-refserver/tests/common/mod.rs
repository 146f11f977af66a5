//! Test harness: runs the built `dory-refserver` binary on port 0 and talks
//! to it with a minimal blocking HTTP/1.1 client over a raw `TcpStream`, so
//! that incomplete chunked bodies (fault injection) are observable.
//!
//! Timeouts here are hang guards only; no test asserts on timing.

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::Value;

/// Hang guard for any single socket read.
pub const READ_GUARD: Duration = Duration::from_secs(20);

/// A running server; SIGTERM and reaped on drop.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dory-refserver"))
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn dory-refserver");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read listening line");
        let port = line
            .trim()
            .strip_prefix("listening on http://127.0.0.1:")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .expect("port");
        Server { child, port }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends SIGTERM and waits (bounded) for the exit status.
    pub fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.pid()),
            nix::sys::signal::Signal::SIGTERM,
        );
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        request(self.port, method, path, headers, body)
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }

    pub fn post_json(&self, path: &str, headers: &[(&str, &str)], body: &Value) -> Response {
        let body = serde_json::to_vec(body).expect("json");
        self.request("POST", path, headers, &body)
    }

    /// Starts a background process and returns its proc_id.
    pub fn start_process(&self, command: &str) -> String {
        let mut r = self.post_json(
            "/computers/c1/processes",
            &[],
            &serde_json::json!({"command": ["sh", "-c", command]}),
        );
        assert_eq!(r.status, 200);
        r.json()["proc_id"].as_str().expect("proc_id").to_owned()
    }

    /// Polls the identity until the process has exited (hang guard 20 s).
    pub fn wait_exited(&self, proc_id: &str) {
        let deadline = Instant::now() + READ_GUARD;
        loop {
            let mut r = self.get(&format!("/computers/c1/processes/{proc_id}"));
            assert_eq!(r.status, 200);
            if r.json()["status"] == "exited" {
                return;
            }
            assert!(Instant::now() < deadline, "process {proc_id} did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// A response whose body is read lazily.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    framing: Framing,
    /// Whole body once read by `body()`.
    cached: Option<Body>,
}

enum Framing {
    Chunked,
    Length(u64),
    Close,
}

/// A body read to its end.
#[derive(Debug, Clone)]
pub struct Body {
    pub bytes: Vec<u8>,
    /// Whether the body ended properly (chunked terminator, full length).
    pub complete: bool,
}

pub fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(READ_GUARD)).expect("timeout");
    s
}

pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut s = connect(port);
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" || !body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write head");
    // The server may answer (413) and close before reading a large body.
    let _ = s.write_all(body);
    read_response(s)
}

pub fn read_response(s: TcpStream) -> Response {
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("status line");
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"))
        .parse()
        .expect("status");
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (k, v) = line.split_once(':').expect("header");
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let framing = if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        Framing::Chunked
    } else if let Some(n) = find("content-length") {
        Framing::Length(n.parse().expect("content-length"))
    } else {
        Framing::Close
    };
    Response {
        status,
        headers,
        reader,
        framing,
        cached: None,
    }
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    /// Reads the whole body, recording whether it ended properly.
    pub fn body(&mut self) -> Body {
        if let Some(b) = &self.cached {
            return b.clone();
        }
        let mut bytes = Vec::new();
        let complete = match self.framing {
            Framing::Chunked => read_chunked(&mut self.reader, &mut bytes),
            Framing::Length(n) => {
                let _ = (&mut self.reader).take(n).read_to_end(&mut bytes);
                bytes.len() as u64 == n
            }
            Framing::Close => self.reader.read_to_end(&mut bytes).is_ok(),
        };
        let b = Body { bytes, complete };
        self.cached = Some(b.clone());
        b
    }

    pub fn json(&mut self) -> Value {
        let b = self.body();
        serde_json::from_slice(&b.bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&b.bytes)))
    }

    /// Complete NDJSON lines of the body (a trailing partial line is dropped).
    pub fn frames(&mut self) -> Vec<Value> {
        parse_frames(&self.body().bytes)
    }

    /// Reads the next complete NDJSON line from a chunked body, or `None`
    /// at the end of the body. For incremental reads of live streams.
    pub fn next_frame(&mut self, pending: &mut Vec<u8>) -> Option<Value> {
        loop {
            if let Some(i) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=i).collect();
                return Some(serde_json::from_slice(&line).expect("frame JSON"));
            }
            match read_one_chunk(&mut self.reader) {
                Some(data) if !data.is_empty() => pending.extend_from_slice(&data),
                _ => return None,
            }
        }
    }
}

fn read_one_chunk(r: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut size_line = String::new();
    if r.read_line(&mut size_line).ok()? == 0 {
        return None;
    }
    let size = usize::from_str_radix(size_line.trim().split(';').next()?.trim(), 16).ok()?;
    let mut data = vec![0u8; size];
    r.read_exact(&mut data).ok()?;
    let mut crlf = [0u8; 2];
    r.read_exact(&mut crlf).ok()?;
    if size == 0 {
        return Some(Vec::new());
    }
    Some(data)
}

/// Decodes a chunked body into `out`; true when the terminator was seen.
fn read_chunked(r: &mut BufReader<TcpStream>, out: &mut Vec<u8>) -> bool {
    loop {
        let mut size_line = String::new();
        match r.read_line(&mut size_line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => {}
        }
        let Ok(size) =
            usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("").trim(), 16)
        else {
            return false;
        };
        if size == 0 {
            let mut trailer = String::new();
            return r.read_line(&mut trailer).is_ok() && trailer == "\r\n";
        }
        let start = out.len();
        out.resize(start + size, 0);
        let mut got = 0;
        while got < size {
            match r.read(&mut out[start + got..]) {
                Ok(0) | Err(_) => {
                    out.truncate(start + got);
                    return false;
                }
                Ok(n) => got += n,
            }
        }
        let mut crlf = [0u8; 2];
        if r.read_exact(&mut crlf).is_err() {
            return false;
        }
    }
}

pub fn parse_frames(bytes: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|b| *b == b'\n') {
        let line = &rest[..i];
        rest = &rest[i + 1..];
        if !line.is_empty() {
            out.push(serde_json::from_slice(line).unwrap_or_else(|e| {
                panic!("bad frame ({e}): {:?}", String::from_utf8_lossy(line))
            }));
        }
    }
    out
}

/// Resident memory of a process in KiB (0 when unknown).
pub fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The raw bytes of a `stdout`/`stderr` frame.
pub fn frame_bytes(frame: &Value) -> Vec<u8> {
    let data = frame["data"].as_str().expect("data");
    match frame.get("encoding").and_then(Value::as_str) {
        Some("base64") => B64.decode(data).expect("base64"),
        None | Some("utf-8") => data.as_bytes().to_vec(),
        Some(other) => panic!("unknown encoding {other}"),
    }
}

/// A client-side transcript that applies the protocol's overlap rules.
#[derive(Debug, Default)]
pub struct Transcript {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: Option<Value>,
    pub gap: Option<Value>,
    pub heartbeats: usize,
}

impl Transcript {
    pub fn offsets(&self) -> (u64, u64) {
        (self.stdout.len() as u64, self.stderr.len() as u64)
    }

    /// Applies one frame; panics on a hole (the server must never skip bytes
    /// without a gap frame).
    pub fn apply(&mut self, frame: &Value) {
        match frame["type"].as_str().expect("type") {
            t @ ("stdout" | "stderr") => {
                let bytes = frame_bytes(frame);
                let end = frame["offset"].as_u64().expect("offset");
                let start = end.checked_sub(bytes.len() as u64).expect("offset >= len");
                let buf = if t == "stdout" {
                    &mut self.stdout
                } else {
                    &mut self.stderr
                };
                let consumed = buf.len() as u64;
                assert!(
                    start <= consumed,
                    "hole in {t}: chunk starts at {start}, consumed {consumed}"
                );
                if end > consumed {
                    let skip = (consumed - start) as usize;
                    buf.extend_from_slice(&bytes[skip..]);
                }
            }
            "heartbeat" => self.heartbeats += 1,
            "exit" => self.exit = Some(frame.clone()),
            "gap" => self.gap = Some(frame.clone()),
            "started" => {}
            other => panic!("unexpected frame type {other}"),
        }
    }
}
