//! Floating-point read-modify-writes (docs/semantics.md §3: floating-point add and
//! sub, and `sycl::atomic_ref`'s floating-point min and max), computed on
//! the bit patterns the checker keeps as [`Value`]s.
//!
//! A location holds an `f32` in its low 32 bits or an `f64` in all 64. The
//! arithmetic is IEEE 754 binary32 / binary64 with round-to-nearest-even,
//! which is what Rust's `+` and `-` compute, so a model run gets the same
//! bits as the program would on the host. Two choices make every result a
//! function of its inputs, as the explorer needs (an RMW must write the same
//! value each time the same read is replayed):
//!
//! - a NaN result of add or sub is the canonical quiet NaN (positive, payload
//!   only the quiet bit), since IEEE leaves a NaN's sign and payload open and
//!   SYCL lets floating-point atomics use their own environment;
//! - min and max are IEEE 754-2019 `minimumNumber` / `maximumNumber`: a NaN
//!   operand loses to a number, and -0.0 is below +0.0. The result is one of
//!   the two operands' bit patterns, unchanged (or the canonical NaN when
//!   both are NaN).

use crate::ids::Value;

/// The arithmetic of a floating-point read-modify-write.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatOp {
    /// `old + operand`.
    Add,
    /// `old - operand`.
    Sub,
    /// The smaller of the two (`minimumNumber`).
    Min,
    /// The larger of the two (`maximumNumber`).
    Max,
}

impl FloatOp {
    /// The name used in reports (LLVM's and SPIR-V's: `fetch_fadd`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FloatOp::Add => "fetch_fadd",
            FloatOp::Sub => "fetch_fsub",
            FloatOp::Min => "fetch_fmin",
            FloatOp::Max => "fetch_fmax",
        }
    }

    /// The bits the location holds after the operation, for a location
    /// holding `old` and the operand `operand`, both as bit patterns of a
    /// float `bits` wide: 32 is `f32` (only the low 32 bits of each value
    /// count), anything else `f64`.
    pub fn apply(self, bits: u8, old: Value, operand: Value) -> Value {
        if bits == 32 {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(operand as u32));
            let r = match self {
                FloatOp::Add => canonical32(a + b),
                FloatOp::Sub => canonical32(a - b),
                FloatOp::Min => pick32(a, b, true),
                FloatOp::Max => pick32(a, b, false),
            };
            r.to_bits() as Value
        } else {
            let (a, b) = (f64::from_bits(old), f64::from_bits(operand));
            let r = match self {
                FloatOp::Add => canonical64(a + b),
                FloatOp::Sub => canonical64(a - b),
                FloatOp::Min => pick64(a, b, true),
                FloatOp::Max => pick64(a, b, false),
            };
            r.to_bits()
        }
    }
}

/// The canonical quiet NaN of binary32.
pub const NAN32: u32 = 0x7fc0_0000;
/// The canonical quiet NaN of binary64.
pub const NAN64: u64 = 0x7ff8_0000_0000_0000;

fn canonical32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(NAN32)
    } else {
        x
    }
}

fn canonical64(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(NAN64)
    } else {
        x
    }
}

// One body for both widths: `minimumNumber` (`min`) or `maximumNumber`.
macro_rules! pick {
    ($name:ident, $t:ty, $nan:expr) => {
        fn $name(a: $t, b: $t, min: bool) -> $t {
            match (a.is_nan(), b.is_nan()) {
                (true, true) => <$t>::from_bits($nan),
                (true, false) => b,
                (false, true) => a,
                // Equal numbers have equal bits, except the two zeros.
                _ if a == b => {
                    if a.is_sign_negative() == min {
                        a
                    } else {
                        b
                    }
                }
                _ if (a < b) == min => a,
                _ => b,
            }
        }
    };
}

pick!(pick32, f32, NAN32);
pick!(pick64, f64, NAN64);

#[cfg(test)]
mod tests {
    use super::*;

    fn f32op(op: FloatOp, a: f32, b: f32) -> u32 {
        op.apply(32, a.to_bits() as Value, b.to_bits() as Value) as u32
    }

    fn f64op(op: FloatOp, a: f64, b: f64) -> u64 {
        op.apply(64, a.to_bits(), b.to_bits())
    }

    #[test]
    fn add_and_sub_round_like_the_host() {
        assert_eq!(f32op(FloatOp::Add, 0.1, 0.2), 0x3e99_999a); // the f32 nearest 0.3
        assert_eq!(f64op(FloatOp::Add, 0.1, 0.2), 0x3fd3_3333_3333_3334); // 0.30000000000000004
        assert_eq!(f32op(FloatOp::Add, 1e20, 1.0), 1e20f32.to_bits()); // absorbed
        assert_eq!(f64op(FloatOp::Sub, 1.5, 0.25), 1.25f64.to_bits());
        assert_eq!(f32op(FloatOp::Sub, 0.0, 0.0), 0); // +0 - +0 = +0
        assert_eq!(f32op(FloatOp::Add, -0.0, -0.0), 0x8000_0000); // -0 + -0 = -0
        assert_eq!(f32op(FloatOp::Add, f32::MAX, f32::MAX), f32::INFINITY.to_bits());
    }

    #[test]
    fn nan_results_are_canonical() {
        assert_eq!(f32op(FloatOp::Sub, f32::INFINITY, f32::INFINITY), NAN32);
        assert_eq!(f64op(FloatOp::Add, f64::INFINITY, f64::NEG_INFINITY), NAN64);
        let odd_nan = f32::from_bits(0xffc0_1234);
        assert_eq!(f32op(FloatOp::Add, odd_nan, 1.0), NAN32);
    }

    #[test]
    fn min_and_max_are_minimum_number_and_maximum_number() {
        assert_eq!(f32op(FloatOp::Min, 2.0, -3.5), (-3.5f32).to_bits());
        assert_eq!(f32op(FloatOp::Max, 2.0, -3.5), 2.0f32.to_bits());
        assert_eq!(f64op(FloatOp::Min, f64::NAN, 7.0), 7.0f64.to_bits());
        assert_eq!(f64op(FloatOp::Max, 7.0, f64::NAN), 7.0f64.to_bits());
        assert_eq!(f64op(FloatOp::Min, f64::NAN, f64::NAN), NAN64);
        assert_eq!(f32op(FloatOp::Min, 0.0, -0.0), 0x8000_0000);
        assert_eq!(f32op(FloatOp::Min, -0.0, 0.0), 0x8000_0000);
        assert_eq!(f32op(FloatOp::Max, -0.0, 0.0), 0);
        assert_eq!(f64op(FloatOp::Max, 0.0, -0.0), 0);
        assert_eq!(
            f64op(FloatOp::Min, f64::NEG_INFINITY, -1e308),
            f64::NEG_INFINITY.to_bits()
        );
    }

    #[test]
    fn an_f32_ignores_the_high_bits() {
        let one = 1.0f32.to_bits() as Value;
        assert_eq!(
            FloatOp::Add.apply(32, one | 0xdead_0000_0000_0000, one),
            2.0f32.to_bits() as Value
        );
    }
}
