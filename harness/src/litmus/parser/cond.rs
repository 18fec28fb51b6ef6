//! The `locations` list and the final condition: propositions over state
//! variables and values.

use super::*;

impl Parser {
    // ---- condition ----

    pub(super) fn locations(&mut self) -> PResult<Vec<StateVar>> {
        self.expect(&T::LBracket, "`[` after `locations`")?;
        let mut v = Vec::new();
        loop {
            if self.eat(&T::RBracket) {
                return Ok(v);
            }
            v.push(self.state_var("a location or register to observe, or `]`")?);
            if !self.eat(&T::Semi) && !self.at(&T::RBracket) {
                return Err(self.expected("`;` or `]` in the locations list"));
            }
        }
    }

    pub(super) fn condition(&mut self) -> PResult<Condition> {
        let pos = self.pos();
        let quantifier = if self.at_ident("exists") {
            self.bump();
            Quantifier::Exists
        } else if self.at_ident("forall") {
            self.bump();
            Quantifier::Forall
        } else {
            self.expect(&T::Tilde, "`exists`, `~exists` or `forall`")?;
            if !self.at_ident("exists") {
                return Err(self.expected("`exists` after `~`"));
            }
            self.bump();
            Quantifier::NotExists
        };
        let (prop, _) = self.prop_or()?;
        let vars = std::mem::take(&mut self.cond_vars);
        Ok(Condition {
            quantifier,
            prop,
            pos,
            vars,
            filter: None,
            filter_only: false,
        })
    }

    pub(super) fn prop_or(&mut self) -> PResult<WithHeight<Prop>> {
        self.prop_chain(&T::Disj, Self::prop_and, Prop::Or)
    }

    pub(super) fn prop_and(&mut self) -> PResult<WithHeight<Prop>> {
        self.prop_chain(&T::Conj, Self::prop_unary, Prop::And)
    }

    /// `p sep q sep ...` of operands parsed by `operand`, gathered flat into
    /// `make` (a lone operand stands for itself): one level of nesting
    /// however many operands, so a generated condition of thousands of
    /// conjuncts is not taken for deep nesting.
    pub(super) fn prop_chain(
        &mut self,
        sep: &T,
        operand: fn(&mut Self) -> PResult<WithHeight<Prop>>,
        make: fn(Vec<Prop>) -> Prop,
    ) -> PResult<WithHeight<Prop>> {
        let (p, mut h) = tri!(operand(self));
        if !self.at(sep) {
            return Ok((p, h));
        }
        let at = self.pos();
        let mut all = vec![p];
        while self.eat(sep) {
            let (q, qh) = tri!(operand(self));
            h = h.max(qh);
            all.push(q);
        }
        let h = tri!(Self::height(at, h, 0, "condition"));
        Ok((make(all), h))
    }

    pub(super) fn prop_unary(&mut self) -> PResult<WithHeight<Prop>> {
        tri!(self.enter("condition"));
        let r = self.prop_unary_inner();
        self.leave();
        r
    }

    /// `~p`, `not p`, `(p)` or an atom.
    pub(super) fn prop_unary_inner(&mut self) -> PResult<WithHeight<Prop>> {
        let pos = self.pos();
        if self.at(&T::Tilde) || self.at_ident("not") {
            self.bump();
            let (p, h) = tri!(self.prop_unary());
            let h = tri!(Self::height(pos, h, 0, "condition"));
            return Ok((Prop::Not(Box::new(p)), h));
        }
        if self.eat(&T::LParen) {
            let p = tri!(self.prop_or());
            tri!(self.close(Close::Paren, pos));
            return Ok(p);
        }
        self.prop_atom()
    }

    /// `true`, `false`, or `var = value` / `var == value` / `var != value`.
    pub(super) fn prop_atom(&mut self) -> PResult<WithHeight<Prop>> {
        if self.at_ident("true") {
            self.bump();
            return Ok((Prop::True, 1));
        }
        if self.at_ident("false") {
            self.bump();
            return Ok((Prop::False, 1));
        }
        let at = self.pos();
        let var = self.state_var("a proposition (`0:r0 = 1`, `x = 1`, `true`, `~`, `(`)")?;
        self.cond_vars.push((var.clone(), at));
        let eq = match self.kind() {
            T::Assign | T::EqEq => true,
            T::NotEq => false,
            _ => return Err(self.expected("`=` or `!=`")),
        };
        self.bump();
        let value = self.value()?;
        Ok((if eq { Prop::Eq(var, value) } else { Prop::Ne(var, value) }, 1))
    }

    /// `N:r`, `PN:r`, `x`, `[x]`, `x[N]`.
    pub(super) fn state_var(&mut self, what: &str) -> PResult<StateVar> {
        let tok = self.peek().clone();
        match &tok.kind {
            T::Int(_) => {
                let thread = self.u32_lit(what)?;
                self.expect(&T::Colon, "`:` after the thread number")?;
                let (reg, _) = self.name("a register name")?;
                Ok(StateVar::Reg { thread, reg })
            }
            T::LBracket => {
                self.bump();
                let (name, index) = self.loc_element()?;
                self.expect(&T::RBracket, "`]`")?;
                Ok(StateVar::Loc { name, index })
            }
            T::Ident(s) => {
                if let (Some(n), true) = (thread_name(s), matches!(self.peek_at(1).kind, T::Colon)) {
                    let thread = n.map_err(|_| Self::error(tok.pos, "integer out of range"))?;
                    self.bump();
                    self.bump();
                    let (reg, _) = self.name("a register name")?;
                    return Ok(StateVar::Reg { thread, reg });
                }
                if is_reserved(s) {
                    return Err(Self::error_at(&tok, what));
                }
                let (name, index) = self.loc_element()?;
                Ok(StateVar::Loc { name, index })
            }
            _ => Err(Self::error_at(&tok, what)),
        }
    }

    /// `x` or `x[N]`.
    pub(super) fn loc_element(&mut self) -> PResult<(String, u32)> {
        let (name, _) = self.name("a location name")?;
        let mut index = 0;
        if self.eat(&T::LBracket) {
            index = self.u32_lit("an element index")?;
            self.expect(&T::RBracket, "`]`")?;
        }
        Ok((name, index))
    }

    /// A value in a condition: an integer, `x`, `x[N]` or `&x`.
    pub(super) fn value(&mut self) -> PResult<Value> {
        const WHAT: &str = "a value (an integer or a location name)";
        match self.kind() {
            T::Int(_) | T::Minus => Ok(Value::Int(self.signed_lit(WHAT)?)),
            T::Amp => {
                self.bump();
                let (name, index) = self.loc_element()?;
                Ok(Value::Addr { name, index })
            }
            T::Ident(s) if !is_reserved(s) => {
                let (name, index) = self.loc_element()?;
                Ok(Value::Addr { name, index })
            }
            _ => Err(self.expected(WHAT)),
        }
    }
}
