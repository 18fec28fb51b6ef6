//! How the checker's memory and work grow with the program (issue 16,
//! items 12 and 13), asserted without timing anything: the peak heap of a
//! run, counted by this binary's allocator, and the checker's own counts of
//! its work (`scopecheck_checker::work`, the `work-count` feature this test
//! crate turns on).

use scopecheck::sync::atomic::{fence, AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, MemoryModel, Strategy};
use scopecheck_checker::work;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize as StdAtomic, Ordering::Relaxed};
use std::sync::Mutex;

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: StdAtomic = StdAtomic::new(0);
static PEAK: StdAtomic = StdAtomic::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on.
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is passed on.
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One test at a time: the heap counts are the whole process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// The peak heap (bytes above what was live at the start) of `f`.
fn peak_heap(f: impl FnOnce()) -> usize {
    let start = LIVE.load(Relaxed);
    PEAK.store(start, Relaxed);
    f();
    PEAK.load(Relaxed) - start
}

fn builder(model: MemoryModel, strategy: Strategy) -> Builder {
    let mut b = Builder::new();
    b.model = model;
    b.strategy = strategy;
    b.max_executions = Some(1);
    b.max_steps = 10_000_000;
    b
}

/// `threads` threads (main included) each running `body` on one counter.
fn contend(b: &Builder, threads: usize, body: Body) -> u64 {
    let r = b.explore(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (1..threads)
            .map(|_| {
                let x = x.clone();
                thread::spawn(move || body(&x))
            })
            .collect();
        body(&x);
        for h in hs {
            h.join().unwrap();
        }
    });
    assert!(r.failures().is_empty(), "{:?}", r.failures());
    r.executions()
}

/// A thread body on one counter.
type Body = fn(&AtomicUsize);

/// A step of a long thread: the two locations and the step's number.
type Step = fn(&AtomicUsize, &AtomicUsize, usize);

const MODELS: [MemoryModel; 4] = [
    MemoryModel::Sc,
    MemoryModel::Rc11,
    MemoryModel::Cpp20,
    MemoryModel::Src11,
];

/// Item 12: 96 threads each doing one fetch_add on one counter. The first
/// execution pushes about 96²/2 backward revisits; each was kept as the
/// graph it makes (2 x 96 events with 96-thread clocks), 0.5 GB at the
/// peak. Kept as what rebuilds the graph, the run needs a few MB. Stores
/// and load-store pairs, and the random and PCT strategies, stay as small.
#[test]
fn contending_threads_keep_the_heap_small() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let limit = 48 << 20;
    let bodies: [(&str, Body); 3] = [
        ("fetch_add", |x| {
            x.fetch_add(1, Ordering::Relaxed);
        }),
        ("store", |x| x.store(1, Ordering::Relaxed)),
        ("load+store", |x| {
            let v = x.load(Ordering::Relaxed);
            x.store(v + 1, Ordering::Relaxed);
        }),
    ];
    let strategies = [
        Strategy::Exhaustive,
        Strategy::Random { seed: 7, iterations: 1 },
        Strategy::Pct {
            seed: 7,
            iterations: 1,
            depth: 3,
        },
    ];
    for model in MODELS {
        for (name, body) in bodies {
            for s in &strategies {
                let b = builder(model, s.clone());
                let mut runs = 0;
                let peak = peak_heap(|| runs = contend(&b, 96, body));
                assert_eq!(runs, 1);
                assert!(
                    peak < limit,
                    "96 threads x {name} under {model:?} with {s:?}: peak heap {peak} bytes (limit {limit})"
                );
            }
        }
    }
}

/// The work of one execution of a single thread doing `ops` operations
/// `body`, under `model`.
fn one_thread_work(model: MemoryModel, ops: usize, body: Step) -> work::WorkCount {
    let b = builder(model, Strategy::Exhaustive);
    work::reset();
    let r = b.explore(|| {
        let x = AtomicUsize::new(0);
        let y = AtomicUsize::new(0);
        for i in 0..ops {
            body(&x, &y, i);
        }
    });
    assert_eq!(r.executions(), 1);
    assert!(r.failures().is_empty(), "{:?}", r.failures());
    work::counts()
}

/// Item 13: within one thread, the cost of an access must not grow with
/// the number of earlier accesses to the location. Twice the operations
/// may cost at most a little over twice the work (event look-ups; the
/// scans of every read, release write or access of the location, and the
/// per-event whole-graph checks under `sc` and with seq_cst accesses, made
/// it four times), and no graph is judged whole when every access takes
/// the default choice.
#[test]
fn one_long_thread_costs_its_length() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    assert!(work::enabled(), "the test crate turns on the work-count feature");
    // Debug builds cross-check every shortcut against a scan (quadratic on
    // purpose): smaller, still far past where the scans dominated.
    let n = if cfg!(debug_assertions) { 500 } else { 8000 };
    let shapes: [(&str, Step); 9] = [
        ("relaxed fetch_add", |x, _, _| {
            x.fetch_add(1, Ordering::Relaxed);
        }),
        ("seq_cst fetch_add", |x, _, _| {
            x.fetch_add(1, Ordering::SeqCst);
        }),
        ("relaxed store", |x, _, i| x.store(i, Ordering::Relaxed)),
        ("release store", |x, _, i| x.store(i, Ordering::Release)),
        ("relaxed load", |x, _, _| {
            x.load(Ordering::Relaxed);
        }),
        ("seq_cst load and store", |x, _, i| {
            x.load(Ordering::SeqCst);
            x.store(i, Ordering::SeqCst);
        }),
        ("acquire load, release and relaxed stores", |x, _, i| {
            x.load(Ordering::Acquire);
            x.store(i, Ordering::Release);
            x.store(i, Ordering::Relaxed);
        }),
        ("store and seq_cst fence", |x, _, i| {
            x.store(i, Ordering::Relaxed);
            fence(Ordering::SeqCst);
        }),
        ("seq_cst store x, load y", |x, y, i| {
            x.store(i, Ordering::SeqCst);
            y.load(Ordering::SeqCst);
        }),
    ];
    let mut bad = Vec::new();
    for model in MODELS {
        for (name, body) in shapes {
            let once = one_thread_work(model, n, body);
            let twice = one_thread_work(model, 2 * n, body);
            if twice.event_lookups > 2 * once.event_lookups + once.event_lookups / 5 {
                bad.push(format!(
                    "{name} under {model:?}: {} look-ups for {n} operations, {} for {}",
                    once.event_lookups,
                    twice.event_lookups,
                    2 * n
                ));
            }
            if (once.full_checks, twice.full_checks) != (0, 0) {
                bad.push(format!(
                    "{name} under {model:?}: {} and {} whole-graph checks",
                    once.full_checks, twice.full_checks
                ));
            }
        }
    }
    assert!(bad.is_empty(), "work grows faster than the thread:\n{}", bad.join("\n"));
}
