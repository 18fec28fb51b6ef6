//! The parsed form of a litmus test in herd's and Dat3M's C dialect, plus
//! scopecheck's extensions (CUDA/SYCL scopes and placement, DRFrlx classes).
//!
//! The tree keeps a [`Pos`] on everything an error or a report may point at,
//! so the interpreter can name the litmus line an event came from.

use std::fmt;

/// A position in the source file, 1-based.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Which dialect the header named.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `C name`: C11 atomics, no scopes.
    C,
    /// `OPENCL name`: scoped atomics, placements, barriers.
    OpenCl,
    /// Dat3M's `PTX` dialect (harness/src/litmus/ptx.rs).
    Ptx,
    /// Dat3M's `VULKAN` dialect (harness/src/litmus/vulkan.rs).
    Vulkan,
}

/// A whole litmus test.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    /// The dialect of the header.
    pub arch: Arch,
    /// The name after the dialect keyword (the rest of the header line, trimmed).
    pub name: String,
    /// The init block, in source order.
    pub init: Vec<Init>,
    /// The threads, in source order (their `index` is the `N` of `PN`).
    pub threads: Vec<Thread>,
    /// Extra observed variables from a `locations [x; 0:r1;]` clause.
    pub locations: Vec<StateVar>,
    /// The final condition (a test without one observes `locations` only).
    pub condition: Option<Condition>,
    /// A PTX or Vulkan test's instruction lists and side table (its thread
    /// bodies are built from them by `gpu::expand`).
    pub gpu: Option<Box<super::gpu::GpuCode>>,
}

/// One declaration in the init block.
#[derive(Clone, Debug, PartialEq)]
pub struct Init {
    /// What is initialised.
    pub target: InitTarget,
    /// Declared C type, when the entry had one (`atomic_int y[2] = {0, 0};`).
    pub ty: Option<Type>,
    /// The initial value.
    pub value: InitValue,
    /// Where the entry starts.
    pub pos: Pos,
}

/// What an init entry initialises.
#[derive(Clone, Debug, PartialEq)]
pub enum InitTarget {
    /// A shared location: `x = 1`, `[x] = 1`, `int x = 1`.
    Loc(String),
    /// An array of `len` shared locations `y[0..len]` (`atomic_int y[2] = {0, 0}`).
    Array {
        /// The array's name.
        name: String,
        /// Its length.
        len: u32,
    },
    /// A thread's register: `P1:r0 = 0` (written `1:r0 = 0` too).
    Reg {
        /// Thread index.
        thread: u32,
        /// Register name.
        reg: String,
    },
}

/// An initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum InitValue {
    /// An integer.
    Int(i64),
    /// The address of a location (`P0:r0 = x` or `P0:r0 = &x`).
    Addr(String),
    /// Array elements (`{0, 0}`); shorter lists leave the rest 0.
    List(Vec<i64>),
}

/// A C type as far as litmus tests use them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    /// `global` / `local` (OpenCL address space qualifier), if written.
    pub space: Option<AddressSpace>,
    /// `atomic_int` and friends (`_Atomic int` too).
    pub atomic: bool,
    /// `volatile`.
    pub volatile: bool,
    /// The base type's name (`int`, `long`, `uint`, ...), after `atomic_` is removed.
    pub base: String,
    /// Number of `*`.
    pub pointer: u8,
}

/// OpenCL address spaces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AddressSpace {
    /// `global`: visible to every thread of the device.
    Global,
    /// `local`: one instance per work-group (block).
    Local,
}

/// One `PN` thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    /// The `N` of `PN`.
    pub index: u32,
    /// Dat3M placement `@wg 0, dev 0`, or ours `@block 0, device 0`.
    pub placement: Vec<(Level, u32)>,
    /// Parameters: the shared locations the thread names.
    pub params: Vec<Param>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Where `PN` is.
    pub pos: Pos,
}

/// A level of the GPU hierarchy in a placement.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// `sg` / `sub_group` / `warp`.
    Warp,
    /// `wg` / `work_group` / `block`.
    Block,
    /// `dev` / `device`.
    Device,
}

/// A thread parameter: `global atomic_int* x`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its type.
    pub ty: Type,
    /// Its name, which is also the shared location it points to.
    pub name: String,
    /// Where it is.
    pub pos: Pos,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it starts.
    pub pos: Pos,
}

/// What a statement does.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `int r = e;` or `int r;` (a register declaration).
    Decl {
        /// The declared type.
        ty: Type,
        /// The register.
        name: String,
        /// Its initialiser.
        init: Option<Expr>,
    },
    /// `r = e;`
    AssignReg {
        /// The register.
        name: String,
        /// The value.
        value: Expr,
    },
    /// `*p = e;` or `p[i] = e;` (a plain store; `p[i] = e` has address `p + i`).
    Store {
        /// The address.
        addr: Expr,
        /// The value.
        value: Expr,
    },
    /// An expression evaluated for its effect (`atomic_store_explicit(...)`).
    Expr(Expr),
    /// `if (c) { .. } else { .. }`
    If {
        /// The condition.
        cond: Expr,
        /// Taken when `cond` is non-zero.
        then: Vec<Stmt>,
        /// Taken otherwise (empty without `else`).
        els: Vec<Stmt>,
    },
    /// `while (c) { .. }`: unrolled at most the run's unroll bound times;
    /// executions that need more are discarded, as herd does.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `atomic_thread_fence(order)` or `atomic_work_item_fence(flags, order, scope)`.
    Fence {
        /// `CLK_*_MEM_FENCE` flags (empty for `atomic_thread_fence`).
        flags: Vec<MemFlag>,
        /// The order (never [`Order::NonAtomic`]).
        order: Order,
        /// Whether the order was written `memory_order_consume` (read as
        /// acquire).
        consume: bool,
        /// The scope, if given.
        scope: Option<Scope>,
    },
    /// `L: barrier(flags)` (OpenCL work-group barrier; `work_group_barrier` too).
    Barrier {
        /// The label before it, if any (herd uses labels to match barriers).
        label: Option<String>,
        /// The memory spaces it fences.
        flags: Vec<MemFlag>,
        /// An explicit scope argument (`work_group_barrier(flags, scope)`).
        scope: Option<Scope>,
    },
    /// `{ ... }`
    Block(Vec<Stmt>),
}

/// `CLK_LOCAL_MEM_FENCE` / `CLK_GLOBAL_MEM_FENCE`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MemFlag {
    /// `CLK_LOCAL_MEM_FENCE`.
    Local,
    /// `CLK_GLOBAL_MEM_FENCE`.
    Global,
}

/// A memory order: the checker's own type. The parser reads each C order
/// as it: `memory_order_consume` is read as acquire, as compilers do, and
/// the node that holds the order records that spelling apart (its
/// `consume` field), for messages and for the fuzzer's coverage.
pub use scopecheck_checker::event::Order;

/// A memory scope: the checker's own type. The parser reads every name the
/// dialects use (`memory_scope_work_item`, `thread_scope_block`, `device`,
/// ...) as one of its levels; it never writes [`Scope::Cluster`], which no
/// C or OpenCL test can name.
pub use scopecheck_checker::scope::Scope;

/// DRFrlx classes of relaxed atomics (seed 004, section 3): the checker's
/// own type, written `rlx_unpaired`, `rlx_commutative`, `rlx_non_ordering`,
/// `rlx_quantum` and `rlx_speculative` in a test.
pub use scopecheck_checker::drfrlx::RlxClass;

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Where it starts.
    pub pos: Pos,
}

/// What an expression computes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A register or a parameter (a parameter's value is its location's address).
    Var(String),
    /// `*e`: a plain load.
    Deref(Box<Expr>),
    /// `&r` (only as a compare-exchange's expected argument) or `&x`.
    AddrOf(String),
    /// `e[i]`: a plain load of element `i` (same as `*(e + i)`).
    Index(Box<Expr>, Box<Expr>),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A chain of binary operators of one precedence, left-associative:
    /// `a - b + c` is `Binary(a, [(Sub, b), (Add, c)])`, evaluated left to
    /// right as `(a - b) + c`. Kept flat (not a left-deep tree) so that a
    /// chain of thousands of operands (generated tests have them) costs
    /// no recursion depth in the parser, the interpreter or `Drop`.
    Binary(Box<Expr>, Vec<(BinOp, Expr)>),
    /// An atomic operation.
    Atomic(Box<AtomicCall>),
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-e`.
    Neg,
    /// `!e`.
    Not,
    /// `~e`.
    BitNot,
}

/// Binary operators, with C's meaning on 64-bit signed integers (wrapping).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+` (also pointer + integer).
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/` (division by zero is an error of the test).
    Div,
    /// `%`.
    Rem,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `&&` (short-circuit).
    And,
    /// `||` (short-circuit).
    Or,
}

/// Which atomic function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_load[_explicit]`.
    Load,
    /// `atomic_store[_explicit]`.
    Store,
    /// `atomic_exchange[_explicit]`.
    Exchange,
    /// `atomic_fetch_add[_explicit]`.
    FetchAdd,
    /// `atomic_fetch_sub[_explicit]`.
    FetchSub,
    /// `atomic_fetch_and[_explicit]`.
    FetchAnd,
    /// `atomic_fetch_or[_explicit]`.
    FetchOr,
    /// `atomic_fetch_xor[_explicit]`.
    FetchXor,
    /// `atomic_fetch_min[_explicit]` (OpenCL).
    FetchMin,
    /// `atomic_fetch_max[_explicit]` (OpenCL).
    FetchMax,
    /// `atomic_compare_exchange_strong[_explicit]`.
    CasStrong,
    /// `atomic_compare_exchange_weak[_explicit]`.
    CasWeak,
}

/// A call to an atomic function, arguments already sorted by role.
#[derive(Clone, Debug, PartialEq)]
pub struct AtomicCall {
    /// The function.
    pub op: AtomicOp,
    /// The object's address (first argument).
    pub addr: Expr,
    /// Value operands: the stored value / operand; for compare-exchange,
    /// `[expected_address, desired]`; empty for loads.
    pub args: Vec<Expr>,
    /// The order (`seq_cst` for the non-`_explicit` forms); for
    /// compare-exchange, the success order.
    pub order: Order,
    /// Whether [`AtomicCall::order`] was written `memory_order_consume`
    /// (read as acquire).
    pub consume: bool,
    /// Compare-exchange's failure order (`Some` for every compare-exchange,
    /// `seq_cst` for the non-`_explicit` forms; `None` elsewhere).
    pub failure: Option<Order>,
    /// Whether the failure order was written `memory_order_consume` (read
    /// as acquire).
    pub failure_consume: bool,
    /// The scope argument, if any.
    pub scope: Option<Scope>,
    /// The DRFrlx class after a relaxed order, if any.
    pub class: Option<RlxClass>,
}

/// The final condition.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// `exists`, `~exists` or `forall`.
    pub quantifier: Quantifier,
    /// The proposition.
    pub prop: Prop,
    /// Where the quantifier is.
    pub pos: Pos,
    /// Each state variable the proposition names, where it is written, in
    /// source order (for messages about one of them), the filter's first.
    pub vars: Vec<(StateVar, Pos)>,
    /// herd's `filter P` before the condition: only executions whose final
    /// state satisfies `P` are kept (counted, listed, judged).
    pub filter: Option<Prop>,
    /// The test has a `filter` and no condition (Dat3M's PTX and Vulkan
    /// grammars make both optional; its `Data-Race` tests are written so):
    /// the quantifier and proposition are then `forall true`, which no
    /// execution refutes, and the result gives no verdict and prints no
    /// condition. The filter still decides which executions count (and
    /// whose races count).
    pub filter_only: bool,
}

/// The quantifier of a condition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// `exists p`: some execution satisfies `p`.
    Exists,
    /// `~exists p`: no execution satisfies `p`.
    NotExists,
    /// `forall p`: every execution satisfies `p`.
    Forall,
}

/// A proposition over final states.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    /// `true`.
    True,
    /// `false`.
    False,
    /// `v = value` (or `v == value`).
    Eq(StateVar, Value),
    /// `v != value`.
    Ne(StateVar, Value),
    /// `a == b` between two state variables (GPU dialects: `P0:r1 == P0:r2`).
    Same(StateVar, StateVar),
    /// `~p` (also `not p`).
    Not(Box<Prop>),
    /// `p /\ q /\ ...`: two or more conjuncts, kept flat (not a tree) so
    /// that a generated condition of thousands of conjuncts costs no
    /// recursion depth.
    And(Vec<Prop>),
    /// `p \/ q \/ ...`: two or more disjuncts, kept flat like [`Prop::And`].
    Or(Vec<Prop>),
}

/// A variable of the final state.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateVar {
    /// `P:r` / `Pn:r`: register `r` of thread `P`.
    Reg {
        /// Thread index.
        thread: u32,
        /// Register name.
        reg: String,
    },
    /// `x`, `[x]`, or `y[1]` (element `index` of an array).
    Loc {
        /// Location name.
        name: String,
        /// Element index (0 for a scalar).
        index: u32,
    },
}

/// A value in a condition or final state.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// The address of a location (element `index` of `name`).
    Addr {
        /// Location name.
        name: String,
        /// Element index.
        index: u32,
    },
}

impl fmt::Display for StateVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateVar::Reg { thread, reg } => write!(f, "{thread}:{reg}"),
            StateVar::Loc { name, index: 0 } => write!(f, "{name}"),
            StateVar::Loc { name, index } => write!(f, "{name}[{index}]"),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Addr { name, index: 0 } => write!(f, "{name}"),
            Value::Addr { name, index } => write!(f, "{name}+{index}"),
        }
    }
}
