//! A quantum load may return any value of its type (seed 004, section
//! 3.4.3). The quantum-equivalent program offers each quantum access the
//! location's initial value, what the program wrote there, the declared
//! extra values and the type's smallest and largest values, and the report
//! lists exactly the values tried (issue 19, defect 2: without the
//! boundaries, a reader asserting `a <= 1` on a quantum load passed unless
//! the user guessed a larger value).

use scopecheck::drfrlx::{Check, Class, DrfReport};
use scopecheck::sync::atomic::AtomicU32;
use scopecheck::sync::Arc;
use scopecheck::{thread, FailureKind};

/// One thread sets a flag-like counter to 1 with a quantum store; the
/// main thread reads it with a quantum load and assumes it is at most 1.
fn bounded_reader(check: Check) -> DrfReport {
    check.explore(|| {
        let a = Arc::new(AtomicU32::new(0));
        let a2 = a.clone();
        let t = thread::spawn(move || a2.rlx(Class::Quantum).store(1));
        let v = a.rlx(Class::Quantum).load().get();
        assert!(v <= 1, "read {v}");
        t.join().unwrap();
    })
}

#[test]
fn a_bound_assumed_on_a_quantum_load_fails_at_the_types_largest_value() {
    let r = bounded_reader(Check::new());
    assert!(r.is_illegal(), "{r}");
    assert_eq!(r.failures.len(), 1, "{r}");
    assert_eq!(r.failures[0].kind(), FailureKind::Panic, "{r}");
    assert!(r.failures[0].message().contains("read 4294967295"), "{r}");
    assert_eq!(r.quantum_domains.len(), 1, "{r}");
    assert_eq!(r.quantum_domains[0].1, vec![0, 1, u32::MAX as u64], "{r}");
    assert!(
        r.to_string().contains("quantum values tried at ") && r.to_string().contains("{0, 1, 4294967295}"),
        "{r}"
    );
}

#[test]
fn without_boundaries_the_report_says_which_values_the_verdict_covers() {
    let r = bounded_reader(Check {
        quantum_boundaries: false,
        ..Check::new()
    });
    // Only the initial value and the value written: the assumption holds
    // for them, and the report says the verdict covers exactly {0, 1}.
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.quantum_domains[0].1, vec![0, 1], "{r}");
    assert!(
        r.to_string().contains("{0, 1} (the verdict covers these values only)"),
        "{r}"
    );
}

#[test]
fn a_declared_value_joins_the_boundaries() {
    let r = bounded_reader(Check {
        quantum_values: vec![7],
        ..Check::new()
    });
    assert!(r.is_illegal(), "{r}");
    assert_eq!(r.quantum_domains[0].1, vec![0, 1, 7, u32::MAX as u64], "{r}");
}

#[test]
fn signed_types_offer_their_minimum_and_maximum() {
    use scopecheck::sync::atomic::AtomicI8;
    let r = Check::new().explore(|| {
        let a = Arc::new(AtomicI8::new(0));
        let v = a.rlx(Class::Quantum).load().get();
        std::hint::black_box(v);
    });
    assert!(r.is_legal(), "{r}");
    // i8 words are zero-extended: -128 is 0x80 and 127 is 0x7f.
    assert_eq!(r.quantum_domains[0].1, vec![0, 0x7f, 0x80], "{r}");
}
