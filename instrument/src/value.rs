//! The one mapping of Rust values onto the checker's 64-bit words, for
//! every front end that keeps typed values in checker locations
//! ([`Plain`](crate::atomic_ref::Plain) and its atomic references, GPU
//! [`Buffer`](crate::gpu::Buffer)s, [`MemAtomic`](crate::gpu::MemAtomic)s).
//!
//! # The encoding rule
//!
//! A type's [`ValueType`] ([`AtomicValue::TYPE`]) is what the checker's
//! `RmwOp::apply` computes with: it wraps additions to `TYPE.bits`, masks
//! every result to them, and compares `fetch_min` / `fetch_max` as signed
//! exactly when `TYPE.signed`, sign-extending from `TYPE.bits` itself. So:
//!
//! * **Words are zero-extended.** A value's word is its bit pattern in the
//!   low `TYPE.bits` bits and zero above, never sign-extended (`-1i8` is
//!   `0xff`). That is the word the location stores (stores and the
//!   compare-exchange's operands are masked to `TYPE.bits`), so the word a
//!   value encodes to is the very word a compare-exchange compares with.
//!   Signedness lives only in `TYPE.signed`.
//! * **Decoding reads the low `TYPE.bits` bits only** (`i8` from `0x1ff`
//!   is `-1`; `bool` from `2` is `false`).
//! * **`bool` is one bit wide**: `false` is 0, `true` is 1, `TYPE` is
//!   `{ bits: 1, signed: false }`, as for the shim's `AtomicBool`. Every
//!   read-modify-write result is masked to that bit, so it is again a
//!   `bool` (`nand(true, true)` is `false`; at 8 bits it would be `0xfe`,
//!   no `bool` at all).
//! * Integers have their width and signedness (`isize` / `usize` their
//!   pointer width), floats (`f32`, `f64`) their IEEE bit pattern at their
//!   width, unsigned (float arithmetic is `RmwOp::Float`, which reads the
//!   width from `TYPE.bits`), raw pointers their address at pointer width,
//!   unsigned, and any other type its bytes as its own `to_bits` says, at
//!   its width (at most 64), unsigned.

use scopecheck_checker::event::{Value, ValueType};
use std::mem::size_of;

/// What a value is, for the rules of which operations and atomic
/// references it may have.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueKind {
    /// An integer.
    Int {
        /// Whether `fetch_min` / `fetch_max` compare it as signed.
        signed: bool,
    },
    /// `f32` or `f64`.
    Float,
    /// A raw pointer (`*mut U`, `*const U`).
    Pointer,
    /// `bool`.
    Bool,
    /// Any other `Copy` type, handled through its bits (`cuda::atomic_ref`
    /// takes any trivially copyable type of 4 or 8 bytes).
    Other,
}

impl ValueKind {
    /// In words, for messages: "signed integer", "float", ...
    pub fn describe(self) -> &'static str {
        match self {
            ValueKind::Int { signed: true } => "signed integer",
            ValueKind::Int { signed: false } => "unsigned integer",
            ValueKind::Float => "float",
            ValueKind::Pointer => "pointer",
            ValueKind::Bool => "bool",
            ValueKind::Other => "value of another type",
        }
    }
}

/// A value a checker location holds: a `Copy` type of at most 8 bytes,
/// kept as one 64-bit word by the rule in this module's documentation.
/// Implemented for the integers, `bool`, `f32`, `f64` and raw pointers; a
/// program may implement it for its own small `Copy` types (with
/// [`ValueKind::Other`]), which then have loads, stores, swaps and
/// compare-exchanges, compared bit for bit.
pub trait AtomicValue: Copy {
    /// What the type is.
    const KIND: ValueKind;
    /// The width and signedness the checker computes with. Derived from
    /// [`AtomicValue::KIND`] and the size by the one rule (1 bit for
    /// [`ValueKind::Bool`], otherwise the type's bits, at most 64; signed
    /// only for signed integers); not meant to be overridden.
    const TYPE: ValueType = ValueType {
        bits: match Self::KIND {
            ValueKind::Bool => 1,
            _ if size_of::<Self>() >= 8 => 64,
            _ => (size_of::<Self>() * 8) as u8,
        },
        signed: matches!(Self::KIND, ValueKind::Int { signed: true }),
    };
    /// The value's word: its bits in the low `TYPE.bits`, zero above.
    fn to_bits(self) -> Value;
    /// The value whose word has these low `TYPE.bits` bits (the bits above
    /// are ignored).
    fn from_bits(bits: Value) -> Self;
}

macro_rules! int_value {
    ($($t:ty => $u:ty, $signed:expr;)*) => {$(
        impl AtomicValue for $t {
            const KIND: ValueKind = ValueKind::Int { signed: $signed };
            fn to_bits(self) -> Value {
                // Through the unsigned type of the same width: zero-extended.
                self as $u as Value
            }
            fn from_bits(bits: Value) -> $t {
                bits as $u as $t
            }
        }
    )*};
}

int_value! {
    i8 => u8, true;
    u8 => u8, false;
    i16 => u16, true;
    u16 => u16, false;
    i32 => u32, true;
    u32 => u32, false;
    i64 => u64, true;
    u64 => u64, false;
    isize => usize, true;
    usize => usize, false;
}

macro_rules! float_value {
    ($($t:ty => $u:ty;)*) => {$(
        impl AtomicValue for $t {
            const KIND: ValueKind = ValueKind::Float;
            fn to_bits(self) -> Value {
                <$t>::to_bits(self) as Value
            }
            fn from_bits(bits: Value) -> $t {
                <$t>::from_bits(bits as $u)
            }
        }
    )*};
}

float_value! {
    f32 => u32;
    f64 => u64;
}

impl AtomicValue for bool {
    const KIND: ValueKind = ValueKind::Bool;
    fn to_bits(self) -> Value {
        self as Value
    }
    fn from_bits(bits: Value) -> bool {
        bits & 1 != 0
    }
}

macro_rules! pointer_value {
    ($($p:ident)*) => {$(
        impl<U> AtomicValue for *$p U {
            const KIND: ValueKind = ValueKind::Pointer;
            fn to_bits(self) -> Value {
                self as usize as Value
            }
            fn from_bits(bits: Value) -> *$p U {
                bits as usize as *$p U
            }
        }
    )*};
}

pointer_value!(mut const);
