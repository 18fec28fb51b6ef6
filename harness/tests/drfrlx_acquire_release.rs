//! DRFrlx's paired atomics are SC atomics; acquire and release atomics are
//! outside the model. A program that uses them is never certified legal,
//! the weak-model run gives them their own semantics, and what they allow
//! beyond SC is listed as non-SC outcomes blamed on them (issue 19, defect 1:
//! they used to be fenced into SC atomics, so store buffering with release
//! stores and acquire loads was "DRFrlx legal" with only SC outcomes).

use scopecheck::drfrlx::{Check, DrfReport};
use scopecheck::sync::atomic::{AtomicU32, Ordering};
use scopecheck::sync::Arc;
use scopecheck::thread;

/// Store buffering: each thread stores 1 to its own flag with `store`
/// and loads the other's with `load`, publishing what it read (seq_cst
/// stores into `o0`/`o1`, so the final memory tells the executions apart).
fn store_buffering(store: Ordering, load: Ordering) -> DrfReport {
    Check::new().explore(move || {
        let x = Arc::new(AtomicU32::new(0));
        let y = Arc::new(AtomicU32::new(0));
        let o0 = Arc::new(AtomicU32::new(9));
        let o1 = Arc::new(AtomicU32::new(9));
        let (x2, y2, o1b) = (x.clone(), y.clone(), o1.clone());
        let t = thread::spawn(move || {
            y2.store(1, store);
            o1b.store(x2.load(load), Ordering::SeqCst);
        });
        x.store(1, store);
        o0.store(y.load(load), Ordering::SeqCst);
        t.join().unwrap();
    })
}

/// The final memory of a non-SC outcome, as `name=value` words.
fn states(r: &DrfReport) -> Vec<String> {
    r.non_sc
        .iter()
        .map(|o| {
            let s: Vec<String> = o.state.iter().map(|(l, v)| format!("{l}={v}")).collect();
            s.join(" ")
        })
        .collect()
}

#[test]
fn release_acquire_store_buffering_is_outside_drfrlx_and_shows_its_weak_outcome() {
    let r = store_buffering(Ordering::Release, Ordering::Acquire);
    assert!(!r.is_legal(), "{r}");
    assert!(!r.is_illegal(), "{r}");
    assert!(r.is_outside(), "{r}");
    assert!(r.is_complete(), "{r}");
    // The four stores and loads of the two threads are the acquire/release lines.
    assert_eq!(r.outside.len(), 4, "{r}");
    // SC gives (0,1), (1,0), (1,1); rc11 also (0,0): exactly one non-SC
    // outcome, both loads reading the initial 0.
    assert_eq!(r.non_sc.len(), 1, "{r}");
    // x, y, o0, o1 in allocation order: both flags set, both loads 0.
    let values: Vec<u64> = r.non_sc[0].state.iter().map(|(_, v)| *v).collect();
    assert_eq!(values, vec![1, 1, 0, 0], "{}", states(&r)[0]);
    assert_eq!(r.non_sc[0].blamed.len(), 1, "{r}");
    assert!(
        r.non_sc[0].blamed[0].starts_with("the acquire/release atomics at "),
        "{r}"
    );
    assert!(
        r.to_string().contains("outside DRFrlx: acquire/release atomics at "),
        "{r}"
    );
}

#[test]
fn seq_cst_store_buffering_stays_legal_with_only_sc_outcomes() {
    let r = store_buffering(Ordering::SeqCst, Ordering::SeqCst);
    assert!(r.is_legal(), "{r}");
    assert!(r.outside.is_empty(), "{r}");
    assert!(r.non_sc.is_empty(), "{r}");
}

#[test]
fn release_acquire_message_passing_is_outside_but_has_no_non_sc_outcome() {
    let r = Check::new().explore(|| {
        let data = Arc::new(AtomicU32::new(0));
        let flag = Arc::new(AtomicU32::new(0));
        let seen = Arc::new(AtomicU32::new(9));
        let (d2, f2) = (data.clone(), flag.clone());
        let t = thread::spawn(move || {
            d2.store(1, Ordering::SeqCst);
            f2.store(1, Ordering::Release);
        });
        if flag.load(Ordering::Acquire) == 1 {
            seen.store(data.load(Ordering::SeqCst), Ordering::SeqCst);
        }
        t.join().unwrap();
    });
    assert!(r.is_outside(), "{r}");
    assert_eq!(r.outside.len(), 2, "{r}");
    assert!(r.non_sc.is_empty(), "{r}");
}
