//! Misuse of the checker gets a clear error in the user's terms: a model
//! started inside another model (through every entry point), and a shim
//! object used after the run that created it.

mod common;

use common::the_failure;
use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::{Builder, FailureKind};

/// Runs `inner` as the body of an outer model's only thread: the inner
/// entry point must fail with the nesting error, reported as the outer
/// model's failure, and leave the outer run intact (one execution, its
/// counts, its own report).
fn nested_is_a_clear_error(entry: &str, inner: impl Fn()) {
    let r = Builder::new().explore(|| {
        let x = AtomicUsize::new(1);
        x.fetch_add(1, Ordering::Relaxed);
        inner();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(
        f.message
            .contains(&format!("`{entry}` was called inside another model")),
        "{entry}: {}",
        f.message
    );
    assert_eq!((r.executions(), r.failed()), (0, 1), "{entry}: {r}");
}

#[test]
fn explore_parallel_inside_a_model_is_a_clear_error() {
    nested_is_a_clear_error("Builder::explore_parallel", || {
        Builder::new().explore_parallel(2, || {
            let x = AtomicUsize::new(0);
            x.store(1, Ordering::Relaxed);
        });
    });
}

#[test]
fn every_other_entry_point_inside_a_model_is_a_clear_error() {
    nested_is_a_clear_error("scopecheck::model", || scopecheck::model(|| {}));
    nested_is_a_clear_error("scopecheck::model", || {
        Builder::new().explore(|| {});
    });
    nested_is_a_clear_error("scopecheck::model", || Builder::new().check(|| {}));
    nested_is_a_clear_error("scopecheck::drfrlx", || {
        scopecheck::drfrlx::Check::new().explore(|| {});
    });
    nested_is_a_clear_error("scopecheck::drfrlx", || scopecheck::drfrlx::check(|| {}));
}

#[test]
fn explore_parallel_in_a_spawned_model_thread_is_a_clear_error() {
    let r = Builder::new().explore(|| {
        let t = scopecheck::thread::spawn(|| {
            Builder::new().explore_parallel(1, || {});
        });
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Panic);
    assert!(f.message.contains("thread 1 panicked"), "{}", f.message);
    assert!(f.message.contains("inside another model"), "{}", f.message);
}
