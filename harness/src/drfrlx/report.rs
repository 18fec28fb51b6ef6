//! What a DRFrlx check reports ([`DrfReport`]): the illegal races, the
//! non-SC outcomes and whom they are blamed on, and the class suggestions.

use scopecheck_checker::drfrlx::{AccessClass, RaceKind};
use scopecheck_checker::event::{SourceLoc, Value};
use scopecheck_checker::Failure;
use scopecheck_instrument::drfrlx::Class;
use std::collections::BTreeSet;

/// A racing pair of lines that is illegal under DRFrlx.
#[derive(Clone, Debug)]
pub struct RaceReport {
    /// The race's kind (the first that applies).
    pub kind: RaceKind,
    /// Every kind that applies.
    pub kinds: Vec<RaceKind>,
    /// The access first in the SC order, and its class.
    pub first: (SourceLoc, AccessClass),
    /// The second access, and its class.
    pub second: (SourceLoc, AccessClass),
    /// Why the pair is illegal.
    pub why: String,
    /// For a non-ordering race, the ordering path and why no valid path exists.
    pub path: Option<Vec<String>>,
    /// SC executions with this race.
    pub executions: u64,
    /// Whether it was found in the quantum-equivalent program.
    pub quantum_equivalent: bool,
}

/// A weak-model final memory no SC execution has.
#[derive(Clone, Debug)]
pub struct NonScOutcome {
    /// Each atomic location (named by the line that created it) and its final value.
    pub state: Vec<(String, Value)>,
    /// What allows it: the illegal races and quantum accesses found. Empty
    /// means the DRFrlx theorem failed, a checker bug.
    pub blamed: Vec<String>,
}

/// What inference says about one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Suggestion {
    /// The most permissive class under which the program is legal.
    Class(Class),
    /// No relaxed class works, paired does.
    MustBePaired,
    /// No class at all makes the program legal: other races remain.
    Nothing,
}

/// Class inference for the relaxed atomics at one line.
#[derive(Clone, Debug)]
pub struct Inference {
    /// The line.
    pub site: SourceLoc,
    /// The class the program gives it (`None`: unclassified).
    pub given: Option<Class>,
    /// Every class under which the program has no illegal race, most
    /// permissive first.
    pub legal: Vec<Class>,
    /// Whether paired (an order stronger than relaxed) makes it legal.
    pub paired_legal: bool,
    /// The suggestion.
    pub suggestion: Suggestion,
    /// Whether quantum was tried (only for accesses through `rlx(..)`, whose
    /// values the quantum-equivalent program can replace).
    pub quantum_tried: bool,
    /// The other lines judged with it (they access a common location).
    pub together: Vec<SourceLoc>,
}

/// What a DRFrlx check found.
#[derive(Clone, Debug, Default)]
pub struct DrfReport {
    /// Illegal races, one per kind and pair of lines.
    pub races: Vec<RaceReport>,
    /// Complete SC executions of the program.
    pub sc_executions: u64,
    /// Combinations of quantum choices explored (0 without quantum accesses).
    pub quantum_programs: u64,
    /// Complete SC executions of the quantum-equivalent program, over all combinations.
    pub quantum_executions: u64,
    /// Whether every inference suggestion applied at once makes the program
    /// legal (`None`: not judged, with fewer than two groups of lines or
    /// nothing to change).
    pub suggestions_together: Option<bool>,
    /// Complete executions under the weak model.
    pub weak_executions: u64,
    /// Failures (panics, assertions, deadlocks) of the SC runs: of the
    /// quantum-equivalent program when there are quantum accesses.
    pub failures: Vec<Failure>,
    /// Weak-model final memories no SC execution has.
    pub non_sc: Vec<NonScOutcome>,
    /// Lines of acquire, release and acq_rel atomics. DRFrlx's paired
    /// atomics are seq_cst and acquire/release is outside the model, so its
    /// SC guarantee does not cover a program that uses them: such a program
    /// is never reported legal. Their races are judged as paired atomics'
    /// (a conflict with one is ordered only through an so1 chain), and the
    /// weak-model run gives them their real semantics, so what they allow
    /// beyond SC is listed in [`DrfReport::non_sc`], blamed on them.
    pub outside: Vec<SourceLoc>,
    /// Each quantum location (by name) with the values its quantum accesses
    /// were offered: the initial value, what the program wrote there in the
    /// SC runs, [`Check::quantum_values`](super::Check::quantum_values) and the type's boundary values. A
    /// quantum value may be any value of its type; the verdict covers these.
    pub quantum_domains: Vec<(String, Vec<Value>)>,
    /// Class inference, per line.
    pub inferences: Vec<Inference>,
    /// Limits reached and other remarks.
    pub notes: Vec<String>,
    /// What a bound cut ([`Check::max_duration`](super::Check::max_duration), [`Check::max_executions`](super::Check::max_executions),
    /// [`Check::max_quantum_programs`](super::Check::max_quantum_programs)) and what the check covered before
    /// it: when not empty, the program is not known to be legal.
    pub incomplete: Vec<String>,
}

impl DrfReport {
    /// No illegal race and no failure (non-SC outcomes follow from races,
    /// except a checker bug, which is a failure too), in a check no bound
    /// cut short, of a program inside DRFrlx (no acquire/release atomics:
    /// [`DrfReport::outside`]).
    pub fn is_legal(&self) -> bool {
        self.races.is_empty() && self.failures.is_empty() && self.incomplete.is_empty() && self.outside.is_empty()
    }

    /// The program uses acquire/release atomics, outside DRFrlx
    /// ([`DrfReport::outside`]), and nothing illegal was found: neither
    /// legal nor illegal.
    pub fn is_outside(&self) -> bool {
        !self.outside.is_empty() && !self.is_illegal()
    }

    /// Illegal races or failures were found (a cut-short check can prove
    /// this, never legality).
    pub fn is_illegal(&self) -> bool {
        !self.races.is_empty() || !self.failures.is_empty()
    }

    /// Whether every exploration ran to its end.
    pub fn is_complete(&self) -> bool {
        self.incomplete.is_empty()
    }

    /// The kinds of the races found, sorted, without repetition.
    pub fn race_kinds(&self) -> Vec<RaceKind> {
        let s: BTreeSet<RaceKind> = self.races.iter().map(|r| r.kind).collect();
        s.into_iter().collect()
    }

    /// The inference for the line `line` of file ending in `file`.
    pub fn inference_at(&self, file: &str, line: u32) -> Option<&Inference> {
        self.inferences
            .iter()
            .find(|i| i.site.line() == line && i.site.file().ends_with(file))
    }
}
