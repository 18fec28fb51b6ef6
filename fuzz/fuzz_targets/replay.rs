//! libFuzzer entry for the `replay` target (see `scopecheck_fuzz::replay`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| scopecheck_fuzz::replay::check(data));
