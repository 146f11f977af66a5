//! HTTP routing, request validation and the endpoints of PROTOCOL.md §1.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt as _;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderValue, ACCEPT, ALLOW, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::fault;
use crate::follow::Follower;
use crate::frames::encode_bytes;
use crate::output::Stream;
use crate::process::{CommandSpec, Proc};
use crate::registry::{Registry, StartError, Started};

/// Response body type: whole JSON documents or streamed NDJSON.
pub(crate) type Body = UnsyncBoxBody<Bytes, std::io::Error>;

const NDJSON: &str = "application/x-ndjson";
const JSON: &str = "application/json";
/// Longest accepted `Idempotency-Key`.
const MAX_KEY_LEN: usize = 255;

/// An error answered as `{"error": code, "message": ..., ...extra}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    extra: Map<String, Value>,
    allow: Option<&'static str>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            extra: Map::new(),
            allow: None,
        }
    }

    fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    /// The JSON error response.
    pub(crate) fn into_response(self) -> Response<Body> {
        let mut doc = Map::new();
        doc.insert("error".into(), self.code.into());
        doc.insert("message".into(), self.message.into());
        doc.extend(self.extra);
        let mut resp = json_response(self.status, &Value::Object(doc));
        if let Some(allow) = self.allow {
            resp.headers_mut()
                .insert(ALLOW, HeaderValue::from_static(allow));
        }
        resp
    }
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

fn json_response(status: StatusCode, doc: &Value) -> Response<Body> {
    let mut body = serde_json::to_vec(doc).unwrap_or_default();
    body.push(b'\n');
    let mut resp = Response::new(full(body));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
    resp
}

fn identity(proc: &Proc) -> Response<Body> {
    json_response(
        StatusCode::OK,
        &json!({"proc_id": proc.id, "status": proc.status()}),
    )
}

/// A streamed NDJSON response, cut by fault injection when configured.
fn ndjson_response(
    reg: &Registry,
    frames: BoxStream<'static, std::io::Result<Bytes>>,
    proc_id: Option<&str>,
) -> Response<Body> {
    let frames = match reg.drop_budget() {
        Some(budget) => fault::cut_after(frames, budget),
        None => frames,
    };
    let body = BodyExt::boxed_unsync(StreamBody::new(frames.map(|r| r.map(Frame::data))));
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(NDJSON));
    // A buffering proxy (nginx's default) would hold frames and heartbeats
    // until the body ends: every NDJSON response asks it not to.
    h.insert(
        "cache-control",
        HeaderValue::from_static("no-store, no-cache, no-transform"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    if let Some(id) = proc_id.and_then(|id| HeaderValue::from_str(id).ok()) {
        h.insert("ce-process-id", id);
    }
    resp
}

/// Entry point for every request; never fails.
pub(crate) async fn handle(
    reg: Arc<Registry>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    Ok(route(&reg, req)
        .await
        .unwrap_or_else(ApiError::into_response))
}

/// The 503 answered when `--max-connections` are busy.
pub(crate) fn overloaded() -> Response<Body> {
    let mut resp = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "overloaded",
        "too many connections",
    )
    .into_response();
    resp.headers_mut()
        .insert("connection", HeaderValue::from_static("close"));
    resp
}

fn method_not_allowed(allow: &'static str) -> ApiError {
    let mut e = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("use {allow}"),
    );
    e.allow = Some(allow);
    e
}

async fn route(reg: &Arc<Registry>, req: Request<Incoming>) -> Result<Response<Body>, ApiError> {
    if let Some(to) = &reg.cfg.redirect_to {
        let target = req.uri().path_and_query().map_or("/", |p| p.as_str());
        let location = format!("{}{target}", to.trim_end_matches('/'));
        let mut resp = Response::new(full(b"moved\n".to_vec()));
        *resp.status_mut() = StatusCode::FOUND;
        if let Ok(value) = HeaderValue::from_str(&location) {
            resp.headers_mut().insert("location", value);
        }
        return Ok(resp);
    }
    let path = req.uri().path().to_owned();
    let segs: Vec<&str> = path.strip_prefix('/').unwrap_or(&path).split('/').collect();
    let (computer, rest) = match segs.as_slice() {
        ["computers", computer, rest @ ..] if !computer.is_empty() => (*computer, rest),
        _ => return Err(ApiError::not_found(format!("no route for {path}"))),
    };
    let check = |allow: &'static str, m: &Method| -> Result<(), ApiError> {
        if m.as_str() == allow {
            Ok(())
        } else {
            Err(method_not_allowed(allow))
        }
    };
    let route_known = matches!(
        rest,
        ["processes"]
            | ["exec"]
            | ["processes", _]
            | ["processes", _, "output" | "kill"]
            | ["setup", "logs"]
    );
    if !route_known {
        return Err(ApiError::not_found(format!("no route for {path}")));
    }
    if let Some(only) = &reg.cfg.computer_id {
        if only != computer {
            return Err(ApiError::not_found(format!("unknown computer {computer}")));
        }
    }
    let method = req.method().clone();
    match rest {
        ["processes"] => {
            check("POST", &method)?;
            start(reg, req).await
        }
        ["exec"] => {
            check("POST", &method)?;
            exec(reg, req).await
        }
        ["processes", id] => {
            check("GET", &method)?;
            Ok(identity(&*lookup(reg, id)?))
        }
        ["processes", id, "output"] => {
            check("GET", &method)?;
            output(reg, id, req.uri().query())
        }
        ["processes", id, "kill"] => {
            check("POST", &method)?;
            kill(reg, id).await
        }
        _ => {
            check("GET", &method)?;
            setup_logs(reg, req.uri().query())
        }
    }
}

fn lookup(reg: &Registry, id: &str) -> Result<Arc<Proc>, ApiError> {
    reg.get(id)
        .ok_or_else(|| ApiError::not_found(format!("unknown process {id}")))
}

// ---------------------------------------------------------------- queries

/// Query parameters by name; a parameter given twice is a bad request.
fn parse_query<'a>(
    query: Option<&str>,
    known: &[&'a str],
) -> Result<Vec<(&'a str, String)>, ApiError> {
    let mut out: Vec<(&'a str, String)> = Vec::new();
    for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if let Some(name) = known.iter().find(|n| **n == k) {
            if out.iter().any(|(n, _)| n == name) {
                return Err(ApiError::bad_request(format!(
                    "query parameter {name} given twice"
                )));
            }
            out.push((name, v.into_owned()));
        }
    }
    Ok(out)
}

fn param<'q>(q: &'q [(&str, String)], name: &str) -> Option<&'q str> {
    q.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
}

fn offset_param(q: &[(&str, String)], name: &str) -> Result<u64, ApiError> {
    let Some(v) = param(q, name) else {
        return Ok(0);
    };
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::bad_request(format!(
            "{name} must be a non-negative integer"
        )));
    }
    v.parse::<u64>()
        .map_err(|_| ApiError::bad_request(format!("{name} is too large")))
}

fn follow_param(q: &[(&str, String)]) -> Result<bool, ApiError> {
    match param(q, "follow") {
        None | Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(_) => Err(ApiError::bad_request("follow must be true or false")),
    }
}

// ---------------------------------------------------------------- output

fn output(reg: &Arc<Registry>, id: &str, query: Option<&str>) -> Result<Response<Body>, ApiError> {
    let q = parse_query(query, &["stdout_offset", "stderr_offset", "follow"])?;
    let pos = [
        offset_param(&q, "stdout_offset")?,
        offset_param(&q, "stderr_offset")?,
    ];
    let follow = follow_param(&q)?;
    let proc = lookup(reg, id)?;
    {
        let st = proc.lock();
        if Proc::is_expired(&st, Instant::now(), reg.cfg.expiry()) {
            return Err(ApiError::new(
                StatusCode::GONE,
                "output_expired",
                "retained output expired after the process exited",
            ));
        }
        let produced = st.out.produced();
        if pos[0] > produced[0] || pos[1] > produced[1] {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "offset_beyond_output",
                format!(
                    "offsets beyond produced output (stdout {}, stderr {})",
                    produced[0], produced[1]
                ),
            )
            .with("stdout_offset", pos[0])
            .with("stderr_offset", pos[1]));
        }
        let earliest = st.out.earliest();
        if pos[0] < earliest[0] || pos[1] < earliest[1] {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "output_gap",
                "requested output was evicted",
            )
            .with("earliest_stdout_offset", earliest[0])
            .with("earliest_stderr_offset", earliest[1]));
        }
    }
    let frames = Follower::new(proc, pos, follow, reg.cfg.heartbeat()).into_stream();
    Ok(ndjson_response(reg, frames, None))
}

fn setup_logs(reg: &Arc<Registry>, query: Option<&str>) -> Result<Response<Body>, ApiError> {
    let q = parse_query(query, &["offset", "follow"])?;
    let offset = offset_param(&q, "offset")?;
    let follow = follow_param(&q)?;
    let proc = Arc::clone(&reg.setup);
    {
        let st = proc.lock();
        let produced = st.out.produced()[Stream::Stdout.index()];
        if offset > produced {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "offset_beyond_output",
                format!("offset beyond produced setup output ({produced})"),
            )
            .with("offset", offset));
        }
        let earliest = st.out.earliest()[Stream::Stdout.index()];
        if offset < earliest {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "output_gap",
                "requested setup output was evicted",
            )
            .with("earliest_offset", earliest));
        }
    }
    let frames = Follower::new(proc, [offset, 0], follow, reg.cfg.heartbeat())
        .for_setup()
        .into_stream();
    Ok(ndjson_response(reg, frames, None))
}

// ---------------------------------------------------------------- starts

#[derive(Deserialize)]
#[serde(untagged)]
enum CommandField {
    Shell(String),
    Argv(Vec<String>),
}

#[derive(Deserialize)]
struct StartBody {
    command: CommandField,
    #[serde(default)]
    timeout_seconds: Option<f64>,
}

struct StartRequest {
    spec: CommandSpec,
    timeout: Option<Duration>,
    key: Option<String>,
}

async fn read_start(reg: &Registry, req: Request<Incoming>) -> Result<StartRequest, ApiError> {
    let key = match req.headers().get("idempotency-key") {
        None => None,
        Some(v) => {
            let s = v
                .to_str()
                .ok()
                .filter(|s| {
                    !s.is_empty()
                        && s.len() <= MAX_KEY_LEN
                        && s.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
                })
                .ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "Idempotency-Key must be 1..={MAX_KEY_LEN} printable ASCII characters \
                         (visible characters and spaces)"
                    ))
                })?;
            Some(s.to_owned())
        }
    };
    let limit = reg.cfg.max_body_bytes;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("request body is limited to {limit} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let body = Limited::new(req.into_body(), limit)
        .collect()
        .await
        .map_err(|e| {
            if e.downcast_ref::<LengthLimitError>().is_some() {
                too_large()
            } else {
                ApiError::bad_request(format!("cannot read request body: {e}"))
            }
        })?
        .to_bytes();
    let parsed: StartBody = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(format!(
            "body must be {{\"command\": string or [string], \"timeout_seconds\": number}}: {e}"
        ))
    })?;
    let spec = match parsed.command {
        CommandField::Shell(line) => CommandSpec::Shell(line),
        CommandField::Argv(argv) => CommandSpec::Argv(argv),
    };
    let has_nul = match &spec {
        CommandSpec::Shell(line) => line.contains('\0'),
        CommandSpec::Argv(argv) => argv.iter().any(|a| a.contains('\0')),
    };
    if has_nul {
        return Err(ApiError::bad_request("command must not contain NUL"));
    }
    if matches!(&spec, CommandSpec::Argv(a) if a.is_empty()) {
        return Err(ApiError::bad_request("command must not be empty"));
    }
    let timeout = match parsed.timeout_seconds {
        None => None,
        Some(t) if t > 0.0 && t.is_finite() => Some(
            Duration::try_from_secs_f64(t)
                .map_err(|_| ApiError::bad_request("timeout_seconds is too large"))?,
        ),
        Some(_) => return Err(ApiError::bad_request("timeout_seconds must be positive")),
    };
    Ok(StartRequest { spec, timeout, key })
}

fn start_error(e: StartError) -> ApiError {
    match e {
        StartError::Spawn(err) => ApiError::bad_request(format!("cannot start command: {err}")),
        StartError::TooMany => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_processes",
            "too many processes are running",
        ),
    }
}

async fn start(reg: &Arc<Registry>, req: Request<Incoming>) -> Result<Response<Body>, ApiError> {
    let r = read_start(reg, req).await?;
    match reg
        .start(&r.spec, r.timeout, r.key.as_deref(), None)
        .map_err(start_error)?
    {
        Started::New(p) | Started::Replay(p) if reg.lose_start_answer() => {
            // Started, and the answer is lost: the headers, a piece of the
            // document, then the connection closes.
            let doc = format!("{{\"proc_id\":\"{}\"", p.id);
            let pieces: Vec<std::io::Result<Bytes>> = vec![
                Ok(Bytes::from(doc)),
                Err(std::io::Error::other("--lose-start-answers")),
            ];
            let body = BodyExt::boxed_unsync(StreamBody::new(
                futures_util::stream::iter(pieces).map(|r| r.map(Frame::data)),
            ));
            let mut resp = Response::new(body);
            resp.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
            Ok(resp)
        }
        Started::New(p) | Started::Replay(p) => Ok(identity(&p)),
    }
}

fn wants_ndjson(req: &Request<Incoming>) -> bool {
    req.headers()
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|m| {
            m.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case(NDJSON))
        })
}

async fn exec(reg: &Arc<Registry>, req: Request<Incoming>) -> Result<Response<Body>, ApiError> {
    let stream = wants_ndjson(&req);
    let r = read_start(reg, req).await?;
    let head_limit = (!stream).then_some(reg.cfg.sync_limit_bytes);
    let proc = match reg
        .start(&r.spec, r.timeout, r.key.as_deref(), head_limit)
        .map_err(start_error)?
    {
        // A keyed replay answers the identity, whatever was asked for.
        Started::Replay(p) => return Ok(identity(&p)),
        Started::New(p) => p,
    };
    if stream {
        let id = proc.id.clone();
        let frames = Follower::new(Arc::clone(&proc), [0, 0], true, reg.cfg.heartbeat())
            .with_started(id.clone())
            .into_stream();
        return Ok(ndjson_response(reg, frames, Some(&id)));
    }
    let exit = proc.wait_exit().await;
    let (bytes, truncated) = {
        let mut st = proc.lock();
        let head = st.head.take().unwrap_or_default();
        (head.bytes, head.truncated)
    };
    let mut doc = Map::new();
    doc.insert("proc_id".into(), proc.id.clone().into());
    for (i, name) in ["stdout", "stderr"].into_iter().enumerate() {
        let (data, encoding) = encode_bytes(&bytes[i]);
        doc.insert(name.into(), data.into());
        if let Some(enc) = encoding {
            doc.insert(format!("{name}_encoding"), enc.into());
        }
        doc.insert(format!("{name}_truncated"), truncated[i].into());
    }
    doc.insert("exit_code".into(), exit.exit_code.into());
    doc.insert("timed_out".into(), exit.timed_out.into());
    Ok(json_response(StatusCode::OK, &Value::Object(doc)))
}

async fn kill(reg: &Arc<Registry>, id: &str) -> Result<Response<Body>, ApiError> {
    let proc = lookup(reg, id)?;
    proc.kill();
    // Answer with the settled status when the kill takes effect promptly.
    let grace =
        Duration::from_millis(reg.cfg.drain_grace_ms).saturating_add(Duration::from_secs(1));
    let _ = tokio::time::timeout(grace, proc.wait_exit()).await;
    Ok(identity(&proc))
}
