//! Body bytes in, event records out: what the `feed`, `feed_into` and
//! `finish` of a [`crate::reader::WasmReader`] and of a
//! [`crate::follow::WasmFollower`] share. The events of a call cross in the
//! layout of [`crate::layout`] ([`Batch`]); [`Feed`] keeps, between calls,
//! the batch (its buffers reused), the side document of the last call, and
//! the binding's own sticky error: an integer that a JavaScript number
//! cannot hold exactly stops the conversion there, and every later call
//! returns it.

use dory_wire::{Error, Event, Sink, Stream, Transcript};

use crate::json::{self, OutOfRange};
use crate::layout::{FLAG_SIDE, RECORDS, RECORD_F64S, TAG_OTHER, TAG_STDERR, TAG_STDOUT};

/// A data buffer larger than this is released after the call instead of
/// being kept for the next one.
const KEEP_DATA_CAPACITY: usize = 4 << 20;

/// A pointer as a wasm32 address (the low 32 bits on a 64-bit host, where
/// the binding is only compiled for its lints and unit tests).
pub(crate) fn address(p: *const u8) -> u32 {
    (p as usize & 0xffff_ffff) as u32
}

/// The events of one `feed`/`finish`, in the form that crosses the boundary
/// without serialization ([`crate::layout`]): one record of three numbers
/// per event, `(tag, start, end)`, in a `Vec<f64>` that JavaScript reads in
/// place; the output bytes of all events in one buffer; and, for the rare
/// events that are not output (and an error or an end), one small JSON side
/// document.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// `(tag, start, end)` per event (`start`/`end` are 0 for [`TAG_OTHER`]).
    pub(crate) meta: Vec<f64>,
    /// Output bytes of the events, in event order.
    pub(crate) data: Vec<u8>,
    /// The compact JSON arrays of the [`TAG_OTHER`] events, comma-separated
    /// (see [`json`]).
    pub(crate) other: String,
    /// An integer a JavaScript number cannot hold: conversion stops there
    /// (the events before it are kept).
    pub(crate) error: Option<OutOfRange>,
}

impl Batch {
    fn clear(&mut self) {
        self.meta.clear();
        if self.data.capacity() > KEEP_DATA_CAPACITY {
            self.data = Vec::new();
        } else {
            self.data.clear();
        }
        self.other.clear();
        self.error = None;
    }

    pub(crate) fn records(&self) -> f64 {
        (self.meta.len() / RECORD_F64S) as f64
    }
}

fn safe(field: &'static str, v: u64) -> Result<f64, OutOfRange> {
    if v > json::MAX_SAFE_INTEGER {
        Err(OutOfRange {
            field,
            value: v.to_string(),
        })
    } else {
        Ok(v as f64)
    }
}

impl Batch {
    /// Checks an output range; the first offset a JavaScript number cannot
    /// hold stops the conversion of the call.
    fn check_output(&mut self, start: u64, end: u64) -> Option<(f64, f64)> {
        if self.error.is_some() {
            return None;
        }
        match safe("output start offset", start)
            .and_then(|s| Ok((s, safe("output end offset", end)?)))
        {
            Ok(range) => Some(range),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }

    /// Appends the compact array of a non-output event (and its record).
    fn push_other(&mut self, event: &Event) -> bool {
        if self.error.is_some() {
            return false;
        }
        let mark = self.other.len();
        if mark != 0 {
            self.other.push(',');
        }
        // `push_event` appends the event's bytes (a result document's) to the
        // data buffer only when its record was written.
        match json::push_event(&mut self.other, &mut self.data, event) {
            Ok(()) => {
                self.meta.extend_from_slice(&[TAG_OTHER, 0.0, 0.0]);
                true
            }
            Err(e) => {
                self.other.truncate(mark);
                self.error = Some(e);
                false
            }
        }
    }
}

impl Sink for Batch {
    fn output(&mut self, stream: Stream, bytes: std::borrow::Cow<'_, [u8]>, start: u64, end: u64) {
        if let Some((s, e)) = self.check_output(start, end) {
            let tag = match stream {
                Stream::Stdout => TAG_STDOUT,
                Stream::Stderr => TAG_STDERR,
            };
            self.meta.extend_from_slice(&[tag, s, e]);
            self.data.extend_from_slice(&bytes);
        }
    }

    fn event(&mut self, event: Event) {
        self.push_other(&event);
    }
}

/// The sink of `feed_into`: output bytes go into the transcript only (no
/// record, no copy out of wasm memory); every other event goes into the
/// transcript and the batch.
pub(crate) struct IntoTranscript<'a> {
    batch: &'a mut Batch,
    transcript: &'a mut Transcript,
}

impl Sink for IntoTranscript<'_> {
    fn output(&mut self, stream: Stream, bytes: std::borrow::Cow<'_, [u8]>, start: u64, end: u64) {
        // Checked like `feed`, so both report the same error at the same place.
        if self.batch.check_output(start, end).is_some() {
            self.transcript.push_output(stream, &bytes, start, end);
        }
    }

    fn event(&mut self, event: Event) {
        if self.batch.push_other(&event) {
            self.transcript.push(&event);
        }
    }
}

/// What a reader or a follower keeps between calls: the batch of the last
/// `feed`/`finish` (kept so its buffers are reused), the side JSON of the
/// last call, when it has one, and the sticky error.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    /// Set once an event (or what a `finish` gave) could not be converted;
    /// every later call returns it.
    failed: Option<String>,
    batch: Batch,
    side: Option<String>,
}

impl Feed {
    /// The sticky error's JSON, once set.
    pub(crate) fn failed(&self) -> Option<&String> {
        self.failed.as_ref()
    }

    /// Makes an out-of-range integer the sticky error; returns its JSON.
    pub(crate) fn fail(&mut self, e: &OutOfRange) -> String {
        let json = e.to_json();
        self.failed = Some(json.clone());
        json
    }

    /// Clears the batch for a call; true once failed, the side JSON then
    /// the sticky error: `{"events":[],"error":…}`, or with `key` (a
    /// `finish`'s outcome) `{"events":[],key:null,"error":…}`.
    fn begin(&mut self, key: Option<&str>) -> bool {
        self.batch.clear();
        let Some(failed) = &self.failed else {
            return false;
        };
        self.side = Some(match key {
            Some(key) => format!("{{\"events\":[],\"{key}\":null,\"error\":{failed}}}"),
            None => format!("{{\"events\":[],\"error\":{failed}}}"),
        });
        true
    }

    /// A `feed`: `feed` gives body bytes to the core, the batch its sink.
    /// Returns `records * RECORDS + flags` ([`crate::layout`]): when the
    /// flag is set, the side JSON is `{"events":[…],"error":null|{…}}` with
    /// the arrays of the events whose tag is "other", in order.
    pub(crate) fn feed(&mut self, feed: impl FnOnce(&mut Batch) -> Result<(), Error>) -> f64 {
        if self.begin(None) {
            return FLAG_SIDE;
        }
        let result = feed(&mut self.batch);
        self.after_feed(result)
    }

    /// A `feed_into`: as [`Feed::feed`], but output bytes go into
    /// `transcript` inside wasm memory; the records are those of the other
    /// events only (which are also pushed into the transcript).
    pub(crate) fn feed_into(
        &mut self,
        transcript: &mut Transcript,
        feed: impl FnOnce(&mut IntoTranscript<'_>) -> Result<(), Error>,
    ) -> f64 {
        if self.begin(None) {
            return FLAG_SIDE;
        }
        let mut sink = IntoTranscript {
            batch: &mut self.batch,
            transcript,
        };
        let result = feed(&mut sink);
        self.after_feed(result)
    }

    /// A `finish`: `finish` ends the body in the core, the batch its sink;
    /// what it gives is written by `write` as the side JSON's `key`.
    /// Returns `records * RECORDS + FLAG_SIDE`; the side JSON is
    /// `{"events":[…],key:null|{…},"error":null|{…}}`.
    pub(crate) fn finish<T>(
        &mut self,
        key: &str,
        finish: impl FnOnce(&mut Batch) -> Result<T, Error>,
        write: impl FnOnce(&mut String, &T) -> Result<(), OutOfRange>,
    ) -> f64 {
        if self.begin(Some(key)) {
            return FLAG_SIDE;
        }
        let result = finish(&mut self.batch);
        let (outcome, error) = match (self.batch.error.take(), result) {
            (Some(e), _) => ("null".to_owned(), self.fail(&e)),
            (None, Err(e)) => ("null".to_owned(), json::write_error(&e)),
            (None, Ok(outcome)) => {
                let mut s = String::new();
                match write(&mut s, &outcome) {
                    Ok(()) => (s, "null".to_owned()),
                    Err(e) => ("null".to_owned(), self.fail(&e)),
                }
            }
        };
        self.side = Some(format!(
            "{{\"events\":[{}],\"{key}\":{outcome},\"error\":{error}}}",
            self.batch.other
        ));
        self.batch.records() * RECORDS + FLAG_SIDE
    }

    /// The result of a `feed`/`feed_into` (see [`Feed::feed`]).
    fn after_feed(&mut self, result: Result<(), Error>) -> f64 {
        let error = match (self.batch.error.take(), result) {
            (Some(e), _) => Some(self.fail(&e)),
            (None, Err(e)) => Some(json::write_error(&e)),
            (None, Ok(())) => None,
        };
        let records = self.batch.records();
        if error.is_none() && self.batch.other.is_empty() {
            return records * RECORDS;
        }
        self.side = Some(format!(
            "{{\"events\":[{}],\"error\":{}}}",
            self.batch.other,
            error.as_deref().unwrap_or("null")
        ));
        records * RECORDS + FLAG_SIDE
    }

    /// The side JSON of the last call.
    pub(crate) fn take_side(&mut self) -> String {
        self.side.take().unwrap_or_default()
    }

    /// The address in wasm memory of the event records of the last call
    /// (valid until the next call).
    pub(crate) fn meta_ptr(&self) -> u32 {
        address(self.batch.meta.as_ptr().cast())
    }

    /// The address in wasm memory of the output bytes of the last call.
    pub(crate) fn data_ptr(&self) -> u32 {
        address(self.batch.data.as_ptr())
    }

    /// The number of output bytes of the last call.
    pub(crate) fn data_len(&self) -> u32 {
        u32::try_from(self.batch.data.len()).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[test]
    fn an_unsafe_offset_is_the_sticky_error_of_every_later_call() {
        let mut feed = Feed::default();
        let big = json::MAX_SAFE_INTEGER + 1;
        let n = feed.feed(|batch| {
            batch.output(Stream::Stdout, Cow::Borrowed(b"a"), 0, 1);
            batch.output(Stream::Stdout, Cow::Borrowed(b"b"), big, big + 1);
            Ok(())
        });
        assert_eq!(n, RECORDS + FLAG_SIDE, "the event before it is kept");
        let side: serde_json::Value = serde_json::from_str(&feed.take_side()).unwrap();
        assert_eq!(side["error"]["code"], json::INTEGER_OUT_OF_RANGE);
        let failed = feed.failed().cloned().unwrap();
        assert_eq!(feed.feed(|_| unreachable!()), FLAG_SIDE);
        assert_eq!(
            feed.take_side(),
            format!("{{\"events\":[],\"error\":{failed}}}")
        );
        let write = |_: &mut String, _: &()| Ok(());
        assert_eq!(feed.finish("end", |_| unreachable!(), write), FLAG_SIDE);
        assert_eq!(
            feed.take_side(),
            format!("{{\"events\":[],\"end\":null,\"error\":{failed}}}")
        );
    }
}
