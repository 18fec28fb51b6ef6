//! DRFrlx's guarantee as a property (seed 004, section 3): a program whose SC
//! executions have no illegal race, and which has no quantum access, gets
//! only SC results under the weak model (`rc11`). The programs are random
//! and small: two or three threads of loads, stores and `fetch_add`s on three
//! atomics and one plain cell, each atomic access paired (seq_cst; DRFrlx's
//! paired atomics are SC, so acquire/release are left out) or relaxed with a
//! class; loaded values are used (stored to the thread's result) or not.
//!
//! The checker reports a theorem violation itself, as an internal failure;
//! this test also checks the premise and the conclusion directly, and that
//! the generator is not degenerate (some programs are legal, some racy ones
//! do show non-SC results).

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use scopecheck::cell::UnsafeCell;
use scopecheck::drfrlx::{Check, Class, DrfReport, Infer};
use scopecheck::sync::atomic::{AtomicU32, Ordering::SeqCst};
use scopecheck::sync::Arc;
use scopecheck::thread;
use scopecheck::FailureKind;
use std::fmt;

/// How an access is made.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Access {
    /// A seq_cst atomic.
    Paired,
    /// A relaxed atomic with a class.
    Relaxed(Class),
    /// The plain cell (data).
    Data,
}

/// One step of a thread. `loc` picks one of three atomics; data steps use
/// the cell.
#[derive(Clone, Copy, Debug)]
enum Step {
    Load {
        loc: usize,
        access: Access,
        used: bool,
    },
    Store {
        loc: usize,
        access: Access,
        value: u32,
    },
    Add {
        loc: usize,
        access: Access,
        value: u32,
        used: bool,
    },
}

#[derive(Clone, Debug)]
struct Program {
    threads: Vec<Vec<Step>>,
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.threads.iter().enumerate() {
            writeln!(f, "thread {i}: {t:?}")?;
        }
        Ok(())
    }
}

/// The relaxed classes the premise allows (quantum is left out: the theorem
/// does not cover quantum accesses).
const CLASSES: [Class; 4] = [
    Class::Unpaired,
    Class::Commutative,
    Class::NonOrdering,
    Class::Speculative,
];

fn generate(rng: &mut ChaCha8Rng) -> Program {
    let threads = rng.random_range(2..=3);
    let program = (0..threads)
        .map(|_| {
            let steps = rng.random_range(1..=4);
            (0..steps)
                .map(|_| {
                    let data = rng.random_range(0..8) == 0;
                    let access = if data {
                        Access::Data
                    } else if rng.random_range(0..3) == 0 {
                        Access::Paired
                    } else {
                        Access::Relaxed(CLASSES[rng.random_range(0..CLASSES.len())])
                    };
                    let loc = rng.random_range(0..3);
                    let used = rng.random_range(0..2) == 0;
                    let value = rng.random_range(1..=2);
                    match rng.random_range(0..3) {
                        0 => Step::Load { loc, access, used },
                        1 => Step::Store { loc, access, value },
                        _ if access == Access::Data => Step::Store { loc, access, value },
                        _ => Step::Add {
                            loc,
                            access,
                            value,
                            used,
                        },
                    }
                })
                .collect()
        })
        .collect();
    Program { threads: program }
}

/// The shared state of one run: the atomics, the cell, one result per thread.
struct Memory {
    atomics: [AtomicU32; 3],
    cell: UnsafeCell<u32>,
    results: Vec<AtomicU32>,
}

fn run_thread(m: &Memory, t: usize, steps: &[Step]) {
    // The used values, folded into one number the thread publishes last.
    let mut seen: u32 = 0;
    let mut use_value = |v: u32| seen = seen * 7 + v + 1;
    for &step in steps {
        match step {
            Step::Load { loc, access, used } => {
                let v = match access {
                    Access::Paired => m.atomics[loc].load(SeqCst),
                    Access::Relaxed(c) => {
                        let o = m.atomics[loc].rlx(c).load();
                        if !used {
                            o.discard();
                            continue;
                        }
                        o.get()
                    }
                    Access::Data => m.cell.with(|p| unsafe { *p }),
                };
                if used {
                    use_value(v);
                }
            }
            Step::Store { loc, access, value } => match access {
                Access::Paired => m.atomics[loc].store(value, SeqCst),
                Access::Relaxed(c) => m.atomics[loc].rlx(c).store(value),
                Access::Data => m.cell.with_mut(|p| unsafe { *p = value }),
            },
            Step::Add {
                loc,
                access,
                value,
                used,
            } => {
                let v = match access {
                    Access::Paired => m.atomics[loc].fetch_add(value, SeqCst),
                    Access::Relaxed(c) => {
                        let o = m.atomics[loc].rlx(c).fetch_add(value);
                        if !used {
                            o.discard();
                            continue;
                        }
                        o.get()
                    }
                    Access::Data => unreachable!("the generator makes no data RMW"),
                };
                if used {
                    use_value(v);
                }
            }
        }
    }
    m.results[t].store(seen, SeqCst);
}

fn check(p: &Program) -> DrfReport {
    let check = Check {
        infer: Infer::Off,
        ..Check::new()
    };
    let p = p.clone();
    check.explore(move || {
        let m = Arc::new(Memory {
            atomics: [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)],
            cell: UnsafeCell::new(0),
            results: (0..p.threads.len()).map(|_| AtomicU32::new(0)).collect(),
        });
        let handles: Vec<_> = p
            .threads
            .iter()
            .enumerate()
            .map(|(t, steps)| {
                let (m, steps) = (m.clone(), steps.clone());
                thread::spawn(move || run_thread(&m, t, &steps))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    })
}

/// How many random programs one run checks.
const PROGRAMS: usize = 1500;

#[test]
fn no_illegal_race_and_no_quantum_means_only_sc_results_under_rc11() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5c0_9ec4);
    let (mut legal, mut racy, mut racy_non_sc) = (0, 0, 0);
    for i in 0..PROGRAMS {
        let p = generate(&mut rng);
        let r = check(&p);
        assert!(
            r.failures.iter().all(|f| f.kind() != FailureKind::Internal),
            "program {i}: the checker failed inside\n{p}{r}"
        );
        assert!(
            r.notes.is_empty() && r.incomplete.is_empty(),
            "program {i}: the exploration was cut short\n{p}{r}"
        );
        assert_eq!(
            r.quantum_programs, 0,
            "program {i}: the generator makes no quantum access"
        );
        let data_race = r.failures.iter().any(|f| f.kind() == FailureKind::DataRace);
        if r.races.is_empty() {
            assert!(
                !data_race,
                "program {i}: a data race the DRFrlx analysis does not see\n{p}{r}"
            );
            assert!(
                r.non_sc.is_empty(),
                "program {i}: a non-SC result in a legal program\n{p}{r}"
            );
            legal += 1;
        } else {
            racy += 1;
            if !r.non_sc.is_empty() {
                racy_non_sc += 1;
            }
        }
    }
    // The generator exercises both sides of the implication (the seed is
    // fixed, so the tallies are exact). Before the optimal explorer stopped
    // keeping two RMWs on one write through a revisit, programs 965 and 989
    // also showed "non-SC" results: final sums with two RMWs lost, which no
    // execution has (75 then, an invented outcome each).
    assert_eq!((legal, racy, racy_non_sc), (544, 956, 73));
    println!("{legal} legal, {racy} racy ({racy_non_sc} with non-SC results under rc11)");
}

/// Found by the property above: store buffering where one thread's first
/// access is a paired RMW. The path RMW -po-> load b -co-> store b -po->
/// load c orders the RMW before the load of c only through the
/// non-ordering store; the RMW's own read-to-write step is not a program
/// order edge, so it gives no valid path (the analysis once counted it as
/// one and missed the race).
#[test]
fn a_paired_rmw_does_not_make_its_own_valid_path() {
    let check = Check {
        infer: Infer::Off,
        ..Check::new()
    };
    let r = check.explore(|| {
        let b = Arc::new(AtomicU32::new(0));
        let c = Arc::new(AtomicU32::new(0));
        let seen = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
        let (b2, c2, seen2) = (b.clone(), c.clone(), seen.clone());
        let t = thread::spawn(move || {
            c2.fetch_add(2, SeqCst);
            let v = b2.rlx(Class::Unpaired).load().get();
            seen2[1].store(v, SeqCst);
        });
        b.rlx(Class::NonOrdering).store(2);
        let v = c.rlx(Class::Unpaired).load().get();
        seen[0].store(v, SeqCst);
        t.join().unwrap();
    });
    assert_eq!(r.race_kinds(), vec![scopecheck::drfrlx::RaceKind::NonOrdering], "{r}");
    // Both loads read 0 or the other thread's store, except both 0 (not SC).
    assert_eq!(r.sc_executions, 3, "{r}");
    assert_eq!(r.weak_executions, 4, "{r}");
    assert_eq!(r.non_sc.len(), 1, "{r}");
    assert!(r.non_sc[0].blamed[0].starts_with("non-ordering race"), "{r}");
}
