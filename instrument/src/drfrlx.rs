//! DRFrlx classes on the shim's atomics (seed 004), and the quantum oracle.
//!
//! A class refines `Ordering::Relaxed` (the paper suggests treating classes
//! like memory orders). Plain std code keeps compiling: `fetch_add(1,
//! Relaxed)` is an unclassified relaxed atomic, and `x.rlx(Class::Commutative)`
//! gives the same atomic's relaxed operations with a class:
//!
//! ```text
//! counter.rlx(Class::Commutative).fetch_add(1).discard();
//! let v = data.rlx(Class::Speculative).load(); // Observed<u32>
//! if validated { use(v.get()); }                // get() records the use
//! ```
//!
//! (A sketch: it needs a model around it. Complete programs that run
//! are in `harness/tests/drfrlx.rs`.)
//!
//! Loads and RMWs return [`Observed`] values: the checker learns that a
//! value was used when the program calls [`Observed::get`] (docs/drfrlx.md:
//! observability tracked at run time, not approximated by syntax).
//!
//! Under a quantum-equivalent run (installed by the harness with
//! [`install_quantum`]), quantum loads return, and quantum stores write,
//! values the exploration chooses from each location's domain (seed 004,
//! section 3.4.3), still as accesses of their location so that races are
//! judged on them.

use crate::raw_atomic::RawAtomic;
use crate::rt;
use crate::typed::{word, Arithmetic, Bitwise, MinMax, Typed};
use crate::value::AtomicValue;
use scopecheck_checker::event::{EventId, Loc, Order, RmwOp, Scope, SourceLoc, ThreadId, Value, ValueType};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

pub use scopecheck_checker::drfrlx::RlxClass as Class;

/// A value the shim keeps in an atomic with DRFrlx classes: any
/// [`AtomicValue`], kept as its one rule says (words zero-extended to the
/// type's width, decoded from the low bits; `bool` one bit wide), so a
/// classified access means the same as the atomic's other operations.
/// Implemented for every [`AtomicValue`]; a type gets it by implementing
/// that.
pub trait RlxValue: AtomicValue {
    /// The value's word: [`AtomicValue::to_bits`].
    fn to_value(self) -> Value {
        self.to_bits()
    }
    /// Back from a word: [`AtomicValue::from_bits`].
    fn from_value(v: Value) -> Self {
        <Self as AtomicValue>::from_bits(v)
    }
}

impl<T: AtomicValue> RlxValue for T {}

/// Integers: every read-modify-write applies (`fetch_add` and `fetch_sub`
/// wrapping, `fetch_min` and `fetch_max` with the type's sign, the bitwise
/// ones).
pub trait RlxInt: RlxValue + Arithmetic<Operand = Self> + Bitwise + MinMax {}

/// `rlx(class)` for a typed front end whose field `$cell` holds (or
/// borrows) its [`Typed`] location (`MemAtomic`, `AtomicElement`): written
/// here, with the DRFrlx types, so that the typed core does not name them.
macro_rules! rlx_method {
    ($cell:ident) => {
        /// This location's relaxed operations with a DRFrlx class (seed
        /// 004), as `AtomicX::rlx` gives them for std-shaped atomics:
        /// `x.rlx(Class::Commutative).scoped(Scope::Device).fetch_add(1)`.
        /// They act at system scope unless `.scoped(..)` says otherwise;
        /// `None` leaves the access unclassified but tracked (class
        /// inference is then precise about observations).
        #[track_caller]
        pub fn rlx(&self, class: impl Into<Option<$crate::drfrlx::Class>>) -> $crate::drfrlx::Rlx<'_, T> {
            $crate::drfrlx::Rlx::new(&self.$cell, class.into())
        }
    };
}
pub(crate) use rlx_method;

macro_rules! rlx_int {
    ($($t:ty),*) => {$(
        impl RlxInt for $t {}
    )*};
}

rlx_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// A value returned by a classified relaxed access. Using it
/// ([`Observed::get`]) tells the checker the value was observed (seed 004:
/// "the value loaded ... is used by another instruction in its thread");
/// [`Observed::discard`] says it is not.
#[must_use = "a classified access's value is either used (`get`) or dropped (`discard`)"]
#[derive(Debug)]
pub struct Observed<T> {
    value: T,
    read: Option<EventId>,
}

impl<T> Observed<T> {
    /// The value, recording that the thread uses it.
    #[track_caller]
    pub fn get(self) -> T {
        if let Some(e) = self.read {
            rt::observe(e);
        }
        self.value
    }

    /// Drops the value unused (the same as letting it go out of scope; it
    /// reads better where the paper's examples ignore an RMW's result).
    pub fn discard(self) {}
}

/// The relaxed operations of one atomic with one DRFrlx class (or `None`:
/// unclassified but tracked), from `AtomicX::rlx`.
pub struct Rlx<'a, T> {
    raw: &'a RawAtomic,
    class: Option<Class>,
    scope: Scope,
    _t: PhantomData<T>,
}

impl<'a, T: RlxValue> Rlx<'a, T> {
    pub(crate) fn new(cell: &'a Typed<T>, class: Option<Class>) -> Rlx<'a, T> {
        Rlx {
            raw: cell.raw(),
            class,
            scope: Scope::System,
            _t: PhantomData,
        }
    }

    /// The same operations at a memory scope.
    pub fn scoped(self, scope: Scope) -> Rlx<'a, T> {
        Rlx { scope, ..self }
    }

    /// The class this call has: the program's, unless the harness
    /// overrides the caller's line (class inference).
    #[track_caller]
    fn class(&self) -> Option<Class> {
        class_at(SourceLoc::caller(), self.class)
    }

    fn order(class: Option<Class>) -> Order {
        relaxed_order(class)
    }

    fn quantum(class: Option<Class>) -> bool {
        quantum_active(class)
    }

    fn observed(&self, v: Value, read: Option<EventId>) -> Observed<T> {
        Observed {
            value: T::from_bits(v),
            read,
        }
    }

    /// `load(Relaxed)`.
    #[track_caller]
    pub fn load(&self) -> Observed<T> {
        let class = self.class();
        let chosen = if Self::quantum(class) {
            choose(self.raw.loc, 0, self.raw.ty)
        } else {
            None
        };
        // The class is a field of the operation; the answer names the read.
        let (v, read) = self.raw.load_classed(Self::order(class), self.scope, class);
        self.observed(chosen.unwrap_or(v), read)
    }

    /// `store(v, Relaxed)`.
    #[track_caller]
    pub fn store(&self, v: T) {
        let class = self.class();
        let mut v = word(v);
        if Self::quantum(class) {
            note_written(self.raw.loc, v);
            v = choose(self.raw.loc, 2, self.raw.ty).unwrap_or(v);
        }
        self.raw.store_classed(v, Self::order(class), self.scope, class);
    }

    /// Runs an RMW; `(value returned, whether it wrote, its read event)`.
    #[track_caller]
    fn rmw_raw(&self, op: RmwOp) -> (Value, bool, Option<EventId>) {
        let class = self.class();
        let order = Self::order(class);
        let quantum = Self::quantum(class).then(|| QuantumRmw::plan(self.raw.loc, self.raw.ty, op));
        let op = quantum.as_ref().map_or(op, QuantumRmw::swap);
        let (v, ok, read) = self.raw.rmw_classed(op, order, order, self.scope, class);
        let (v, ok) = match quantum {
            Some(q) => q.result(v),
            None => (v, ok),
        };
        (v, ok, read)
    }

    #[track_caller]
    fn rmw(&self, op: RmwOp) -> Observed<T> {
        let (old, _, read) = self.rmw_raw(op);
        self.observed(old, read)
    }

    /// `swap(v, Relaxed)`.
    #[track_caller]
    pub fn swap(&self, v: T) -> Observed<T> {
        self.rmw(RmwOp::Swap(word(v)))
    }

    /// `compare_exchange(current, new, Relaxed, Relaxed)`: `Ok(previous)`
    /// when it wrote, `Err(actual)` when it did not.
    #[track_caller]
    pub fn compare_exchange(&self, current: T, new: T) -> Observed<Result<T, T>> {
        let op = RmwOp::Cas {
            expected: word(current),
            new: word(new),
            weak: false,
        };
        let (old, ok, read) = self.rmw_raw(op);
        let v = T::from_bits(old);
        Observed {
            value: if ok { Ok(v) } else { Err(v) },
            read,
        }
    }
}

impl<T: RlxValue + Arithmetic> Rlx<'_, T> {
    /// `fetch_add(v, Relaxed)` (wrapping).
    #[track_caller]
    pub fn fetch_add(&self, v: T::Operand) -> Observed<T> {
        self.rmw(T::add_op(v))
    }
    /// `fetch_sub(v, Relaxed)` (wrapping).
    #[track_caller]
    pub fn fetch_sub(&self, v: T::Operand) -> Observed<T> {
        self.rmw(T::sub_op(v))
    }
}

impl<T: RlxValue + MinMax> Rlx<'_, T> {
    /// `fetch_max(v, Relaxed)`.
    #[track_caller]
    pub fn fetch_max(&self, v: T) -> Observed<T> {
        self.rmw(v.max_op())
    }
    /// `fetch_min(v, Relaxed)`.
    #[track_caller]
    pub fn fetch_min(&self, v: T) -> Observed<T> {
        self.rmw(v.min_op())
    }
}

impl<T: RlxValue + Bitwise> Rlx<'_, T> {
    /// `fetch_and(v, Relaxed)` (for `bool`, logical and).
    #[track_caller]
    pub fn fetch_and(&self, v: T) -> Observed<T> {
        self.rmw(RmwOp::And(word(v)))
    }
    /// `fetch_or(v, Relaxed)`.
    #[track_caller]
    pub fn fetch_or(&self, v: T) -> Observed<T> {
        self.rmw(RmwOp::Or(word(v)))
    }
    /// `fetch_xor(v, Relaxed)`.
    #[track_caller]
    pub fn fetch_xor(&self, v: T) -> Observed<T> {
        self.rmw(RmwOp::Xor(word(v)))
    }
}

/// Where a quantum choice is made: the thread, the index its access event
/// takes, and which of the access's values (0: the value returned, 1: an
/// RMW's value written, by the event after that index; 2: a store's value).
/// The same in every re-execution of the same path.
pub type ChoiceKey = (ThreadId, u32, u8);

/// What a quantum-equivalent run may return and write.
#[derive(Clone, Debug, Default)]
pub struct QuantumPlan {
    /// Per location, the values quantum accesses choose from.
    pub domains: HashMap<Loc, Vec<Value>>,
    /// The choice (an index into the domain) at each key; keys not listed
    /// choose index 0.
    pub script: BTreeMap<ChoiceKey, usize>,
    /// Whether every domain also holds the smallest and the largest value
    /// of the type the access is made with ([`boundary_values`]), after
    /// the listed ones.
    pub boundaries: bool,
}

/// What a quantum-equivalent run met.
#[derive(Clone, Debug, Default)]
pub struct QuantumLog {
    /// Every choice point reached, with its domain's size.
    pub choices: BTreeMap<ChoiceKey, usize>,
    /// Values quantum stores of the original program would have written.
    pub written: BTreeMap<Loc, Vec<Value>>,
    /// The values quantum accesses of each location were offered (the
    /// plan's domain with the boundary values added).
    pub offered: BTreeMap<Loc, Vec<Value>>,
}

/// The smallest and the largest value of `ty`, encoded as the checker keeps
/// them (zero-extended to 64 bits): `0` and `2^bits - 1` unsigned,
/// `-2^(bits-1)` and `2^(bits-1) - 1` signed. A quantum value is any value
/// the location's type holds; the domain the exploration can afford is the
/// values the program itself produces plus these two, which are the ones a
/// program's comparisons and arithmetic most often assume away (`a <= 1`,
/// an increment that cannot overflow).
pub fn boundary_values(ty: ValueType) -> [Value; 2] {
    let bits = ty.bits.clamp(1, 64) as u32;
    let all = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    if ty.signed {
        let min = 1u64 << (bits - 1);
        [min, min - 1]
    } else {
        [0, all]
    }
}

struct Oracle {
    plan: QuantumPlan,
    log: QuantumLog,
}

/// Run-wide settings the harness gives classified accesses.
struct Settings {
    /// Lines whose accesses take another class (or none) than the program's.
    sites: Vec<(SourceLoc, Option<Class>)>,
    /// Lines that issued accesses through [`Rlx`] (their observations are
    /// tracked, and they can be made quantum).
    tracked: Vec<SourceLoc>,
}

thread_local! {
    static ORACLE: RefCell<Option<Oracle>> = const { RefCell::new(None) };
    static SETTINGS: RefCell<Settings> = const {
        RefCell::new(Settings { sites: Vec::new(), tracked: Vec::new() })
    };
}

/// Gives the accesses issued at these lines (through [`Rlx`]) these classes
/// instead of the program's, until changed; an empty list restores the
/// program's own.
pub fn set_site_classes(sites: Vec<(SourceLoc, Option<Class>)>) {
    SETTINGS.with(|s| s.borrow_mut().sites = sites);
}

/// The lines that have issued accesses through [`Rlx`] on this OS thread
/// since the last call (which clears the list).
pub fn take_tracked_sites() -> Vec<SourceLoc> {
    SETTINGS.with(|s| std::mem::take(&mut s.borrow_mut().tracked))
}

// ---- For interpreters (the litmus command) that issue accesses through
// `rt` directly: the same per-site class override, order and quantum test
// that `Rlx` applies to the shim's atomics.

/// The class an access at `site` has: `class` (the program's), unless the
/// harness overrides that line. Records `site` as a tracked line.
pub fn class_at(site: SourceLoc, class: Option<Class>) -> Option<Class> {
    SETTINGS.with(|s| {
        let mut s = s.borrow_mut();
        if !s.tracked.contains(&site) {
            s.tracked.push(site);
        }
        s.sites.iter().find(|(at, _)| *at == site).map_or(class, |&(_, c)| c)
    })
}

/// The order a relaxed access of `class` runs with: relaxed, except unpaired
/// accesses while the run maps the program onto a DRFrlx system
/// ([`RunConfig::drfrlx_system`](rt::RunConfig::drfrlx_system)), where they
/// are `SeqCst`.
pub fn relaxed_order(class: Option<Class>) -> Order {
    match class {
        Some(Class::Unpaired) if rt::drfrlx_system() => Order::SeqCst,
        _ => Order::Relaxed,
    }
}

/// A quantum RMW (section 3.4.3: "a quantum RMW's load and store are both
/// replaced"): it returns one chosen value and writes another, performed
/// as a swap so that it is still an RMW of its location (races are judged
/// on it). Made with [`QuantumRmw::plan`] before the access, which is then
/// issued as [`QuantumRmw::swap`]; [`QuantumRmw::result`] gives what the
/// program sees.
pub struct QuantumRmw {
    read: Option<Value>,
    written: Value,
    expected: Option<Value>,
}

impl QuantumRmw {
    /// The values the exploration chooses for an RMW of `op` on `loc`.
    pub fn plan(loc: Loc, ty: ValueType, op: RmwOp) -> QuantumRmw {
        let read = choose(loc, 0, ty);
        let written = choose(loc, 1, ty).or_else(|| op.apply(ty, 0)).unwrap_or(0);
        let expected = match op {
            RmwOp::Cas { expected, .. } => Some(expected),
            _ => None,
        };
        QuantumRmw {
            read,
            written,
            expected,
        }
    }

    /// The operation to issue instead of the program's.
    pub fn swap(&self) -> RmwOp {
        RmwOp::Swap(self.written)
    }

    /// `(value returned, whether a CAS succeeded)`, given the value the swap read.
    pub fn result(&self, old: Value) -> (Value, bool) {
        let seen = self.read.unwrap_or(old);
        (seen, self.expected.is_none_or(|e| e == seen))
    }
}

/// Whether an access of `class` takes its values from the quantum oracle
/// (a quantum access during a quantum-equivalent run).
pub fn quantum_active(class: Option<Class>) -> bool {
    class == Some(Class::Quantum) && ORACLE.with(|o| o.borrow().is_some())
}

/// Makes quantum accesses choose their values from `plan` until
/// [`take_quantum_log`] (the harness wraps one exploration in the two).
pub fn install_quantum(plan: QuantumPlan) {
    ORACLE.with(|o| {
        *o.borrow_mut() = Some(Oracle {
            plan,
            log: QuantumLog::default(),
        })
    });
}

/// Ends a quantum-equivalent run and returns what it met.
pub fn take_quantum_log() -> QuantumLog {
    ORACLE.with(|o| o.borrow_mut().take().map(|o| o.log).unwrap_or_default())
}

/// The value a quantum access chooses at the calling thread's next access
/// (`which`: 0 the value a load or RMW returns, 1 the value an RMW writes,
/// 2 the value a store writes; `ty` the type accessed, whose boundary values
/// join the domain when the plan asks for them), or `None` when
/// `loc` has no domain (a location created by the quantum-equivalent run
/// alone: it then keeps the value the access itself gives).
pub fn choose(loc: Loc, which: u8, ty: ValueType) -> Option<Value> {
    let (t, at) = rt::position()?;
    ORACLE.with(|o| {
        let mut o = o.borrow_mut();
        let o = o.as_mut()?;
        let mut domain = o.plan.domains.get(&loc)?.clone();
        if o.plan.boundaries {
            for b in boundary_values(ty) {
                if !domain.contains(&b) {
                    domain.push(b);
                }
            }
        }
        let key = (t, at, which);
        o.log.choices.insert(key, domain.len());
        let i = o.plan.script.get(&key).copied().unwrap_or(0);
        let v = domain.get(i).copied();
        let offered = o.log.offered.entry(loc).or_default();
        for d in domain {
            if !offered.contains(&d) {
                offered.push(d);
            }
        }
        v
    })
}

/// Notes that a quantum store meant to write `v` to `loc` (the value joins
/// the location's domain in the next quantum-equivalent round).
pub fn note_written(loc: Loc, v: Value) {
    ORACLE.with(|o| {
        if let Some(o) = o.borrow_mut().as_mut() {
            let w = o.log.written.entry(loc).or_default();
            if !w.contains(&v) {
                w.push(v);
            }
        }
    });
}
