//! Requests as values: what every call of the Dory API sends, written once.
//!
//! A [`Request`] is a method, a path (every id percent-encoded as one path
//! segment), a query, headers and an optional JSON body, independent of any
//! HTTP library. The clients of every language send these requests as they
//! are, adding only their default headers (`Authorization`, …) where a
//! request does not set the same header itself.
//!
//! The builders check their arguments, with the same messages in every
//! language (`invalid_argument`): ids and idempotency keys are non-empty and
//! fit in a header or a path, a command is a non-empty shell line or a
//! non-empty argv, a timeout is a positive finite number of seconds.

use std::fmt::Write as _;

use serde::Serialize;

use crate::{Cursor, Error};

/// The media type of a frame stream.
pub(crate) const NDJSON: &str = "application/x-ndjson";
/// The media type of a JSON document.
pub(crate) const JSON: &str = "application/json";

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`: reads (idempotent, sent again freely).
    Get,
    /// `POST`: starts, exec and kill (sent again only with an idempotency key).
    Post,
}

impl Method {
    /// `"GET"` or `"POST"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// How long a client waits for a request's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wait {
    /// The client's own timeouts (a JSON document answers soon).
    Default,
    /// An output stream: the liveness timeout bounds every wait for the
    /// next frame, not the whole response.
    Stream,
    /// No read timeout: a synchronous exec answers when the process exits.
    Unbounded,
}

impl Wait {
    /// `"default"`, `"stream"` or `"unbounded"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wait::Default => "default",
            Wait::Stream => "stream",
            Wait::Unbounded => "unbounded",
        }
    }
}

/// A command to run: a shell line (run with `sh -c`) or an argv (run as is).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Command {
    /// A shell line.
    Shell(String),
    /// An argv: the program, then its arguments.
    Argv(Vec<String>),
}

impl Command {
    /// A shell line.
    pub fn shell(line: impl Into<String>) -> Self {
        Command::Shell(line.into())
    }

    /// An argv.
    pub fn argv<S: Into<String>>(args: impl IntoIterator<Item = S>) -> Self {
        Command::Argv(args.into_iter().map(Into::into).collect())
    }

    fn check(&self) -> Result<(), Error> {
        match self {
            Command::Shell(line) if line.is_empty() => {
                Err(invalid("command", "must not be an empty string"))
            }
            Command::Argv(args) if args.is_empty() => {
                Err(invalid("command", "must not be an empty list"))
            }
            Command::Argv(args) if args[0].is_empty() => Err(invalid(
                "command",
                "the program (first item) must not be empty",
            )),
            _ => Ok(()),
        }
    }
}

/// One HTTP request of the Dory API, independent of the HTTP library.
///
/// ```
/// use dory_wire::{Command, Cursor, Method, Request};
///
/// let request = Request::output("c 1", "p/2", Cursor::new(5, 0), true)?;
/// assert_eq!(request.method, Method::Get);
/// assert_eq!(request.path, "/computers/c%201/processes/p%2F2/output");
/// assert_eq!(request.target(), "/computers/c%201/processes/p%2F2/output?stdout_offset=5&stderr_offset=0&follow=true");
/// assert_eq!(request.header("accept"), Some("application/x-ndjson"));
///
/// let start = Request::start("c1", &Command::shell("echo hi"), Some(30.0), Some("key-1"))?;
/// assert_eq!(start.header("Idempotency-Key"), Some("key-1"));
/// assert_eq!(start.body.as_deref(), Some(&br#"{"command":"echo hi","timeout_seconds":30}"#[..]));
///
/// let err = Request::start("", &Command::argv(Vec::<String>::new()), None, None).unwrap_err();
/// assert_eq!(err.code(), "invalid_argument");
/// # Ok::<(), dory_wire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The path, every id percent-encoded as one segment; no query.
    pub path: String,
    /// The query parameters, in order (values need no escaping: numbers
    /// and booleans).
    pub query: Vec<(&'static str, String)>,
    /// The headers this request sets (`Accept`, `Idempotency-Key`).
    pub headers: Vec<(&'static str, String)>,
    /// The JSON body, if any (`Content-Type: application/json`).
    pub body: Option<Vec<u8>>,
    /// How long to wait for the answer.
    pub wait: Wait,
    /// Whether sending it again cannot start anything twice: reads, and
    /// starts or execs with an idempotency key.
    pub idempotent: bool,
}

impl Request {
    /// The path and the query: what goes after the base URL.
    pub fn target(&self) -> String {
        let mut target = self.path.clone();
        for (i, (name, value)) in self.query.iter().enumerate() {
            target.push(if i == 0 { '?' } else { '&' });
            let _ = write!(target, "{name}={value}");
        }
        target
    }

    /// The value of a header this request sets (names compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `POST /computers/{id}/processes`: starts `command` in the background;
    /// answered by the process's identity. With an idempotency key, sending
    /// it again answers the same process's identity instead of starting
    /// another.
    pub fn start(
        computer_id: &str,
        command: &Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<&str>,
    ) -> Result<Request, Error> {
        let path = format!("{}/processes", computer(computer_id)?);
        post(
            path,
            JSON,
            command,
            timeout_seconds,
            idempotency_key,
            Wait::Default,
        )
    }

    /// `POST /computers/{id}/exec`: runs `command`; `stream` asks for its
    /// frames (NDJSON), else the answer is the result when it exits (JSON,
    /// each stream cut at the service's limit).
    pub fn exec(
        computer_id: &str,
        command: &Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<&str>,
        stream: bool,
    ) -> Result<Request, Error> {
        let path = format!("{}/exec", computer(computer_id)?);
        let (accept, wait) = if stream {
            (NDJSON, Wait::Stream)
        } else {
            (JSON, Wait::Unbounded)
        };
        post(
            path,
            accept,
            command,
            timeout_seconds,
            idempotency_key,
            wait,
        )
    }

    /// `GET /computers/{id}/processes/{proc_id}`: the process's identity.
    pub fn get_process(computer_id: &str, proc_id: &str) -> Result<Request, Error> {
        Ok(get(
            process(computer_id, proc_id)?,
            JSON,
            Vec::new(),
            Wait::Default,
        ))
    }

    /// `POST /computers/{id}/processes/{proc_id}/kill`; answered by the
    /// identity after. Killing twice is harmless, so it is idempotent.
    pub fn kill(computer_id: &str, proc_id: &str) -> Result<Request, Error> {
        Ok(Request {
            method: Method::Post,
            path: format!("{}/kill", process(computer_id, proc_id)?),
            query: Vec::new(),
            headers: vec![("Accept", JSON.to_owned())],
            body: None,
            wait: Wait::Default,
            idempotent: true,
        })
    }

    /// `GET /computers/{id}/processes/{proc_id}/output` from `cursor`:
    /// the retained output, followed until exit when `follow`.
    pub fn output(
        computer_id: &str,
        proc_id: &str,
        cursor: Cursor,
        follow: bool,
    ) -> Result<Request, Error> {
        let query = vec![
            ("stdout_offset", cursor.stdout.to_string()),
            ("stderr_offset", cursor.stderr.to_string()),
            ("follow", follow.to_string()),
        ];
        Ok(get(
            format!("{}/output", process(computer_id, proc_id)?),
            NDJSON,
            query,
            Wait::Stream,
        ))
    }

    /// `GET /computers/{id}/setup/logs` from `offset` (one merged stream).
    pub fn setup_logs(computer_id: &str, offset: u64, follow: bool) -> Result<Request, Error> {
        let query = vec![
            ("offset", offset.to_string()),
            ("follow", follow.to_string()),
        ];
        Ok(get(
            format!("{}/setup/logs", computer(computer_id)?),
            NDJSON,
            query,
            Wait::Stream,
        ))
    }
}

fn get(path: String, accept: &str, query: Vec<(&'static str, String)>, wait: Wait) -> Request {
    Request {
        method: Method::Get,
        path,
        query,
        headers: vec![("Accept", accept.to_owned())],
        body: None,
        wait,
        idempotent: true,
    }
}

#[derive(Serialize)]
struct StartBody<'a> {
    command: &'a Command,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_seconds: Option<serde_json::Number>,
}

/// Whole seconds as a JSON integer (`30`, as every client sent them), others
/// as a float.
fn seconds(t: f64) -> Option<serde_json::Number> {
    if t.fract() == 0.0 && t <= 9_007_199_254_740_992.0 {
        Some(serde_json::Number::from(t as u64))
    } else {
        serde_json::Number::from_f64(t)
    }
}

fn post(
    path: String,
    accept: &str,
    command: &Command,
    timeout_seconds: Option<f64>,
    idempotency_key: Option<&str>,
    wait: Wait,
) -> Result<Request, Error> {
    command.check()?;
    if let Some(t) = timeout_seconds {
        if !(t.is_finite() && t > 0.0) {
            return Err(invalid(
                "timeout_seconds",
                &format!("must be a positive number of seconds, not {t}"),
            ));
        }
    }
    let mut headers = vec![("Accept", accept.to_owned())];
    if let Some(key) = idempotency_key {
        check_header_value("idempotency_key", key)?;
        headers.push(("Idempotency-Key", key.to_owned()));
    }
    let body = serde_json::to_vec(&StartBody {
        command,
        timeout_seconds: timeout_seconds.and_then(seconds),
    })
    .map_err(|e| invalid("command", &e.to_string()))?;
    Ok(Request {
        method: Method::Post,
        path,
        query: Vec::new(),
        headers,
        body: Some(body),
        wait,
        idempotent: idempotency_key.is_some(),
    })
}

fn computer(computer_id: &str) -> Result<String, Error> {
    Ok(format!(
        "/computers/{}",
        segment("computer_id", computer_id)?
    ))
}

fn process(computer_id: &str, proc_id: &str) -> Result<String, Error> {
    Ok(format!(
        "{}/processes/{}",
        computer(computer_id)?,
        segment("proc_id", proc_id)?
    ))
}

/// `value` percent-encoded as one path segment (RFC 3986 unreserved kept).
fn segment(name: &str, value: &str) -> Result<String, Error> {
    if value.is_empty() {
        return Err(invalid(name, "must not be empty"));
    }
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    Ok(out)
}

/// A header value: 1–255 printable ASCII characters (visible characters
/// and the space), not beginning or ending with a space (HTTP strips it, so
/// the service would see another key).
fn check_header_value(name: &str, value: &str) -> Result<(), Error> {
    if value.is_empty() {
        return Err(invalid(name, "must not be empty"));
    }
    if value.len() > 255 {
        return Err(invalid(name, "must be at most 255 bytes"));
    }
    if !value.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
        return Err(invalid(
            name,
            "must be printable ASCII (it is sent as a header value)",
        ));
    }
    if value.starts_with(' ') || value.ends_with(' ') {
        return Err(invalid(
            name,
            "must not begin or end with a space (HTTP strips it)",
        ));
    }
    Ok(())
}

/// The environment variable the clients read the base URL from when none
/// is given.
pub const BASE_URL_ENV: &str = "DORY_URL";

/// The base URL of the API as every client takes it: `given` (the
/// argument, else the clients' [`BASE_URL_ENV`]) must be an absolute
/// `http://` or `https://` URL with a host, without spaces, a query or a
/// fragment; a trailing `/` is dropped (request targets begin with `/`).
/// Otherwise `invalid_argument` naming `base_url`, in every language alike.
///
/// ```
/// use dory_wire::base_url;
///
/// assert_eq!(base_url(Some("https://api.example.com/v1/")).unwrap(), "https://api.example.com/v1");
/// assert_eq!(base_url(Some("HTTP://127.0.0.1:8080")).unwrap(), "HTTP://127.0.0.1:8080");
/// assert_eq!(base_url(Some("localhost:8080")).unwrap_err().code(), "invalid_argument");
/// assert_eq!(base_url(None).unwrap_err().code(), "invalid_argument");
/// ```
pub fn base_url(given: Option<&str>) -> Result<String, Error> {
    let url = match given {
        None | Some("") => {
            return Err(invalid(
                "base_url",
                &format!("no base URL: pass one or set the {BASE_URL_ENV} environment variable"),
            ))
        }
        Some(url) => url,
    };
    let refuse = |why: &str| invalid("base_url", &format!("{url:?} {why}"));
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err(refuse("is not an http:// or https:// URL"));
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse("has a space or a control character"));
    }
    if url.contains(['?', '#']) {
        return Err(refuse(
            "has a query or a fragment (give the base of the API)",
        ));
    }
    // The authority: [userinfo@]host[:port], the host an IPv6 address in [].
    let authority = rest.split('/').next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let (name, port) = if host.starts_with('[') {
        let Some(end) = host.find(']') else {
            return Err(refuse("has an unclosed IPv6 address"));
        };
        match &host[end + 1..] {
            "" => (&host[..=end], None),
            after => match after.strip_prefix(':') {
                Some(port) => (&host[..=end], Some(port)),
                None => return Err(refuse("has text after its IPv6 address")),
            },
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    if name.is_empty() || name == "[]" {
        return Err(refuse("has no host"));
    }
    // An empty port is the scheme's default, as URL parsers read it.
    if let Some(port) = port.filter(|p| !p.is_empty()) {
        if !port.bytes().all(|b| b.is_ascii_digit()) || port.parse::<u16>().is_err() {
            return Err(refuse("has a port that is not a number from 0 to 65535"));
        }
    }
    Ok(url.trim_end_matches('/').to_owned())
}

pub(crate) fn invalid(name: &str, reason: &str) -> Error {
    Error::InvalidArgument {
        argument: name.to_owned(),
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base_urls_the_clients_take_and_refuse() {
        for ok in [
            "http://127.0.0.1:8080",
            "https://api.example.com/v1/",
            "HTTPS://example.com",
            "http://[::1]:9",
            "http://[::1]",
            "http://user:pw@host:80/base",
            "http://host:/",
        ] {
            assert!(base_url(Some(ok)).is_ok(), "{ok}");
        }
        assert_eq!(base_url(Some("http://h/a//")).unwrap(), "http://h/a");
        for bad in [
            "localhost:8080",
            "ftp://x",
            "http://",
            "http:///path",
            "http://:80",
            "http://h:port",
            "http://h:70000",
            "http://[::1",
            "http://[::1]x",
            "http://h/?q=1",
            "http://h/#f",
            "http://exa mple.com",
            " http://h",
            "",
        ] {
            let err = base_url(Some(bad)).unwrap_err();
            assert_eq!(err.code(), "invalid_argument", "{bad}");
            assert!(
                matches!(err, Error::InvalidArgument { ref argument, .. } if argument == "base_url")
            );
        }
        assert!(base_url(None)
            .unwrap_err()
            .to_string()
            .contains(BASE_URL_ENV));
    }

    use super::*;

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(segment("x", "a b/c%é").unwrap(), "a%20b%2Fc%25%C3%A9");
        assert_eq!(segment("x", "A-z_0.~").unwrap(), "A-z_0.~");
    }

    #[test]
    fn bad_arguments_name_themselves() {
        let cmd = Command::shell("true");
        let code = |r: Result<Request, Error>| match r.unwrap_err() {
            Error::InvalidArgument { argument, .. } => argument,
            other => panic!("{other}"),
        };
        assert_eq!(code(Request::start("", &cmd, None, None)), "computer_id");
        assert_eq!(code(Request::get_process("c", "")), "proc_id");
        assert_eq!(
            code(Request::start("c", &Command::shell(""), None, None)),
            "command"
        );
        assert_eq!(
            code(Request::start("c", &cmd, Some(0.0), None)),
            "timeout_seconds"
        );
        assert_eq!(
            code(Request::start("c", &cmd, Some(f64::NAN), None)),
            "timeout_seconds"
        );
        assert_eq!(
            code(Request::start("c", &cmd, None, Some("a\nb"))),
            "idempotency_key"
        );
        assert_eq!(
            code(Request::exec("c", &cmd, None, Some(""), true)),
            "idempotency_key"
        );
    }

    #[test]
    fn a_key_is_printable_ascii_without_outer_spaces() {
        let start = |key: &str| Request::start("c", &Command::shell("x"), None, Some(key));
        assert!(start("tool call 17").is_ok(), "an inner space is printable");
        assert!(start(&"k".repeat(255)).is_ok());
        for (key, reason) in [
            ("", "must not be empty"),
            (" k", "must not begin or end with a space (HTTP strips it)"),
            ("k ", "must not begin or end with a space (HTTP strips it)"),
            (
                "a\tb",
                "must be printable ASCII (it is sent as a header value)",
            ),
            (
                "é",
                "must be printable ASCII (it is sent as a header value)",
            ),
        ] {
            match start(key).unwrap_err() {
                Error::InvalidArgument {
                    argument,
                    reason: got,
                } => {
                    assert_eq!(
                        (argument.as_str(), got.as_str()),
                        ("idempotency_key", reason)
                    );
                }
                other => panic!("{other}"),
            }
        }
        assert!(start(&"k".repeat(256)).is_err());
    }

    #[test]
    fn only_keyed_posts_are_idempotent() {
        let cmd = Command::argv(["echo", "hi"]);
        assert!(
            !Request::exec("c", &cmd, None, None, true)
                .unwrap()
                .idempotent
        );
        let keyed = Request::exec("c", &cmd, None, Some("k"), true).unwrap();
        assert!(keyed.idempotent);
        assert_eq!(
            keyed.body.as_deref(),
            Some(&br#"{"command":["echo","hi"]}"#[..])
        );
        assert_eq!(keyed.wait, Wait::Stream);
        let half = Request::start("c", &cmd, Some(0.5), None).unwrap();
        assert_eq!(
            half.body.as_deref(),
            Some(&br#"{"command":["echo","hi"],"timeout_seconds":0.5}"#[..])
        );
        assert!(Request::setup_logs("c", 3, false).unwrap().idempotent);
        assert_eq!(
            Request::setup_logs("c", 3, false).unwrap().target(),
            "/computers/c/setup/logs?offset=3&follow=false"
        );
    }
}
