//! The DRFrlx class an access may carry (seed 004, sections 3.1-3.5): a
//! tag of the recorded event, which the runtime sets and the analysis in
//! `drfrlx` reads.
//!
//! A leaf, apart from `drfrlx` because the event carries the class and
//! `drfrlx` reads events: in one module they would import each other.
//! `drfrlx` re-exports [`RlxClass`].

use std::fmt;

/// The classes a relaxed atomic can be given (seed 004, sections 3.1-3.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RlxClass {
    /// DRF1's unpaired atomic: races are allowed, but it does not order
    /// data (section 3.1).
    Unpaired,
    /// Its racing accesses commute and its loaded value is not used
    /// (section 3.2).
    Commutative,
    /// It is not the only thing ordering two conflicting accesses
    /// (section 3.3).
    NonOrdering,
    /// The program tolerates any value for it (section 3.4).
    Quantum,
    /// Racing loads' values are never used (section 3.5).
    Speculative,
}

impl RlxClass {
    /// Every class, in the order inference prefers them. Section 3.6:
    /// commutative, non-ordering, quantum and speculative allow the same
    /// hardware reorderings (all of relaxed), unpaired fewer (DRF1 keeps them
    /// in program order with other atomics). Among the four, those that keep
    /// the SC guarantee for the program itself come before quantum, whose
    /// guarantee only covers the quantum-equivalent program.
    pub const ALL: [RlxClass; 5] = [
        RlxClass::Commutative,
        RlxClass::NonOrdering,
        RlxClass::Speculative,
        RlxClass::Quantum,
        RlxClass::Unpaired,
    ];

    /// The class's name as the paper and the litmus syntax write it.
    pub fn name(self) -> &'static str {
        match self {
            RlxClass::Unpaired => "unpaired",
            RlxClass::Commutative => "commutative",
            RlxClass::NonOrdering => "non-ordering",
            RlxClass::Quantum => "quantum",
            RlxClass::Speculative => "speculative",
        }
    }
}

impl fmt::Display for RlxClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
