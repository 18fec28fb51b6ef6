//! The errors for orders, types, sizes and address spaces an atomic
//! reference cannot have, each raised at the user's call.

use super::*;

/// Where `needle` stands in this file, as reports name it.
fn at(needle: &str) -> String {
    position(file!(), include_str!("errors.rs"), needle)
}

/// Asserts that `f` is thread 0's panic saying exactly `what`, raised at
/// the call that starts with `call` in this file (the caller's line, not
/// the shim's).
#[track_caller]
fn assert_panic(f: &scopecheck::Failure, what: &str, call: &str) {
    assert_eq!(f.message(), format!("thread 0 panicked: {what} (at {})", at(call)));
}

#[test]
fn a_release_load_is_an_error_at_the_call() {
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let r = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device);
        r.load_with(memory_order::release);
    });
    assert_panic(
        &f,
        "there is no such thing as a release load (sycl::atomic_ref<i32>: a load order must be relaxed, acquire \
         or seq_cst)",
        "load_with(memory_order::release)",
    );
}

#[test]
fn an_acquire_release_load_is_an_error() {
    let f = the_panic(|| {
        let c = Plain::new(0u64);
        AtomicRef::cuda(&c, thread_scope::device).load_scoped(Ordering::AcqRel, thread_scope::block);
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release load (cuda::atomic_ref<u64>: a load order must be relaxed, \
         acquire or seq_cst)",
        "load_scoped(Ordering::AcqRel, thread_scope::block)",
    );
}

#[test]
fn acquire_and_acquire_release_stores_are_errors() {
    let f = the_panic(|| {
        let c = Plain::new(0u32);
        let r = AtomicRef::sycl(&c, memory_order::seq_cst, memory_scope::device);
        r.store_with(1, memory_order::acquire);
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire store (sycl::atomic_ref<u32>: a store order must be relaxed, \
         release or seq_cst)",
        "store_with(1, memory_order::acquire)",
    );
    let f = the_panic(|| {
        let c = Plain::new(0.5f32);
        AtomicRef::sycl(&c, memory_order::seq_cst, memory_scope::device).store_scoped(
            1.0,
            memory_order::acq_rel,
            memory_scope::system,
        );
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release store (sycl::atomic_ref<f32>: a store order must be \
         relaxed, release or seq_cst)",
        "store_scoped(",
    );
}

#[test]
fn release_and_acquire_release_failure_orders_are_errors() {
    let f = the_panic(|| {
        let c = Plain::new(0i64);
        let _ = AtomicRef::sycl(&c, memory_order::relaxed, memory_scope::device).compare_exchange_weak_with(
            0,
            1,
            (memory_order::seq_cst, memory_order::release),
        );
    });
    assert_panic(
        &f,
        "there is no such thing as a release failure ordering (sycl::atomic_ref<i64>: a compare-exchange's \
         failure order must be relaxed, acquire or seq_cst)",
        "compare_exchange_weak_with(",
    );
    let f = the_panic(|| {
        let c = Plain::new(0i64);
        let _ = AtomicRef::cuda(&c, thread_scope::device).compare_exchange_strong_scoped(
            0,
            1,
            (Ordering::AcqRel, Ordering::AcqRel),
            thread_scope::system,
        );
    });
    assert_panic(
        &f,
        "there is no such thing as an acquire-release failure ordering (cuda::atomic_ref<i64>: a \
         compare-exchange's failure order must be relaxed, acquire or seq_cst)",
        "compare_exchange_strong_scoped(",
    );
}

/// The default orders never produce an invalid order: every operation with
/// defaults runs under each default order SYCL allows.
#[test]
fn every_default_order_is_valid_for_every_operation() {
    for order in [memory_order::relaxed, memory_order::acq_rel, memory_order::seq_cst] {
        let r = Builder::new().explore(move || {
            let c = Plain::new(1u32);
            let r = AtomicRef::sycl(&c, order, memory_scope::device);
            r.store(r.load());
            r.exchange(2);
            let _ = r.compare_exchange_strong(2, 3);
            let _ = r.compare_exchange_strong(9, 3);
            r.fetch_add(1);
            r.fetch_sub(1);
            r.fetch_and(7);
            r.fetch_or(8);
            r.fetch_xor(1);
            r.fetch_min(4);
            r.fetch_max(5);
            assert_eq!(c.read(), 5);
        });
        assert!(r.failures().is_empty(), "{order:?}: {r}");
        assert_eq!(r.executions(), 1);
    }
}

#[test]
fn sycl_default_order_must_be_relaxed_acq_rel_or_seq_cst() {
    let why = "sycl::atomic_ref<i32>: the default order must be relaxed, acq_rel or seq_cst (SYCL defines \
               default_read_order and default_write_order only for those)";
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let _ = AtomicRef::sycl(&c, memory_order::acquire, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("{why}, not Acquire"),
        "AtomicRef::sycl(&c, memory_order::acquire",
    );
    let f = the_panic(|| {
        let c = Plain::new(0i32);
        let _ = AtomicRef::sycl(&c, memory_order::release, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("{why}, not Release"),
        "AtomicRef::sycl(&c, memory_order::release",
    );
}

#[test]
fn sycl_types_are_its_integers_floats_and_pointers() {
    let types = "T must be int, unsigned int, long, unsigned long, long long, unsigned long long, float, double or \
                 a pointer, of 4 or 8 bytes (i32, u32, i64, u64, isize, usize, f32, f64, *mut U, *const U)";
    let f = the_panic(|| {
        let small = Plain::new(0u8);
        let _ = AtomicRef::sycl(&small, memory_order::relaxed, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("sycl::atomic_ref<u8>: {types}; u8 is a 1-byte unsigned integer"),
        "AtomicRef::sycl(&small,",
    );
    let f = the_panic(|| {
        let flag = Plain::new(true);
        let _ = AtomicRef::sycl(&flag, memory_order::relaxed, memory_scope::device);
    });
    assert_panic(
        &f,
        &format!("sycl::atomic_ref<bool>: {types}; bool is a 1-byte bool"),
        "AtomicRef::sycl(&flag,",
    );
}

#[test]
fn cuda_types_must_have_four_or_eight_bytes() {
    let f = the_panic(|| {
        let short = Plain::new(0i16);
        let _ = AtomicRef::cuda(&short, thread_scope::block);
    });
    assert_panic(
        &f,
        "cuda::atomic_ref<i16>: the checker models atomic references to 4- and 8-byte objects, and this type has \
         2 bytes",
        "AtomicRef::cuda(&short,",
    );
}

#[test]
fn plain_cells_hold_at_most_eight_bytes() {
    #[derive(Copy, Clone)]
    struct Wide([u64; 2]);
    impl AtomicValue for Wide {
        const KIND: ValueKind = ValueKind::Other;
        fn to_bits(self) -> u64 {
            self.0[0]
        }
        fn from_bits(b: u64) -> Wide {
            Wide([b, 0])
        }
    }
    let f = the_panic(|| {
        let _ = Plain::new(Wide([1, 2]));
    });
    assert_panic(
        &f,
        "scopecheck: a checker location holds values of at most 8 bytes (it keeps each one as a 64-bit pattern), \
         and atomic_ref::errors::plain_cells_hold_at_most_eight_bytes::Wide does not fit: this type has 16",
        "Plain::new(Wide([1, 2]))",
    );
}

#[test]
fn an_asserted_address_space_must_match_the_cells() {
    let f = the_panic(|| {
        let c = Plain::local(0i32);
        let asserted = address_space::global_space;
        let _ = AtomicRef::sycl_in(&c, memory_order::relaxed, memory_scope::work_group, asserted);
    });
    assert_panic(
        &f,
        "sycl::atomic_ref<i32> asserts address_space::global_space, but Plain<i32>(loc0.0) was made in \
         local_space (SYCL: a mismatched address space is undefined behaviour)",
        "AtomicRef::sycl_in(&c, memory_order::relaxed, memory_scope::work_group, asserted)",
    );
    // A matching assertion, and any assertion on a cell whose space was not
    // said, are fine. (Local memory is reached only inside a kernel: a host
    // thread touching it is a misuse of its own.)
    scopecheck::model(|| {
        use scopecheck::gpu::{launch, Launch};
        let g = Plain::global(0i32);
        let n = Plain::new(0i32);
        launch(
            Launch::new(1, 1),
            |_| Plain::local(0i32),
            |item| {
                let l = item.shared();
                AtomicRef::sycl_in(
                    l,
                    memory_order::relaxed,
                    memory_scope::work_group,
                    address_space::local_space,
                )
                .store(1);
                AtomicRef::sycl_in(
                    l,
                    memory_order::relaxed,
                    memory_scope::device,
                    address_space::generic_space,
                )
                .store(2);
                assert_eq!(l.read(), 2);
            },
        );
        AtomicRef::sycl_in(
            &g,
            memory_order::relaxed,
            memory_scope::device,
            address_space::global_space,
        )
        .store(1);
        AtomicRef::sycl_in(
            &n,
            memory_order::relaxed,
            memory_scope::device,
            address_space::local_space,
        )
        .store(1);
        assert_eq!((g.read(), n.read()), (1, 1));
    });
}
