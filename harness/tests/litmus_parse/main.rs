//! The litmus parser: every corpus test parses, exact trees for a few
//! tests, exact messages and positions for malformed inputs, nesting limits,
//! and a deterministic fuzz run (truncations and random mutations of the
//! corpus) that must never panic and always give a located error.

use scopecheck::litmus::ast::*;
use scopecheck::litmus::{parse, ParseError};
use std::path::PathBuf;

mod corpus;
mod errors;
mod forms;
mod fuzz;
mod herd_headers;
mod trees;

// ---- tree builders, shared by the modules ----

fn p(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

fn int(v: i64, line: u32, col: u32) -> Expr {
    Expr {
        kind: ExprKind::Int(v),
        pos: p(line, col),
    }
}

fn var(n: &str, line: u32, col: u32) -> Expr {
    Expr {
        kind: ExprKind::Var(n.into()),
        pos: p(line, col),
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let pos = a.pos;
    Expr {
        kind: ExprKind::Binary(Box::new(a), vec![(op, b)]),
        pos,
    }
}

fn ty(base: &str, atomic: bool, pointer: u8) -> Type {
    Type {
        space: None,
        atomic,
        volatile: false,
        base: base.into(),
        pointer,
    }
}

fn spaced(space: AddressSpace, t: Type) -> Type {
    Type {
        space: Some(space),
        ..t
    }
}

fn param(t: Type, name: &str, line: u32, col: u32) -> Param {
    Param {
        ty: t,
        name: name.into(),
        pos: p(line, col),
    }
}

fn stmt(kind: StmtKind, line: u32, col: u32) -> Stmt {
    Stmt {
        kind,
        pos: p(line, col),
    }
}

#[allow(clippy::too_many_arguments)]
fn call(
    op: AtomicOp,
    addr: Expr,
    args: Vec<Expr>,
    order: Order,
    failure: Option<Order>,
    scope: Option<Scope>,
    class: Option<RlxClass>,
    line: u32,
    col: u32,
) -> Expr {
    Expr {
        kind: ExprKind::Atomic(Box::new(AtomicCall {
            op,
            addr,
            args,
            order,
            consume: false,
            failure,
            failure_consume: false,
            scope,
            class,
        })),
        pos: p(line, col),
    }
}

fn decl(name: &str, t: Type, init: Option<Expr>) -> StmtKind {
    StmtKind::Decl {
        ty: t,
        name: name.into(),
        init,
    }
}

fn reg(thread: u32, r: &str) -> StateVar {
    StateVar::Reg { thread, reg: r.into() }
}

fn loc(name: &str, index: u32) -> StateVar {
    StateVar::Loc {
        name: name.into(),
        index,
    }
}

/// `a /\ b` as the parser gathers it: a conjunction on the left (written
/// without parentheses) is extended, so `and(and(p, q), r)` is `p /\ q /\ r`.
fn and(a: Prop, b: Prop) -> Prop {
    match a {
        Prop::And(mut all) => {
            all.push(b);
            Prop::And(all)
        }
        a => Prop::And(vec![a, b]),
    }
}

/// `a \/ b`, gathered like [`and`].
fn or(a: Prop, b: Prop) -> Prop {
    match a {
        Prop::Or(mut all) => {
            all.push(b);
            Prop::Or(all)
        }
        a => Prop::Or(vec![a, b]),
    }
}

const SB: &str = "C SB
{ x = 0; [y] = 0; }
P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
}
P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (0:r0=0 /\\ 1:r0=0)
";

/// An expression fully parenthesised.
fn show(e: &Expr) -> String {
    let op = |o: BinOp| match o {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "&&",
        BinOp::Or => "||",
    };
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Var(n) => n.clone(),
        ExprKind::Deref(a) => format!("(*{})", show(a)),
        ExprKind::AddrOf(n) => format!("(&{n})"),
        ExprKind::Index(a, i) => format!("{}[{}]", show(a), show(i)),
        ExprKind::Unary(UnOp::Neg, a) => format!("(-{})", show(a)),
        ExprKind::Unary(UnOp::Not, a) => format!("(!{})", show(a)),
        ExprKind::Unary(UnOp::BitNot, a) => format!("(~{})", show(a)),
        // A chain shown as the left-associative tree it means.
        ExprKind::Binary(first, rest) => rest
            .iter()
            .fold(show(first), |acc, (o, b)| format!("({acc} {} {})", op(*o), show(b))),
        ExprKind::Atomic(c) => {
            let args: Vec<String> = std::iter::once(&c.addr).chain(&c.args).map(show).collect();
            format!("{:?}({})", c.op, args.join(", "))
        }
    }
}

/// Parses `int r = <e>;` in a thread and shows the initialiser.
fn show_expr(e: &str) -> String {
    let src = format!("C e\n{{}}\nP0 (int* p, int* q) {{\n  int r = {e};\n}}\n");
    let t = parse(&src).unwrap_or_else(|err| panic!("{e}: {err}"));
    let StmtKind::Decl { init: Some(init), .. } = &t.threads[0].body[0].kind else {
        panic!()
    };
    show(init)
}
