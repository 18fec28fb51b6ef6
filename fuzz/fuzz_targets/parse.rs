//! libFuzzer entry for the `parse` target (see `scopecheck_fuzz::parse`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| scopecheck_fuzz::parse::check(data));
