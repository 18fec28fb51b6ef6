//! Heap addresses published through atomics differ from one execution to
//! the next. The exhaustive explorer re-runs the program to replay a kept
//! graph, so a pointer-typed value (`AtomicPtr`, an atomic reference to a
//! pointer) is taken from the execution that runs now: the replayed store's
//! recomputed address replaces the recorded one, every read returns the
//! address its write stored in this execution (never one from an earlier
//! execution), and a compare-exchange on pointers is decided on this
//! execution's values. Lock-free structures built on `Box::into_raw` then
//! explore exactly the executions their index-based twins do.
//!
//! Real nondeterminism (a random or a global counter's value stored in an
//! integer atomic) is still reported, with the line, the operation and both
//! values, and the report lists heap addresses among the likely causes.

mod common;

use common::{builder, outcomes, position, the_failure};
use scopecheck::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::*};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, FailureKind, MemoryModel, Report, Strategy};
use std::collections::BTreeSet;
use std::ptr::null_mut;

/// How many allocations of the node's size to keep alive before each node,
/// different in every execution, so that nodes really land at other
/// addresses each time (an allocator that hands back the same block for
/// each execution would hide the problem).
fn ballast<T>(make: impl Fn() -> T) -> Vec<Box<T>> {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 5;
    (0..n).map(|_| Box::new(make())).collect()
}

// ---------------------------------------------------------------- Treiber

struct TNode {
    value: usize,
    next: *mut TNode,
}

/// A Treiber stack on `Box::into_raw` and `AtomicPtr`. Popped nodes are
/// kept (not freed) until the stack is dropped, so no address is reused
/// within an execution (no ABA).
struct Treiber {
    head: AtomicPtr<TNode>,
    popped: std::sync::Mutex<Vec<*mut TNode>>,
}

// SAFETY: the raw pointers are owned by the stack; nodes are only reached
// through `head`'s acquire loads after their release publication.
unsafe impl Send for Treiber {}
// SAFETY: as above.
unsafe impl Sync for Treiber {}

impl Treiber {
    fn new() -> Treiber {
        Treiber {
            head: AtomicPtr::new(null_mut()),
            popped: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn push(&self, value: usize) {
        let _ballast = ballast(|| TNode {
            value: 0,
            next: null_mut(),
        });
        let n = Box::into_raw(Box::new(TNode {
            value,
            next: null_mut(),
        }));
        loop {
            let h = self.head.load(Acquire);
            // SAFETY: `n` is not published yet: this thread owns it.
            unsafe { (*n).next = h };
            if self.head.compare_exchange(h, n, Release, Relaxed).is_ok() {
                return;
            }
        }
    }

    fn pop(&self) -> Option<usize> {
        loop {
            let h = self.head.load(Acquire);
            if h.is_null() {
                return None;
            }
            // SAFETY: `h` was published by a release CAS this acquire load
            // read (or one before it in a release sequence), and nodes are
            // not freed before the stack is dropped.
            let next = unsafe { (*h).next };
            if self.head.compare_exchange(h, next, Acquire, Relaxed).is_ok() {
                self.popped.lock().unwrap().push(h);
                // SAFETY: as above.
                return Some(unsafe { (*h).value });
            }
        }
    }
}

impl Drop for Treiber {
    fn drop(&mut self) {
        let mut p = *self.head.get_mut();
        while !p.is_null() {
            // SAFETY: the stack owns the nodes still on it.
            let b = unsafe { Box::from_raw(p) };
            p = b.next;
        }
        for p in self.popped.get_mut().unwrap().drain(..) {
            // SAFETY: popped nodes are owned by the stack until now.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// The same stack with nodes in a preallocated arena and `head` holding an
/// index (0 = empty): the same atomic operations on the same locations, with
/// values that are the same in every execution.
struct ArenaStack {
    head: AtomicUsize,
    next: Vec<std::sync::atomic::AtomicUsize>,
}

impl ArenaStack {
    fn new(n: usize) -> ArenaStack {
        ArenaStack {
            head: AtomicUsize::new(0),
            next: (0..=n).map(|_| std::sync::atomic::AtomicUsize::new(0)).collect(),
        }
    }

    /// Pushes node `i` (1-based), which holds the value `i`.
    fn push(&self, i: usize) {
        loop {
            let h = self.head.load(Acquire);
            self.next[i].store(h, std::sync::atomic::Ordering::Relaxed);
            if self.head.compare_exchange(h, i, Release, Relaxed).is_ok() {
                return;
            }
        }
    }

    fn pop(&self) -> Option<usize> {
        loop {
            let h = self.head.load(Acquire);
            if h == 0 {
                return None;
            }
            let next = self.next[h].load(std::sync::atomic::Ordering::Relaxed);
            if self.head.compare_exchange(h, next, Acquire, Relaxed).is_ok() {
                return Some(h);
            }
        }
    }
}

/// Threads 1 and 2 push 1 and 2; thread 2 then pops; main pops after the
/// joins until empty. Records (thread 2's pop, main's pops).
fn treiber(rec: &dyn Fn((Option<usize>, Vec<usize>))) {
    let s = Arc::new(Treiber::new());
    let s1 = s.clone();
    let s2 = s.clone();
    let a = thread::spawn(move || s1.push(1));
    let b = thread::spawn(move || {
        s2.push(2);
        s2.pop()
    });
    a.join().unwrap();
    let popped = b.join().unwrap();
    let rest: Vec<usize> = std::iter::from_fn(|| s.pop()).collect();
    rec((popped, rest));
}

fn arena(rec: &dyn Fn((Option<usize>, Vec<usize>))) {
    let s = Arc::new(ArenaStack::new(2));
    let s1 = s.clone();
    let s2 = s.clone();
    let a = thread::spawn(move || s1.push(1));
    let b = thread::spawn(move || {
        s2.push(2);
        s2.pop()
    });
    a.join().unwrap();
    let popped = b.join().unwrap();
    let rest: Vec<usize> = std::iter::from_fn(|| s.pop()).collect();
    rec((popped, rest));
}

fn clean(r: &Report) {
    assert!(r.failures().is_empty(), "{r}");
    assert!(r.is_complete(), "{r}");
}

/// Executions of [`treiber`] (and of its arena twin) under C++20.
const TREIBER: u64 = 11;

#[test]
fn treiber_stack_on_heap_nodes_explores_what_its_arena_twin_does() {
    let b = Builder::new();
    let (o, r) = outcomes(&b, treiber);
    clean(&r);
    let (o2, r2) = outcomes(&b, arena);
    clean(&r2);
    assert_eq!(o, o2);
    assert_eq!(r.executions(), r2.executions());
    assert_eq!(r.executions(), TREIBER, "{r}");
    let want: BTreeSet<(Option<usize>, Vec<usize>)> = [(Some(2), vec![1]), (Some(1), vec![2])].into_iter().collect();
    assert_eq!(o, want);
}

#[test]
fn treiber_stack_on_heap_nodes_agrees_with_the_reference_enumerator() {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), treiber);
    clean(&r);
    let (o2, r2) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Reference), treiber);
    clean(&r2);
    assert_eq!(o, o2);
    assert_eq!(r.executions(), r2.executions());
}

// ------------------------------------------------------- Michael-Scott queue

struct QNode {
    value: usize,
    next: AtomicPtr<QNode>,
}

fn qnode(value: usize) -> *mut QNode {
    Box::into_raw(Box::new(QNode {
        value,
        next: AtomicPtr::new(null_mut()),
    }))
}

/// A Michael-Scott queue on `Box::into_raw` and `AtomicPtr` (a dummy node
/// first, helping `tail` along). Dequeued dummies are kept until the queue is
/// dropped (no reuse, no ABA).
struct MsQueue {
    head: AtomicPtr<QNode>,
    tail: AtomicPtr<QNode>,
    retired: std::sync::Mutex<Vec<*mut QNode>>,
}

// SAFETY: nodes are reached only through acquire loads of pointers their
// creator published with release compare-exchanges.
unsafe impl Send for MsQueue {}
// SAFETY: as above.
unsafe impl Sync for MsQueue {}

impl MsQueue {
    fn new() -> MsQueue {
        let d = qnode(0);
        MsQueue {
            head: AtomicPtr::new(d),
            tail: AtomicPtr::new(d),
            retired: std::sync::Mutex::new(Vec::new()),
        }
    }

    fn enqueue(&self, value: usize) {
        let _ballast = ballast(|| [0usize; 3]);
        let n = qnode(value);
        loop {
            let t = self.tail.load(Acquire);
            // SAFETY: nodes are not freed before the queue is dropped.
            let next = unsafe { (*t).next.load(Acquire) };
            if next.is_null() {
                // SAFETY: as above.
                if unsafe { (*t).next.compare_exchange(null_mut(), n, Release, Relaxed) }.is_ok() {
                    let _ = self.tail.compare_exchange(t, n, Release, Relaxed);
                    return;
                }
            } else {
                let _ = self.tail.compare_exchange(t, next, Release, Relaxed);
            }
        }
    }

    fn dequeue(&self) -> Option<usize> {
        loop {
            let h = self.head.load(Acquire);
            let t = self.tail.load(Acquire);
            // SAFETY: nodes are not freed before the queue is dropped.
            let next = unsafe { (*h).next.load(Acquire) };
            if h == t {
                if next.is_null() {
                    return None;
                }
                let _ = self.tail.compare_exchange(t, next, Release, Relaxed);
            } else if self.head.compare_exchange(h, next, AcqRel, Relaxed).is_ok() {
                self.retired.lock().unwrap().push(h);
                // SAFETY: `next` was published by its enqueuer's release CAS.
                return Some(unsafe { (*next).value });
            }
        }
    }
}

impl Drop for MsQueue {
    fn drop(&mut self) {
        let mut p = *self.head.get_mut();
        while !p.is_null() {
            // SAFETY: the queue owns the nodes from head on.
            let mut b = unsafe { Box::from_raw(p) };
            p = *b.next.get_mut();
        }
        for p in self.retired.get_mut().unwrap().drain(..) {
            // SAFETY: retired nodes are owned by the queue until now.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// Threads 1 and 2 enqueue 1 and 2; thread 2 then dequeues; main dequeues
/// the rest after the joins.
fn ms_queue(rec: &dyn Fn((Option<usize>, Vec<usize>))) {
    let q = Arc::new(MsQueue::new());
    let q1 = q.clone();
    let q2 = q.clone();
    let a = thread::spawn(move || q1.enqueue(1));
    let b = thread::spawn(move || {
        q2.enqueue(2);
        q2.dequeue()
    });
    a.join().unwrap();
    let got = b.join().unwrap();
    let rest: Vec<usize> = std::iter::from_fn(|| q.dequeue()).collect();
    rec((got, rest));
}

/// Executions of [`ms_queue`] under C++20.
const MS_QUEUE: u64 = 22;

/// The same queue with node `v` holding value `v` (0: the dummy), `head`
/// and `tail` holding node numbers, and each node's `next` a model atomic
/// made where [`qnode`] makes it: the same atomic operations on the same
/// locations, with values that are the same in every execution.
struct ArenaQueue {
    head: AtomicUsize,
    tail: AtomicUsize,
    /// Node `v`'s `next` (holding a node number, `NIL` for none); a std
    /// mutex only hands the handle over, it is not part of the model.
    next: std::sync::Mutex<Vec<Option<Arc<AtomicUsize>>>>,
}

const NIL: usize = usize::MAX;

impl ArenaQueue {
    fn new(n: usize) -> ArenaQueue {
        let q = ArenaQueue {
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            next: std::sync::Mutex::new(vec![None; n + 1]),
        };
        q.node(0);
        q
    }

    fn node(&self, v: usize) {
        self.next.lock().unwrap()[v] = Some(Arc::new(AtomicUsize::new(NIL)));
    }

    fn next_of(&self, v: usize) -> Arc<AtomicUsize> {
        self.next.lock().unwrap()[v].clone().expect("a published node")
    }

    fn enqueue(&self, n: usize) {
        self.node(n);
        loop {
            let t = self.tail.load(Acquire);
            let next = self.next_of(t).load(Acquire);
            if next == NIL {
                if self.next_of(t).compare_exchange(NIL, n, Release, Relaxed).is_ok() {
                    let _ = self.tail.compare_exchange(t, n, Release, Relaxed);
                    return;
                }
            } else {
                let _ = self.tail.compare_exchange(t, next, Release, Relaxed);
            }
        }
    }

    fn dequeue(&self) -> Option<usize> {
        loop {
            let h = self.head.load(Acquire);
            let t = self.tail.load(Acquire);
            let next = self.next_of(h).load(Acquire);
            if h == t {
                if next == NIL {
                    return None;
                }
                let _ = self.tail.compare_exchange(t, next, Release, Relaxed);
            } else if self.head.compare_exchange(h, next, AcqRel, Relaxed).is_ok() {
                return Some(next);
            }
        }
    }
}

fn arena_queue(rec: &dyn Fn((Option<usize>, Vec<usize>))) {
    let q = Arc::new(ArenaQueue::new(2));
    let q1 = q.clone();
    let q2 = q.clone();
    let a = thread::spawn(move || q1.enqueue(1));
    let b = thread::spawn(move || {
        q2.enqueue(2);
        q2.dequeue()
    });
    a.join().unwrap();
    let got = b.join().unwrap();
    let rest: Vec<usize> = std::iter::from_fn(|| q.dequeue()).collect();
    rec((got, rest));
}

#[test]
fn michael_scott_queue_on_heap_nodes_explores_what_its_arena_twin_does() {
    let (o, r) = outcomes(&Builder::new(), ms_queue);
    clean(&r);
    let (o2, r2) = outcomes(&Builder::new(), arena_queue);
    clean(&r2);
    assert_eq!(o, o2);
    assert_eq!(r.executions(), r2.executions());
    assert_eq!(r.executions(), MS_QUEUE, "{r}");
    let want: BTreeSet<(Option<usize>, Vec<usize>)> = [(Some(1), vec![2]), (Some(2), vec![1])].into_iter().collect();
    assert_eq!(o, want);
}

/// Thread 1 enqueues 1 while thread 2 dequeues; main dequeues the rest
/// (small enough for the reference enumerator).
fn ms_queue_small(rec: &dyn Fn((Option<usize>, Vec<usize>))) {
    let q = Arc::new(MsQueue::new());
    let q1 = q.clone();
    let q2 = q.clone();
    let a = thread::spawn(move || q1.enqueue(1));
    let b = thread::spawn(move || q2.dequeue());
    a.join().unwrap();
    let got = b.join().unwrap();
    let rest: Vec<usize> = std::iter::from_fn(|| q.dequeue()).collect();
    rec((got, rest));
}

#[test]
fn michael_scott_queue_on_heap_nodes_agrees_with_the_reference_enumerator() {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), ms_queue_small);
    clean(&r);
    let want: BTreeSet<(Option<usize>, Vec<usize>)> = [(Some(1), vec![]), (None, vec![1])].into_iter().collect();
    assert_eq!(o, want);
    let (o2, r2) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Reference), ms_queue_small);
    clean(&r2);
    assert_eq!(o, o2);
    assert_eq!(r.executions(), r2.executions());
}

// ------------------------------------------- addresses that really move

/// Every node this execution allocated (cleared at the start of each), and
/// every address any execution gave the first node.
struct Seen {
    now: std::sync::Mutex<BTreeSet<usize>>,
    firsts: std::sync::Mutex<BTreeSet<usize>>,
}

/// A node allocated among allocations whose number and sizes change from
/// one execution to the next, recorded in `seen`.
fn moving_node(seen: &Seen, value: usize, run: usize) -> *mut usize {
    let pad: Vec<Vec<u8>> = (0..run % 4).map(|k| vec![0u8; 8 + 24 * k + run % 7]).collect();
    let p = Box::into_raw(Box::new(value));
    seen.now.lock().unwrap().insert(p as usize);
    drop(pad);
    p
}

/// `head` starts at a node made in main and two threads each replace it,
/// by compare-exchange, with a node of their own made among allocations of
/// varying sizes; main reads it. Every pointer any thread reads is a node
/// of this execution (never an address recorded in an earlier one), it
/// points to the value stored there, and compare-exchanges succeed or fail
/// on this execution's addresses: the same executions and outcomes as with
/// numbers in place of pointers, although the addresses differ between
/// executions.
#[test]
fn addresses_that_differ_between_executions_are_the_running_executions() {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let seen = Arc::new(Seen {
        now: std::sync::Mutex::new(BTreeSet::new()),
        firsts: std::sync::Mutex::new(BTreeSet::new()),
    });
    let s = seen.clone();
    let (o, r) = outcomes(&Builder::new(), move |rec: &dyn Fn(Vec<usize>)| {
        let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        s.now.lock().unwrap().clear();
        let first = moving_node(&s, 10, run);
        s.firsts.lock().unwrap().insert(first as usize);
        let head = Arc::new(AtomicPtr::new(first));
        let hs: Vec<_> = [1usize, 2]
            .into_iter()
            .map(|v| {
                let (head, s) = (head.clone(), s.clone());
                thread::spawn(move || {
                    let mine = moving_node(&s, v, run + v);
                    let cur = head.load(Acquire);
                    assert!(
                        s.now.lock().unwrap().contains(&(cur as usize)),
                        "an address of another execution"
                    );
                    // SAFETY: nodes live until the end of the execution.
                    let saw = unsafe { *cur };
                    match head.compare_exchange(cur, mine, AcqRel, Acquire) {
                        Ok(_) => saw,
                        Err(now) => {
                            assert!(s.now.lock().unwrap().contains(&(now as usize)));
                            // SAFETY: as above.
                            100 + unsafe { *now }
                        }
                    }
                })
            })
            .collect();
        let mut out: Vec<usize> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        let last = head.load(Acquire);
        assert!(s.now.lock().unwrap().contains(&(last as usize)));
        // SAFETY: as above.
        out.push(unsafe { *last });
        rec(out);
        for p in std::mem::take(&mut *s.now.lock().unwrap()) {
            // SAFETY: every node was made by `moving_node` in this
            // execution and is freed once, here.
            drop(unsafe { Box::from_raw(p as *mut usize) });
        }
    });
    clean(&r);
    // Each thread returns the value it replaced, or 100 + the value of the
    // node that beat it; main the value left.
    let want: BTreeSet<Vec<usize>> = [
        vec![10, 1, 2],   // 1 then 2
        vec![2, 10, 1],   // 2 then 1
        vec![10, 101, 1], // both read the first node; 1 wins
        vec![102, 10, 2], // both read the first node; 2 wins
    ]
    .into_iter()
    .collect();
    assert_eq!(o, want);
    assert_eq!(r.executions(), 4, "{r}");
    assert!(
        seen.firsts.lock().unwrap().len() > 1,
        "the addresses did not differ between executions: the test shows nothing"
    );
}

// ------------------------------------------------- real nondeterminism

fn at(needle: &str) -> String {
    position(file!(), include_str!("heap_pointers.rs"), needle)
}

/// How a report shows a value (decimal, and hex from 0x1000 on).
fn show(v: u64) -> String {
    if v >= 0x1000 {
        format!("{v} ({v:#x})")
    } else {
        v.to_string()
    }
}

/// What every nondeterminism report ends with.
const CAUSES: &str = "the program depends on something the checker does not control; likely causes: a heap \
                      address kept as an integer (`ptr as usize` in an `AtomicUsize`: keep it in an `AtomicPtr`, \
                      whose values the checker takes from the running execution) or hashed, ordered or printed; \
                      time; randomness (`RandomState`, the iteration order of a `HashMap` or `HashSet`); std \
                      atomics, statics or thread-locals shared between executions; OS threads";

/// A random number (std's `RandomState` draws new keys for each one)
/// stored in an integer atomic is a nondeterministic program: the report
/// names the line, the operation, and the values of both executions.
#[test]
fn a_random_value_in_an_integer_atomic_is_reported_with_its_line_and_both_values() {
    use std::hash::BuildHasher;
    let drawn = Arc::new(std::sync::Mutex::new(Vec::new()));
    let d = drawn.clone();
    let r = Builder::new().explore(move || {
        let v = std::collections::hash_map::RandomState::new().hash_one(7u32) as usize;
        d.lock().unwrap().push(v as u64);
        let x = Arc::new(AtomicUsize::new(0)); // the random's cell
        let x1 = x.clone();
        let t = thread::spawn(move || x1.store(v, Relaxed));
        let _ = x.load(Relaxed);
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Nondeterminism);
    let drawn = drawn.lock().unwrap();
    assert_eq!(drawn.len(), 2, "{r}");
    assert_eq!(
        f.message(),
        format!(
            "thread 1's store to loc0.0 (created at {}) at {} wrote {}, where an earlier execution with the same \
             choices wrote {} there; {CAUSES}",
            at("Arc::new(^AtomicUsize::new(0)); // the random's cell"),
            at("x1.^store(v, Relaxed)"),
            show(drawn[1]),
            show(drawn[0])
        )
    );
    assert_eq!(f.location().map(|l| l.to_string()), Some(at("x1.^store(v, Relaxed)")));
}

/// A global std counter's value added to an integer atomic (the counter
/// lives outside the model and goes on counting across executions): the
/// read-modify-write's line, its operation and both values written.
#[test]
fn a_global_counter_in_a_fetch_add_is_reported_with_its_line_and_both_values() {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let r = Builder::new().explore(|| {
        let x = Arc::new(AtomicUsize::new(0)); // the counter's cell
        let x1 = x.clone();
        let t = thread::spawn(move || {
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            x1.fetch_add(n, Relaxed);
        });
        let _ = x.load(Relaxed);
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Nondeterminism);
    assert_eq!(
        f.message(),
        format!(
            "thread 1's fetch_add on loc0.0 (created at {}) at {} wrote 1, where an earlier execution with the same \
             choices wrote 0 there; {CAUSES}",
            at("Arc::new(^AtomicUsize::new(0)); // the counter's cell"),
            at("x1.^fetch_add(n, Relaxed)"),
        )
    );
}

/// The same for an atomic's initial value.
#[test]
fn a_global_counter_as_an_initial_value_is_reported_with_its_line_and_both_values() {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let r = Builder::new().explore(|| {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let x = Arc::new(AtomicUsize::new(n)); // the counted cell
        let x1 = x.clone();
        let t = thread::spawn(move || x1.store(7, Relaxed));
        let _ = x.load(Relaxed);
        t.join().unwrap();
    });
    let f = the_failure(&r, FailureKind::Nondeterminism);
    let made = at("Arc::new(^AtomicUsize::new(n)); // the counted cell");
    assert_eq!(
        f.message(),
        format!(
            "thread 0 created loc0.0 at {made} with the initial value 1, where an earlier execution with the same \
             choices created it with 0; {CAUSES}"
        )
    );
}

/// A compare-exchange on pointers is decided on the running execution's
/// values. When its outcome differs from the kept graph's (here the
/// expected pointer is the node in the first execution and a fresh one
/// later), the pointers do not correspond between executions: reported
/// with the line, both values and both outcomes.
#[test]
fn a_pointer_compare_exchange_that_changes_its_outcome_is_reported() {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = seen.clone();
    let r = Builder::new().explore(move || {
        let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let node = Box::into_raw(Box::new(1u32));
        let other = Box::into_raw(Box::new(2u32));
        let expected = if run == 0 { node } else { other };
        s.lock().unwrap().push((node as u64, expected as u64));
        let p = Arc::new(AtomicPtr::new(node)); // the pointer
        let y = Arc::new(AtomicUsize::new(0));
        let (p1, y1) = (p.clone(), y.clone());
        let expected = expected as usize;
        let t = thread::spawn(move || {
            let _ = p1.compare_exchange(expected as *mut u32, null_mut(), Relaxed, Relaxed);
            y1.load(Relaxed)
        });
        y.store(1, Relaxed);
        let _ = t.join().unwrap();
        // SAFETY: both were made above and are freed once, here.
        unsafe { drop((Box::from_raw(node), Box::from_raw(other))) };
    });
    let f = the_failure(&r, FailureKind::Nondeterminism);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "{r}");
    let (node, expected) = seen[1];
    assert_eq!(
        f.message(),
        format!(
            "thread 1's compare_exchange on loc0.0 (created at {}) at {} read {} and expected {}, so it fails in \
             this execution, where an earlier execution with the same choices succeeded there; {CAUSES}",
            at("Arc::new(^AtomicPtr::new(node)); // the pointer"),
            at("p1.^compare_exchange(expected"),
            show(node),
            show(expected)
        )
    );
}
