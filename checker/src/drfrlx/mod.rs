//! DRFrlx (Sinclair, Alsop, Adve, ISCA 2017; seed 004): the classes of
//! relaxed atomics and the illegal races of section 3, judged on SC
//! executions.
//!
//! The checker's part is the race analysis of one complete SC execution
//! graph ([`analyze`]); running the program, the quantum-equivalent program,
//! the weak-model comparison and class inference live in the harness, which
//! calls this once per execution.

mod analysis;

pub use analysis::{analyze, ClassOverride, IllegalRace, RaceKind};

use crate::event::{Event, EventKind, Order};
pub use crate::rlx_class::RlxClass;
use std::fmt;

/// How DRFrlx sees one access (section 3: every memory operation is
/// distinguished as data, paired, or one of the relaxed classes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AccessClass {
    /// A non-atomic access (`UnsafeCell`, plain access of an atomic, GPU
    /// buffer element).
    Data,
    /// An atomic with an order stronger than relaxed. The paper's paired
    /// atomics are SC atomics; docs/drfrlx.md counts acquire, release and
    /// acq_rel ones as paired too.
    Paired,
    /// A relaxed atomic of the given class.
    Relaxed(RlxClass),
    /// A relaxed atomic the program gave no class.
    Unclassified,
}

impl AccessClass {
    /// The class of an access event (`None` for events that are not accesses).
    pub fn of(e: &Event) -> Option<AccessClass> {
        let order = match &e.kind {
            EventKind::Cell { .. } => return Some(AccessClass::Data),
            EventKind::Read(r) => match r.rmw {
                // An RMW is one instruction: its class follows its success
                // order even when this execution's attempt failed.
                Some((_, _, success, _)) => success,
                None => r.order,
            },
            EventKind::Write(w) => w.order,
            _ => return None,
        };
        Some(match order {
            Order::NonAtomic => AccessClass::Data,
            Order::Relaxed => match e.rlx {
                Some(c) => AccessClass::Relaxed(c),
                None => AccessClass::Unclassified,
            },
            _ => AccessClass::Paired,
        })
    }

    /// Whether this is an atomic access.
    pub fn is_atomic(self) -> bool {
        self != AccessClass::Data
    }

    /// Whether this is the given relaxed class.
    pub fn is(self, c: RlxClass) -> bool {
        self == AccessClass::Relaxed(c)
    }
}

impl fmt::Display for AccessClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessClass::Data => f.write_str("data"),
            AccessClass::Paired => f.write_str("paired"),
            AccessClass::Relaxed(c) => c.fmt(f),
            AccessClass::Unclassified => f.write_str("unclassified relaxed"),
        }
    }
}
