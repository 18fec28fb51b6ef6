//! Seed 003's example: a push-only-then-pop-only `List` whose top pointer
//! is moved by a `sycl::atomic_ref<int *, memory_order::relaxed,
//! memory_scope::work_group>`. The seed's `main` fills one list from a
//! kernel, then pops it and pushes into a second one from another kernel,
//! then pops the second one on the host.
//!
//! With one work-group the work-group scope is enough and every execution
//! is explored: (N!)^3 of them (the order of the N pushes, of the N pops,
//! and of the N pushes of the second kernel). With two or more work-groups
//! the relaxed fetch_adds of different groups are not mutually
//! scope-inclusive: a heterogeneous race, whose fix is device scope; with
//! device scope the program is correct again.

mod common;

use common::{builder, outcomes, the_failure};
use scopecheck::gpu::{launch, Launch};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic_ref::{memory_order, memory_scope, AtomicRef, Plain};
use scopecheck::{FailureKind, MemoryModel, Strategy};
use std::collections::BTreeSet;
use std::mem::size_of;

/// The address where the `in` list's `data` starts, and the `out` list's.
/// The top pointers hold addresses inside `data`, which are mapped back to
/// elements and never dereferenced, so any address will do. (A real
/// address would have to be the same in every execution: the checker
/// replays values it recorded in earlier ones.)
const IN_DATA: usize = 0x1_0000;
const OUT_DATA: usize = 0x2_0000;

/// Seed 003's `List`: `top` points to the free spot, `data` holds the
/// elements (`int`s: `i32`).
struct List {
    top: Plain<*mut i32>,
    data: Vec<Plain<i32>>,
    base: usize,
    scope: Scope,
}

impl List {
    /// `List(q, size)`: `top = data`. The seed's `atomic_top` member is an
    /// `atomic_ref` bound to `top`; here it is made where it is used
    /// ([`List::atomic_top`]), which is the same thing (an atomic_ref is
    /// only a reference with a default order and scope).
    fn new(size: usize, base: usize, scope: Scope) -> List {
        List {
            top: Plain::new(base as *mut i32),
            data: (0..size).map(|_| Plain::new(0)).collect(),
            base,
            scope,
        }
    }

    /// `sycl::atomic_ref<int *, memory_order::relaxed, scope> atomic_top(top)`.
    fn atomic_top(&self) -> AtomicRef<'_, *mut i32> {
        AtomicRef::sycl(&self.top, memory_order::relaxed, self.scope)
    }

    /// `*p`: the element a pointer into `data` points at.
    fn at(&self, p: *mut i32) -> &Plain<i32> {
        let offset = p as usize - self.base;
        assert_eq!(offset % size_of::<i32>(), 0, "a pointer between two elements");
        &self.data[offset / size_of::<i32>()]
    }

    fn empty(&self) -> bool {
        self.top.read() as usize == self.base
    }

    fn push(&self, val: i32) {
        // Allocate space by moving top pointer to right.
        let old_top = self.atomic_top().fetch_add(1);
        self.at(old_top).write(val);
    }

    fn pop(&self) -> i32 {
        // Deallocate space by moving top pointer to left.
        let old_top = self.atomic_top().fetch_add(-1);
        self.at(old_top.wrapping_sub(1)).read()
    }
}

/// The seed's `main` with `n` work-items in `groups` work-groups and
/// `atomic_top` at `scope`; records what the host pops from `out`.
fn seed_main(n: u32, groups: u32, scope: Scope) -> impl Fn(&dyn Fn(Vec<i32>)) + Clone {
    assert_eq!(n % groups, 0);
    move |rec: &dyn Fn(Vec<i32>)| {
        let input = List::new(n as usize, IN_DATA, scope);
        let out = List::new(n as usize, OUT_DATA, scope);
        let range = Launch::new(groups, n / groups);
        // q.parallel_for(lsize, [=](auto idx) { in->push(idx); }).wait();
        launch(range, |_| (), |item| input.push(item.global_idx() as i32));
        // q.parallel_for(lsize, [=](auto idx) { out->push(idx * 100 + in->pop()); }).wait();
        launch(
            range,
            |_| (),
            |item| {
                let idx = item.global_idx() as i32;
                out.push(idx * 100 + input.pop())
            },
        );
        let mut popped = Vec::new();
        while !out.empty() {
            popped.push(out.pop());
        }
        rec(popped);
    }
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..n {
            let mut q = p.clone();
            q.insert(i, n - 1);
            all.push(q);
        }
    }
    all
}

/// What the host can pop, worked out from the list's semantics rather
/// than by running it: the first kernel leaves `in` holding some
/// permutation of the work-item ids; in the second kernel work-item `j`
/// pops some slot `p[j]` and pushes into some slot `q[j]` of `out`, with
/// `p` and `q` any two permutations; the host pops `out` from the top.
fn expected(n: usize) -> BTreeSet<Vec<i32>> {
    let perms = permutations(n);
    let mut all = BTreeSet::new();
    for held in &perms {
        for p in &perms {
            for q in &perms {
                let mut out = vec![0i32; n];
                for j in 0..n {
                    out[q[j]] = (j * 100 + held[p[j]]) as i32;
                }
                out.reverse();
                all.insert(out);
            }
        }
    }
    all
}

/// The seed's own output pattern (each work-item served in id order):
/// `200, 101, 002` for three items.
fn in_order(n: usize) -> Vec<i32> {
    (0..n).rev().map(|j| (j * 100 + (n - 1 - j)) as i32).collect()
}

#[test]
fn one_work_group_three_items() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, seed_main(3, 1, memory_scope::work_group));
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!(r.executions(), 216); // (3!)^3
    assert_eq!(o.len(), 36);
    assert_eq!(o, expected(3));
    assert!(o.contains(&in_order(3)));
    assert_eq!(in_order(3), vec![200, 101, 2]);
}

#[test]
fn one_work_group_four_items() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, seed_main(4, 1, memory_scope::work_group));
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!(r.executions(), 13_824); // (4!)^3
    assert_eq!(o.len(), 576);
    assert_eq!(o, expected(4));
}

#[test]
fn two_work_groups_race_on_the_work_group_scoped_top() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let r = b.explore(|| seed_main(4, 2, memory_scope::work_group)(&|_| {}));
    let f = the_failure(&r, FailureKind::HeterogeneousRace);
    // The two fetch_adds on the `in` list's top, by work-items of
    // different work-groups, at work-group (block) scope.
    assert!(f.message().contains("fetch_add"), "{}", f.message());
    assert!(f.message().contains("block scope"), "{}", f.message());
    assert!(
        f.message().contains("block 0") && f.message().contains("block 1"),
        "{}",
        f.message()
    );
    assert!(f.message().contains("seed_003_list.rs"), "{}", f.message());
    assert_eq!(
        f.fix(),
        Some(
            "use device scope (or wider) on both operations: device is the narrowest scope whose group around \
             each thread holds the other"
        )
    );
}

/// Recording every race instead of stopping: exactly the two racing pairs
/// of lines (push's fetch_add with itself, pop's with itself), in every
/// execution, and no data race on the elements (the RMWs stay atomic, so
/// no two work-items get the same slot).
#[test]
fn three_work_groups_race_in_both_kernels_and_only_on_the_top() {
    let mut b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    b.record_races = true;
    let (o, r) = outcomes(&b, seed_main(3, 3, memory_scope::work_group));
    let kinds: Vec<FailureKind> = r.failures().iter().map(|f| f.kind()).collect();
    assert_eq!(kinds, vec![FailureKind::HeterogeneousRace; 2], "{r}");
    assert_eq!((r.executions(), r.racy_executions()), (216, 216));
    assert_eq!(o, expected(3));
}

#[test]
fn device_scope_fixes_it() {
    let b = builder(MemoryModel::Src11, Strategy::Exhaustive);
    let (o, r) = outcomes(&b, seed_main(3, 3, memory_scope::device));
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 216);
    assert_eq!(o, expected(3));
    let (o, r) = outcomes(&b, seed_main(4, 2, memory_scope::device));
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete());
    assert_eq!(r.executions(), 13_824);
    assert_eq!(o, expected(4));
}
