//! Generators of valid protocol text from fuzz input: JSON strings written
//! with every escape form, frame streams that are valid by construction, and
//! JSON documents with mostly-right, sometimes-wrong members.

use arbitrary::{Result, Unstructured};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use dory_wire::{Cursor, Endpoint, GapPolicy};

/// Appends `text` as a JSON string literal, escaping randomly: short escapes,
/// `\u00XX`, `\uXXXX` for any character, surrogate pairs, `\/`.
pub fn write_string(out: &mut String, text: &str, u: &mut Unstructured<'_>) -> Result<()> {
    out.push('"');
    for c in text.chars() {
        let escape_anyway = u.ratio(1, 6)?;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if !escape_anyway => out.push_str("\\n"),
            '\t' if !escape_anyway => out.push_str("\\t"),
            '\r' if !escape_anyway => out.push_str("\\r"),
            '\u{8}' if !escape_anyway => out.push_str("\\b"),
            '\u{c}' if !escape_anyway => out.push_str("\\f"),
            '/' if escape_anyway => out.push_str("\\/"),
            c if (c as u32) < 0x20 || escape_anyway => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    if u.ratio(1, 2)? {
                        out.push_str(&format!("\\u{unit:04x}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

/// Optional JSON whitespace.
fn space(out: &mut String, u: &mut Unstructured<'_>) -> Result<()> {
    if u.ratio(1, 5)? {
        out.push_str(u.choose(&[" ", "\t", "  ", "\r"])?);
    }
    Ok(())
}

/// Writes an object from members whose values are already JSON text, in the
/// given order, with random whitespace.
pub fn write_object(
    out: &mut String,
    members: &[(String, String)],
    u: &mut Unstructured<'_>,
) -> Result<()> {
    space(out, u)?;
    out.push('{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        space(out, u)?;
        write_string(out, key, u)?;
        space(out, u)?;
        out.push(':');
        space(out, u)?;
        out.push_str(value);
        space(out, u)?;
    }
    out.push('}');
    space(out, u)?;
    Ok(())
}

/// A JSON string literal of `text`, randomly escaped.
pub fn string_value(text: &str, u: &mut Unstructured<'_>) -> Result<String> {
    let mut out = String::new();
    write_string(&mut out, text, u)?;
    Ok(out)
}

/// Members no frame reads: they must be ignored whatever their value.
fn extra_member(u: &mut Unstructured<'_>) -> Result<(String, String)> {
    let key = u
        .choose(&["ts", "meta", "x", "seq", "Type", "DATA"])?
        .to_string();
    let value = u
        .choose(&[
            "1.5e3",
            "-0",
            "{\"a\":[1,null,true,{\"b\":\"c\"}]}",
            "[]",
            "\"\\ud83d\\ude00\"",
            "null",
            "18446744073709551616",
        ])?
        .to_string();
    Ok((key, value))
}

/// Shuffles members (a few swaps driven by the input).
fn shuffle<T>(items: &mut [T], u: &mut Unstructured<'_>) -> Result<()> {
    if items.len() < 2 {
        return Ok(());
    }
    for i in (1..items.len()).rev() {
        let j = u.int_in_range(0..=i)?;
        items.swap(i, j);
    }
    Ok(())
}

/// A valid frame stream and how to read it.
#[derive(Debug, Clone)]
pub struct GeneratedStream {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The cursor the response resumes from.
    pub cursor: Cursor,
    /// The `CE-Process-Id` header.
    pub proc_id_header: Option<String>,
    /// The gap policy (no gap is ever generated, so it must not matter).
    pub gap_policy: GapPolicy,
    /// The body.
    pub body: Vec<u8>,
    /// How to split the body.
    pub split_seed: u64,
}

/// One frame line's members, as JSON text.
type Members = Vec<(String, String)>;

/// Generates a valid stream (no hole, no gap, every frame well-formed) from
/// the input. Overlapping and duplicate chunks, unknown frames, heartbeats,
/// blank lines, `\r\n`, escapes, extra members and a trailing partial line all
/// appear.
pub fn generate_stream(u: &mut Unstructured<'_>) -> Result<GeneratedStream> {
    let endpoint = *u.choose(&[Endpoint::Exec, Endpoint::ProcessOutput, Endpoint::SetupLogs])?;
    let split_seed = u64::from(u.arbitrary::<u16>()?);
    let gap_policy = if u.arbitrary()? {
        GapPolicy::Skip
    } else {
        GapPolicy::Fail
    };
    let streams = if endpoint == Endpoint::SetupLogs {
        1
    } else {
        2
    };
    let mut consumed = [0u64; 2];
    for c in consumed.iter_mut().take(streams) {
        *c = match u.int_in_range(0..=3u8)? {
            0 => 0,
            1 | 2 => u.int_in_range(0..=1000)?,
            _ => u64::MAX - u.int_in_range(0..=100_000)?,
        };
    }
    let cursor = Cursor::new(consumed[0], consumed[1]);
    let mut body = String::new();
    let mut proc_id_header = None;
    let newline = |u: &mut Unstructured<'_>, body: &mut String| -> Result<()> {
        body.push_str(if u.ratio(1, 4)? { "\r\n" } else { "\n" });
        Ok(())
    };
    if endpoint == Endpoint::Exec {
        let proc_id = if u.arbitrary()? {
            "p_1".to_owned()
        } else {
            let s: String = u.arbitrary()?;
            if s.is_empty() {
                "p".to_owned()
            } else {
                s
            }
        };
        if u.arbitrary()? {
            proc_id_header = Some(proc_id.clone());
        }
        let mut members: Members = vec![
            ("type".into(), string_value("started", u)?),
            ("proc_id".into(), string_value(&proc_id, u)?),
        ];
        if u.ratio(1, 4)? {
            members.push(extra_member(u)?);
        }
        shuffle(&mut members, u)?;
        write_object(&mut body, &members, u)?;
        newline(u, &mut body)?;
    }
    let frames = u.int_in_range(0..=40)?;
    for _ in 0..frames {
        if u.is_empty() {
            break;
        }
        let mut members: Members = Vec::new();
        match u.int_in_range(0..=9u8)? {
            0..=5 => {
                let index = if streams == 2 {
                    u.int_in_range(0..=1usize)?
                } else {
                    0
                };
                let len = u.int_in_range(0..=48usize)?.min(u.len());
                let mut bytes = u.bytes(len)?.to_vec();
                let back = if u.ratio(1, 6)? {
                    u.int_in_range(0..=consumed[index].min(12))?
                } else {
                    0
                };
                let start = consumed[index] - back;
                // Offsets end at 2^64 - 1: shorten a chunk that would pass it.
                bytes.truncate(usize::try_from(u64::MAX - start).unwrap_or(usize::MAX));
                let end = start + bytes.len() as u64;
                consumed[index] = consumed[index].max(end);
                let text = std::str::from_utf8(&bytes).ok().map(str::to_owned);
                let kind = if index == 0 { "stdout" } else { "stderr" };
                members.push(("type".into(), string_value(kind, u)?));
                match (text, u.int_in_range(0..=2u8)?) {
                    (Some(text), 0) => members.push(("data".into(), string_value(&text, u)?)),
                    (Some(text), 1) => {
                        members.push(("data".into(), string_value(&text, u)?));
                        members.push(("encoding".into(), string_value("utf-8", u)?));
                    }
                    _ => {
                        members.push(("data".into(), string_value(&STANDARD.encode(&bytes), u)?));
                        members.push(("encoding".into(), string_value("base64", u)?));
                    }
                }
                members.push(("offset".into(), end.to_string()));
            }
            6 => members.push(("type".into(), string_value("heartbeat", u)?)),
            7 => {
                let kind = *u.choose(&["progress", "STDOUT", "Exit", "", "résumé"])?;
                members.push(("type".into(), string_value(kind, u)?));
                members.push((
                    "data".into(),
                    u.choose(&["1", "null", "\"x\"", "{}"])?.to_string(),
                ));
            }
            8 => {
                body.push_str(u.choose(&["", " ", "\t", " \t "])?);
                newline(u, &mut body)?;
                continue;
            }
            _ => continue,
        }
        if u.ratio(1, 5)? {
            members.push(extra_member(u)?);
        }
        shuffle(&mut members, u)?;
        write_object(&mut body, &members, u)?;
        newline(u, &mut body)?;
    }
    if u.arbitrary().unwrap_or(false) {
        let exit_code = match u.int_in_range(0..=3u8).unwrap_or(0) {
            0 => "null".to_owned(),
            1 => "0".to_owned(),
            _ => u.arbitrary::<i64>().unwrap_or(1).to_string(),
        };
        let timed_out = if u.arbitrary().unwrap_or(false) {
            "true"
        } else {
            "false"
        };
        let mut members: Members = vec![
            ("type".into(), string_value("exit", u)?),
            ("exit_code".into(), exit_code),
            ("timed_out".into(), timed_out.into()),
        ];
        shuffle(&mut members, u)?;
        write_object(&mut body, &members, u)?;
        newline(u, &mut body)?;
    }
    let mut body = body.into_bytes();
    // A trailing partial line: discarded by every decoder.
    let rest = u.len();
    let partial: Vec<u8> = u
        .bytes(rest)?
        .iter()
        .copied()
        .filter(|&b| b != b'\n')
        .collect();
    body.extend_from_slice(&partial);
    Ok(GeneratedStream {
        endpoint,
        cursor,
        proc_id_header,
        gap_policy,
        body,
        split_seed,
    })
}

/// A 2xx or error JSON document whose members are mostly right and sometimes
/// wrong: missing, mistyped, duplicated, out of range, oddly escaped.
pub fn generate_document(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut members: Members = Vec::new();
    let kind = u.int_in_range(0..=2u8)?;
    let junk = |u: &mut Unstructured<'_>| -> Result<String> {
        Ok(u.choose(&[
            "null",
            "true",
            "1",
            "-1",
            "1.0",
            "1e2",
            "-0",
            "\"\"",
            "[]",
            "{}",
            "\"x\"",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "9223372036854775808",
            "\"\\ud800\"",
        ])?
        .to_string())
    };
    // Each member: right value most of the time, junk sometimes, absent sometimes.
    macro_rules! member {
        ($name:expr, $right:expr) => {
            match u.int_in_range(0..=9u8)? {
                0 => {}
                1 => members.push(($name.to_string(), junk(u)?)),
                _ => {
                    let value = $right;
                    members.push(($name.to_string(), value));
                }
            }
        };
    }
    let proc_id = u
        .choose(&["p_1", "p_2", "", "p\u{e9}\u{1F600}"])?
        .to_string();
    match kind {
        0 => {
            member!("proc_id", string_value(&proc_id, u)?);
            let status = *u.choose(&["running", "exited", "Running", "dead"])?;
            member!("status", string_value(status, u)?);
        }
        1 => {
            member!("proc_id", string_value(&proc_id, u)?);
            for name in ["stdout", "stderr"] {
                let len = u.int_in_range(0..=32usize)?.min(u.len());
                let bytes = u.bytes(len)?.to_vec();
                match (std::str::from_utf8(&bytes), u.int_in_range(0..=3u8)?) {
                    (Ok(text), 0) => member!(name, string_value(text, u)?),
                    (Ok(text), 1) => {
                        member!(name, string_value(text, u)?);
                        member!(format!("{name}_encoding"), string_value("utf-8", u)?);
                    }
                    (_, 2) => {
                        let mut encoded = STANDARD.encode(&bytes);
                        if u.ratio(1, 4)? {
                            encoded.pop();
                        }
                        member!(name, string_value(&encoded, u)?);
                        member!(format!("{name}_encoding"), string_value("base64", u)?);
                    }
                    _ => {
                        let encoded = STANDARD.encode(&bytes);
                        member!(name, string_value(&encoded, u)?);
                        member!(
                            format!("{name}_encoding"),
                            string_value(u.choose(&["base64", "UTF-8", "hex"])?, u)?
                        );
                    }
                }
            }
            for name in ["stdout_truncated", "stderr_truncated", "timed_out"] {
                member!(
                    name,
                    if u.arbitrary()? { "true" } else { "false" }.to_owned()
                );
            }
            member!(
                "exit_code",
                match u.int_in_range(0..=2u8)? {
                    0 => "null".to_owned(),
                    _ => u.arbitrary::<i64>()?.to_string(),
                }
            );
        }
        _ => {
            let code = *u.choose(&[
                "output_gap",
                "output_expired",
                "offset_beyond_output",
                "not_found",
                "",
                "rate_limited",
            ])?;
            member!("error", string_value(code, u)?);
            let message: String = u.arbitrary()?;
            member!("message", string_value(&message, u)?);
            for name in [
                "earliest_stdout_offset",
                "earliest_stderr_offset",
                "earliest_offset",
            ] {
                member!(name, u.arbitrary::<u64>()?.to_string());
            }
        }
    }
    if u.ratio(1, 6)? && !members.is_empty() {
        let i = u.int_in_range(0..=members.len() - 1)?;
        let duplicate = members[i].clone();
        members.push(duplicate);
    }
    if u.ratio(1, 4)? {
        members.push(extra_member(u)?);
    }
    shuffle(&mut members, u)?;
    let mut out = String::new();
    write_object(&mut out, &members, u)?;
    Ok(out.into_bytes())
}
