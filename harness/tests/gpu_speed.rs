//! The work the po ∪ rf-cyclic enumeration does on ticket locks
//! (docs/gpu-models.md section 5, "Speed"): exact answers, and the count
//! of blocked runs and rejected graphs (`blocked`), which the explorer of
//! the threads' runs alone decides. The tests are scopecheck's own, in
//! corpus/gpu-speed.

use scopecheck::litmus::{check_file, LitmusModel, Options, TestResult};
use std::path::Path;

fn run(name: &str, model: &str) -> TestResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/gpu-speed")
        .join(name);
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().expect("a model name")),
        ..Options::default()
    };
    check_file(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// Two threads of one CTA: the tickets' adds are morally strong, so the
/// tickets differ and the critical sections never overlap (no execution
/// has both threads read x = 0). Each thread's runs alone are explored
/// value by value: 1,610 blocked runs and rejected graphs, where the
/// optimal explorer's runs alone (one per rf and mo choice) made it 1,946.
#[test]
fn a_cta_ticket_lock_is_exclusive_and_its_runs_alone_are_few() {
    for model in ["ptx7.5", "ptx6.0"] {
        let r = run("ticketlock-cta.litmus", model);
        assert!(r.complete, "{model}: {:?}", r.incomplete_reason);
        assert_eq!(r.executions, 6, "{model}");
        assert_eq!((r.positive, r.negative), (0, 6), "{model}");
        assert_eq!(r.verdict(), Some(false), "{model}");
        assert_eq!(r.blocked, 1_610, "{model}");
    }
}

/// The same lock at GPU scope on two GPUs: the adds are not morally
/// strong, both threads may draw ticket 0, and both may read x = 0. Of its
/// 35,721 combinations of the threads' ways most have a read no write
/// gives a value to; they are no longer built (the same 864 executions).
#[test]
fn a_ticket_lock_across_gpus_is_not_exclusive() {
    let r = run("ticketlock-gpus.litmus", "ptx7.5");
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!(r.executions, 864);
    assert_eq!((r.positive, r.negative), (216, 648));
    assert_eq!(r.verdict(), Some(true));
    assert_eq!(r.blocked, 12_848);
}
