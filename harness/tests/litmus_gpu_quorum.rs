//! Barriers whose arrivals ask for different quorums (corpus/gpu-quorum):
//! the barrier opens at the first arrival whose own quorum the arrivals so
//! far reach, the same rule in the memory models and in the liveness
//! search. Before, the models took the quorum of the barrier the graph
//! listed first, so swapping the two threads' quorums changed the verdict
//! (0 executions one way, 1 the other). A quorum of 0 is refused.

mod common;

use common::litmus_rows::{corpus_dir, every_row_agrees, model_options as opts, run_source as run_src, states};
use scopecheck::litmus::check_source;

fn source(file: &str) -> String {
    std::fs::read_to_string(corpus_dir("gpu-quorum").join(file)).unwrap()
}

#[test]
fn every_row_agrees_with_its_answer() {
    assert_eq!(every_row_agrees(&corpus_dir("gpu-quorum")), 10);
}

/// The file and the file with the two quorums swapped between the threads:
/// each has exactly the execution where the arrival asking for 3 comes
/// first (the other order never opens the barrier), so the read after it
/// sees the write before it.
#[test]
fn the_quorums_order_does_not_change_the_verdict() {
    let cases = [
        (
            "quorum-differ-vulkan.litmus",
            "cbar.acq_rel.dv.semsc0 1, 1, ",
            &["vulkan", "vulkan-nochains"][..],
        ),
        (
            "quorum-differ-ptx.litmus",
            "bar.cta.sync 1, 1, ",
            &["ptx6.0", "ptx7.5"][..],
        ),
    ];
    for (file, bar, models) in cases {
        let text = source(file);
        let swapped = text
            .replace(&format!("{bar}2"), "SWAP")
            .replace(&format!("{bar}3"), &format!("{bar}2"))
            .replace("SWAP", &format!("{bar}3"));
        assert_ne!(text, swapped, "{file}");
        for model in models {
            for (name, src) in [("as-written", &text), ("swapped", &swapped)] {
                let r = run_src(name, src, model);
                assert_eq!(states(&r), ["1:r0=1"], "{file} {name} {model}");
                assert_eq!((r.verdict(), r.executions), (Some(false), 1), "{file} {name} {model}");
            }
        }
    }
}

/// `cbar ... 1, 1, 0` waits for nobody: refused at the instruction.
#[test]
fn a_quorum_of_zero_is_refused_where_it_is_written() {
    let text = source("quorum-differ-vulkan.litmus").replace("1, 1, 2 ;", "1, 1, 0 ;");
    let e = check_source("zero.litmus", &text, &opts("vulkan")).unwrap_err();
    assert_eq!(
        e.located("zero.litmus"),
        "zero.litmus:9:35: a barrier's quorum (the threads it waits for) must be at least 1, found 0"
    );
}
