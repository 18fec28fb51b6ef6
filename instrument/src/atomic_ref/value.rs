//! Which values a [`Plain`](super::Plain) cell holds, and which atomic
//! operations apply to them (seed 003: "Available on any atomic_ref",
//! "... for integral T", "... for floating-point T", "... for T*").
//!
//! The split is made by traits, so asking for an operation a type does not
//! have (`fetch_and` on an `f32`, `fetch_min` on a pointer) is a compile
//! error, as it is in C++, where the member does not exist. The rules that
//! depend on the API rather than the type (SYCL's list of allowed types,
//! sizes 4 and 8) are checked when the reference is made.

use scopecheck_checker::event::{RmwOp, Value, ValueType};
use scopecheck_checker::float::FloatOp;
use std::mem::size_of;

/// What a value is, for the rules of which atomic references may hold it.
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

/// A value a [`Plain`](super::Plain) cell holds: a `Copy` type of at most 8
/// bytes, which the checker keeps as its bit pattern zero-extended to 64
/// bits. Implemented for the integers, `bool`, `f32`, `f64` and raw
/// pointers; a program may implement it for its own small `Copy` types
/// (with [`ValueKind::Other`]), which then have `load`, `store`,
/// `exchange` and the compare-exchanges, compared bit for bit.
pub trait AtomicValue: Copy {
    /// What the type is.
    const KIND: ValueKind;
    /// The value's bits, zero-extended (only the low `8 * size_of::<Self>()` count).
    fn to_bits(self) -> Value;
    /// The value with these bits (the high bits beyond the type's size are zero).
    fn from_bits(bits: Value) -> Self;
}

/// The checker's width and signedness for `T`.
pub(crate) fn value_type<T: AtomicValue>() -> ValueType {
    ValueType {
        bits: (size_of::<T>() * 8).min(64) as u8,
        signed: matches!(T::KIND, ValueKind::Int { signed: true }),
    }
}

mod sealed {
    /// Only scopecheck decides which types have which arithmetic.
    pub trait Sealed {}
}

/// Types with `fetch_add` and `fetch_sub`: integers (wrapping), floats
/// (IEEE, see `scopecheck_checker::float`), and pointers (the operand is an
/// `isize` counted in units of the pointee's size, as C++'s `T*` arithmetic).
pub trait Arithmetic: AtomicValue + sealed::Sealed {
    /// What `fetch_add` takes: `Self` for numbers, `isize` for pointers.
    type Operand: Copy;
    #[doc(hidden)]
    fn add_op(v: Self::Operand) -> RmwOp;
    #[doc(hidden)]
    fn sub_op(v: Self::Operand) -> RmwOp;
}

/// Types with `fetch_and`, `fetch_or` and `fetch_xor`: the integers.
pub trait Bitwise: AtomicValue + sealed::Sealed {}

/// Types with `fetch_min` and `fetch_max`: integers (compared with their
/// signedness) and floats (IEEE `minimumNumber` / `maximumNumber`).
pub trait MinMax: AtomicValue + sealed::Sealed {
    #[doc(hidden)]
    fn min_op(self) -> RmwOp;
    #[doc(hidden)]
    fn max_op(self) -> RmwOp;
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
        impl sealed::Sealed for $t {}
        impl Arithmetic for $t {
            type Operand = $t;
            fn add_op(v: $t) -> RmwOp {
                RmwOp::Add(v.to_bits())
            }
            fn sub_op(v: $t) -> RmwOp {
                RmwOp::Sub(v.to_bits())
            }
        }
        impl Bitwise for $t {}
        impl MinMax for $t {
            fn min_op(self) -> RmwOp {
                RmwOp::Min(self.to_bits())
            }
            fn max_op(self) -> RmwOp {
                RmwOp::Max(self.to_bits())
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
        impl sealed::Sealed for $t {}
        impl Arithmetic for $t {
            type Operand = $t;
            fn add_op(v: $t) -> RmwOp {
                RmwOp::Float(FloatOp::Add, AtomicValue::to_bits(v))
            }
            fn sub_op(v: $t) -> RmwOp {
                RmwOp::Float(FloatOp::Sub, AtomicValue::to_bits(v))
            }
        }
        impl MinMax for $t {
            fn min_op(self) -> RmwOp {
                RmwOp::Float(FloatOp::Min, AtomicValue::to_bits(self))
            }
            fn max_op(self) -> RmwOp {
                RmwOp::Float(FloatOp::Max, AtomicValue::to_bits(self))
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
        bits != 0
    }
}

/// The byte offset of `n` elements of `U` (wrapping, as the address arithmetic does).
fn scaled<U>(n: isize) -> Value {
    (n as i64).wrapping_mul(size_of::<U>() as i64) as Value
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
        impl<U> sealed::Sealed for *$p U {}
        impl<U> Arithmetic for *$p U {
            type Operand = isize;
            fn add_op(n: isize) -> RmwOp {
                RmwOp::Add(scaled::<U>(n))
            }
            fn sub_op(n: isize) -> RmwOp {
                RmwOp::Sub(scaled::<U>(n))
            }
        }
    )*};
}

pointer_value!(mut const);
