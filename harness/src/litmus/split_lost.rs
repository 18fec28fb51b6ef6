//! Paths a thread run alone with the promising thread cannot take
//! (`gpu_split.rs`), found where the engine leaves them out.
//!
//! The promising thread stores each promised value of a location once. A
//! plain read may read that store any number of times. An RMW run alone
//! is split into a load and a store (`split_rmw.rs`), so it never consumes
//! a write there either, but an RMW that is not split (a weak
//! compare-exchange: its spurious failure is the engine's choice) consumes
//! the write it reads (the engine's atomicity, under `porf` too): a path
//! on which two such RMWs of the thread read one value that only that
//! store (or only the initial write) gives is never run alone, and with
//! the other threads' writes it may well be an execution of the test
//! (docs/gpu-models.md, section 5, item 1). The engine records each
//! (location, value) an RMW could not read because every write of it
//! there was consumed (`Stats::consumed_only`); this module tells which of
//! those the test's other writes could supply, i.e. which left out a path
//! the combinations need. A C or OpenCL test so flagged is enumerated
//! again with all threads at once (`cyclic.rs`); a PTX or Vulkan test has
//! no weak compare-exchange.

use super::ast::{AtomicOp, Expr, ExprKind, Stmt, StmtKind, Test};
use super::interp::Program;
use scopecheck_checker::event::{Loc, Value};
use std::collections::{BTreeSet, HashMap};

/// Why the runs of `who` (a thread alone) left paths out, when an RMW
/// could not read a value of `consumed` that a write of the test may
/// store there; `None` when every such value is one no write can supply
/// a second time (the path is not an execution of the test either).
pub fn lost_paths(prog: &Program, consumed: &BTreeSet<(Loc, Value)>, who: &str) -> Option<String> {
    if consumed.is_empty() {
        return None;
    }
    let supply = Supply::of(prog.test);
    let mut lost = Vec::new();
    for &(loc, v) in consumed {
        // The main thread allocates the layout's elements first, in order.
        if loc.0 >> 32 != 0 {
            // Not a location of the layout: say so rather than guess.
            lost.push(format!("a location the test allocates ({})", loc.0));
            continue;
        }
        let Some((base, elem, name)) = element(prog, loc.0 as u32) else {
            continue;
        };
        // Two RMWs can read `v` only from two writes of it: the initial
        // write and the test's writes (each RMW's own write aside, which
        // is counted all the same: a bound from above is enough).
        let init = u32::from(prog.layout.init_word(base as usize, elem as usize) == v);
        if init + supply.writes(name, literal(prog, v)) >= 2 {
            let shown = prog.show_word(v);
            let at = if prog.layout.names[base as usize].1 > 1 {
                format!("{name}[{elem}]")
            } else {
                name.to_string()
            };
            lost.push(format!("{shown} at {at}"));
        }
    }
    if lost.is_empty() {
        return None;
    }
    Some(format!(
        "a thread's path needs two RMWs to read one promised write ({who}: {}), which the thread-by-thread po ∪ \
         rf-cyclic enumeration does not run (an RMW it cannot run as a load and a store, a weak \
         compare-exchange, consumes the write it reads, and each promised value is stored once); the executions on those paths were not explored, so the outcome set is incomplete",
        lost.join(", ")
    ))
}

/// The literal that names engine value `v`, if one does (an address
/// does not).
fn literal(prog: &Program, v: Value) -> Option<i64> {
    match prog.show_word(v) {
        super::ast::Value::Int(i) => Some(i),
        _ => None,
    }
}

/// The layout element allocated `seq`-th: (base, element, base's name).
fn element<'p>(prog: &'p Program, seq: u32) -> Option<(u32, u32, &'p str)> {
    let mut first = 0u32;
    for (b, (name, n)) in prog.layout.names.iter().enumerate() {
        if seq < first + n {
            return Some((b as u32, seq - first, name));
        }
        first += n;
    }
    None
}

/// How many writes of each value each location may get from the test's
/// instructions, counted statically: a write in a loop, a computed value
/// or an address that is not a location's name counts as many.
struct Supply {
    /// Per location name and literal value, writes counted up to 2.
    literal: HashMap<(String, i64), u32>,
    /// Locations some write stores a computed value to.
    computed: BTreeSet<String>,
    /// Whether some write's address is not a location's name.
    dynamic: bool,
}

impl Supply {
    fn of(test: &Test) -> Supply {
        let mut s = Supply {
            literal: HashMap::new(),
            computed: BTreeSet::new(),
            dynamic: false,
        };
        for t in &test.threads {
            s.stmts(&t.body, 1);
        }
        s
    }

    /// Writes of literal `value` (`None`: a value no literal names) to
    /// `name`, up to 2.
    fn writes(&self, name: &str, value: Option<i64>) -> u32 {
        if self.dynamic || self.computed.contains(name) {
            return 2;
        }
        value.map_or(0, |v| self.literal.get(&(name.to_string(), v)).copied().unwrap_or(0))
    }

    fn write(&mut self, addr: &Expr, value: Option<&Expr>, times: u32) {
        let ExprKind::AddrOf(name) = &addr.kind else {
            self.dynamic = true;
            return;
        };
        match value.map(|v| &v.kind) {
            Some(ExprKind::Int(v)) => {
                let n = self.literal.entry((name.clone(), *v)).or_insert(0);
                *n = (*n + times).min(2);
            }
            _ => {
                self.computed.insert(name.clone());
            }
        }
    }

    fn expr(&mut self, e: &Expr, times: u32) {
        match &e.kind {
            ExprKind::Atomic(c) => {
                match c.op {
                    AtomicOp::Load => {}
                    AtomicOp::Store | AtomicOp::Exchange => self.write(&c.addr, c.args.first(), times),
                    AtomicOp::CasStrong | AtomicOp::CasWeak => self.write(&c.addr, c.args.get(1), times),
                    _ => self.write(&c.addr, None, times),
                }
                self.expr(&c.addr, times);
                c.args.iter().for_each(|a| self.expr(a, times));
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => self.expr(a, times),
            ExprKind::Index(a, b) => {
                self.expr(a, times);
                self.expr(b, times);
            }
            ExprKind::Binary(a, rest) => {
                self.expr(a, times);
                rest.iter().for_each(|(_, b)| self.expr(b, times));
            }
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
        }
    }

    fn stmts(&mut self, ss: &[Stmt], times: u32) {
        for s in ss {
            match &s.kind {
                StmtKind::Store { addr, value } => {
                    self.write(addr, Some(value), times);
                    self.expr(addr, times);
                    self.expr(value, times);
                }
                StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                    self.expr(e, times)
                }
                StmtKind::If { cond, then, els } => {
                    self.expr(cond, times);
                    self.stmts(then, times);
                    self.stmts(els, times);
                }
                // A loop's body may run more than once.
                StmtKind::While { cond, body } => {
                    self.expr(cond, 2);
                    self.stmts(body, 2);
                }
                StmtKind::Block(body) => self.stmts(body, times),
                _ => {}
            }
        }
    }
}
