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

/// The spelling of a memory order.
fn order_name(o: MemOrder) -> &'static str {
    match o {
        MemOrder::Relaxed => "memory_order_relaxed",
        MemOrder::Consume => "memory_order_consume",
        MemOrder::Acquire => "memory_order_acquire",
        MemOrder::Release => "memory_order_release",
        MemOrder::AcqRel => "memory_order_acq_rel",
        MemOrder::SeqCst => "memory_order_seq_cst",
    }
}

fn order_of(name: &str) -> Option<MemOrder> {
    Some(match name {
        "memory_order_relaxed" => MemOrder::Relaxed,
        "memory_order_consume" => MemOrder::Consume,
        "memory_order_acquire" => MemOrder::Acquire,
        "memory_order_release" => MemOrder::Release,
        "memory_order_acq_rel" => MemOrder::AcqRel,
        "memory_order_seq_cst" => MemOrder::SeqCst,
        _ => return None,
    })
}

fn scope_of(name: &str) -> Option<Scope> {
    Some(match name {
        "memory_scope_work_item" | "memory_scope_thread" | "thread_scope_thread" | "thread" => Scope::Thread,
        "memory_scope_sub_group" | "memory_scope_warp" | "thread_scope_warp" | "warp" => Scope::Warp,
        "memory_scope_work_group" | "memory_scope_block" | "thread_scope_block" | "block" => Scope::Block,
        "memory_scope_device" | "thread_scope_device" | "device" => Scope::Device,
        "memory_scope_all_svm_devices"
        | "memory_scope_all_devices"
        | "memory_scope_system"
        | "thread_scope_system"
        | "system" => Scope::System,
        _ => return None,
    })
}

fn class_of(name: &str) -> Option<RlxClass> {
    Some(match name {
        "rlx_unpaired" => RlxClass::Unpaired,
        "rlx_commutative" => RlxClass::Commutative,
        "rlx_non_ordering" => RlxClass::NonOrdering,
        "rlx_quantum" => RlxClass::Quantum,
        "rlx_speculative" => RlxClass::Speculative,
        _ => return None,
    })
}

fn level_of(name: &str) -> Option<Level> {
    Some(match name {
        "wg" | "work_group" | "block" => Level::Block,
        "sg" | "sub_group" | "warp" => Level::Warp,
        "dev" | "device" => Level::Device,
        _ => return None,
    })
}

fn flag_of(name: &str) -> Option<MemFlag> {
    Some(match name {
        "CLK_LOCAL_MEM_FENCE" => MemFlag::Local,
        "CLK_GLOBAL_MEM_FENCE" => MemFlag::Global,
        _ => return None,
    })
}

/// `atomic_<op>[_explicit]`: the operation and whether it is explicit.
fn atomic_of(name: &str) -> Option<(AtomicOp, bool)> {
    let rest = name.strip_prefix("atomic_")?;
    let (rest, explicit) = match rest.strip_suffix("_explicit") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let op = match rest {
        "load" => AtomicOp::Load,
        "store" => AtomicOp::Store,
        "exchange" => AtomicOp::Exchange,
        "fetch_add" => AtomicOp::FetchAdd,
        "fetch_sub" => AtomicOp::FetchSub,
        "fetch_and" => AtomicOp::FetchAnd,
        "fetch_or" => AtomicOp::FetchOr,
        "fetch_xor" => AtomicOp::FetchXor,
        "fetch_min" => AtomicOp::FetchMin,
        "fetch_max" => AtomicOp::FetchMax,
        "compare_exchange_strong" => AtomicOp::CasStrong,
        "compare_exchange_weak" => AtomicOp::CasWeak,
        _ => return None,
    };
    Some((op, explicit))
}

/// Functions that are statements (fences and barriers).
fn is_stmt_function(name: &str) -> bool {
    matches!(
        name,
        "atomic_thread_fence" | "atomic_work_item_fence" | "barrier" | "work_group_barrier"
    )
}

/// Base type names (after `atomic_` / `_Atomic`).
const BASES: &[&str] = &["int", "uint", "long", "ulong", "bool", "char", "short"];

fn is_qualifier(name: &str) -> bool {
    matches!(name, "global" | "__global" | "local" | "__local" | "volatile" | "const")
}

/// Whether an identifier starts a type.
fn is_type_start(name: &str) -> bool {
    is_qualifier(name)
        || BASES.contains(&name)
        || matches!(name, "unsigned" | "signed" | "_Atomic")
        || name.strip_prefix("atomic_").is_some_and(|b| BASES.contains(&b))
}

/// Identifiers that can never name a register or location.
fn is_reserved(name: &str) -> bool {
    is_type_start(name)
        || matches!(
            name,
            "if" | "else" | "while" | "for" | "do" | "return" | "goto" | "switch"
        )
        || order_of(name).is_some()
        || name.starts_with("memory_scope_")
        || name.starts_with("thread_scope_")
        || class_of(name).is_some()
        || flag_of(name).is_some()
        || is_stmt_function(name)
        || atomic_of(name).is_some()
}

/// `PN` -> `Some(Ok(N))`; `PN` with N too large -> `Some(Err(()))`.
fn thread_name(name: &str) -> Option<Result<u32, ()>> {
    let digits = name.strip_prefix('P')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u32>().map_err(|_| ()))
}

/// The role of the value arguments of an atomic operation.
fn value_roles(op: AtomicOp) -> &'static [&'static str] {
    match op {
        AtomicOp::Load => &[],
        AtomicOp::Store => &["the value to store"],
        AtomicOp::Exchange => &["the new value"],
        AtomicOp::CasStrong | AtomicOp::CasWeak => &["the expected-value pointer", "the desired value"],
        _ => &["the operand"],
    }
}

/// The name of an atomic function.
fn atomic_name(op: AtomicOp, explicit: bool) -> String {
    let base = match op {
        AtomicOp::Load => "load",
        AtomicOp::Store => "store",
        AtomicOp::Exchange => "exchange",
        AtomicOp::FetchAdd => "fetch_add",
        AtomicOp::FetchSub => "fetch_sub",
        AtomicOp::FetchAnd => "fetch_and",
        AtomicOp::FetchOr => "fetch_or",
        AtomicOp::FetchXor => "fetch_xor",
        AtomicOp::FetchMin => "fetch_min",
        AtomicOp::FetchMax => "fetch_max",
        AtomicOp::CasStrong => "compare_exchange_strong",
        AtomicOp::CasWeak => "compare_exchange_weak",
    };
    format!("atomic_{base}{}", if explicit { "_explicit" } else { "" })
}

/// A prefix operator of an expression.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Prefix {
    Neg,
    Not,
    BitNot,
    Deref,
    AddrOf,
}

/// A closing bracket.
#[derive(Copy, Clone)]
enum Close {
    Paren,
    Bracket,
}

/// How a statement starts.
enum Start {
    Empty,
    Block,
    If,
    While,
    Simple,
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

    // ---- top level ----

    fn test(mut self) -> PResult<Test> {
        let head = self.peek().clone();
        let arch = match &head.kind {
            // Any case, as for `PTX` and `VULKAN`: Dat3M writes `OPENCL`,
            // herd's OpenCL tests `OpenCL`.
            T::Ident(s) if s.eq_ignore_ascii_case("C") => Arch::C,
            T::Ident(s) if s.eq_ignore_ascii_case("OPENCL") => Arch::OpenCl,
            _ => return Err(Self::error_at(&head, "a header `C <name>` or `OPENCL <name>`")),
        };
        self.bump();
        self.arch = arch;
        // Nothing is buffered past the header keyword: the name is the raw rest of its line.
        let name_pos = self.lex.pos();
        let name = self.lex.rest_of_line().trim().to_string();
        if name.is_empty() {
            let kw = if arch == Arch::C { "C" } else { "OPENCL" };
            return Err(Self::error(
                name_pos,
                format!("expected a test name after `{kw}`, found end of line"),
            ));
        }

        let init = self.init_block()?;

        let mut threads: Vec<Thread> = Vec::new();
        let mut seen: HashMap<u32, Pos> = HashMap::new();
        while let Some(name) = self.ident_at(0) {
            if thread_name(&name).is_none() {
                break;
            }
            let t = self.thread()?;
            if let Some(first) = seen.insert(t.index, t.pos) {
                return Err(Self::error(
                    t.pos,
                    format!("duplicate thread `P{}` (already defined at {first})", t.index),
                ));
            }
            threads.push(t);
        }
        if threads.is_empty() {
            return Err(self.expected("a thread `P0 (...) { ... }`"));
        }

        let mut locations = Vec::new();
        if self.at_ident("locations") {
            self.bump();
            locations = self.locations()?;
        }

        // herd's `filter P`: only executions whose final state satisfies P
        // are kept (filter.rs); it must come with a condition.
        let mut filter = None;
        if self.at_ident("filter") {
            let at = self.pos();
            self.bump();
            let (f, _) = self.prop_or()?;
            filter = Some((f, std::mem::take(&mut self.cond_vars)));
            if !(self.at_ident("exists") || self.at_ident("forall") || self.at(&T::Tilde)) {
                return Err(Self::error(
                    at,
                    "a `filter` must be followed by the condition (`exists`, `~exists` or `forall`)",
                ));
            }
        }
        let condition = if self.at_ident("exists") || self.at_ident("forall") || self.at(&T::Tilde) {
            let mut c = self.condition()?;
            if let Some((f, mut vars)) = filter {
                c.filter = Some(f);
                vars.append(&mut c.vars);
                c.vars = vars;
            }
            self.eat(&T::Semi);
            if !self.at(&T::Eof) {
                return Err(self.expected("end of input after the condition"));
            }
            Some(c)
        } else {
            if !self.at(&T::Eof) {
                let what = if locations.is_empty() {
                    "a thread, `locations`, `filter`, `exists`, `~exists`, `forall` or end of input"
                } else {
                    "`filter`, `exists`, `~exists`, `forall` or end of input"
                };
                return Err(self.expected(what));
            }
            None
        };

        Ok(Test {
            arch,
            name,
            init,
            threads,
            locations,
            condition,
            gpu: None,
        })
    }

    // ---- init block ----

    fn init_block(&mut self) -> PResult<Vec<Init>> {
        let open = self.expect(&T::LBrace, "the init block `{`")?;
        let mut entries = Vec::new();
        loop {
            if self.at(&T::Eof) || self.at_thread_header() {
                return Err(self.unclosed_init(open.pos));
            }
            match self.kind() {
                T::RBrace => {
                    self.bump();
                    return Ok(entries);
                }
                T::Semi => {
                    self.bump();
                }
                _ => {
                    entries.push(self.init_entry()?);
                    if !matches!(self.kind(), T::Semi | T::RBrace) {
                        return Err(self.expected("`;` or `}` after an init entry"));
                    }
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn unclosed_init(&mut self, open: Pos) -> ParseError {
        self.expected(&format!("`}}` to close the init block opened at {open}"))
    }

    fn init_entry(&mut self) -> PResult<Init> {
        const WHAT: &str = "an init entry (`x = 0`, `[x] = 0`, `int x = 0`, `P0:r0 = 0`)";
        let pos = self.pos();
        let mut ty = None;
        let target = match self.kind().clone() {
            T::LBracket => {
                self.bump();
                let (name, _) = self.name("a location name")?;
                self.expect(&T::RBracket, "`]`")?;
                InitTarget::Loc(name)
            }
            T::Int(_) => {
                let thread = self.u32_lit("a thread number")?;
                self.expect(&T::Colon, "`:` after the thread number")?;
                let (reg, _) = self.name("a register name")?;
                InitTarget::Reg { thread, reg }
            }
            T::Ident(s) => {
                if is_type_start(&s) {
                    ty = Some(self.parse_type()?);
                    self.init_declarator()?
                } else if let (Some(n), true) = (thread_name(&s), matches!(self.peek_at(1).kind, T::Colon)) {
                    let t = self.bump();
                    let thread = n.map_err(|_| Self::error(t.pos, "integer out of range"))?;
                    self.bump();
                    let (reg, _) = self.name("a register name")?;
                    InitTarget::Reg { thread, reg }
                } else {
                    self.init_declarator()?
                }
            }
            _ => return Err(self.expected(WHAT)),
        };
        self.expect(&T::Assign, "`=`")?;
        let value = if let InitTarget::Array { name, len } = &target {
            let open = self.peek().clone();
            if open.kind != T::LBrace {
                return Err(self.expected(&format!("`{{` to start the elements of array `{name}`")));
            }
            self.bump();
            let mut items = Vec::new();
            while !self.at(&T::RBrace) {
                let item_pos = self.pos();
                items.push(self.signed_lit("an integer element or `}`")?);
                if items.len() as u64 > u64::from(*len) {
                    return Err(Self::error(
                        item_pos,
                        format!("too many elements: array `{name}` has {len}"),
                    ));
                }
                if !self.eat(&T::Comma) && !self.at(&T::RBrace) {
                    return Err(self.expected("`,` or `}` in the element list"));
                }
            }
            self.bump();
            InitValue::List(items)
        } else {
            self.init_value()?
        };
        Ok(Init { target, ty, value, pos })
    }

    /// `x` or `x[N]` (after an optional type).
    fn init_declarator(&mut self) -> PResult<InitTarget> {
        let (name, _) = self.name("a location name")?;
        if self.eat(&T::LBracket) {
            let len_pos = self.pos();
            let len = self.u32_lit("the array length")?;
            if len == 0 {
                return Err(Self::error(
                    len_pos,
                    "expected an array length of at least 1, found `0`",
                ));
            }
            self.expect(&T::RBracket, "`]`")?;
            Ok(InitTarget::Array { name, len })
        } else {
            Ok(InitTarget::Loc(name))
        }
    }

    fn init_value(&mut self) -> PResult<InitValue> {
        const WHAT: &str = "an initial value (an integer, `x` or `&x`)";
        match self.kind() {
            T::Int(_) | T::Minus => Ok(InitValue::Int(self.signed_lit(WHAT)?)),
            T::Amp => {
                self.bump();
                Ok(InitValue::Addr(self.name("a location name after `&`")?.0))
            }
            T::Ident(_) => Ok(InitValue::Addr(self.name(WHAT)?.0)),
            T::LBrace => {
                let p = self.pos();
                Err(Self::error(
                    p,
                    "expected a single value, found `{` (element lists need an array declaration such as `int y[2]`)",
                ))
            }
            _ => Err(self.expected(WHAT)),
        }
    }

    // ---- types ----

    fn parse_type(&mut self) -> PResult<Type> {
        let mut ty = Type {
            space: None,
            atomic: false,
            volatile: false,
            base: String::new(),
            pointer: 0,
        };
        self.qualifiers(&mut ty)?;
        let tok = self.peek().clone();
        let name = match &tok.kind {
            T::Ident(s) => s.clone(),
            _ => return Err(Self::error_at(&tok, "a type")),
        };
        if name == "_Atomic" {
            self.bump();
            ty.atomic = true;
            if self.eat(&T::LParen) {
                ty.base = self.base_type()?;
                self.expect(&T::RParen, "`)` after the type in `_Atomic(...)`")?;
            } else {
                ty.base = self.base_type()?;
            }
        } else if let Some(b) = name.strip_prefix("atomic_").filter(|b| BASES.contains(b)) {
            self.bump();
            ty.atomic = true;
            ty.base = b.to_string();
        } else {
            ty.base = self.base_type()?;
        }
        self.qualifiers(&mut ty)?;
        while self.at(&T::Star) {
            let star = self.bump();
            ty.pointer = ty
                .pointer
                .checked_add(1)
                .ok_or_else(|| Self::error(star.pos, "too many `*` in a type"))?;
            while matches!(self.kind(), T::Ident(s) if s == "const" || s == "volatile") {
                self.bump();
            }
        }
        Ok(ty)
    }

    /// `global`, `local`, `volatile`, `const`, in any order.
    fn qualifiers(&mut self, ty: &mut Type) -> PResult<()> {
        while let Some(q) = self.ident_at(0).filter(|s| is_qualifier(s)) {
            let t = self.bump();
            let space = match q.as_str() {
                "global" | "__global" => AddressSpace::Global,
                "local" | "__local" => AddressSpace::Local,
                "volatile" => {
                    ty.volatile = true;
                    continue;
                }
                _ => continue,
            };
            if ty.space.is_some_and(|s| s != space) {
                return Err(Self::error(t.pos, format!("conflicting address space `{q}`")));
            }
            ty.space = Some(space);
        }
        Ok(())
    }

    /// `int`, `long`, `uint`, `unsigned int`, ...
    fn base_type(&mut self) -> PResult<String> {
        const WHAT: &str = "a type (`int`, `long`, `uint`, `unsigned int`, ...)";
        let Some(name) = self.ident_at(0) else {
            return Err(self.expected(WHAT));
        };
        let sign = match name.as_str() {
            "unsigned" => Some("u"),
            "signed" => Some(""),
            _ => None,
        };
        if let Some(prefix) = sign {
            self.bump();
            let base = match self.ident_at(0).as_deref() {
                Some(b @ ("int" | "long" | "char" | "short")) => {
                    let b = b.to_string();
                    self.bump();
                    b
                }
                _ => "int".to_string(),
            };
            self.long_long(&base);
            return Ok(format!("{prefix}{base}"));
        }
        if BASES.contains(&name.as_str()) {
            self.bump();
            self.long_long(&name);
            return Ok(name);
        }
        Err(self.expected(WHAT))
    }

    /// `long long` and `long int` read as `long`.
    fn long_long(&mut self, base: &str) {
        if base == "long" && (self.at_ident("long") || self.at_ident("int")) {
            self.bump();
        }
    }

    // ---- threads ----

    fn thread(&mut self) -> PResult<Thread> {
        let tok = self.bump();
        let pos = tok.pos;
        let index = match &tok.kind {
            T::Ident(s) => match thread_name(s) {
                Some(Ok(n)) => n,
                _ => return Err(Self::error(pos, "integer out of range")),
            },
            _ => return Err(Self::error_at(&tok, "a thread")),
        };
        let mut placement: Vec<(Level, u32)> = Vec::new();
        if self.eat(&T::At) {
            loop {
                const WHAT: &str = "a placement level (`wg`, `sg`, `dev`, `block`, `warp`, `device`)";
                let lt = self.peek().clone();
                let level = match &lt.kind {
                    T::Ident(s) => level_of(s).ok_or_else(|| Self::error_at(&lt, WHAT))?,
                    _ => return Err(Self::error_at(&lt, WHAT)),
                };
                self.bump();
                if placement.iter().any(|(l, _)| *l == level) {
                    return Err(Self::error(
                        lt.pos,
                        format!("duplicate placement level {}", lt.kind.describe()),
                    ));
                }
                let n = self.u32_lit("the index of the placement level")?;
                placement.push((level, n));
                if !self.eat(&T::Comma) {
                    break;
                }
            }
        }
        self.expect(&T::LParen, &format!("`(` to start the parameters of `P{index}`"))?;
        let mut params = Vec::new();
        if !self.eat(&T::RParen) {
            loop {
                let ppos = self.pos();
                if !self.ident_at(0).is_some_and(|s| is_type_start(&s)) {
                    return Err(self.expected("a parameter type (`atomic_int*`, `volatile int*`, ...)"));
                }
                let ty = self.parse_type()?;
                let (name, _) = self.name("a parameter name")?;
                params.push(Param { ty, name, pos: ppos });
                if self.eat(&T::RParen) {
                    break;
                }
                if !self.eat(&T::Comma) {
                    return Err(self.expected("`,` or `)` in the parameter list"));
                }
            }
        }
        let open = self.expect(&T::LBrace, &format!("`{{` to start the body of `P{index}`"))?;
        let body = self.block_rest(open.pos)?;
        Ok(Thread {
            index,
            placement,
            params,
            body,
            pos,
        })
    }

    // ---- statements ----
    //
    // The recursive paths (block -> statement -> block, if -> body ->
    // statement) go through small functions only, so that deep nesting costs
    // little stack even in unoptimised builds.

    /// Statements up to the `}` closing the block opened at `open`.
    fn block_rest(&mut self, open: Pos) -> PResult<Vec<Stmt>> {
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
    fn at_thread_header(&mut self) -> bool {
        self.ident_at(0).is_some_and(|s| thread_name(&s).is_some()) && matches!(self.peek_at(1).kind, T::LParen | T::At)
    }

    /// The body of an `if`, `else` or `while`: a block's statements, one
    /// statement, or none for `;`. A block here is the statement's own
    /// level, not one more.
    fn body(&mut self) -> PResult<Vec<Stmt>> {
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
    fn stmt(&mut self) -> PResult<Option<Stmt>> {
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

    fn stmt_inner(&mut self) -> PResult<Option<Stmt>> {
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

    fn stmt_start(&mut self) -> Start {
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
    fn if_stmt(&mut self) -> PResult<StmtKind> {
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
    fn check_tree(&mut self, at: Pos) -> PResult<()> {
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

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = tri!(self.paren_cond("while"));
        let body = tri!(self.body());
        Ok(StmtKind::While { cond, body })
    }

    /// `( expr )` after `if` / `while`.
    fn paren_cond(&mut self, kw: &str) -> PResult<Expr> {
        self.expect(&T::LParen, &format!("`(` after `{kw}`"))?;
        let e = self.expr()?;
        self.expect(&T::RParen, &format!("`)` to close the condition of `{kw}`"))?;
        Ok(e)
    }

    /// A statement without sub-statements: a declaration, an assignment, a
    /// store, an expression, a fence or a (labelled) barrier.
    fn simple_stmt(&mut self) -> PResult<StmtKind> {
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
    fn special(&mut self, label: Option<String>) -> PResult<StmtKind> {
        let tok = self.bump();
        let name = match &tok.kind {
            T::Ident(s) => s.clone(),
            _ => return Err(Self::error_at(&tok, "a fence or barrier")),
        };
        self.expect(&T::LParen, &format!("`(` after `{name}`"))?;
        let kind = match name.as_str() {
            "atomic_thread_fence" => {
                let (order, _) = self.order("a memory order")?;
                let scope = if self.eat(&T::Comma) {
                    Some(self.scope("a memory scope")?)
                } else {
                    None
                };
                StmtKind::Fence {
                    flags: Vec::new(),
                    order,
                    scope,
                }
            }
            "atomic_work_item_fence" => {
                let flags = self.flags()?;
                self.expect(&T::Comma, "`,` and a memory order")?;
                let (order, _) = self.order("a memory order")?;
                self.expect(&T::Comma, "`,` and a memory scope")?;
                let scope = Some(self.scope("a memory scope")?);
                StmtKind::Fence { flags, order, scope }
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
    fn flags(&mut self) -> PResult<Vec<MemFlag>> {
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

    fn order(&mut self, what: &str) -> PResult<(MemOrder, Pos)> {
        match self.ident_at(0).and_then(|s| order_of(&s)) {
            Some(o) => Ok((o, self.bump().pos)),
            None => Err(self.expected(what)),
        }
    }

    fn scope(&mut self, what: &str) -> PResult<Scope> {
        match self.ident_at(0).and_then(|s| scope_of(&s)) {
            Some(s) => {
                self.bump();
                Ok(s)
            }
            None => Err(self.expected(what)),
        }
    }

    // ---- expressions ----
    //
    // The recursive path is binary -> unary -> unary_inner -> postfix ->
    // primary -> (binary | atomic_call -> binary); everything else (error
    // messages, literal and node building, order checks) lives in helpers
    // called outside that path.

    fn expr(&mut self) -> PResult<Expr> {
        Ok(self.binary(0)?.0)
    }

    fn binop(k: &T) -> Option<(BinOp, u8)> {
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
    fn binary(&mut self, min: u8) -> PResult<WithHeight<Expr>> {
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
    fn chain(first: Expr, rest: Vec<(BinOp, Expr)>, h: u32, at: Pos) -> PResult<WithHeight<Expr>> {
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

    fn unary(&mut self) -> PResult<WithHeight<Expr>> {
        tri!(self.enter("expression"));
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<WithHeight<Expr>> {
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
    fn negative_literal_ahead(&mut self) -> bool {
        matches!(self.peek_at(1).kind, T::Int(_)) && !matches!(self.peek_at(2).kind, T::LBracket | T::LParen)
    }

    fn negative_literal(&mut self) -> PResult<WithHeight<Expr>> {
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
    fn prefix_node(prefix: Prefix, e: Expr, h: u32, pos: Pos) -> PResult<WithHeight<Expr>> {
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

    fn postfix(&mut self) -> PResult<WithHeight<Expr>> {
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
    fn primary(&mut self) -> PResult<WithHeight<Expr>> {
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
    fn call_ahead(&mut self) -> PResult<Option<(AtomicOp, bool)>> {
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
    fn leaf(&mut self) -> PResult<WithHeight<Expr>> {
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
    fn atomic_call(&mut self, op: AtomicOp, explicit: bool) -> PResult<WithHeight<Expr>> {
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

    fn call_open(&mut self, op: AtomicOp, explicit: bool) -> PResult<()> {
        if self.eat(&T::LParen) {
            return Ok(());
        }
        Err(self.expected(&format!("`(` after `{}`", atomic_name(op, explicit))))
    }

    fn arg_comma(&mut self, role: &str) -> PResult<()> {
        if self.eat(&T::Comma) {
            return Ok(());
        }
        Err(self.expected(&format!("`,` and {role}")))
    }

    /// The orders, scope and class of an atomic call, and its `)`.
    fn atomic_tail(&mut self, op: AtomicOp, explicit: bool, addr: Expr, args: Vec<Expr>) -> PResult<AtomicCall> {
        let name = atomic_name(op, explicit);
        let cas = matches!(op, AtomicOp::CasStrong | AtomicOp::CasWeak);
        let mut call = AtomicCall {
            op,
            addr,
            args,
            order: MemOrder::SeqCst,
            failure: if cas { Some(MemOrder::SeqCst) } else { None },
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
            let (order, opos) = self.order("a memory order")?;
            let bad = match op {
                AtomicOp::Load => matches!(order, MemOrder::Release | MemOrder::AcqRel).then_some("a load"),
                AtomicOp::Store => {
                    matches!(order, MemOrder::Acquire | MemOrder::Consume | MemOrder::AcqRel).then_some("a store")
                }
                _ => None,
            };
            if let Some(what) = bad {
                return Err(Self::error(
                    opos,
                    format!("{} is not a valid order for {what}", order_name(order)),
                ));
            }
            call.order = order;
            if cas {
                self.expect(&T::Comma, "`,` and the failure memory order")?;
                let (failure, fpos) = self.order("the failure memory order")?;
                // C forbids release failure orders; herd's OpenCL tests (CT_wsq2
                // in the public corpus) use them, so OPENCL tests may.
                if self.arch == Arch::C && matches!(failure, MemOrder::Release | MemOrder::AcqRel) {
                    return Err(Self::error(
                        fpos,
                        format!(
                            "{} is not a valid failure order for a compare-exchange",
                            order_name(failure)
                        ),
                    ));
                }
                call.failure = Some(failure);
            }
            if self.eat(&T::Comma) {
                let t = self.peek().clone();
                match self.ident_at(0) {
                    Some(s) if scope_of(&s).is_some() => {
                        call.scope = scope_of(&s);
                        self.bump();
                        if self.eat(&T::Comma) {
                            call.class = Some(self.class(order)?);
                        }
                    }
                    Some(s) if class_of(&s).is_some() => call.class = Some(self.class(order)?),
                    _ => return Err(Self::error_at(&t, "a memory scope or a DRFrlx class")),
                }
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
    fn class(&mut self, order: MemOrder) -> PResult<RlxClass> {
        let t = self.peek().clone();
        let class = self
            .ident_at(0)
            .and_then(|s| class_of(&s))
            .ok_or_else(|| Self::error_at(&t, "a DRFrlx class (`rlx_unpaired`, ...)"))?;
        if order != MemOrder::Relaxed {
            return Err(Self::error(
                t.pos,
                format!(
                    "DRFrlx classes apply to relaxed atomics only (this one is {})",
                    order_name(order)
                ),
            ));
        }
        self.bump();
        Ok(class)
    }

    // ---- condition ----

    fn locations(&mut self) -> PResult<Vec<StateVar>> {
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

    fn condition(&mut self) -> PResult<Condition> {
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
        })
    }

    fn prop_or(&mut self) -> PResult<WithHeight<Prop>> {
        self.prop_chain(&T::Disj, Self::prop_and, Prop::Or)
    }

    fn prop_and(&mut self) -> PResult<WithHeight<Prop>> {
        self.prop_chain(&T::Conj, Self::prop_unary, Prop::And)
    }

    /// `p sep q sep ...` of operands parsed by `operand`, gathered flat into
    /// `make` (a lone operand stands for itself): one level of nesting
    /// however many operands, so a generated condition of thousands of
    /// conjuncts is not taken for deep nesting.
    fn prop_chain(
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

    fn prop_unary(&mut self) -> PResult<WithHeight<Prop>> {
        tri!(self.enter("condition"));
        let r = self.prop_unary_inner();
        self.leave();
        r
    }

    /// `~p`, `not p`, `(p)` or an atom.
    fn prop_unary_inner(&mut self) -> PResult<WithHeight<Prop>> {
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
    fn prop_atom(&mut self) -> PResult<WithHeight<Prop>> {
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
    fn state_var(&mut self, what: &str) -> PResult<StateVar> {
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
    fn loc_element(&mut self) -> PResult<(String, u32)> {
        let (name, _) = self.name("a location name")?;
        let mut index = 0;
        if self.eat(&T::LBracket) {
            index = self.u32_lit("an element index")?;
            self.expect(&T::RBracket, "`]`")?;
        }
        Ok((name, index))
    }

    /// A value in a condition: an integer, `x`, `x[N]` or `&x`.
    fn value(&mut self) -> PResult<Value> {
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
