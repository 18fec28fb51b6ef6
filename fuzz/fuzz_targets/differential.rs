//! libFuzzer entry for the `differential` target (see `scopecheck_fuzz::differential`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| scopecheck_fuzz::differential::check(data));
