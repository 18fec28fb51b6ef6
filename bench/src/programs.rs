//! The benchmark programs: each written once (the `programs!` macro) and
//! instantiated for scopecheck's, loom's and shuttle's shims.

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

    pub(crate) fn run_scopecheck(self) -> bool {
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

    pub(crate) fn run_loom(self) -> bool {
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

    pub(crate) fn run_shuttle(self) -> bool {
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
