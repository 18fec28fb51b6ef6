//! The seed corpora cover what the parser and the generator know: every
//! litmus construct (`scopecheck_fuzz::coverage::litmus_expected`) appears
//! in some `corpus/parse/` seed, every error family below is reached by an
//! `err-*` seed, and every feature a target's generator shape can produce
//! (`coverage::shape_expected`) appears in some seed of that target.
//!
//! The parse seeds are also checked for what they stand for: `err-*` seeds
//! are refused with a located error, `run-*` seeds run and fail inside the
//! test's program, `warn-*` seeds run cleanly with a warning (and only they
//! warn), every other seed is a valid test that runs cleanly under the
//! parse target's bounds.

use scopecheck::litmus::{check_source, TestError};
use scopecheck::MemoryModel;
use scopecheck_fuzz::coverage::{litmus_expected, litmus_features, program_features, shape_expected, Features};
use scopecheck_fuzz::{differential, drfrlx, models, parse, replay, Program, Shape};
use std::path::PathBuf;

/// How a refused or failing seed is recognised: the kind of error and a
/// fragment of its message. One family per message of the lexer
/// (`harness/src/litmus/lexer.rs`), per distinct free-form message and main
/// "expected ..." context of the parser (`parser.rs`), per validation
/// message (`run.rs` `validate`, `interp.rs` `Layout::of`), and per error
/// of a test's program at run time (`interp.rs`).
const ERROR_FAMILIES: &[(Kind, &str)] = &[
    // The lexer.
    (Kind::Parse, "unexpected character"),
    (Kind::Parse, "invalid integer literal"),
    (Kind::Parse, "integer out of range"),
    (Kind::Parse, "unterminated comment `/*`"),
    (Kind::Parse, "unterminated comment `(*`"),
    (Kind::Parse, "unterminated string"),
    (Kind::Parse, "string literals are only allowed between top-level items"),
    // The parser: header, init block, types.
    (Kind::Parse, "expected a header"),
    (Kind::Parse, "expected a test name"),
    (Kind::Parse, "expected the init block `{`"),
    (Kind::Parse, "to close the init block"),
    (Kind::Parse, "expected an init entry"),
    (Kind::Parse, "after an init entry"),
    (Kind::Parse, "expected a single value, found `{`"),
    (Kind::Parse, "to start the elements of array"),
    (Kind::Parse, "too many elements"),
    (Kind::Parse, "array length of at least 1"),
    (Kind::Parse, "expected a register name"),
    (Kind::Parse, "conflicting address space"),
    (Kind::Parse, "expected a type"),
    (Kind::Parse, "after the type in `_Atomic(...)`"),
    (Kind::Parse, "too many `*`"),
    // Threads.
    (Kind::Parse, "expected a thread `P0"),
    (Kind::Parse, "duplicate thread"),
    (Kind::Parse, "expected a placement level"),
    (Kind::Parse, "duplicate placement level"),
    (Kind::Parse, "the index of the placement level"),
    (Kind::Parse, "expected a parameter type"),
    (Kind::Parse, "in the parameter list"),
    (Kind::Parse, "to start the body"),
    (Kind::Parse, "to close the block"),
    // Statements and expressions.
    (Kind::Parse, "expected a statement"),
    (Kind::Parse, "expected `;`, found"),
    (Kind::Parse, "labels are only supported before barrier"),
    (Kind::Parse, "after `if`"),
    (Kind::Parse, "to close the condition of `while`"),
    (Kind::Parse, "unknown function"),
    (Kind::Parse, "(a statement, not a value)"),
    (Kind::Parse, "expected an expression"),
    (Kind::Parse, "is not a valid order for a load"),
    (Kind::Parse, "is not a valid order for a store"),
    (Kind::Parse, "expected a memory order"),
    (Kind::Parse, "is not a valid failure order"),
    (Kind::Parse, "and the desired value"),
    (Kind::Parse, "DRFrlx classes apply to relaxed atomics only"),
    (Kind::Parse, "expected a DRFrlx class"),
    (Kind::Parse, "expected a memory scope or a DRFrlx class"),
    (Kind::Parse, "orders and scopes go in"),
    (Kind::Parse, "expected a memory scope, found"),
    (Kind::Parse, "`CLK_LOCAL_MEM_FENCE` or `CLK_GLOBAL_MEM_FENCE`"),
    (Kind::Parse, "on the left of `=`"),
    (Kind::Parse, "after `&`"),
    (Kind::Parse, "to close the `(`"),
    (Kind::Parse, "to close the `[`"),
    (Kind::Parse, "statement nested deeper"),
    (Kind::Parse, "expression nested deeper"),
    (Kind::Parse, "condition nested deeper"),
    (Kind::Parse, "`else if` chain too long"),
    // Locations and the condition.
    (Kind::Parse, "after `locations`"),
    (Kind::Parse, "in the locations list"),
    (Kind::Parse, "expected a thread, `locations`, `filter`, `exists`"),
    (
        Kind::Parse,
        "expected `filter`, `exists`, `~exists`, `forall` or end of input",
    ),
    (Kind::Parse, "a `filter` must be followed by the condition"),
    (Kind::Parse, "expected `exists` after `~`"),
    (Kind::Parse, "expected a proposition"),
    (Kind::Parse, "expected `=` or `!=`"),
    (Kind::Parse, "expected a value"),
    (Kind::Parse, "end of input after the condition"),
    // Validation: well formed, but naming nothing.
    (Kind::Refused, "unknown variable"),
    (Kind::Refused, "is not a register or location"),
    (Kind::Refused, "the init block names a register of"),
    (Kind::Refused, "but the test has no thread"),
    (Kind::Refused, "the condition names"),
    (Kind::Refused, "the locations clause names"),
    (Kind::Refused, "is not a location of this test"),
    (Kind::Refused, "is declared again with length"),
    // Size limits (litmus/limits.rs).
    (Kind::Refused, "memory locations in all"),
    (Kind::Refused, "too many threads"),
    // A barrier outside the opencl model (unsupported today; item 15 of
    // issue 16 makes it located, so either kind counts).
    (Kind::Refused, "barrier"),
    // The test's program failing at run time.
    (Kind::Runtime, "division by zero"),
    (Kind::Runtime, "is out of bounds"),
    (Kind::Runtime, "dereferences the integer"),
    (Kind::Runtime, "expected an integer, found the address"),
    (Kind::Runtime, "names no location"),
    (Kind::Runtime, "is not defined on addresses"),
];

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A located parse error (the lexer's included).
    Parse,
    /// A located invalid test, or one the model does not support.
    Refused,
    /// A failure of the test's program during the run.
    Runtime,
}

/// The seed files of `target`, sorted, with their bytes.
fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// `expected` minus `seen`, one a line.
fn missing(expected: &Features, seen: &Features) -> String {
    expected.difference(seen).map(|f| format!("  {f}\n")).collect()
}

/// The kind and message of a refused or failing parse seed.
fn outcome(name: &str, src: &str) -> Option<(Kind, String)> {
    match check_source("fuzz.litmus", src, &parse::options()) {
        Ok(r) => r.failures.first().map(|f| (Kind::Runtime, f.message().to_string())),
        Err(TestError::Parse(e)) => Some((Kind::Parse, e.message)),
        // Matched by kind, not shape: an invalid test and an unsupported one
        // both count as refused (the message is read from the located text).
        Err(e) => match e.kind() {
            "invalid" | "unsupported" => Some((Kind::Refused, e.located("fuzz.litmus"))),
            _ => panic!("{name}: {}", e.located(name)),
        },
    }
}

#[test]
fn the_parse_corpus_covers_every_construct_of_the_litmus_dialect() {
    let mut seen = Features::new();
    for (name, bytes) in seeds("parse") {
        if name.starts_with("err-") {
            continue;
        }
        let src = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let features = litmus_features(&src).unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
        let r = check_source("fuzz.litmus", &src, &parse::options())
            .unwrap_or_else(|e| panic!("{name} is refused: {}", e.located(&name)));
        // `warn-*` seeds are valid tests the run warns about.
        assert_eq!(
            name.starts_with("warn-"),
            !r.warnings.is_empty(),
            "{name}: warnings {:?}",
            r.warnings
        );
        if name.starts_with("run-") {
            assert!(!r.failures.is_empty(), "{name} should fail at run time but ran cleanly");
        } else {
            assert!(
                r.failures.is_empty(),
                "{name} failed: {:?}",
                r.failures.iter().map(|f| f.message()).collect::<Vec<_>>()
            );
        }
        seen.extend(features);
    }
    let expected = litmus_expected();
    assert!(
        expected.is_subset(&seen),
        "no seed in corpus/parse/ covers:\n{}",
        missing(&expected, &seen)
    );
}

#[test]
fn the_parse_corpus_reaches_every_error_family() {
    let mut reached = vec![false; ERROR_FAMILIES.len()];
    for (name, bytes) in seeds("parse") {
        let src = String::from_utf8_lossy(&bytes);
        let Some((kind, message)) = outcome(&name, &src) else {
            assert!(
                !name.starts_with("err-"),
                "{name} is accepted but named as an error seed"
            );
            continue;
        };
        match kind {
            Kind::Runtime => assert!(name.starts_with("run-"), "{name} fails at run time: {message}"),
            _ => assert!(name.starts_with("err-"), "{name} is refused: {message}"),
        }
        let mut matched = false;
        for (k, (fk, fragment)) in ERROR_FAMILIES.iter().enumerate() {
            if *fk == kind && message.contains(fragment) {
                reached[k] = true;
                matched = true;
            }
        }
        assert!(
            matched,
            "{name}: {kind:?} `{message}` is in no family of ERROR_FAMILIES"
        );
    }
    let unreached: Vec<_> = ERROR_FAMILIES
        .iter()
        .zip(&reached)
        .filter(|(_, r)| !**r)
        .map(|(f, _)| f)
        .collect();
    assert!(unreached.is_empty(), "no seed in corpus/parse/ reaches {unreached:?}");
}

/// What a target draws from a seed: features of the input besides its
/// program (the model, what the run found), and the program.
type Decode<'a> = &'a dyn Fn(&[u8]) -> Option<(Features, Program)>;

/// The union of the features of `target`'s seeds.
fn generated(target: &str, decode: Decode) -> Features {
    let mut seen = Features::new();
    for (name, bytes) in seeds(target) {
        let (extra, p) = decode(&bytes).unwrap_or_else(|| panic!("corpus/{target}/{name} generates no program"));
        seen.extend(extra);
        seen.extend(program_features(&p));
    }
    seen
}

fn model_feature(m: MemoryModel) -> Features {
    Features::from([format!("model:{}", m.name())])
}

fn models_of_targets() -> Features {
    [MemoryModel::Rc11, MemoryModel::Sc, MemoryModel::Src11]
        .into_iter()
        .flat_map(model_feature)
        .collect()
}

fn assert_covers(target: &str, expected: Features, seen: &Features) {
    assert!(
        expected.is_subset(seen),
        "no seed in corpus/{target}/ generates:\n{}",
        missing(&expected, seen)
    );
}

#[test]
fn the_differential_corpus_covers_every_construct_of_its_generator() {
    let seen = generated("differential", &|d| {
        differential::input(d).map(|(m, p)| (model_feature(m), p))
    });
    let mut expected = shape_expected(&Shape::differential());
    expected.extend(models_of_targets());
    assert_covers("differential", expected, &seen);
}

#[test]
fn the_replay_corpus_covers_every_construct_of_its_generator() {
    let seen = generated("replay", &|d| {
        replay::input(d).map(|(m, p)| {
            let mut extra = model_feature(m);
            if replay::check_program(&p.to_string(), m) > 0 {
                extra.insert("replayed".into());
            }
            (extra, p)
        })
    });
    let mut expected = shape_expected(&Shape::replay());
    expected.extend(models_of_targets());
    // Some seed has a failure to replay (the target's property is about them).
    expected.insert("replayed".into());
    assert_covers("replay", expected, &seen);
}

#[test]
fn the_models_corpus_covers_every_construct_of_its_generator() {
    let seen = generated("models", &|d| {
        models::input(d).map(|(p, site)| {
            // The target narrows a scope only on GPU programs.
            let narrowed = p.on_gpu() && p.narrowed(site).is_some();
            let extra = if narrowed {
                Features::from(["narrowed".to_string()])
            } else {
                Features::new()
            };
            (extra, p)
        })
    });
    let mut expected = shape_expected(&Shape::models());
    expected.insert("narrowed".into());
    assert_covers("models", expected, &seen);
}

#[test]
fn the_drfrlx_corpus_covers_every_construct_of_its_generator() {
    let seen = generated("drfrlx", &|d| {
        drfrlx::input(d).map(|p| {
            let r = drfrlx::check_program(&p.to_string());
            let side = if r.races.is_empty() {
                "legal"
            } else if r.non_sc.is_empty() {
                "racy"
            } else {
                "racy-non-sc"
            };
            (Features::from([side.to_string()]), p)
        })
    });
    let mut expected = shape_expected(&Shape::drfrlx());
    // Both sides of the theorem: legal programs, and racy ones whose weak
    // results the analysis must blame on a race.
    expected.extend(["legal".to_string(), "racy-non-sc".to_string()]);
    assert_covers("drfrlx", expected, &seen);
}

/// The coverage lists are not vacuous: a plain two-thread test lacks most
/// constructs, and a shape without GPU threads expects no scope.
#[test]
fn the_coverage_lists_notice_what_is_missing() {
    let src = "C t\n{ [x] = 0; }\nP0 (atomic_int* x) { atomic_store(x, 1); }\nexists (x = 1)\n";
    let f = litmus_features(src).unwrap();
    assert!(f.contains("atomic:store") && f.contains("quantifier:exists"));
    let expected = litmus_expected();
    assert!(!f.contains("stmt:while") && expected.contains("stmt:while"));
    assert!(expected.contains("spell:memory_scope_work_item") && expected.contains("binop:>>"));
    let drf = shape_expected(&Shape::drfrlx());
    assert!(!drf.contains("scope:thread") && !drf.contains("step:fence") && !drf.contains("class:quantum"));
    assert!(drf.contains("class:speculative") && drf.contains("publishes"));
    let general = shape_expected(&Shape::models());
    assert!(general.contains("class:quantum") && general.contains("step:await") && general.contains("scope:warp"));
}
