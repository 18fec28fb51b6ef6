//! Release sequences: RC11 as published against C++20, on imm-R2.

use super::*;

// ---------------------------------------------------------------------------
// Release sequences: RC11 as published (C11's rs, with the same-thread
// clause) against C++20's (RMW chains only), on imm-R2:
//   P0: y = 1 (rlx); x = 1 (rel)
//   P1: a = x.fetch_add(1, acq_rel); x = 3 (rlx)
//   P2: b = x (acq); c = y (rlx)
// Under rc11, x = 3 continues the release sequence P1's RMW heads, so P2
// reading 3 synchronizes with the RMW, which read P0's release write: c = 1
// whenever a = 1 and b = 3. C++20 dropped the same-thread clause, so
// (1, 3, 0) is allowed there and nothing else changes. The rc11 set is
// herd's answer for the public corpus's c11/imm-R2.litmus.
// ---------------------------------------------------------------------------

/// Consistent executions of imm-R2, as for the litmus file: C++20's extra
/// outcome (1, 3, 0) comes from exactly one more execution.
const N_RC11: u64 = 19;
const N_CPP20: u64 = 20;

fn imm_r2() -> impl Fn(&dyn Fn(R3)) + Clone {
    |rec: &dyn Fn(R3)| {
        let (x, y) = (loc(), loc());
        let (x0, y0) = (x.clone(), y.clone());
        let p0 = spawn(move || {
            y0.store(1, Ordering::Relaxed);
            x0.store(1, Ordering::Release);
        });
        let x1 = x.clone();
        let p1 = spawn(move || {
            let a = x1.fetch_add(1, Ordering::AcqRel);
            x1.store(3, Ordering::Relaxed);
            a
        });
        let (x2, y2) = (x.clone(), y.clone());
        let p2 = spawn(move || (x2.load(Ordering::Acquire), y2.load(Ordering::Relaxed)));
        p0.join().unwrap();
        let a = p1.join().unwrap();
        let (b, c) = p2.join().unwrap();
        rec((a, b, c));
    }
}

fn imm_r2_rc11_outcomes() -> BTreeSet<R3> {
    BTreeSet::from([
        (0, 0, 0),
        (0, 0, 1),
        (0, 1, 0),
        (0, 1, 1),
        (0, 3, 0),
        (0, 3, 1),
        (1, 0, 0),
        (1, 0, 1),
        (1, 1, 1),
        (1, 2, 1),
        (1, 3, 1),
    ])
}

#[test]
fn release_sequence_same_thread_clause_rc11() {
    let (o, n) = both(Rc11, imm_r2());
    assert_eq!(o, imm_r2_rc11_outcomes());
    assert_eq!(n, N_RC11);
}

#[test]
fn release_sequence_cpp20_drops_the_same_thread_clause() {
    let (o, n) = both(MemoryModel::Cpp20, imm_r2());
    assert_eq!(n, N_CPP20);
    let mut want = imm_r2_rc11_outcomes();
    want.insert((1, 3, 0));
    assert_eq!(o, want);
}
