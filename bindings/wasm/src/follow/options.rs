//! `WasmFollowOptions`: the options of a follower (also a run's) being
//! built, one string-keyed option at a time.

use dory_wire::{Error, FollowOptions, GapPolicy};
use wasm_bindgen::prelude::*;

use crate::args::{invalid, invalid_json, millis};
use crate::json;
use crate::reader::MAX_FRAME_BYTES_LIMIT;
use crate::wire_json::options_json;

/// The options of a follower being built: the core's defaults, then each
/// option the caller gave, converted (the JavaScript layer has checked
/// names and types: booleans go to `set_bool`, numbers to `set_number`,
/// strings to `set_string`). A value with no conversion is
/// `invalid_argument`, naming the option.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct WasmFollowOptions {
    inner: FollowOptions,
}

#[wasm_bindgen]
impl WasmFollowOptions {
    /// The core's defaults.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmFollowOptions {
        WasmFollowOptions::default()
    }

    /// Sets a boolean option (`follow`, `jitter`, `strict`). Returns an
    /// empty string, or an error-object JSON string.
    pub fn set_bool(&mut self, name: &str, value: bool) -> String {
        let o = self.inner.clone();
        self.inner = match name {
            "follow" => o.follow(value),
            "jitter" => o.jitter(value),
            "strict" => o.strict(value),
            _ => return invalid_json(name, "is not a boolean option".to_owned()),
        };
        String::new()
    }

    /// Sets a number option (`retries`, `backoffMs`, `maxBackoffMs`,
    /// `livenessTimeoutMs`, `maxFrameBytes`). Returns an empty string, or an
    /// error-object JSON string.
    pub fn set_number(&mut self, name: &str, value: f64) -> String {
        match self.number(name, value) {
            Ok(()) => String::new(),
            Err(e) => json::write_error(&e),
        }
    }

    /// Sets a string option (`gapPolicy`). Returns an empty string, or an
    /// error-object JSON string.
    pub fn set_string(&mut self, name: &str, value: &str) -> String {
        if name != "gapPolicy" {
            return invalid_json(name, "is not a string option".to_owned());
        }
        match GapPolicy::from_name(value) {
            Some(policy) => {
                self.inner = self.inner.clone().gap_policy(policy);
                String::new()
            }
            None => invalid_json(name, format!("must be \"fail\" or \"skip\", not {value:?}")),
        }
    }

    /// The options as they stand, in their JavaScript names and units.
    pub fn to_json(&self) -> String {
        options_json(&self.inner)
    }
}

impl WasmFollowOptions {
    /// The core's options as they stand (a follower, or a `Run`, takes
    /// them as they are).
    pub(crate) fn into_options(self) -> FollowOptions {
        self.inner
    }

    fn number(&mut self, name: &str, value: f64) -> Result<(), Error> {
        let o = self.inner.clone();
        self.inner = match name {
            "retries" => {
                let max = f64::from(u32::MAX);
                if !((0.0..=max).contains(&value) && value.fract() == 0.0) {
                    return Err(invalid(
                        name,
                        format!("must be an integer from 0 to {max}, not {value}"),
                    ));
                }
                o.retries(value as u32)
            }
            "backoffMs" => o.backoff(millis(name, value)?),
            "maxBackoffMs" => o.max_backoff(millis(name, value)?),
            "livenessTimeoutMs" => o.liveness_timeout(millis(name, value)?),
            "maxFrameBytes" => {
                if !((1.0..=MAX_FRAME_BYTES_LIMIT).contains(&value) && value.fract() == 0.0) {
                    return Err(invalid(
                        name,
                        format!(
                            "must be an integer from 1 to {MAX_FRAME_BYTES_LIMIT}, not {value}"
                        ),
                    ));
                }
                o.max_frame_bytes(value as usize)
            }
            _ => return Err(invalid(name, "is not a number option".to_owned())),
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn options_convert_or_are_invalid_argument_naming_the_option() {
        let mut o = WasmFollowOptions::new();
        assert_eq!(o.set_number("backoffMs", 12.5), "");
        assert_eq!(o.set_number("retries", 0.0), "");
        assert_eq!(o.set_string("gapPolicy", "skip"), "");
        assert_eq!(o.set_bool("jitter", false), "");
        let v = value(&o.to_json());
        assert_eq!(
            (
                &v["backoffMs"],
                &v["retries"],
                &v["gapPolicy"],
                &v["jitter"]
            ),
            (
                &serde_json::json!(12.5),
                &serde_json::json!(0),
                &serde_json::json!("skip"),
                &serde_json::json!(false)
            )
        );
        for (name, bad) in [
            ("retries", -1.0),
            ("retries", 1.5),
            ("backoffMs", f64::NAN),
            ("maxBackoffMs", f64::INFINITY),
            ("livenessTimeoutMs", -1.0),
            ("maxFrameBytes", 0.0),
            ("maxFrameBytes", 2f64.powi(31)),
        ] {
            let e = value(&o.set_number(name, bad));
            assert_eq!(e["code"], "invalid_argument", "{name} {bad}");
            assert_eq!(e["argument"], name);
        }
        let e = value(&o.set_string("gapPolicy", "ignore"));
        assert_eq!(
            (&e["code"], &e["argument"]),
            (
                &serde_json::json!("invalid_argument"),
                &serde_json::json!("gapPolicy")
            )
        );
        // A refused value leaves the options as they were.
        assert_eq!(value(&o.to_json())["retries"], 0);
    }
}
