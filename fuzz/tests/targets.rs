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

/// Characters that matter to the litmus grammar, for mutations.
const GRAMMAR: &[u8] = b"(){}[];,*&=-+!~/\\<>|^%@: \n0123456789xyrPd";

/// `base` with one to four random edits: a deleted range, a duplicated
/// range, an inserted grammar character, a replaced byte, a truncation.
fn mutate(rng: &mut ChaCha8Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=v.len());
        let len = rng.random_range(0..=16.min(v.len() - at));
        match rng.random_range(0..5) {
            0 => {
                v.drain(at..at + len);
            }
            1 => {
                let part = v[at..at + len].to_vec();
                v.splice(at..at, part);
            }
            2 => v.insert(at, GRAMMAR[rng.random_range(0..GRAMMAR.len())]),
            3 if at < v.len() => v[at] = rng.random(),
            _ => v.truncate(at),
        }
    }
    v
}

/// Runs `target` on its seeds and on `n` random inputs of up to `max_len`
/// bytes (for `parse`: mutated seeds, since random bytes never parse).
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
    let valid: Vec<PathBuf> = seeds
        .iter()
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("err-")))
        .cloned()
        .collect();
    for i in 0..n {
        let data: Vec<u8> = if target == "parse" {
            // Three in four mutate a valid seed: an `err-*` seed's mutants
            // mostly stay refused and never reach the checker.
            let pool = if valid.is_empty() || rng.random_range(0..4) == 0 {
                &seeds
            } else {
                &valid
            };
            let base = std::fs::read(&pool[rng.random_range(0..pool.len())]).unwrap();
            mutate(&mut rng, &base)
        } else {
            let len = rng.random_range(0..=max_len);
            (0..len).map(|_| rng.random()).collect()
        };
        let t = Instant::now();
        let r = std::panic::catch_unwind(|| run_target(target, &data));
        if t.elapsed().as_secs_f64() > 1.0 {
            eprintln!("{target}: random input {i} took {:?}", t.elapsed());
        }
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
    drive("parse", cases(20000), 512);
}

#[test]
fn differential() {
    drive("differential", cases(200), 96);
}

#[test]
fn models() {
    drive("models", cases(1500), 96);
}

#[test]
fn drfrlx() {
    drive("drfrlx", cases(600), 96);
}

#[test]
fn replay() {
    drive("replay", cases(3000), 96);
}

/// The generator is not degenerate: over fixed random inputs it writes every
/// construct, replay finds races to replay, and the DRFrlx programs include
/// legal ones and racy ones with non-SC results (both sides of the theorem).
#[test]
fn the_generator_exercises_what_the_properties_are_about() {
    use arbitrary::Unstructured;
    use scopecheck_fuzz::{drfrlx, replay, Program, Shape};
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut inputs = Vec::new();
    for _ in 0..200 {
        let len = rng.random_range(16..=96);
        inputs.push((0..len).map(|_| rng.random()).collect::<Vec<u8>>());
    }
    let texts: Vec<String> = inputs
        .iter()
        .map(|d| {
            Program::generate(&mut Unstructured::new(d), &Shape::models())
                .unwrap()
                .to_string()
        })
        .collect();
    for construct in [
        "@block 1, warp 1, device 0",
        "memory_scope_thread",
        "memory_scope_system",
        "rlx_quantum",
        "if (r",
        "while (atomic_load_explicit(",
        "atomic_thread_fence(memory_order_seq_cst",
        "atomic_compare_exchange_strong_explicit",
        "atomic_exchange_explicit",
        "atomic_fetch_add_explicit",
        "memory_order_acq_rel",
        "= *d;",
        "*d = 2;",
        "P2",
    ] {
        let n = texts.iter().filter(|t| t.contains(construct)).count();
        assert!(n >= 5, "only {n} of 200 programs have `{construct}`");
    }
    let replayed: usize = inputs[..100]
        .iter()
        .map(|d| {
            let p = Program::generate(&mut Unstructured::new(d), &Shape::replay()).unwrap();
            replay::check_program(&p.to_string(), scopecheck::MemoryModel::Src11)
        })
        .sum();
    assert!(replayed >= 50, "only {replayed} failures replayed");
    let (mut legal, mut racy_non_sc) = (0, 0);
    for d in &inputs {
        let p = Program::generate(&mut Unstructured::new(d), &Shape::drfrlx()).unwrap();
        let r = drfrlx::check_program(&p.to_string());
        if r.races.is_empty() {
            legal += 1;
        } else if !r.non_sc.is_empty() {
            racy_non_sc += 1;
        }
    }
    assert!(legal >= 20, "only {legal} legal DRFrlx programs of 200");
    assert!(
        racy_non_sc >= 3,
        "only {racy_non_sc} racy DRFrlx programs with non-SC results"
    );
    eprintln!("{replayed} failures replayed; DRFrlx: {legal} legal, {racy_non_sc} racy with non-SC results");
}
