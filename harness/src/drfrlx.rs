//! DRFrlx checks (seed 004): classified relaxed atomics, the illegal races
//! of section 3 judged on SC executions, the quantum-equivalent program run
//! for real, class inference, and the SC-for-DRFrlx cross-check against a
//! weak model.
//!
//! ```
//! use scopecheck::drfrlx::{Check, Class};
//! use scopecheck::sync::atomic::AtomicU32;
//! use scopecheck::sync::Arc;
//!
//! let report = Check::new().explore(|| {
//!     let hits = Arc::new(AtomicU32::new(0));
//!     let h = hits.clone();
//!     let t = scopecheck::thread::spawn(move || h.rlx(Class::Commutative).fetch_add(1).discard());
//!     hits.rlx(Class::Commutative).fetch_add(1).discard();
//!     t.join().unwrap();
//! });
//! assert!(report.is_legal(), "{report}");
//! ```
//!
//! What runs, in order:
//! 1. The program under `sc`: every complete execution is judged
//!    ([`scopecheck_checker::drfrlx::analyze`]) and its final memory kept.
//! 2. If it has quantum accesses, the quantum-equivalent program: quantum
//!    loads return, and quantum stores write, values chosen from each
//!    location's domain (its initial value, every value the program wrote
//!    to it in step 1, [`Check::quantum_values`], and the accessed type's
//!    smallest and largest values); every combination of
//!    choices is explored, each under `sc`. Its executions replace step 1's
//!    for judging races and for the SC results, and its assertion failures
//!    are reported (section 3.4.3).
//! 3. The program under the weak model ([`Check::weak_model`]) mapped onto a
//!    DRFrlx system ([`RunConfig::drfrlx_system`]):
//!    unpaired accesses as `SeqCst`, and every paired access between two
//!    seq_cst fences, so that relaxed classes move across each other and
//!    data but not across paired atomics: a final memory no SC execution of step 1 or 2 has is a non-SC outcome,
//!    blamed on the illegal races or quantum accesses found. With neither,
//!    it would contradict the DRFrlx theorem: the report says it is a
//!    checker bug.
//! 4. Class inference for unclassified relaxed atomics (and, on request, for
//!    classified ones): each line is judged under each class with the other
//!    unclassified ones taken as paired.

mod budget;
mod combos;
mod display;
mod inference;
mod judge;
mod report;

pub use report::{DrfReport, Inference, NonScOutcome, RaceReport, Suggestion};

use budget::Budget;
use judge::{final_state, finish, nothing_completed, Judged, State};
use scopecheck_checker::drfrlx::ClassOverride;
use scopecheck_checker::event::{Loc, SourceLoc, Value};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::{ExecutionEnd, Failure, MemoryModel};
use scopecheck_instrument::drfrlx as shim;
use scopecheck_instrument::rt::{self, RunConfig, StrategyChoice};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

pub use scopecheck_checker::drfrlx::{AccessClass, RaceKind};
pub use scopecheck_instrument::drfrlx::{Class, Observed, Rlx, RlxInt, RlxValue};

/// Which relaxed atomics class inference judges.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Infer {
    /// None.
    Off,
    /// Relaxed atomics without a class (the default).
    Unclassified,
    /// Every relaxed atomic, classified or not.
    All,
}

/// A DRFrlx check's settings, with public fields like [`crate::Builder`].
#[derive(Clone, Debug)]
pub struct Check {
    /// The model of step 3 (default `rc11`).
    pub weak_model: MemoryModel,
    /// Extra values every quantum location's domain holds.
    pub quantum_values: Vec<Value>,
    /// Whether every quantum domain also holds the smallest and largest
    /// value of the accessed type (default on; see
    /// [`scopecheck_instrument::drfrlx::boundary_values`]).
    pub quantum_boundaries: bool,
    /// Which atomics class inference judges.
    pub infer: Infer,
    /// Run at most this many quantum choice combinations (the report is
    /// then incomplete and says how many of how many were run).
    pub max_quantum_programs: u64,
    /// Stop the whole check after this many executions, over all its
    /// explorations (the report is then incomplete, never legal).
    pub max_executions: Option<u64>,
    /// Stop the whole check after this long, even inside an execution
    /// (the report is then incomplete, never legal).
    pub max_duration: Option<Duration>,
    /// Give up on inference (with a note) beyond this many judged executions.
    pub max_kept_graphs: usize,
    /// Steps one thread may take in one execution.
    pub max_steps: u64,
    /// Stack size of each model thread.
    pub stack_size: usize,
    /// Names for the locations the main thread allocates, in allocation
    /// order (the litmus command gives its variables' names); other
    /// locations are named by the line that allocated them.
    pub loc_names: Vec<String>,
}

impl Default for Check {
    fn default() -> Check {
        Check::new()
    }
}

impl Check {
    /// The defaults: `rc11` as the weak model, inference for unclassified
    /// atomics.
    pub fn new() -> Check {
        let d = RunConfig::default();
        Check {
            weak_model: MemoryModel::Rc11,
            quantum_values: Vec::new(),
            quantum_boundaries: true,
            infer: Infer::Unclassified,
            max_quantum_programs: 20_000,
            max_executions: None,
            max_duration: None,
            max_kept_graphs: 20_000,
            max_steps: d.max_steps,
            stack_size: d.stack_size,
            loc_names: Vec::new(),
        }
    }

    /// What a non-SC result calls location `l` of `g`.
    fn loc_name(&self, g: &ExecutionGraph, l: Loc) -> String {
        if l.thread() == 0 {
            if let Some(n) = self.loc_names.get(l.seq() as usize) {
                return n.clone();
            }
        }
        match g.loc(l) {
            Some(d) => format!("{} ({l})", g.event(d.alloc).src),
            None => l.to_string(),
        }
    }

    fn config(&self, model: MemoryModel) -> RunConfig {
        RunConfig {
            model,
            strategy: StrategyChoice::Exhaustive,
            max_executions: None,
            max_duration: None,
            max_steps: self.max_steps,
            stack_size: self.stack_size,
            max_failures: 64,
            // Keep exploring through the engine's own race reports: DRFrlx
            // judges races itself, on hb1.
            record_races: true,
            ..RunConfig::default()
        }
    }

    /// Runs the whole check on `f`.
    pub fn explore<F: Fn()>(&self, f: F) -> DrfReport {
        // Before the thread-local switches below, which an outer model uses.
        rt::check_not_nested("scopecheck::drfrlx");
        shim::set_site_classes(Vec::new());
        shim::take_tracked_sites();
        let budget = Budget::new(self.max_executions, self.max_duration);
        let mut report = DrfReport::default();
        let none = ClassOverride::default();

        // 1. The program under sc.
        let mut p = Judged::default();
        self.judge_once(&f, &none, self.infer != Infer::Off, &mut p, &budget);
        report.sc_executions = p.executions;
        let tracked: BTreeSet<SourceLoc> = shim::take_tracked_sites().into_iter().collect();
        if let Some(why) = &p.cut {
            report.incomplete.push(format!(
                "{why} during the SC exploration of the program, after {} complete executions; the \
                 quantum-equivalent program, the weak-model run and class inference were not run",
                p.executions
            ));
            finish(&mut report, &p, false);
            return report;
        }
        if let Some(why) = nothing_completed(&p, "of the program") {
            report.incomplete.push(why);
            finish(&mut report, &p, false);
            return report;
        }

        // 2. The quantum-equivalent program.
        let domains = self.domains(&p);
        let quantum_sites = p.quantum_sites.clone();
        let quantum = !quantum_sites.is_empty();
        let judged = if quantum {
            let q = self.judge_quantum(&f, &none, &domains, self.infer != Infer::Off, &budget);
            report.quantum_programs = q.programs;
            report.quantum_executions = q.executions;
            q
        } else {
            p
        };
        if let (true, Some(why)) = (quantum, &judged.cut) {
            report.incomplete.push(format!(
                "{why} during the quantum-equivalent program, after {} combinations of quantum choices ({} \
                 complete executions; at least {} more combinations were not run); the weak-model run and class \
                 inference were not run",
                judged.programs,
                judged.executions,
                count_text(judged.combos_left)
            ));
            finish(&mut report, &judged, quantum);
            return report;
        }
        if let Some(why) = nothing_completed(&judged, "of the quantum-equivalent program").filter(|_| quantum) {
            report.incomplete.push(why);
            finish(&mut report, &judged, quantum);
            return report;
        }

        // 3. The weak model.
        let mut weak_states: BTreeSet<State> = BTreeSet::new();
        let mut names: HashMap<Loc, String> = HashMap::new();
        let mut config = self.config(self.weak_model);
        config.drfrlx_system = true;
        budget.apply(&mut config);
        let weak = rt::run_with(&config, &f, &mut |g: &ExecutionGraph, end| {
            if end == ExecutionEnd::Complete {
                let state = final_state(g);
                for &l in state.keys() {
                    names.entry(l).or_insert_with(|| self.loc_name(g, l));
                }
                weak_states.insert(state);
            }
        });
        budget.charge(&weak);
        report.weak_executions = weak.stats.complete;
        let mut weak_cut = false;
        if let Some(why) = &weak.incomplete_reason {
            match budget.spent() {
                Some(spent) => {
                    weak_cut = true;
                    report.incomplete.push(format!(
                        "{spent} during the {} run, after {} complete executions (non-SC outcomes beyond those \
                         listed may exist); class inference was not run",
                        self.weak_model.name(),
                        weak.stats.complete
                    ));
                }
                None => report
                    .notes
                    .push(format!("the {} exploration {why}", self.weak_model.name())),
            }
        }
        report.quantum_domains = judged
            .offered
            .iter()
            .map(|(l, vals)| {
                let name = names.get(l).cloned().unwrap_or_else(|| l.to_string());
                (name, vals.iter().copied().collect())
            })
            .collect();
        let mut blamed: Vec<String> = judged
            .races
            .iter()
            .map(|(r, _)| format!("{} between {} and {}", r.kind, r.first_src, r.second_src))
            .collect();
        blamed.extend(quantum_sites.iter().map(|s| format!("the quantum access at {s}")));
        if !judged.acq_rel_sites.is_empty() {
            let lines: Vec<String> = judged.acq_rel_sites.iter().map(|s| s.to_string()).collect();
            blamed.push(format!(
                "the acquire/release atomics at {} (outside DRFrlx, whose paired atomics are seq_cst: its SC \
                 guarantee does not cover them)",
                lines.join(", ")
            ));
        }
        for s in weak_states.difference(&judged.results) {
            let state = s
                .iter()
                .map(|(l, v)| (names.get(l).cloned().unwrap_or_else(|| l.to_string()), *v))
                .collect();
            report.non_sc.push(NonScOutcome {
                state,
                blamed: blamed.clone(),
            });
        }
        if report.non_sc.iter().any(|o| o.blamed.is_empty()) {
            report.failures.push(internal(
                "a weak-model result that no SC execution has, in a program without illegal races or quantum \
                 accesses, contradicts the DRFrlx theorem",
            ));
        }

        // 4. Inference.
        if self.infer != Infer::Off && !weak_cut {
            self.infer_classes(&f, &judged, &tracked, quantum, &domains, &budget, &mut report);
        }
        finish(&mut report, &judged, quantum);
        report
    }

    /// Runs the check and panics with the report unless the program is legal.
    #[track_caller]
    pub fn check<F: Fn()>(&self, f: F) {
        let r = self.explore(f);
        if !r.is_legal() {
            panic!("{r}");
        }
    }
}

/// A count that may have saturated (a product of domain sizes).
fn count_text(n: u128) -> String {
    if n == u128::MAX {
        "more than 10^38".into()
    } else {
        n.to_string()
    }
}

/// A broken invariant of the checker, said plainly.
fn internal(what: &str) -> Failure {
    Failure::new(
        scopecheck_checker::FailureKind::Internal,
        format!("internal error (a bug in scopecheck, not in the program): {what}"),
        ExecutionGraph::new(),
        String::new(),
    )
}

/// Runs the default DRFrlx check on `f` and panics with the report unless
/// the program is DRFrlx-legal.
#[track_caller]
pub fn check<F: Fn()>(f: F) {
    Check::new().check(f)
}
