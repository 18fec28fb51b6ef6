//! DRFrlx (seed 004): the six use cases of section 3, each as the paper
//! labels it and mislabelled, the two executions of figure 2, and class
//! inference with the labels removed. Every verdict is exact: the set of race
//! kinds, and for legal programs the execution counts.

mod common;

use common::one_failure;
use scopecheck::cell::UnsafeCell;
use scopecheck::drfrlx::{Check, Class, DrfReport, Infer, RaceKind, Suggestion};
use scopecheck::sync::atomic::{AtomicBool, AtomicU32, Ordering::*};
use scopecheck::sync::Arc;
use scopecheck::thread;
use scopecheck::FailureKind;

/// A check that also infers classes for classified atomics.
fn all_inferred() -> Check {
    Check {
        infer: Infer::All,
        ..Check::new()
    }
}

fn kinds(r: &scopecheck::drfrlx::DrfReport) -> Vec<RaceKind> {
    r.race_kinds()
}

/// The line of this file holding `text` (reports name lines; finding them
/// here keeps the tests right when the file changes).
fn line_of(text: &str) -> u32 {
    let src = include_str!("drfrlx.rs");
    let lines: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(text) && !l.contains(&format!("\"{text}")))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{text:?} is on exactly one line");
    lines[0]
}

// ---------------------------------------------------------------- figure 2

/// Figure 2: thread 1 stores X (unpaired) then Y (non-ordering); thread 2
/// loads Y (non-ordering) then X (unpaired). In (b) a paired store and load
/// of Z add a valid path from X=3 to r2=X. Thread 2 publishes what it read
/// (a paired store to `published`), so the final memory tells the executions apart.
fn figure_2(with_z: bool) -> scopecheck::drfrlx::DrfReport {
    Check::new().explore(move || {
        let published = Arc::new(AtomicU32::new(0));
        let x = Arc::new(AtomicU32::new(0));
        let y = Arc::new(AtomicU32::new(0));
        let z = Arc::new(AtomicU32::new(0));
        let (x2, y2, z2) = (x.clone(), y.clone(), z.clone());
        let t = thread::spawn(move || {
            x2.rlx(Class::Unpaired).store(3);
            if with_z {
                z2.store(1, SeqCst);
            }
            y2.rlx(Class::NonOrdering).store(2);
        });
        let r1 = y.rlx(Class::NonOrdering).load().get();
        if with_z {
            let _r0 = z.load(SeqCst);
        }
        let r2 = x.rlx(Class::Unpaired).load().get();
        published.store(r1 * 10 + r2, SeqCst);
        t.join().unwrap();
    })
}

#[test]
fn figure_2a_is_a_non_ordering_race_with_its_path() {
    let r = figure_2(false);
    assert_eq!(kinds(&r), vec![RaceKind::NonOrdering], "{r}");
    let race = &r.races[0];
    assert_eq!(
        race.first.0.line(),
        line_of("y2.rlx(Class::NonOrdering).store(2)"),
        "{r}"
    );
    assert_eq!(race.second.0.line(), line_of("let r1 = y.rlx"), "{r}");
    let path = race.path.as_ref().expect("a non-ordering race shows its path");
    // X=3 -po-> Y=2 -co-> r1=Y -po-> r2=X, then the reason.
    assert_eq!(path.len(), 5, "{path:?}");
    let at = |text: &str| format!("drfrlx.rs:{}:", line_of(text));
    assert!(path[0].contains(&at("x2.rlx(Class::Unpaired).store(3)")), "{path:?}");
    assert!(path[3].contains(&at("let r2 = x.rlx")), "{path:?}");
    assert!(path[4].starts_with("no valid path"), "{path:?}");
    // r1 and r2 read 0 or the store, except r1 = 2 with r2 = 0 (not SC).
    assert_eq!(r.sc_executions, 3, "{r}");
    // The weak model has that fourth execution: out = 20, blamed on the race.
    assert_eq!(r.weak_executions, 4, "{r}");
    assert_eq!(r.non_sc.len(), 1, "{r}");
    let outcome = &r.non_sc[0];
    let out_line = format!("drfrlx.rs:{}:", line_of("let published = Arc::new"));
    let out = outcome
        .state
        .iter()
        .find(|(name, _)| name.contains(&out_line))
        .expect("out is in the state");
    assert_eq!(out.1, 20, "{r}");
    assert_eq!(outcome.blamed.len(), 1, "{r}");
    assert!(outcome.blamed[0].starts_with("non-ordering race"), "{r}");
}

#[test]
fn figure_2b_has_no_race_once_z_is_paired() {
    let r = figure_2(true);
    assert!(r.is_legal(), "{r}");
    assert!(r.races.is_empty(), "{r}");
    // r1 = 2 with r0 = 0 is not SC; the weak run maps paired Z to a DRFrlx
    // paired atomic (fenced), so relaxed Y cannot pass it and out = 20 stays
    // out of reach: 4 SC executions (r1 = 0 with r0 = 0 / 1, then r2 = 0 / 3;
    // r1 = 2 forces r0 = 1 and r2 = 3) and no non-SC result.
    assert_eq!(r.sc_executions, 4, "{r}");
    assert!(r.non_sc.is_empty(), "{r}");
}

// ---------------------------------------------------------------- work queue

/// Listing 1: the client fills an item and enqueues it with a paired store;
/// the service thread checks occupancy with a relaxed load of `class` and,
/// if `dequeue_paired`, dequeues with a paired load before reading the item.
fn work_queue(class: Option<Class>, dequeue_paired: bool) -> scopecheck::drfrlx::DrfReport {
    all_inferred().explore(move || {
        let head = Arc::new(AtomicU32::new(0));
        let item = Arc::new(UnsafeCell::new(0u32));
        let (h2, i2) = (head.clone(), item.clone());
        let client = thread::spawn(move || {
            i2.with_mut(|p| unsafe { *p = 42 });
            h2.store(1, SeqCst);
        });
        if head.rlx(class).load().get() > 0 && (!dequeue_paired || head.load(SeqCst) == 1) {
            let v = item.with(|p| unsafe { *p });
            assert_eq!(v, 42);
        }
        client.join().unwrap();
    })
}

#[test]
fn work_queue_with_an_unpaired_occupancy_check_is_legal() {
    let r = work_queue(Some(Class::Unpaired), true);
    assert!(r.is_legal(), "{r}");
    // The occupancy check reads 0 or 1.
    assert_eq!(r.sc_executions, 2, "{r}");
}

#[test]
fn work_queue_mislabelled() {
    // The occupancy check as commutative: its value is used.
    let r = work_queue(Some(Class::Commutative), true);
    assert_eq!(kinds(&r), vec![RaceKind::Commutative], "{r}");
    // Reading the item after the unpaired check alone: a data race.
    let r = work_queue(Some(Class::Unpaired), false);
    assert_eq!(kinds(&r), vec![RaceKind::Data], "{r}");
}

// ---------------------------------------------------------------- event counter

/// Listing 2: two workers increment bins; main loads them after the join.
fn histogram(use_result: bool, class: Option<Class>) -> scopecheck::drfrlx::DrfReport {
    all_inferred().explore(move || {
        let bins = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let b = bins.clone();
                thread::spawn(move || {
                    for i in 0..2 {
                        let r = b[(w + i) % 2].rlx(class).fetch_add(1);
                        if use_result {
                            let _ = r.get();
                        } else {
                            r.discard();
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let total: u32 = bins.iter().map(|b| b.rlx(class).load().get()).sum();
        assert_eq!(total, 4);
    })
}

#[test]
fn event_counter_with_commutative_increments_is_legal() {
    let r = histogram(false, Some(Class::Commutative));
    assert!(r.is_legal(), "{r}");
    // Per bin, the two increments in either order, except bin 0 by worker 1
    // first with bin 1 by worker 0 first (each worker's second increment
    // would precede the other's first: a cycle, in SC and in rc11 alike).
    assert_eq!(r.sc_executions, 3, "{r}");
    assert_eq!(r.weak_executions, 3, "{r}");
}

#[test]
fn event_counter_reading_an_increment_is_a_commutative_race() {
    let r = histogram(true, Some(Class::Commutative));
    assert_eq!(kinds(&r), vec![RaceKind::Commutative], "{r}");
    assert!(r.races[0].why.contains("used"), "{r}");
}

// ---------------------------------------------------------------- flags

/// Listing 3: workers check `stop` up to twice, setting `dirty`; main sets
/// `stop`, joins, then loads `dirty`.
fn flags(stop_class: Option<Class>, dirty_class: Option<Class>, check: Check) -> scopecheck::drfrlx::DrfReport {
    check.explore(move || {
        let stop = Arc::new(AtomicBool::new(false));
        let dirty = Arc::new(AtomicBool::new(false));
        let (s2, d2) = (stop.clone(), dirty.clone());
        let w = thread::spawn(move || {
            for _ in 0..2 {
                if s2.rlx(stop_class).load().get() {
                    break;
                }
                d2.rlx(dirty_class).store(true);
            }
        });
        stop.rlx(stop_class).store(true);
        w.join().unwrap();
        let _cleanup = dirty.rlx(dirty_class).load().get();
    })
}

#[test]
fn flags_as_the_paper_labels_them_are_legal() {
    let r = flags(Some(Class::NonOrdering), Some(Class::Commutative), Check::new());
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 3, "{r}");
}

/// A non-ordering flag that publishes a value: through unpaired atomics it
/// is a non-ordering race, through plain data a data race.
fn flag_publishes(data_plain: bool) -> scopecheck::drfrlx::DrfReport {
    Check::new().explore(move || {
        let flag = Arc::new(AtomicBool::new(false));
        let value = Arc::new(AtomicU32::new(0));
        let cell = Arc::new(UnsafeCell::new(0u32));
        let (f2, v2, c2) = (flag.clone(), value.clone(), cell.clone());
        let t = thread::spawn(move || {
            if data_plain {
                c2.with_mut(|p| unsafe { *p = 7 });
            } else {
                v2.rlx(Class::Unpaired).store(7);
            }
            f2.rlx(Class::NonOrdering).store(true);
        });
        if flag.rlx(Class::NonOrdering).load().get() {
            let v = if data_plain {
                cell.with(|p| unsafe { *p })
            } else {
                value.rlx(Class::Unpaired).load().get()
            };
            assert_eq!(v, 7);
        }
        t.join().unwrap();
    })
}

#[test]
fn a_non_ordering_flag_that_orders_unpaired_data_is_a_non_ordering_race() {
    let r = flag_publishes(false);
    assert_eq!(kinds(&r), vec![RaceKind::NonOrdering], "{r}");
    // The weak model shows what the race allows: the reader sees the flag and
    // the old value; the assertion then fails before any final memory differs.
    assert!(r.failures.is_empty(), "{r}");
}

#[test]
fn a_non_ordering_flag_that_orders_plain_data_is_a_data_race() {
    let r = flag_publishes(true);
    assert_eq!(kinds(&r), vec![RaceKind::Data], "{r}");
}

// ---------------------------------------------------------------- split counter

/// Listing 4: each of two threads increments its own counter (quantum load
/// and store); main reads both (quantum) into an approximate count, and,
/// with `exact`, checks that they sum to exactly 2 after the join.
fn split_counter(
    exact: bool,
    writer: Option<Class>,
    reader: Option<Class>,
    check: Check,
) -> scopecheck::drfrlx::DrfReport {
    check.explore(move || {
        let c = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
        let ts: Vec<_> = (0..2)
            .map(|i| {
                let c = c.clone();
                thread::spawn(move || {
                    let v = c[i].rlx(writer).load().get();
                    // Wrapping: a quantum load may return any u32.
                    c[i].rlx(writer).store(v.wrapping_add(1));
                })
            })
            .collect();
        // An approximate count: used, but no bound is assumed (a quantum
        // load may return any value; see
        // `a_bound_assumed_on_a_quantum_load_fails_at_the_types_largest_value`).
        let partial = c.iter().fold(0u32, |a, x| a.wrapping_add(x.rlx(reader).load().get()));
        std::hint::black_box(partial);
        for t in ts {
            t.join().unwrap();
        }
        if exact {
            let total: u32 = c.iter().map(|x| x.rlx(writer).load().get()).sum();
            assert_eq!(total, 2, "exact count");
        }
    })
}

#[test]
fn split_counter_with_quantum_counters_is_legal() {
    let r = split_counter(false, Some(Class::Quantum), Some(Class::Quantum), Check::new());
    assert!(r.is_legal(), "{r}");
    // Domains {0, 1} per counter; 2 + 2 quantum loads and 2 stores.
    assert!(r.quantum_programs > 1, "{r}");
}

#[test]
fn split_counter_exact_sum_fails_in_the_quantum_equivalent_program() {
    let r = split_counter(true, Some(Class::Quantum), Some(Class::Quantum), Check::new());
    assert!(r.races.is_empty(), "{r}");
    let f = one_failure(&r.failures, FailureKind::Panic, &r);
    assert!(f.message().contains("exact count"), "{r}");
}

#[test]
fn split_counter_read_through_unpaired_loads_is_a_quantum_race() {
    let r = split_counter(false, Some(Class::Quantum), Some(Class::Unpaired), Check::new());
    assert_eq!(kinds(&r), vec![RaceKind::Quantum], "{r}");
}

// ---------------------------------------------------------------- reference counter

/// Listing 5: two threads take and drop a reference (quantum inc/dec); the
/// one whose decrement returns 1 marks the object; the object is deleted
/// (a plain write) after the join, or, mislabelled, right away.
fn refcount(delete_after_barrier: bool, rc_class: Option<Class>, check: Check) -> scopecheck::drfrlx::DrfReport {
    check.explore(move || {
        let rc = Arc::new(AtomicU32::new(0));
        let marked = Arc::new(AtomicBool::new(false));
        let object = Arc::new(UnsafeCell::new(1u32));
        let ts: Vec<_> = (0..2)
            .map(|_| {
                let (rc, marked, object) = (rc.clone(), marked.clone(), object.clone());
                thread::spawn(move || {
                    rc.rlx(rc_class).fetch_add(1).discard();
                    if rc.rlx(rc_class).fetch_sub(1).get() == 1 {
                        if delete_after_barrier {
                            marked.rlx(Class::Commutative).store(true);
                        } else {
                            object.with_mut(|p| unsafe { *p = 0 });
                        }
                    }
                })
            })
            .collect();
        for t in ts {
            t.join().unwrap();
        }
        if marked.load(SeqCst) {
            object.with_mut(|p| unsafe { *p = 0 });
        }
    })
}

#[test]
fn reference_counter_with_deletion_behind_the_barrier_is_legal() {
    let r = refcount(true, Some(Class::Quantum), Check::new());
    assert!(r.is_legal(), "{r}");
}

#[test]
fn reference_counter_deleting_without_the_barrier_races() {
    let r = refcount(false, Some(Class::Quantum), Check::new());
    assert_eq!(kinds(&r), vec![RaceKind::Data], "{r}");
}

// ---------------------------------------------------------------- seqlocks

/// Listing 6: a writer bumps `seq` to odd, writes the data (speculative),
/// and bumps it to even; a reader reads seq, the data, seq again, and uses
/// the data only if both seqs agree and are even (or, mislabelled, before
/// checking).
fn seqlock(use_before_validating: bool, data_class: Option<Class>, check: Check) -> scopecheck::drfrlx::DrfReport {
    check.explore(move || {
        let seq = Arc::new(AtomicU32::new(0));
        let data = Arc::new(AtomicU32::new(0));
        let out = Arc::new(AtomicU32::new(0));
        let (s2, d2) = (seq.clone(), data.clone());
        let w = thread::spawn(move || {
            let s = s2.load(SeqCst);
            if s2.compare_exchange(s, s + 1, SeqCst, SeqCst).is_ok() {
                d2.rlx(data_class).store(5);
                s2.store(s + 2, SeqCst);
            }
        });
        let s0 = seq.load(SeqCst);
        let d = data.rlx(data_class).load();
        let s1 = seq.fetch_add(0, SeqCst);
        if use_before_validating || (s0 == s1 && s0.is_multiple_of(2)) {
            out.store(d.get(), SeqCst);
        } else {
            d.discard();
        }
        w.join().unwrap();
    })
}

#[test]
fn seqlock_with_validated_speculative_loads_is_legal() {
    let r = seqlock(false, Some(Class::Speculative), Check::new());
    assert!(r.is_legal(), "{r}");
}

#[test]
fn seqlock_using_data_before_validating_is_a_speculative_race() {
    let r = seqlock(true, Some(Class::Speculative), Check::new());
    assert_eq!(kinds(&r), vec![RaceKind::Speculative], "{r}");
}

// ---------------------------------------------------------------- inference

#[test]
fn inference_finds_commutative_for_the_histogram() {
    let r = histogram(false, None);
    assert_eq!(kinds(&r), vec![RaceKind::Unclassified], "{r}");
    let line = line_of("rlx(class).fetch_add(1)");
    let inc = r
        .inferences
        .iter()
        .find(|i| i.site.line() == line)
        .expect("the increment's line");
    // Commutative (the increments' results are unused) and, as always
    // where nothing else is, unpaired (SC).
    assert_eq!(inc.legal, vec![Class::Commutative, Class::Unpaired], "{r}");
    assert_eq!(inc.suggestion, Suggestion::Class(Class::Commutative), "{r}");
}

#[test]
fn inference_says_must_be_paired_for_a_publishing_flag() {
    let r = Check::new().explore(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let cell = Arc::new(UnsafeCell::new(0u32));
        let (f2, c2) = (flag.clone(), cell.clone());
        let t = thread::spawn(move || {
            c2.with_mut(|p| unsafe { *p = 7 });
            f2.store(true, Relaxed);
        });
        if flag.load(Relaxed) {
            assert_eq!(cell.with(|p| unsafe { *p }), 7);
        }
        t.join().unwrap();
    });
    assert!(r.race_kinds().contains(&RaceKind::Data), "{r}");
    assert_eq!(r.inferences.len(), 2, "{r}");
    for i in &r.inferences {
        assert_eq!(i.suggestion, Suggestion::MustBePaired, "{r}");
        assert!(i.legal.is_empty(), "{r}");
    }
}

/// The inference at the line holding `text`.
fn inference<'r>(r: &'r DrfReport, text: &str) -> &'r scopecheck::drfrlx::Inference {
    let line = line_of(text);
    r.inferences
        .iter()
        .find(|i| i.site.line() == line)
        .unwrap_or_else(|| panic!("no inference for line {line} ({text}):\n{r}"))
}

#[test]
fn inference_without_labels_lists_the_papers_class_for_every_use_case() {
    use Class::*;
    let legal = |r: &DrfReport, text: &str| inference(r, text).legal.clone();
    let r = work_queue(None, true);
    assert_eq!(legal(&r, "head.rlx(class).load()"), vec![NonOrdering, Unpaired], "{r}");

    let r = flags(None, None, Check::new());
    assert_eq!(
        legal(&r, "s2.rlx(stop_class)"),
        vec![NonOrdering, Quantum, Unpaired],
        "{r}"
    );
    assert_eq!(
        legal(&r, "d2.rlx(dirty_class)"),
        vec![Commutative, NonOrdering, Speculative, Quantum, Unpaired],
        "{r}"
    );

    let r = split_counter(false, None, None, Check::new());
    let i = inference(&r, "c[i].rlx(writer).store(v.wrapping_add(1))");
    assert_eq!(i.legal, vec![NonOrdering, Quantum, Unpaired], "{r}");
    assert_eq!(i.together.len(), 2, "the writer's load and the reader's load: {r}");

    let r = refcount(true, None, Check::new());
    assert_eq!(
        legal(&r, "rc.rlx(rc_class).fetch_sub(1)"),
        vec![NonOrdering, Quantum, Unpaired],
        "{r}"
    );

    let r = seqlock(false, None, Check::new());
    assert_eq!(
        legal(&r, "d2.rlx(data_class).store(5)"),
        vec![Speculative, Quantum, Unpaired],
        "{r}"
    );
}

/// The mislabelled versions: the given class is not legal, and the
/// suggestion is another class or "must be paired".
#[test]
fn inference_corrects_every_mislabelled_use_case() {
    let wrong = |r: &DrfReport, text: &str, given: Class, legal: &[Class]| {
        let i = inference(r, text);
        assert_eq!(i.given, Some(given), "{r}");
        assert_eq!(i.legal, legal, "{r}");
        assert!(!r.is_legal(), "{r}");
        // Sites on one location are judged together: a label is wrong when
        // its class is not legal for the location, or when the location's
        // sites disagree (the split counter's unpaired reader of quantum
        // counters: unpaired is legal only if the writers are unpaired too).
        let mixed = i.together.iter().any(|s| {
            let other = r
                .inferences
                .iter()
                .find(|j| j.site == *s)
                .expect("grouped site has an inference");
            other.given != Some(given)
        });
        assert!(!i.legal.contains(&given) || mixed, "{r}");
        assert!(
            matches!(i.suggestion, Suggestion::MustBePaired)
                || matches!(i.suggestion, Suggestion::Class(c) if c != given),
            "{r}"
        );
    };
    let r = work_queue(Some(Class::Commutative), true);
    wrong(
        &r,
        "head.rlx(class).load()",
        Class::Commutative,
        &[Class::NonOrdering, Class::Unpaired],
    );
    let r = histogram(true, Some(Class::Commutative));
    // The results are used here, so not commutative.
    wrong(&r, "rlx(class).fetch_add(1)", Class::Commutative, &[Class::Unpaired]);
    let r = split_counter(false, Some(Class::Quantum), Some(Class::Unpaired), all_inferred());
    wrong(
        &r,
        "x.rlx(reader).load()",
        Class::Unpaired,
        &[Class::NonOrdering, Class::Quantum, Class::Unpaired],
    );
    let r = seqlock(true, Some(Class::Speculative), all_inferred());
    wrong(
        &r,
        "data.rlx(data_class).load()",
        Class::Speculative,
        &[Class::Quantum, Class::Unpaired],
    );
    let r = flags(Some(Class::Speculative), Some(Class::Commutative), all_inferred());
    assert!(!r.is_legal(), "{r}");
    wrong(
        &r,
        "s2.rlx(stop_class)",
        Class::Speculative,
        &[Class::NonOrdering, Class::Quantum, Class::Unpaired],
    );
}

// ---------------------------------------------------------------- README

/// The README's example, as written there (two commutative increments,
/// read after the join): legal, 2 SC executions (the increments' order).
#[test]
fn readme_example_is_legal() {
    use scopecheck::drfrlx;
    drfrlx::check(|| {
        let hits = Arc::new(AtomicU32::new(0));
        let h2 = hits.clone();
        let t = thread::spawn(move || h2.rlx(Class::Commutative).fetch_add(1).discard());
        hits.rlx(Class::Commutative).fetch_add(1).discard(); // use .get() and it is a commutative race
        t.join().unwrap();
        assert_eq!(hits.load(SeqCst), 2);
    });
    let r = Check::new().explore(|| {
        let hits = Arc::new(AtomicU32::new(0));
        let h2 = hits.clone();
        let t = thread::spawn(move || h2.rlx(Class::Commutative).fetch_add(1).discard());
        let _ = hits.rlx(Class::Commutative).fetch_add(1).get();
        t.join().unwrap();
    });
    assert_eq!(r.race_kinds(), vec![RaceKind::Commutative], "{r}");
    assert_eq!(r.sc_executions, 2, "{r}");
}
