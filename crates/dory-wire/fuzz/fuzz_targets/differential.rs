//! Valid streams generated from the input: the reader's bytes per stream must
//! equal the plain reference decoder's. See `dory_wire_fuzz::differential`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::differential::check(data));
