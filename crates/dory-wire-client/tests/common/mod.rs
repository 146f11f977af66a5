//! A scripted HTTP/1.1 server on loopback: each connection gets the next
//! scripted reply, sent whole, cut mid-body, trickled or stalled; every
//! request is recorded.
#![allow(dead_code, unreachable_pub)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How a scripted body ends.
#[derive(Clone, Debug)]
pub enum Ending {
    /// The whole body, then its end.
    Complete,
    /// The body so far, then the connection closes without the body's end.
    Cut,
    /// The body so far, then nothing more (the connection stays open).
    Stall,
    /// The body one byte at a time, `every` apart, never ending.
    Trickle(Duration),
}

/// One scripted reply.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub ending: Ending,
}

pub fn ndjson(body: &str, ending: Ending) -> Reply {
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "application/x-ndjson".into())],
        body: body.as_bytes().to_vec(),
        ending,
    }
}

pub fn json(status: u16, body: &str) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.as_bytes().to_vec(),
        ending: Ending::Complete,
    }
}

impl Reply {
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A recorded request: the request line, headers (lower-case names) and body.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The server: its URL and what it saw.
pub struct Script {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Script {
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().expect("not poisoned").clone()
    }
    pub fn targets(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .map(|s| format!("{} {}", s.method, s.target))
            .collect()
    }
}

/// Serves `replies` in order, one per connection (a connection past the
/// script gets a 500).
pub async fn serve(replies: Vec<Reply>) -> Script {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        let mut replies = replies.into_iter();
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let reply = replies
                .next()
                .unwrap_or_else(|| json(500, "{\"error\":\"script_over\"}"));
            let log = log.clone();
            tokio::spawn(async move {
                let _ = answer(socket, reply, log).await;
            });
        }
    });
    Script { url, seen }
}

/// A URL where nothing listens: connections are refused.
pub async fn refusing_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    url
}

async fn answer(
    mut socket: TcpStream,
    reply: Reply,
    log: Arc<Mutex<Vec<Seen>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let target = first.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    log.lock().expect("not poisoned").push(Seen {
        method,
        target,
        headers,
        body,
    });

    let mut out = format!("HTTP/1.1 {} Scripted\r\n", reply.status);
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    socket.write_all(out.as_bytes()).await?;
    match reply.ending {
        Ending::Complete => {
            if !reply.body.is_empty() {
                socket
                    .write_all(format!("{:x}\r\n", reply.body.len()).as_bytes())
                    .await?;
                socket.write_all(&reply.body).await?;
                socket.write_all(b"\r\n").await?;
            }
            socket.write_all(b"0\r\n\r\n").await?;
            socket.flush().await?;
        }
        Ending::Cut => {
            // Announce more than is sent, then close: the body is cut.
            socket
                .write_all(format!("{:x}\r\n", reply.body.len() + 64).as_bytes())
                .await?;
            socket.write_all(&reply.body).await?;
            socket.flush().await?;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ending::Stall => {
            if !reply.body.is_empty() {
                socket
                    .write_all(format!("{:x}\r\n", reply.body.len()).as_bytes())
                    .await?;
                socket.write_all(&reply.body).await?;
                socket.write_all(b"\r\n").await?;
            }
            socket.flush().await?;
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Ending::Trickle(every) => {
            for byte in reply.body {
                socket.write_all(b"1\r\n").await?;
                socket.write_all(&[byte]).await?;
                socket.write_all(b"\r\n").await?;
                socket.flush().await?;
                tokio::time::sleep(every).await;
            }
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
    Ok(())
}

pub fn out(stream: &str, data: &str, offset: u64) -> String {
    format!("{{\"type\":\"{stream}\",\"data\":\"{data}\",\"offset\":{offset}}}\n")
}

pub fn exit(code: i64) -> String {
    format!("{{\"type\":\"exit\",\"exit_code\":{code},\"timed_out\":false}}\n")
}
