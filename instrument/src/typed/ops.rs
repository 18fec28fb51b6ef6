//! Which read-modify-writes a value type has, and the checker operation
//! each one is (seed 003: "... for integral T", "... for floating-point
//! T", "... for T*"; std's `AtomicBool` for `bool`).
//!
//! The split is made by traits, so asking for an operation a type does not
//! have (`fetch_and` on an `f32`, `fetch_min` on a pointer, `fetch_add` on
//! a `bool`) is a compile error, as it is in C++, where the member does not
//! exist. Operands are encoded by [`AtomicValue::to_bits`], the one rule.

use crate::value::AtomicValue;
use scopecheck_checker::event::{RmwOp, Value};
use scopecheck_checker::float::FloatOp;
use std::mem::size_of;

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

/// Types with `fetch_and`, `fetch_or` and `fetch_xor`: the integers, and
/// `bool` (one bit wide, so these are the logical operations).
pub trait Bitwise: AtomicValue + sealed::Sealed {}

/// Types with `fetch_min` and `fetch_max`: integers (compared with their
/// signedness) and floats (IEEE `minimumNumber` / `maximumNumber`).
pub trait MinMax: AtomicValue + sealed::Sealed {
    #[doc(hidden)]
    fn min_op(self) -> RmwOp;
    #[doc(hidden)]
    fn max_op(self) -> RmwOp;
}

macro_rules! int_ops {
    ($($t:ty)*) => {$(
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

int_ops!(i8 u8 i16 u16 i32 u32 i64 u64 isize usize);

macro_rules! float_ops {
    ($($t:ty)*) => {$(
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

float_ops!(f32 f64);

impl sealed::Sealed for bool {}
impl Bitwise for bool {}

/// The byte offset of `n` elements of `U` (wrapping, as the address arithmetic does).
fn scaled<U>(n: isize) -> Value {
    (n as i64).wrapping_mul(size_of::<U>() as i64) as Value
}

macro_rules! pointer_ops {
    ($($p:ident)*) => {$(
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

pointer_ops!(mut const);
