//! Random litmus programs: a small representation that [`arbitrary`]
//! generates from fuzzer bytes (or from a seeded generator's bytes in the
//! tests), shaped by a [`Shape`], and printed as a litmus test in the
//! dialect `scopecheck litmus` parses. The targets run a program by printing
//! it and checking the text, so every finding is a litmus file that
//! reproduces it, and the parser is exercised on every run.

use arbitrary::{Arbitrary, Result, Unstructured};
use std::fmt::{self, Write as _};

/// A C memory order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// `memory_order_relaxed`.
    Relaxed,
    /// `memory_order_acquire`.
    Acquire,
    /// `memory_order_release`.
    Release,
    /// `memory_order_acq_rel`.
    AcqRel,
    /// `memory_order_seq_cst`.
    SeqCst,
}

impl Order {
    /// The litmus spelling.
    pub fn name(self) -> &'static str {
        match self {
            Order::Relaxed => "memory_order_relaxed",
            Order::Acquire => "memory_order_acquire",
            Order::Release => "memory_order_release",
            Order::AcqRel => "memory_order_acq_rel",
            Order::SeqCst => "memory_order_seq_cst",
        }
    }
}

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

/// A memory scope, narrowest first (so `Ord` is inclusion).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `memory_scope_thread`.
    Thread,
    /// `memory_scope_warp`.
    Warp,
    /// `memory_scope_block`.
    Block,
    /// `memory_scope_device`.
    Device,
    /// `memory_scope_system`.
    System,
}

/// The scopes generated on GPU threads.
pub const SCOPES: &[Scope] = &[Scope::Thread, Scope::Warp, Scope::Block, Scope::Device, Scope::System];

impl Scope {
    /// The litmus spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Thread => "memory_scope_thread",
            Scope::Warp => "memory_scope_warp",
            Scope::Block => "memory_scope_block",
            Scope::Device => "memory_scope_device",
            Scope::System => "memory_scope_system",
        }
    }

    /// The next narrower scope, if any.
    pub fn narrower(self) -> Option<Scope> {
        match self {
            Scope::Thread => None,
            Scope::Warp => Some(Scope::Thread),
            Scope::Block => Some(Scope::Warp),
            Scope::Device => Some(Scope::Block),
            Scope::System => Some(Scope::Device),
        }
    }
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

impl Access {
    /// `, order[, scope][, class]` as the tail of an `_explicit` call.
    fn tail(&self) -> String {
        let mut s = format!(", {}", self.order.name());
        if let Some(sc) = self.scope {
            write!(s, ", {}", sc.name()).unwrap();
        }
        if let Some(c) = self.class {
            write!(s, ", {}", c.name()).unwrap();
        }
        s
    }
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

/// Small values: 0 is the initial value, so stores write 1 or 2.
fn small(u: &mut Unstructured) -> Result<i32> {
    u.int_in_range(1..=2)
}

/// A program-wide leaning of the orders, as in the litmus families'
/// variants (`-rlx`, `-relacq`, `-sc`): uniform choices alone rarely give
/// every access of a cycle the same strength (store buffering with four
/// seq_cst accesses, say), which is where models differ most.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Bias {
    Relaxed,
    RelAcq,
    SeqCst,
}

impl Bias {
    /// The order this leaning picks among `orders` (the valid ones).
    fn pick(self, orders: &[Order]) -> Option<Order> {
        let want: &[Order] = match self {
            Bias::Relaxed => &[Order::Relaxed],
            Bias::RelAcq => &[Order::AcqRel, Order::Acquire, Order::Release],
            Bias::SeqCst => &[Order::SeqCst],
        };
        // RMWs and fences take acq_rel; loads acquire; stores release.
        want.iter().copied().find(|o| orders.contains(o))
    }
}

/// The generator's state for one thread.
struct ThreadGen<'s> {
    shape: &'s Shape,
    bias: Option<Bias>,
    gpu: bool,
    regs: usize,
    published: Vec<usize>,
}

impl ThreadGen<'_> {
    fn reg(&mut self) -> usize {
        self.regs += 1;
        self.regs - 1
    }

    /// A register just loaded into: published (used) or not.
    fn loaded(&mut self, u: &mut Unstructured) -> Result<usize> {
        let r = self.reg();
        if self.shape.mode == Mode::Drfrlx && u.arbitrary::<bool>()? {
            self.published.push(r);
        }
        Ok(r)
    }

    fn access(&self, u: &mut Unstructured, orders: &[Order]) -> Result<Access> {
        match self.shape.mode {
            Mode::Drfrlx => Ok(if u.ratio(1, 3)? {
                Access {
                    order: Order::SeqCst,
                    scope: None,
                    class: None,
                }
            } else {
                Access {
                    order: Order::Relaxed,
                    scope: None,
                    class: Some(*u.choose(THEOREM_CLASSES)?),
                }
            }),
            Mode::General => {
                let leaning = match self.bias {
                    Some(b) if u.ratio(3, 4)? => b.pick(orders),
                    _ => None,
                };
                let order = match leaning {
                    Some(o) => o,
                    None => *u.choose(orders)?,
                };
                let scope = self.scope(u)?;
                let class = if order == Order::Relaxed && u.ratio(1, 4)? {
                    Some(*u.choose(ALL_CLASSES)?)
                } else {
                    None
                };
                Ok(Access { order, scope, class })
            }
        }
    }

    fn scope(&self, u: &mut Unstructured) -> Result<Option<Scope>> {
        Ok(if self.gpu && u.ratio(3, 4)? {
            Some(*u.choose(SCOPES)?)
        } else {
            None
        })
    }

    /// One statement; `top` allows a branch (when a register exists to test).
    fn step(&mut self, u: &mut Unstructured, left: &mut usize, top: bool) -> Result<Step> {
        if top && self.shape.branches && self.regs > 0 && u.ratio(1, 6)? {
            let reg = u.int_in_range(0..=self.regs - 1)?;
            let value = u.int_in_range(0..=2)?;
            let n = u.int_in_range(1..=(*left).min(2))?;
            let mut then = Vec::new();
            for _ in 0..n {
                then.push(self.step(u, left, false)?);
            }
            return Ok(Step::If { reg, value, then });
        }
        *left -= 1;
        if top && self.shape.waits && u.ratio(1, 12)? {
            return Ok(Step::Await {
                loc: u.int_in_range(0..=1)?,
                value: small(u)?,
                access: self.access(u, LOAD_ORDERS)?,
            });
        }
        if self.shape.plain_one_in > 0 && u.ratio(1, self.shape.plain_one_in)? {
            return Ok(if u.arbitrary::<bool>()? {
                Step::PlainLoad { reg: self.reg() }
            } else {
                Step::PlainStore { value: small(u)? }
            });
        }
        let loc = u.int_in_range(0..=1)?;
        self.access_step(u, loc, self.shape.fences_and_cas)
    }

    /// An atomic access to `loc` (or, with `extra`, possibly a
    /// compare-exchange or a fence).
    fn access_step(&mut self, u: &mut Unstructured, loc: usize, extra: bool) -> Result<Step> {
        let kinds = if extra { 7 } else { 5 };
        Ok(match u.int_in_range(0..=kinds - 1)? {
            0 | 1 => Step::Load {
                loc,
                access: self.access(u, LOAD_ORDERS)?,
                reg: self.loaded(u)?,
            },
            2 | 3 => Step::Store {
                loc,
                value: small(u)?,
                access: self.access(u, STORE_ORDERS)?,
            },
            4 if u.arbitrary::<bool>()? => Step::FetchAdd {
                loc,
                value: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                reg: self.loaded(u)?,
            },
            4 => Step::Exchange {
                loc,
                value: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                reg: self.loaded(u)?,
            },
            5 => Step::Cas {
                loc,
                expected: u.int_in_range(0..=2)?,
                desired: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                failure: *u.choose(CAS_FAILURE_ORDERS)?,
                reg: self.reg(),
                ok: self.reg(),
            },
            _ => Step::Fence {
                order: match self.bias.and_then(|b| b.pick(FENCE_ORDERS)) {
                    Some(o) if u.ratio(3, 4)? => o,
                    _ => *u.choose(FENCE_ORDERS)?,
                },
                scope: self.scope(u)?,
            },
        })
    }
}

impl Program {
    /// Generates a program of `shape` from the fuzzer's bytes. Running out of
    /// bytes gives a smaller program, never an error.
    pub fn generate(u: &mut Unstructured, shape: &Shape) -> Result<Program> {
        let n = u.int_in_range(2..=shape.max_threads.max(2))?;
        let gpu = shape.gpu && u.arbitrary::<bool>()?;
        let bias = *u.choose(&[None, Some(Bias::Relaxed), Some(Bias::RelAcq), Some(Bias::SeqCst)])?;
        let max_steps = if n == 2 { shape.max_steps_2 } else { shape.max_steps_3 };
        let mut threads = Vec::new();
        let cyclic = u.arbitrary::<bool>()?;
        for i in 0..n {
            let place = if gpu {
                Some((u.int_in_range(0..=1)?, u.int_in_range(0..=1)?))
            } else {
                None
            };
            let mut g = ThreadGen {
                shape,
                bias,
                gpu,
                regs: 0,
                published: Vec::new(),
            };
            let mut left = u.int_in_range(1..=max_steps.max(1))?;
            let mut steps = Vec::new();
            if cyclic && max_steps >= 2 {
                // Thread t goes from location t % 2 to the other one, as in
                // SB, MP, LB, 2+2W, S, R, WRC, IRIW: the critical cycles of
                // the classic litmus tests, where models differ.
                left = max_steps;
                let first = i % 2;
                steps.push(g.access_step(u, first, false)?);
                if shape.fences_and_cas && max_steps >= 3 && u.ratio(1, 3)? {
                    let order = match bias.and_then(|b| b.pick(FENCE_ORDERS)) {
                        Some(o) => o,
                        None => *u.choose(FENCE_ORDERS)?,
                    };
                    steps.push(Step::Fence {
                        order,
                        scope: g.scope(u)?,
                    });
                    left -= 1;
                }
                steps.push(g.access_step(u, 1 - first, false)?);
                left -= 2;
            }
            while left > 0 {
                steps.push(g.step(u, &mut left, true)?);
            }
            threads.push(Thread {
                place,
                steps,
                regs: g.regs,
                published: g.published,
            });
        }
        Ok(Program { threads })
    }

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
            let n = s.unwrap_or(Scope::System).narrower();
            changed = n.is_some();
            n.or(s)
        });
        changed.then_some(p)
    }

    /// The litmus test, named `name`.
    pub fn litmus(&self, name: &str) -> String {
        let mut s = format!("C {name}\n\n{{ [x] = 0; [y] = 0; [d] = 0;");
        let publishes = self.publishes();
        if publishes {
            for t in 0..self.threads.len() {
                write!(s, " [out{t}] = 0;").unwrap();
            }
        }
        s.push_str(" }\n\n");
        for (i, t) in self.threads.iter().enumerate() {
            write!(s, "P{i}").unwrap();
            if let Some((b, w)) = t.place {
                write!(s, "@block {b}, warp {w}, device 0").unwrap();
            }
            s.push_str(" (atomic_int* x, atomic_int* y, int* d");
            if publishes {
                write!(s, ", atomic_int* out{i}").unwrap();
            }
            s.push_str(") {\n");
            for r in 0..t.regs {
                writeln!(s, "  int r{r} = -1;").unwrap();
            }
            print_steps(&mut s, &t.steps, 1);
            if !t.published.is_empty() {
                let folded: Vec<String> = t.published.iter().map(|r| format!("r{r}")).collect();
                // Values are -1..=4 here; base 8 keeps most combinations apart.
                let mut expr = folded[0].clone();
                for r in &folded[1..] {
                    expr = format!("({expr}) * 8 + {r}");
                }
                writeln!(s, "  atomic_store_explicit(out{i}, {expr}, memory_order_seq_cst);").unwrap();
            }
            s.push_str("}\n\n");
        }
        if !publishes {
            // Observe every register and location (DRFrlx observes memory only).
            s.push_str("locations [");
            for (i, t) in self.threads.iter().enumerate() {
                for r in 0..t.regs {
                    write!(s, "{i}:r{r}; ").unwrap();
                }
            }
            s.push_str("x; y; d;]\n");
        }
        s
    }
}

const LOCS: [&str; 2] = ["x", "y"];

fn print_steps(s: &mut String, steps: &[Step], depth: usize) {
    let pad = "  ".repeat(depth);
    for st in steps {
        match st {
            Step::Load { loc, reg, access } => {
                writeln!(
                    s,
                    "{pad}r{reg} = atomic_load_explicit({}{});",
                    LOCS[*loc],
                    access.tail()
                )
            }
            Step::Store { loc, value, access } => {
                writeln!(
                    s,
                    "{pad}atomic_store_explicit({}, {value}{});",
                    LOCS[*loc],
                    access.tail()
                )
            }
            Step::FetchAdd {
                loc,
                value,
                reg,
                access,
            } => writeln!(
                s,
                "{pad}r{reg} = atomic_fetch_add_explicit({}, {value}{});",
                LOCS[*loc],
                access.tail()
            ),
            Step::Exchange {
                loc,
                value,
                reg,
                access,
            } => writeln!(
                s,
                "{pad}r{reg} = atomic_exchange_explicit({}, {value}{});",
                LOCS[*loc],
                access.tail()
            ),
            Step::Cas {
                loc,
                expected,
                desired,
                reg,
                ok,
                access,
                failure,
            } => {
                // The failure order goes between the success order and the scope.
                let mut tail = format!(", {}, {}", access.order.name(), failure.name());
                if let Some(sc) = access.scope {
                    write!(tail, ", {}", sc.name()).unwrap();
                }
                if let Some(c) = access.class {
                    write!(tail, ", {}", c.name()).unwrap();
                }
                writeln!(s, "{pad}r{reg} = {expected};").unwrap();
                writeln!(
                    s,
                    "{pad}r{ok} = atomic_compare_exchange_strong_explicit({}, &r{reg}, {desired}{tail});",
                    LOCS[*loc]
                )
            }
            Step::Fence { order, scope } => match scope {
                Some(sc) => writeln!(s, "{pad}atomic_thread_fence({}, {});", order.name(), sc.name()),
                None => writeln!(s, "{pad}atomic_thread_fence({});", order.name()),
            },
            Step::Await { loc, value, access } => writeln!(
                s,
                "{pad}while (atomic_load_explicit({}{}) != {value}) {{ }}",
                LOCS[*loc],
                access.tail()
            ),
            Step::PlainLoad { reg } => writeln!(s, "{pad}r{reg} = *d;"),
            Step::PlainStore { value } => writeln!(s, "{pad}*d = {value};"),
            Step::If { reg, value, then } => {
                writeln!(s, "{pad}if (r{reg} == {value}) {{").unwrap();
                print_steps(s, then, depth + 1);
                writeln!(s, "{pad}}}")
            }
        }
        .unwrap();
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.litmus("fuzz"))
    }
}

impl<'a> Arbitrary<'a> for Program {
    /// A program of the [`Shape::models`] shape.
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Program> {
        Program::generate(u, &Shape::models())
    }
}
