//! The DRFrlx-system mapping is a guard: it is off again after the guard is
//! dropped, also when a panic unwinds through it, so a failed DRFrlx check
//! cannot leave the next runs on this thread mapped.

use scopecheck_instrument::rt::{drfrlx_system, DrfrlxSystem};

#[test]
fn the_mapping_ends_with_its_guard() {
    assert!(!drfrlx_system());
    let g = DrfrlxSystem::on();
    assert!(drfrlx_system());
    drop(g);
    assert!(!drfrlx_system());
}

#[test]
fn a_panic_under_the_guard_leaves_the_mapping_off() {
    let r = std::panic::catch_unwind(|| {
        let _g = DrfrlxSystem::on();
        assert!(drfrlx_system());
        panic!("inside the weak run");
    });
    assert!(r.is_err());
    assert!(!drfrlx_system());
}
