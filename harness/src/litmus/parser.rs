//! A hand-written recursive-descent parser for litmus tests in herd's and
//! Dat3M's C dialect plus scopecheck's extensions.
//!
//! The grammar, informally:
//!
//! ```text
//! test      := ("C" | "OPENCL") name-to-end-of-line init thread+ [locations] [condition [";"]]
//! init      := "{" [entry (";" entry)* [";"]] "}"
//! entry     := ("[" x "]" | x | type x | type x "[" N "]" | [P]N ":" r) "=" value
//! value     := ["-"] N | x | "&" x | "{" [["-"] N ("," ["-"] N)* [","]] "}"   (lists for arrays only)
//! thread    := PN ["@" level N ("," level N)*] "(" [type x ("," type x)*] ")" "{" stmt* "}"
//! stmt      := ";" | "{" stmt* "}" | type r ["=" expr] ";" | lvalue "=" expr ";" | expr ";"
//!            | "if" "(" expr ")" stmt ["else" stmt] | "while" "(" expr ")" stmt
//!            | [label ":"] ("barrier" "(" flags ")" | "work_group_barrier" "(" flags ["," scope] ")") ";"
//!            | "atomic_thread_fence" "(" order ["," scope] ")" ";"
//!            | "atomic_work_item_fence" "(" flags "," order "," scope ")" ";"
//! expr      := C expressions over || && | ^ & == != < <= > >= << >> + - * / %,
//!              unary - ! ~ * &, e[i], (e), integers, variables, atomic calls
//! condition := ["filter" prop] ("exists" | "~" "exists" | "forall") prop
//! prop      := prop "\/" prop | prop "/\" prop | "~" prop | "not" prop | "(" prop ")"
//!            | "true" | "false" | var ("=" | "==" | "!=") value
//! var       := [P]N ":" r | x | "[" x "]" | x "[" N "]"
//! ```
//!
//! Checks made while parsing: thread indices are distinct; orders are valid
//! for their operation as in C (no release / acq_rel load, no acquire /
//! consume / acq_rel store, no release / acq_rel compare-exchange failure
//! order — the last one only in `C` tests, since herd's OpenCL tests use
//! release failure orders; a failure order stronger than the success order is
//! allowed, as in C++17); DRFrlx classes follow a relaxed order only; labels
//! only precede barriers. The non-`_explicit` forms are `seq_cst` (both
//! orders for compare-exchange).
//!
//! The parser never panics and never recurses without bound: nesting (of
//! parentheses, blocks, unary operators, and the height of expression and
//! proposition trees) is limited to [`NESTING_LIMIT`] levels. A chain of
//! left-associative operators (`a + b - c`, `p /\ q /\ r`) is parsed in a
//! loop and stored flat, as one level however many operands it has. Statements
//! and expressions are counted apart, so a shallow statement never has its
//! expression blamed for the statements around it; an `if` or `while` and
//! the block that is its body are one level; an `else if` is not a level
//! (the arms of a chain are side by side), but since each one is an `if`
//! inside the `else` before it in the tree, the tree is limited to
//! [`STATEMENT_TREE_LIMIT`] levels counting them.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use super::ast::*;
use super::lexer::{Lexer, Token, TokenKind as T};

/// How deep parentheses, blocks, unary operators and operator chains (each
/// one level, whatever its length) may nest before the parser gives up
/// with an error.
pub const NESTING_LIMIT: u32 = 256;

/// How deep the statement tree may be when each `else if` counts as a
/// level (it is an `if` inside the `else` before it): everything that walks
/// the tree recursively stays within this many levels.
pub const STATEMENT_TREE_LIMIT: u32 = 1024;

/// A located parse error: `line:col: message`, message says what was expected and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where the offending token (or character) is.
    pub pos: Pos,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.pos.line, self.pos.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a whole litmus test.
pub fn parse(src: &str) -> Result<Test, ParseError> {
    // Dat3M's PTX and Vulkan dialects have their own front end.
    if let Some(dialect) = super::gpu::dialect_of(src) {
        return super::gpu::parse(src, dialect);
    }
    Parser {
        lex: Lexer::new(src),
        ahead: VecDeque::new(),
        arch: Arch::C,
        depth: 0,
        stmt_depth: 0,
        chain: 0,
        cond_vars: Vec::new(),
    }
    .test()
}

type PResult<T> = Result<T, ParseError>;

/// `?` without the `Try` machinery, whose temporaries make unoptimised
/// builds use several times more stack per level of recursion.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

/// An expression or proposition with the height of its tree.
type WithHeight<X> = (X, u32);

// After `tri!`, which every part of the parser uses.
mod cond;
mod decls;
mod exprs;
mod stmts;
mod words;

use words::*;

/// A closing bracket.
#[derive(Copy, Clone)]
enum Close {
    Paren,
    Bracket,
}

struct Parser {
    lex: Lexer,
    /// Tokens lexed but not consumed yet.
    ahead: VecDeque<Token>,
    arch: Arch,
    /// Current recursion depth in expressions and conditions.
    depth: u32,
    /// Statements open around the current point (an `if` or `while` with a
    /// block body is one).
    stmt_depth: u32,
    /// `else if` arms open around the current point.
    chain: u32,
    /// The condition's state variables read so far, with their positions.
    cond_vars: Vec<(StateVar, Pos)>,
}

impl Parser {
    // ---- token plumbing ----

    fn fill(&mut self, n: usize) {
        while self.ahead.len() <= n {
            let t = self.lex.next_token();
            self.ahead.push_back(t);
        }
    }

    /// The token `n` places ahead.
    fn peek_at(&mut self, n: usize) -> &Token {
        self.fill(n);
        &self.ahead[n]
    }

    fn peek(&mut self) -> &Token {
        self.peek_at(0)
    }

    fn kind(&mut self) -> &T {
        &self.peek().kind
    }

    fn pos(&mut self) -> Pos {
        self.peek().pos
    }

    fn bump(&mut self) -> Token {
        self.fill(0);
        match self.ahead.pop_front() {
            Some(t) => t,
            None => self.lex.next_token(),
        }
    }

    fn at(&mut self, k: &T) -> bool {
        self.kind() == k
    }

    /// Consumes the token if it is `k`.
    fn eat(&mut self, k: &T) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The identifier `n` places ahead, if it is one.
    fn ident_at(&mut self, n: usize) -> Option<String> {
        match &self.peek_at(n).kind {
            T::Ident(s) => Some(s.clone()),
            _ => None,
        }
    }

    fn at_ident(&mut self, name: &str) -> bool {
        matches!(self.kind(), T::Ident(s) if s == name)
    }

    /// "expected {what}, found {token}" at `tok` (or the lexer's message for an error token).
    fn error_at(tok: &Token, what: &str) -> ParseError {
        match &tok.kind {
            T::Error(m) => ParseError {
                pos: tok.pos,
                message: m.clone(),
            },
            k => ParseError {
                pos: tok.pos,
                message: format!("expected {what}, found {}", k.describe()),
            },
        }
    }

    /// "expected {what}, found {current token}".
    fn expected(&mut self, what: &str) -> ParseError {
        let t = self.peek().clone();
        Self::error_at(&t, what)
    }

    /// A located error with a free-form message.
    fn error(pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError {
            pos,
            message: message.into(),
        }
    }

    /// Consumes `k` or fails with "expected {what}".
    fn expect(&mut self, k: &T, what: &str) -> PResult<Token> {
        if self.at(k) {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    /// One more level of recursion into `what` (an expression, a statement,
    /// a condition); fails beyond the nesting limit.
    fn enter(&mut self, what: &'static str) -> PResult<()> {
        self.depth += 1;
        if self.depth > NESTING_LIMIT {
            return Err(self.too_deep(what));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&mut self, what: &str) -> ParseError {
        let t = self.peek().clone();
        match t.kind {
            T::Error(_) => Self::error_at(&t, ""),
            _ => Self::error(t.pos, format!("{what} nested deeper than {NESTING_LIMIT} levels")),
        }
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The height of a new node over children of heights `a` and `b`,
    /// failing at `pos` beyond the nesting limit.
    fn height(pos: Pos, a: u32, b: u32, what: &str) -> PResult<u32> {
        let h = a.max(b) + 1;
        if h > NESTING_LIMIT {
            return Err(Self::error(
                pos,
                format!("{what} nested deeper than {NESTING_LIMIT} levels"),
            ));
        }
        Ok(h)
    }

    /// Consumes the closing bracket `k` of the one opened at `open`.
    fn close(&mut self, k: Close, open: Pos) -> PResult<()> {
        let t = match k {
            Close::Paren => T::RParen,
            Close::Bracket => T::RBracket,
        };
        if self.eat(&t) {
            Ok(())
        } else {
            Err(self.unclosed(&t, open))
        }
    }

    #[cold]
    #[inline(never)]
    fn unclosed(&mut self, k: &T, open: Pos) -> ParseError {
        let opening = match k {
            T::RParen => "(",
            T::RBracket => "[",
            _ => "{",
        };
        let what = match k {
            T::RBrace => format!("`}}` to close the block opened at {open}"),
            _ => format!("`{}` to close the `{opening}` at {open}", k.symbol()),
        };
        self.expected(&what)
    }

    /// An identifier that may name a register or location.
    fn name(&mut self, what: &str) -> PResult<(String, Pos)> {
        match self.ident_at(0) {
            Some(s) if !is_reserved(&s) => {
                let t = self.bump();
                Ok((s, t.pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A non-negative integer that fits `u32`.
    fn u32_lit(&mut self, what: &str) -> PResult<u32> {
        match *self.kind() {
            T::Int(v) => {
                let t = self.bump();
                u32::try_from(v).map_err(|_| Self::error(t.pos, "integer out of range"))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// An optionally negated integer literal that fits `i64`.
    fn signed_lit(&mut self, what: &str) -> PResult<i64> {
        let neg = self.at(&T::Minus) && matches!(self.peek_at(1).kind, T::Int(_));
        if neg {
            self.bump();
        }
        match *self.kind() {
            T::Int(v) => {
                let t = self.bump();
                let v = if neg { -i128::from(v) } else { i128::from(v) };
                i64::try_from(v).map_err(|_| Self::error(t.pos, "integer out of range"))
            }
            _ => Err(self.expected(what)),
        }
    }
}
