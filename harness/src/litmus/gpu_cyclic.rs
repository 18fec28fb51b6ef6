//! The syntactic dependencies of a PTX or Vulkan execution (`addr`, `data`
//! and `ctrl` of the cat files), for PTX's `axiom-NoThinAir`
//! (`acyclic (rf | dep)`), which the po ∪ rf-cyclic enumeration
//! (`cyclic.rs`) must check: the explorers never build an execution it
//! could reject.
//!
//! The dependencies are Dat3M's, over the instructions the thread ran:
//! - `data`: a read to a write whose value was computed, through register
//!   arithmetic, from the value the read returned (an RMW's write depends on
//!   its operands, and a compare-and-swap's on its expected and new values);
//! - `addr`: the same, to an access whose address was so computed;
//! - `ctrl`: a read to every access po-after a conditional branch whose
//!   condition was so computed (Dat3M's `ctrlDirect` relates a jump to
//!   every event after it, on either path).
//!
//! An RMW's own read and write are related by `rmw`, not by a dependency.
//! The walk follows the path the execution took: it replays the thread's
//! statements (the branches are unrolled into `if` trees by
//! `gpu::expand`), taking each read's value from the graph.

use super::ast::{AtomicOp, Expr, ExprKind, InitTarget, InitValue, Stmt, StmtKind, Test, UnOp};
use super::gpu::Dialect;
use super::gpu_model::{self, GpuModel};
use scopecheck_checker::event::{EventId, EventKind, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::model::gpu::GpuEnv;
use std::collections::{BTreeSet, HashMap};

/// The reads a register's value was computed from.
type Taint = BTreeSet<EventId>;

/// One thread's replay.
struct Walk<'g> {
    g: &'g ExecutionGraph,
    /// The thread's reads and writes, in po, with where the next one is.
    accesses: Vec<EventId>,
    next: usize,
    regs: HashMap<String, (i64, Taint)>,
    /// Reads every later access is control-dependent on.
    ctrl: Taint,
    /// (read, access) pairs.
    deps: Vec<(EventId, EventId)>,
}

/// The dependency edges (read, dependent access) of the test's threads
/// (engine threads 1..=n) in `g`, or why the walk could not follow the
/// execution (a fault of the checker, not of the test).
pub fn of(test: &Test, g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, String> {
    let mut out = Vec::new();
    for (k, t) in test.threads.iter().enumerate() {
        let thread = k as ThreadId + 1;
        let accesses = g
            .thread_events(thread)
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, EventKind::Read(_) | EventKind::Write(_)))
            .map(|(i, _)| EventId::new(thread, i as u32))
            .collect();
        let mut regs = HashMap::new();
        for i in &test.init {
            if let (InitTarget::Reg { thread: p, reg }, InitValue::Int(v)) = (&i.target, &i.value) {
                if *p == t.index {
                    regs.insert(reg.clone(), (*v, Taint::new()));
                }
            }
        }
        let mut w = Walk {
            g,
            accesses,
            next: 0,
            regs,
            ctrl: Taint::new(),
            deps: Vec::new(),
        };
        w.block(&t.body)?;
        if w.next != w.accesses.len() {
            return Err(format!(
                "P{}: the replay of the thread's instructions stopped after {} of its {} accesses",
                t.index,
                w.next,
                w.accesses.len()
            ));
        }
        out.extend(w.deps);
    }
    Ok(out)
}

/// Whether `rf ∪ deps` is acyclic in `g` (PTX's `axiom-NoThinAir`).
pub fn no_thin_air(g: &ExecutionGraph, deps: &[(EventId, EventId)]) -> bool {
    let mut succ: HashMap<EventId, Vec<EventId>> = HashMap::new();
    for &(a, b) in deps {
        succ.entry(a).or_default().push(b);
    }
    for (id, e) in g.events() {
        if let EventKind::Read(r) = &e.kind {
            if r.rf != EventId::INIT {
                succ.entry(r.rf).or_default().push(id);
            }
        }
    }
    // Depth-first search with colours: 1 on the stack, 2 done.
    let mut colour: HashMap<EventId, u8> = HashMap::new();
    let nodes: Vec<EventId> = succ.keys().copied().collect();
    for start in nodes {
        if colour.contains_key(&start) {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour.insert(start, 1);
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            let next = succ.get(&v).and_then(|s| s.get(*i)).copied();
            *i += 1;
            match next {
                Some(u) => match colour.get(&u) {
                    Some(1) => return false,
                    Some(_) => {}
                    None => {
                        colour.insert(u, 1);
                        stack.push((u, 0));
                    }
                },
                None => {
                    colour.insert(v, 2);
                    stack.pop();
                }
            }
        }
    }
    true
}

impl Walk<'_> {
    fn block(&mut self, body: &[Stmt]) -> Result<(), String> {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        match &s.kind {
            StmtKind::Decl { name, init, .. } => {
                let v = match init {
                    Some(e) => self.assigned(e)?,
                    None => (0, Taint::new()),
                };
                self.regs.insert(name.clone(), v);
            }
            StmtKind::AssignReg { name, value } => {
                let v = self.assigned(value)?;
                self.regs.insert(name.clone(), v);
            }
            StmtKind::Store { addr, value } => {
                let (_, a) = self.eval(addr)?;
                let (_, d) = self.eval(value)?;
                let w = self.access(s)?;
                self.depend(&a, w);
                self.depend(&d, w);
            }
            StmtKind::Expr(e) => {
                self.assigned(e)?;
            }
            StmtKind::If { cond, then, els } => {
                let (v, t) = self.eval(cond)?;
                self.ctrl.extend(t);
                self.block(if v != 0 { then } else { els })?;
            }
            // The unroll bound's `while (1) {}`: such an execution is
            // discarded and never judged.
            StmtKind::While { .. } => return Err("the replay reached a discarded path".into()),
            StmtKind::Block(b) => self.block(b)?,
            // Fences and barriers read no register (a barrier's register
            // id is a hidden store, a `Store` above).
            _ => {}
        }
        Ok(())
    }

    /// The next access of the thread, which statement `s` (or its
    /// expression) made; it is control-dependent on every read in `ctrl`.
    fn access_at(&mut self, pos: super::ast::Pos) -> Result<EventId, String> {
        let Some(&id) = self.accesses.get(self.next) else {
            return Err(format!(
                "the replay expected an access at {pos}, but the thread made no more"
            ));
        };
        let src = self.g.event(id).src;
        if (src.line, src.column) != (pos.line, pos.col) {
            return Err(format!(
                "the replay expected an access at {pos}, but the thread's next one is at {}:{}",
                src.line, src.column
            ));
        }
        self.next += 1;
        let ctrl: Vec<EventId> = self.ctrl.iter().copied().collect();
        for r in ctrl {
            self.deps.push((r, id));
        }
        Ok(id)
    }

    fn access(&mut self, s: &Stmt) -> Result<EventId, String> {
        self.access_at(s.pos)
    }

    fn depend(&mut self, from: &Taint, to: EventId) {
        self.deps.extend(from.iter().map(|&r| (r, to)));
    }

    /// The value of a read the thread just made, as the interpreter decodes an integer.
    fn read_value(&self, id: EventId) -> Result<i64, String> {
        match &self.g.event(id).kind {
            EventKind::Read(r) => Ok(r.value as i64),
            _ => Err(format!("the replay expected a read at event {}", id.index)),
        }
    }

    /// The value and taint a register gets from `e` (an atomic call makes
    /// its accesses here).
    fn assigned(&mut self, e: &Expr) -> Result<(i64, Taint), String> {
        match &e.kind {
            ExprKind::Atomic(c) => {
                let (_, a) = self.eval(&c.addr)?;
                match c.op {
                    AtomicOp::Load => {
                        let r = self.access_at(e.pos)?;
                        self.depend(&a, r);
                        Ok((self.read_value(r)?, Taint::from([r])))
                    }
                    AtomicOp::Store => {
                        let (_, d) = self.eval(&c.args[0])?;
                        let w = self.access_at(e.pos)?;
                        self.depend(&a, w);
                        self.depend(&d, w);
                        Ok((0, Taint::new()))
                    }
                    op => {
                        // An RMW: its read, and its write when it wrote.
                        let mut operands = Taint::new();
                        let mut expected_reg = None;
                        for arg in &c.args {
                            match &arg.kind {
                                ExprKind::AddrOf(reg) if matches!(op, AtomicOp::CasStrong | AtomicOp::CasWeak) => {
                                    let (_, t) = self.regs.get(reg).cloned().unwrap_or_default();
                                    operands.extend(t);
                                    expected_reg = Some(reg.clone());
                                }
                                _ => operands.extend(self.eval(arg)?.1),
                            }
                        }
                        let r = self.access_at(e.pos)?;
                        self.depend(&a, r);
                        let value = self.read_value(r)?;
                        let wrote = match &self.g.event(r).kind {
                            EventKind::Read(rd) => rd.is_exclusive(),
                            _ => false,
                        };
                        if wrote {
                            let w = self.access_at(e.pos)?;
                            self.depend(&a, w);
                            self.depend(&operands, w);
                        }
                        // A compare-and-swap leaves the value read in its
                        // register (on success it equalled it already).
                        if let Some(reg) = expected_reg {
                            self.regs.insert(reg, (value, Taint::from([r])));
                            return Ok((wrote as i64, Taint::from([r])));
                        }
                        Ok((value, Taint::from([r])))
                    }
                }
            }
            ExprKind::Deref(a) => {
                let (_, t) = self.eval(a)?;
                let r = self.access_at(e.pos)?;
                self.depend(&t, r);
                Ok((self.read_value(r)?, Taint::from([r])))
            }
            _ => self.eval(e),
        }
    }

    /// The value and taint of a register expression (no memory access).
    fn eval(&mut self, e: &Expr) -> Result<(i64, Taint), String> {
        use super::ast::BinOp;
        Ok(match &e.kind {
            ExprKind::Int(i) => (*i, Taint::new()),
            // A register, or a location's name as an address (no taint).
            ExprKind::Var(n) => self.regs.get(n).cloned().unwrap_or_default(),
            ExprKind::AddrOf(_) => (0, Taint::new()),
            ExprKind::Unary(op, a) => {
                let (v, t) = self.eval(a)?;
                let v = match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => (v == 0) as i64,
                    UnOp::BitNot => !v,
                };
                (v, t)
            }
            ExprKind::Binary(first, rest) => {
                let (mut x, mut t) = self.eval(first)?;
                for (op, b) in rest {
                    let (y, u) = self.eval(b)?;
                    t.extend(u);
                    x = match op {
                        BinOp::Add => x.wrapping_add(y),
                        BinOp::Sub => x.wrapping_sub(y),
                        BinOp::Mul => x.wrapping_mul(y),
                        BinOp::Div if y == 0 => return Err(format!("division by zero at {}", e.pos)),
                        BinOp::Div => x.wrapping_div(y),
                        BinOp::BitAnd => x & y,
                        BinOp::BitOr => x | y,
                        BinOp::BitXor => x ^ y,
                        BinOp::Eq => (x == y) as i64,
                        BinOp::Ne => (x != y) as i64,
                        BinOp::Lt => (x < y) as i64,
                        BinOp::Le => (x <= y) as i64,
                        BinOp::Gt => (x > y) as i64,
                        BinOp::Ge => (x >= y) as i64,
                        BinOp::And => (x != 0 && y != 0) as i64,
                        BinOp::Or => (x != 0 || y != 0) as i64,
                        other => return Err(format!("the replay cannot evaluate `{other:?}` at {}", e.pos)),
                    };
                }
                (x, t)
            }
            other => return Err(format!("the replay cannot evaluate {other:?} at {}", e.pos)),
        })
    }
}

/// The PTX and Vulkan models as the po ∪ rf-cyclic enumeration judges
/// them: the model's axioms, and for PTX `axiom-NoThinAir` over the
/// dependencies of the execution being validated.
pub struct GpuJudge<'a> {
    model: GpuModel,
    env: &'a GpuEnv,
    deps: Option<Vec<(EventId, EventId)>>,
}

impl<'a> GpuJudge<'a> {
    /// The judge of the executions with `base`'s events and values.
    pub fn new(model: GpuModel, env: &'a GpuEnv, test: &Test, base: &ExecutionGraph) -> Result<Self, String> {
        let deps = match model.dialect() {
            Dialect::Ptx => {
                Some(of(test, base).map_err(|why| format!("internal error of the checker (not of the test): {why}"))?)
            }
            // vulkan.cat has no no-thin-air axiom.
            Dialect::Vulkan => None,
        };
        Ok(GpuJudge { model, env, deps })
    }

    /// `Ok` with the racing pairs when `g` is consistent.
    pub fn judge(&self, g: &ExecutionGraph) -> Result<Vec<(EventId, EventId)>, String> {
        if let Some(deps) = &self.deps {
            if !no_thin_air(g, deps) {
                return Err("NoThinAir".into());
            }
        }
        gpu_model::judge(self.model, self.env, g)
    }
}

/// What a GPU test's instructions can write to one location: the values
/// its literal stores write, or any value when some write computes its
/// value (from a register or an RMW's arithmetic).
#[derive(Debug, Default)]
pub struct Writable {
    /// Whether some instruction reads the location.
    pub read: bool,
    /// Literal values stored.
    pub literals: BTreeSet<u64>,
    /// Whether some write's value is computed.
    pub computed: bool,
}

/// The key under which [`writable`] records an access whose address is not
/// a location's name: with it present, every location may hold any value.
pub const DYNAMIC: &str = "*";

/// Per location name, what the test's threads can write there (GPU
/// dialects name every location statically). A promised value that no
/// write of its location can write never validates, so the enumeration
/// need not promise it; a location nobody reads needs no promise at all.
pub fn writable(test: &Test) -> HashMap<String, Writable> {
    fn addr_name(e: &Expr) -> Option<&str> {
        match &e.kind {
            ExprKind::AddrOf(n) => Some(n),
            _ => None,
        }
    }
    // An address that is not a location's name (none in the GPU dialects
    // today) is recorded under DYNAMIC, which turns the pruning off.
    fn entry<'m>(out: &'m mut HashMap<String, Writable>, addr: &Expr) -> Option<&'m mut Writable> {
        Some(out.entry(addr_name(addr).unwrap_or(DYNAMIC).to_string()).or_default())
    }
    fn expr(e: &Expr, out: &mut HashMap<String, Writable>) {
        match &e.kind {
            ExprKind::Deref(a) => {
                if let Some(w) = entry(out, a) {
                    w.read = true;
                }
            }
            ExprKind::Atomic(c) => {
                let Some(w) = entry(out, &c.addr) else { return };
                match c.op {
                    AtomicOp::Load => w.read = true,
                    AtomicOp::Store => match c.args[0].kind {
                        ExprKind::Int(v) => {
                            w.literals.insert(v as u64);
                        }
                        _ => w.computed = true,
                    },
                    AtomicOp::Exchange => {
                        w.read = true;
                        match c.args[0].kind {
                            ExprKind::Int(v) => {
                                w.literals.insert(v as u64);
                            }
                            _ => w.computed = true,
                        }
                    }
                    AtomicOp::CasStrong | AtomicOp::CasWeak => {
                        w.read = true;
                        match c.args.get(1).map(|a| &a.kind) {
                            Some(ExprKind::Int(v)) => {
                                w.literals.insert(*v as u64);
                            }
                            _ => w.computed = true,
                        }
                    }
                    _ => {
                        w.read = true;
                        w.computed = true;
                    }
                }
            }
            ExprKind::Unary(_, a) => expr(a, out),
            ExprKind::Index(a, b) => {
                out.entry(DYNAMIC.to_string()).or_default();
                expr(a, out);
                expr(b, out);
            }
            ExprKind::Binary(a, rest) => {
                expr(a, out);
                rest.iter().for_each(|(_, b)| expr(b, out));
            }
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
        }
    }
    fn stmts(ss: &[Stmt], out: &mut HashMap<String, Writable>) {
        for s in ss {
            match &s.kind {
                StmtKind::Store { addr, value } => {
                    if let Some(w) = entry(out, addr) {
                        match value.kind {
                            ExprKind::Int(v) => {
                                w.literals.insert(v as u64);
                            }
                            _ => w.computed = true,
                        }
                    }
                }
                StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                    expr(e, out)
                }
                StmtKind::If { then, els, .. } => {
                    stmts(then, out);
                    stmts(els, out);
                }
                StmtKind::While { body, .. } | StmtKind::Block(body) => stmts(body, out),
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    for t in &test.threads {
        stmts(&t.body, &mut out);
    }
    out
}
