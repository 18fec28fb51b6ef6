//! Features of litmus text: the `parse` corpus's side of the coverage.

use super::Features;
use scopecheck::litmus::ast::*;
use scopecheck::litmus::{body_identifiers, parse, ParseError};

names!(arch_name, ARCHS, Arch { Arch::C => "C", Arch::OpenCl => "OPENCL", Arch::Ptx => "PTX", Arch::Vulkan => "VULKAN" });
names!(init_target_name, INIT_TARGETS, InitTarget {
    InitTarget::Loc(_) => "loc",
    InitTarget::Array { .. } => "array",
    InitTarget::Reg { .. } => "reg",
});
names!(init_value_name, INIT_VALUES, InitValue {
    InitValue::Int(_) => "int",
    InitValue::Addr(_) => "address",
    InitValue::List(_) => "list",
});
names!(space_name, SPACES, AddressSpace { AddressSpace::Global => "global", AddressSpace::Local => "local" });
names!(level_name, LEVELS, Level { Level::Warp => "warp", Level::Block => "block", Level::Device => "device" });
names!(stmt_name, STMTS, StmtKind {
    StmtKind::Decl { .. } => "decl",
    StmtKind::AssignReg { .. } => "assign",
    StmtKind::Store { .. } => "store",
    StmtKind::Expr(_) => "expr",
    StmtKind::If { .. } => "if",
    StmtKind::While { .. } => "while",
    StmtKind::Fence { .. } => "fence",
    StmtKind::Barrier { .. } => "barrier",
    StmtKind::Block(_) => "block",
});
names!(flag_name, FLAGS, MemFlag { MemFlag::Local => "CLK_LOCAL_MEM_FENCE", MemFlag::Global => "CLK_GLOBAL_MEM_FENCE" });
/// The feature name of an order as the test wrote it: `consume` is an
/// acquire order written `memory_order_consume` (the AST's `consume` fact).
pub fn order_name(x: &Order, consume: bool) -> &'static str {
    match x {
        Order::Acquire if consume => "consume",
        Order::Relaxed => "relaxed",
        Order::Acquire => "acquire",
        Order::Release => "release",
        Order::AcqRel => "acq_rel",
        Order::SeqCst => "seq_cst",
        // The parser never gives a call or fence this order.
        Order::NonAtomic => "non_atomic",
    }
}
/// Every name [`order_name`] returns for an order the parser reads.
pub const ORDERS: &[&str] = &["relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"];
/// The feature name of a `Scope`.
pub fn scope_name(x: &Scope) -> &'static str {
    match x {
        Scope::Thread => "thread",
        Scope::Warp => "warp",
        Scope::Block => "block",
        Scope::Device => "device",
        Scope::System => "system",
        // The parser never reads one (C and OpenCL tests cannot name it).
        Scope::Cluster => "cluster",
    }
}
/// Every name [`scope_name`] returns for a scope the parser reads.
pub const SCOPE_NAMES: &[&str] = &["thread", "warp", "block", "device", "system"];
names!(class_name, CLASSES, RlxClass {
    RlxClass::Unpaired => "unpaired",
    RlxClass::Commutative => "commutative",
    RlxClass::NonOrdering => "non_ordering",
    RlxClass::Quantum => "quantum",
    RlxClass::Speculative => "speculative",
});
names!(expr_name, EXPRS, ExprKind {
    ExprKind::Int(_) => "int",
    ExprKind::Var(_) => "var",
    ExprKind::Deref(_) => "deref",
    ExprKind::AddrOf(_) => "addr_of",
    ExprKind::Index(..) => "index",
    ExprKind::Unary(..) => "unary",
    ExprKind::Binary(..) => "binary",
    ExprKind::Atomic(_) => "atomic",
});
names!(unop_name, UNOPS, UnOp { UnOp::Neg => "-", UnOp::Not => "!", UnOp::BitNot => "~" });
names!(binop_name, BINOPS, BinOp {
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
});
names!(atomic_name, ATOMICS, AtomicOp {
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
});
names!(quantifier_name, QUANTIFIERS, Quantifier {
    Quantifier::Exists => "exists",
    Quantifier::NotExists => "~exists",
    Quantifier::Forall => "forall",
});
names!(prop_name, PROPS, Prop {
    Prop::True => "true",
    Prop::False => "false",
    Prop::Eq(..) => "=",
    Prop::Ne(..) => "!=",
    Prop::Same(..) => "==",
    Prop::Not(_) => "~",
    Prop::And(..) => "/\\",
    Prop::Or(..) => "\\/",
});
names!(state_var_name, STATE_VARS, StateVar { StateVar::Reg { .. } => "reg", StateVar::Loc { .. } => "loc" });
names!(value_name, VALUES, Value { Value::Int(_) => "int", Value::Addr { .. } => "address" });

/// The orders the parser accepts on a load (C forbids release and acq_rel).
fn load_accepts(o: Order) -> bool {
    !matches!(o, Order::Release | Order::AcqRel)
}

/// The orders the parser accepts on a store (C forbids acquire, consume and
/// acq_rel; consume is read as acquire).
fn store_accepts(o: Order) -> bool {
    !matches!(o, Order::Acquire | Order::AcqRel)
}

/// Every order as a test may write it: the order, and whether it is spelled
/// `memory_order_consume`.
const ALL_ORDERS: [(Order, bool); 6] = [
    (Order::Relaxed, false),
    (Order::Acquire, true),
    (Order::Acquire, false),
    (Order::Release, false),
    (Order::AcqRel, false),
    (Order::SeqCst, false),
];

/// Every spelling of a scope the parser reads (`scope_of` in
/// `harness/src/litmus/parser/words.rs`: OpenCL's, CUDA's `thread_scope_*`,
/// scopecheck's `memory_scope_*` and the bare level names).
pub const SCOPE_SPELLINGS: &[&str] = &[
    "memory_scope_work_item",
    "memory_scope_thread",
    "thread_scope_thread",
    "thread",
    "memory_scope_sub_group",
    "memory_scope_warp",
    "thread_scope_warp",
    "warp",
    "memory_scope_work_group",
    "memory_scope_block",
    "thread_scope_block",
    "block",
    "memory_scope_device",
    "thread_scope_device",
    "device",
    "memory_scope_all_svm_devices",
    "memory_scope_all_devices",
    "memory_scope_system",
    "thread_scope_system",
    "system",
];

/// Every spelling of a placement level (`level_of` in the parser): Dat3M's
/// short and long names and CUDA's.
pub const LEVEL_SPELLINGS: &[&str] = &["wg", "work_group", "block", "sg", "sub_group", "warp", "dev", "device"];

/// Words of types, statements and conditions the parser reads (besides
/// orders, scopes, classes, flags and atomic functions, listed from the AST).
pub const KEYWORDS: &[&str] = &[
    "_Atomic",
    "unsigned",
    "signed",
    "const",
    "volatile",
    "global",
    "__global",
    "local",
    "__local",
    "if",
    "else",
    "while",
    "atomic_thread_fence",
    "atomic_work_item_fence",
    "barrier",
    "work_group_barrier",
    "locations",
    "filter",
    "exists",
    "forall",
    "not",
    "true",
    "false",
];

/// Base type names after `unsigned`/`signed`/`atomic_` are folded (`BASES`
/// in the parser, and `unsigned char`/`unsigned short`).
pub const BASE_TYPES: &[&str] = &[
    "int", "uint", "long", "ulong", "bool", "char", "short", "uchar", "ushort",
];

/// Lexical forms, recognised in the text (see [`litmus_features`]).
pub const LEXICAL: &[&str] = &[
    "lex:bom",
    "lex:crlf",
    "lex:line-comment",
    "lex:block-comment",
    "lex:herd-comment",
    "lex:doc-string",
    "lex:hex",
];

/// Every feature the parse corpus must cover: each AST variant, each order
/// on each kind of operation that accepts it, each spelling, and the
/// combinations the parser treats specially (else-if chains, labelled and
/// scoped barriers, scoped and classified calls, placements of one to three
/// levels, array elements in conditions, ...).
pub fn litmus_expected() -> Features {
    let mut f = Features::new();
    let mut add = |s: String| {
        f.insert(s);
    };
    let groups: [(&str, &[&str]); 17] = [
        ("arch", ARCHS),
        ("init", INIT_TARGETS),
        ("init-value", INIT_VALUES),
        ("space", SPACES),
        ("level", LEVELS),
        ("stmt", STMTS),
        ("flag", FLAGS),
        ("scope", SCOPE_NAMES),
        ("class", CLASSES),
        ("expr", EXPRS),
        ("unop", UNOPS),
        ("binop", BINOPS),
        ("atomic", ATOMICS),
        ("quantifier", QUANTIFIERS),
        ("prop", PROPS),
        ("state-var", STATE_VARS),
        ("value", VALUES),
    ];
    for (group, names) in groups {
        for n in names {
            add(format!("{group}:{n}"));
        }
    }
    for (o, consume) in ALL_ORDERS {
        let n = order_name(&o, consume);
        add(format!("fence:{n}"));
        add(format!("rmw:{n}"));
        add(format!("cas-failure:{n}"));
        if load_accepts(o) {
            add(format!("load:{n}"));
        }
        if store_accepts(o) {
            add(format!("store:{n}"));
        }
        add(format!("spell:memory_order_{n}"));
    }
    for a in ATOMICS {
        add(format!("spell:atomic_{a}"));
        add(format!("spell:atomic_{a}_explicit"));
    }
    for c in CLASSES {
        add(format!("spell:rlx_{c}"));
    }
    for w in FLAGS
        .iter()
        .chain(SCOPE_SPELLINGS)
        .chain(LEVEL_SPELLINGS)
        .chain(KEYWORDS)
    {
        add(format!("spell:{w}"));
    }
    for b in BASE_TYPES {
        add(format!("base:{b}"));
    }
    for l in LEXICAL {
        add(l.to_string());
    }
    for s in [
        "test:locations",
        "test:no-condition",
        "init:typed",
        "type:atomic",
        "type:volatile",
        "type:space-none",
        "type:pointer-2",
        "thread:no-placement",
        "placement:1-level",
        "placement:3-levels",
        "decl:no-init",
        "if:else",
        "if:else-if",
        "fence:scope",
        "fence:flags",
        "barrier:label",
        "barrier:scope",
        "barrier:both-flags",
        "call:scope",
        "call:class",
        "call:scope-and-class",
        "state-var:element",
        "value:element",
    ] {
        add(s.to_string());
    }
    f
}

/// The features of the litmus text `src`, or its parse error. Structure
/// comes from the AST, spellings from the tokens, lexical forms from the
/// text (`(*` followed by white space is a herd comment, a line starting
/// with `"` a doc string).
pub fn litmus_features(src: &str) -> Result<Features, ParseError> {
    let test = parse(src)?;
    let mut w = LitmusWalk::default();
    w.test(&test);
    // Spellings from the tokens after the header line (the test's name is
    // free text, not words of the dialect).
    for s in body_identifiers(src) {
        w.add(format!("spell:{s}"));
    }
    let lexical = [
        ("lex:bom", src.starts_with('\u{feff}')),
        ("lex:crlf", src.contains("\r\n")),
        ("lex:line-comment", src.contains("//")),
        ("lex:block-comment", src.contains("/*")),
        (
            "lex:herd-comment",
            src.contains("(* ") || src.contains("(*\n") || src.contains("(*\r"),
        ),
        ("lex:doc-string", src.lines().any(|l| l.starts_with('"'))),
        ("lex:hex", src.contains("0x") || src.contains("0X")),
    ];
    for (name, present) in lexical {
        if present {
            w.add(name.to_string());
        }
    }
    Ok(w.out)
}

#[derive(Default)]
struct LitmusWalk {
    out: Features,
}

impl LitmusWalk {
    fn add(&mut self, s: String) {
        self.out.insert(s);
    }

    fn test(&mut self, t: &Test) {
        self.add(format!("arch:{}", arch_name(&t.arch)));
        for i in &t.init {
            self.add(format!("init:{}", init_target_name(&i.target)));
            self.add(format!("init-value:{}", init_value_name(&i.value)));
            if let Some(ty) = &i.ty {
                self.add("init:typed".into());
                self.ty(ty);
            }
        }
        for th in &t.threads {
            for (l, _) in &th.placement {
                self.add(format!("level:{}", level_name(l)));
            }
            match th.placement.len() {
                0 => self.add("thread:no-placement".into()),
                1 => self.add("placement:1-level".into()),
                3 => self.add("placement:3-levels".into()),
                _ => {}
            }
            for p in &th.params {
                self.ty(&p.ty);
            }
            self.stmts(&th.body);
        }
        if !t.locations.is_empty() {
            self.add("test:locations".into());
        }
        for v in &t.locations {
            self.state_var(v);
        }
        match &t.condition {
            None => self.add("test:no-condition".into()),
            Some(c) => {
                self.add(format!("quantifier:{}", quantifier_name(&c.quantifier)));
                if let Some(f) = &c.filter {
                    self.prop(f);
                }
                self.prop(&c.prop);
            }
        }
    }

    fn ty(&mut self, ty: &Type) {
        match &ty.space {
            Some(s) => self.add(format!("space:{}", space_name(s))),
            None => self.add("type:space-none".into()),
        }
        if ty.atomic {
            self.add("type:atomic".into());
        }
        if ty.volatile {
            self.add("type:volatile".into());
        }
        if ty.pointer >= 2 {
            self.add("type:pointer-2".into());
        }
        self.add(format!("base:{}", ty.base));
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.add(format!("stmt:{}", stmt_name(&s.kind)));
            match &s.kind {
                StmtKind::Decl { ty, init, .. } => {
                    self.ty(ty);
                    match init {
                        Some(e) => self.expr(e),
                        None => self.add("decl:no-init".into()),
                    }
                }
                StmtKind::AssignReg { value, .. } => self.expr(value),
                StmtKind::Store { addr, value } => {
                    self.expr(addr);
                    self.expr(value);
                }
                StmtKind::Expr(e) => self.expr(e),
                StmtKind::If { cond, then, els } => {
                    self.expr(cond);
                    if !els.is_empty() {
                        self.add("if:else".into());
                    }
                    if let [Stmt {
                        kind: StmtKind::If { .. },
                        ..
                    }] = els.as_slice()
                    {
                        self.add("if:else-if".into());
                    }
                    self.stmts(then);
                    self.stmts(els);
                }
                StmtKind::While { cond, body } => {
                    self.expr(cond);
                    self.stmts(body);
                }
                StmtKind::Fence {
                    flags,
                    order,
                    consume,
                    scope,
                } => {
                    self.add(format!("fence:{}", order_name(order, *consume)));
                    if !flags.is_empty() {
                        self.add("fence:flags".into());
                    }
                    self.flags(flags);
                    if let Some(sc) = scope {
                        self.add("fence:scope".into());
                        self.add(format!("scope:{}", scope_name(sc)));
                    }
                }
                StmtKind::Barrier { label, flags, scope } => {
                    if label.is_some() {
                        self.add("barrier:label".into());
                    }
                    if flags.len() == 2 {
                        self.add("barrier:both-flags".into());
                    }
                    self.flags(flags);
                    if let Some(sc) = scope {
                        self.add("barrier:scope".into());
                        self.add(format!("scope:{}", scope_name(sc)));
                    }
                }
                StmtKind::Block(b) => self.stmts(b),
            }
        }
    }

    fn flags(&mut self, flags: &[MemFlag]) {
        for f in flags {
            self.add(format!("flag:{}", flag_name(f)));
        }
    }

    fn expr(&mut self, e: &Expr) {
        self.add(format!("expr:{}", expr_name(&e.kind)));
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => {}
            ExprKind::Deref(a) => self.expr(a),
            ExprKind::Index(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Unary(op, a) => {
                self.add(format!("unop:{}", unop_name(op)));
                self.expr(a);
            }
            ExprKind::Binary(a, rest) => {
                self.expr(a);
                for (op, b) in rest {
                    self.add(format!("binop:{}", binop_name(op)));
                    self.expr(b);
                }
            }
            ExprKind::Atomic(c) => self.atomic(c),
        }
    }

    fn atomic(&mut self, c: &AtomicCall) {
        self.add(format!("atomic:{}", atomic_name(&c.op)));
        let kind = match c.op {
            AtomicOp::Load => "load",
            AtomicOp::Store => "store",
            _ => "rmw",
        };
        self.add(format!("{kind}:{}", order_name(&c.order, c.consume)));
        if let Some(f) = &c.failure {
            self.add(format!("cas-failure:{}", order_name(f, c.failure_consume)));
        }
        if let Some(sc) = &c.scope {
            self.add("call:scope".into());
            self.add(format!("scope:{}", scope_name(sc)));
        }
        if let Some(cl) = &c.class {
            self.add("call:class".into());
            self.add(format!("class:{}", class_name(cl)));
        }
        if c.scope.is_some() && c.class.is_some() {
            self.add("call:scope-and-class".into());
        }
        self.expr(&c.addr);
        for a in &c.args {
            self.expr(a);
        }
    }

    fn prop(&mut self, p: &Prop) {
        self.add(format!("prop:{}", prop_name(p)));
        match p {
            Prop::True | Prop::False => {}
            Prop::Eq(v, x) | Prop::Ne(v, x) => {
                self.state_var(v);
                self.add(format!("value:{}", value_name(x)));
                if matches!(x, Value::Addr { index, .. } if *index > 0) {
                    self.add("value:element".into());
                }
            }
            Prop::Same(a, b) => {
                self.state_var(a);
                self.state_var(b);
            }
            Prop::Not(q) => self.prop(q),
            Prop::And(all) | Prop::Or(all) => {
                for a in all {
                    self.prop(a);
                }
            }
        }
    }

    fn state_var(&mut self, v: &StateVar) {
        self.add(format!("state-var:{}", state_var_name(v)));
        if matches!(v, StateVar::Loc { index, .. } if *index > 0) {
            self.add("state-var:element".into());
        }
    }
}
