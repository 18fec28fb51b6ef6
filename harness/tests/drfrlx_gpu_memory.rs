//! DRFrlx classes on every atomic API (issue 19 item 3): figure 2 and the
//! six use cases of seed 004 written on GPU memory, each through another
//! front end (`AtomicRef` in its `cuda` and `sycl` flavours over `Plain`
//! cells and buffer elements, `Buffer::atomic`, memory-kind atomics), as
//! the paper labels them and mislabelled. The verdicts and execution counts
//! are those of the std-shaped versions in `drfrlx.rs`: a class means the
//! same on every front end.

mod common;

use common::one_failure;
use scopecheck::drfrlx::{Check, Class, DrfReport, Infer, RaceKind};
use scopecheck::gpu::{alloc_in, launch, Buffer, Launch, MemoryKind};
use scopecheck::scope::{Placement, Scope};
use scopecheck::sync::atomic::Ordering::SeqCst;
use scopecheck::sync::atomic_ref::{memory_order, memory_scope, thread_scope, AtomicRef, Plain};
use scopecheck::sync::Arc;
use scopecheck::thread::spawn_at;
use scopecheck::FailureKind;

fn kinds(r: &DrfReport) -> Vec<RaceKind> {
    r.race_kinds()
}

fn all_inferred() -> Check {
    Check {
        infer: Infer::All,
        ..Check::new()
    }
}

// ------------------------------------------------ figure 2: cuda::atomic_ref

/// Figure 2 with `cuda::atomic_ref`s on `Plain` cells, between GPU threads
/// of two blocks: X unpaired, Y non-ordering, Z (in (b)) paired through the
/// reference's default `seq_cst`; the reader publishes `r1 * 10 + r2`.
fn figure_2(with_z: bool) -> DrfReport {
    Check::new().explore(move || {
        let cells = Arc::new([0u32; 4].map(Plain::new));
        let c2 = cells.clone();
        let dev = thread_scope::device;
        let t = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
            let [x, y, z, _] = &*c2;
            AtomicRef::cuda(x, dev).rlx(Class::Unpaired).store(3);
            if with_z {
                AtomicRef::cuda(z, dev).store(1);
            }
            AtomicRef::cuda(y, dev).rlx(Class::NonOrdering).store(2);
        });
        let u = spawn_at(Placement::gpu(0, 1, 0, 0), move || {
            let [x, y, z, out] = &*cells;
            let r1 = AtomicRef::cuda(y, dev).rlx(Class::NonOrdering).load().get();
            if with_z {
                let _r0 = AtomicRef::cuda(z, dev).load();
            }
            let r2 = AtomicRef::cuda(x, dev).rlx(Class::Unpaired).load().get();
            AtomicRef::cuda(out, dev).store(r1 * 10 + r2);
        });
        t.join().unwrap();
        u.join().unwrap();
    })
}

#[test]
fn figure_2a_on_atomic_refs_is_a_non_ordering_race() {
    let r = figure_2(false);
    assert_eq!(kinds(&r), vec![RaceKind::NonOrdering], "{r}");
    assert!(r.races[0].path.is_some(), "{r}");
    assert_eq!((r.sc_executions, r.weak_executions), (3, 4), "{r}");
    // out = 20 (r1 = 2, r2 = 0) is the one non-SC result, blamed on the race.
    assert_eq!(r.non_sc.len(), 1, "{r}");
    assert!(r.non_sc[0].state.iter().any(|(_, v)| *v == 20), "{r}");
    assert_eq!(r.non_sc[0].blamed.len(), 1, "{r}");
    assert!(r.non_sc[0].blamed[0].starts_with("non-ordering race"), "{r}");
}

#[test]
fn figure_2b_on_atomic_refs_is_legal() {
    let r = figure_2(true);
    assert!(r.is_legal() && r.races.is_empty(), "{r}");
    assert_eq!(r.sc_executions, 4, "{r}");
    assert!(r.non_sc.is_empty(), "{r}");
}

// ------------------------------------------------ work queue: Buffer::atomic

/// Listing 1 in a kernel of two work-items: work-item 0 fills the item (a
/// plain buffer element) and enqueues with a paired store to `head`
/// (`Buffer::atomic`); work-item 1 checks occupancy with a relaxed load of
/// `class` and, if `dequeue_paired`, dequeues with a paired load.
fn work_queue(class: Option<Class>, dequeue_paired: bool) -> DrfReport {
    all_inferred().explore(move || {
        let head = Buffer::new(1, 0u32);
        let item = Buffer::new(1, 0u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                if ctx.thread_idx() == 0 {
                    item.set(0, 42);
                    head.atomic(0).store(1, SeqCst, Scope::Device);
                } else if head.atomic(0).rlx(class).scoped(Scope::Device).load().get() > 0
                    && (!dequeue_paired || head.atomic(0).load(SeqCst, Scope::Device) == 1)
                {
                    assert_eq!(item.get(0), 42);
                }
            },
        );
    })
}

#[test]
fn work_queue_on_a_buffer() {
    let r = work_queue(Some(Class::Unpaired), true);
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 2, "{r}");
    let r = work_queue(Some(Class::Commutative), true);
    assert_eq!(kinds(&r), vec![RaceKind::Commutative], "{r}");
    let r = work_queue(Some(Class::Unpaired), false);
    assert_eq!(kinds(&r), vec![RaceKind::Data], "{r}");
}

// ------------------------------------ event counter: sycl::atomic_ref on a Buffer

/// Listing 2 in a kernel of two work-items, each incrementing both bins of
/// a global buffer (starting at its own) through
/// `sycl::atomic_ref<relaxed, device>(bins[i])`; the host loads the bins
/// after the kernel.
fn histogram(use_result: bool, class: Option<Class>) -> DrfReport {
    all_inferred().explore(move || {
        let bins = Buffer::new(2, 0u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |ctx| {
                let w = ctx.thread_idx() as usize;
                for i in 0..2 {
                    let bin = AtomicRef::sycl(bins.at((w + i) % 2), memory_order::relaxed, memory_scope::device);
                    let r = bin.rlx(class).fetch_add(1);
                    if use_result {
                        let _ = r.get();
                    } else {
                        r.discard();
                    }
                }
            },
        );
        let total: u32 = (0..2)
            .map(|i| {
                AtomicRef::sycl(bins.at(i), memory_order::relaxed, memory_scope::system)
                    .rlx(class)
                    .load()
                    .get()
            })
            .sum();
        assert_eq!(total, 4);
    })
}

#[test]
fn event_counter_on_sycl_atomic_refs() {
    let r = histogram(false, Some(Class::Commutative));
    assert!(r.is_legal(), "{r}");
    assert_eq!((r.sc_executions, r.weak_executions), (3, 3), "{r}");
    let r = histogram(true, Some(Class::Commutative));
    assert_eq!(kinds(&r), vec![RaceKind::Commutative], "{r}");
    // Unlabelled, inference names the paper's class for the bins.
    let r = histogram(false, None);
    let inf = r.inferences.first().expect("the bins' lines are inferred");
    assert_eq!(
        inf.suggestion,
        scopecheck::drfrlx::Suggestion::Class(Class::Commutative),
        "{r}"
    );
}

// ------------------------------------------------------ flags: memory kinds

/// Listing 3 with both flags in managed memory (`gpu::alloc_in`): a GPU
/// worker checks `stop` up to twice, setting `dirty`; the host sets `stop`,
/// waits for the worker, then loads `dirty`.
fn flags(stop_class: Option<Class>, dirty_class: Option<Class>) -> DrfReport {
    Check::new().explore(move || {
        let stop = Arc::new(alloc_in(MemoryKind::Managed, false));
        let dirty = Arc::new(alloc_in(MemoryKind::Managed, false));
        let (s2, d2) = (stop.clone(), dirty.clone());
        let w = spawn_at(Placement::gpu(0, 0, 0, 0), move || {
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
fn flags_in_managed_memory() {
    let r = flags(Some(Class::NonOrdering), Some(Class::Commutative));
    assert!(r.is_legal(), "{r}");
    assert_eq!(r.sc_executions, 3, "{r}");
    // `stop` as commutative: the worker uses the value it loads.
    let r = flags(Some(Class::Commutative), Some(Class::Commutative));
    assert_eq!(kinds(&r), vec![RaceKind::Commutative], "{r}");
}

// ---------------------------------- split counter: atomic_ref in a memory kind

/// Listing 4: two GPU threads each increment their own counter (quantum
/// load and store through a `cuda::atomic_ref` on a `Plain` cell in mapped
/// memory); the host reads both into an approximate count and, with
/// `exact`, checks that they sum to 2 after the join.
fn split_counter(exact: bool, writer: Option<Class>, reader: Option<Class>) -> DrfReport {
    Check::new().explore(move || {
        let c = Arc::new([0u32; 2].map(|v| Plain::in_memory(MemoryKind::Mapped, v)));
        let ts: Vec<_> = (0..2)
            .map(|i| {
                let c = c.clone();
                spawn_at(Placement::gpu(0, i as u32, 0, 0), move || {
                    let r = AtomicRef::cuda(&c[i], thread_scope::system);
                    let v = r.rlx(writer).load().get();
                    r.rlx(writer).store(v.wrapping_add(1));
                })
            })
            .collect();
        let partial = c.iter().fold(0u32, |a, x| {
            a.wrapping_add(AtomicRef::cuda(x, thread_scope::system).rlx(reader).load().get())
        });
        std::hint::black_box(partial);
        for t in ts {
            t.join().unwrap();
        }
        if exact {
            let total: u32 = c
                .iter()
                .map(|x| AtomicRef::cuda(x, thread_scope::system).rlx(writer).load().get())
                .sum();
            assert_eq!(total, 2, "exact count");
        }
    })
}

#[test]
fn split_counter_in_mapped_memory() {
    let q = Some(Class::Quantum);
    let r = split_counter(false, q, q);
    assert!(r.is_legal(), "{r}");
    assert!(r.quantum_programs > 1, "{r}");
    let r = split_counter(true, q, q);
    assert!(r.races.is_empty(), "{r}");
    let f = one_failure(&r.failures, FailureKind::Panic, &r);
    assert!(f.message().contains("exact count"), "{r}");
    let r = split_counter(false, q, Some(Class::Unpaired));
    assert_eq!(kinds(&r), vec![RaceKind::Quantum], "{r}");
}

// ------------------------------------ reference counter: memory-kind atomics

/// Listing 5 in a kernel of two work-items: the count is a memory-kind
/// atomic (`gpu::alloc_in(MemoryKind::Device, ..)`, quantum increments and
/// decrements), the mark a buffer element (`Buffer::atomic`, commutative),
/// the object a plain buffer element, deleted by the host after the kernel
/// or, mislabelled, by the work-item that dropped the last reference.
fn refcount(delete_after_kernel: bool, rc_class: Option<Class>) -> DrfReport {
    Check::new().explore(move || {
        let rc = alloc_in(MemoryKind::Device, 0u32);
        let marked = Buffer::new(1, false);
        let object = Buffer::new(1, 1u32);
        launch(
            Launch::new(1, 2),
            |_| (),
            |_| {
                rc.rlx(rc_class).scoped(Scope::Device).fetch_add(1).discard();
                if rc.rlx(rc_class).scoped(Scope::Device).fetch_sub(1).get() == 1 {
                    if delete_after_kernel {
                        marked.atomic(0).rlx(Class::Commutative).store(true);
                    } else {
                        object.set(0, 0);
                    }
                }
            },
        );
        if marked.atomic(0).load(SeqCst, Scope::System) {
            object.set(0, 0);
        }
    })
}

#[test]
fn reference_counter_on_a_device_atomic() {
    let r = refcount(true, Some(Class::Quantum));
    assert!(r.is_legal(), "{r}");
    let r = refcount(false, Some(Class::Quantum));
    assert_eq!(kinds(&r), vec![RaceKind::Data], "{r}");
}

// ----------------------------------------- seqlock: atomic_ref on local memory

/// Listing 6 in one work-group, with the sequence number and the data in
/// local memory (`Buffer::local`, through `sycl::atomic_ref<seq_cst,
/// work_group, local_space>`): work-item 0 writes, work-item 1 reads and
/// publishes the data to a global buffer if the two sequence numbers agree
/// and are even (or, mislabelled, before checking).
fn seqlock(use_before_validating: bool, data_class: Option<Class>) -> DrfReport {
    use scopecheck::sync::atomic_ref::address_space::local_space;
    Check::new().explore(move || {
        let out = Buffer::new(1, 0u32);
        launch(
            Launch::new(1, 2),
            |_| Buffer::<u32>::local(2),
            |ctx| {
                let shared = ctx.shared();
                let seq = AtomicRef::sycl_in(
                    shared.at(0),
                    memory_order::seq_cst,
                    memory_scope::work_group,
                    local_space,
                );
                let data = AtomicRef::sycl_in(
                    shared.at(1),
                    memory_order::seq_cst,
                    memory_scope::work_group,
                    local_space,
                );
                if ctx.thread_idx() == 0 {
                    let s = seq.load();
                    if seq.compare_exchange_strong(s, s + 1).is_ok() {
                        data.rlx(data_class).store(5);
                        seq.store(s + 2);
                    }
                } else {
                    let s0 = seq.load();
                    let d = data.rlx(data_class).load();
                    let s1 = seq.fetch_add(0);
                    if use_before_validating || (s0 == s1 && s0.is_multiple_of(2)) {
                        out.atomic(0).store(d.get(), SeqCst, Scope::Device);
                    } else {
                        d.discard();
                    }
                }
            },
        );
    })
}

#[test]
fn seqlock_in_local_memory() {
    let r = seqlock(false, Some(Class::Speculative));
    assert!(r.is_legal(), "{r}");
    let r = seqlock(true, Some(Class::Speculative));
    assert_eq!(kinds(&r), vec![RaceKind::Speculative], "{r}");
}

// ------------------------------------------------------ std's AtomicPtr

/// `AtomicPtr::rlx` (the one std-shaped atomic that had no classes): a
/// speculative load of a published pointer, used only when the paired flag
/// read before it shows the publication, is legal; used regardless, it is a
/// speculative race. (The pointer is reset before the end: the final memory
/// DRFrlx compares between runs must not hold a heap address, which differs
/// between executions.)
fn pointer_publication(use_before_validating: bool) -> DrfReport {
    use scopecheck::sync::atomic::{AtomicPtr, AtomicU32};
    Check::new().explore(move || {
        let target = Box::into_raw(Box::new(7u32));
        let p = Arc::new(AtomicPtr::new(std::ptr::null_mut::<u32>()));
        let flag = Arc::new(AtomicU32::new(0));
        let out = Arc::new(AtomicU32::new(0));
        let (p2, f2) = (p.clone(), flag.clone());
        let w = scopecheck::thread::spawn(move || {
            p2.rlx(Class::Speculative).store(target);
            f2.store(1, SeqCst);
        });
        let published = flag.load(SeqCst) == 1;
        let seen = p.rlx(Class::Speculative).load();
        if use_before_validating || published {
            let q = seen.get();
            out.store(u32::from(!q.is_null()), SeqCst);
        } else {
            seen.discard();
        }
        w.join().unwrap();
        p.store(std::ptr::null_mut(), SeqCst);
        // SAFETY: made by Box::into_raw above, freed once, after the join.
        drop(unsafe { Box::from_raw(target) });
    })
}

#[test]
fn pointer_atomics_take_classes_too() {
    let r = pointer_publication(false);
    assert!(r.is_legal(), "{r}");
    let r = pointer_publication(true);
    assert_eq!(kinds(&r), vec![RaceKind::Speculative], "{r}");
}
