//! `replay`: every race and failure a generated program shows carries a
//! token; replaying the token runs one execution that reports the same
//! failure (same kind, same lines, same token).

use crate::program::{Program, Shape};
use crate::run::FILE;
use arbitrary::Unstructured;
use scopecheck::litmus::{check_source, LitmusModel, Options};
use scopecheck::{Failure, MemoryModel, Strategy};

/// Runs the target on `data`.
pub fn check(data: &[u8]) {
    if let Some((model, p)) = input(data) {
        check_program(&p.to_string(), model);
    }
}

/// The model and the program `data` stands for (`None` when the bytes run
/// out before a program is drawn).
pub fn input(data: &[u8]) -> Option<(MemoryModel, Program)> {
    let mut u = Unstructured::new(data);
    let &model = u
        .choose(&[MemoryModel::Rc11, MemoryModel::Sc, MemoryModel::Src11])
        .ok()?;
    let p = Program::generate(&mut u, &Shape::replay()).ok()?;
    Some((model, p))
}

/// What identifies a failure across runs.
fn key(f: &Failure) -> (String, Vec<(u32, u32)>, String) {
    (
        format!("{:?}", f.kind()),
        f.events().iter().map(|e| (e.src.line, e.src.column)).collect(),
        f.token().to_string(),
    )
}

/// Replays every failure of `src` under `model`; returns how many were replayed.
pub fn check_program(src: &str, model: MemoryModel) -> usize {
    let opts = |strategy| Options {
        model: Some(LitmusModel::Engine(model)),
        strategy,
        ..Options::default()
    };
    let r = match check_source(FILE, src, &opts(Strategy::Exhaustive)) {
        Ok(r) => r,
        Err(e) => panic!("a generated program was refused: {}\n{src}", e.located(FILE)),
    };
    let all: Vec<&Failure> = r.races.iter().chain(&r.failures).collect();
    for f in &all {
        let again = match check_source(FILE, src, &opts(Strategy::Replay(f.token().to_string()))) {
            Ok(r) => r,
            Err(e) => panic!("replay of {} refused: {}\n{src}", f.token(), e.located(FILE)),
        };
        assert_eq!(
            again.executions + again.blocked,
            1,
            "replay of {} ran more or less than one execution\n{src}",
            f.token()
        );
        let found: Vec<_> = again.races.iter().chain(&again.failures).map(key).collect();
        assert!(
            found.contains(&key(f)),
            "replay of {} under {model:?} did not report the same failure\nwanted: {:?}\nfound: {found:?}\n{src}",
            f.token(),
            key(f)
        );
    }
    all.len()
}
