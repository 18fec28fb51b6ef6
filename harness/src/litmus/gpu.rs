//! Dat3M's `PTX` and `Vulkan` litmus dialects: the file's frame (header,
//! init block, the thread table with its placements, labels and branches,
//! the condition). The instructions themselves are decoded by [`super::ptx`]
//! and [`super::vulkan`]; the init block and aliases by [`super::gpu_init`],
//! the condition by [`super::gpu_cond`], the unrolling by [`super::gpu_expand`].
//!
//! A test becomes an ordinary [`Test`] whose thread bodies are built from
//! the thread's instruction list by [`expand`], once the unroll bound is
//! known: straight-line code is copied, a conditional branch becomes an
//! `if` whose arms continue at the target and at the next instruction, and
//! a backward jump taken more than `unroll` times ends the execution as a
//! `while` loop past its bound does (herd's and Dat3M's unrolling). What the
//! engine's events do not carry goes into the [`GpuCode`]'s side table.

use super::ast::*;
use super::gpu_cond::{condition, filter_prop};
pub use super::gpu_expand::expand;
use super::gpu_init::init_block;
use super::parser::ParseError;
use scopecheck_checker::model::gpu::GpuOp;
use std::cell::RefCell;
use std::collections::HashMap;

/// The two GPU dialects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `PTX`: placements `P0@cta 0,gpu 0`.
    Ptx,
    /// `VULKAN`: placements `P0@sg 0, wg 0, qf 0`.
    Vulkan,
}

/// A branch operand: a register or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register.
    Reg(String),
    /// A constant.
    Int(i64),
}

/// One entry of a thread's instruction list.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `LC00:`.
    Label(String),
    /// An instruction: the statements it runs (none for a no-op).
    Stmts(Vec<Stmt>),
    /// `goto L`.
    Goto(String, Pos),
    /// `beq a, b, L` (`eq`) or `bne a, b, L`.
    Branch {
        /// Jump when equal (`beq`) or when different (`bne`).
        eq: bool,
        /// Left operand.
        a: Operand,
        /// Right operand.
        b: Operand,
        /// Target label.
        target: String,
        /// Where.
        pos: Pos,
    },
}

/// The GPU part of a parsed test.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuCode {
    /// Which dialect.
    pub dialect: Dialect,
    /// Each thread's instruction list, in file order.
    pub code: Vec<Vec<Item>>,
    /// Each thread's place (`[sg, wg, qf]` or `[-, cta, gpu]`), in file order.
    pub places: Vec<[u32; 3]>,
    /// Each instruction's attributes, by (line, column).
    pub ops: HashMap<(u32, u32), GpuOp>,
    /// Vulkan's `ssw a b` declarations (a second block after the init
    /// block): thread `Pa` system-synchronizes-with `Pb`, as file-order
    /// thread positions.
    pub ssw: Vec<(usize, usize)>,
}

/// The alias map: virtual name → (physical location, the virtual address it denotes).
pub(super) type Aliases = HashMap<String, (String, String)>;

/// The prefix of the hidden locations that hold register barrier ids.
pub const HIDDEN: &str = "__barrier_id_";

/// Whether `src` starts with a GPU header (`PTX` or `VULKAN`, any case).
pub fn dialect_of(src: &str) -> Option<Dialect> {
    let word = src.split_whitespace().next()?;
    match word.to_ascii_uppercase().as_str() {
        "PTX" => Some(Dialect::Ptx),
        "VULKAN" => Some(Dialect::Vulkan),
        _ => None,
    }
}

pub(super) fn err(pos: Pos, message: impl Into<String>) -> ParseError {
    ParseError {
        pos,
        message: message.into(),
    }
}

/// A cursor over the source that knows line and column (cloned to look
/// ahead and come back).
#[derive(Clone)]
pub(super) struct Src<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    line: u32,
    col: u32,
}

impl<'a> Src<'a> {
    pub(super) fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    pub(super) fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    pub(super) fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.bump();
        }
    }
    /// The text up to (not including) the first byte in `stops`, with its start position.
    pub(super) fn until(&mut self, stops: &[u8]) -> (String, Pos) {
        let at = self.pos();
        let start = self.i;
        while self.peek().is_some_and(|c| !stops.contains(&c)) {
            self.bump();
        }
        (String::from_utf8_lossy(&self.s[start..self.i]).into_owned(), at)
    }
}

/// A piece of text with the position of its first byte.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The text, trimmed.
    pub text: String,
    /// Where the trimmed text starts.
    pub pos: Pos,
}

impl Cell {
    pub(super) fn of(raw: &str, at: Pos) -> Cell {
        let lead = raw.len() - raw.trim_start().len();
        let mut pos = at;
        for c in raw[..lead].chars() {
            if c == '\n' {
                pos.line += 1;
                pos.col = 1;
            } else {
                pos.col += 1;
            }
        }
        Cell {
            text: raw.trim().to_string(),
            pos,
        }
    }
    /// The position `k` bytes into the text (same line).
    pub fn at(&self, k: usize) -> Pos {
        Pos {
            line: self.pos.line,
            col: self.pos.col + k as u32,
        }
    }
}

/// Parses a GPU litmus test (the caller has seen a `PTX` or `VULKAN` header).
pub fn parse(src: &str, dialect: Dialect) -> Result<Test, ParseError> {
    let mut s = Src {
        s: src.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
    };
    s.skip_ws();
    let (head, head_pos) = s.until(b"\n");
    let name = head.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(err(head_pos, "expected a test name after the dialect keyword"));
    }
    // An optional quoted description, which may span lines.
    // Optional quoted descriptions, which may span lines and hold quotes
    // of their own: everything up to the first line starting with `{`.
    s.skip_ws();
    let text_at = s.pos();
    while s.peek().is_some_and(|c| c != b'{') {
        s.until(b"\n");
        s.skip_ws();
    }
    if s.peek() != Some(b'{') {
        return Err(err(
            text_at,
            "expected `{` opening the init block (on a line of its own start)",
        ));
    }
    let open = s.pos();
    s.bump();
    let (body, body_pos) = s.until(b"}");
    if s.bump().is_none() {
        return Err(err(open, "unclosed init block (no `}`)"));
    }
    let (init, aliases) = init_block(&body, body_pos)?;
    // Vulkan's optional `{ ssw 0 1; ... }` block (thread indices).
    s.skip_ws();
    let mut ssw_decls = Vec::new();
    if s.peek() == Some(b'{') {
        let open = s.pos();
        s.bump();
        let (body, body_pos) = s.until(b"}");
        if s.bump().is_none() {
            return Err(err(open, "unclosed `ssw` block (no `}`)"));
        }
        if dialect != Dialect::Vulkan {
            return Err(err(open, "only Vulkan tests have an `ssw` block"));
        }
        ssw_decls = super::gpu_ssw::block(&body, body_pos)?;
    }
    // The thread table: rows end with `;`, columns are separated by `|`;
    // it ends at the condition keyword or the end of the file.
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut cond = None;
    // herd's `filter P`, with the state variables it names.
    let mut filter: Option<(Prop, Vec<(StateVar, Pos)>)> = None;
    let mut locations = Vec::new();
    loop {
        s.skip_ws();
        let Some(c) = s.peek() else { break };
        let rest = std::str::from_utf8(&s.s[s.i..]).unwrap_or("");
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '~' || *c == '_')
            .collect();
        if word == "locations" && locations.is_empty() && filter.is_none() {
            locations = super::gpu_cond::locations(&mut s, &aliases)?;
            continue;
        }
        if word == "filter" && filter.is_none() {
            filter = Some(filter_prop(&mut s, &aliases)?);
            continue;
        }
        if matches!(word.as_str(), "exists" | "~exists" | "forall")
            || (c == b'~' && rest[1..].trim_start().starts_with("exists"))
        {
            let mut c = condition(&mut s, &aliases)?;
            if let Some((f, mut vars)) = filter.take() {
                c.filter = Some(f);
                vars.append(&mut c.vars);
                c.vars = vars;
            }
            cond = Some(c);
            break;
        }
        if let Some((_, vars)) = &filter {
            let at = vars.first().map_or(s.pos(), |v| v.1);
            return Err(err(
                at,
                "a `filter` must be followed by the condition (`exists`, `~exists` or `forall`) or end the test",
            ));
        }
        let (row, at) = s.until(b";");
        if s.bump().is_none() {
            return Err(err(at, "expected `;` ending this row of the thread table"));
        }
        let mut cells = Vec::new();
        let mut off = 0;
        for part in row.split('|') {
            let mut p = at;
            for ch in row[..off].chars() {
                if ch == '\n' {
                    p.line += 1;
                    p.col = 1;
                } else {
                    p.col += 1;
                }
            }
            cells.push(Cell::of(part, p));
            off += part.len() + 1;
        }
        rows.push(cells);
    }
    // A `filter` that ends the file is the test's only clause (Dat3M's
    // `Data-Race` tests): no verdict, but it still chooses the executions
    // (and so the races) that count.
    if let Some((f, vars)) = filter.take() {
        let pos = vars.first().map_or(s.pos(), |v| v.1);
        cond = Some(Condition {
            quantifier: Quantifier::Forall,
            prop: Prop::True,
            pos,
            vars,
            filter: Some(f),
            filter_only: true,
        });
    }
    let Some(first) = rows.first() else {
        return Err(err(s.pos(), "expected the thread table (`P0@... | P1@... ;`)"));
    };
    let mut threads = Vec::new();
    let mut places = Vec::new();
    for cell in first {
        let (index, place) = placement(cell, dialect)?;
        places.push(place);
        threads.push(Thread {
            index,
            placement: Vec::new(),
            params: Vec::new(),
            body: Vec::new(),
            pos: cell.pos,
        });
    }
    let mut code: Vec<Vec<Item>> = vec![Vec::new(); threads.len()];
    let mut ops = HashMap::new();
    let used = RefCell::new(Vec::new());
    for row in &rows[1..] {
        if row.len() > threads.len() && row[threads.len()..].iter().any(|c| !c.text.is_empty()) {
            return Err(err(
                row[threads.len()].pos,
                format!(
                    "this row has more columns than the test has threads ({})",
                    threads.len()
                ),
            ));
        }
        for (t, cell) in row.iter().enumerate().take(threads.len()) {
            if cell.text.is_empty() {
                continue;
            }
            code[t].extend(instruction(cell, dialect, &aliases, &mut ops, &used)?);
        }
    }
    // A location the init block does not declare starts at 0, as in herd
    // and Dat3M (Khronos test4 stores to such a `d`).
    let mut init = init;
    for (name, pos) in used.into_inner() {
        let declared = |i: &Init| matches!(&i.target, InitTarget::Loc(n) if *n == name);
        if !name.starts_with(HIDDEN) && !init.iter().any(declared) {
            init.push(Init {
                target: InitTarget::Loc(name),
                ty: None,
                value: InitValue::Int(0),
                pos,
            });
        }
    }
    // A barrier whose id is a register stores it to a hidden location of
    // its own just before it (GpuKind::Barrier's `id: None`).
    for items in &code {
        for item in items {
            if let Item::Stmts(ss) = item {
                for st in ss {
                    if let StmtKind::Store { addr, .. } = &st.kind {
                        if let ExprKind::AddrOf(name) = &addr.kind {
                            if name.starts_with(HIDDEN) {
                                init.push(Init {
                                    target: InitTarget::Loc(name.clone()),
                                    ty: None,
                                    value: InitValue::Int(0),
                                    pos: st.pos,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    // Every jump target exists in its thread.
    for (t, items) in code.iter().enumerate() {
        for item in items {
            let (target, pos) = match item {
                Item::Goto(l, p) => (l, *p),
                Item::Branch { target, pos, .. } => (target, *pos),
                _ => continue,
            };
            if !items.iter().any(|i| matches!(i, Item::Label(l) if l == target)) {
                return Err(err(pos, format!("P{} has no label `{target}`", threads[t].index)));
            }
        }
    }
    let ssw = super::gpu_ssw::resolve(&ssw_decls, &threads)?;
    Ok(Test {
        arch: match dialect {
            Dialect::Ptx => Arch::Ptx,
            Dialect::Vulkan => Arch::Vulkan,
        },
        name,
        init,
        threads,
        locations,
        condition: cond,
        gpu: Some(Box::new(GpuCode {
            dialect,
            code,
            places,
            ops,
            ssw,
        })),
    })
}

pub(super) fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn thread_index(t: &str) -> Option<u32> {
    let t = t.trim();
    t.strip_prefix('P').unwrap_or(t).parse().ok()
}

/// `P0@cta 0,gpu 0` or `P0@sg 0, wg 0, qf 0`.
fn placement(cell: &Cell, dialect: Dialect) -> Result<(u32, [u32; 3]), ParseError> {
    let Some((who, place)) = cell.text.split_once('@') else {
        return Err(err(
            cell.pos,
            "expected a thread placement such as `P0@cta 0,gpu 0` or `P0@sg 0, wg 0, qf 0`",
        ));
    };
    let index = who
        .trim()
        .strip_prefix('P')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            err(
                cell.pos,
                format!("expected a thread name such as `P0`, found `{}`", who.trim()),
            )
        })?;
    let levels: &[&str] = match dialect {
        Dialect::Ptx => &["", "cta", "gpu"],
        Dialect::Vulkan => &["sg", "wg", "qf"],
    };
    // PTX threads are each in their own "subgroup": the level does not exist there.
    let mut out = [index, 0, 0];
    let mut seen = [dialect == Dialect::Ptx, false, false];
    for part in place.split(',') {
        let words: Vec<&str> = part.split_whitespace().collect();
        let [level, n] = words.as_slice() else {
            return Err(err(
                cell.pos,
                format!("expected `LEVEL N` in the placement, found `{}`", part.trim()),
            ));
        };
        let Some(k) = levels
            .iter()
            .position(|l| !l.is_empty() && l.eq_ignore_ascii_case(level))
        else {
            return Err(err(
                cell.pos,
                format!(
                    "unknown level `{level}` in the placement (expected {})",
                    levels
                        .iter()
                        .filter(|l| !l.is_empty())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        out[k] = n
            .parse()
            .map_err(|_| err(cell.pos, format!("expected a number after `{level}`, found `{n}`")))?;
        seen[k] = true;
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        return Err(err(
            cell.pos,
            format!("the placement does not give the thread's `{}`", levels[k]),
        ));
    }
    Ok((index, out))
}

/// Splits an instruction's operands (`r0, x, 1`).
pub fn operands(text: &str) -> Vec<&str> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    text.split(',').map(str::trim).collect()
}

/// One cell of the thread table: its items (one, or two for an ordered
/// branch).
fn instruction(
    cell: &Cell,
    dialect: Dialect,
    aliases: &Aliases,
    ops: &mut HashMap<(u32, u32), GpuOp>,
    used: &RefCell<Vec<(String, Pos)>>,
) -> Result<Vec<Item>, ParseError> {
    let text = cell.text.as_str();
    if let Some(l) = text.strip_suffix(':') {
        if is_name(l.trim()) {
            return Ok(vec![Item::Label(l.trim().to_string())]);
        }
    }
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let args = operands(rest);
    if let Some(items) = super::gpu_branch::branch(mnemonic, &args, cell.pos) {
        return items;
    }
    let cx = Decode {
        cell,
        mnemonic,
        args: &args,
        aliases,
        used,
    };
    let (stmts, op) = match dialect {
        Dialect::Ptx => super::ptx::decode(&cx)?,
        Dialect::Vulkan => super::vulkan::decode(&cx)?,
    };
    if let Some(op) = op {
        ops.insert((cell.pos.line, cell.pos.col), op);
    }
    Ok(vec![Item::Stmts(stmts)])
}

/// An instruction being decoded by a dialect.
pub struct Decode<'a> {
    /// The table cell.
    pub cell: &'a Cell,
    /// The mnemonic (`ld.acquire.gpu`).
    pub mnemonic: &'a str,
    /// The operands.
    pub args: &'a [&'a str],
    aliases: &'a Aliases,
    /// The locations the instructions access, with where (for the
    /// implicit `x=0` of a location the init block does not declare).
    used: &'a RefCell<Vec<(String, Pos)>>,
}

impl Decode<'_> {
    /// An error at the instruction.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        err(self.cell.pos, message)
    }
    /// The operand count must be `n` (`form` says what was expected).
    pub fn arity(&self, n: usize, form: &str) -> Result<(), ParseError> {
        if self.args.len() == n {
            Ok(())
        } else {
            Err(self.error(format!("expected `{form}`, found `{}`", self.cell.text)))
        }
    }
    fn expr(&self, kind: ExprKind) -> Expr {
        Expr {
            kind,
            pos: self.cell.pos,
        }
    }
    /// The address of location operand `i` (an alias names its location),
    /// and the virtual address it was written as.
    pub fn addr(&self, i: usize) -> Result<(Expr, String), ParseError> {
        let name = self.args[i];
        if !is_name(name) {
            return Err(self.error(format!("expected a location name, found `{name}`")));
        }
        let (phys, virt) = self
            .aliases
            .get(name)
            .map_or((name, name), |(p, v)| (p.as_str(), v.as_str()));
        self.used.borrow_mut().push((phys.to_string(), self.cell.pos));
        Ok((self.expr(ExprKind::AddrOf(phys.to_string())), virt.to_string()))
    }
    /// A register operand.
    pub fn reg(&self, i: usize) -> Result<String, ParseError> {
        let name = self.args[i];
        if is_name(name) {
            Ok(name.to_string())
        } else {
            Err(self.error(format!("expected a register, found `{name}`")))
        }
    }
    /// A value operand: an integer or a register.
    pub fn value(&self, i: usize) -> Result<Expr, ParseError> {
        Ok(match super::gpu_branch::operand(self.args[i], self.cell.pos)? {
            Operand::Int(v) => self.expr(ExprKind::Int(v)),
            Operand::Reg(r) => self.expr(ExprKind::Var(r)),
        })
    }
    /// A statement at the instruction.
    pub fn stmt(&self, kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            pos: self.cell.pos,
        }
    }
    /// `reg = <atomic call>` (or the bare call when `reg` is `None`).
    pub fn call(&self, reg: Option<String>, call: AtomicCall) -> Stmt {
        let e = self.expr(ExprKind::Atomic(Box::new(call)));
        match reg {
            Some(name) => self.stmt(StmtKind::AssignReg { name, value: e }),
            None => self.stmt(StmtKind::Expr(e)),
        }
    }
    /// An atomic call on `addr`.
    pub fn atomic(&self, op: AtomicOp, addr: Expr, args: Vec<Expr>) -> AtomicCall {
        AtomicCall {
            op,
            addr,
            args,
            order: Order::Relaxed,
            consume: false,
            failure: None,
            failure_consume: false,
            scope: None,
            class: None,
        }
    }
    /// `reg = *addr` (a plain load).
    pub fn plain_load(&self, reg: String, addr: Expr) -> Stmt {
        let e = self.expr(ExprKind::Deref(Box::new(addr)));
        self.stmt(StmtKind::AssignReg { name: reg, value: e })
    }
    /// `*addr = value` (a plain store).
    pub fn plain_store(&self, addr: Expr, value: Expr) -> Stmt {
        self.stmt(StmtKind::Store { addr, value })
    }
    /// A fence event (the side table says what it is).
    pub fn fence(&self) -> Stmt {
        self.stmt(StmtKind::Fence {
            flags: Vec::new(),
            order: Order::SeqCst,
            consume: false,
            scope: None,
        })
    }
    /// A barrier's operands: `ID`, `RESOURCE, ID` or `RESOURCE, ID, QUORUM`
    /// (the id may be a register). Sets `op.kind` and returns the
    /// statements: the barrier's fence event, after a hidden store of a
    /// register id.
    pub fn barrier(&self, op: &mut GpuOp, arrive: bool) -> Result<Vec<Stmt>, ParseError> {
        let (id_at, quorum) = match self.args.len() {
            1 => (0, None),
            2 => (1, None),
            3 => {
                let q: u32 = self.args[2].parse().map_err(|_| {
                    self.error(format!(
                        "expected a thread count as the quorum, found `{}`",
                        self.args[2]
                    ))
                })?;
                // A barrier waiting for no thread would not be a barrier:
                // refused rather than read as one that never waits.
                if q == 0 {
                    return Err(self.error(
                        "a barrier's quorum (the threads it waits for) must be at least 1, found 0".to_string(),
                    ));
                }
                (1, Some(q))
            }
            _ => {
                return Err(self.error(format!(
                    "expected `{} ID`, `{} RESOURCE, ID` or `{} RESOURCE, ID, QUORUM`",
                    self.mnemonic, self.mnemonic, self.mnemonic
                )))
            }
        };
        let mut out = Vec::new();
        let id = match super::gpu_branch::operand(self.args[id_at], self.cell.pos)? {
            Operand::Int(v) => Some(v),
            Operand::Reg(r) => {
                let k = self.cell.text.rfind(self.args[id_at]).unwrap_or(0);
                let at = self.cell.at(k);
                let hidden = format!("{HIDDEN}{}_{}", self.cell.pos.line, self.cell.pos.col);
                out.push(Stmt {
                    kind: StmtKind::Store {
                        addr: Expr {
                            kind: ExprKind::AddrOf(hidden),
                            pos: at,
                        },
                        value: Expr {
                            kind: ExprKind::Var(r),
                            pos: at,
                        },
                    },
                    pos: at,
                });
                None
            }
        };
        op.kind = scopecheck_checker::model::gpu::GpuKind::Barrier { id, quorum, arrive };
        out.push(self.fence());
        Ok(out)
    }
    /// The register instructions both dialects share (`add`, `sub`, `mov`),
    /// as the statement they run; `None` for any other mnemonic head.
    pub fn register_arith(&self, head: &str) -> Result<Option<Stmt>, ParseError> {
        Ok(Some(match head {
            "add" => self.arith(BinOp::Add)?,
            "sub" => self.arith(BinOp::Sub)?,
            "mul" => self.arith(BinOp::Mul)?,
            // Truncating, as Dat3M's signed division; by zero it is an
            // error of the test (the interpreter's).
            "div" => self.arith(BinOp::Div)?,
            "mov" => {
                self.arity(2, "mov REG, VALUE")?;
                self.stmt(StmtKind::AssignReg {
                    name: self.reg(0)?,
                    value: self.value(1)?,
                })
            }
            _ => return Ok(None),
        }))
    }

    /// `dst = a OP b` for the register arithmetic (`add r2, r2, 1`).
    pub fn arith(&self, op: BinOp) -> Result<Stmt, ParseError> {
        self.arity(3, &format!("{} REG, A, B", self.mnemonic))?;
        let dst = self.reg(0)?;
        let e = self.expr(ExprKind::Binary(Box::new(self.value(1)?), vec![(op, self.value(2)?)]));
        Ok(self.stmt(StmtKind::AssignReg { name: dst, value: e }))
    }
}
