//! The request builders behind the JavaScript `Request` namespace: the
//! core's [`Request`] constructors, their arguments converted (see
//! [`crate::args`]) and each request crossing as the JSON of
//! [`request_json`], which the JavaScript layer freezes into a plain
//! object. Every check of a value is the core's.

use dory_wire::{Cursor, Error, Request};
use wasm_bindgen::prelude::*;

use crate::args::{command, offset_arg};
use crate::json;
use crate::wire_json::request_json;

/// A built request, or the error-object JSON of the builder's error.
pub(crate) fn built(request: Result<Request, Error>) -> Result<String, String> {
    request
        .map(|r| request_json(&r))
        .map_err(|e| json::write_error(&e))
}

/// The API's base URL as every client takes it (the core's
/// [`dory_wire::base_url`]: absolute `http(s)://` with a host, no trailing
/// `/`). Throws an error-object JSON string (`invalid_argument`, argument
/// `baseUrl`).
#[wasm_bindgen]
pub fn request_base_url(url: Option<String>) -> Result<String, String> {
    dory_wire::base_url(url.as_deref()).map_err(|e| json::write_error(&e))
}

/// `POST /computers/{id}/processes` (see [`Request::start`]). Throws an
/// error-object JSON string.
#[wasm_bindgen]
pub fn request_start(
    computer_id: &str,
    command_json: &str,
    timeout_seconds: Option<f64>,
    idempotency_key: Option<String>,
) -> Result<String, String> {
    let command = command(command_json).map_err(|e| json::write_error(&e))?;
    built(Request::start(
        computer_id,
        &command,
        timeout_seconds,
        idempotency_key.as_deref(),
    ))
}

/// `POST /computers/{id}/exec` (see [`Request::exec`]). Throws an
/// error-object JSON string.
#[wasm_bindgen]
pub fn request_exec(
    computer_id: &str,
    command_json: &str,
    timeout_seconds: Option<f64>,
    idempotency_key: Option<String>,
    stream: bool,
) -> Result<String, String> {
    let command = command(command_json).map_err(|e| json::write_error(&e))?;
    built(Request::exec(
        computer_id,
        &command,
        timeout_seconds,
        idempotency_key.as_deref(),
        stream,
    ))
}

/// `GET /computers/{id}/processes/{proc_id}`. Throws an error-object JSON string.
#[wasm_bindgen]
pub fn request_get_process(computer_id: &str, proc_id: &str) -> Result<String, String> {
    built(Request::get_process(computer_id, proc_id))
}

/// `POST /computers/{id}/processes/{proc_id}/kill`. Throws an error-object JSON string.
#[wasm_bindgen]
pub fn request_kill(computer_id: &str, proc_id: &str) -> Result<String, String> {
    built(Request::kill(computer_id, proc_id))
}

/// `GET /computers/{id}/processes/{proc_id}/output` from the cursor. Throws
/// an error-object JSON string.
#[wasm_bindgen]
pub fn request_output(
    computer_id: &str,
    proc_id: &str,
    cursor_stdout: f64,
    cursor_stderr: f64,
    follow: bool,
) -> Result<String, String> {
    let cursor = Cursor::new(
        offset_arg("cursor.stdout", cursor_stdout)?,
        offset_arg("cursor.stderr", cursor_stderr)?,
    );
    built(Request::output(computer_id, proc_id, cursor, follow))
}

/// `GET /computers/{id}/setup/logs` from `offset`. Throws an error-object
/// JSON string.
#[wasm_bindgen]
pub fn request_setup_logs(computer_id: &str, offset: f64, follow: bool) -> Result<String, String> {
    let offset = offset_arg("offset", offset)?;
    built(Request::setup_logs(computer_id, offset, follow))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn requests_cross_as_json_with_the_cores_values() {
        let r = value(&request_output("c 1", "p", 5.0, 0.0, true).unwrap());
        assert_eq!(r["method"], "GET");
        assert_eq!(r["path"], "/computers/c%201/processes/p/output");
        assert_eq!(
            r["target"],
            "/computers/c%201/processes/p/output?stdout_offset=5&stderr_offset=0&follow=true"
        );
        assert_eq!(
            r["query"],
            serde_json::json!([
                ["stdout_offset", "5"],
                ["stderr_offset", "0"],
                ["follow", "true"]
            ])
        );
        assert_eq!(
            r["headers"],
            serde_json::json!({"Accept": "application/x-ndjson"})
        );
        assert_eq!(
            (&r["body"], &r["wait"], &r["idempotent"]),
            (
                &serde_json::Value::Null,
                &serde_json::json!("stream"),
                &serde_json::json!(true)
            )
        );
        let s =
            value(&request_start("c", "[\"echo\",\"hi\"]", Some(30.0), Some("k".into())).unwrap());
        // The body is the core's JSON text (compared as JSON numbers: how a
        // float is written is serde_json's choice).
        let body = value(s["body"].as_str().unwrap());
        assert_eq!(body["command"], serde_json::json!(["echo", "hi"]));
        assert_eq!(body["timeout_seconds"].as_f64(), Some(30.0));
        assert_eq!(s["headers"]["Idempotency-Key"], "k");
        let e = value(&request_start("", "\"true\"", None, None).unwrap_err());
        assert_eq!(
            (&e["code"], &e["argument"]),
            (
                &serde_json::json!("invalid_argument"),
                // Named as JavaScript names it (`dory_wire::names::js_argument`).
                &serde_json::json!("computerId")
            )
        );
        let e = value(&request_setup_logs("c", -1.0, true).unwrap_err());
        assert_eq!(e["argument"], "offset");
        let e = value(&request_exec("c", "[1]", None, None, false).unwrap_err());
        assert_eq!(e["argument"], "command");
    }
}
