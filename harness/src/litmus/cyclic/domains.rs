//! Steps 1 and 4: the value domains. A location's domain starts with its
//! initial value and the test's constants, and grows by the values the
//! consistent executions write.

use super::*;

/// Whether the test writes a value that is not a literal (a store's value
/// or an RMW's operand): only such a write can pass on a value it read, so
/// only then can a cycle of copies justify a value by itself.
pub(super) fn writes_computed_values(test: &Test) -> bool {
    pub(super) fn literal(e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Int(_))
    }
    pub(super) fn in_expr(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Atomic(c) => {
                let operands = match c.args.as_slice() {
                    // compare-exchange: [expected address, desired]
                    [_, desired] => std::slice::from_ref(desired),
                    all => all,
                };
                operands.iter().any(|a| !literal(a) || in_expr(a)) || in_expr(&c.addr)
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => in_expr(a),
            ExprKind::Index(a, b) => in_expr(a) || in_expr(b),
            ExprKind::Binary(a, rest) => in_expr(a) || rest.iter().any(|(_, b)| in_expr(b)),
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => false,
        }
    }
    pub(super) fn in_stmts(ss: &[Stmt]) -> bool {
        ss.iter().any(|s| match &s.kind {
            StmtKind::Store { value, addr } => !literal(value) || in_expr(value) || in_expr(addr),
            StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                in_expr(e)
            }
            StmtKind::If { cond, then, els } => in_expr(cond) || in_stmts(then) || in_stmts(els),
            StmtKind::While { cond, body } => in_expr(cond) || in_stmts(body),
            StmtKind::Block(body) => in_stmts(body),
            StmtKind::Decl { init: None, .. } | StmtKind::Fence { .. } | StmtKind::Barrier { .. } => false,
        })
    }
    test.threads.iter().any(|t| in_stmts(&t.body))
}

/// The integer constants of the test: literals in its threads and the
/// values its condition compares with. A cycle in po ∪ rf can justify a
/// constant the program writes only under a condition that the cycle
/// itself satisfies (`if (r == 1) y = 1;` both ways); such a value is never
/// written first without the cycle, so the domain starts with every
/// constant (values no execution writes are dropped by the validation).
pub(super) fn constants(test: &Test) -> BTreeSet<u64> {
    pub(super) fn expr(e: &Expr, out: &mut BTreeSet<u64>) {
        match &e.kind {
            ExprKind::Int(i) => {
                out.insert(*i as u64);
            }
            ExprKind::Atomic(c) => {
                expr(&c.addr, out);
                c.args.iter().for_each(|a| expr(a, out));
            }
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => expr(a, out),
            ExprKind::Index(a, b) => {
                expr(a, out);
                expr(b, out);
            }
            ExprKind::Binary(a, rest) => {
                expr(a, out);
                rest.iter().for_each(|(_, b)| expr(b, out));
            }
            ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
        }
    }
    pub(super) fn stmts(ss: &[Stmt], out: &mut BTreeSet<u64>) {
        for s in ss {
            match &s.kind {
                StmtKind::Store { value, addr } => {
                    expr(value, out);
                    expr(addr, out);
                }
                StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                    expr(e, out)
                }
                StmtKind::If { cond, then, els } => {
                    expr(cond, out);
                    stmts(then, out);
                    stmts(els, out);
                }
                StmtKind::While { cond, body } => {
                    expr(cond, out);
                    stmts(body, out);
                }
                StmtKind::Block(body) => stmts(body, out),
                StmtKind::Decl { init: None, .. } | StmtKind::Fence { .. } | StmtKind::Barrier { .. } => {}
            }
        }
    }
    pub(super) fn prop(p: &Prop, out: &mut BTreeSet<u64>) {
        match p {
            Prop::Eq(_, Value::Int(i)) | Prop::Ne(_, Value::Int(i)) => {
                out.insert(*i as u64);
            }
            Prop::Not(a) => prop(a, out),
            Prop::And(all) | Prop::Or(all) => all.iter().for_each(|a| prop(a, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for t in &test.threads {
        stmts(&t.body, &mut out);
    }
    if let Some(c) = &test.condition {
        prop(&c.prop, &mut out);
        if let Some(f) = &c.filter {
            prop(f, &mut out);
        }
    }
    out
}
