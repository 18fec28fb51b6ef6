//! Random litmus programs: a small representation that [`arbitrary`]
//! generates from fuzzer bytes (or from a seeded generator's bytes in the
//! tests), shaped by a [`Shape`], and printed as a litmus test in the
//! dialect `scopecheck litmus` parses. The targets run a program by printing
//! it and checking the text, so every finding is a litmus file that
//! reproduces it, and the parser is exercised on every run.

mod generate;
mod print;

// Orders and scopes are the checker's own types, as the litmus AST holds
// them; `print.rs` spells them in the litmus dialect.
pub use scopecheck::litmus::ast::{Order, Scope};

/// Orders generated for loads and spin waits (C allows these; consume is
/// acquire in practice and left out).
pub const LOAD_ORDERS: &[Order] = &[Order::Relaxed, Order::Acquire, Order::SeqCst];
/// Orders generated for stores.
pub const STORE_ORDERS: &[Order] = &[Order::Relaxed, Order::Release, Order::SeqCst];
/// Orders generated for RMWs (and a compare-exchange's success order).
pub const RMW_ORDERS: &[Order] = &[
    Order::Relaxed,
    Order::Acquire,
    Order::Release,
    Order::AcqRel,
    Order::SeqCst,
];
/// Orders generated for fences (a relaxed fence is a no-op and left out).
pub const FENCE_ORDERS: &[Order] = &[Order::Acquire, Order::Release, Order::AcqRel, Order::SeqCst];
/// Orders generated for a compare-exchange's failure.
pub const CAS_FAILURE_ORDERS: &[Order] = &[Order::Relaxed, Order::Acquire, Order::SeqCst];

/// The scopes generated on GPU threads.
pub const SCOPES: &[Scope] = &[Scope::Thread, Scope::Warp, Scope::Block, Scope::Device, Scope::System];

/// The next narrower scope among [`SCOPES`] (the checker's cluster scope,
/// which C tests cannot name, is skipped), if any.
pub fn narrower(s: Scope) -> Option<Scope> {
    let i = SCOPES.iter().position(|&x| x == s)?;
    i.checked_sub(1).map(|j| SCOPES[j])
}

/// A DRFrlx class of a relaxed atomic.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// `rlx_unpaired`.
    Unpaired,
    /// `rlx_commutative`.
    Commutative,
    /// `rlx_non_ordering`.
    NonOrdering,
    /// `rlx_speculative`.
    Speculative,
    /// `rlx_quantum`.
    Quantum,
}

impl Class {
    /// The litmus spelling.
    pub fn name(self) -> &'static str {
        match self {
            Class::Unpaired => "rlx_unpaired",
            Class::Commutative => "rlx_commutative",
            Class::NonOrdering => "rlx_non_ordering",
            Class::Speculative => "rlx_speculative",
            Class::Quantum => "rlx_quantum",
        }
    }
}

/// The classes DRFrlx's theorem covers (quantum is excluded).
pub const THEOREM_CLASSES: &[Class] = &[
    Class::Unpaired,
    Class::Commutative,
    Class::NonOrdering,
    Class::Speculative,
];
/// Every class, as [`Mode::General`] programs draw them.
pub const ALL_CLASSES: &[Class] = &[
    Class::Unpaired,
    Class::Commutative,
    Class::NonOrdering,
    Class::Speculative,
    Class::Quantum,
];

/// How an atomic access is made: order, optional scope, optional class.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The memory order (the success order for a compare-exchange).
    pub order: Order,
    /// The scope; `None` prints nothing (system scope in C tests).
    pub scope: Option<Scope>,
    /// The DRFrlx class (relaxed accesses only).
    pub class: Option<Class>,
}

/// One statement of a thread. Atomics are `x` and `y` (index 0 and 1), the
/// plain location is `d`; registers are `r<N>`, numbered per thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `rR = atomic_load_explicit(loc, ..)`.
    Load {
        /// Atomic location index.
        loc: usize,
        /// Destination register.
        reg: usize,
        /// Order, scope, class.
        access: Access,
    },
    /// `atomic_store_explicit(loc, value, ..)`.
    Store {
        /// Atomic location index.
        loc: usize,
        /// Value stored.
        value: i32,
        /// Order, scope, class.
        access: Access,
    },
    /// `rR = atomic_fetch_add_explicit(loc, value, ..)`.
    FetchAdd {
        /// Atomic location index.
        loc: usize,
        /// Operand.
        value: i32,
        /// Register receiving the old value.
        reg: usize,
        /// Order, scope, class.
        access: Access,
    },
    /// `rR = atomic_exchange_explicit(loc, value, ..)`.
    Exchange {
        /// Atomic location index.
        loc: usize,
        /// New value.
        value: i32,
        /// Register receiving the old value.
        reg: usize,
        /// Order, scope, class.
        access: Access,
    },
    /// `rR = expected; rOK = atomic_compare_exchange_strong_explicit(loc, &rR, desired, ..)`.
    Cas {
        /// Atomic location index.
        loc: usize,
        /// Expected value (put in `reg` first; the old value on failure).
        expected: i32,
        /// Desired value.
        desired: i32,
        /// The expected-value register.
        reg: usize,
        /// The register receiving success (1) or failure (0).
        ok: usize,
        /// Success order, scope, class.
        access: Access,
        /// Failure order.
        failure: Order,
    },
    /// `atomic_thread_fence(order[, scope])`.
    Fence {
        /// Order.
        order: Order,
        /// Scope.
        scope: Option<Scope>,
    },
    /// `rR = *d`.
    PlainLoad {
        /// Destination register.
        reg: usize,
    },
    /// `*d = value`.
    PlainStore {
        /// Value stored.
        value: i32,
    },
    /// `while (atomic_load_explicit(loc, ..) != value) { }`: a spin wait,
    /// bounded by the litmus unroll bound (executions past it are dropped).
    Await {
        /// Atomic location index.
        loc: usize,
        /// The value waited for.
        value: i32,
        /// Order, scope, class of the load.
        access: Access,
    },
    /// `if (rR == value) { then }` (one level, no nested branch).
    If {
        /// The register tested (assigned earlier in the thread).
        reg: usize,
        /// The value compared with.
        value: i32,
        /// The branch.
        then: Vec<Step>,
    },
}

/// One thread: where it runs and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// GPU placement `(block, warp)` on device 0, or `None` for a CPU thread.
    pub place: Option<(u32, u32)>,
    /// The statements.
    pub steps: Vec<Step>,
    /// How many registers the thread uses (`r0` .. `r<regs-1>`).
    pub regs: usize,
    /// Registers whose values the thread stores, folded into one number, in
    /// a seq_cst atomic `out<T>` at its end (DRFrlx observes memory, not
    /// registers). Empty when the shape does not publish.
    pub published: Vec<usize>,
}

/// Which family of programs a [`Shape`] generates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every order, scopes on GPU threads, classes on some relaxed atomics.
    General,
    /// DRFrlx's theorem's premise: atomics are seq_cst (paired) or relaxed
    /// with a non-quantum class; no fences, no compare-exchange, no scopes.
    Drfrlx,
}

/// The size and contents of generated programs.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Most threads (at least 2 are generated).
    pub max_threads: usize,
    /// Most memory statements per thread, when there are two threads.
    pub max_steps_2: usize,
    /// Most memory statements per thread, when there are three threads.
    pub max_steps_3: usize,
    /// Whether GPU placements and scopes may appear.
    pub gpu: bool,
    /// Whether fences and compare-exchanges may appear.
    pub fences_and_cas: bool,
    /// Whether `if (r == k)` branches may appear.
    pub branches: bool,
    /// Whether spin waits (`while (load != k) { }`) may appear.
    pub waits: bool,
    /// One in how many statements is a plain access (0: none).
    pub plain_one_in: u32,
    /// The family.
    pub mode: Mode,
}

impl Shape {
    /// Small enough for the reference enumerator.
    pub fn differential() -> Shape {
        Shape {
            max_threads: 3,
            max_steps_2: 3,
            max_steps_3: 2,
            gpu: true,
            fences_and_cas: true,
            branches: true,
            waits: true,
            plain_one_in: 6,
            mode: Mode::General,
        }
    }

    /// For model inclusions (optimal explorer only, so a little larger).
    pub fn models() -> Shape {
        Shape {
            max_threads: 3,
            max_steps_2: 4,
            max_steps_3: 3,
            gpu: true,
            fences_and_cas: true,
            branches: true,
            waits: true,
            plain_one_in: 6,
            mode: Mode::General,
        }
    }

    /// Programs that race often (plain accesses, relaxed flags) for replay.
    pub fn replay() -> Shape {
        Shape {
            plain_one_in: 3,
            ..Shape::models()
        }
    }

    /// DRFrlx's theorem's premise.
    pub fn drfrlx() -> Shape {
        Shape {
            max_threads: 3,
            max_steps_2: 4,
            max_steps_3: 3,
            gpu: false,
            fences_and_cas: false,
            branches: true,
            waits: false,
            plain_one_in: 8,
            mode: Mode::Drfrlx,
        }
    }
}

/// A litmus program with 2-3 threads over atomics `x`, `y` and plain `d`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The threads, `P0` first.
    pub threads: Vec<Thread>,
}

impl Program {
    /// Whether the program publishes registers to `out<T>` locations.
    fn publishes(&self) -> bool {
        self.threads.iter().any(|t| !t.published.is_empty())
    }

    /// Every atomic access and fence scope, in print order, through `f`.
    pub fn map_scopes(&self, f: &mut dyn FnMut(usize, Option<Scope>) -> Option<Scope>) -> Program {
        fn go(steps: &mut [Step], k: &mut usize, f: &mut dyn FnMut(usize, Option<Scope>) -> Option<Scope>) {
            for s in steps {
                let scope = match s {
                    Step::Load { access, .. }
                    | Step::Store { access, .. }
                    | Step::FetchAdd { access, .. }
                    | Step::Exchange { access, .. }
                    | Step::Await { access, .. }
                    | Step::Cas { access, .. } => &mut access.scope,
                    Step::Fence { scope, .. } => scope,
                    Step::If { then, .. } => {
                        go(then, k, f);
                        continue;
                    }
                    Step::PlainLoad { .. } | Step::PlainStore { .. } => continue,
                };
                *scope = f(*k, *scope);
                *k += 1;
            }
        }
        let mut p = self.clone();
        let mut k = 0;
        for t in &mut p.threads {
            go(&mut t.steps, &mut k, f);
        }
        p
    }

    /// How many atomic accesses and fences the program has (the sites [`Program::map_scopes`] visits).
    pub fn scope_sites(&self) -> usize {
        let mut n = 0;
        self.map_scopes(&mut |_, s| {
            n += 1;
            s
        });
        n
    }

    /// Whether every thread has a GPU placement.
    pub fn on_gpu(&self) -> bool {
        self.threads.iter().all(|t| t.place.is_some())
    }

    /// The program with every scope written as `memory_scope_system`.
    pub fn all_system(&self) -> Program {
        self.map_scopes(&mut |_, s| s.map(|_| Scope::System))
    }

    /// The program with site `i`'s scope one level narrower (an unwritten
    /// scope is system scope), or `None` when it is already thread scope.
    pub fn narrowed(&self, i: usize) -> Option<Program> {
        let mut changed = false;
        let p = self.map_scopes(&mut |k, s| {
            if k != i {
                return s;
            }
            let n = narrower(s.unwrap_or(Scope::System));
            changed = n.is_some();
            n.or(s)
        });
        changed.then_some(p)
    }
}
