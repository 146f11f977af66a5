//! The run machine's conversations (the agent call: the keyed start, the
//! output, spills, cancels and kills) through random answers, statuses,
//! cuts, waits and writer failures: see `dory_wire_fuzz::run_conversation`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::run_conversation::check(data));
