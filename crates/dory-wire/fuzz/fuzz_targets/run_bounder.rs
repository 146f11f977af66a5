//! The run bounder on arbitrary chunks and losses: see
//! `dory_wire_fuzz::run::check_run`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::run::check_run(data));
