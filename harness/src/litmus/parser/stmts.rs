//! Statements: blocks, `if` and `while`, declarations and assignments,
//! fences, barriers and their flags, orders and scopes.

use super::*;

/// How a statement starts.
pub(super) enum Start {
    Empty,
    Block,
    If,
    While,
    Simple,
}

impl Parser {
    // ---- statements ----
    //
    // The recursive paths (block -> statement -> block, if -> body ->
    // statement) go through small functions only, so that deep nesting costs
    // little stack even in unoptimised builds.

    /// Statements up to the `}` closing the block opened at `open`.
    pub(super) fn block_rest(&mut self, open: Pos) -> PResult<Vec<Stmt>> {
        let mut v = Vec::new();
        loop {
            if self.eat(&T::RBrace) {
                return Ok(v);
            }
            if self.at(&T::Eof) || self.at_thread_header() {
                return Err(self.unclosed(&T::RBrace, open));
            }
            if let Some(s) = tri!(self.stmt()) {
                v.push(s);
            }
        }
    }

    /// Whether the next tokens are `PN (` or `PN @`: the next thread's header.
    pub(super) fn at_thread_header(&mut self) -> bool {
        self.ident_at(0).is_some_and(|s| thread_name(&s).is_some()) && matches!(self.peek_at(1).kind, T::LParen | T::At)
    }

    /// The body of an `if`, `else` or `while`: a block's statements, one
    /// statement, or none for `;`. A block here is the statement's own
    /// level, not one more.
    pub(super) fn body(&mut self) -> PResult<Vec<Stmt>> {
        if self.at(&T::LBrace) {
            let open = self.bump().pos;
            return self.block_rest(open);
        }
        Ok(match tri!(self.stmt()) {
            None => Vec::new(),
            Some(s) => vec![s],
        })
    }

    /// One statement (`None` for an empty `;`).
    pub(super) fn stmt(&mut self) -> PResult<Option<Stmt>> {
        self.stmt_depth += 1;
        if self.stmt_depth > NESTING_LIMIT {
            return Err(self.too_deep("statement"));
        }
        if self.stmt_depth + self.chain > STATEMENT_TREE_LIMIT {
            let at = self.pos();
            return Err(Self::error(
                at,
                format!(
                    "statement nested too deep in `else if` chains: this statement is level {} of the statement \
                     tree (each `else if` is an `if` inside the `else` before it), which may be at most \
                     {STATEMENT_TREE_LIMIT} levels deep",
                    self.stmt_depth + self.chain
                ),
            ));
        }
        let r = self.stmt_inner();
        self.stmt_depth -= 1;
        r
    }

    pub(super) fn stmt_inner(&mut self) -> PResult<Option<Stmt>> {
        let pos = self.pos();
        let kind = match self.stmt_start() {
            Start::Empty => {
                self.bump();
                return Ok(None);
            }
            Start::Block => {
                self.bump();
                StmtKind::Block(tri!(self.block_rest(pos)))
            }
            Start::If => tri!(self.if_stmt()),
            Start::While => tri!(self.while_stmt()),
            Start::Simple => tri!(self.simple_stmt()),
        };
        Ok(Some(Stmt { kind, pos }))
    }

    pub(super) fn stmt_start(&mut self) -> Start {
        match self.kind() {
            T::Semi => Start::Empty,
            T::LBrace => Start::Block,
            T::Ident(s) if s == "if" => Start::If,
            T::Ident(s) if s == "while" => Start::While,
            _ => Start::Simple,
        }
    }

    /// `if (c) s [else if (c) s]* [else s]`: the `else if` arms are read
    /// in a loop, side by side, and nested (each the `else` of the one
    /// before) only once read.
    pub(super) fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = tri!(self.paren_cond("if"));
        let then = tri!(self.body());
        let mut arms: Vec<(Pos, Expr, Vec<Stmt>)> = Vec::new();
        let mut els = Vec::new();
        while self.at_ident("else") {
            self.bump();
            if !self.at_ident("if") {
                els = tri!(self.body());
                break;
            }
            let at = self.bump().pos;
            self.chain += 1;
            tri!(self.check_tree(at));
            let c = tri!(self.paren_cond("if"));
            let t = tri!(self.body());
            arms.push((at, c, t));
        }
        self.chain -= arms.len() as u32;
        for (pos, cond, then) in arms.into_iter().rev() {
            els = vec![Stmt {
                kind: StmtKind::If { cond, then, els },
                pos,
            }];
        }
        Ok(StmtKind::If { cond, then, els })
    }

    /// Fails at the `if` of an `else if` at `at` when it takes the
    /// statement tree past [`STATEMENT_TREE_LIMIT`].
    pub(super) fn check_tree(&mut self, at: Pos) -> PResult<()> {
        let level = self.stmt_depth + self.chain;
        if level > STATEMENT_TREE_LIMIT {
            return Err(Self::error(
                at,
                format!(
                    "`else if` chain too long: this `if` is level {level} of the statement tree (each `else if` \
                     is an `if` inside the `else` before it), which may be at most {STATEMENT_TREE_LIMIT} levels deep"
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = tri!(self.paren_cond("while"));
        let body = tri!(self.body());
        Ok(StmtKind::While { cond, body })
    }

    /// `( expr )` after `if` / `while`.
    pub(super) fn paren_cond(&mut self, kw: &str) -> PResult<Expr> {
        self.expect(&T::LParen, &format!("`(` after `{kw}`"))?;
        let e = self.expr()?;
        self.expect(&T::RParen, &format!("`)` to close the condition of `{kw}`"))?;
        Ok(e)
    }

    /// A statement without sub-statements: a declaration, an assignment, a
    /// store, an expression, a fence or a (labelled) barrier.
    pub(super) fn simple_stmt(&mut self) -> PResult<StmtKind> {
        let tok = self.peek().clone();
        match &tok.kind {
            T::Ident(s) if matches!(self.peek_at(1).kind, T::Colon) => {
                let label = s.clone();
                if !matches!(self.ident_at(2).as_deref(), Some("barrier" | "work_group_barrier")) {
                    return Err(Self::error(tok.pos, "labels are only supported before barrier"));
                }
                self.bump();
                self.bump();
                self.special(Some(label))
            }
            T::Ident(s) if is_stmt_function(s) => self.special(None),
            T::Ident(s) if is_type_start(s) => {
                let ty = self.parse_type()?;
                let (name, _) = self.name("a register name")?;
                let init = if self.eat(&T::Assign) { Some(self.expr()?) } else { None };
                self.expect(&T::Semi, "`;`")?;
                Ok(StmtKind::Decl { ty, name, init })
            }
            T::Ident(s) if is_reserved(s) && atomic_of(s).is_none() => Err(Self::error_at(&tok, "a statement")),
            T::Ident(_) | T::Int(_) | T::LParen | T::Minus | T::Bang | T::Tilde | T::Star | T::Amp => {
                let lhs = self.expr()?;
                let kind = if self.eat(&T::Assign) {
                    let value = self.expr()?;
                    let lpos = lhs.pos;
                    match lhs.kind {
                        ExprKind::Var(name) => StmtKind::AssignReg { name, value },
                        ExprKind::Deref(addr) => StmtKind::Store { addr: *addr, value },
                        ExprKind::Index(a, i) => StmtKind::Store {
                            addr: Expr {
                                kind: ExprKind::Binary(a, vec![(BinOp::Add, *i)]),
                                pos: lpos,
                            },
                            value,
                        },
                        _ => {
                            return Err(Self::error(
                                lpos,
                                "expected a register, `*p` or `p[i]` on the left of `=`, found another expression",
                            ))
                        }
                    }
                } else {
                    StmtKind::Expr(lhs)
                };
                self.expect(&T::Semi, "`;`")?;
                Ok(kind)
            }
            _ => Err(Self::error_at(&tok, "a statement")),
        }
    }

    /// Fences and barriers, up to and including the `;`.
    pub(super) fn special(&mut self, label: Option<String>) -> PResult<StmtKind> {
        let tok = self.bump();
        let name = match &tok.kind {
            T::Ident(s) => s.clone(),
            _ => return Err(Self::error_at(&tok, "a fence or barrier")),
        };
        self.expect(&T::LParen, &format!("`(` after `{name}`"))?;
        let kind = match name.as_str() {
            "atomic_thread_fence" => {
                let (order, consume, _) = self.order("a memory order")?;
                let scope = if self.eat(&T::Comma) {
                    Some(self.scope("a memory scope")?)
                } else {
                    None
                };
                StmtKind::Fence {
                    flags: Vec::new(),
                    order,
                    consume,
                    scope,
                }
            }
            "atomic_work_item_fence" => {
                let flags = self.flags()?;
                self.expect(&T::Comma, "`,` and a memory order")?;
                let (order, consume, _) = self.order("a memory order")?;
                self.expect(&T::Comma, "`,` and a memory scope")?;
                let scope = Some(self.scope("a memory scope")?);
                StmtKind::Fence {
                    flags,
                    order,
                    consume,
                    scope,
                }
            }
            "barrier" => StmtKind::Barrier {
                label,
                flags: self.flags()?,
                scope: None,
            },
            _ => {
                let flags = self.flags()?;
                let scope = if self.eat(&T::Comma) {
                    Some(self.scope("a memory scope")?)
                } else {
                    None
                };
                StmtKind::Barrier { label, flags, scope }
            }
        };
        self.expect(&T::RParen, &format!("`)` to close the call to `{name}`"))?;
        self.expect(&T::Semi, "`;`")?;
        Ok(kind)
    }

    /// `CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE`.
    pub(super) fn flags(&mut self) -> PResult<Vec<MemFlag>> {
        let mut flags = Vec::new();
        loop {
            let f = self
                .ident_at(0)
                .and_then(|s| flag_of(&s))
                .ok_or_else(|| self.expected("`CLK_LOCAL_MEM_FENCE` or `CLK_GLOBAL_MEM_FENCE`"))?;
            self.bump();
            if !flags.contains(&f) {
                flags.push(f);
            }
            if !self.eat(&T::Pipe) {
                return Ok(flags);
            }
        }
    }

    /// A memory order: the order, whether it was written
    /// `memory_order_consume`, and where.
    pub(super) fn order(&mut self, what: &str) -> PResult<(Order, bool, Pos)> {
        match self.ident_at(0).and_then(|s| order_of(&s)) {
            Some((o, consume)) => Ok((o, consume, self.bump().pos)),
            None => Err(self.expected(what)),
        }
    }

    pub(super) fn scope(&mut self, what: &str) -> PResult<Scope> {
        match self.ident_at(0).and_then(|s| scope_of(&s)) {
            Some(s) => {
                self.bump();
                Ok(s)
            }
            None => Err(self.expected(what)),
        }
    }
}
