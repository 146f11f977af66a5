//! What a document answer means: the identity of a start, a get or a kill;
//! the result (or a keyed replay's identity) of a synchronous exec. Decided
//! here once, so that the same wrong answer is the same error in every
//! client.

use crate::{Error, Event, Identity};

/// The `frame_type` of the [`Error::UnexpectedFrame`] of an answer that held
/// no document at all.
const NO_DOCUMENT: &str = "none";

/// The document of a one-answer call's events: the last event, which a
/// document answer's reader ends with ([`End::Document`](crate::End::Document)).
fn document(events: &[Event]) -> Option<&Event> {
    events.last()
}

/// The error of an answer that is not the `expected` document: an
/// [`Error::UnexpectedFrame`] at line 0 whose `frame_type` is the event's
/// record name (`"exec_result"`, `"identity"`, …), or `"none"` when the
/// answer held no document.
fn not_a(expected: &str, got: Option<&Event>) -> Error {
    let (frame_type, what) = match got {
        Some(event) => {
            let name = event.record().0.name;
            (name, name.to_owned())
        }
        None => (NO_DOCUMENT, "no document".to_owned()),
    };
    Error::UnexpectedFrame {
        line: 0,
        frame_type: frame_type.to_owned(),
        reason: format!("expected {expected}, got {what}"),
    }
}

/// The process identity a start, a get or a kill was answered by: the
/// events of its document answer (a [`Follower::call`](crate::Follower::call)
/// or a [`Reader`](crate::Reader) of
/// [`Endpoint::Document`](crate::Endpoint::Document)) end with it.
///
/// Anything else is an [`Error::UnexpectedFrame`] at line 0: its
/// `frame_type` is the document's record name (`"exec_result"` for an exec
/// result), or `"none"` for an answer without a document; its reason says
/// what was expected and what came (`"expected a process identity, got
/// exec_result"`, `"… got no document"`).
///
/// ```
/// use dory_wire::{identity_answer, Event, ExecResult, Identity, ProcessStatus};
///
/// let identity = Identity::new("p1", ProcessStatus::Running);
/// let events = [Event::Identity(identity.clone())];
/// assert_eq!(identity_answer(&events)?, &identity);
///
/// let result = [Event::ExecResult(ExecResult::new("p1", b"hi".to_vec(), Vec::new(), Some(0)))];
/// let err = identity_answer(&result).unwrap_err();
/// assert_eq!(err.code(), "unexpected_frame");
/// assert!(matches!(err, dory_wire::Error::UnexpectedFrame { ref frame_type, .. } if frame_type == "exec_result"));
/// # Ok::<(), dory_wire::Error>(())
/// ```
pub fn identity_answer(events: &[Event]) -> Result<&Identity, Error> {
    match document(events) {
        Some(Event::Identity(identity)) => Ok(identity),
        other => Err(not_a("a process identity", other)),
    }
}

/// A synchronous exec's answer, from the events of its document answer:
/// its [`Event::ExecResult`], or, for an idempotency key already used (a
/// keyed replay), the [`Event::Identity`] of the process the key started.
/// The event returned is always one of these two.
///
/// Anything else is an [`Error::UnexpectedFrame`] as for
/// [`identity_answer`]: `frame_type` `"none"` and reason `"expected an exec
/// result, got no document"` for an answer without a document.
///
/// ```
/// use dory_wire::{exec_answer, Error, Event, ExecResult};
///
/// let result = Event::ExecResult(ExecResult::new("p1", b"hi\n".to_vec(), Vec::new(), Some(0)));
/// assert_eq!(exec_answer(std::slice::from_ref(&result))?, &result);
///
/// match exec_answer(&[]) {
///     Err(Error::UnexpectedFrame { frame_type, reason, .. }) => {
///         assert_eq!(frame_type, "none");
///         assert_eq!(reason, "expected an exec result, got no document");
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Error>(())
/// ```
pub fn exec_answer(events: &[Event]) -> Result<&Event, Error> {
    match document(events) {
        Some(event @ (Event::ExecResult(_) | Event::Identity(_))) => Ok(event),
        other => Err(not_a("an exec result", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ExecResult, ProcessStatus};

    fn fields(error: Error) -> (String, u64, String, String) {
        let code = error.code().to_owned();
        match error {
            Error::UnexpectedFrame {
                line,
                frame_type,
                reason,
            } => (code, line, frame_type, reason),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_start_answered_by_an_exec_result_is_unexpected() {
        let result = Event::ExecResult(ExecResult::new("p", Vec::new(), Vec::new(), Some(0)));
        assert_eq!(
            fields(identity_answer(&[result]).unwrap_err()),
            (
                "unexpected_frame".to_owned(),
                0,
                "exec_result".to_owned(),
                "expected a process identity, got exec_result".to_owned()
            )
        );
    }

    #[test]
    fn an_exec_answered_by_no_document_is_unexpected() {
        assert_eq!(
            fields(exec_answer(&[]).unwrap_err()),
            (
                "unexpected_frame".to_owned(),
                0,
                "none".to_owned(),
                "expected an exec result, got no document".to_owned()
            )
        );
        assert_eq!(
            fields(identity_answer(&[]).unwrap_err()).3,
            "expected a process identity, got no document"
        );
    }

    #[test]
    fn an_exec_takes_a_result_or_a_replay() {
        let identity = Event::Identity(Identity::new("p", ProcessStatus::Exited));
        assert_eq!(exec_answer(std::slice::from_ref(&identity)), Ok(&identity));
        let heartbeat = [Event::Heartbeat];
        assert_eq!(fields(exec_answer(&heartbeat).unwrap_err()).2, "heartbeat");
    }
}
