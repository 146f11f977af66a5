//! The reader on every endpoint, with random status, Content-Type, cursor,
//! policy, frame limit and split points: see `dory_wire_fuzz::reader`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::reader::check(data));
