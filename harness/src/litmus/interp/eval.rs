//! Evaluating a thread's expressions: values, operators, addresses and
//! the atomic calls, each handed to the engine as one operation.

use super::*;
use crate::litmus::split_rmw;

impl ThreadRun<'_, '_> {
    pub(super) fn truth(&mut self, e: &Expr) -> bool {
        match self.expr(e) {
            Val::Int(i) => i != 0,
            Val::Addr { .. } => true,
        }
    }

    pub(super) fn int(&mut self, e: &Expr) -> i64 {
        match self.expr(e) {
            Val::Int(i) => i,
            Val::Addr { base, offset } => {
                let name = self.prog.layout.describe(base, offset);
                test_error!(self, e.pos, "expected an integer, found the address of `{name}`")
            }
        }
    }

    /// The engine location an address expression points to.
    pub(super) fn loc_of(&mut self, e: &Expr) -> Loc {
        let v = self.expr(e);
        self.loc_at(v, e.pos)
    }

    /// The engine location an address value points to (`pos` for errors).
    pub(super) fn loc_at(&mut self, v: Val, pos: Pos) -> Loc {
        match v {
            Val::Addr { base, offset } => {
                let elems = &self.locs[base as usize];
                if offset < 0 || offset as usize >= elems.len() {
                    let (name, n) = &self.prog.layout.names[base as usize];
                    test_error!(
                        self,
                        pos,
                        "`{name}` has {n} element(s); element {offset} is out of bounds"
                    )
                }
                elems[offset as usize]
            }
            Val::Int(i) => test_error!(self, pos, "dereferences the integer {i}, not an address"),
        }
    }

    /// A plain (non-atomic) load of `loc` at `pos`.
    fn plain_load(&mut self, loc: Loc, pos: Pos) -> Val {
        let (v, read) = load_classed(loc, Order::NonAtomic, Scope::Thread, None, self.src(pos));
        self.coherent(read);
        decode(v)
    }

    /// Under the po ∪ rf-cyclic enumerator (`Program::own_coherence`), gives
    /// the execution up when `read` reads a write that the thread's earlier
    /// accesses to its location hide (`own_coherence.rs`).
    pub(super) fn coherent(&self, read: Option<EventId>) {
        let Some(r) = read.filter(|_| self.prog.own_coherence) else {
            return;
        };
        // Whether the promising thread stores to the read's location (a
        // private one has no entry: cyclic/private.rs).
        let promised = |g: &scopecheck_checker::graph::ExecutionGraph| {
            let loc = g.event(r).as_read().map(|x| x.loc);
            self.prog
                .ghost
                .iter()
                .any(|(b, e, _)| Some(self.locs[*b as usize][*e as usize]) == loc)
        };
        let by_value = self.prog.split_rmws.is_some();
        if rt::with_current_graph(|g| super::super::own_coherence::hidden(g, r, promised(g), by_value)) {
            rt::discard();
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Int(i) => Val::Int(*i),
            ExprKind::Var(n) => {
                self.use_reg(n);
                match self.regs.get(n) {
                    Some(v) => *v,
                    None => self.prog.layout.addr(n).unwrap_or(Val::Int(0)),
                }
            }
            ExprKind::Deref(a) => {
                let loc = self.loc_of(a);
                self.plain_load(loc, e.pos)
            }
            ExprKind::Index(a, i) => {
                let (base, index) = (self.expr(a), self.expr(i));
                let at = self.binary(BinOp::Add, base, index, e.pos);
                let loc = self.loc_at(at, e.pos);
                self.plain_load(loc, e.pos)
            }
            ExprKind::AddrOf(n) => match self.prog.layout.addr(n) {
                Some(a) => a,
                None => test_error!(self, e.pos, "`&{n}` names no location (registers have no address)"),
            },
            ExprKind::Unary(op, a) => {
                let v = self.int(a);
                Val::Int(match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => (v == 0) as i64,
                    UnOp::BitNot => !v,
                })
            }
            // A chain is of one precedence, so `&&` and `||` come alone in
            // theirs: they evaluate operands left to right up to the first
            // that decides (C's short circuit).
            ExprKind::Binary(first, rest) if matches!(rest.first(), Some((BinOp::And, _))) => {
                Val::Int((self.truth(first) && rest.iter().all(|(_, b)| self.truth(b))) as i64)
            }
            ExprKind::Binary(first, rest) if matches!(rest.first(), Some((BinOp::Or, _))) => {
                Val::Int((self.truth(first) || rest.iter().any(|(_, b)| self.truth(b))) as i64)
            }
            ExprKind::Binary(first, rest) => {
                let mut x = self.expr(first);
                for (op, b) in rest {
                    let y = self.expr(b);
                    x = self.binary(*op, x, y, e.pos);
                }
                x
            }
            // An atomic's value used inside an expression is observed.
            ExprKind::Atomic(call) => {
                let (v, read) = self.atomic(call, e.pos);
                if let Some(read) = read {
                    rt::observe(read);
                }
                v
            }
        }
    }

    /// The thread uses register `name`: the first use of an atomic read's
    /// value observes that read (DRFrlx).
    pub(super) fn use_reg(&mut self, name: &str) {
        if let Some(read) = self.unused_reads.remove(name) {
            rt::observe(read);
        }
    }

    /// Evaluates `value` for an assignment to register `name`: an atomic
    /// call's read is remembered as not yet used (its first use observes it).
    pub(super) fn assigned(&mut self, name: &str, value: &Expr) -> Val {
        self.unused_reads.remove(name);
        match &value.kind {
            ExprKind::Atomic(call) => {
                let (v, read) = self.atomic(call, value.pos);
                if let Some(read) = read {
                    self.unused_reads.insert(name.to_string(), read);
                }
                v
            }
            _ => self.expr(value),
        }
    }

    pub(super) fn binary(&mut self, op: BinOp, x: Val, y: Val, pos: Pos) -> Val {
        match (op, x, y) {
            (BinOp::Add, Val::Addr { base, offset }, Val::Int(i))
            | (BinOp::Add, Val::Int(i), Val::Addr { base, offset }) => Val::Addr {
                base,
                offset: offset.wrapping_add(i),
            },
            (BinOp::Sub, Val::Addr { base, offset }, Val::Int(i)) => Val::Addr {
                base,
                offset: offset.wrapping_sub(i),
            },
            (BinOp::Eq, a, b) => Val::Int((a == b) as i64),
            (BinOp::Ne, a, b) => Val::Int((a != b) as i64),
            (op, Val::Int(a), Val::Int(b)) => Val::Int(match op {
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div | BinOp::Rem if b == 0 => test_error!(self, pos, "division by zero"),
                BinOp::Div => a.wrapping_div(b),
                BinOp::Rem => a.wrapping_rem(b),
                BinOp::BitAnd => a & b,
                BinOp::BitOr => a | b,
                BinOp::BitXor => a ^ b,
                BinOp::Shl => a.wrapping_shl(b as u32),
                BinOp::Shr => a.wrapping_shr(b as u32),
                BinOp::Lt => (a < b) as i64,
                BinOp::Le => (a <= b) as i64,
                BinOp::Gt => (a > b) as i64,
                BinOp::Ge => (a >= b) as i64,
                BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => unreachable!("handled above"),
            }),
            (op, _, _) => test_error!(self, pos, "`{op:?}` is not defined on addresses"),
        }
    }

    /// Runs an atomic call: its value, and the read whose value it is (for
    /// loads and RMWs; the caller decides whether that value is used).
    pub(super) fn atomic(&mut self, c: &AtomicCall, pos: Pos) -> (Val, Option<EventId>) {
        let src = self.src(pos);
        let loc = self.loc_of(&c.addr);
        let scope = c.scope.unwrap_or(self.prog.default_scope);
        // Operands first: evaluating them may access memory, and the class
        // announced below belongs to this call's own event.
        let operand = match c.op {
            AtomicOp::Load | AtomicOp::CasStrong | AtomicOp::CasWeak => None,
            _ => Some(encode(self.expr(&c.args[0]))),
        };
        // DRFrlx: a relaxed call's class (the test's, or the one class
        // inference tries at this line), the order it runs with (unpaired
        // calls are strengthened in a weak-model run of `scopecheck
        // drfrlx`), and whether a quantum-equivalent run picks its values.
        let (class, o) = if c.order == Order::Relaxed {
            let class = drfrlx::class_at(src, c.class);
            (class, drfrlx::relaxed_order(class))
        } else {
            (None, c.order)
        };
        let quantum = drfrlx::quantum_active(class);
        // The class is a field of the operation; the answer names the read.
        let rmw = |th: &mut Self, op: RmwOp, failure: Order| -> (u64, bool, Option<EventId>) {
            // Alone with the promising thread, as a load and a store
            // (split_rmw.rs).
            if let Some(log) = th
                .prog
                .split_rmws
                .as_ref()
                .filter(|_| !quantum && split_rmw::splits(op))
            {
                let (old, read) = load_classed(loc, o.read_part(), scope, class, th.src(pos));
                th.coherent(read);
                let new = op.apply(LITMUS_TYPE, old);
                if let Some(new) = new {
                    store_classed(loc, o.write_part(), new, scope, class, th.src(pos));
                }
                if let Some(read) = read {
                    log.lock().unwrap_or_else(|e| e.into_inner()).push(split_rmw::SplitRmw {
                        read,
                        op,
                        ty: LITMUS_TYPE,
                        success: o,
                        failure,
                        wrote: new.is_some(),
                    });
                }
                return (old, new.is_some(), read);
            }
            let a = rt::perform_at(
                Op::Rmw {
                    loc,
                    op,
                    ty: LITMUS_TYPE,
                    success: o,
                    failure,
                    await_: None,
                    scope,
                    class,
                },
                th.src(pos),
            );
            th.coherent(a.read);
            match a.result {
                OpResult::Value(v) => (v, true, a.read),
                OpResult::Cas(v, ok) => (v, ok, a.read),
                r => panic!("scopecheck internal error: rmw answered {r:?}"),
            }
        };
        let quantum_rmw = |th: &mut Self, op: RmwOp| -> (u64, bool, Option<EventId>) {
            let q = drfrlx::QuantumRmw::plan(loc, LITMUS_TYPE, op);
            let (v, _, read) = rmw(th, q.swap(), o.read_part());
            let (v, ok) = q.result(v);
            (v, ok, read)
        };
        match c.op {
            AtomicOp::Load => {
                let chosen = if quantum {
                    drfrlx::choose(loc, 0, LITMUS_TYPE)
                } else {
                    None
                };
                let (v, read) = load_classed(loc, o, scope, class, src);
                self.coherent(read);
                (decode(chosen.unwrap_or(v)), read)
            }
            AtomicOp::Store => {
                let mut v = operand.expect("a store has an operand");
                if quantum {
                    drfrlx::note_written(loc, v);
                    v = drfrlx::choose(loc, 2, LITMUS_TYPE).unwrap_or(v);
                }
                store_classed(loc, o, v, scope, class, src);
                (Val::Int(0), None)
            }
            AtomicOp::Exchange
            | AtomicOp::FetchAdd
            | AtomicOp::FetchSub
            | AtomicOp::FetchAnd
            | AtomicOp::FetchOr
            | AtomicOp::FetchXor
            | AtomicOp::FetchMin
            | AtomicOp::FetchMax => {
                let v = operand.expect("an RMW has an operand");
                let op = match c.op {
                    AtomicOp::Exchange => RmwOp::Swap(v),
                    AtomicOp::FetchAdd => RmwOp::Add(v),
                    AtomicOp::FetchSub => RmwOp::Sub(v),
                    AtomicOp::FetchAnd => RmwOp::And(v),
                    AtomicOp::FetchOr => RmwOp::Or(v),
                    AtomicOp::FetchXor => RmwOp::Xor(v),
                    AtomicOp::FetchMin => RmwOp::Min(v),
                    _ => RmwOp::Max(v),
                };
                let (old, _, read) = if quantum {
                    quantum_rmw(self, op)
                } else {
                    rmw(self, op, o)
                };
                (decode(old), read)
            }
            AtomicOp::CasStrong | AtomicOp::CasWeak => {
                let exp_at = &c.args[0];
                // The expected value: a register named by `&r`, or memory.
                let reg = match &exp_at.kind {
                    ExprKind::AddrOf(r) if self.prog.layout.addr(r).is_none() => Some(r.clone()),
                    _ => None,
                };
                let (expected, exp_loc) = match &reg {
                    Some(r) => {
                        // Comparing with the register uses its value.
                        self.use_reg(r);
                        (self.regs.get(r).copied().unwrap_or(Val::Int(0)), None)
                    }
                    None => {
                        let l = self.loc_of(exp_at);
                        (self.plain_load(l, exp_at.pos), Some(l))
                    }
                };
                let desired = self.expr(&c.args[1]);
                // A relaxed CAS's failure order follows its (possibly
                // strengthened) success order unless the test names a
                // stronger one.
                let failure = match (c.order, c.failure) {
                    (Order::Relaxed, None | Some(Order::Relaxed)) => o.read_part(),
                    (_, f) => f.unwrap_or(c.order).read_part(),
                };
                let op = RmwOp::Cas {
                    expected: encode(expected),
                    new: encode(desired),
                    weak: c.op == AtomicOp::CasWeak,
                };
                let (old, ok, read) = if quantum {
                    quantum_rmw(self, op)
                } else {
                    rmw(self, op, failure)
                };
                if !ok {
                    match (&reg, exp_loc) {
                        (Some(r), _) => {
                            self.regs.insert(r.clone(), decode(old));
                            if let Some(read) = read {
                                self.unused_reads.insert(r.clone(), read);
                            }
                        }
                        (None, Some(l)) => store(l, Order::NonAtomic, old, Scope::Thread, self.src(exp_at.pos)),
                        (None, None) => unreachable!("expected value came from somewhere"),
                    }
                }
                // The success flag depends on the value read.
                (Val::Int(ok as i64), read)
            }
        }
    }
}
