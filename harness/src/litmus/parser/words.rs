//! The words of the C dialect the parser looks up: memory orders, scopes,
//! DRFrlx classes, placement levels, fence flags, atomic function names,
//! type names and reserved identifiers.

use super::*;

/// The spelling of a memory order the parser read: `consume` says it was
/// written `memory_order_consume` (read as acquire).
pub(super) fn order_name(o: Order, consume: bool) -> &'static str {
    match o {
        Order::Acquire if consume => "memory_order_consume",
        Order::Relaxed => "memory_order_relaxed",
        Order::Acquire => "memory_order_acquire",
        Order::Release => "memory_order_release",
        Order::AcqRel => "memory_order_acq_rel",
        Order::SeqCst => "memory_order_seq_cst",
        // The parser never reads one; named for completeness.
        Order::NonAtomic => "a non-atomic access",
    }
}

/// The order a C spelling names, and whether it is `memory_order_consume`
/// (which is read as acquire, as compilers do).
pub(super) fn order_of(name: &str) -> Option<(Order, bool)> {
    Some(match name {
        "memory_order_relaxed" => (Order::Relaxed, false),
        "memory_order_consume" => (Order::Acquire, true),
        "memory_order_acquire" => (Order::Acquire, false),
        "memory_order_release" => (Order::Release, false),
        "memory_order_acq_rel" => (Order::AcqRel, false),
        "memory_order_seq_cst" => (Order::SeqCst, false),
        _ => return None,
    })
}

pub(super) fn scope_of(name: &str) -> Option<Scope> {
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

pub(super) fn class_of(name: &str) -> Option<RlxClass> {
    Some(match name {
        "rlx_unpaired" => RlxClass::Unpaired,
        "rlx_commutative" => RlxClass::Commutative,
        "rlx_non_ordering" => RlxClass::NonOrdering,
        "rlx_quantum" => RlxClass::Quantum,
        "rlx_speculative" => RlxClass::Speculative,
        _ => return None,
    })
}

pub(super) fn level_of(name: &str) -> Option<Level> {
    Some(match name {
        "wg" | "work_group" | "block" => Level::Block,
        "sg" | "sub_group" | "warp" => Level::Warp,
        "dev" | "device" => Level::Device,
        _ => return None,
    })
}

pub(super) fn flag_of(name: &str) -> Option<MemFlag> {
    Some(match name {
        "CLK_LOCAL_MEM_FENCE" => MemFlag::Local,
        "CLK_GLOBAL_MEM_FENCE" => MemFlag::Global,
        _ => return None,
    })
}

/// `atomic_<op>[_explicit]`: the operation and whether it is explicit.
pub(super) fn atomic_of(name: &str) -> Option<(AtomicOp, bool)> {
    let rest = name.strip_prefix("atomic_")?;
    let (rest, explicit) = match rest.strip_suffix("_explicit") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let op = ATOMIC_OPS.into_iter().find(|&op| atomic_base(op) == rest)?;
    Some((op, explicit))
}

/// Functions that are statements (fences and barriers).
pub(super) fn is_stmt_function(name: &str) -> bool {
    matches!(
        name,
        "atomic_thread_fence" | "atomic_work_item_fence" | "barrier" | "work_group_barrier"
    )
}

/// Base type names (after `atomic_` / `_Atomic`). Every one holds a
/// 64-bit value (the interpreter's), the 128-bit integers of herd's tests
/// (`__int128`, `__int128_t`, `__uint128_t`) included: a literal that does
/// not fit is refused where it is written.
pub(super) const BASES: &[&str] = &[
    "int",
    "uint",
    "long",
    "ulong",
    "bool",
    "char",
    "short",
    "__int128",
    "__int128_t",
    "__uint128_t",
];

pub(super) fn is_qualifier(name: &str) -> bool {
    matches!(name, "global" | "__global" | "local" | "__local" | "volatile" | "const")
}

/// Whether an identifier starts a type.
pub(super) fn is_type_start(name: &str) -> bool {
    is_qualifier(name)
        || BASES.contains(&name)
        || matches!(name, "unsigned" | "signed" | "_Atomic")
        || name.strip_prefix("atomic_").is_some_and(|b| BASES.contains(&b))
}

/// Identifiers that can never name a register or location.
pub(super) fn is_reserved(name: &str) -> bool {
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
pub(super) fn thread_name(name: &str) -> Option<Result<u32, ()>> {
    let digits = name.strip_prefix('P')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u32>().map_err(|_| ()))
}

/// The role of the value arguments of an atomic operation.
pub(super) fn value_roles(op: AtomicOp) -> &'static [&'static str] {
    match op {
        AtomicOp::Load => &[],
        AtomicOp::Store => &["the value to store"],
        AtomicOp::Exchange => &["the new value"],
        AtomicOp::CasStrong | AtomicOp::CasWeak => &["the expected-value pointer", "the desired value"],
        _ => &["the operand"],
    }
}

/// Every atomic function.
const ATOMIC_OPS: [AtomicOp; 12] = [
    AtomicOp::Load,
    AtomicOp::Store,
    AtomicOp::Exchange,
    AtomicOp::FetchAdd,
    AtomicOp::FetchSub,
    AtomicOp::FetchAnd,
    AtomicOp::FetchOr,
    AtomicOp::FetchXor,
    AtomicOp::FetchMin,
    AtomicOp::FetchMax,
    AtomicOp::CasStrong,
    AtomicOp::CasWeak,
];

/// An atomic function's name between `atomic_` and `[_explicit]`: the one
/// spelling that reading ([`atomic_of`]) and messages ([`atomic_name`]) share.
fn atomic_base(op: AtomicOp) -> &'static str {
    match op {
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
    }
}

/// The name of an atomic function.
pub(super) fn atomic_name(op: AtomicOp, explicit: bool) -> String {
    format!("atomic_{}{}", atomic_base(op), if explicit { "_explicit" } else { "" })
}
