//! Two RMWs of one thread reading one promised value (docs/gpu-models.md
//! section 5 item 1; corpus/gpu-rmw-twice). A thread runs alone with the
//! promising thread, which stores each value once; its RMWs run there as
//! loads and stores (`split_rmw.rs`), so any number of them read one
//! promised value, and the combinations give each its real write. Before,
//! an RMW consumed the promised write alone, those paths were never run,
//! and the result said it was incomplete (PTX, Vulkan) or was enumerated
//! again with all threads at once (C). A weak compare-exchange is still
//! not split: that is still detected.

mod common;

use common::litmus_rows::{corpus_dir, exact, run_file};
use scopecheck::litmus::TestResult;

/// corpus/gpu-rmw-twice's `file` under `model`.
fn own(file: &str, model: &str) -> TestResult {
    run_file(&corpus_dir("gpu-rmw-twice"), file, model)
}

#[test]
fn two_rmws_reading_one_promised_value() {
    // P0 and P2 exchange 1, P1 exchanges 0 and then 1. The four RMWs are
    // one chain in mo (atomicity and coherence on one location, one
    // scope), each reading its predecessor, P1's in po order: 4!/2 = 12
    // executions. P1 reads 1 twice when its first directly follows one of
    // P0's and P2's exchanges and its second the other: 2 of them. Before,
    // 10 executions and "incomplete".
    for (file, model) in [
        ("rmw-twice-vulkan.litmus", "vulkan"),
        ("rmw-twice-vulkan.litmus", "vulkan-nochains"),
        ("rmw-twice-ptx.litmus", "ptx6.0"),
        ("rmw-twice-ptx.litmus", "ptx7.5"),
    ] {
        exact(&own(file, model), 12, 2, true);
    }
}

#[test]
fn two_rmws_reading_the_initial_value() {
    // P1 exchanges 1 (X1) and then 5 (X5), P0 stores 0 (W). Orders of
    // {W, X1, X5} with X1 before X5, each exchange reading its
    // predecessor: W X1 X5 (0, 1), X1 W X5 (0, 0), X1 X5 W (0, 1): 3
    // executions, one with both reading 0. Before, 2 and "incomplete".
    for model in ["ptx6.0", "ptx7.5"] {
        exact(&own("rmw-init-twice-ptx.litmus", model), 3, 1, true);
    }
}

#[test]
fn two_rmws_that_never_need_one_value_twice() {
    // P0 exchanges 1 twice: its exchanges read the initial 0 and its own
    // first 1 (atomicity: mo init, W1, W2); P1's load reads any of the
    // three writes. 3 executions, one with r2 = 0.
    for model in ["vulkan", "vulkan-nochains"] {
        exact(&own("rmw-once-vulkan.litmus", model), 3, 1, true);
    }
}

#[test]
fn c_tests_need_no_whole_run_for_it() {
    // The C shape of rmw-twice: the hand count as above, 12 executions of
    // which 2 read 1 twice, now from the thread-by-thread enumeration (the
    // whole-run fallback gave the same; before it the split's 10 were
    // claimed complete). Under opencl, whose RMWs need not be one chain:
    // 24, 8 positive, as the all-threads-at-once enumeration finds
    // (tests/litmus_split_whole.rs compares the two).
    exact(&own("rmw-twice-c11.litmus", "c11"), 12, 2, true);
    exact(&own("rmw-twice-c11.litmus", "opencl"), 24, 8, true);
}

#[test]
fn weak_compare_exchanges_are_still_detected() {
    // A weak compare-exchange runs whole alone and consumes the promised
    // 1: the split says it left P1's path out, and the test is enumerated
    // with all threads at once (the counts are that enumeration's).
    let r = own("rmw-twice-weak-c11.litmus", "c11");
    exact(&r, 27, 2, true);
    let r = own("rmw-twice-weak-c11.litmus", "opencl");
    exact(&r, 50, 4, true);
}

#[test]
fn spinning_exchanges() {
    // P0 exchanges 0 until it reads something other than 1, P1 exchanges
    // 1 until it reads something other than 0; one chain in mo, a loop's
    // body at most 3 times at --unroll 2: A B B, B B A A, B A A B B,
    // B A B B A A (the file says how). Before, 2 and "incomplete".
    for (file, model) in [
        ("rmw-spin-ptx.litmus", "ptx6.0"),
        ("rmw-spin-ptx.litmus", "ptx7.5"),
        ("rmw-spin-vulkan.litmus", "vulkan"),
    ] {
        exact(&own(file, model), 4, 4, true);
    }
}
