//! Time bounds honoured inside one execution, and runs in which no
//! execution completed: the result says it is incomplete (and why), no
//! failure is made up by the cut, and no verdict is drawn from zero
//! executions.
//!
//! None of these tests is timed: each asserts the verdict and the reason.
//! Where a run could hang without the fix, it runs on another OS thread and
//! a generous wall-time guard (many times the bound) turns the hang into a
//! failure instead.

mod common;
use common::within;

// The command's JSON writer (not part of the library since issue 21 item 7).
#[path = "../src/cli/json.rs"]
#[allow(dead_code)]
mod json;

use json::result_json;
use scopecheck::litmus::output::herd_text;
use scopecheck::litmus::{check_source, Options};
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder};
use std::time::Duration;

const BOUND: Duration = Duration::from_millis(200);
const GUARD: Duration = Duration::from_secs(20);

/// A model whose only execution is far longer than the bound.
fn long_builder() -> Builder {
    let mut b = Builder::new();
    b.max_duration = Some(BOUND);
    b.max_steps = u64::MAX;
    b
}

#[test]
fn one_long_execution_is_cut_at_max_duration_without_a_failure() {
    let r = within(GUARD, || {
        long_builder().explore(|| {
            let n = AtomicUsize::new(0);
            for _ in 0..100_000_000u64 {
                n.fetch_add(1, Ordering::Relaxed);
            }
            // Never reached: an assertion the cut must not turn into a failure.
            assert_eq!(n.load(Ordering::Relaxed), 0);
        })
    });
    assert!(!r.is_complete(), "{r}");
    let why = r.incomplete_reason().expect("a reason");
    assert!(why.starts_with("stopped after max_duration = 200ms"), "{why}");
    assert!(why.contains("not counted"), "{why}");
    assert!(r.failures().is_empty(), "{r}");
    // The cut execution is neither complete, nor blocked, nor failed.
    assert_eq!((r.executions(), r.blocked(), r.failed()), (0, 0, 0), "{r}");
    assert!(
        r.no_answer().is_some_and(|a| a.contains("before the run stopped")),
        "{r}"
    );
}

#[test]
fn a_long_execution_among_short_ones_is_cut_and_the_short_ones_count() {
    // Two threads: one execution order lets the reader see the flag and
    // loop for a long time; the others end at once.
    let r = within(GUARD, || {
        long_builder().explore(|| {
            let flag = Arc::new(AtomicUsize::new(0));
            let f2 = flag.clone();
            let h = thread::spawn(move || f2.store(1, Ordering::Relaxed));
            if flag.load(Ordering::Relaxed) == 1 {
                let spin = AtomicUsize::new(0);
                for _ in 0..100_000_000u64 {
                    spin.fetch_add(1, Ordering::Relaxed);
                }
            }
            h.join().unwrap();
        })
    });
    assert!(!r.is_complete(), "{r}");
    assert_eq!(
        r.incomplete_reason(),
        Some(format!("stopped after max_duration = {BOUND:?} (an execution the deadline cut is not counted)").as_str()),
        "{r}"
    );
    assert!(r.failures().is_empty(), "{r}");
    // Exhaustively there are two executions: the short one (the load reads
    // the initial 0, the explorer's first choice) counts, the long one is
    // cut and not counted.
    assert_eq!(r.executions(), 1, "{r}");
    assert_eq!((r.blocked(), r.failed()), (0, 0), "{r}");
}

#[test]
fn the_parallel_explorer_cuts_long_executions_at_its_deadline() {
    let r = within(GUARD, || {
        long_builder().explore_parallel(2, || {
            let a = Arc::new(AtomicUsize::new(0));
            let b = a.clone();
            let h = thread::spawn(move || {
                for _ in 0..100_000_000u64 {
                    b.fetch_add(1, Ordering::Relaxed);
                }
            });
            for _ in 0..100_000_000u64 {
                a.fetch_add(1, Ordering::Relaxed);
            }
            h.join().unwrap();
        })
    });
    assert!(!r.is_complete(), "{r}");
    assert!(r.incomplete_reason().unwrap().contains("max_duration"), "{r}");
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!((r.executions(), r.failed()), (0, 0), "{r}");
}

#[test]
fn a_model_whose_every_execution_gives_up_has_no_answer_and_check_says_so() {
    let body = || {
        let x = AtomicUsize::new(0);
        let h = thread::spawn(|| ());
        x.store(1, Ordering::Relaxed);
        h.join().unwrap();
        // Every execution gives up here, as a litmus loop past its unroll
        // bound does.
        scopecheck_instrument::rt::discard();
    };
    let r = Builder::new().explore(body);
    assert!(r.is_complete(), "{r}");
    assert_eq!((r.executions(), r.blocked(), r.failed()), (0, 1, 0), "{r}");
    let why = r.no_answer().expect("no execution completed");
    assert!(why.starts_with("no execution completed: all 1 were abandoned"), "{why}");
    assert!(r.to_string().contains("nothing was checked"), "{r}");
    // `check` must not pass a program it never saw finish.
    let p = std::panic::catch_unwind(|| Builder::new().check(body)).expect_err("check panics");
    let msg = scopecheck_instrument::rt::panic_message(&*p);
    assert!(msg.contains("no execution completed"), "{msg}");
}

const WHILE_ONE: &str = "C forever\n{ x = 0; }\n\
P0 (atomic_int* x) {\n  int r0 = 0;\n  while (1) { r0 = r0 + 1; }\n}\n\
P1 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
exists (x=1)\n";

/// A `while (1)` under a huge `--unroll` and a timeout ends at whichever
/// bound comes first, never running on: every iteration, even one that
/// touches no memory, is a step of its thread, so here `max_steps` (100,000
/// steps, far less than the 200 ms deadline allows) makes it a runaway that
/// names `--unroll`. (The deadline inside an execution is tested above on
/// Rust programs, and with a timeout that passes at once in litmus_cli.)
#[test]
fn a_litmus_while_1_under_a_huge_unroll_ends_at_a_bound() {
    for body in [
        "while (1) { r0 = r0 + 1; }",
        "while (1) { }",
        "while (r0 == 0) { if (r0 == 1) { r0 = 2; } }",
    ] {
        let src = WHILE_ONE.replace("while (1) { r0 = r0 + 1; }", body);
        let r = within(GUARD, move || {
            let opts = Options {
                unroll: u32::MAX,
                max_duration: Some(Duration::from_secs(60)),
                ..Options::default()
            };
            check_source("forever.litmus", &src, &opts).expect("a result")
        });
        assert_eq!(r.failures.len(), 1, "{body}: {:?}", r.failures);
        let f = &r.failures[0];
        assert_eq!(f.kind(), scopecheck::FailureKind::Runaway, "{body}");
        assert!(f.message().contains("--unroll"), "{body}: {}", f.message());
        assert_eq!(r.executions, 0, "{body}");
        let text = herd_text(&r);
        assert!(!text.contains("Never"), "{text}");
        let json = result_json("forever.litmus", &r);
        assert_eq!(
            json["failures"][0]["kind"],
            serde_json::Value::String("runaway thread".into()),
            "{json}"
        );
    }
}

#[test]
fn a_litmus_test_whose_every_execution_is_discarded_has_no_verdict() {
    for (cond, herd) in [("exists (x=1)", "No"), ("~exists (x=1)", "Ok"), ("forall (x=1)", "Ok")] {
        let src = WHILE_ONE.replace("exists (x=1)", cond);
        let r = check_source("forever.litmus", &src, &Options::default()).expect("a result");
        assert!(r.complete, "{cond}");
        assert!(r.failures.is_empty(), "{cond}");
        assert_eq!((r.executions, r.positive, r.negative), (0, 0, 0), "{cond}");
        assert!(r.blocked > 0, "{cond}");
        // herd would answer `{herd}` from zero states; scopecheck answers nothing.
        assert_eq!(r.verdict(), None, "{cond} (herd: {herd})");
        let why = r.no_answer.as_deref().expect("why there is no answer");
        assert!(
            why.starts_with("no execution completed: every execution was discarded"),
            "{why}"
        );
        assert!(why.contains("more than --unroll 2 iterations"), "{why}");
        let text = herd_text(&r);
        assert!(text.contains("\n??\n"), "{text}");
        assert!(text.contains(&format!("No answer: {why}")), "{text}");
        assert!(text.contains("Observation forever ?? 0 0\n"), "{text}");
        let json = result_json("forever.litmus", &r);
        assert_eq!(json["verdict"], serde_json::Value::Null, "{json}");
        assert_eq!(json["observation"], serde_json::Value::Null, "{json}");
        assert_eq!(json["no_answer"], serde_json::Value::String(why.to_string()), "{json}");
        assert_eq!(json["complete"], serde_json::Value::Bool(true), "{json}");
    }
}

#[test]
fn a_litmus_test_with_some_completed_executions_keeps_its_verdict() {
    // Executions that need more iterations are discarded, as herd does;
    // the others answer the condition.
    let src = "C some\n{ x = 0; }\n\
P0 (atomic_int* x) {\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n  while (r0 == 0) { r0 = atomic_load_explicit(x, memory_order_relaxed); }\n}\n\
P1 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n\
exists (0:r0=1)\n";
    let r = check_source("some.litmus", src, &Options::default()).expect("a result");
    assert!(r.complete && r.failures.is_empty());
    assert!(r.executions > 0 && r.blocked > 0, "{}", herd_text(&r));
    assert_eq!(r.no_answer, None);
    assert_eq!(r.verdict(), Some(true));
}

#[test]
fn a_shard_that_owns_no_execution_is_not_a_run_without_an_answer() {
    // Two executions split over four shards: some shards own none. Each
    // passes (the others judge those executions), and says nothing about
    // executions that did not complete.
    let mut owned = 0;
    for index in 0..4 {
        let mut b = Builder::new();
        b.strategy = scopecheck::Strategy::Shard { index, count: 4 };
        let body = || {
            let x = Arc::new(AtomicUsize::new(0));
            let y = x.clone();
            let h = thread::spawn(move || y.store(1, Ordering::Relaxed));
            x.load(Ordering::Relaxed);
            h.join().unwrap();
        };
        let r = b.explore(body);
        assert!(r.is_complete() && r.failures().is_empty(), "{r}");
        assert_eq!(r.no_answer(), None, "{r}");
        owned += r.executions();
        b.check(body);
    }
    assert_eq!(owned, 2);
}

/// A `max_duration` too long for the clock to hold (`Duration::MAX`, or
/// `u64::MAX` seconds) is no deadline: the run is exhaustive and complete,
/// single or parallel (it used to panic in std's `Instant` addition).
#[test]
fn a_max_duration_past_the_clock_is_no_deadline() {
    let two_writers = || {
        let x = Arc::new(AtomicUsize::new(0));
        let x2 = x.clone();
        let h = thread::spawn(move || x2.store(1, Ordering::Relaxed));
        x.store(2, Ordering::Relaxed);
        h.join().unwrap();
    };
    for d in [Duration::MAX, Duration::from_secs(u64::MAX)] {
        let mut b = Builder::new();
        b.max_duration = Some(d);
        let r = b.explore(two_writers);
        assert!(r.is_complete(), "{d:?}: {r}");
        assert_eq!(r.executions(), 2, "{d:?}: {r}");
        let r = b.explore_parallel(2, two_writers);
        assert!(r.is_complete(), "{d:?} parallel: {r}");
        assert_eq!(r.executions(), 2, "{d:?} parallel: {r}");
    }
}

/// Nested loops whose bodies touch no memory: each loop is bounded by
/// `--unroll`, but 24 of them nested make 2^24 iterations. Every iteration
/// is a step of its thread, so the thread is a runaway after `max_steps`
/// (it used to run for hours: such iterations counted toward nothing but
/// the deadline, and there is none by default).
#[test]
fn nested_local_loops_count_toward_max_steps() {
    let mut body = String::new();
    for i in 0..24 {
        body.push_str(&format!("int c{i} = 0; while (c{i} < 2) {{ c{i} = c{i} + 1; "));
    }
    body.push_str(&"}".repeat(24));
    let src = format!(
        "C nested\n{{ [x] = 0; }}\nP0 (atomic_int* x) {{\n  int r0 = 0;\n  {body}\n  \
         atomic_store_explicit(x, r0, memory_order_relaxed);\n}}\nexists (x=1)\n"
    );
    let r = within(GUARD, move || {
        check_source("nested.litmus", &src, &Options::default()).expect("a result")
    });
    assert_eq!(r.failures.len(), 1, "{:?}", r.failures);
    let f = &r.failures[0];
    assert_eq!(f.kind(), scopecheck::FailureKind::Runaway);
    assert!(f.message().contains("steps in one execution"), "{}", f.message());
    assert!(f.message().contains("--unroll"), "{}", f.message());
}
