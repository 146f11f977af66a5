//! The constructor of a [`WasmRun`]: the arguments of the JavaScript
//! `new Run(computerId, command, options)` as the core's [`RunOptions`],
//! each converted as a bounder's or a `Follower`'s is; the run is checked
//! whole by the core before any request ([`Run::new`]), and its refusals
//! name the JavaScript arguments (`json::write_error` does, by the core's rule).

use dory_wire::{Run, RunOptions};
use wasm_bindgen::prelude::*;

use super::actions::Actions;
use super::WasmRun;
use crate::args::{command, millis, random_bytes, timeout_seconds};
use crate::follow::WasmFollowOptions;
use crate::json::write_error;
use crate::preview::{keep, limit, token_limit};

#[wasm_bindgen]
impl WasmRun {
    /// A run of `command_json` on `computer_id`, checked whole before any
    /// request (see [`Run::new`]); `follow` holds the follow options,
    /// converted as a `Follower`'s. `keep_word` and `keep_patterns` are the
    /// `keep` option as a bounder's (see [`keep`]) when `keep_given`, else
    /// the run's default ([`RunOptions::keep`]: the default patterns);
    /// `terminal` none is the run's default (on). `max_tokens` and
    /// `tokenizer` are the token limit of each preview, read by the core's
    /// rule (see [`token_limit`]; neither: none). Throws an error-object
    /// JSON string.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        computer_id: &str,
        command_json: &str,
        random: &[u8],
        follow: WasmFollowOptions,
        max_lines: Option<f64>,
        max_bytes: Option<f64>,
        idempotency_key: Option<String>,
        timeout_ms: Option<f64>,
        hint: Option<String>,
        kill_on_cancel: bool,
        spill: bool,
        on_output: bool,
        answer_timeout_ms: Option<f64>,
        keep_given: bool,
        keep_word: Option<String>,
        keep_patterns: Option<Vec<String>>,
        terminal: Option<bool>,
        max_tokens: Option<f64>,
        tokenizer: Option<String>,
    ) -> Result<WasmRun, String> {
        let random = random_bytes(random).map_err(|e| write_error(&e))?;
        let mut o = RunOptions::new()
            .follow(follow.into_options())
            .kill_on_cancel(kill_on_cancel)
            .spill(spill)
            .on_output(on_output);
        if keep_given {
            o = o.keep(keep(keep_word, keep_patterns)?);
        }
        if let Some(terminal) = terminal {
            o = o.terminal(terminal);
        }
        if let Some(n) = max_lines {
            o = o.max_lines(limit(n, "maxLines")?);
        }
        if let Some(n) = max_bytes {
            o = o.max_bytes(limit(n, "maxBytes")?);
        }
        o.tokens = token_limit(max_tokens, tokenizer)?;
        o.idempotency_key = idempotency_key;
        o.timeout_seconds = timeout_seconds(timeout_ms).map_err(|e| write_error(&e))?;
        o.hint = hint;
        if let Some(ms) = answer_timeout_ms {
            // A zero timeout is the core's to refuse.
            o = o.answer_timeout(millis("answerTimeoutMs", ms).map_err(|e| write_error(&e))?);
        }
        let command = command(command_json).map_err(|e| write_error(&e))?;
        Run::new(computer_id, &command, o, random)
            .map(|inner| WasmRun {
                inner,
                failed: None,
                actions: Actions::default(),
            })
            .map_err(|e| write_error(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> serde_json::Value {
        serde_json::from_str(s).unwrap()
    }

    /// The arguments of [`WasmRun::new`] that the tests vary; the others
    /// are `"c1"`, `"make"`, the default follow options and no limits.
    #[derive(Default)]
    struct Args {
        random: Option<Vec<u8>>,
        key: Option<&'static str>,
        timeout_ms: Option<f64>,
        keep: Option<(Option<&'static str>, Option<Vec<String>>)>,
        terminal: Option<bool>,
        max_tokens: Option<f64>,
        tokenizer: Option<&'static str>,
    }

    impl Args {
        fn run(self) -> Result<WasmRun, String> {
            let (keep_word, keep_patterns) = self.keep.clone().unwrap_or_default();
            WasmRun::new(
                "c1",
                "\"make\"",
                self.random.as_deref().unwrap_or(&[0; 16]),
                WasmFollowOptions::new(),
                None,
                None,
                self.key.map(str::to_owned),
                self.timeout_ms,
                None,
                false,
                false,
                false,
                None,
                self.keep.is_some(),
                keep_word.map(str::to_owned),
                keep_patterns,
                self.terminal,
                self.max_tokens,
                self.tokenizer.map(str::to_owned),
            )
        }

        fn error(self) -> serde_json::Value {
            value(&self.run().unwrap_err())
        }
    }

    #[test]
    fn arguments_are_refused_in_javascript_names() {
        let key = Some("");
        assert_eq!(
            Args {
                key,
                ..Args::default()
            }
            .error()["argument"],
            "idempotencyKey"
        );
        let timeout_ms = Some(0.0);
        let e = Args {
            timeout_ms,
            ..Args::default()
        }
        .error();
        assert_eq!(e["argument"], "timeoutMs");
        let random = Some(vec![0; 3]);
        assert_eq!(
            Args {
                random,
                ..Args::default()
            }
            .error()["argument"],
            "random"
        );
    }

    #[test]
    fn a_refused_keep_pattern_is_invalid_argument_keep() {
        let with_keep = |word: Option<&'static str>, patterns: Option<Vec<String>>| Args {
            keep: Some((word, patterns)),
            terminal: Some(false),
            ..Args::default()
        };
        let err = with_keep(None, Some(vec!["(".into()])).error();
        assert_eq!(
            (err["code"].as_str(), err["argument"].as_str()),
            (Some("invalid_argument"), Some("keep"))
        );
        let err = with_keep(Some("all"), None).error();
        assert_eq!(err["argument"], "keep");
        assert!(with_keep(Some("defaults"), None).run().is_ok());
        assert!(with_keep(None, None).run().is_ok(), "given and empty: off");
    }

    #[test]
    fn the_token_options_are_the_cores() {
        let with_tokens = |max_tokens: Option<f64>, tokenizer: Option<&'static str>| Args {
            max_tokens,
            tokenizer,
            ..Args::default()
        };
        assert!(with_tokens(None, None).run().is_ok());
        assert!(with_tokens(Some(80.0), Some("approx")).run().is_ok());
        assert!(
            with_tokens(None, Some("approx")).run().is_ok(),
            "a tokenizer alone counts"
        );
        for bad in [79.0, 1.5, -1.0] {
            let code = with_tokens(Some(bad), Some("approx")).error()["code"].clone();
            assert_eq!(code, "invalid_limits", "{bad}");
        }
        let err = with_tokens(Some(100.0), Some("gpt-9")).error();
        assert_eq!(
            (err["code"].as_str(), err["argument"].as_str()),
            (Some("invalid_argument"), Some("tokenizer"))
        );
    }
}
