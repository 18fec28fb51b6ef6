//! Expressions: C's operators by precedence, literals, prefix and postfix
//! forms, and atomic calls with the checks on their orders and classes.

use super::*;

/// A prefix operator of an expression.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Prefix {
    Neg,
    Not,
    BitNot,
    Deref,
    AddrOf,
}

impl Parser {
    // ---- expressions ----
    //
    // The recursive path is binary -> unary -> unary_inner -> postfix ->
    // primary -> (binary | atomic_call -> binary); everything else (error
    // messages, literal and node building, order checks) lives in helpers
    // called outside that path.

    pub(super) fn expr(&mut self) -> PResult<Expr> {
        Ok(self.binary(0)?.0)
    }

    pub(super) fn binop(k: &T) -> Option<(BinOp, u8)> {
        Some(match k {
            T::PipePipe => (BinOp::Or, 1),
            T::AmpAmp => (BinOp::And, 2),
            T::Pipe => (BinOp::BitOr, 3),
            T::Caret => (BinOp::BitXor, 4),
            T::Amp => (BinOp::BitAnd, 5),
            T::EqEq => (BinOp::Eq, 6),
            T::NotEq => (BinOp::Ne, 6),
            T::Lt => (BinOp::Lt, 7),
            T::Le => (BinOp::Le, 7),
            T::Gt => (BinOp::Gt, 7),
            T::Ge => (BinOp::Ge, 7),
            T::Shl => (BinOp::Shl, 8),
            T::Shr => (BinOp::Shr, 8),
            T::Plus => (BinOp::Add, 9),
            T::Minus => (BinOp::Sub, 9),
            T::Star => (BinOp::Mul, 10),
            T::Slash => (BinOp::Div, 10),
            T::Percent => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    /// Precedence climbing over binary operators of precedence `min` and up
    /// (all left-associative). The operators met in this loop never rise in
    /// precedence (a higher one is taken by the recursive call for its right
    /// operand), so a run of one precedence is gathered into one flat
    /// [`ExprKind::Binary`] chain, and a drop to a lower precedence makes the
    /// chain so far the first operand of the next. A chain is one level of
    /// nesting however long it is: only its operands' own nesting counts.
    pub(super) fn binary(&mut self, min: u8) -> PResult<WithHeight<Expr>> {
        let (mut first, mut h) = tri!(self.unary());
        let mut rest: Vec<(BinOp, Expr)> = Vec::new();
        let mut level = 0;
        let mut chain_at = first.pos;
        while let Some((op, prec)) = Self::binop(self.kind()).filter(|&(_, p)| p >= min) {
            let op_pos = self.bump().pos;
            if rest.is_empty() {
                chain_at = op_pos;
            } else if prec != level {
                (first, h) = tri!(Self::chain(first, std::mem::take(&mut rest), h, chain_at));
                chain_at = op_pos;
            }
            level = prec;
            let (rhs, rh) = tri!(self.binary(prec + 1));
            h = h.max(rh);
            rest.push((op, rhs));
        }
        if rest.is_empty() {
            Ok((first, h))
        } else {
            Self::chain(first, rest, h, chain_at)
        }
    }

    /// The chain `first op rest...`, one level over its highest operand
    /// (of height `h`); `at` is its first operator, blamed if too deep.
    pub(super) fn chain(first: Expr, rest: Vec<(BinOp, Expr)>, h: u32, at: Pos) -> PResult<WithHeight<Expr>> {
        let h = tri!(Self::height(at, h, 0, "expression"));
        let pos = first.pos;
        Ok((
            Expr {
                kind: ExprKind::Binary(Box::new(first), rest),
                pos,
            },
            h,
        ))
    }

    pub(super) fn unary(&mut self) -> PResult<WithHeight<Expr>> {
        tri!(self.enter("expression"));
        let r = self.unary_inner();
        self.leave();
        r
    }

    pub(super) fn unary_inner(&mut self) -> PResult<WithHeight<Expr>> {
        let pos = self.pos();
        let prefix = match self.kind() {
            T::Minus => Prefix::Neg,
            T::Bang => Prefix::Not,
            T::Tilde => Prefix::BitNot,
            T::Star => Prefix::Deref,
            T::Amp => Prefix::AddrOf,
            _ => return self.postfix(),
        };
        if prefix == Prefix::Neg && self.negative_literal_ahead() {
            return self.negative_literal();
        }
        self.bump();
        let (e, h) = tri!(self.unary());
        Self::prefix_node(prefix, e, h, pos)
    }

    /// `- N` not followed by `[` or `(`: read as one negative literal.
    pub(super) fn negative_literal_ahead(&mut self) -> bool {
        matches!(self.peek_at(1).kind, T::Int(_)) && !matches!(self.peek_at(2).kind, T::LBracket | T::LParen)
    }

    pub(super) fn negative_literal(&mut self) -> PResult<WithHeight<Expr>> {
        let pos = self.bump().pos;
        let lit = self.bump();
        let v = match lit.kind {
            T::Int(v) => v,
            _ => return Err(Self::error_at(&lit, "an integer")),
        };
        let v = i64::try_from(-i128::from(v)).map_err(|_| Self::error(lit.pos, "integer out of range"))?;
        Ok((
            Expr {
                kind: ExprKind::Int(v),
                pos,
            },
            1,
        ))
    }

    /// The node for a prefix operator at `pos` applied to `e` (of height `h`).
    pub(super) fn prefix_node(prefix: Prefix, e: Expr, h: u32, pos: Pos) -> PResult<WithHeight<Expr>> {
        let h = Self::height(pos, h, 0, "expression")?;
        let kind = match prefix {
            Prefix::Neg => ExprKind::Unary(UnOp::Neg, Box::new(e)),
            Prefix::Not => ExprKind::Unary(UnOp::Not, Box::new(e)),
            Prefix::BitNot => ExprKind::Unary(UnOp::BitNot, Box::new(e)),
            Prefix::Deref => ExprKind::Deref(Box::new(e)),
            Prefix::AddrOf => match e.kind {
                ExprKind::Var(n) => ExprKind::AddrOf(n),
                // `&p[i]` is `p + i`, `&*p` is `p`.
                ExprKind::Index(a, i) => ExprKind::Binary(a, vec![(BinOp::Add, *i)]),
                ExprKind::Deref(inner) => return Ok((*inner, h)),
                _ => {
                    return Err(Self::error(
                        e.pos,
                        "expected a variable, `p[i]` or `*p` after `&`, found another expression",
                    ))
                }
            },
        };
        Ok((Expr { kind, pos }, h))
    }

    pub(super) fn postfix(&mut self) -> PResult<WithHeight<Expr>> {
        let (mut e, mut h) = tri!(self.primary());
        while self.at(&T::LBracket) {
            let open = self.bump().pos;
            let (i, ih) = tri!(self.binary(0));
            tri!(self.close(Close::Bracket, open));
            h = tri!(Self::height(open, h, ih, "expression"));
            let pos = e.pos;
            e = Expr {
                kind: ExprKind::Index(Box::new(e), Box::new(i)),
                pos,
            };
        }
        Ok((e, h))
    }

    /// A parenthesised expression, an atomic call, a literal or a variable.
    pub(super) fn primary(&mut self) -> PResult<WithHeight<Expr>> {
        if self.at(&T::LParen) {
            let open = self.bump().pos;
            let e = tri!(self.binary(0));
            tri!(self.close(Close::Paren, open));
            return Ok(e);
        }
        match tri!(self.call_ahead()) {
            Some((op, explicit)) => self.atomic_call(op, explicit),
            None => self.leaf(),
        }
    }

    /// At `name (`: the atomic operation called, or an error for any other function.
    pub(super) fn call_ahead(&mut self) -> PResult<Option<(AtomicOp, bool)>> {
        if !matches!(self.peek_at(1).kind, T::LParen) {
            return Ok(None);
        }
        let tok = self.peek().clone();
        let T::Ident(name) = &tok.kind else {
            return Ok(None);
        };
        if let Some(a) = atomic_of(name) {
            return Ok(Some(a));
        }
        Err(if is_stmt_function(name) {
            Self::error(
                tok.pos,
                format!("expected an expression, found `{name}` (a statement, not a value)"),
            )
        } else if is_reserved(name) {
            Self::error_at(&tok, "an expression")
        } else {
            Self::error(
                tok.pos,
                format!("unknown function `{name}` (expected an atomic operation such as `atomic_load_explicit`)"),
            )
        })
    }

    /// An integer literal or a variable.
    pub(super) fn leaf(&mut self) -> PResult<WithHeight<Expr>> {
        let tok = self.peek().clone();
        let kind = match &tok.kind {
            T::Int(v) => ExprKind::Int(i64::try_from(*v).map_err(|_| Self::error(tok.pos, "integer out of range"))?),
            T::Ident(name) if !is_reserved(name) => ExprKind::Var(name.clone()),
            _ => return Err(Self::error_at(&tok, "an expression")),
        };
        self.bump();
        Ok((Expr { kind, pos: tok.pos }, 1))
    }

    /// `atomic_<op>[_explicit]( ... )`, the name being the current token.
    pub(super) fn atomic_call(&mut self, op: AtomicOp, explicit: bool) -> PResult<WithHeight<Expr>> {
        let pos = self.bump().pos;
        tri!(self.call_open(op, explicit));
        let (addr, mut h) = tri!(self.binary(0));
        let mut args = Vec::new();
        for role in value_roles(op) {
            tri!(self.arg_comma(role));
            let (a, ah) = tri!(self.binary(0));
            h = h.max(ah);
            args.push(a);
        }
        let call = tri!(self.atomic_tail(op, explicit, addr, args));
        let h = tri!(Self::height(pos, h, 0, "expression"));
        Ok((
            Expr {
                kind: ExprKind::Atomic(Box::new(call)),
                pos,
            },
            h,
        ))
    }

    pub(super) fn call_open(&mut self, op: AtomicOp, explicit: bool) -> PResult<()> {
        if self.eat(&T::LParen) {
            return Ok(());
        }
        Err(self.expected(&format!("`(` after `{}`", atomic_name(op, explicit))))
    }

    pub(super) fn arg_comma(&mut self, role: &str) -> PResult<()> {
        if self.eat(&T::Comma) {
            return Ok(());
        }
        Err(self.expected(&format!("`,` and {role}")))
    }

    /// The orders, scope and class of an atomic call, and its `)`.
    pub(super) fn atomic_tail(
        &mut self,
        op: AtomicOp,
        explicit: bool,
        addr: Expr,
        args: Vec<Expr>,
    ) -> PResult<AtomicCall> {
        let name = atomic_name(op, explicit);
        let cas = matches!(op, AtomicOp::CasStrong | AtomicOp::CasWeak);
        let mut call = AtomicCall {
            op,
            addr,
            args,
            order: Order::SeqCst,
            consume: false,
            failure: if cas { Some(Order::SeqCst) } else { None },
            failure_consume: false,
            scope: None,
            class: None,
        };
        if explicit {
            let what = if cas {
                "`,` and the success memory order"
            } else {
                "`,` and a memory order"
            };
            self.expect(&T::Comma, what)?;
            let (order, consume, opos) = self.order("a memory order")?;
            let bad = match op {
                AtomicOp::Load => matches!(order, Order::Release | Order::AcqRel).then_some("a load"),
                // Consume is read as acquire, so this refuses it too.
                AtomicOp::Store => matches!(order, Order::Acquire | Order::AcqRel).then_some("a store"),
                _ => None,
            };
            if let Some(what) = bad {
                return Err(Self::error(
                    opos,
                    format!("{} is not a valid order for {what}", order_name(order, consume)),
                ));
            }
            call.order = order;
            call.consume = consume;
            // C forbids release failure orders; herd's OpenCL tests (CT_wsq2
            // in the public corpus) use them, so OPENCL tests may, and so
            // may an OpenCL call (one with a memory scope) in a test headed
            // `C` (Dat3M's copy of CT_wsq2 is): the error waits for the scope.
            let mut bad_failure = None;
            if cas {
                self.expect(&T::Comma, "`,` and the failure memory order")?;
                let (failure, failure_consume, fpos) = self.order("the failure memory order")?;
                if self.arch == Arch::C && matches!(failure, Order::Release | Order::AcqRel) {
                    bad_failure = Some(Self::error(
                        fpos,
                        format!(
                            "{} is not a valid failure order for a compare-exchange",
                            order_name(failure, failure_consume)
                        ),
                    ));
                }
                call.failure = Some(failure);
                call.failure_consume = failure_consume;
            }
            if self.eat(&T::Comma) {
                let t = self.peek().clone();
                match self.ident_at(0) {
                    Some(s) if scope_of(&s).is_some() => {
                        call.scope = scope_of(&s);
                        self.bump();
                        if self.eat(&T::Comma) {
                            call.class = Some(self.class(order, consume)?);
                        }
                    }
                    Some(s) if class_of(&s).is_some() => call.class = Some(self.class(order, consume)?),
                    _ => return Err(Self::error_at(&t, "a memory scope or a DRFrlx class")),
                }
            }
            if let Some(e) = bad_failure.filter(|_| call.scope.is_none()) {
                return Err(e);
            }
        } else if self.at(&T::Comma) {
            return Err(self.expected(&format!(
                "`)` to close the call to `{name}` (orders and scopes go in `{name}_explicit`)"
            )));
        }
        self.expect(&T::RParen, &format!("`)` to close the call to `{name}`"))?;
        Ok(call)
    }

    /// A DRFrlx class, allowed after a relaxed order only.
    pub(super) fn class(&mut self, order: Order, consume: bool) -> PResult<RlxClass> {
        let t = self.peek().clone();
        let class = self
            .ident_at(0)
            .and_then(|s| class_of(&s))
            .ok_or_else(|| Self::error_at(&t, "a DRFrlx class (`rlx_unpaired`, ...)"))?;
        if order != Order::Relaxed {
            return Err(Self::error(
                t.pos,
                format!(
                    "DRFrlx classes apply to relaxed atomics only (this one is {})",
                    order_name(order, consume)
                ),
            ));
        }
        self.bump();
        Ok(class)
    }
}
