//! Frames: the core's events with the wire's field names.

use dory_wire::{wire_form, Cursor, Event, Stream};

/// The `type` of a [`Frame`]: the wire's frame types, plus `skipped` (a range
/// given up under the skip policy), `unknown` (a type no union knows),
/// `identity` and `exec_result` (a JSON document answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FrameType {
    /// `started`: an exec stream announced its process.
    Started,
    /// `stdout` output.
    Stdout,
    /// `stderr` output.
    Stderr,
    /// `heartbeat`.
    Heartbeat,
    /// `exit`: the output is complete.
    Exit,
    /// A range lost and skipped (gap policy `skip`): never silent.
    Skipped,
    /// A frame type no union knows (surfaced, not dropped).
    Unknown,
    /// A process identity document (a keyed replay).
    Identity,
    /// A synchronous exec's result document.
    ExecResult,
}

impl FrameType {
    /// The wire's name: `"started"`, `"stdout"`, … `"exec_result"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FrameType::Started => "started",
            FrameType::Stdout => "stdout",
            FrameType::Stderr => "stderr",
            FrameType::Heartbeat => "heartbeat",
            FrameType::Exit => "exit",
            FrameType::Skipped => "skipped",
            FrameType::Unknown => "unknown",
            FrameType::Identity => "identity",
            FrameType::ExecResult => "exec_result",
        }
    }
}

/// How a frame's `data` carries its bytes, as the wire does: the core's
/// [`dory_wire::Encoding`] (`"utf-8"` or `"base64"`).
pub use dory_wire::Encoding;

/// One frame of an output stream, as the core delivered it, with the
/// consumed offsets after it.
///
/// For `stdout` / `stderr`, [`bytes`](Frame::bytes) is the exact new output
/// (the core trimmed what an earlier connection had delivered), and
/// [`data`](Frame::data) / [`encoding`](Frame::encoding) re-express those
/// bytes the wire's way. Fields that do not apply to a type are `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Frame {
    /// Which frame.
    pub frame_type: FrameType,
    /// The exact output bytes (empty for frames without output).
    pub bytes: Vec<u8>,
    /// The bytes as the wire writes them: text when they are valid UTF-8,
    /// else base64 (empty for frames without output).
    pub data: String,
    /// How `data` holds the bytes (`None` for frames without output).
    pub encoding: Option<Encoding>,
    /// The stream's offset after this frame (output and skipped frames).
    pub offset: Option<u64>,
    /// The exit code (`exit`, `exec_result`); `None` when killed or timed out.
    pub exit_code: Option<i64>,
    /// Whether the process hit its deadline (`exit`, `exec_result`).
    pub timed_out: Option<bool>,
    /// The process (`started`, `identity`, `exec_result`).
    pub proc_id: Option<String>,
    /// The consumed offsets after this frame: where a reconnect resumes.
    pub cursor: Cursor,
    /// The core's event.
    pub event: Event,
}

impl Frame {
    /// The frame for `event`, delivered with `cursor` consumed after it.
    pub(crate) fn new(event: Event, cursor: Cursor) -> Frame {
        let mut frame = Frame {
            frame_type: FrameType::Unknown,
            bytes: Vec::new(),
            data: String::new(),
            encoding: None,
            offset: None,
            exit_code: None,
            timed_out: None,
            proc_id: None,
            cursor,
            event: Event::Heartbeat,
        };
        match &event {
            Event::Output {
                stream, data, end, ..
            } => {
                frame.frame_type = match stream {
                    Stream::Stdout => FrameType::Stdout,
                    Stream::Stderr => FrameType::Stderr,
                };
                // The core's rule: text when valid UTF-8, else base64.
                let (text, encoding) = wire_form(data);
                frame.bytes.clone_from(data);
                frame.data = text;
                frame.encoding = Some(encoding);
                frame.offset = Some(*end);
            }
            Event::Skipped { end, .. } => {
                frame.frame_type = FrameType::Skipped;
                frame.offset = Some(*end);
            }
            Event::Started { proc_id } => {
                frame.frame_type = FrameType::Started;
                frame.proc_id = Some(proc_id.clone());
            }
            Event::Heartbeat => frame.frame_type = FrameType::Heartbeat,
            Event::Exit {
                exit_code,
                timed_out,
                ..
            } => {
                frame.frame_type = FrameType::Exit;
                frame.exit_code = *exit_code;
                frame.timed_out = Some(*timed_out);
            }
            Event::Identity(identity) => {
                frame.frame_type = FrameType::Identity;
                frame.proc_id = Some(identity.proc_id.clone());
            }
            Event::ExecResult(result) => {
                frame.frame_type = FrameType::ExecResult;
                frame.proc_id = Some(result.proc_id.clone());
                frame.exit_code = result.exit_code;
                frame.timed_out = Some(result.timed_out);
            }
            _ => frame.frame_type = FrameType::Unknown,
        }
        frame.event = event;
        frame
    }

    /// The consumed stdout offset after this frame.
    pub fn stdout_offset(&self) -> u64 {
        self.cursor.stdout
    }

    /// The consumed stderr offset after this frame.
    pub fn stderr_offset(&self) -> u64 {
        self.cursor.stderr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_frames_carry_the_wire_form_of_their_bytes() {
        let frame = Frame::new(
            Event::Output {
                stream: Stream::Stdout,
                data: b"\0\xff".to_vec(),
                start: 5,
                end: 7,
            },
            Cursor::new(7, 1),
        );
        assert_eq!(frame.frame_type.as_str(), "stdout");
        assert_eq!(
            (frame.data.as_str(), frame.encoding),
            ("AP8=", Some(Encoding::Base64))
        );
        assert_eq!(
            (frame.offset, frame.stdout_offset(), frame.stderr_offset()),
            (Some(7), 7, 1)
        );
    }
}
