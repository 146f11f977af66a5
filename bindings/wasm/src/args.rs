//! The arguments that cross as JavaScript numbers, strings and tags, as the
//! core's types: what the follower, the `Request` namespace, the run and
//! the run bounder share. The JavaScript layer has checked the types; a
//! value with no conversion is the core's `invalid_argument` error, naming
//! the JavaScript argument (as `bindings/python/src/args.rs` does for
//! Python).

use std::time::Duration;

use dory_wire::preview::View;
use dory_wire::{Command, Error, Stream};

use crate::json;

/// The core's `invalid_argument` error for a JavaScript argument.
pub(crate) fn invalid(name: &str, reason: String) -> Error {
    Error::InvalidArgument {
        argument: name.to_owned(),
        reason,
    }
}

/// The error-object JSON of an `invalid_argument` error (what the JavaScript
/// layer turns into an `InvalidArgument`).
pub(crate) fn invalid_json(name: &str, reason: String) -> String {
    json::write_error(&invalid(name, reason))
}

/// A JavaScript number as a byte offset: a safe integer `>= 0`.
pub(crate) fn offset_arg(name: &str, value: f64) -> Result<u64, String> {
    if (0.0..=json::MAX_SAFE_INTEGER as f64).contains(&value) && value.fract() == 0.0 {
        Ok(value as u64)
    } else {
        Err(invalid_json(
            name,
            format!(
                "must be an integer from 0 to {} (a byte offset), not {value}",
                json::MAX_SAFE_INTEGER
            ),
        ))
    }
}

/// A number of milliseconds as a [`Duration`]: finite and `>= 0`.
pub(crate) fn millis(name: &str, ms: f64) -> Result<Duration, Error> {
    if ms.is_nan() || ms < 0.0 {
        return Err(invalid(
            name,
            format!("must be a number of milliseconds >= 0, not {ms}"),
        ));
    }
    Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| {
        invalid(
            name,
            format!("must be a finite number of milliseconds >= 0, not {ms}"),
        )
    })
}

/// The command of a start, an exec or a run, from its JSON text: a string
/// is a shell line, an array of strings an argv (the JavaScript layer has
/// checked the types; anything else is `invalid_argument`).
pub(crate) fn command(command_json: &str) -> Result<Command, Error> {
    let bad = || {
        invalid(
            "command",
            "must be a string (a shell line) or an array of strings (an argv)".to_owned(),
        )
    };
    match serde_json::from_str::<serde_json::Value>(command_json).map_err(|_| bad())? {
        serde_json::Value::String(line) => Ok(Command::shell(line)),
        serde_json::Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                serde_json::Value::String(s) => Ok(s),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Command::argv),
        _ => Err(bad()),
    }
}

/// The process's deadline in seconds for `timeout_ms`: exactly `ms / 1000`
/// (the core writes whole seconds as an integer, others as a decimal, as
/// in Rust and Python; the HTTP client rounds up to whole seconds before).
/// A value that is not a positive, finite number is the core's
/// `invalid_argument`, naming `timeoutMs`.
pub(crate) fn timeout_seconds(timeout_ms: Option<f64>) -> Result<Option<f64>, Error> {
    let Some(ms) = timeout_ms else {
        return Ok(None);
    };
    if !(ms.is_finite() && ms > 0.0) {
        return Err(invalid(
            "timeoutMs",
            format!("must be a positive number of milliseconds, not {ms}"),
        ));
    }
    Ok(Some(ms / 1000.0))
}

/// The 16 random bytes of a run's fresh key, or `invalid_argument` naming
/// `random`.
pub(crate) fn random_bytes(bytes: &[u8]) -> Result<[u8; 16], Error> {
    <[u8; 16]>::try_from(bytes).map_err(|_| {
        invalid(
            "random",
            format!("must be 16 random bytes, not {}", bytes.len()),
        )
    })
}

/// An error with the argument named as JavaScript names it (the core's rule,
/// [`dory_wire::names::js_argument`]); [`crate::json::write_error`] applies
/// it to every error it writes.
pub(crate) fn js_argument(error: Error) -> Error {
    match error {
        Error::InvalidArgument { argument, reason } => Error::InvalidArgument {
            argument: dory_wire::names::js_argument(&argument),
            reason,
        },
        other => other,
    }
}

/// A stream's tag: 0 stdout, else stderr (the JavaScript layer has checked
/// the name).
pub(crate) fn stream(tag: u8) -> Stream {
    if tag == 0 {
        Stream::Stdout
    } else {
        Stream::Stderr
    }
}

/// A view's tag: 0 stdout, 1 stderr, else combined (the JavaScript layer
/// has checked the name).
pub(crate) fn view(tag: u8) -> View {
    match tag {
        0 => View::Stdout,
        1 => View::Stderr,
        _ => View::Combined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_convert_or_are_invalid_argument() {
        assert_eq!(offset_arg("offset", 5.0), Ok(5));
        assert!(offset_arg("offset", -1.0)
            .unwrap_err()
            .contains("\"offset\""));
        assert_eq!(millis("ms", 12.5).unwrap(), Duration::from_micros(12_500));
        assert_eq!(command("\"make\"").unwrap(), Command::shell("make"));
        assert_eq!(command("[\"a\",\"b\"]").unwrap(), Command::argv(["a", "b"]));
        for bad in ["1", "[1]", "null", "{"] {
            assert_eq!(
                command(bad).unwrap_err().code(),
                "invalid_argument",
                "{bad}"
            );
        }
        assert_eq!(timeout_seconds(Some(30_000.0)).unwrap(), Some(30.0));
        assert_eq!(timeout_seconds(None).unwrap(), None);
        assert!(random_bytes(&[0; 3]).is_err());
        assert_eq!((stream(1), view(2)), (Stream::Stderr, View::Combined));
    }
}
