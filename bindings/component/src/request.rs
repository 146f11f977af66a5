//! The `request` interface: the builders of [`dory_wire::Request`]. Every
//! check, path, query and header is the core's; this module converts the
//! arguments in and the request out.
#![forbid(unsafe_code)]

use dory_wire::{Command, Method, Request, Wait};

use crate::bindings::exports::dory::wire::request as wit;
use crate::bindings::exports::dory::wire::types::Error as WitError;
use crate::convert;
use crate::Component;

/// A WIT command as the core's.
pub(crate) fn command(command: wit::Command) -> Command {
    match command {
        wit::Command::Shell(line) => Command::Shell(line),
        wit::Command::Argv(args) => Command::Argv(args),
    }
}

/// A core request as the WIT record (with its `target`).
pub(crate) fn request(request: Request) -> wit::Request {
    let target = request.target();
    wit::Request {
        method: match request.method {
            Method::Get => wit::Method::Get,
            Method::Post => wit::Method::Post,
        },
        path: request.path,
        query: pairs(request.query),
        headers: pairs(request.headers),
        body: request.body,
        wait: match request.wait {
            Wait::Default => wit::Wait::Default,
            Wait::Stream => wit::Wait::Stream,
            Wait::Unbounded => wit::Wait::Unbounded,
        },
        idempotent: request.idempotent,
        target,
    }
}

fn pairs(pairs: Vec<(&'static str, String)>) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
}

fn built(result: Result<Request, dory_wire::Error>) -> Result<wit::Request, WitError> {
    result.map(request).map_err(|e| convert::error(&e))
}

impl wit::Guest for Component {
    fn start(
        computer_id: String,
        command: wit::Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
    ) -> Result<wit::Request, WitError> {
        built(Request::start(
            &computer_id,
            &self::command(command),
            timeout_seconds,
            idempotency_key.as_deref(),
        ))
    }

    fn exec(
        computer_id: String,
        command: wit::Command,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        stream: bool,
    ) -> Result<wit::Request, WitError> {
        built(Request::exec(
            &computer_id,
            &self::command(command),
            timeout_seconds,
            idempotency_key.as_deref(),
            stream,
        ))
    }

    fn get_process(computer_id: String, proc_id: String) -> Result<wit::Request, WitError> {
        built(Request::get_process(&computer_id, &proc_id))
    }

    fn kill(computer_id: String, proc_id: String) -> Result<wit::Request, WitError> {
        built(Request::kill(&computer_id, &proc_id))
    }

    fn output(
        computer_id: String,
        proc_id: String,
        cursor: crate::bindings::exports::dory::wire::types::Cursor,
        follow: bool,
    ) -> Result<wit::Request, WitError> {
        built(Request::output(
            &computer_id,
            &proc_id,
            convert::core_cursor(cursor),
            follow,
        ))
    }

    fn setup_logs(
        computer_id: String,
        offset: u64,
        follow: bool,
    ) -> Result<wit::Request, WitError> {
        built(Request::setup_logs(&computer_id, offset, follow))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_carries_the_cores_target_headers_and_body() {
        let got = <Component as wit::Guest>::start(
            "c 1".into(),
            wit::Command::Shell("echo hi".into()),
            Some(30.0),
            Some("key-1".into()),
        )
        .unwrap();
        assert!(matches!(got.method, wit::Method::Post));
        assert_eq!(got.target, "/computers/c%201/processes");
        assert_eq!(
            got.headers,
            [
                ("Accept".to_owned(), "application/json".to_owned()),
                ("Idempotency-Key".to_owned(), "key-1".to_owned())
            ]
        );
        let core = Request::start("c 1", &Command::shell("echo hi"), Some(30.0), Some("key-1"));
        assert_eq!(got.body, core.unwrap().body);
        assert!(got
            .body
            .unwrap()
            .starts_with(br#"{"command":"echo hi","timeout_seconds":30"#));
        assert!(got.idempotent);
        let output = <Component as wit::Guest>::output(
            "c".into(),
            "p".into(),
            convert::cursor(dory_wire::Cursor::new(5, 0)),
            true,
        )
        .unwrap();
        assert_eq!(
            output.target,
            "/computers/c/processes/p/output?stdout_offset=5&stderr_offset=0&follow=true"
        );
        assert_eq!(output.query[2], ("follow".to_owned(), "true".to_owned()));
        assert!(matches!(output.wait, wit::Wait::Stream));
    }

    #[test]
    fn a_bad_argument_is_invalid_argument_with_its_name() {
        let err = <Component as wit::Guest>::exec(
            "c".into(),
            wit::Command::Argv(Vec::new()),
            None,
            None,
            true,
        )
        .unwrap_err();
        assert_eq!(err.code, "invalid_argument");
        assert_eq!(err.fields[0].name, "argument");
        assert!(
            matches!(&err.fields[0].value, crate::bindings::exports::dory::wire::types::FieldValue::Str(s) if s == "command")
        );
    }
}
