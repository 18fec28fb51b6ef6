//! Unsequenced operands (C11 6.5p2, herd's C semantics): the operands of a
//! binary operator (other than `&&` and `||`, whose left operand is
//! sequenced before the right) are not sequenced with each other. The
//! interpreter evaluates them left to right, so the engine's graph has po
//! between their events; the po ∪ rf-cyclic enumeration (`cyclic.rs`), which
//! judges every graph by the model's axioms, removes those edges first: the
//! `c11` and `opencl` judges then derive sb, hb and the visible side
//! effects without them (docs/c11-model.md section 5).
//!
//! The events of one evaluation of a binary expression are found from their
//! source positions: every access the interpreter issues carries the
//! position of the expression that issued it, and one evaluation's events
//! are contiguous in po with operand indices that never decrease; a later
//! evaluation (a loop's next iteration) starts at a lower operand or after
//! an event of another expression.

use super::ast::{Expr, ExprKind, Stmt, StmtKind, Test};
use scopecheck_checker::event::{EventId, EventKind, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use std::collections::{HashMap, HashSet};

/// For each source position (line, column) of an expression inside an
/// operand of a binary expression: the binary expressions (numbered) it is
/// inside, with the operand's index.
#[derive(Default)]
pub struct Operands {
    at: HashMap<(u32, u32), Vec<(usize, usize)>>,
    /// Per binary expression, the operands that make a memory access.
    accessing: HashMap<usize, HashSet<usize>>,
}

impl Operands {
    /// Whether no binary expression of the test makes memory accesses in
    /// two of its operands: then po between a thread's accesses is all
    /// sequenced (in sb, so in hb).
    pub fn none(&self) -> bool {
        self.accessing.values().all(|ops| ops.len() < 2)
    }

    /// The operands of every binary expression of `test`.
    pub fn of(test: &Test) -> Operands {
        let mut o = Operands::default();
        let mut next = 0;
        for t in &test.threads {
            o.stmts(&t.body, &mut Vec::new(), &mut next);
        }
        o
    }

    fn stmts(&mut self, ss: &[Stmt], inside: &mut Vec<(usize, usize)>, next: &mut usize) {
        for s in ss {
            match &s.kind {
                StmtKind::Store { value, addr } => {
                    self.expr(value, inside, next);
                    self.expr(addr, inside, next);
                }
                StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                    self.expr(e, inside, next)
                }
                StmtKind::If { cond, then, els } => {
                    self.expr(cond, inside, next);
                    self.stmts(then, inside, next);
                    self.stmts(els, inside, next);
                }
                StmtKind::While { cond, body } => {
                    self.expr(cond, inside, next);
                    self.stmts(body, inside, next);
                }
                StmtKind::Block(b) => self.stmts(b, inside, next),
                _ => {}
            }
        }
    }

    fn expr(&mut self, e: &Expr, inside: &mut Vec<(usize, usize)>, next: &mut usize) {
        if !inside.is_empty() {
            self.at
                .entry((e.pos.line, e.pos.col))
                .or_default()
                .extend(inside.iter().copied());
            if matches!(e.kind, ExprKind::Deref(_) | ExprKind::Index(..) | ExprKind::Atomic(_)) {
                for &(id, k) in inside.iter() {
                    self.accessing.entry(id).or_default().insert(k);
                }
            }
        }
        match &e.kind {
            ExprKind::Binary(first, rest) => {
                let sequenced = matches!(
                    rest.first(),
                    Some((super::ast::BinOp::And, _)) | Some((super::ast::BinOp::Or, _))
                );
                if sequenced {
                    self.expr(first, inside, next);
                    rest.iter().for_each(|(_, b)| self.expr(b, inside, next));
                    return;
                }
                let id = *next;
                *next += 1;
                for (k, operand) in std::iter::once(&**first).chain(rest.iter().map(|(_, b)| b)).enumerate() {
                    inside.push((id, k));
                    self.expr(operand, inside, next);
                    inside.pop();
                }
            }
            ExprKind::Atomic(c) => {
                self.expr(&c.addr, inside, next);
                c.args.iter().for_each(|a| self.expr(a, inside, next));
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => self.expr(a, inside, next),
            ExprKind::Index(a, b) => {
                self.expr(a, inside, next);
                self.expr(b, inside, next);
            }
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
        }
    }

    /// The pairs (a, b) of events of threads `1..=threads` of `g` that are
    /// po-ordered only because the interpreter evaluated the operands of
    /// one binary expression left to right (a in an earlier operand).
    pub fn pairs(&self, g: &ExecutionGraph, threads: ThreadId) -> HashSet<(EventId, EventId)> {
        let mut out = HashSet::new();
        if self.at.is_empty() {
            return out;
        }
        for t in 1..=threads {
            let events = g.thread_events(t);
            // Per binary expression: the current evaluation's events, each
            // with its operand index.
            let mut runs: HashMap<usize, Vec<(u32, usize)>> = HashMap::new();
            // Events that are not accesses since the last access (a read's
            // `observe` marker): they belong to an evaluation only if the
            // next access does, with the operand of the access before them,
            // so that po without the pairs stays a partial order.
            let mut pending: Vec<u32> = Vec::new();
            let mut add = |run: &mut Vec<(u32, usize)>, i: u32, k: usize| {
                for &(j, kj) in run.iter() {
                    if kj < k {
                        out.insert((EventId::new(t, j), EventId::new(t, i)));
                    }
                }
                run.push((i, k));
            };
            for (i, e) in events.iter().enumerate() {
                if !matches!(e.kind, EventKind::Read(_) | EventKind::Write(_)) {
                    pending.push(i as u32);
                    continue;
                }
                let member = self.at.get(&(e.src.line, e.src.column));
                // An access of another expression ends the evaluations it
                // is not part of.
                runs.retain(|b, _| member.is_some_and(|m| m.iter().any(|(x, _)| x == b)));
                for &(b, k) in member.into_iter().flatten() {
                    let run = runs.entry(b).or_default();
                    match run.last().map(|&(_, last)| last) {
                        Some(last) if k < last => run.clear(), // a new evaluation
                        Some(last) => pending.iter().for_each(|&p| add(run, p, last)),
                        None => {}
                    }
                    add(run, i as u32, k);
                }
                pending.clear();
            }
        }
        out
    }
}
