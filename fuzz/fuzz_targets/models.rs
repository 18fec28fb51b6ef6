//! libFuzzer entry for the `models` target (see `scopecheck_fuzz::models`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| scopecheck_fuzz::models::check(data));
