//! Whether a thread's loop can spin without side effects, run on the
//! sequentially consistent machine of the parent module: the judgement the
//! search under the memory model (`liveness_weak.rs`) makes of a thread it
//! finds at a backward jump, and the check that decides whether that search
//! is needed at all.

use super::{barrier_of, Prog, State};
use crate::litmus::ast::*;
use crate::litmus::gpu::Item;
use std::collections::HashSet;

/// Steps a stuck thread is run on, at most, to find its state again.
const MAX_SPIN_STEPS: usize = 10_000;

impl Prog<'_> {
    /// Whether thread `t`, at the backward jump `jump` with registers
    /// `regs` and every location holding `mem`, spins forever without side
    /// effects; if so, the locations it reads.
    pub(super) fn spins(&self, t: usize, jump: usize, regs: Vec<i64>, mem: Vec<i64>) -> Option<Vec<usize>> {
        let c = &self.code[t];
        let target = match &c.items[jump] {
            Item::Goto(l, _) => l,
            Item::Branch { target, .. } => target,
            _ => return None,
        };
        let mut s: State = self.init.clone();
        s.mem = mem;
        s.threads[t].pc = c.labels[target.as_str()];
        s.threads[t].regs = regs;
        s.threads[t].started = true;
        let mut seen: HashSet<(u32, Vec<i64>)> = HashSet::new();
        let mut visited: Vec<usize> = Vec::new();
        for _ in 0..MAX_SPIN_STEPS {
            let th = &s.threads[t];
            if !seen.insert((th.pc, th.regs.clone())) {
                let mut locs = Vec::new();
                for pc in visited {
                    for (is_loc, name) in item_names(&c.items[pc]) {
                        if let Some(&l) = self.locs.get(&name).filter(|_| is_loc) {
                            if !locs.contains(&l) {
                                locs.push(l);
                            }
                        }
                    }
                }
                return Some(locs);
            }
            let pc = th.pc as usize;
            if pc >= c.items.len() || self.effectful(&c.items[pc]) {
                return None;
            }
            visited.push(pc);
            s = self.step(&s, t).ok()??;
        }
        None
    }

    /// Whether the thread's control flow has a cycle through instructions
    /// that neither store, run an RMW nor arrive at a barrier: only such a
    /// cycle can be a spin without side effects ([`Prog::spins`] runs one).
    pub(super) fn quiet_cycle(&self, c: &super::Code<'_>) -> bool {
        let n = c.items.len();
        let succ = |i: usize| -> Vec<usize> {
            let to = |l: &String| c.labels.get(l.as_str()).map(|&k| k as usize);
            match &c.items[i] {
                Item::Goto(l, _) => to(l).into_iter().collect(),
                Item::Branch { target, .. } => to(target).into_iter().chain(Some(i + 1)).collect(),
                _ => vec![i + 1],
            }
        };
        // Depth-first search for a back edge among the quiet instructions.
        let quiet: Vec<bool> = c.items.iter().map(|it| !self.effectful(it)).collect();
        let mut colour = vec![0u8; n];
        for start in (0..n).filter(|&i| quiet[i]) {
            if colour[start] != 0 {
                continue;
            }
            colour[start] = 1;
            let mut stack = vec![(start, succ(start))];
            while let Some((v, next)) = stack.last_mut() {
                let v = *v;
                match next.pop() {
                    Some(u) if u < n && quiet[u] => match colour[u] {
                        1 => return true,
                        0 => {
                            colour[u] = 1;
                            let s = succ(u);
                            stack.push((u, s));
                        }
                        _ => {}
                    },
                    Some(_) => {}
                    None => {
                        colour[v] = 2;
                        stack.pop();
                    }
                }
            }
        }
        false
    }

    /// Whether an instruction stores, runs an RMW or is a barrier.
    pub(super) fn effectful(&self, it: &Item) -> bool {
        let Item::Stmts(stmts) = it else { return false };
        stmts.iter().any(|s| self.stmt_effect(s))
    }

    fn stmt_effect(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Store { .. } => true,
            StmtKind::Fence { .. } => barrier_of(self.gpu, s).is_some(),
            StmtKind::Decl { init, .. } => init.as_ref().is_some_and(expr_effect),
            StmtKind::AssignReg { value, .. } => expr_effect(value),
            StmtKind::Expr(e) => expr_effect(e),
            StmtKind::If { cond, then, els } => {
                expr_effect(cond) || then.iter().chain(els).any(|x| self.stmt_effect(x))
            }
            StmtKind::Block(b) => b.iter().any(|x| self.stmt_effect(x)),
            // Anything else the SC machine refuses anyway.
            _ => true,
        }
    }
}

fn expr_effect(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Atomic(c) => c.op != AtomicOp::Load || c.args.iter().any(expr_effect),
        ExprKind::Deref(a) | ExprKind::Unary(_, a) => expr_effect(a),
        ExprKind::Index(a, b) => expr_effect(a) || expr_effect(b),
        ExprKind::Binary(a, rest) => expr_effect(a) || rest.iter().any(|(_, b)| expr_effect(b)),
        _ => false,
    }
}

fn item_names(it: &Item) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    if let Item::Stmts(stmts) = it {
        for s in stmts {
            super::exec::stmt_names(s, &mut out);
        }
    }
    out
}
