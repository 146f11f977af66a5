//! The streaming bounder in random chunks against the whole bounder: see
//! `dory_wire_fuzz::preview::check_streaming`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::preview::check_streaming(data));
