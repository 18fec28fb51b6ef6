//! libFuzzer entry for the `drfrlx` target (see `scopecheck_fuzz::drfrlx`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| scopecheck_fuzz::drfrlx::check(data));
