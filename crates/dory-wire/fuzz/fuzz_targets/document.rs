//! 2xx JSON documents and error bodies, raw or generated, against the
//! reference decoder: see `dory_wire_fuzz::document`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dory_wire_fuzz::document::check(data));
