//! Running a parsed litmus test on the checker's runtime.
//!
//! There is no second engine here: each `PN` becomes a model thread of the
//! same runtime that runs Rust programs, every access is an `Op` handed to
//! the same engine, and the same explorer enumerates the executions. What
//! this module adds is an evaluator for the tests' little C language and the
//! bookkeeping herd does: the final state of each execution over the
//! variables the condition names, and whether the proposition holds there.
//!
//! Semantics, where herd leaves room:
//! - values are 64-bit signed integers (wrapping) or addresses of locations;
//!   a parameter `x` of `PN` holds the address of location `x`;
//! - `*p` and `p[i]` are plain (non-atomic) accesses, `atomic_*` calls are
//!   atomic whatever type the parameter was declared with;
//! - `atomic_compare_exchange_*(obj, exp, des, ...)` reads the expected value
//!   through `exp` (a register with `&r`, otherwise a plain read of `*exp`)
//!   and on failure writes the value it saw back there, as C says;
//! - `while` loops run at most `unroll` iterations; an execution that would
//!   need more is discarded, as herd's `-unroll` does;
//! - registers never assigned read as 0.

use super::ast::*;
use scopecheck_checker::event::{EventId, Loc, LocKind, Op, OpResult, Order, Placement, RmwOp, SourceLoc, ValueType};
use scopecheck_instrument::{drfrlx, rt, thread};
use std::collections::{BTreeMap, HashMap};

/// Width and signedness of every litmus value: C's `int`, widened to 64 bits.
pub const LITMUS_TYPE: ValueType = ValueType { bits: 64, signed: true };

/// Tag marking an address stored in memory (`*p = x`): the high bits of the
/// 64-bit word, with the location's index and element offset below. Integers
/// of this exact shape written by a test would be read back as addresses.
const ADDR_TAG: u64 = 0x5c0c_0000_0000_0000;
const ADDR_TAG_MASK: u64 = 0xffff_0000_0000_0000;

/// A run-time value of the test's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Int(i64),
    /// Element `offset` of the location (or array) numbered `base`.
    Addr {
        base: u32,
        offset: i64,
    },
}

/// Where each named location of the test lives in the engine.
#[derive(Debug)]
pub struct Layout {
    /// Location names in a fixed order (sorted), with their element count.
    pub names: Vec<(String, u32)>,
    /// Initial value of each element.
    inits: Vec<Vec<Val>>,
    index: HashMap<String, u32>,
}

impl Layout {
    /// The initial value of element `elem` of the `base`-th location, as the
    /// engine stores it.
    pub(super) fn init_word(&self, base: usize, elem: usize) -> u64 {
        encode(self.inits[base][elem])
    }

    /// The index of location `name` in [`Layout::names`].
    pub(super) fn index_of(&self, name: &str) -> u32 {
        self.index[name]
    }

    /// Collects every location the test names (init block, parameters,
    /// condition) with its initial values.
    pub fn of(test: &Test) -> Result<Layout, (Pos, String)> {
        // Nothing below allocates more than the limit allows.
        super::limits::element_count(test)?;
        let mut sizes: BTreeMap<String, u32> = BTreeMap::new();
        // Where each array was first declared: a second declaration with
        // another length would leave the first one's elements without room.
        let mut arrays: HashMap<&str, (u32, Pos)> = HashMap::new();
        for i in &test.init {
            match &i.target {
                InitTarget::Loc(n) => {
                    sizes.entry(n.clone()).or_insert(1);
                }
                InitTarget::Array { name, len } => {
                    if *len == 0 {
                        return Err((i.pos, format!("array `{name}` has length 0")));
                    }
                    match arrays.get(name.as_str()) {
                        Some(&(first, at)) if first != *len => {
                            return Err((
                                i.pos,
                                format!(
                                    "array `{name}` is declared again with length {len}; its declaration at {at} has length {first}"
                                ),
                            ));
                        }
                        Some(_) => {}
                        None => {
                            arrays.insert(name, (*len, i.pos));
                        }
                    }
                    sizes.insert(name.clone(), *len);
                }
                InitTarget::Reg { .. } => {}
            }
        }
        for t in &test.threads {
            for p in &t.params {
                sizes.entry(p.name.clone()).or_insert(1);
            }
        }
        let cond_vars = test
            .condition
            .iter()
            .flat_map(condition_vars)
            .chain(test.locations.iter().cloned());
        for v in cond_vars {
            if let StateVar::Loc { name, .. } = v {
                sizes.entry(name).or_insert(1);
            }
        }
        let names: Vec<(String, u32)> = sizes.into_iter().collect();
        let index: HashMap<String, u32> = names
            .iter()
            .enumerate()
            .map(|(k, (n, _))| (n.clone(), k as u32))
            .collect();
        let mut inits: Vec<Vec<Val>> = names.iter().map(|(_, n)| vec![Val::Int(0); *n as usize]).collect();
        for i in &test.init {
            let addr = |name: &str| -> Result<Val, (Pos, String)> {
                match index.get(name) {
                    Some(&base) => Ok(Val::Addr { base, offset: 0 }),
                    None => Err((i.pos, format!("`{name}` is not a location of this test"))),
                }
            };
            match (&i.target, &i.value) {
                (InitTarget::Loc(n), InitValue::Int(v)) => inits[index[n] as usize][0] = Val::Int(*v),
                (InitTarget::Loc(n), InitValue::Addr(a)) => inits[index[n] as usize][0] = addr(a)?,
                (InitTarget::Array { name, len }, InitValue::List(vs)) => {
                    if vs.len() > *len as usize {
                        return Err((i.pos, format!("{} values for `{name}[{len}]`", vs.len())));
                    }
                    for (k, v) in vs.iter().enumerate() {
                        inits[index[name] as usize][k] = Val::Int(*v);
                    }
                }
                (InitTarget::Array { name, len }, InitValue::Int(v)) => {
                    inits[index[name] as usize] = vec![Val::Int(*v); *len as usize];
                }
                (InitTarget::Loc(n), InitValue::List(_)) => {
                    return Err((i.pos, format!("`{n}` is not an array but is given a list of values")));
                }
                (InitTarget::Array { name, .. }, InitValue::Addr(_)) => {
                    return Err((i.pos, format!("array `{name}` is given an address")));
                }
                (InitTarget::Reg { .. }, _) => {}
            }
        }
        Ok(Layout { names, inits, index })
    }

    /// The address of `name`, if it is a location.
    fn addr(&self, name: &str) -> Option<Val> {
        self.index.get(name).map(|&base| Val::Addr { base, offset: 0 })
    }

    /// The name of element `offset` of location `base`, as herd prints it.
    fn describe(&self, base: u32, offset: i64) -> Value {
        Value::Addr {
            name: self.names[base as usize].0.clone(),
            index: offset as u32,
        }
    }
}

/// Every state variable a condition mentions: its filter's (herd's
/// `filter P`, which the final state must hold to be judged), then its
/// proposition's.
pub fn condition_vars(c: &Condition) -> Vec<StateVar> {
    let mut out = c.filter.as_ref().map(prop_vars).unwrap_or_default();
    out.extend(prop_vars(&c.prop));
    out
}

/// Every state variable a proposition mentions.
pub fn prop_vars(p: &Prop) -> Vec<StateVar> {
    let mut out = Vec::new();
    fn go(p: &Prop, out: &mut Vec<StateVar>) {
        match p {
            Prop::True | Prop::False => {}
            Prop::Eq(v, _) | Prop::Ne(v, _) => out.push(v.clone()),
            Prop::Same(a, b) => {
                out.push(a.clone());
                out.push(b.clone());
            }
            Prop::Not(a) => go(a, out),
            Prop::And(all) | Prop::Or(all) => {
                for a in all {
                    go(a, out);
                }
            }
        }
    }
    go(p, &mut out);
    out
}

/// Evaluates a proposition on a final state.
pub fn holds(p: &Prop, state: &BTreeMap<StateVar, Value>) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(v, x) => state.get(v) == Some(x),
        Prop::Ne(v, x) => state.get(v) != Some(x),
        Prop::Same(a, b) => state.get(a) == state.get(b),
        Prop::Not(a) => !holds(a, state),
        Prop::And(all) => all.iter().all(|a| holds(a, state)),
        Prop::Or(all) => all.iter().any(|a| holds(a, state)),
    }
}

/// What the interpreter needs besides the test.
pub struct Program<'a> {
    /// The test.
    pub test: &'a Test,
    /// Its locations.
    pub layout: &'a Layout,
    /// The file name events are attributed to.
    pub file: &'static str,
    /// Iterations a `while` loop may take before the execution is discarded.
    pub unroll: u32,
    /// Threads that gave up their execution at the unroll bound, over the
    /// whole run (to say why a run where no execution completed has no answer).
    pub discarded: std::sync::atomic::AtomicU64,
    /// The variables of the final state, in herd's order.
    pub observed: &'a [StateVar],
    /// The scope of atomics and fences written without one: system for C
    /// tests, device for OpenCL tests (OpenCL's default).
    pub default_scope: Scope,
    /// The order of the reads of the final state (after every thread is
    /// joined, so any order reads the last value): relaxed for model runs;
    /// seq_cst for DRFrlx runs, where a relaxed read would be an
    /// unclassified atomic of the test's own.
    pub final_order: Order,
    /// Run for the `opencl` model (on the engine's `porf` base): a barrier
    /// is an entry and an exit fence that wait for nobody (the model matches
    /// them by label), and a location's final value is its co-last write,
    /// taken from the graph (a final load could read any write under `porf`).
    pub opencl: bool,
    /// The po ∪ rf-cyclic enumerator's promised values (`cyclic.rs`): per
    /// location (by layout index and element), values a thread spawned after
    /// the test's threads stores, relaxed, so that any read may read them.
    /// Empty for every other run.
    pub ghost: Vec<(u32, u32, Vec<u64>)>,
    /// Work-group barriers and local memory on the engine's models
    /// (`workgroups.rs`); `None` for a test without either, or under `opencl`.
    pub groups: Option<&'a super::workgroups::WorkGroups>,
    /// The checker's cross-checks of its own shortcuts the run asked for
    /// (read by the po ∪ rf-cyclic enumeration, `cyclic.rs`).
    pub cross_checks: super::run::CrossChecks,
    /// Set for a thread's runs alone with the promising thread
    /// (`gpu_split.rs`): its RMWs run as a load and a store, logged here
    /// to be joined into RMWs after the run (`split_rmw.rs`).
    pub split_rmws: Option<super::split_rmw::Log>,
    /// Set for a thread's runs alone with the promising thread
    /// (`gpu_split.rs`): the prefixes of the runs a loop discards at the
    /// unroll bound, for the domains' growth (`cut_ways.rs`).
    pub cut_ways: Option<super::cut_ways::Log>,
    /// Set while the po ∪ rf-cyclic enumerator runs a C test under C11: a
    /// test thread's read of an initial or own write that the thread's
    /// earlier accesses to the location hide gives the execution up at
    /// once (`own_coherence.rs`: no consistent execution has one).
    pub own_coherence: bool,
}

/// Where thread `t` of the test runs: a host thread without a placement; a
/// GPU thread with one, on device 0 unless it says otherwise, and alone in
/// its block and warp for levels it leaves out (so narrower scopes hold only
/// itself).
pub fn placement_of(t: &Thread) -> Placement {
    if t.placement.is_empty() {
        return Placement::HOST;
    }
    let level = |l: Level| t.placement.iter().find(|(x, _)| *x == l).map(|(_, v)| *v);
    // Distinct threads have distinct indices, so `t.index` makes a group of one.
    let alone = 1000u32.wrapping_add(t.index);
    Placement::gpu(
        level(Level::Device).unwrap_or(0),
        level(Level::Block).unwrap_or(alone),
        level(Level::Warp).unwrap_or(alone),
        t.index,
    )
}

/// What one execution ended with: the final state over the observed variables.
pub type FinalState = BTreeMap<StateVar, Value>;

impl Program<'_> {
    /// Runs one execution of the test inside the model: allocates the
    /// locations, runs every thread, joins them, and reads the final state.
    pub fn execute(&self) -> FinalState {
        let here = SourceLoc {
            file: self.file,
            line: 1,
            column: 1,
        };
        let mut locs: Vec<Vec<Loc>> = Vec::new();
        for (k, (_, n)) in self.layout.names.iter().enumerate() {
            let mut elems = Vec::new();
            for e in 0..*n as usize {
                let init = encode(self.layout.inits[k][e]);
                let local = self.groups.is_some_and(|g| g.is_local(k));
                elems.push(alloc(init, LocKind::Atomic, local, here));
            }
            locs.push(elems);
        }
        // A location naming this run's work-groups, as a launch names its kernel.
        let kernel = self.groups.map(|_| alloc(0, LocKind::Cell, false, here));
        let locs = &locs;
        let regs: Vec<(u32, HashMap<String, Val>)> = thread::scope(|s| {
            let handles: Vec<_> = self
                .test
                .threads
                .iter()
                .map(|t| {
                    (
                        t.index,
                        s.spawn_at(placement_of(t), move || {
                            let mut th = ThreadRun {
                                prog: self,
                                index: t.index,
                                kernel,
                                locs,
                                regs: HashMap::new(),
                                unused_reads: HashMap::new(),
                            };
                            th.start(t);
                            th.block(&t.body);
                            th.regs
                        }),
                    )
                })
                .collect();
            // Spawned last, so the test's threads keep their engine ids
            // (1..) and the main thread's prefix before this spawn holds
            // every other thread's start.
            // Under C11 the promising thread is spawned even with nothing
            // to store (every location private: cyclic/private.rs): the
            // enumeration finds the test's threads by its spawn.
            let ghost = (!self.ghost.is_empty() || self.own_coherence).then(|| {
                s.spawn(move || {
                    for (base, elem, values) in &self.ghost {
                        for &v in values {
                            store(
                                locs[*base as usize][*elem as usize],
                                Order::Relaxed,
                                v,
                                Scope::System,
                                here,
                            );
                        }
                    }
                })
            });
            if let Some(h) = ghost {
                // A panic here is the engine's to report.
                let _ = h.join();
            }
            handles
                .into_iter()
                .map(|(i, h)| match h.join() {
                    Ok(r) => (i, r),
                    // The runtime reports the thread's panic as the failure.
                    Err(_) => (i, HashMap::new()),
                })
                .collect()
        });
        let mut state = FinalState::new();
        // Local memory is not the host's to read: its final value is its
        // last write, as the declarative models read every location.
        let graph = (self.opencl || self.groups.is_some()).then(rt::current_graph);
        for v in self.observed {
            let val = match v {
                StateVar::Reg { thread, reg } => regs
                    .iter()
                    .find(|(i, _)| i == thread)
                    .and_then(|(_, r)| r.get(reg).copied())
                    .unwrap_or(Val::Int(0)),
                StateVar::Loc { name, index } => {
                    let base = self.layout.index[name];
                    let from_graph = self.opencl || self.groups.is_some_and(|g| g.is_local(base as usize));
                    match locs[base as usize].get(*index as usize) {
                        Some(&loc) => match graph.as_ref().filter(|_| from_graph) {
                            Some(g) => decode(g.write_value(loc, g.mo_max(loc))),
                            None => decode(load(loc, self.final_order, Scope::System, here)),
                        },
                        None => Val::Int(0),
                    }
                }
            };
            state.insert(v.clone(), self.show(val));
        }
        state
    }

    /// A value as the engine stores it, as a final-state value.
    pub(super) fn show_word(&self, w: u64) -> Value {
        self.show(decode(w))
    }

    fn show(&self, v: Val) -> Value {
        match v {
            Val::Int(i) => Value::Int(i),
            Val::Addr { base, offset } => self.layout.describe(base, offset),
        }
    }
}

fn encode(v: Val) -> u64 {
    match v {
        Val::Int(i) => i as u64,
        Val::Addr { base, offset } => ADDR_TAG | ((base as u64) << 24) | (offset as u64 & 0xff_ffff),
    }
}

fn decode(w: u64) -> Val {
    if w & ADDR_TAG_MASK == ADDR_TAG {
        Val::Addr {
            base: ((w >> 24) & 0xff_ffff) as u32,
            offset: (w & 0xff_ffff) as i64,
        }
    } else {
        Val::Int(w as i64)
    }
}

/// Allocates a location holding `init` (`local`: in local memory).
fn alloc(init: u64, kind: LocKind, local: bool, here: SourceLoc) -> Loc {
    let space = if local {
        scopecheck_checker::event::Space::Local
    } else {
        scopecheck_checker::event::Space::Global
    };
    match rt::op_at(
        Op::Alloc {
            init,
            kind,
            space,
            addresses: false,
        },
        here,
    ) {
        OpResult::Loc(l) => l,
        r => panic!("scopecheck internal error: alloc answered {r:?}"),
    }
}

fn load(loc: Loc, order: Order, scope: Scope, src: SourceLoc) -> u64 {
    load_classed(loc, order, scope, None, src).0
}

/// A load whose event takes the DRFrlx class `class`: the value and the
/// read event it came from.
fn load_classed(
    loc: Loc,
    order: Order,
    scope: Scope,
    class: Option<drfrlx::Class>,
    src: SourceLoc,
) -> (u64, Option<EventId>) {
    let a = rt::perform_at(
        Op::Load {
            loc,
            order,
            scope,
            class,
        },
        src,
    );
    match a.result {
        OpResult::Value(v) => (v, a.read),
        r => panic!("scopecheck internal error: load answered {r:?}"),
    }
}

fn store(loc: Loc, order: Order, value: u64, scope: Scope, src: SourceLoc) {
    store_classed(loc, order, value, scope, None, src)
}

/// A store whose event takes the DRFrlx class `class`.
fn store_classed(loc: Loc, order: Order, value: u64, scope: Scope, class: Option<drfrlx::Class>, src: SourceLoc) {
    rt::op_at(
        Op::Store {
            loc,
            order,
            value,
            scope,
            class,
        },
        src,
    );
}

/// One thread's run: its registers and access to the shared layout.
struct ThreadRun<'p, 'a> {
    prog: &'p Program<'a>,
    /// The `N` of its `PN`.
    index: u32,
    /// The location naming the run's work-groups (with `prog.groups`).
    kernel: Option<Loc>,
    locs: &'p [Vec<Loc>],
    regs: HashMap<String, Val>,
    /// Registers holding the value of an atomic read that no instruction
    /// has used yet, with that read (DRFrlx observability: the first use of
    /// the register is an observation of the read).
    unused_reads: HashMap<String, EventId>,
}

/// Stops the thread with an error of the test's program (the runtime
/// reports it as a failure at the litmus line).
macro_rules! test_error {
    ($self:ident, $pos:expr, $($arg:tt)*) => {
        panic!("{}:{}: {}", $self.prog.file, $pos, format!($($arg)*))
    };
}

impl ThreadRun<'_, '_> {
    fn src(&self, p: Pos) -> SourceLoc {
        SourceLoc {
            file: self.prog.file,
            line: p.line,
            column: p.col,
        }
    }

    /// Parameters hold their location's address; init-block registers their value.
    fn start(&mut self, t: &Thread) {
        for p in &t.params {
            if let Some(a) = self.prog.layout.addr(&p.name) {
                self.regs.insert(p.name.clone(), a);
            }
        }
        for i in &self.prog.test.init {
            if let InitTarget::Reg { thread, reg } = &i.target {
                if *thread == t.index {
                    let v = match &i.value {
                        InitValue::Int(v) => Val::Int(*v),
                        InitValue::Addr(a) => self.prog.layout.addr(a).unwrap_or(Val::Int(0)),
                        InitValue::List(_) => Val::Int(0),
                    };
                    self.regs.insert(reg.clone(), v);
                }
            }
        }
    }

    fn block(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Decl { name, init, .. } => {
                let v = match init {
                    Some(e) => self.assigned(name, e),
                    None => {
                        self.unused_reads.remove(name);
                        Val::Int(0)
                    }
                };
                self.regs.insert(name.clone(), v);
            }
            StmtKind::AssignReg { name, value } => {
                let v = self.assigned(name, value);
                self.regs.insert(name.clone(), v);
            }
            StmtKind::Store { addr, value } => {
                let loc = self.loc_of(addr);
                let v = self.expr(value);
                store(loc, Order::NonAtomic, encode(v), Scope::Thread, self.src(s.pos));
            }
            // A call whose value nothing takes (`atomic_fetch_add(x, 1);`)
            // does not observe what it read.
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Atomic(call) => {
                    self.atomic(call, e.pos);
                }
                _ => {
                    self.expr(e);
                }
            },
            StmtKind::If { cond, then, els } => {
                // An `else if` chain is walked in a loop: model threads'
                // stacks then hold only the test's real nesting.
                let (mut cond, mut then, mut els) = (cond, then, els);
                loop {
                    if self.truth(cond) {
                        self.block(then);
                        break;
                    }
                    match &els[..] {
                        [Stmt {
                            kind:
                                StmtKind::If {
                                    cond: c,
                                    then: t,
                                    els: e,
                                },
                            ..
                        }] => (cond, then, els) = (c, t, e),
                        _ => {
                            self.block(els);
                            break;
                        }
                    }
                }
            }
            StmtKind::While { cond, body } => {
                let mut k = 0;
                while self.truth(cond) {
                    if k == self.prog.unroll {
                        if rt::execution_counts() {
                            self.prog.discarded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        if let Some(log) = &self.prog.cut_ways {
                            let t = self.prog.test.threads.iter().position(|t| t.index == self.index);
                            super::cut_ways::record(log, t.map_or(0, |t| t as u32 + 1));
                        }
                        rt::discard();
                    }
                    // An iteration whose condition and body touch no memory
                    // takes no engine step: this one lets the run's
                    // deadline stop a `while (1) {}` under a large unroll.
                    rt::tick(self.src(s.pos));
                    self.block(body);
                    k += 1;
                }
            }
            StmtKind::Fence { order: o, scope, .. } => {
                // A relaxed fence does nothing in C11 (and the engine, like
                // std, has no relaxed fence).
                if *o != Order::Relaxed {
                    let scope = scope.unwrap_or(self.prog.default_scope);
                    rt::op_at(Op::Fence { order: *o, scope }, self.src(s.pos));
                }
            }
            StmtKind::Barrier { .. } if self.prog.opencl => {
                // Entry and exit: the model makes every region-r event before
                // one member's entry happen before every region-r event after
                // another member's exit (docs/opencl-model.md 3.4).
                for _ in 0..2 {
                    rt::op_at(
                        Op::Fence {
                            order: Order::Relaxed,
                            scope: Scope::Block,
                        },
                        self.src(s.pos),
                    );
                }
            }
            StmtKind::Barrier { label, flags, .. } if self.prog.groups.is_some() => {
                let groups = self.prog.groups.expect("checked by the guard");
                let kernel = self.kernel.expect("allocated with the groups");
                let (op, at) = groups.barrier(kernel, self.index, label, flags, self.prog.file);
                rt::op_at(op, at);
            }
            StmtKind::Barrier { .. } => {
                test_error!(
                    self,
                    s.pos,
                    "barriers are not supported by this model (the interpreter should have refused the test)"
                )
            }
            StmtKind::Block(b) => self.block(b),
        }
    }
}

// After `test_error!`, which the evaluator uses.
mod eval;
