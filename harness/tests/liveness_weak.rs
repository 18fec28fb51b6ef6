//! Liveness under the hardware models (harness/src/litmus/liveness_weak.rs):
//! spins that only weak memory makes endless, on the repository's own
//! tests in corpus/gpu-weak-liveness, with exact verdicts per hardware
//! model and progress model, and exact witnesses.

use scopecheck::litmus::ast::Pos;
use scopecheck::litmus::liveness::{self, KeptRead, Liveness, ProgressModel, WeakSearch, Witness};
use scopecheck::litmus::{expect, parse, LitmusModel};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-weak-liveness")
}

/// Each file, its two hardware models, and its verdict (every execution
/// ends) under fair, obe, hsa, lobe and hsa_obe, worked out by hand.
const TABLE: [(&str, [&str; 2], [bool; 5]); 9] = [
    // Weak PTX stores in different CTAs: P1 may read its own f=1 forever.
    // The other models need not run P0 at all (sequentially consistent already).
    ("ptx-weak-handoff.litmus", ["ptx6.0", "ptx7.5"], [false; 5]),
    // The loop's lines store, on the way out only: the spin itself is quiet.
    ("ptx-weak-exit-store.litmus", ["ptx6.0", "ptx7.5"], [false; 5]),
    // P0 stores only after three iterations of its loop (two backward jumps):
    // the unrolling must go deeper than one jump to see P0 finish.
    ("ptx-weak-count-handoff.litmus", ["ptx6.0", "ptx7.5"], [false; 5]),
    // Morally strong: P0's f=2 is co-after the f=1 it read.
    (
        "ptx-relaxed-handoff.litmus",
        ["ptx6.0", "ptx7.5"],
        [true, false, false, false, false],
    ),
    // Workgroup-scope atomics of different workgroups: out of each other's scope.
    ("vulkan-wg-handoff.litmus", ["vulkan", "vulkan-nochains"], [false; 5]),
    // The same after four iterations of P0's loop: the deepest unrolling.
    (
        "vulkan-wg-count-handoff.litmus",
        ["vulkan", "vulkan-nochains"],
        [false; 5],
    ),
    (
        "vulkan-dv-handoff.litmus",
        ["vulkan", "vulkan-nochains"],
        [true, false, false, false, false],
    ),
    // After a barrier both have started: only weak memory (and hsa) spins.
    (
        "vulkan-nonatomic-barrier.litmus",
        ["vulkan", "vulkan-nochains"],
        [false; 5],
    ),
    (
        "vulkan-atomic-barrier.litmus",
        ["vulkan", "vulkan-nochains"],
        [true, true, false, true, true],
    ),
];

fn under(file: &Path, model: &str, p: ProgressModel) -> Liveness {
    let m = match model.parse::<LitmusModel>() {
        Ok(LitmusModel::Gpu(m)) => m,
        other => panic!("{model}: {other:?}"),
    };
    let (_, r) = liveness::check_path_under(file, Some(m), &[p])
        .pop()
        .expect("one answer");
    r.unwrap_or_else(|e| panic!("{} under {model}, {p}: {e}", file.display()))
}

#[test]
fn verdicts_per_hardware_and_progress_model() {
    for (file, models, want) in TABLE {
        for model in models {
            let got: Vec<bool> = ProgressModel::ALL
                .iter()
                .map(|&p| under(&dir().join(file), model, p).live)
                .collect();
            assert_eq!(got, want, "{file} under {model}: fair, obe, hsa, lobe, hsa_obe");
        }
    }
}

/// The corpus's expectation file says the same as [`TABLE`].
#[test]
fn expectation_file_matches_the_table() {
    let rows = expect::load(&dir().join("expected.tsv")).expect("expected.tsv loads");
    assert_eq!(rows.len(), 2 * TABLE.len());
    for (file, models, want) in TABLE {
        for model in models {
            let row = rows
                .iter()
                .find(|r| r.path_text == file && r.model.name() == model)
                .unwrap_or_else(|| panic!("{file} {model} has rows"));
            let found: Vec<(ProgressModel, Result<bool, String>)> =
                ProgressModel::ALL.iter().zip(want).map(|(&p, w)| (p, Ok(w))).collect();
            assert!(expect::compare_liveness(row, &found).is_empty(), "{file} {model}");
        }
    }
}

#[test]
fn witness_names_the_spin_and_the_write_it_keeps_reading() {
    let l = under(&dir().join("ptx-weak-handoff.litmus"), "ptx7.5", ProgressModel::Fair);
    assert_eq!(
        l.witness,
        Some(Witness {
            spinning: vec![(1, Pos { line: 15, col: 20 })],
            blocked: Vec::new(),
            starved: Vec::new(),
            finished: vec![0],
            keeps_reading: vec![KeptRead {
                thread: 1,
                loc: "f".into(),
                value: 1,
                writer: Some((1, 12)),
            }],
        })
    );
    assert!(matches!(l.weak, WeakSearch::Done(n) if n > 0), "{:?}", l.weak);
    assert_eq!(
        l.witness.unwrap().text("t.litmus"),
        "P1 spins forever in the loop at t.litmus:15, reading f = 1 (P1's write at line 12, co-last) forever \
         under the memory model; P0 finished"
    );
    // A barrier passed by both, and a progress model other than fair.
    let l = under(
        &dir().join("vulkan-nonatomic-barrier.litmus"),
        "vulkan",
        ProgressModel::Obe,
    );
    let w = l.witness.expect("a violation");
    assert_eq!(
        w.spinning.iter().map(|(t, p)| (*t, p.line)).collect::<Vec<_>>(),
        vec![(1, 18)]
    );
    assert_eq!(w.finished, vec![0]);
    assert_eq!(w.keeps_reading.len(), 1);
    // The sequentially consistent search answers first when it finds one.
    let l = under(
        &dir().join("vulkan-atomic-barrier.litmus"),
        "vulkan",
        ProgressModel::Hsa,
    );
    assert_eq!(l.weak, WeakSearch::NotNeeded);
    assert!(l.witness.unwrap().keeps_reading.is_empty());
}

/// Dat3M's XF-Barrier-weak (the public corpus, when present): P1 reads its
/// own weak f=1 forever while P2 waits at the second barrier.
#[test]
fn xf_barrier_weak_is_not_live_under_fair() {
    let dir = match std::env::var_os("SCOPECHECK_GPU_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus/gpu"),
    };
    let file = dir.join("ptx/Manual/XF-Barrier-weak.litmus");
    if !file.exists() {
        eprintln!("skipped: {} not present", file.display());
        return;
    }
    let l = under(&file, "ptx7.5", ProgressModel::Fair);
    let w = l.witness.expect("a violation");
    assert_eq!(
        w.spinning.iter().map(|(t, p)| (*t, p.line)).collect::<Vec<_>>(),
        vec![(1, 17)]
    );
    assert_eq!(
        w.blocked.iter().map(|(t, p)| (*t, p.line)).collect::<Vec<_>>(),
        vec![(2, 13)]
    );
    assert_eq!(w.finished, vec![0]);
    assert_eq!(
        w.keeps_reading,
        vec![KeptRead {
            thread: 1,
            loc: "f".into(),
            value: 1,
            writer: Some((1, 13)),
        }]
    );
    // With release/acquire the flag's stores are morally strong: live.
    let relacq = file.with_file_name("XF-Barrier-relacq.litmus");
    assert!(under(&relacq, "ptx7.5", ProgressModel::Fair).live);
}

/// A loop that stores on every iteration (an exchange) cannot spin without
/// side effects: the search under the memory model is not run, and says so.
#[test]
fn a_loop_that_always_stores_is_left_to_the_sc_search() {
    let src = "PTX exch-spin\n{\nx=0;\nP0:r0=0;\n}\n P0@cta 0,gpu 0                   | P1@cta 1,gpu 0 ;\n \
               LC00:                            | st.weak x, 1   ;\n atom.relaxed.gpu.exch r0, x, 0   |                \
               ;\n beq r0, 0, LC00                  |                ;\nexists (P0:r0 == 1)\n";
    let l = liveness::check(&parse(src).unwrap(), ProgressModel::Fair).unwrap();
    assert!(l.live);
    assert_eq!(
        l.weak,
        WeakSearch::Skipped("no loop can repeat without storing, an RMW or a barrier".into())
    );
}

/// Past the deepest unrolling (five iterations needed, four unrolled) the
/// violation under `fair` is not found, and the answer says the loops were
/// cut there rather than claiming the search was exhaustive.
#[test]
fn a_thread_needing_more_iterations_than_the_bound_is_reported() {
    let file = dir().join("ptx-weak-count-deep.litmus");
    for model in ["ptx6.0", "ptx7.5"] {
        let l = under(&file, model, ProgressModel::Fair);
        assert!(
            matches!(l.weak, WeakSearch::Bounded(n) if n > 0),
            "{model}: {:?}",
            l.weak
        );
        assert!(
            l.text("f")
                .contains("loops cut at 4 iterations as in Dat3M's bound (a thread still needed more)"),
            "{}",
            l.text("f")
        );
        // Under the others P0 waits for a P1 that need never start (no bound involved).
        for p in [
            ProgressModel::Obe,
            ProgressModel::Hsa,
            ProgressModel::Lobe,
            ProgressModel::HsaObe,
        ] {
            assert!(!under(&file, model, p).live, "{model} {p}");
        }
    }
}

/// A reader that may keep reading a stale value is not a reason to unroll
/// deeper: more iterations only repeat reads it already made. P1 of
/// ptx-relaxed-handoff can read its own f=1 twice before P0's f=2; the
/// search stays at one backward jump (7 executions) and is exhaustive there.
#[test]
fn a_reader_of_stale_values_is_not_cut_short() {
    let file = dir().join("ptx-relaxed-handoff.litmus");
    for model in ["ptx6.0", "ptx7.5"] {
        let l = under(&file, model, ProgressModel::Fair);
        assert!(l.live, "{model}");
        assert_eq!(l.weak, WeakSearch::Done(7), "{model}");
    }
}

/// Several progress models at once share the state space and the
/// executions under the memory model, and answer as one model at a time.
#[test]
fn every_progress_model_at_once_answers_as_one_at_a_time() {
    let mut files: Vec<(&str, [&str; 2])> = TABLE.iter().map(|(f, m, _)| (*f, *m)).collect();
    files.push(("ptx-weak-count-deep.litmus", ["ptx6.0", "ptx7.5"]));
    for (file, models) in files {
        for model in models {
            let m = match model.parse::<LitmusModel>() {
                Ok(LitmusModel::Gpu(m)) => m,
                other => panic!("{model}: {other:?}"),
            };
            let all = liveness::check_path_under(&dir().join(file), Some(m), &ProgressModel::ALL);
            assert_eq!(all.len(), 5);
            for (p, r) in all {
                let one = under(&dir().join(file), model, p);
                let r = r.unwrap_or_else(|e| panic!("{file} {model} {p}: {e}"));
                assert_eq!(
                    (r.live, r.weak, r.states, r.witness.map(|w| w.text(file))),
                    (one.live, one.weak, one.states, one.witness.map(|w| w.text(file))),
                    "{file} under {model}, {p}"
                );
            }
        }
    }
}
