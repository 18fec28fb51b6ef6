//! The fuzz targets as ordinary tests: each target runs over its seed files
//! (`corpus/<target>/`) and over deterministic pseudo-random inputs, so CI
//! on stable checks the same properties libFuzzer does, in bounded time.
//! `SCOPECHECK_FUZZ_CASES=N` changes the number of random inputs per target.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use scopecheck_fuzz::run_target;
use std::path::PathBuf;
use std::time::Instant;

/// The seed files of `target`, sorted.
fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn cases(default: usize) -> usize {
    std::env::var("SCOPECHECK_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `target` on its seeds and on `n` random inputs of up to `max_len` bytes.
fn drive(target: &str, n: usize, max_len: usize) {
    let t0 = Instant::now();
    let seeds = seeds(target);
    assert!(!seeds.is_empty(), "no seed inputs for {target}");
    for path in &seeds {
        let data = std::fs::read(path).unwrap();
        let r = std::panic::catch_unwind(|| run_target(target, &data));
        assert!(matches!(r, Ok(true)), "{target} failed on seed {}", path.display());
    }
    // One stream per target, so adding a target changes no other's inputs.
    let seed = target
        .bytes()
        .fold(0x5c0_9ec4_u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n {
        let len = rng.random_range(0..=max_len);
        let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let r = std::panic::catch_unwind(|| run_target(target, &data));
        assert!(
            r.is_ok(),
            "{target} failed on random input {i}; bytes to add to corpus/{target}/: {data:?}"
        );
    }
    eprintln!(
        "{target}: {} seeds and {n} random inputs in {:?}",
        seeds.len(),
        t0.elapsed()
    );
}

#[test]
fn parse() {
    drive("parse", cases(3000), 512);
}

#[test]
fn differential() {
    drive("differential", cases(400), 96);
}

#[test]
fn models() {
    drive("models", cases(400), 96);
}

#[test]
fn drfrlx() {
    drive("drfrlx", cases(400), 96);
}

#[test]
fn replay() {
    drive("replay", cases(400), 96);
}
