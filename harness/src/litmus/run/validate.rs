//! Static checks before a test runs: every name means something, and the
//! model supports what the test uses.

use super::*;

/// Which command a test is checked for: what an unsupported construct's
/// message may suggest depends on the options that command has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::litmus) enum Front {
    /// `scopecheck litmus` (has `--model opencl`).
    Litmus,
    /// `scopecheck drfrlx` (no `--model`).
    Drfrlx,
}

/// Static checks: every name means something, and the model supports what
/// the test uses. Returns notes for the reader.
pub(in crate::litmus) fn validate(test: &Test, model: LitmusModel, front: Front) -> Result<Vec<String>, TestError> {
    crate::litmus::limits::check(test).map_err(|(pos, message)| TestError::Invalid { pos, message })?;
    let mut notes = Vec::new();
    let mut seen_threads = HashSet::new();
    let locations: HashSet<&str> = test
        .init
        .iter()
        .filter_map(|i| match &i.target {
            InitTarget::Loc(n) | InitTarget::Array { name: n, .. } => Some(n.as_str()),
            InitTarget::Reg { .. } => None,
        })
        .chain(
            test.threads
                .iter()
                .flat_map(|t| t.params.iter().map(|p| p.name.as_str())),
        )
        .collect();
    let mut scoped = false;
    let mut classed = false;
    let mut regs_of: BTreeMap<u32, HashSet<String>> = BTreeMap::new();
    for t in &test.threads {
        if !seen_threads.insert(t.index) {
            return Err(TestError::Invalid {
                pos: t.pos,
                message: format!("thread P{} is defined twice", t.index),
            });
        }
        let mut regs: HashSet<String> = t.params.iter().map(|p| p.name.clone()).collect();
        for i in &test.init {
            if let InitTarget::Reg { thread, reg } = &i.target {
                if *thread == t.index {
                    regs.insert(reg.clone());
                }
            }
        }
        collect_regs(&t.body, &mut regs);
        let mut w = Walk {
            regs: &regs,
            locations: &locations,
            scoped: &mut scoped,
            classed: &mut classed,
            barrier: None,
            error: None,
        };
        w.stmts(&t.body);
        if let Some((pos, message)) = w.error {
            return Err(TestError::Invalid { pos, message });
        }
        // Barriers: the opencl model's own, or work-group barriers of the
        // engine (`workgroups.rs`) under src11 and in the DRFrlx analysis.
        let barriers_run =
            front == Front::Drfrlx || matches!(model, LitmusModel::OpenCl | LitmusModel::Engine(MemoryModel::Src11));
        if let Some(pos) = w.barrier.filter(|_| !barriers_run) {
            let message = format!(
                "P{} has a barrier; barriers are supported by the opencl and src11 models (`--model opencl`, \
                 `--model src11`) and by `scopecheck drfrlx`, not by {model}",
                t.index
            );
            return Err(TestError::Unsupported { pos, message });
        }
        if !t.placement.is_empty() {
            scoped = true;
        }
        regs_of.insert(t.index, regs);
    }
    for i in &test.init {
        if let InitTarget::Reg { thread, .. } = &i.target {
            if !seen_threads.contains(thread) {
                return Err(TestError::Invalid {
                    pos: i.pos,
                    message: format!("the init block names a register of P{thread}, which the test does not have"),
                });
            }
        }
    }
    // Every register the condition or the `locations` clause names exists.
    // (The AST keeps no position for `locations` entries: they are reported
    // at the condition, or at the top of the file without one.)
    let at = test.condition.as_ref().map_or(Pos { line: 1, col: 1 }, |c| c.pos);
    let named = test
        .condition
        .iter()
        .flat_map(|c| condition_vars(c).into_iter().map(|v| (v, "the condition")))
        .chain(test.locations.iter().map(|v| (v.clone(), "the locations clause")));
    for (v, clause) in named {
        if let StateVar::Reg { thread, reg } = &v {
            match regs_of.get(thread) {
                None => {
                    return Err(TestError::Invalid {
                        pos: at,
                        message: format!("{clause} names `{v}` but the test has no thread P{thread}"),
                    })
                }
                Some(rs) if !rs.contains(reg) => {
                    return Err(TestError::Invalid {
                        pos: at,
                        message: format!("{clause} names `{v}` but P{thread} has no register `{reg}`"),
                    })
                }
                Some(_) => {}
            }
        }
    }
    let scoped_model = matches!(model, LitmusModel::Engine(MemoryModel::Src11) | LitmusModel::OpenCl);
    if (scoped || test.arch == Arch::OpenCl) && !scoped_model {
        notes.push(format!(
            "scopes and placements are ignored under {model}: every access acts at system scope"
        ));
    }
    if classed {
        notes.push(
            "DRFrlx classes do not change a model's outcomes (a classified relaxed atomic is relaxed); `scopecheck \
             drfrlx` judges its races"
                .into(),
        );
    }
    Ok(notes)
}

/// Every register a body assigns or declares.
pub(super) fn collect_regs(body: &[Stmt], out: &mut HashSet<String>) {
    for s in body {
        match &s.kind {
            StmtKind::Decl { name, .. } | StmtKind::AssignReg { name, .. } => {
                out.insert(name.clone());
            }
            StmtKind::If { then, els, .. } => {
                collect_regs(then, out);
                collect_regs(els, out);
            }
            StmtKind::While { body, .. } | StmtKind::Block(body) => collect_regs(body, out),
            _ => {}
        }
        // `&r` as a compare-exchange's expected argument writes `r`.
        visit_exprs(s, &mut |e| {
            if let ExprKind::Atomic(c) = &e.kind {
                if let Some(Expr {
                    kind: ExprKind::AddrOf(r),
                    ..
                }) = c
                    .args
                    .first()
                    .filter(|_| matches!(c.op, AtomicOp::CasStrong | AtomicOp::CasWeak))
                {
                    out.insert(r.clone());
                }
            }
        });
    }
}

/// Calls `f` on every expression directly inside statement `s` (not in nested statements).
pub(super) fn visit_exprs(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    pub(super) fn go(e: &Expr, f: &mut dyn FnMut(&Expr)) {
        f(e);
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
            ExprKind::Deref(a) | ExprKind::Unary(_, a) => go(a, f),
            ExprKind::Index(a, b) => {
                go(a, f);
                go(b, f);
            }
            ExprKind::Binary(first, rest) => {
                go(first, f);
                for (_, b) in rest {
                    go(b, f);
                }
            }
            ExprKind::Atomic(c) => {
                go(&c.addr, f);
                for a in &c.args {
                    go(a, f);
                }
            }
        }
    }
    match &s.kind {
        StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => go(e, f),
        StmtKind::Store { addr, value } => {
            go(addr, f);
            go(value, f);
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => go(cond, f),
        _ => {}
    }
}

/// The name check over one thread's body.
pub(super) struct Walk<'a> {
    regs: &'a HashSet<String>,
    locations: &'a HashSet<&'a str>,
    scoped: &'a mut bool,
    classed: &'a mut bool,
    barrier: Option<Pos>,
    error: Option<(Pos, String)>,
}

impl Walk<'_> {
    pub(super) fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            if self.error.is_some() {
                return;
            }
            let mut bad = None;
            let (regs, locations) = (self.regs, self.locations);
            let (mut scoped, mut classed) = (false, false);
            visit_exprs(s, &mut |e| match &e.kind {
                ExprKind::Var(n) if !regs.contains(n) && !locations.contains(n.as_str()) => {
                    bad.get_or_insert((e.pos, format!("unknown variable `{n}` (not a register or location)")));
                }
                ExprKind::AddrOf(n) if !regs.contains(n) && !locations.contains(n.as_str()) => {
                    bad.get_or_insert((e.pos, format!("`&{n}`: `{n}` is not a register or location")));
                }
                ExprKind::Atomic(c) => {
                    scoped |= c.scope.is_some();
                    classed |= c.class.is_some();
                }
                _ => {}
            });
            *self.scoped |= scoped;
            *self.classed |= classed;
            if bad.is_some() {
                self.error = bad;
                return;
            }
            match &s.kind {
                StmtKind::If { then, els, .. } => {
                    self.stmts(then);
                    self.stmts(els);
                }
                StmtKind::While { body, .. } | StmtKind::Block(body) => self.stmts(body),
                StmtKind::Barrier { .. } => {
                    self.barrier.get_or_insert(s.pos);
                }
                StmtKind::Fence { scope, .. } => *self.scoped |= scope.is_some(),
                _ => {}
            }
        }
    }
}
