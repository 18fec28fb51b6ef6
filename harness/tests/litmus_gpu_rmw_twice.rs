//! A thread run alone with the promising thread cannot read one promised
//! value by two RMWs (an RMW consumes the write it reads; the promising
//! thread stores each value once): the po ∪ rf-cyclic enumeration must say
//! it left those paths out instead of claiming a complete outcome set
//! (docs/gpu-models.md section 5 item 1; corpus/gpu-rmw-twice).

use scopecheck::litmus::{check_source, LitmusModel, Options, TestResult};
use std::path::Path;

fn own(file: &str, model: &str) -> TestResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-rmw-twice");
    let src = std::fs::read_to_string(dir.join(file)).unwrap();
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source(file, &src, &opts).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

/// The result must not be complete, must say why exactly, and must claim
/// no verdict the executions found do not prove (each test's condition
/// holds in an execution the split leaves out).
fn says_lost(r: &TestResult, what: &str) {
    assert!(!r.complete, "{}: claims completeness", r.name);
    let why = r.incomplete_reason.as_deref().unwrap_or("");
    assert!(
        why.starts_with(&format!(
            "a thread's path needs two RMWs to read one promised write (P1 alone: {what})"
        )),
        "{}: {why}",
        r.name
    );
    assert!(r.failures.is_empty(), "{}: {:?}", r.name, r.failures);
    assert_eq!(r.positive, 0, "{}", r.name);
    assert_eq!(
        r.verdict(),
        None,
        "{}: an `exists` it did not find is not `false`",
        r.name
    );
    assert!(r.partial().is_some(), "{}", r.name);
}

#[test]
fn two_rmws_reading_one_promised_value_are_not_claimed_complete() {
    // P1 exchanges 0 and then 1, reading 1 twice (P0's and P2's writes).
    // The 10 executions found are those where P1 does not read 1 twice.
    for (file, model) in [
        ("rmw-twice-vulkan.litmus", "vulkan"),
        ("rmw-twice-vulkan.litmus", "vulkan-nochains"),
        ("rmw-twice-ptx.litmus", "ptx6.0"),
        ("rmw-twice-ptx.litmus", "ptx7.5"),
    ] {
        let r = own(file, model);
        says_lost(&r, "1 at x");
        assert_eq!(r.executions, 10, "{file} {model}");
    }
}

#[test]
fn two_rmws_reading_the_initial_value_are_not_claimed_complete() {
    // P1's add and exchange both read 0: the initial write and P0's store.
    for model in ["ptx6.0", "ptx7.5"] {
        let r = own("rmw-init-twice-ptx.litmus", model);
        says_lost(&r, "0 at x");
        assert_eq!(r.executions, 2, "{model}");
    }
}

#[test]
fn two_rmws_that_never_need_one_value_twice_stay_complete() {
    // P0 exchanges 1 twice: its exchanges read the initial 0 and its own
    // first 1 (atomicity: mo init, W1, W2); P1's load reads any of the
    // three writes. 3 executions, one with r2 = 0.
    for model in ["vulkan", "vulkan-nochains"] {
        let r = own("rmw-once-vulkan.litmus", model);
        assert!(r.complete, "{model}: {:?}", r.incomplete_reason);
        assert_eq!(r.incomplete_reason, None);
        assert_eq!((r.executions, r.positive, r.negative), (3, 1, 2), "{model}");
        assert_eq!(r.verdict(), Some(true), "{model}");
    }
}

#[test]
fn c_tests_split_that_way_are_enumerated_whole() {
    // A C test's split that left such a path out is enumerated again with
    // all threads at once (cyclic.rs `explore`): the exact hand count, 12
    // executions of which 2 read 1 twice. Before, the split's 10 executions
    // were claimed complete and the condition `Never`.
    let r = own("rmw-twice-c11.litmus", "c11");
    assert!(r.complete, "{:?}", r.incomplete_reason);
    assert_eq!((r.executions, r.positive, r.negative), (12, 2, 10));
    assert_eq!(r.verdict(), Some(true));
}
