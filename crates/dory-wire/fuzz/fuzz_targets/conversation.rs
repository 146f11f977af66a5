//! The follower's conversations (reads, exec streams, one-answer calls)
//! through random answers, statuses, cuts, waits and budgets: see
//! `dory_wire_fuzz::conversation`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::conversation::check(data));
