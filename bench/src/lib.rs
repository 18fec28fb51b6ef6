//! Runs the same small concurrent programs under scopecheck, loom and
//! shuttle, and prints what each tool did: executions, wall time,
//! executions per second, the ratio of scopecheck's time to the peer's, and
//! peak resident memory.
//!
//! Pairings:
//! - scopecheck exhaustive (`Strategy::Exhaustive`) against loom exhaustive
//!   (`loom::model::Builder::new()`, default settings: no preemption bound);
//! - scopecheck random (`Strategy::Random { seed, iterations }`) against
//!   shuttle's random scheduler (`shuttle::check_random(f, iterations)`),
//!   with the same iteration count.
//!
//! Each program is written once, in the `programs!` macro, and instantiated
//! for each tool's shim, so the three versions have the same source text and
//! differ only in which crate's atomics, `Arc` and threads they use.
//!
//! Programs (`--list` prints them with their spawned threads and expected
//! counts): litmus shapes (store buffering, message passing, IRIW), N
//! threads × M relaxed `fetch_add`, the compare-exchange rotation, N acquire
//! readers of one release store, the last-zero search, a Treiber stack and a
//! seqlock. `all` (the default) takes the ones that finish in seconds under
//! scopecheck; `large` holds five with 10^5 to 10^6 executions (cas-rot-11,
//! cas-rot-12, fai-9, readers-17, last-zero-15), run only when named.
//! `Program::expected_rc11_executions` gives the exact optimal count where a
//! closed form is known (the derivations are in the comments), and the
//! runner reports an error when scopecheck's exhaustive count differs.
//!
//! Each (program, tool) pair runs in a child process (this same executable,
//! started with `--child`), so that its peak RSS is its own and a run that
//! takes too long can be stopped (`--timeout`).

pub mod bugs;

use std::fmt::Write as _;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command as Process, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::time::{Duration, Instant};

/// Invocations of the program closure by threads that have finished (for
/// every tool alike). A running thread counts its own in [`RUNS_HERE`]: one
/// shared counter bumped by every execution bounced its cache line between
/// the cores of a parallel run, which cost the parallel explorer about a
/// tenth of its speed.
static CLOSURE_RUNS: AtomicU64 = AtomicU64::new(0);

/// Which count is current: a thread's runs count only towards the count
/// they were made in (a thread that ends after a new count began, such as
/// a finished test's, adds nothing to it).
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Held while a thread's runs are added to [`CLOSURE_RUNS`] and while a new
/// count begins, so that no addition lands in the count after the one it
/// was checked against.
static FLUSH: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn flush_lock() -> std::sync::MutexGuard<'static, ()> {
    FLUSH.lock().unwrap_or_else(|e| e.into_inner())
}

/// The calling thread's invocations of the program closure in the count
/// `.0`, added to [`CLOSURE_RUNS`] when the thread ends if that count is
/// still the current one.
struct RunsHere(std::cell::Cell<(u64, u64)>);

impl Drop for RunsHere {
    fn drop(&mut self) {
        let (generation, runs) = self.0.get();
        let _held = flush_lock();
        if generation == GENERATION.load(StdOrdering::Relaxed) {
            CLOSURE_RUNS.fetch_add(runs, StdOrdering::Relaxed);
        }
    }
}

thread_local! {
    static RUNS_HERE: RunsHere = const { RunsHere(std::cell::Cell::new((0, 0))) };
}

/// The calling thread's runs in the current count.
fn runs_here() -> u64 {
    let (generation, runs) = RUNS_HERE.with(|r| r.0.get());
    if generation == GENERATION.load(StdOrdering::Relaxed) {
        runs
    } else {
        0
    }
}

/// Invocations of the program closure so far: by finished threads and by
/// the calling one.
fn closure_runs() -> u64 {
    CLOSURE_RUNS.load(StdOrdering::Relaxed) + runs_here()
}

/// Starts counting invocations afresh.
fn reset_closure_runs() {
    let _held = flush_lock();
    GENERATION.fetch_add(1, StdOrdering::Relaxed);
    CLOSURE_RUNS.store(0, StdOrdering::Relaxed);
}

/// The tool runners keep process-wide counters: tests that run a tool hold
/// this lock so that they do not run at once.
#[cfg(test)]
pub(crate) fn tests_serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts program runs whose outcome the program's own logic forbids (the
/// programs report this instead of panicking, so every tool runs to the end).
static FORBIDDEN: AtomicU64 = AtomicU64::new(0);

fn count_run() {
    let runs = runs_here() + 1;
    RUNS_HERE.with(|r| r.0.set((GENERATION.load(StdOrdering::Relaxed), runs)));
}

fn record_outcome(allowed: bool) {
    if !allowed {
        FORBIDDEN.fetch_add(1, StdOrdering::Relaxed);
    }
}

/// Writes each program against the shim of crate `$krate`. Each program
/// returns whether its final outcome is one its semantics allow.
macro_rules! programs {
    ($module:ident, $krate:ident) => {
        /// The benchmark programs written against this tool's shim.
        pub mod $module {
            use ::$krate::sync::atomic::{fence, AtomicUsize, Ordering};
            use ::$krate::sync::Arc;
            use ::$krate::thread;

            /// Store buffering: thread 1 stores x then loads y, thread 2
            /// stores y then loads x. Under SeqCst at least one load must
            /// read 1; Relaxed allows every outcome.
            pub fn store_buffering(seq_cst: bool) -> bool {
                let order = if seq_cst {
                    Ordering::SeqCst
                } else {
                    Ordering::Relaxed
                };
                let x = Arc::new(AtomicUsize::new(0));
                let y = Arc::new(AtomicUsize::new(0));
                let (x1, y1) = (x.clone(), y.clone());
                let t1 = thread::spawn(move || {
                    x1.store(1, order);
                    y1.load(order)
                });
                let (x2, y2) = (x.clone(), y.clone());
                let t2 = thread::spawn(move || {
                    y2.store(1, order);
                    x2.load(order)
                });
                let a = t1.join().unwrap();
                let b = t2.join().unwrap();
                !seq_cst || a == 1 || b == 1
            }

            /// `threads` threads, each doing `per_thread` relaxed fetch_adds
            /// of 1 on one counter; the main thread joins them and checks the sum.
            pub fn fetch_add(threads: usize, per_thread: usize) -> bool {
                let x = Arc::new(AtomicUsize::new(0));
                let handles: Vec<_> = (0..threads)
                    .map(|_| {
                        let x = x.clone();
                        thread::spawn(move || {
                            for _ in 0..per_thread {
                                x.fetch_add(1, Ordering::Relaxed);
                            }
                        })
                    })
                    .collect();
                for h in handles {
                    h.join().unwrap();
                }
                x.load(Ordering::Relaxed) == threads * per_thread
            }

            /// Thread i (1..=n) does compare_exchange(i - 1, i) on x, which
            /// starts at 0; x ends at some value in 0..=n.
            pub fn cas_rotation(n: usize) -> bool {
                let x = Arc::new(AtomicUsize::new(0));
                let handles: Vec<_> = (1..=n)
                    .map(|i| {
                        let x = x.clone();
                        thread::spawn(move || {
                            let _ = x.compare_exchange(i - 1, i, Ordering::Relaxed, Ordering::Relaxed);
                        })
                    })
                    .collect();
                for h in handles {
                    h.join().unwrap();
                }
                x.load(Ordering::Relaxed) <= n
            }

            /// Message passing: thread 1 stores data then a flag, thread 2
            /// loads the flag then the data. With a release store of the
            /// flag and an acquire load of it, seeing the flag means seeing
            /// the data; all Relaxed allows every outcome.
            pub fn message_passing(release_acquire: bool) -> bool {
                let (store, load) = if release_acquire {
                    (Ordering::Release, Ordering::Acquire)
                } else {
                    (Ordering::Relaxed, Ordering::Relaxed)
                };
                let data = Arc::new(AtomicUsize::new(0));
                let flag = Arc::new(AtomicUsize::new(0));
                let (d1, f1) = (data.clone(), flag.clone());
                let t1 = thread::spawn(move || {
                    d1.store(1, Ordering::Relaxed);
                    f1.store(1, store);
                });
                let (d2, f2) = (data.clone(), flag.clone());
                let t2 = thread::spawn(move || {
                    let f = f2.load(load);
                    (f, d2.load(Ordering::Relaxed))
                });
                t1.join().unwrap();
                let (f, d) = t2.join().unwrap();
                !release_acquire || !(f == 1 && d == 0)
            }

            /// Independent reads of independent writes: two threads store x
            /// and y, two threads read them in opposite orders. SeqCst
            /// forbids the readers disagreeing on the order of the stores;
            /// Relaxed allows it.
            pub fn iriw(seq_cst: bool) -> bool {
                let order = if seq_cst {
                    Ordering::SeqCst
                } else {
                    Ordering::Relaxed
                };
                let x = Arc::new(AtomicUsize::new(0));
                let y = Arc::new(AtomicUsize::new(0));
                let x1 = x.clone();
                let w1 = thread::spawn(move || x1.store(1, order));
                let y2 = y.clone();
                let w2 = thread::spawn(move || y2.store(1, order));
                let (x3, y3) = (x.clone(), y.clone());
                let r1 = thread::spawn(move || {
                    let a = x3.load(order);
                    (a, y3.load(order))
                });
                let (x4, y4) = (x.clone(), y.clone());
                let r2 = thread::spawn(move || {
                    let c = y4.load(order);
                    (c, x4.load(order))
                });
                w1.join().unwrap();
                w2.join().unwrap();
                let (a, b) = r1.join().unwrap();
                let (c, d) = r2.join().unwrap();
                !seq_cst || !(a == 1 && b == 0 && c == 1 && d == 0)
            }

            /// `n` threads each do one acquire load of x; the main thread,
            /// after spawning them, does one release store to x. Each load
            /// reads the initial 0 or the 1.
            pub fn readers(n: usize) -> bool {
                let x = Arc::new(AtomicUsize::new(0));
                let handles: Vec<_> = (0..n)
                    .map(|_| {
                        let x = x.clone();
                        thread::spawn(move || x.load(Ordering::Acquire))
                    })
                    .collect();
                x.store(1, Ordering::Release);
                let seen: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
                seen.iter().all(|&v| v <= 1)
            }

            /// Last zero: over an array a[0..=n] of zeros, thread j (1..=n)
            /// stores a[j - 1] + 1 into a[j] (acquire load, release store),
            /// while the main thread (thread 0) scans from a[n] down to the
            /// first zero (acquire loads). If the scan reads v >= 2 at a[i + 1],
            /// thread i + 1 read thread i's store, which the scan then
            /// happens-after, so it must read v - 1 at a[i].
            pub fn last_zero(n: usize) -> bool {
                let a: Arc<Vec<AtomicUsize>> = Arc::new((0..=n).map(|_| AtomicUsize::new(0)).collect());
                let handles: Vec<_> = (1..=n)
                    .map(|j| {
                        let a = a.clone();
                        thread::spawn(move || {
                            let v = a[j - 1].load(Ordering::Acquire);
                            a[j].store(v + 1, Ordering::Release);
                        })
                    })
                    .collect();
                let mut allowed = true;
                let mut above: Option<usize> = None;
                for i in (0..=n).rev() {
                    let v = a[i].load(Ordering::Acquire);
                    if let Some(p) = above {
                        if p >= 2 && v != p - 1 {
                            allowed = false;
                        }
                    }
                    if v == 0 {
                        break;
                    }
                    above = Some(v);
                }
                for h in handles {
                    h.join().unwrap();
                }
                allowed
            }

            /// A Treiber stack over a fixed array of nodes (no allocation, no
            /// reuse, so no ABA): `pushers` threads each push their own node,
            /// one thread pops once; every compare_exchange loop gives up
            /// after `attempts` tries, so each tool's exploration is finite.
            /// After the joins, the main thread drains the stack: each pushed
            /// value must come out exactly once, and nothing else.
            pub fn treiber(pushers: usize, attempts: usize) -> bool {
                // top: 0 when empty, else 1 + the index of the top node.
                let top = Arc::new(AtomicUsize::new(0));
                // (value, next) per node; next is encoded like top.
                let nodes: Arc<Vec<(AtomicUsize, AtomicUsize)>> = Arc::new(
                    (0..pushers)
                        .map(|_| (AtomicUsize::new(0), AtomicUsize::new(0)))
                        .collect(),
                );
                let push_handles: Vec<_> = (0..pushers)
                    .map(|i| {
                        let (top, nodes) = (top.clone(), nodes.clone());
                        thread::spawn(move || {
                            nodes[i].0.store(100 + i, Ordering::Relaxed);
                            for _ in 0..attempts {
                                let t = top.load(Ordering::Relaxed);
                                nodes[i].1.store(t, Ordering::Relaxed);
                                if top
                                    .compare_exchange(t, i + 1, Ordering::Release, Ordering::Relaxed)
                                    .is_ok()
                                {
                                    return true;
                                }
                            }
                            false
                        })
                    })
                    .collect();
                let (top1, nodes1) = (top.clone(), nodes.clone());
                let popper = thread::spawn(move || {
                    for _ in 0..attempts {
                        let t = top1.load(Ordering::Acquire);
                        if t == 0 {
                            return None;
                        }
                        let next = nodes1[t - 1].1.load(Ordering::Relaxed);
                        if top1
                            .compare_exchange(t, next, Ordering::Acquire, Ordering::Acquire)
                            .is_ok()
                        {
                            return Some(nodes1[t - 1].0.load(Ordering::Relaxed));
                        }
                    }
                    None
                });
                let pushed: Vec<bool> = push_handles.into_iter().map(|h| h.join().unwrap()).collect();
                let mut out: Vec<usize> = popper.join().unwrap().into_iter().collect();
                let mut t = top.load(Ordering::Acquire);
                while t != 0 && out.len() <= pushers {
                    out.push(nodes[t - 1].0.load(Ordering::Relaxed));
                    t = nodes[t - 1].1.load(Ordering::Relaxed);
                }
                out.sort_unstable();
                let want: Vec<usize> = (0..pushers).filter(|&i| pushed[i]).map(|i| 100 + i).collect();
                out == want
            }

            /// A seqlock: the writer makes `writes` updates of a two-word
            /// record (odd sequence number, release fence, data, even sequence
            /// number with release); the reader tries up to `attempts` times
            /// to read a snapshot (acquire load of the sequence number, data,
            /// acquire fence, sequence number again). A snapshot the reader
            /// accepts must not be torn.
            pub fn seqlock(writes: usize, attempts: usize) -> bool {
                let seq = Arc::new(AtomicUsize::new(0));
                let d1 = Arc::new(AtomicUsize::new(0));
                let d2 = Arc::new(AtomicUsize::new(0));
                let (s, a, b) = (seq.clone(), d1.clone(), d2.clone());
                let writer = thread::spawn(move || {
                    for k in 1..=writes {
                        s.store(2 * k - 1, Ordering::Relaxed);
                        fence(Ordering::Release);
                        a.store(k, Ordering::Relaxed);
                        b.store(k, Ordering::Relaxed);
                        s.store(2 * k, Ordering::Release);
                    }
                });
                let (s, a, b) = (seq.clone(), d1.clone(), d2.clone());
                let reader = thread::spawn(move || {
                    for _ in 0..attempts {
                        let s1 = s.load(Ordering::Acquire);
                        if s1 % 2 == 1 {
                            continue;
                        }
                        let x = a.load(Ordering::Relaxed);
                        let y = b.load(Ordering::Relaxed);
                        fence(Ordering::Acquire);
                        if s.load(Ordering::Relaxed) == s1 {
                            return Some((x, y));
                        }
                    }
                    None
                });
                writer.join().unwrap();
                match reader.join().unwrap() {
                    Some((x, y)) => x == y,
                    None => true,
                }
            }
        }
    };
}

programs!(on_scopecheck, scopecheck);
programs!(on_loom, loom);
programs!(on_shuttle, shuttle);

/// One benchmark program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// Store buffering, all Relaxed (`seq_cst == false`) or all SeqCst.
    StoreBuffering {
        /// SeqCst instead of Relaxed.
        seq_cst: bool,
    },
    /// `threads` threads × `per_thread` relaxed fetch_add.
    FetchAdd {
        /// Spawned threads.
        threads: usize,
        /// fetch_adds per thread.
        per_thread: usize,
    },
    /// The compare-exchange rotation with `n` threads.
    CasRotation {
        /// Spawned threads.
        n: usize,
    },
    /// Message passing, all Relaxed or with a release/acquire flag.
    MessagePassing {
        /// Release store and acquire load of the flag instead of Relaxed.
        release_acquire: bool,
    },
    /// Independent reads of independent writes, all Relaxed or all SeqCst.
    Iriw {
        /// SeqCst instead of Relaxed.
        seq_cst: bool,
    },
    /// `n` acquire readers of one release store.
    Readers {
        /// Spawned reader threads.
        n: usize,
    },
    /// The last-zero search with `n` writer threads.
    LastZero {
        /// Spawned writer threads (the array has `n + 1` cells).
        n: usize,
    },
    /// A Treiber stack: `pushers` pushing threads, one popping thread.
    Treiber {
        /// Pushing threads.
        pushers: usize,
    },
    /// A seqlock: one writer making `writes` updates, one reader.
    Seqlock {
        /// Updates the writer makes.
        writes: usize,
    },
}

/// Tries of each compare_exchange loop of the Treiber stack.
pub const TREIBER_ATTEMPTS: usize = 3;
/// Tries of the seqlock's reader.
pub const SEQLOCK_ATTEMPTS: usize = 2;

impl Program {
    /// The programs a plain run (`all`) takes, in the order the table shows them.
    pub fn all() -> Vec<Program> {
        let mut v = vec![
            Program::StoreBuffering { seq_cst: false },
            Program::StoreBuffering { seq_cst: true },
            Program::MessagePassing { release_acquire: false },
            Program::MessagePassing { release_acquire: true },
            Program::Iriw { seq_cst: false },
            Program::Iriw { seq_cst: true },
            Program::FetchAdd {
                threads: 2,
                per_thread: 10,
            },
            Program::FetchAdd {
                threads: 3,
                per_thread: 3,
            },
        ];
        for threads in 3..=8 {
            v.push(Program::FetchAdd { threads, per_thread: 1 });
        }
        for n in 4..=10 {
            v.push(Program::CasRotation { n });
        }
        for n in [3, 8, 12] {
            v.push(Program::Readers { n });
        }
        for n in [3, 8, 12] {
            v.push(Program::LastZero { n });
        }
        v.push(Program::Treiber { pushers: 2 });
        v.push(Program::Treiber { pushers: 3 });
        v.push(Program::Seqlock { writes: 1 });
        v.push(Program::Seqlock { writes: 2 });
        v
    }

    /// The programs too big for a plain run (group `large`): about 10^5 to
    /// 10^6 executions each for scopecheck, far beyond loom's thread limit.
    pub fn large() -> Vec<Program> {
        vec![
            Program::CasRotation { n: 11 },
            Program::CasRotation { n: 12 },
            Program::FetchAdd {
                threads: 9,
                per_thread: 1,
            },
            Program::Readers { n: 17 },
            Program::LastZero { n: 15 },
        ]
    }

    /// Every program a name can select: `all()` then `large()`.
    pub fn every() -> Vec<Program> {
        let mut v = Program::all();
        v.extend(Program::large());
        v.push(Program::CasRotation { n: 13 });
        v
    }

    /// Short name, as accepted on the command line.
    pub fn name(self) -> String {
        match self {
            Program::StoreBuffering { seq_cst: false } => "sb-relaxed".to_string(),
            Program::StoreBuffering { seq_cst: true } => "sb-seqcst".to_string(),
            Program::FetchAdd { threads, per_thread: 1 } => format!("fai-{threads}"),
            Program::FetchAdd { threads, per_thread } => format!("fai-{threads}x{per_thread}"),
            Program::CasRotation { n } => format!("cas-rot-{n}"),
            Program::MessagePassing { release_acquire: false } => "mp-relaxed".to_string(),
            Program::MessagePassing { release_acquire: true } => "mp-relacq".to_string(),
            Program::Iriw { seq_cst: false } => "iriw-relaxed".to_string(),
            Program::Iriw { seq_cst: true } => "iriw-seqcst".to_string(),
            Program::Readers { n } => format!("readers-{n}"),
            Program::LastZero { n } => format!("last-zero-{n}"),
            Program::Treiber { pushers } => format!("treiber-{pushers}"),
            Program::Seqlock { writes } => format!("seqlock-{writes}"),
        }
    }

    /// The family group the program belongs to (a command-line group name).
    pub fn family(self) -> &'static str {
        match self {
            Program::StoreBuffering { .. } => "sb",
            Program::MessagePassing { .. } => "mp",
            Program::Iriw { .. } => "iriw",
            Program::FetchAdd { .. } => "fai",
            Program::CasRotation { .. } => "cas-rot",
            Program::Readers { .. } => "readers",
            Program::LastZero { .. } => "last-zero",
            Program::Treiber { .. } => "treiber",
            Program::Seqlock { .. } => "seqlock",
        }
    }

    /// Threads the program spawns (the main thread not counted).
    pub fn spawned_threads(self) -> usize {
        match self {
            Program::StoreBuffering { .. } | Program::MessagePassing { .. } | Program::Seqlock { .. } => 2,
            Program::Iriw { .. } => 4,
            Program::FetchAdd { threads, .. } => threads,
            Program::CasRotation { n } | Program::Readers { n } | Program::LastZero { n } => n,
            Program::Treiber { pushers } => pushers + 1,
        }
    }

    /// The exact number of executions an optimal explorer finds under RC11,
    /// where it is known in closed form.
    pub fn expected_rc11_executions(self) -> Option<u64> {
        match self {
            // Each load reads 0 or 1: 4 outcomes; SeqCst forbids (0, 0).
            Program::StoreBuffering { seq_cst: false } => Some(4),
            Program::StoreBuffering { seq_cst: true } => Some(3),
            // Each load reads 0 or 1; release/acquire forbids flag 1, data 0.
            Program::MessagePassing { release_acquire: false } => Some(4),
            Program::MessagePassing { release_acquire: true } => Some(3),
            // Four loads, each 0 or 1; SeqCst forbids the one outcome where
            // the readers see the stores in opposite orders.
            Program::Iriw { seq_cst: false } => Some(16),
            Program::Iriw { seq_cst: true } => Some(15),
            // One execution per modification order of the RMWs: the
            // interleavings of the per-thread sequences, a multinomial.
            Program::FetchAdd { threads, per_thread } => {
                let total = (threads * per_thread) as u64;
                let mut n = factorial(total);
                for _ in 0..threads {
                    n /= factorial(per_thread as u64);
                }
                Some(n)
            }
            Program::CasRotation { n } => Some(cas_rotation_executions(n as u64)),
            // Each reader reads 0 or 1, independently.
            Program::Readers { n } => Some(1 << n),
            Program::LastZero { n } => last_zero_executions(n as u64),
            // One update, two tries (counted by hand). First try: reading
            // sequence 2 (acquire: data 1, 1, then 2 again) succeeds, 1 way;
            // reading 0, data (0, 0) and 0 again succeeds, 1 way; reading 1
            // retries, and the second try (not older: 1 or 2) gives 2 ways.
            // Reading 0 and then failing: data (0, 0) with the second read
            // 1 (2 continuations: 1 or 2) or 2 (1: 2), 3 ways; data with a 1
            // in it (3 pairs; the fences force the second read to 1 or 2),
            // 3 × 3 = 9 ways. Total 1 + 1 + 2 + 3 + 9 = 16.
            Program::Seqlock { writes: 1 } => Some(16),
            Program::Treiber { .. } | Program::Seqlock { .. } => None,
        }
    }

    fn run_scopecheck(self) -> bool {
        match self {
            Program::StoreBuffering { seq_cst } => on_scopecheck::store_buffering(seq_cst),
            Program::FetchAdd { threads, per_thread } => on_scopecheck::fetch_add(threads, per_thread),
            Program::CasRotation { n } => on_scopecheck::cas_rotation(n),
            Program::MessagePassing { release_acquire } => on_scopecheck::message_passing(release_acquire),
            Program::Iriw { seq_cst } => on_scopecheck::iriw(seq_cst),
            Program::Readers { n } => on_scopecheck::readers(n),
            Program::LastZero { n } => on_scopecheck::last_zero(n),
            Program::Treiber { pushers } => on_scopecheck::treiber(pushers, TREIBER_ATTEMPTS),
            Program::Seqlock { writes } => on_scopecheck::seqlock(writes, SEQLOCK_ATTEMPTS),
        }
    }

    fn run_loom(self) -> bool {
        match self {
            Program::StoreBuffering { seq_cst } => on_loom::store_buffering(seq_cst),
            Program::FetchAdd { threads, per_thread } => on_loom::fetch_add(threads, per_thread),
            Program::CasRotation { n } => on_loom::cas_rotation(n),
            Program::MessagePassing { release_acquire } => on_loom::message_passing(release_acquire),
            Program::Iriw { seq_cst } => on_loom::iriw(seq_cst),
            Program::Readers { n } => on_loom::readers(n),
            Program::LastZero { n } => on_loom::last_zero(n),
            Program::Treiber { pushers } => on_loom::treiber(pushers, TREIBER_ATTEMPTS),
            Program::Seqlock { writes } => on_loom::seqlock(writes, SEQLOCK_ATTEMPTS),
        }
    }

    fn run_shuttle(self) -> bool {
        match self {
            Program::StoreBuffering { seq_cst } => on_shuttle::store_buffering(seq_cst),
            Program::FetchAdd { threads, per_thread } => on_shuttle::fetch_add(threads, per_thread),
            Program::CasRotation { n } => on_shuttle::cas_rotation(n),
            Program::MessagePassing { release_acquire } => on_shuttle::message_passing(release_acquire),
            Program::Iriw { seq_cst } => on_shuttle::iriw(seq_cst),
            Program::Readers { n } => on_shuttle::readers(n),
            Program::LastZero { n } => on_shuttle::last_zero(n),
            Program::Treiber { pushers } => on_shuttle::treiber(pushers, TREIBER_ATTEMPTS),
            Program::Seqlock { writes } => on_shuttle::seqlock(writes, SEQLOCK_ATTEMPTS),
        }
    }
}

fn factorial(n: u64) -> u64 {
    (1..=n).product()
}

/// Executions of the compare-exchange rotation with `n` threads under RC11.
/// The successful CASes form a prefix 1..=k of the threads (thread i can
/// only succeed by reading thread i - 1's value, and RMW atomicity then puts
/// it right after that write in the modification order), and every k from 1
/// to n happens (thread 1 cannot fail when no one else has written). Given
/// k < n, thread k + 1 fails by reading one of the k writes whose value is
/// not k (the initial 0 or threads 1..k-1's), and each later thread fails
/// reading any of the k + 1 writes; failed CASes are plain loads with no
/// constraint between them. So the count is 1 + Σ_{k=1}^{n-1} k (k+1)^(n-1-k)
/// (cas-rot-12: 919146, the published count).
pub fn cas_rotation_executions(n: u64) -> u64 {
    1 + (1..n).map(|k| k * (k + 1).pow((n - 1 - k) as u32)).sum::<u64>()
}

/// Executions of the last-zero search with `n >= 2` writers under RC11.
/// Writer j >= 2 reads a[j - 1] from the initial 0 or from writer j - 1
/// (2^(n-1) choices; writer 1 reads the never-written a[0]). The scan stops
/// at a[n] (reading 0), or at a[0], or at a[k] for 1 <= k < n after reading
/// writer k + 1's store, which it then happens-after: reading 0 at a[k] is
/// coherent only when writer k + 1 read the initial 0 there, true in half of
/// the writer choices. Total 2·2^(n-1) + (n-1)·2^(n-2) = (n + 3)·2^(n-2)
/// (last-zero-15: 147456, the published count).
pub fn last_zero_executions(n: u64) -> Option<u64> {
    (n >= 2).then(|| (n + 3) << (n - 2))
}

/// Parses a program name, or a group name, into programs.
pub fn parse_programs(arg: &str) -> Result<Vec<Program>, String> {
    let group: Vec<Program> = match arg {
        "all" => Program::all(),
        "large" => Program::large(),
        "litmus" => Program::all()
            .into_iter()
            .filter(|p| matches!(p.family(), "sb" | "mp" | "iriw"))
            .collect(),
        "rot" => parse_programs("cas-rot")?,
        family if Program::all().iter().any(|p| p.family() == family) => {
            Program::all().into_iter().filter(|p| p.family() == family).collect()
        }
        name => Program::every().into_iter().filter(|p| p.name() == name).collect(),
    };
    if group.is_empty() {
        Err(format!("unknown program `{arg}` (try --list)"))
    } else {
        Ok(group)
    }
}

/// A tool and the way it explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// scopecheck, `Strategy::Exhaustive`.
    ScopecheckExhaustive,
    /// loom, `loom::model::Builder::new().check(..)`.
    Loom,
    /// scopecheck, `Strategy::Random { seed, iterations }`.
    ScopecheckRandom,
    /// shuttle, `shuttle::check_random(f, iterations)`.
    Shuttle,
    /// scopecheck, `Builder::explore_parallel(cores, f)`: the exhaustive
    /// exploration split into shards on every core.
    ScopecheckParallel,
    /// scopecheck, `Strategy::Pct { seed, iterations, depth: 3 }`.
    ScopecheckPct,
    /// shuttle, `shuttle::check_pct(f, iterations, 3)`.
    ShuttlePct,
}

impl Tool {
    /// Every tool, in the order each program runs them.
    pub const ALL: [Tool; 7] = [
        Tool::ScopecheckExhaustive,
        Tool::Loom,
        Tool::ScopecheckParallel,
        Tool::ScopecheckRandom,
        Tool::Shuttle,
        Tool::ScopecheckPct,
        Tool::ShuttlePct,
    ];

    /// Name, as accepted by `--tools`.
    pub fn name(self) -> &'static str {
        match self {
            Tool::ScopecheckExhaustive => "scopecheck",
            Tool::Loom => "loom",
            Tool::ScopecheckRandom => "scopecheck-random",
            Tool::Shuttle => "shuttle",
            Tool::ScopecheckParallel => "scopecheck-parallel",
            Tool::ScopecheckPct => "scopecheck-pct",
            Tool::ShuttlePct => "shuttle-pct",
        }
    }

    /// The scopecheck run this tool's time is compared with.
    pub fn baseline(self) -> Option<Tool> {
        match self {
            Tool::Loom => Some(Tool::ScopecheckExhaustive),
            Tool::Shuttle => Some(Tool::ScopecheckRandom),
            // The ratio is then the speed-up on all cores.
            Tool::ScopecheckParallel => Some(Tool::ScopecheckExhaustive),
            Tool::ShuttlePct => Some(Tool::ScopecheckPct),
            _ => None,
        }
    }
}

/// Parses a comma-separated tool list.
pub fn parse_tools(arg: &str) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    for part in arg.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let found: Vec<Tool> = match part {
            "all" => Tool::ALL.to_vec(),
            "exhaustive" => vec![Tool::ScopecheckExhaustive, Tool::Loom],
            "random" => vec![Tool::ScopecheckRandom, Tool::Shuttle],
            "pct" => vec![Tool::ScopecheckPct, Tool::ShuttlePct],
            name => Tool::ALL.iter().copied().filter(|t| t.name() == name).collect(),
        };
        if found.is_empty() {
            return Err(format!(
                "unknown tool `{part}` (scopecheck, loom, scopecheck-parallel, scopecheck-random, shuttle, scopecheck-pct, shuttle-pct, exhaustive, random, pct, all)"
            ));
        }
        for t in found {
            if !tools.contains(&t) {
                tools.push(t);
            }
        }
    }
    tools.sort_by_key(|t| Tool::ALL.iter().position(|u| u == t));
    Ok(tools)
}

/// Why a row has no complete measurement, or what it found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The tool cannot run the program (loom's thread limit).
    NotRun(String),
    /// The run was stopped after `--timeout`.
    TimedOut(Duration),
    /// The tool reported a failure, panicked or stopped early.
    Failed(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::NotRun(why) => write!(f, "not run: {why}"),
            Problem::TimedOut(d) => write!(f, "stopped after the {} s timeout", d.as_secs()),
            Problem::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// What one tool did on one program.
#[derive(Clone, Debug)]
pub struct Row {
    /// The program.
    pub program: Program,
    /// The tool.
    pub tool: Tool,
    /// Executions as the tool counts them (see the notes printed with the table).
    pub executions: u64,
    /// Invocations of the program closure.
    pub closure_runs: u64,
    /// Program runs whose outcome the program forbids (loom's SeqCst, shuttle's SC-only model...).
    pub forbidden: u64,
    /// Wall time of the tool's entry point.
    pub wall: Duration,
    /// Peak RSS (VmHWM, kB) of the process that ran it, read right after the run.
    pub vm_hwm_kb: Option<u64>,
    /// Set when the tool did not run the program to the end.
    pub problem: Option<Problem>,
}

impl Row {
    /// Executions per second.
    pub fn rate(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.executions as f64 / s
        } else {
            f64::INFINITY
        }
    }

    /// Whether the row holds a full measurement.
    pub fn measured(&self) -> bool {
        self.problem.is_none()
    }
}

/// Settings of a benchmark run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Programs, in order.
    pub programs: Vec<Program>,
    /// Tools, in order.
    pub tools: Vec<Tool>,
    /// Iterations for the two random tools.
    pub iterations: u64,
    /// Seed for scopecheck's random strategy.
    pub seed: u64,
    /// Memory model for the scopecheck runs.
    pub memory_model: scopecheck::MemoryModel,
    /// Wall-clock limit of one (program, tool) run.
    pub timeout: Duration,
    /// Stop scopecheck's exhaustive and parallel runs after this many
    /// executions (a size at which to read memory use; the row then counts
    /// the executions explored, not the program's whole number).
    pub max_executions: Option<u64>,
    /// Runs of each (program, tool); the table shows the run with the
    /// median wall time, the tools of a program alternated run by run (on
    /// a machine whose speed drifts, one-shot times are not comparable).
    pub repeat: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            programs: Program::all(),
            tools: Tool::ALL.to_vec(),
            iterations: 10_000,
            seed: 1,
            memory_model: scopecheck::MemoryModel::Cpp20,
            // Long enough for loom on the 3-thread programs; its 4-thread
            // searches run for many minutes (README) and are cut here.
            timeout: Duration::from_secs(300),
            max_executions: None,
            repeat: 1,
        }
    }
}

/// The usage text.
pub fn usage() -> String {
    let names: Vec<String> = Program::all().into_iter().map(Program::name).collect();
    let large: Vec<String> = Program::large().into_iter().map(Program::name).collect();
    format!(
        "usage: scopecheck-bench [OPTIONS] [PROGRAM...]\n\
         \n\
         Runs each PROGRAM (default: all) under each selected tool, each run in a child\n\
         process, and prints one table.\n\
         \n\
         PROGRAM: a name or a group.\n\
         \x20 names:  {}\n\
         \x20 large:  {} (not in `all`: 10^5 to 10^6 executions each)\n\
         \x20 by name only: cas-rot-13 (4,866,871 executions; with --max-executions, for memory use)\n\
         \x20 groups: sb, mp, iriw, litmus (= sb, mp, iriw), fai, cas-rot, readers, last-zero,\n\
         \x20         treiber, seqlock (each takes its programs in `all`), all (default), large\n\
         \n\
         OPTIONS:\n\
         \x20 --tools LIST       comma-separated: scopecheck, loom, scopecheck-parallel, scopecheck-random,\n\
         \x20                    shuttle, scopecheck-pct, shuttle-pct; exhaustive (= scopecheck,loom),\n\
         \x20                    random (= scopecheck-random,shuttle), pct (= scopecheck-pct,shuttle-pct), all (default)\n\
         \x20 --iterations N     iterations of the random and PCT tools (default 10000)\n\
         \x20 --seed N           seed of scopecheck's random strategy (default 1)\n\
         \x20 --model cpp20|rc11|sc  memory model of the scopecheck runs (default cpp20)\n\
         \x20 --timeout SECS     stop one (program, tool) run after SECS seconds (default 300)\n\
         \x20 --repeat N         run each (program, tool) N times, the tools of a program alternated run\n\
         \x20                    by run, and show the run with the median wall time (default 1)\n\
         \x20 --max-executions N stop scopecheck's exhaustive and parallel runs after N executions\n\
         \x20                    (to read memory use at a given size; the counts are then partial)\n\
         \x20 --list             list the programs and exit\n\
         \x20 -h, --help         this text\n",
        names.join(", "),
        large.join(", ")
    )
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Run the benchmark.
    Run(Options),
    /// Run one (program, tool) pair in this process and print its row
    /// for the parent (internal).
    Child(Program, Tool, Options),
    /// Print this text and exit successfully.
    Print(String),
}

/// Parses the command line (without the program name). `--bench`, which
/// `cargo bench` passes, is ignored.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut opts = Options::default();
    let mut programs: Vec<Program> = Vec::new();
    let mut child: Option<(String, String)> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Print(usage())),
            "--list" => {
                let mut s = String::new();
                for p in Program::every() {
                    let expected = p
                        .expected_rc11_executions()
                        .map(|n| format!("{n} executions under rc11"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        s,
                        "{:<13} {:>2} spawned threads  {expected}",
                        p.name(),
                        p.spawned_threads()
                    );
                }
                return Ok(Command::Print(s));
            }
            "--bench" => {}
            "--tools" => opts.tools = parse_tools(&value("--tools")?)?,
            "--iterations" => {
                opts.iterations = value("--iterations")?
                    .parse()
                    .map_err(|e| format!("--iterations: {e}"))?
            }
            "--seed" => opts.seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--repeat" => {
                let n: usize = value("--repeat")?.parse().map_err(|e| format!("--repeat: {e}"))?;
                if n == 0 {
                    return Err("--repeat: at least 1".into());
                }
                opts.repeat = n;
            }
            "--max-executions" => {
                let n = value("--max-executions")?;
                opts.max_executions = Some(n.parse().map_err(|e| format!("--max-executions: {e}"))?);
            }
            "--timeout" => {
                let secs: f64 = value("--timeout")?.parse().map_err(|e| format!("--timeout: {e}"))?;
                if !(secs > 0.0 && secs.is_finite()) {
                    return Err("--timeout must be a positive number of seconds".to_string());
                }
                opts.timeout = Duration::from_secs_f64(secs);
            }
            "--model" => {
                let name = value("--model")?;
                opts.memory_model = scopecheck::MemoryModel::from_name(&name)
                    .ok_or_else(|| format!("--model: unknown model `{name}` (cpp20, rc11, sc)"))?;
            }
            "--child" => {
                let p = value("--child")?;
                let t = args.next().ok_or("--child needs a program and a tool")?;
                child = Some((p, t));
            }
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`\n\n{}", usage())),
            name => {
                for p in parse_programs(name)? {
                    if !programs.contains(&p) {
                        programs.push(p);
                    }
                }
            }
        }
    }
    if let Some((p, t)) = child {
        let program = match parse_programs(&p)?.as_slice() {
            [one] => *one,
            _ => return Err(format!("--child takes one program, not `{p}`")),
        };
        let tool = match parse_tools(&t)?.as_slice() {
            [one] => *one,
            _ => return Err(format!("--child takes one tool, not `{t}`")),
        };
        return Ok(Command::Child(program, tool, opts));
    }
    if !programs.is_empty() {
        opts.programs = programs;
    }
    if opts.tools.is_empty() {
        return Err("--tools selects no tool".to_string());
    }
    Ok(Command::Run(opts))
}

/// VmHWM from /proc/self/status, in kB: the process's peak resident set size
/// (a high-water mark over the process's whole life).
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Runs `program` under `tool` in this process and measures it. Not
/// reentrant: the closure counters are process-wide.
pub fn run_one(program: Program, tool: Tool, opts: &Options) -> Row {
    reset_closure_runs();
    FORBIDDEN.store(0, StdOrdering::Relaxed);
    let mut problem = None;
    let start = Instant::now();
    let mut executions = match tool {
        Tool::ScopecheckExhaustive | Tool::ScopecheckRandom | Tool::ScopecheckParallel | Tool::ScopecheckPct => {
            let mut b = scopecheck::Builder::new();
            b.memory_model = opts.memory_model;
            if matches!(tool, Tool::ScopecheckExhaustive | Tool::ScopecheckParallel) {
                b.max_executions = opts.max_executions;
            }
            b.strategy = match tool {
                Tool::ScopecheckRandom => scopecheck::Strategy::Random {
                    seed: opts.seed,
                    iterations: opts.iterations,
                },
                Tool::ScopecheckPct => scopecheck::Strategy::Pct {
                    seed: opts.seed,
                    iterations: opts.iterations,
                    depth: 3,
                },
                _ => scopecheck::Strategy::Exhaustive,
            };
            let body = || {
                count_run();
                record_outcome(program.run_scopecheck());
            };
            let report = if tool == Tool::ScopecheckParallel {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                b.explore_parallel(cores, body)
            } else {
                b.explore(body)
            };
            if let Some(f) = report.failures().first() {
                problem = Some(Problem::Failed(format!(
                    "{}: {}",
                    f.kind().name(),
                    first_line(&f.message)
                )));
            } else if !report.is_complete() && opts.max_executions.is_none() {
                problem = Some(Problem::Failed(format!(
                    "incomplete: {}",
                    report.incomplete_reason().unwrap_or("no reason given")
                )));
            }
            if matches!(tool, Tool::ScopecheckExhaustive | Tool::ScopecheckParallel) {
                report.executions()
            } else {
                report.runs()
            }
        }
        Tool::Loom => {
            // loom::MAX_THREADS counts the main thread.
            if program.spawned_threads() + 1 > loom::MAX_THREADS {
                problem = Some(Problem::NotRun(format!(
                    "{} threads with main > loom::MAX_THREADS = {}",
                    program.spawned_threads() + 1,
                    loom::MAX_THREADS
                )));
            } else {
                let builder = loom::model::Builder::new();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    builder.check(move || {
                        count_run();
                        record_outcome(program.run_loom());
                    })
                }));
                if let Err(p) = result {
                    problem = Some(Problem::Failed(format!(
                        "panicked: {}",
                        first_line(&panic_message(&*p))
                    )));
                }
            }
            closure_runs()
        }
        Tool::Shuttle | Tool::ShuttlePct => {
            let iterations = opts.iterations as usize;
            let body = move || {
                count_run();
                record_outcome(program.run_shuttle());
            };
            let result = catch_unwind(AssertUnwindSafe(|| {
                if tool == Tool::Shuttle {
                    shuttle::check_random(body, iterations)
                } else {
                    shuttle::check_pct(body, iterations, 3)
                }
            }));
            if let Err(p) = result {
                problem = Some(Problem::Failed(format!(
                    "panicked: {}",
                    first_line(&panic_message(&*p))
                )));
            }
            opts.iterations
        }
    };
    let wall = start.elapsed();
    let closure_runs = closure_runs();
    if matches!(tool, Tool::Shuttle | Tool::ShuttlePct) && problem.is_some() {
        executions = closure_runs;
    }
    Row {
        program,
        tool,
        executions,
        closure_runs,
        forbidden: FORBIDDEN.load(StdOrdering::Relaxed),
        wall,
        vm_hwm_kb: peak_rss_kb(),
        problem,
    }
}

const ROW_TAG: &str = "SCOPECHECK_BENCH_ROW";

/// The line a child prints for its parent.
fn encode_row(row: &Row) -> String {
    let problem = match &row.problem {
        None => "ok".to_string(),
        Some(Problem::NotRun(s)) => format!("notrun {s}"),
        Some(Problem::Failed(s)) => format!("failed {s}"),
        Some(Problem::TimedOut(d)) => format!("timeout {}", d.as_secs()),
    };
    format!(
        "{ROW_TAG}\t{}\t{}\t{}\t{}\t{}\t{}",
        row.executions,
        row.closure_runs,
        row.forbidden,
        row.wall.as_nanos(),
        row.vm_hwm_kb.map(|k| k.to_string()).unwrap_or_else(|| "-".to_string()),
        problem.replace(['\t', '\n'], " ")
    )
}

fn decode_row(program: Program, tool: Tool, line: &str) -> Option<Row> {
    let mut f = line.strip_prefix(ROW_TAG)?.strip_prefix('\t')?.splitn(6, '\t');
    let executions = f.next()?.parse().ok()?;
    let closure_runs = f.next()?.parse().ok()?;
    let forbidden = f.next()?.parse().ok()?;
    let wall = Duration::from_nanos(f.next()?.parse().ok()?);
    let vm_hwm_kb = f.next()?.parse().ok();
    let p = f.next()?;
    let problem = match p.split_once(' ') {
        _ if p == "ok" => None,
        Some(("notrun", s)) => Some(Problem::NotRun(s.to_string())),
        Some(("timeout", s)) => Some(Problem::TimedOut(Duration::from_secs(s.parse().ok()?))),
        Some((_, s)) => Some(Problem::Failed(s.to_string())),
        None => Some(Problem::Failed(p.to_string())),
    };
    Some(Row {
        program,
        tool,
        executions,
        closure_runs,
        forbidden,
        wall,
        vm_hwm_kb,
        problem,
    })
}

fn drain<R: Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    })
}

/// Runs `program` under `tool` in a child process (this executable with
/// `--child`), stopping it after `opts.timeout`.
pub fn run_in_child(program: Program, tool: Tool, opts: &Options) -> Row {
    let failed = |why: String, wall: Duration| Row {
        program,
        tool,
        executions: 0,
        closure_runs: 0,
        forbidden: 0,
        wall,
        vm_hwm_kb: None,
        problem: Some(Problem::Failed(why)),
    };
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return failed(format!("cannot find this executable: {e}"), Duration::ZERO),
    };
    let model = opts.memory_model.name();
    let start = Instant::now();
    let spawned = Process::new(exe)
        .arg("--child")
        .arg(program.name())
        .arg(tool.name())
        .args(["--iterations", &opts.iterations.to_string()])
        .args(["--seed", &opts.seed.to_string()])
        .args(["--model", model])
        .args(
            opts.max_executions
                .map(|n| vec!["--max-executions".to_string(), n.to_string()])
                .unwrap_or_default(),
        )
        // Shuttle prints a warning about Relaxed orderings on each run; the
        // notes under the table say it once.
        .env("SHUTTLE_SILENCE_WARNINGS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start a child process: {e}"), Duration::ZERO),
    };
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= opts.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return failed(format!("waiting for the child: {e}"), start.elapsed()),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let Some(status) = status else {
        let mut row = failed(String::new(), start.elapsed());
        row.problem = Some(Problem::TimedOut(opts.timeout));
        return row;
    };
    match stdout.lines().find_map(|l| decode_row(program, tool, l)) {
        Some(row) => row,
        None => {
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            failed(format!("child exited with {status}: {last}"), start.elapsed())
        }
    }
}

fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn fmt_rate(r: f64) -> String {
    if !r.is_finite() {
        "-".to_string()
    } else if r >= 1e6 {
        format!("{:.2}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// The ratio of the matching scopecheck run's wall time to this row's.
pub fn ratio(rows: &[Row], row: &Row) -> Option<f64> {
    let base = row.tool.baseline()?;
    if !row.measured() {
        return None;
    }
    let sc = rows
        .iter()
        .find(|r| r.program == row.program && r.tool == base && r.measured())?;
    let peer = row.wall.as_secs_f64();
    (peer > 0.0).then(|| sc.wall.as_secs_f64() / peer)
}

/// One line of the table for `row`.
pub fn format_row(rows: &[Row], row: &Row) -> String {
    let ratio = match ratio(rows, row) {
        Some(r) if r < 0.01 => format!("{r:.1e}"),
        Some(r) => format!("{r:.3}"),
        None => "-".to_string(),
    };
    let hwm = row
        .vm_hwm_kb
        .map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
        .unwrap_or_else(|| "-".to_string());
    let (execs, closure, time, rate) = match &row.problem {
        Some(Problem::NotRun(_)) | Some(Problem::TimedOut(_)) => {
            ("-".to_string(), "-".to_string(), "-".to_string(), "-".to_string())
        }
        _ => (
            row.executions.to_string(),
            row.closure_runs.to_string(),
            fmt_duration(row.wall),
            fmt_rate(row.rate()),
        ),
    };
    let mut line = format!(
        "{:<13} {:<19} {:>10} {:>10} {:>10} {:>9} {:>8} {:>9}",
        row.program.name(),
        row.tool.name(),
        execs,
        closure,
        time,
        rate,
        ratio,
        hwm
    );
    if let Some(p) = &row.problem {
        let _ = write!(line, "  {p}");
    }
    if row.forbidden > 0 {
        let _ = write!(
            line,
            "  {} run(s) ended in an outcome the program forbids",
            row.forbidden
        );
    }
    line
}

/// The table's header line.
pub fn header() -> String {
    format!(
        "{:<13} {:<19} {:>10} {:>10} {:>10} {:>9} {:>8} {:>9}",
        "program", "tool", "executions", "closure", "wall", "exec/s", "sc/peer", "VmHWM"
    )
}

/// Notes printed under the table.
pub fn notes(opts: &Options) -> String {
    let model = opts.memory_model.name();
    let n = opts.iterations;
    let mut s = String::new();
    let _ = writeln!(s, "How each column is counted:");
    let _ = writeln!(
        s,
        "  executions  scopecheck: Report::executions(), the complete, distinct consistent executions"
    );
    let _ = writeln!(s, "              under {model} (the exact optimal count);");
    let _ = writeln!(
        s,
        "              scopecheck-random: Report::runs(), executions run ({n} asked, seed {});",
        opts.seed
    );
    let _ = writeln!(
        s,
        "              loom: invocations of the model closure by loom::model::Builder::new().check"
    );
    let _ = writeln!(s, "              (default settings: no preemption bound);");
    let _ = writeln!(
        s,
        "              shuttle: the iteration count given to shuttle::check_random ({n})"
    );
    let _ = writeln!(
        s,
        "  closure     invocations of the program closure, counted the same way for every tool"
    );
    let _ = writeln!(s, "  exec/s      executions / wall");
    let _ = writeln!(
        s,
        "  sc/peer     scopecheck's wall time / the peer's (exhaustive vs loom, random vs shuttle);"
    );
    let _ = writeln!(s, "              below 1 means scopecheck was faster");
    let _ = writeln!(
        s,
        "  VmHWM       peak RSS of the child process that ran this one row, read from /proc/self/status"
    );
    let _ = writeln!(s, "              (a process high-water mark) right after the run");
    let _ = writeln!(
        s,
        "Each row runs in its own child process, stopped after --timeout ({} s).",
        opts.timeout.as_secs()
    );
    if opts.repeat > 1 {
        let _ = writeln!(
            s,
            "Each row is the run with the median wall time of {} (--repeat), the tools of a program",
            opts.repeat
        );
        let _ = writeln!(s, "alternated run by run; every run's time is listed above the notes.");
    }
    if let Some(n) = opts.max_executions {
        let _ = writeln!(
            s,
            "scopecheck's exhaustive and parallel runs stop after {n} executions (--max-executions): their"
        );
        let _ = writeln!(s, "counts are those explored, not the programs' whole numbers.");
    }
    let _ = writeln!(
        s,
        "Semantics differ: shuttle runs every atomic as SeqCst (no weak-memory behaviours); loom"
    );
    let _ = writeln!(
        s,
        "explores Relaxed/Acquire/Release store visibility from a bounded history and treats SeqCst"
    );
    let _ = writeln!(
        s,
        "accesses as AcqRel (its README says so: false alarms on SeqCst store buffering); scopecheck"
    );
    let _ = write!(s, "explores every execution {model} allows.");
    s
}

/// Runs the benchmark as `opts` says, each row in a child process, printing
/// each row as it is measured and the whole table at the end.
pub fn run(opts: &Options) -> Vec<Row> {
    println!(
        "scopecheck-bench: {} program(s) × {} tool(s); {} iterations for the random tools; scopecheck under {}; \
         timeout {} s per run",
        opts.programs.len(),
        opts.tools.len(),
        opts.iterations,
        opts.memory_model.name(),
        opts.timeout.as_secs()
    );
    println!("{}", header());
    let mut rows: Vec<Row> = Vec::new();
    let mut walls: Vec<String> = Vec::new();
    for &program in &opts.programs {
        let mut runs: Vec<Vec<Row>> = opts.tools.iter().map(|_| Vec::new()).collect();
        for round in 1..=opts.repeat {
            for (i, &tool) in opts.tools.iter().enumerate() {
                let row = run_in_child(program, tool, opts);
                if opts.repeat > 1 {
                    println!(
                        "  run {round}/{} of {} under {}: {}",
                        opts.repeat,
                        program.name(),
                        tool.name(),
                        fmt_duration(row.wall)
                    );
                }
                runs[i].push(row);
            }
        }
        for tool_runs in runs {
            if opts.repeat > 1 {
                let all: Vec<String> = tool_runs.iter().map(|r| fmt_duration(r.wall)).collect();
                walls.push(format!(
                    "{} {}: {}",
                    tool_runs[0].program.name(),
                    tool_runs[0].tool.name(),
                    all.join(", ")
                ));
            }
            rows.push(median_row(tool_runs));
            println!("{}", format_row(&rows, rows.last().unwrap()));
        }
    }
    println!();
    println!("=== results ===");
    println!("{}", header());
    for row in &rows {
        println!("{}", format_row(&rows, row));
    }
    if !walls.is_empty() {
        println!();
        println!("every run's wall time:");
        for w in &walls {
            println!("  {w}");
        }
    }
    println!();
    println!("{}", notes(opts));
    rows
}

/// Of several runs of one (program, tool), the one with the median wall
/// time (the later of the two middle ones for an even count).
pub fn median_row(mut runs: Vec<Row>) -> Row {
    runs.sort_by_key(|r| r.wall);
    let mid = runs.len() / 2;
    runs.swap_remove(mid)
}

/// Checks that make the benchmark's exit status mean something: scopecheck
/// must run every program without a failure, find the closed-form count where
/// one is known, and never produce an outcome the program forbids.
pub fn scopecheck_errors(rows: &[Row], opts: &Options) -> Vec<String> {
    let mut errors = Vec::new();
    for row in rows {
        if !matches!(row.tool, Tool::ScopecheckExhaustive | Tool::ScopecheckRandom) {
            continue;
        }
        let name = row.program.name();
        let tool = row.tool.name();
        if let Some(p) = &row.problem {
            errors.push(format!("{name} under {tool}: {p}"));
        }
        if row.forbidden > 0 {
            errors.push(format!("{name} under {tool}: {} forbidden outcome(s)", row.forbidden));
        }
        if row.tool == Tool::ScopecheckExhaustive
            && opts.memory_model != scopecheck::MemoryModel::Sc
            && opts.max_executions.is_none()
        {
            if let Some(n) = row.program.expected_rc11_executions() {
                if row.measured() && row.executions != n {
                    errors.push(format!(
                        "{name} under {tool}: {} executions, expected {n}",
                        row.executions
                    ));
                }
            }
        }
    }
    errors
}

/// Entry point shared by the binary and the `cargo bench` target.
pub fn main_with_args<I: IntoIterator<Item = String>>(args: I) -> ExitCode {
    match parse_args(args) {
        Ok(Command::Print(s)) => {
            print!("{s}");
            ExitCode::SUCCESS
        }
        Ok(Command::Child(program, tool, opts)) => {
            let row = run_one(program, tool, &opts);
            println!("{}", encode_row(&row));
            ExitCode::SUCCESS
        }
        Ok(Command::Run(opts)) => {
            let rows = run(&opts);
            let errors = scopecheck_errors(&rows, &opts);
            for e in &errors {
                eprintln!("error: {e}");
            }
            if errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("scopecheck-bench: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial() -> std::sync::MutexGuard<'static, ()> {
        crate::tests_serial()
    }

    fn small_opts(tools: &[Tool]) -> Options {
        Options {
            tools: tools.to_vec(),
            iterations: 50,
            ..Options::default()
        }
    }

    #[test]
    fn scopecheck_counts_match_closed_forms() {
        let _g = serial();
        let opts = small_opts(&[Tool::ScopecheckExhaustive]);
        for p in [
            Program::StoreBuffering { seq_cst: false },
            Program::StoreBuffering { seq_cst: true },
            Program::FetchAdd {
                threads: 2,
                per_thread: 3,
            },
            Program::FetchAdd {
                threads: 4,
                per_thread: 1,
            },
        ] {
            let row = run_one(p, Tool::ScopecheckExhaustive, &opts);
            assert!(row.problem.is_none(), "{}: {:?}", p.name(), row.problem);
            assert_eq!(row.forbidden, 0, "{}", p.name());
            assert_eq!(Some(row.executions), p.expected_rc11_executions(), "{}", p.name());
        }
        let big = Program::FetchAdd {
            threads: 2,
            per_thread: 10,
        };
        assert_eq!(big.expected_rc11_executions(), Some(184_756));
    }

    /// Runs `p` under scopecheck's exhaustive strategy and checks that it
    /// completes with no forbidden outcome; returns the execution count.
    fn exhaustive_count(p: Program, opts: &Options) -> u64 {
        let row = run_one(p, Tool::ScopecheckExhaustive, opts);
        assert!(row.problem.is_none(), "{}: {:?}", p.name(), row.problem);
        assert_eq!(row.forbidden, 0, "{}", p.name());
        assert_eq!(row.closure_runs, row.executions, "{}", p.name());
        row.executions
    }

    #[test]
    fn new_programs_match_their_closed_forms() {
        let _g = serial();
        let opts = small_opts(&[Tool::ScopecheckExhaustive]);
        let cheap = [
            (Program::MessagePassing { release_acquire: false }, 4),
            (Program::MessagePassing { release_acquire: true }, 3),
            (Program::Iriw { seq_cst: false }, 16),
            (Program::Iriw { seq_cst: true }, 15),
            (
                Program::FetchAdd {
                    threads: 3,
                    per_thread: 3,
                },
                1680,
            ),
            (
                Program::FetchAdd {
                    threads: 6,
                    per_thread: 1,
                },
                720,
            ),
            (Program::CasRotation { n: 4 }, 14),
            (Program::CasRotation { n: 5 }, 43),
            (Program::CasRotation { n: 6 }, 144),
            (Program::CasRotation { n: 7 }, 523),
            (Program::CasRotation { n: 8 }, 2048),
            (Program::Readers { n: 3 }, 8),
            (Program::Readers { n: 4 }, 16),
            (Program::Readers { n: 8 }, 256),
            (Program::LastZero { n: 2 }, 5),
            (Program::LastZero { n: 3 }, 12),
            (Program::LastZero { n: 4 }, 28),
            (Program::LastZero { n: 8 }, 704),
            (Program::Seqlock { writes: 1 }, 16),
        ];
        for (p, n) in cheap {
            assert_eq!(p.expected_rc11_executions(), Some(n), "{}", p.name());
            assert_eq!(exhaustive_count(p, &opts), n, "{}", p.name());
        }
    }

    #[test]
    fn closed_forms_give_the_published_large_counts() {
        assert_eq!(Program::CasRotation { n: 12 }.expected_rc11_executions(), Some(919_146));
        assert_eq!(Program::Readers { n: 17 }.expected_rc11_executions(), Some(131_072));
        assert_eq!(Program::LastZero { n: 15 }.expected_rc11_executions(), Some(147_456));
        assert_eq!(last_zero_executions(1), None);
        for p in Program::large() {
            assert!(!Program::all().contains(&p), "{} is in both groups", p.name());
        }
    }

    #[test]
    fn data_structures_run_clean_everywhere() {
        let _g = serial();
        let opts = small_opts(&Tool::ALL);
        for p in [
            Program::Treiber { pushers: 2 },
            Program::Treiber { pushers: 3 },
            Program::Seqlock { writes: 1 },
            Program::Seqlock { writes: 2 },
        ] {
            assert!(exhaustive_count(p, &opts) > 0);
            // loom is left out: its exploration of these takes minutes (see the README table).
            for tool in [Tool::ScopecheckRandom, Tool::Shuttle, Tool::ScopecheckPct] {
                let row = run_one(p, tool, &opts);
                assert!(row.problem.is_none(), "{} {}: {:?}", p.name(), tool.name(), row.problem);
                assert_eq!(row.forbidden, 0, "{} {}", p.name(), tool.name());
            }
        }
    }

    #[test]
    fn groups_select_families_and_large() {
        let names = |g: &str| -> Vec<String> { parse_programs(g).unwrap().into_iter().map(Program::name).collect() };
        assert_eq!(names("mp"), ["mp-relaxed", "mp-relacq"]);
        assert_eq!(names("iriw"), ["iriw-relaxed", "iriw-seqcst"]);
        assert_eq!(names("litmus").len(), 6);
        assert_eq!(names("readers"), ["readers-3", "readers-8", "readers-12"]);
        assert_eq!(names("last-zero"), ["last-zero-3", "last-zero-8", "last-zero-12"]);
        assert_eq!(
            names("large"),
            ["cas-rot-11", "cas-rot-12", "fai-9", "readers-17", "last-zero-15"]
        );
        assert_eq!(names("cas-rot-12"), ["cas-rot-12"]);
        assert_eq!(names("rot"), names("cas-rot"));
        assert!(parse_programs("readers-5").is_err());
        // Sizes outside both groups are not selectable.
        assert!(parse_programs("readers-4").is_err());
    }

    #[test]
    fn every_tool_runs_a_small_program() {
        let _g = serial();
        let opts = small_opts(&Tool::ALL);
        for tool in Tool::ALL {
            let row = run_one(Program::CasRotation { n: 3 }, tool, &opts);
            assert!(row.problem.is_none(), "{}: {:?}", tool.name(), row.problem);
            assert!(row.executions > 0 && row.closure_runs > 0, "{}", tool.name());
            assert_eq!(row.forbidden, 0);
        }
    }

    #[test]
    fn loom_thread_limit_is_reported_not_run() {
        let _g = serial();
        let opts = small_opts(&[Tool::Loom]);
        let row = run_one(Program::CasRotation { n: 8 }, Tool::Loom, &opts);
        assert!(matches!(row.problem, Some(Problem::NotRun(_))));
    }

    #[test]
    fn rows_survive_the_trip_from_a_child() {
        let row = Row {
            program: Program::StoreBuffering { seq_cst: true },
            tool: Tool::Loom,
            executions: 42,
            closure_runs: 42,
            forbidden: 3,
            wall: Duration::from_nanos(123_456_789),
            vm_hwm_kb: Some(2048),
            problem: Some(Problem::Failed("panicked:\tx".to_string())),
        };
        let back = decode_row(row.program, row.tool, &encode_row(&row)).unwrap();
        assert_eq!(back.executions, 42);
        assert_eq!(back.forbidden, 3);
        assert_eq!(back.wall, row.wall);
        assert_eq!(back.vm_hwm_kb, Some(2048));
        assert_eq!(back.problem, Some(Problem::Failed("panicked: x".to_string())));
    }

    #[test]
    fn arguments_select_programs_and_tools() {
        let args = [
            "fai",
            "sb-relaxed",
            "--tools",
            "loom,scopecheck",
            "--iterations=7",
            "--bench",
        ];
        let Command::Run(o) = parse_args(args.iter().map(|s| s.to_string())).unwrap() else {
            panic!("expected a run");
        };
        // fai: 2x10, 3x3, then 3..=8 threads × 1.
        assert_eq!(o.programs.len(), 9);
        assert_eq!(
            o.programs[1],
            Program::FetchAdd {
                threads: 3,
                per_thread: 3
            }
        );
        assert_eq!(o.programs[8], Program::StoreBuffering { seq_cst: false });
        assert_eq!(o.tools, vec![Tool::ScopecheckExhaustive, Tool::Loom]);
        assert_eq!(o.iterations, 7);
        assert!(parse_args(["nope".to_string()]).is_err());
        assert!(parse_args(["--tools".to_string(), "x".to_string()]).is_err());
        let child = ["--child", "cas-rot-5", "shuttle", "--iterations", "3"];
        let Command::Child(p, t, o) = parse_args(child.iter().map(|s| s.to_string())).unwrap() else {
            panic!("expected a child");
        };
        assert_eq!((p, t, o.iterations), (Program::CasRotation { n: 5 }, Tool::Shuttle, 3));
        let capped = ["cas-rot-13", "--max-executions", "250"];
        let Command::Run(o) = parse_args(capped.iter().map(|s| s.to_string())).unwrap() else {
            panic!("expected a run");
        };
        assert_eq!(
            (o.programs, o.max_executions),
            (vec![Program::CasRotation { n: 13 }], Some(250))
        );
        assert!(parse_args(["--max-executions".to_string(), "x".to_string()]).is_err());
        let repeated = ["sb", "--repeat", "5"];
        let Command::Run(o) = parse_args(repeated.iter().map(|s| s.to_string())).unwrap() else {
            panic!("expected a run");
        };
        assert_eq!(o.repeat, 5);
        assert!(parse_args(["--repeat".to_string(), "0".to_string()]).is_err());
    }

    /// The median run is the middle one by wall time, whatever the order
    /// the runs came in.
    #[test]
    fn the_median_run_is_the_middle_one_by_wall_time() {
        let row = |ms: u64| Row {
            program: Program::CasRotation { n: 3 },
            tool: Tool::ScopecheckExhaustive,
            executions: ms,
            closure_runs: ms,
            forbidden: 0,
            wall: Duration::from_millis(ms),
            vm_hwm_kb: None,
            problem: None,
        };
        let runs = vec![row(40), row(10), row(30), row(50), row(20)];
        assert_eq!(median_row(runs).wall, Duration::from_millis(30));
        assert_eq!(median_row(vec![row(7)]).wall, Duration::from_millis(7));
        assert_eq!(median_row(vec![row(9), row(3)]).wall, Duration::from_millis(9));
    }

    /// A capped exhaustive run explores exactly the cap, counts every
    /// closure run, and is not reported as a problem (nor as a wrong count).
    #[test]
    fn max_executions_caps_the_exhaustive_tools() {
        let _g = serial();
        let mut opts = small_opts(&[Tool::ScopecheckExhaustive, Tool::ScopecheckParallel]);
        opts.max_executions = Some(250);
        for tool in [Tool::ScopecheckExhaustive, Tool::ScopecheckParallel] {
            let row = run_one(Program::CasRotation { n: 13 }, tool, &opts);
            assert_eq!(row.problem, None, "{}", tool.name());
            assert_eq!((row.executions, row.closure_runs), (250, 250), "{}", tool.name());
            assert!(scopecheck_errors(&[row], &opts).is_empty());
        }
    }
}
