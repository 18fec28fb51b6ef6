//! The condition and `filter` of Dat3M's `PTX` and `Vulkan` litmus tests
//! (`exists`, `~exists`, `forall` over registers and locations, with
//! aliases naming their locations). Split out of `gpu.rs`.

use super::ast::*;
use super::gpu::{err, is_name, thread_index, Aliases, Src};
use super::parser::ParseError;

/// The condition: `exists`, `~exists` or `forall` and a proposition over
/// `P0:r0 == 1`, `x == 2`, `P0:r1 == P0:r2`, `!=`, `/\`, `\/`, `~`.
pub(super) fn condition(s: &mut Src<'_>, aliases: &Aliases) -> Result<Condition, ParseError> {
    let pos = s.pos();
    let quantifier = if s.peek() == Some(b'~') {
        s.bump();
        s.skip_ws();
        for _ in 0.."exists".len() {
            s.bump();
        }
        Quantifier::NotExists
    } else {
        let (w, _) = s.until(b" \t\r\n(");
        if w == "exists" {
            Quantifier::Exists
        } else {
            Quantifier::Forall
        }
    };
    let mut p = Props {
        s,
        aliases,
        vars: Vec::new(),
    };
    let prop = p.or()?;
    p.s.skip_ws();
    if p.s.peek().is_some() {
        return Err(err(p.s.pos(), "unexpected text after the condition"));
    }
    let vars = std::mem::take(&mut p.vars);
    Ok(Condition {
        quantifier,
        prop,
        pos,
        vars,
        filter: None,
        filter_only: false,
    })
}

/// `filter P` (herd's): the proposition executions must satisfy to be kept,
/// with the state variables it names. It ends where the condition starts.
pub(super) fn filter_prop(s: &mut Src<'_>, aliases: &Aliases) -> Result<(Prop, Vec<(StateVar, Pos)>), ParseError> {
    for _ in 0.."filter".len() {
        s.bump();
    }
    let mut p = Props {
        s,
        aliases,
        vars: Vec::new(),
    };
    let prop = p.or()?;
    Ok((prop, p.vars))
}

/// `locations [x; P0:r1;]` (Dat3M's grammars, after the thread table):
/// more state variables for the final states to show.
pub(super) fn locations(s: &mut Src<'_>, aliases: &Aliases) -> Result<Vec<StateVar>, ParseError> {
    for _ in 0.."locations".len() {
        s.bump();
    }
    s.skip_ws();
    if s.peek() != Some(b'[') {
        return Err(err(s.pos(), "expected `[` after `locations`"));
    }
    s.bump();
    let mut p = Props {
        s,
        aliases,
        vars: Vec::new(),
    };
    loop {
        p.s.skip_ws();
        match p.s.peek() {
            Some(b']') => {
                p.s.bump();
                break;
            }
            Some(b';') => {
                p.s.bump();
            }
            None => return Err(err(p.s.pos(), "expected `]` ending the locations list")),
            Some(_) => {
                let at = p.s.pos();
                if let Term::Int(_) = p.term()? {
                    return Err(err(at, "expected a location or a register in the locations list"));
                }
            }
        }
    }
    p.s.skip_ws();
    if p.s.peek() == Some(b';') {
        p.s.bump();
    }
    Ok(p.vars.into_iter().map(|(v, _)| v).collect())
}

struct Props<'s, 'a> {
    s: &'s mut Src<'a>,
    aliases: &'s Aliases,
    vars: Vec<(StateVar, Pos)>,
}

impl Props<'_, '_> {
    fn eat(&mut self, t: &str) -> bool {
        self.s.skip_ws();
        if self.s.s[self.s.i..].starts_with(t.as_bytes()) {
            for _ in 0..t.len() {
                self.s.bump();
            }
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Result<Prop, ParseError> {
        let mut all = vec![self.and()?];
        while self.eat("\\/") {
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.pop().expect("one")
        } else {
            Prop::Or(all)
        })
    }
    fn and(&mut self) -> Result<Prop, ParseError> {
        let mut all = vec![self.atom()?];
        while self.eat("/\\") {
            all.push(self.atom()?);
        }
        Ok(if all.len() == 1 {
            all.pop().expect("one")
        } else {
            Prop::And(all)
        })
    }
    fn atom(&mut self) -> Result<Prop, ParseError> {
        if self.eat("~") || self.eat("!") {
            return Ok(Prop::Not(Box::new(self.atom()?)));
        }
        if self.eat("(") {
            let p = self.or()?;
            if !self.eat(")") {
                return Err(err(self.s.pos(), "expected `)`"));
            }
            return Ok(p);
        }
        if self.eat("true") {
            return Ok(Prop::True);
        }
        if self.eat("false") {
            return Ok(Prop::False);
        }
        let left = self.term()?;
        let eq = if self.eat("==") || self.eat("=") {
            true
        } else if self.eat("!=") {
            false
        } else {
            return Err(err(self.s.pos(), "expected `==` or `!=`"));
        };
        let right = self.term()?;
        let p = match (left, right) {
            (Term::Int(a), Term::Int(b)) => {
                if a == b {
                    Prop::True
                } else {
                    Prop::False
                }
            }
            (Term::Var(v), Term::Int(x)) | (Term::Int(x), Term::Var(v)) => Prop::Eq(v, Value::Int(x)),
            (Term::Var(a), Term::Var(b)) => Prop::Same(a, b),
        };
        Ok(if eq { p } else { Prop::Not(Box::new(p)) })
    }
    fn term(&mut self) -> Result<Term, ParseError> {
        self.s.skip_ws();
        let at = self.s.pos();
        let word = |s: &mut Src<'_>| {
            let start = s.i;
            while s
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':' || c == b'-')
            {
                s.bump();
            }
            String::from_utf8_lossy(&s.s[start..s.i]).into_owned()
        };
        let mut w = word(self.s);
        // Dat3M's grammar reads `P3: r0` and `P3 : r0` as `P3:r0` (the
        // thread, the colon and the register are separate tokens there).
        let thread = w.strip_suffix(':').unwrap_or(&w);
        if !thread.contains(':') && thread_index(thread).is_some() {
            let back = self.s.clone();
            self.s.skip_ws();
            if !w.ends_with(':') && self.s.peek() == Some(b':') {
                self.s.bump();
                w.push(':');
            }
            self.s.skip_ws();
            if w.ends_with(':') && self.s.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                w.push_str(&word(self.s));
            } else {
                *self.s = back;
            }
        }
        if let Ok(v) = w.parse::<i64>() {
            return Ok(Term::Int(v));
        }
        let var = match w.split_once(':') {
            Some((t, reg)) => match thread_index(t) {
                Some(thread) if is_name(reg) => StateVar::Reg {
                    thread,
                    reg: reg.to_string(),
                },
                _ => return Err(err(at, format!("expected `P<n>:<register>`, found `{w}`"))),
            },
            None if is_name(&w) => StateVar::Loc {
                name: self.aliases.get(&w).map_or(w, |(p, _)| p.clone()),
                index: 0,
            },
            None => {
                return Err(err(
                    at,
                    format!("expected a register, a location or an integer, found `{w}`"),
                ))
            }
        };
        self.vars.push((var.clone(), at));
        Ok(Term::Var(var))
    }
}

enum Term {
    Int(i64),
    Var(StateVar),
}
