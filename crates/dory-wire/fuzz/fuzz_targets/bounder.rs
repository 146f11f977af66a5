//! The whole preview bounder with random limits and spill answers: see
//! `dory_wire_fuzz::preview::check_whole`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::preview::check_whole(data));
