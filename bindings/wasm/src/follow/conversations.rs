//! The conversations a [`WasmFollower`] is built for: the followed reads
//! (a process's output from a cursor or a resume state, the setup logs, an
//! exec stream) and the one-answer calls of [`Follower::call`] (a start, a
//! synchronous exec, a process's status, a kill). The core builds each
//! request and checks every value; the arguments cross as
//! [`crate::args`] converts them.

use dory_wire::{Cursor, Follower, Request, ResumeState};
use wasm_bindgen::prelude::*;

use super::{WasmFollowOptions, WasmFollower};
use crate::args::{command, offset_arg};
use crate::json;

impl WasmFollower {
    /// The follower of a conversation, or the error-object JSON of its error.
    fn built(follower: Result<Follower, dory_wire::Error>) -> Result<WasmFollower, String> {
        follower
            .map(WasmFollower::wrap)
            .map_err(|e| json::write_error(&e))
    }

    fn call(
        request: Result<Request, dory_wire::Error>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        Self::built(request.and_then(|request| Follower::call(request, options.into_options())))
    }
}

#[wasm_bindgen]
impl WasmFollower {
    /// Follows the output of process `proc_id` from the cursor. Throws an
    /// error-object JSON string.
    pub fn process_output(
        computer_id: &str,
        proc_id: &str,
        cursor_stdout: f64,
        cursor_stderr: f64,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let cursor = Cursor::new(
            offset_arg("cursor.stdout", cursor_stdout)?,
            offset_arg("cursor.stderr", cursor_stderr)?,
        );
        Self::built(Follower::process_output(
            computer_id,
            proc_id,
            cursor,
            options.into_options(),
        ))
    }

    /// Follows a process's output from a resume state in its JSON form.
    /// Throws an error-object JSON string.
    pub fn resume(
        computer_id: &str,
        state_json: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let state = ResumeState::from_json(state_json).map_err(|e| json::write_error(&e))?;
        Self::built(Follower::resume(
            computer_id,
            &state,
            options.into_options(),
        ))
    }

    /// Follows the setup logs from `offset`. Throws an error-object JSON string.
    pub fn setup_logs(
        computer_id: &str,
        offset: f64,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let offset = offset_arg("offset", offset)?;
        Self::built(Follower::setup_logs(
            computer_id,
            offset,
            options.into_options(),
        ))
    }

    /// Runs a command as an exec stream, followed to its exit. Throws an
    /// error-object JSON string.
    pub fn exec_stream(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json).map_err(|e| json::write_error(&e))?;
        Self::built(Follower::exec_stream(
            computer_id,
            &command,
            timeout_seconds,
            idempotency_key.as_deref(),
            options.into_options(),
        ))
    }

    /// A one-answer call of [`Request::start`] (see [`Follower::call`]).
    /// Throws an error-object JSON string.
    pub fn call_start(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json).map_err(|e| json::write_error(&e))?;
        let key = idempotency_key.as_deref();
        let request = Request::start(computer_id, &command, timeout_seconds, key);
        Self::call(request, options)
    }

    /// A one-answer call of a synchronous [`Request::exec`]. Throws an
    /// error-object JSON string.
    pub fn call_exec(
        computer_id: &str,
        command_json: &str,
        timeout_seconds: Option<f64>,
        idempotency_key: Option<String>,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        let command = command(command_json).map_err(|e| json::write_error(&e))?;
        let key = idempotency_key.as_deref();
        let request = Request::exec(computer_id, &command, timeout_seconds, key, false);
        Self::call(request, options)
    }

    /// A one-answer call of [`Request::get_process`]. Throws an
    /// error-object JSON string.
    pub fn call_get_process(
        computer_id: &str,
        proc_id: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        Self::call(Request::get_process(computer_id, proc_id), options)
    }

    /// A one-answer call of [`Request::kill`]. Throws an error-object JSON
    /// string.
    pub fn call_kill(
        computer_id: &str,
        proc_id: &str,
        options: WasmFollowOptions,
    ) -> Result<WasmFollower, String> {
        Self::call(Request::kill(computer_id, proc_id), options)
    }
}
