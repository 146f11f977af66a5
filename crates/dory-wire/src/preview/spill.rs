//! The caller's side of the spill handshake: the file name a spill writer
//! saves the full output under, the outcome it reports, and the errors that
//! outcome can carry. The core's side (the request to spill and the
//! rendering once answered) is [`Bounded`](super::Bounded) and
//! [`PendingSpill`](super::PendingSpill).

use std::fmt;

/// The longest spill id a spill file is named after ([`spill_file_name`]).
pub const MAX_SPILL_ID_LEN: usize = 128;

/// The file name a spill writer saves `spill_id`'s output under:
/// `<spill_id><suffix>`, when both are plain file-name parts — the id 1 to
/// [`MAX_SPILL_ID_LEN`] of `A-Z a-z 0-9 . _ -` and not `.` or `..`, the
/// suffix of the same characters. One rule for every client's spill
/// directory (Rust `SpillDirectory`, Python `SpillDirectory`, JS
/// `SpillDirectory`): an id the bounder made always passes; an id a caller
/// chose that could name another directory never does.
///
/// ```
/// use dory_wire::preview::spill_file_name;
///
/// assert_eq!(spill_file_name("run-0123-combined", ".txt")?, "run-0123-combined.txt");
/// for bad in ["", ".", "..", "a/b", "../etc", "a b", "é"] {
///     let err = spill_file_name(bad, ".txt").unwrap_err();
///     assert_eq!(err.code(), "invalid_argument");
/// }
/// assert!(spill_file_name("ok", "/x").is_err());
/// # Ok::<(), dory_wire::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) (argument
/// `spill_id`, or `suffix`) otherwise.
pub fn spill_file_name(spill_id: &str, suffix: &str) -> Result<String, crate::Error> {
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if spill_id.is_empty()
        || spill_id.len() > MAX_SPILL_ID_LEN
        || !plain(spill_id)
        || spill_id == "."
        || spill_id == ".."
    {
        return Err(crate::Error::InvalidArgument {
            argument: "spill_id".to_owned(),
            reason: format!(
                "{spill_id:?} is not a plain file name (1 to {MAX_SPILL_ID_LEN} of A-Z, a-z, 0-9, '.', '_', '-'; not . or ..)"
            ),
        });
    }
    if !plain(suffix) {
        return Err(crate::Error::InvalidArgument {
            argument: "suffix".to_owned(),
            reason: format!(
                "{suffix:?} is not part of a plain file name (A-Z, a-z, 0-9, '.', '_', '-')"
            ),
        });
    }
    Ok(format!("{spill_id}{suffix}"))
}

/// What the caller did with the full output it was asked to spill.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SpillOutcome {
    /// Saved at `path`: the notice names it and how to read the hidden lines.
    Saved {
        /// Where the full output now is (one line, no control characters).
        path: String,
    },
    /// Saving failed: no path in the notice, and `reason` (or, when empty,
    /// "spill writer failed") becomes
    /// [`Preview::spill_error`](super::Preview::spill_error).
    Failed {
        /// What went wrong, in the caller's words.
        reason: String,
    },
    /// Nothing was saved (no writer): no path in the notice, no error.
    NotSaved,
}

impl From<SpillError> for SpillOutcome {
    /// A failure the bindings detect around a spill writer, as an outcome
    /// whose reason is the error's text.
    fn from(error: SpillError) -> Self {
        SpillOutcome::Failed {
            reason: error.to_string(),
        }
    }
}

/// Why a preview's notice names no saved file although a save was attempted:
/// the text of [`Preview::spill_error`](super::Preview::spill_error). One
/// wording for every language: the Python and JavaScript packages build
/// these values around their spill writers and take the text from here.
///
/// ```
/// use dory_wire::preview::SpillError;
///
/// let raised = SpillError::WriterFailed { error: "OSError: disk full".into() };
/// assert_eq!(raised.to_string(), "spill writer failed: OSError: disk full");
/// let wrong = SpillError::NotAPath { returned: "int".into() };
/// assert_eq!(wrong.to_string(), "spill writer returned int instead of a path string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpillError {
    /// The writer raised, threw or rejected; `error` describes it
    /// (`Type: message`). Empty: "spill writer failed".
    WriterFailed {
        /// The error, as the language names it.
        error: String,
    },
    /// The writer returned something that is neither a path string nor
    /// "nothing saved" (`None`, `null`, `undefined`).
    NotAPath {
        /// What it returned (a type name).
        returned: String,
    },
    /// A synchronous call got a writer that returned an awaitable.
    Asynchronous {
        /// The asynchronous call to use instead (`abound()`, `boundAsync()`…).
        use_instead: String,
    },
    /// The writer returned an empty path.
    EmptyPath,
    /// The path holds a line break or control character.
    PathBreaksLine,
    /// The hint holds a line break or control character.
    HintBreaksLine,
    /// No preview naming the path fits in `max_bytes`.
    PathTooLong {
        /// The byte limit.
        max_bytes: usize,
    },
}

impl fmt::Display for SpillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpillError::WriterFailed { error } if error.is_empty() => {
                f.write_str("spill writer failed")
            }
            SpillError::WriterFailed { error } => write!(f, "spill writer failed: {error}"),
            SpillError::NotAPath { returned } => {
                write!(
                    f,
                    "spill writer returned {returned} instead of a path string"
                )
            }
            SpillError::Asynchronous { use_instead } => {
                write!(f, "spill writer is asynchronous: use {use_instead}")
            }
            SpillError::EmptyPath => f.write_str("spill path is empty"),
            SpillError::PathBreaksLine => {
                f.write_str("spill path contains a line break or control character")
            }
            SpillError::HintBreaksLine => {
                f.write_str("spill hint contains a line break or control character")
            }
            SpillError::PathTooLong { max_bytes } => write!(
                f,
                "spill path too long: no preview naming it fits in max_bytes={max_bytes}"
            ),
        }
    }
}
