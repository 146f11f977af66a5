//! The follower's options (also a `Run`'s), from keyword arguments.

use dory_wire::{FollowOptions, GapPolicy};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;

/// The follower's options (also a `Run`'s) from the keyword arguments of
/// `func`: the core's defaults ([`FollowOptions::default`]), each given option converted.
pub(crate) fn follow_options(
    func: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<FollowOptions> {
    let mut o = FollowOptions::default();
    let Some(options) = options else {
        return Ok(o);
    };
    for (key, value) in options.iter() {
        let name: String = key.extract()?;
        o = match name.as_str() {
            "follow" => o.follow(args::flag(&value, "follow")?),
            "gap_policy" => {
                let policy = args::text(&value, "gap_policy")?;
                let Some(policy) = GapPolicy::from_name(&policy) else {
                    let reason = format!("must be 'fail' or 'skip', not {policy:?}");
                    return Err(args::invalid(value.py(), "gap_policy", reason));
                };
                o.gap_policy(policy)
            }
            "retries" => {
                let retries = args::count(&value, "retries", 0, u64::from(u32::MAX))?;
                o.retries(retries as u32)
            }
            "backoff_seconds" => o.backoff(args::duration(&value, "backoff_seconds", false)?),
            "max_backoff_seconds" => {
                o.max_backoff(args::duration(&value, "max_backoff_seconds", false)?)
            }
            "jitter" => o.jitter(args::flag(&value, "jitter")?),
            "liveness_timeout_seconds" => {
                o.liveness_timeout(args::duration(&value, "liveness_timeout_seconds", true)?)
            }
            "max_frame_bytes" if value.is_none() => o,
            "max_frame_bytes" => {
                // usize -> u64 is lossless on every supported platform.
                let limit = args::count(&value, "max_frame_bytes", 1, usize::MAX as u64)?;
                o.max_frame_bytes(limit as usize)
            }
            "strict" => o.strict(args::flag(&value, "strict")?),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{func}() got an unexpected keyword argument '{name}'"
                )))
            }
        };
    }
    Ok(o)
}
