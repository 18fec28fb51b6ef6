//! The instructions of a GPU litmus test run on one state (see the parent
//! module): registers, one value per location, barrier arrivals.

use super::{barrier_of, fail, BarKey, Fail, Prog, State};
use crate::litmus::ast::*;
use crate::litmus::gpu::{Item, Operand, HIDDEN};
use std::collections::HashMap;

/// Registers and locations an item names.
pub(super) fn scan_item(
    it: &Item,
    regs: &mut HashMap<String, usize>,
    locs: &mut HashMap<String, usize>,
    mem: &mut Vec<i64>,
) {
    let reg = |r: &str, regs: &mut HashMap<String, usize>| {
        let n = regs.len();
        regs.entry(r.to_string()).or_insert(n);
    };
    match it {
        Item::Branch { a, b, .. } => {
            for o in [a, b] {
                if let Operand::Reg(r) = o {
                    reg(r, regs);
                }
            }
        }
        Item::Stmts(stmts) => {
            let mut names = Vec::new();
            for s in stmts {
                stmt_names(s, &mut names);
            }
            for (is_loc, n) in names {
                if is_loc {
                    if let std::collections::hash_map::Entry::Vacant(v) = locs.entry(n) {
                        mem.push(0);
                        v.insert(mem.len() - 1);
                    }
                } else {
                    reg(&n, regs);
                }
            }
        }
        _ => {}
    }
}

pub(super) fn stmt_names(s: &Stmt, out: &mut Vec<(bool, String)>) {
    match &s.kind {
        StmtKind::Decl { name, init, .. } => {
            out.push((false, name.clone()));
            if let Some(e) = init {
                expr_names(e, out);
            }
        }
        StmtKind::AssignReg { name, value } => {
            out.push((false, name.clone()));
            expr_names(value, out);
        }
        StmtKind::Store { addr, value } => {
            expr_names(addr, out);
            expr_names(value, out);
        }
        StmtKind::Expr(e) => expr_names(e, out),
        StmtKind::If { cond, then, els } => {
            expr_names(cond, out);
            then.iter().chain(els).for_each(|s| stmt_names(s, out));
        }
        StmtKind::Block(b) => b.iter().for_each(|s| stmt_names(s, out)),
        _ => {}
    }
}

fn expr_names(e: &Expr, out: &mut Vec<(bool, String)>) {
    match &e.kind {
        ExprKind::Var(r) => out.push((false, r.clone())),
        ExprKind::AddrOf(x) => out.push((true, x.clone())),
        ExprKind::Deref(a) | ExprKind::Unary(_, a) => expr_names(a, out),
        ExprKind::Index(a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        ExprKind::Binary(a, rest) => {
            expr_names(a, out);
            rest.iter().for_each(|(_, b)| expr_names(b, out));
        }
        ExprKind::Atomic(c) => {
            expr_names(&c.addr, out);
            c.args.iter().for_each(|a| expr_names(a, out));
        }
        ExprKind::Int(_) => {}
    }
}

/// One instruction's statements, run in one step.
pub(super) struct Exec<'p, 'a> {
    pub(super) prog: &'p Prog<'a>,
    pub(super) t: usize,
    /// A register barrier id, from the hidden store before the barrier.
    pub(super) bar_id: Option<i64>,
    /// The barrier the instruction arrives at: key, quorum, arrive.
    pub(super) barrier: Option<(BarKey, Option<u32>, bool)>,
}

impl Exec<'_, '_> {
    fn reg(&self, name: &str) -> usize {
        self.prog.code[self.t].regs[name]
    }

    fn loc(&self, e: &Expr) -> Result<usize, Fail> {
        match &e.kind {
            ExprKind::AddrOf(x) => Ok(self.prog.locs[x.as_str()]),
            _ => Err(fail(e.pos, "liveness: only named locations are supported as addresses")),
        }
    }

    pub(super) fn stmt(&mut self, s: &mut State, st: &Stmt) -> Result<(), Fail> {
        match &st.kind {
            StmtKind::Decl { name, init, .. } => {
                let v = match init {
                    Some(e) => self.expr(s, e)?,
                    None => 0,
                };
                let r = self.reg(name);
                s.threads[self.t].regs[r] = v;
            }
            StmtKind::AssignReg { name, value } => {
                let v = self.expr(s, value)?;
                let r = self.reg(name);
                s.threads[self.t].regs[r] = v;
            }
            StmtKind::Store { addr, value } => {
                let v = self.expr(s, value)?;
                if let ExprKind::AddrOf(x) = &addr.kind {
                    if x.starts_with(HIDDEN) {
                        self.bar_id = Some(v);
                        return Ok(());
                    }
                }
                let l = self.loc(addr)?;
                s.mem[l] = v;
            }
            StmtKind::Expr(e) => {
                self.expr(s, e)?;
            }
            StmtKind::If { cond, then, els } => {
                let arm = if self.expr(s, cond)? != 0 { then } else { els };
                for x in arm {
                    self.stmt(s, x)?;
                }
            }
            StmtKind::Block(b) => {
                for x in b {
                    self.stmt(s, x)?;
                }
            }
            StmtKind::Fence { .. } => {
                if let Some((id, quorum, arrive)) = barrier_of(self.prog.gpu, st) {
                    let id = match id.or(self.bar_id) {
                        Some(id) => id,
                        None => return Err(fail(st.pos, "liveness: a barrier id register without its value")),
                    };
                    self.barrier = Some(((self.prog.code[self.t].group, id), quorum, arrive));
                }
                // Other fences order memory only: nothing under SC.
            }
            _ => return Err(fail(st.pos, "liveness: statement not supported in a GPU test")),
        }
        Ok(())
    }

    fn expr(&self, s: &mut State, e: &Expr) -> Result<i64, Fail> {
        Ok(match &e.kind {
            ExprKind::Int(v) => *v,
            ExprKind::Var(r) => s.threads[self.t].regs[self.reg(r)],
            ExprKind::Deref(a) => s.mem[self.loc(a)?],
            ExprKind::Unary(op, a) => {
                let v = self.expr(s, a)?;
                match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => (v == 0) as i64,
                    UnOp::BitNot => !v,
                }
            }
            ExprKind::Binary(a, rest) => {
                let mut v = self.expr(s, a)?;
                for (op, b) in rest {
                    let w = self.expr(s, b)?;
                    v = binop(*op, v, w).ok_or_else(|| fail(b.pos, "division by zero"))?;
                }
                v
            }
            ExprKind::Atomic(c) => {
                let l = self.loc(&c.addr)?;
                let old = s.mem[l];
                let arg = |k: usize, s: &mut State| -> Result<i64, Fail> {
                    match c.args.get(k) {
                        Some(a) => self.expr(s, a),
                        None => Err(fail(e.pos, "liveness: atomic without its operand")),
                    }
                };
                match c.op {
                    AtomicOp::Load => {}
                    AtomicOp::Store => s.mem[l] = arg(0, s)?,
                    AtomicOp::Exchange => s.mem[l] = arg(0, s)?,
                    AtomicOp::FetchAdd => s.mem[l] = old.wrapping_add(arg(0, s)?),
                    AtomicOp::FetchSub => s.mem[l] = old.wrapping_sub(arg(0, s)?),
                    AtomicOp::FetchAnd => s.mem[l] = old & arg(0, s)?,
                    AtomicOp::FetchOr => s.mem[l] = old | arg(0, s)?,
                    AtomicOp::FetchXor => s.mem[l] = old ^ arg(0, s)?,
                    AtomicOp::FetchMin => s.mem[l] = old.min(arg(0, s)?),
                    AtomicOp::FetchMax => s.mem[l] = old.max(arg(0, s)?),
                    AtomicOp::CasStrong | AtomicOp::CasWeak => {
                        // args: [&expected register, desired]; on failure the
                        // register receives the value seen.
                        let ExprKind::AddrOf(r) = &c.args[0].kind else {
                            return Err(fail(e.pos, "liveness: compare-exchange expects a register"));
                        };
                        let r = self.reg(r);
                        let expected = s.threads[self.t].regs[r];
                        if old == expected {
                            s.mem[l] = arg(1, s)?;
                        } else {
                            s.threads[self.t].regs[r] = old;
                        }
                    }
                }
                old
            }
            _ => return Err(fail(e.pos, "liveness: expression not supported in a GPU test")),
        })
    }
}

fn binop(op: BinOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => a.checked_div(b).or_else(|| (b != 0).then_some(a.wrapping_div(b)))?,
        BinOp::Rem => a.checked_rem(b).or_else(|| (b != 0).then_some(0))?,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a.wrapping_shl(b as u32),
        BinOp::Shr => a.wrapping_shr(b as u32),
        BinOp::Eq => (a == b) as i64,
        BinOp::Ne => (a != b) as i64,
        BinOp::Lt => (a < b) as i64,
        BinOp::Le => (a <= b) as i64,
        BinOp::Gt => (a > b) as i64,
        BinOp::Ge => (a >= b) as i64,
        BinOp::And => (a != 0 && b != 0) as i64,
        BinOp::Or => (a != 0 || b != 0) as i64,
    })
}
