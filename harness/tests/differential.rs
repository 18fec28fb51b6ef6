//! The optimal explorer against the reference enumerator on generated
//! programs: same outcome sets, same number of executions, under rc11, sc and porf.

mod common;

use scopecheck::sync::atomic::{fence, AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, MemoryModel};

use common::{builder, Gen};
use scopecheck::gpu::record;
use scopecheck::Strategy;

#[derive(Clone, Copy, Debug)]
enum Instr {
    Load(usize, Ordering),
    Store(usize, usize, Ordering),
    FetchAdd(usize, Ordering),
    Cas(usize, usize, usize, Ordering, Ordering),
    Fence(Ordering),
}

fn order(g: &mut Gen, kind: u8) -> Ordering {
    // kind 0: load, 1: store, 2: rmw, 3: fence
    let opts: &[Ordering] = match kind {
        0 => &[Ordering::Relaxed, Ordering::Acquire, Ordering::SeqCst],
        1 => &[Ordering::Relaxed, Ordering::Release, Ordering::SeqCst],
        2 => &[
            Ordering::Relaxed,
            Ordering::Acquire,
            Ordering::Release,
            Ordering::AcqRel,
            Ordering::SeqCst,
        ],
        _ => &[Ordering::Acquire, Ordering::Release, Ordering::AcqRel, Ordering::SeqCst],
    };
    opts[g.below(opts.len() as u64) as usize]
}

fn program(seed: u64) -> Vec<Vec<Instr>> {
    let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let threads = 2 + g.below(2) as usize;
    (0..threads)
        .map(|_| {
            // Three threads of three instructions are too many for the reference.
            let len = 1 + g.below(if threads == 2 { 3 } else { 2 }) as usize;
            (0..len)
                .map(|_| {
                    let loc = g.below(2) as usize;
                    match g.below(9) {
                        0..=2 => Instr::Load(loc, order(&mut g, 0)),
                        3..=5 => Instr::Store(loc, 1 + g.below(2) as usize, order(&mut g, 1)),
                        6 => Instr::FetchAdd(loc, order(&mut g, 2)),
                        7 => {
                            let fail = order(&mut g, 0);
                            Instr::Cas(loc, g.below(2) as usize, 2, order(&mut g, 2), fail)
                        }
                        _ => Instr::Fence(order(&mut g, 3)),
                    }
                })
                .collect()
        })
        .collect()
}

/// Runs one instruction, recording what it read.
fn step(locs: &[AtomicUsize; 2], ins: Instr, regs: &mut Vec<usize>) {
    match ins {
        Instr::Load(l, o) => regs.push(locs[l].load(o)),
        Instr::Store(l, v, o) => locs[l].store(v, o),
        Instr::FetchAdd(l, o) => regs.push(locs[l].fetch_add(1, o)),
        Instr::Cas(l, e, n, s, f) => regs.push(match locs[l].compare_exchange(e, n, s, f) {
            Ok(v) => v,
            Err(v) => 100 + v,
        }),
        Instr::Fence(o) => fence(o),
    }
}

/// The message of a caught panic.
fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Every thread's registers (each followed by 99), then both final values
/// (read by atomic loads, or with `plain` by plain ones, which no po ∪ rf
/// cycle can close and `c11`'s reference does not guess).
fn outcome(hs: Vec<thread::JoinHandle<Vec<usize>>>, locs: &[AtomicUsize; 2], plain: bool) -> Vec<usize> {
    let mut out = Vec::new();
    for h in hs {
        out.extend(h.join().unwrap());
        out.push(99);
    }
    for l in locs {
        // SAFETY: every thread that wrote the locations has been joined.
        out.push(if plain {
            unsafe { l.unsync_load() }
        } else {
            l.load(Ordering::Relaxed)
        });
    }
    out
}

fn run(prog: &[Vec<Instr>], rec: &dyn Fn(Vec<usize>)) {
    run_final(prog, rec, false)
}

/// [`run`], the final values read by plain loads when `plain`.
fn run_final(prog: &[Vec<Instr>], rec: &dyn Fn(Vec<usize>), plain: bool) {
    let locs = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let hs: Vec<_> = prog
        .iter()
        .cloned()
        .map(|instrs| {
            let locs = locs.clone();
            thread::spawn(move || {
                let mut regs = Vec::new();
                for i in instrs {
                    step(&locs, i, &mut regs);
                }
                regs
            })
        })
        .collect();
    rec(outcome(hs, &locs, plain));
}

fn check(seeds: std::ops::Range<u64>, model: MemoryModel) {
    for seed in seeds {
        let prog = program(seed);
        let p2 = prog.clone();
        let t0 = std::time::Instant::now();
        let r = std::panic::catch_unwind(move || common::both(model, move |rec: &dyn Fn(Vec<usize>)| run(&p2, rec)));
        if let Err(e) = r {
            let msg = panic_text(e);
            panic!("seed {seed} under {model:?}: {msg}\nprogram: {prog:?}");
        }
        if t0.elapsed().as_secs_f64() > 0.5 {
            eprintln!("slow seed {seed}: {:?}", t0.elapsed());
        }
    }
}

#[test]
fn optimal_equals_reference_rc11() {
    check(0..300, MemoryModel::Rc11);
}

/// `porf` (the base of `opencl`): every rf and mo choice that keeps po ∪ rf
/// acyclic and RMWs atomic. With no coherence, an RMW may read a write its
/// own thread's earlier RMW consumed, which the optimal explorer must only
/// ever use for revisits that delete the other RMW.
#[test]
fn optimal_equals_reference_porf() {
    check(2000..2200, MemoryModel::Porf);
}

/// A program shaped for po ∪ rf cycles: load buffering's two threads
/// (thread t reads location t by a load, a fetch_add or a
/// compare-exchange, then writes the other by a store or an RMW), each
/// sometimes with one more instruction of [`program`]'s kind before or
/// after, in every memory order. (Three threads in a ring take the
/// reference minutes; `c11_cycles.rs` has one.)
fn cycle_program(seed: u64) -> Vec<Vec<Instr>> {
    let mut g = Gen(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let extra = program(seed);
    (0..2)
        .map(|t| {
            let (from, to) = (t, 1 - t);
            let read = match g.below(4) {
                0 => Instr::FetchAdd(from, order(&mut g, 2)),
                1 => {
                    let fail = order(&mut g, 0);
                    Instr::Cas(from, g.below(2) as usize, 2, order(&mut g, 2), fail)
                }
                _ => Instr::Load(from, order(&mut g, 0)),
            };
            let write = match g.below(4) {
                0 => Instr::FetchAdd(to, order(&mut g, 2)),
                _ => Instr::Store(to, 1, order(&mut g, 1)),
            };
            let mut steps = vec![read, write];
            if let Some(&e) = extra.get(t).and_then(|e| e.first()) {
                match g.below(4) {
                    0 => steps.insert(0, e),
                    1 => steps.push(e),
                    _ => {}
                }
            }
            steps
        })
        .collect()
}

/// `c11`, whose executions may have cycles in po ∪ rf: the explorer builds
/// them with promises, the reference with guessed values of its own
/// (`engine/guessed.rs`); the same outcome histogram (one entry per
/// distinct execution) and the same number of executions. Outcomes are
/// taken from the run's histogram (`gpu::record`), which sees only the
/// executions the model's verdict keeps: a run whose promise or guess is
/// not kept still reaches its end, and `common::both`'s callback would
/// record it. The final values are read by plain loads (an atomic load
/// after the joins would be guessed too, for nothing). The reference
/// guesses at every atomic read and runs until its value domains settle,
/// so it takes about a hundred times the runs it takes without cycles: it
/// gets [`C11_REFERENCE_RUNS`] per program, and one it does not finish is
/// not compared. The premises are pinned: most programs are compared, and a
/// share of those have an execution with a cycle (more executions than the
/// explorer finds without cycles). Programs of [`cycle_program`]'s shape:
/// [`program`]'s have a cycle too rarely.
#[test]
fn optimal_equals_reference_c11() {
    let (mut compared, mut cyclic) = (0, 0);
    let seeds = 3000..3060;
    let n = (seeds.end - seeds.start) as usize;
    for seed in seeds {
        let prog = cycle_program(seed);
        let p2 = prog.clone();
        let body = move || run_final(&p2, &|o| record("out", o), true);
        let r = std::panic::catch_unwind(move || {
            let mut reference = builder(MemoryModel::C11, Strategy::Reference);
            reference.max_executions = Some(C11_REFERENCE_RUNS);
            let reference = reference.explore(body.clone());
            if !reference.is_complete() {
                return None;
            }
            let opt = builder(MemoryModel::C11, Strategy::Exhaustive).explore(body.clone());
            for r in [&opt, &reference] {
                assert!(r.failures().is_empty() && r.is_complete(), "{r}");
            }
            assert_eq!(
                opt.outcomes(),
                reference.outcomes(),
                "outcome histograms (explorer, reference)"
            );
            assert_eq!(
                opt.executions(),
                reference.executions(),
                "executions (explorer, reference)"
            );
            let mut acyclic = builder(MemoryModel::C11, Strategy::Exhaustive);
            acyclic.porf_cycles = false;
            Some(opt.executions() > acyclic.explore(body).executions())
        });
        match r {
            Ok(None) => {}
            Ok(Some(c)) => {
                compared += 1;
                cyclic += usize::from(c);
            }
            Err(e) => {
                let msg = panic_text(e);
                panic!("seed {seed} under C11: {msg}\nprogram: {prog:?}");
            }
        }
    }
    eprintln!("c11: {compared} of {n} programs compared, {cyclic} with a cyclic execution");
    assert!(
        compared * 3 > n,
        "the reference finished only {compared} of {n} programs"
    );
    assert!(
        cyclic * 5 > compared,
        "only {cyclic} of {compared} programs have a cyclic execution"
    );
}

/// How many runs `c11`'s reference may take on one generated program (a
/// count, not a time, so the programs compared are the same on every
/// machine; about a second here).
const C11_REFERENCE_RUNS: u64 = 12_000;

#[test]
fn optimal_equals_reference_sc() {
    check(1000..1150, MemoryModel::Sc);
}

/// Programs that wait: thread 0 runs random steps and then raises a flag;
/// the other threads may first spin until they see it, run random steps, and
/// may do a mutex-protected increment. Nothing can deadlock, so both
/// explorers must agree on outcomes and counts.
fn waiting_program(seed: u64) -> (Vec<Vec<Instr>>, Vec<(bool, bool)>, Ordering) {
    // A stream of its own: seeded like `program`, these draws would repeat
    // the draws that shaped the program (the flag order would follow the
    // thread count).
    let mut g = Gen((seed ^ 0xd1b5_4a32_d192_ed03).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    // Two threads: with spin loops and a mutex, three are too many for the reference.
    let mut prog = program(seed);
    prog.truncate(2);
    for t in prog.iter_mut() {
        t.truncate(2);
    }
    let flag_order = if g.below(2) == 0 {
        Ordering::Release
    } else {
        Ordering::Relaxed
    };
    let roles = (0..prog.len())
        .map(|i| (i > 0 && g.below(3) != 0, g.below(2) == 0))
        .collect();
    (prog, roles, flag_order)
}

fn run_waiting(prog: &[Vec<Instr>], roles: &[(bool, bool)], flag_order: Ordering, rec: &dyn Fn(Vec<usize>)) {
    let locs = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let flag = Arc::new(AtomicUsize::new(0));
    let m = Arc::new(scopecheck::sync::Mutex::new(0usize));
    let hs: Vec<_> = prog
        .iter()
        .cloned()
        .zip(roles.iter().copied())
        .enumerate()
        .map(|(i, (instrs, (waits, locks)))| {
            let (locs, flag, m) = (locs.clone(), flag.clone(), m.clone());
            thread::spawn(move || {
                let mut regs = Vec::new();
                if waits {
                    while flag.load(Ordering::Acquire) == 0 {
                        scopecheck::hint::spin_loop();
                    }
                }
                for ins in instrs {
                    step(&locs, ins, &mut regs);
                }
                if locks {
                    let mut g = m.lock().unwrap();
                    regs.push(*g);
                    *g += 1;
                }
                if i == 0 {
                    flag.store(1, flag_order);
                }
                regs
            })
        })
        .collect();
    let mut out = outcome(hs, &locs, false);
    out.push(*m.lock().unwrap());
    rec(out);
}

#[test]
fn optimal_equals_reference_with_spin_waits_and_a_mutex() {
    for seed in 5000..5100 {
        let t0 = std::time::Instant::now();
        let (prog, roles, fo) = waiting_program(seed);
        let (p2, r2) = (prog.clone(), roles.clone());
        let r = std::panic::catch_unwind(move || {
            common::both(MemoryModel::Rc11, move |rec: &dyn Fn(Vec<usize>)| {
                run_waiting(&p2, &r2, fo, rec)
            })
        });
        if let Err(e) = r {
            let msg = panic_text(e);
            panic!("seed {seed}: {msg}\nprogram: {prog:?} roles {roles:?} flag {fo:?}");
        }
        if t0.elapsed().as_secs_f64() > 0.5 {
            eprintln!("slow seed {seed}: {:?}", t0.elapsed());
        }
    }
}

/// A read revisited to read a write that is mo-before a write added before
/// the read (`tests/revisit_maximality.rs` has the litmus versions): thread
/// 1 reads x and writes y, thread 2 reads y, thread 3 writes y (an RMW that
/// read 0, or a store given the earlier mo place) and then x. The explorer
/// counted the graphs in which thread 1 reads thread 3's x twice. Counts
/// by hand (thread 1 may read thread 3's x only if thread 3 did not read
/// thread 1's y): an RMW reads 0 (2 × 3 choices of thread 1's and thread
/// 2's reads) or 1 (1 × 3): 9; a CAS expecting 0 succeeds on 0 (2 × 3) and
/// fails on 1 (1 × 2: no write of its own for thread 2 to read): 8; one
/// expecting 1 fails on 0 (2 × 2) and succeeds on 1 (1 × 3): 7; a store
/// gives 12 under the C++ models (2 × 2 mo orders × 3) and 9 under sc
/// (thread 1 reading thread 3's x puts thread 3's y first in mo).
#[test]
fn revisited_read_deleted_by_a_later_revisit_counts_once() {
    use Instr::*;
    use Ordering::Relaxed;
    let shape = |first: Instr| {
        vec![
            vec![Load(1, Relaxed), Store(0, 1, Relaxed)],
            vec![Load(0, Relaxed)],
            vec![first, Store(1, 1, Relaxed)],
        ]
    };
    let cases = [
        (FetchAdd(0, Relaxed), 9, 9),
        (Cas(0, 0, 2, Relaxed, Relaxed), 8, 8),
        (Cas(0, 1, 2, Relaxed, Relaxed), 7, 7),
        (Store(0, 2, Relaxed), 12, 9),
        (Store(0, 2, Ordering::SeqCst), 12, 9),
    ];
    for (first, weak, sc) in cases {
        for (model, want) in [
            (MemoryModel::Rc11, weak),
            (MemoryModel::Cpp20, weak),
            (MemoryModel::Sc, sc),
        ] {
            let prog = shape(first);
            let (_, n) = common::both(model, move |rec: &dyn Fn(Vec<usize>)| run(&prog, rec));
            assert_eq!(n, want, "{first:?} first under {model:?}");
        }
    }
}
