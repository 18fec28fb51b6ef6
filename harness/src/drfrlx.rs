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

use budget::Budget;
use combos::Combinations;
use scopecheck_checker::drfrlx::{analyze, ClassOverride, IllegalRace};
use scopecheck_checker::event::{EventKind, Loc, LocKind, Order, SourceLoc, Value};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::{ExecutionEnd, Failure, MemoryModel};
use scopecheck_instrument::drfrlx as shim;
use scopecheck_instrument::drfrlx::{ChoiceKey, QuantumPlan};
use scopecheck_instrument::rt::{self, RunConfig, StrategyChoice};
use std::collections::{BTreeMap, BTreeSet, HashMap};
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
    /// SC runs, [`Check::quantum_values`] and the type's boundary values. A
    /// quantum value may be any value of its type; the verdict covers these.
    pub quantum_domains: Vec<(String, Vec<Value>)>,
    /// Class inference, per line.
    pub inferences: Vec<Inference>,
    /// Limits reached and other remarks.
    pub notes: Vec<String>,
    /// What a bound cut ([`Check::max_duration`], [`Check::max_executions`],
    /// [`Check::max_quantum_programs`]) and what the check covered before
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

/// Final memory: each atomic location and its mo-last value.
type State = BTreeMap<Loc, Value>;

fn final_state(g: &ExecutionGraph) -> State {
    g.locs()
        .filter(|(_, d)| d.kind == LocKind::Atomic)
        .map(|(&l, _)| (l, g.write_value(l, g.mo_max(l))))
        .collect()
}

/// What one judged exploration (of the program or of its quantum-equivalent
/// program) produced.
#[derive(Default)]
struct Judged {
    races: Vec<(IllegalRace, u64)>,
    executions: u64,
    programs: u64,
    failures: Vec<Failure>,
    results: BTreeSet<State>,
    graphs: Vec<ExecutionGraph>,
    graphs_dropped: bool,
    written: HashMap<Loc, BTreeSet<Value>>,
    /// Each location's initial value, from every complete execution (not
    /// from the kept graphs: none are kept when inference is off).
    init: HashMap<Loc, Value>,
    unclassified_sites: BTreeSet<SourceLoc>,
    classified_sites: BTreeMap<SourceLoc, Class>,
    /// The locations each relaxed line accessed.
    site_locs: BTreeMap<SourceLoc, BTreeSet<Loc>>,
    quantum_sites: BTreeSet<SourceLoc>,
    /// Lines of acquire, release and acq_rel atomics (outside DRFrlx).
    acq_rel_sites: BTreeSet<SourceLoc>,
    /// The values quantum accesses of each location were offered.
    offered: BTreeMap<Loc, BTreeSet<Value>>,
    internal: Vec<String>,
    incomplete: Vec<String>,
    /// Why the check's budget ran out during (or before) this exploration.
    cut: Option<String>,
    /// Quantum combinations known and not run when the budget ran out.
    combos_left: u128,
    /// Executions abandoned without a result (blocked: a litmus loop past
    /// its unroll bound, say).
    abandoned: u64,
    /// Quantum choice points whose value some execution can tell: a
    /// returned value the thread observed, a written value that a
    /// non-quantum read reads or that ends in memory.
    relevant: BTreeSet<ChoiceKey>,
}

impl Judged {
    fn add_race(&mut self, r: IllegalRace) {
        if let Some(e) = self.races.iter_mut().find(|(x, _)| {
            x.kind == r.kind
                && ((x.first_src == r.first_src && x.second_src == r.second_src)
                    || (x.first_src == r.second_src && x.second_src == r.first_src))
        }) {
            e.1 += 1;
        } else {
            self.races.push((r, 1));
        }
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

    /// One exhaustive `sc` exploration, each complete execution judged with `classes`.
    /// The run gets what is left of `budget`; when the budget runs out,
    /// `out.cut` says why.
    fn judge_once(&self, f: &dyn Fn(), classes: &ClassOverride, keep: bool, out: &mut Judged, budget: &Budget) {
        if let Some(why) = budget.spent() {
            out.cut.get_or_insert(why);
            return;
        }
        let mut config = self.config(MemoryModel::Sc);
        budget.apply(&mut config);
        let mut on_end = |g: &ExecutionGraph, end: ExecutionEnd| {
            note_relevant(g, &mut out.relevant);
            if end == ExecutionEnd::Blocked {
                out.abandoned += 1;
            }
            if end != ExecutionEnd::Complete {
                return;
            }
            out.executions += 1;
            match analyze(g, classes) {
                Ok(rs) => rs.into_iter().for_each(|r| out.add_race(r)),
                Err(e) => out.internal.push(e),
            }
            out.results.insert(final_state(g));
            for (&l, d) in g.locs() {
                out.init.entry(l).or_insert(d.init);
            }
            for (_, e) in g.events() {
                if let EventKind::Write(w) = &e.kind {
                    out.written.entry(w.loc).or_default().insert(w.value);
                }
                let order = match &e.kind {
                    EventKind::Read(r) => r.rmw.map_or(r.order, |(_, _, s, _)| s),
                    EventKind::Write(w) if !w.rmw => w.order,
                    _ => continue,
                };
                if order == Order::Relaxed {
                    if let Some(l) = e.loc() {
                        out.site_locs.entry(e.src).or_default().insert(l);
                    }
                }
                match order {
                    Order::Relaxed => match e.rlx {
                        Some(c) => {
                            out.classified_sites.insert(e.src, c);
                            if c == Class::Quantum {
                                out.quantum_sites.insert(e.src);
                            }
                        }
                        None => {
                            out.unclassified_sites.insert(e.src);
                        }
                    },
                    Order::Acquire | Order::Release | Order::AcqRel => {
                        out.acq_rel_sites.insert(e.src);
                    }
                    _ => {}
                }
            }
            if keep {
                if out.graphs.len() < self.max_kept_graphs {
                    out.graphs.push(g.clone());
                } else {
                    out.graphs_dropped = true;
                }
            }
        };
        let r = rt::run_with(&config, f, &mut on_end);
        budget.charge(&r);
        // One report per kind of failure and line: the quantum-equivalent
        // program fails the same assertion under many choices.
        for fl in r.failures {
            if !out
                .failures
                .iter()
                .any(|o| o.kind() == fl.kind() && o.location() == fl.location())
            {
                out.failures.push(fl);
            }
        }
        if let Some(why) = r.incomplete_reason {
            match budget.spent() {
                Some(spent) => {
                    out.cut.get_or_insert(spent);
                }
                None => out.incomplete.push(format!("an SC exploration {why}")),
            }
        }
    }

    /// Every combination of quantum choices, each explored under `sc`, up
    /// to [`Check::max_quantum_programs`] of them and while `budget` lasts.
    /// The combinations are generated one at a time ([`Combinations`]):
    /// memory stays bounded by the search's depth, not by their number.
    fn judge_quantum(
        &self,
        f: &dyn Fn(),
        classes: &ClassOverride,
        domains: &HashMap<Loc, Vec<Value>>,
        keep: bool,
        budget: &Budget,
    ) -> Judged {
        let mut out = Judged::default();
        let mut combos = Combinations::new();
        while let Some(script) = combos.next() {
            if out.programs >= self.max_quantum_programs {
                let known = (out.programs as u128)
                    .saturating_add(1)
                    .saturating_add(combos.known_left());
                out.incomplete.push(format!(
                    "the quantum-equivalent program has at least {} combinations of quantum choices (those not \
                     run may lead to more); {} were checked (max_quantum_programs), the rest were not run",
                    count_text(known),
                    out.programs
                ));
                break;
            }
            if let Some(why) = budget.spent() {
                out.cut.get_or_insert(why);
                out.combos_left = combos.known_left().saturating_add(1);
                break;
            }
            out.programs += 1;
            shim::install_quantum(QuantumPlan {
                domains: domains.clone(),
                script: script.clone(),
                boundaries: self.quantum_boundaries,
            });
            self.judge_once(f, classes, keep, &mut out, budget);
            let log = shim::take_quantum_log();
            for (loc, vals) in &log.offered {
                out.offered.entry(*loc).or_default().extend(vals.iter().copied());
            }
            if out.cut.is_some() {
                // This combination was cut: its children are unknown.
                out.combos_left = combos.known_left();
                break;
            }
            // Children: every non-zero assignment of the choice points this
            // run met and the script does not fix (unfixed ones chose 0, so
            // the all-zero assignment is this run itself).
            // A choice no execution of this run can tell apart (a returned
            // value never observed, a written value only quantum reads
            // read and that does not end in memory) is left at 0: every
            // value gives the same executions and results. A script that
            // makes it relevant fixes other choices, and branches on it then.
            let relevant = std::mem::take(&mut out.relevant);
            let free: Vec<(ChoiceKey, usize)> = log
                .choices
                .into_iter()
                .filter(|(k, n)| !script.contains_key(k) && *n > 1 && relevant.contains(k))
                .collect();
            combos.branch(script, free);
        }
        out
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

    /// Each quantum location's domain: its initial value, what the program
    /// wrote there in any SC execution, and the declared extra values.
    fn domains(&self, p: &Judged) -> HashMap<Loc, Vec<Value>> {
        let mut out = HashMap::new();
        let init = &p.init;
        for (loc, vals) in &p.written {
            let mut d: BTreeSet<Value> = vals.clone();
            if let Some(&i) = init.get(loc) {
                d.insert(i);
            }
            d.extend(self.quantum_values.iter().copied());
            // The initial value first: unfixed choices pick index 0.
            let mut v: Vec<Value> = Vec::with_capacity(d.len());
            if let Some(&i) = init.get(loc) {
                v.push(i);
            }
            v.extend(d.into_iter().filter(|x| Some(x) != init.get(loc)));
            out.insert(*loc, v);
        }
        for (&loc, &i) in init {
            out.entry(loc).or_insert_with(|| {
                let mut v = vec![i];
                v.extend(self.quantum_values.iter().copied().filter(|&x| x != i));
                v
            });
        }
        out
    }

    /// Class inference. Sites are judged in groups: those that access a
    /// common location take each class together (a counter's increments
    /// and its final load, a seqlock's data stores and loads), since a class
    /// is a property of how a location is used: quantum accesses, for one,
    /// may race only with quantum ones. Unclassified sites are always
    /// judged; classified ones join the groups only under [`Infer::All`]
    /// (otherwise they keep their classes). Unclassified sites outside the
    /// group are taken as paired meanwhile.
    #[allow(clippy::too_many_arguments)]
    fn infer_classes(
        &self,
        f: &dyn Fn(),
        judged: &Judged,
        tracked: &BTreeSet<SourceLoc>,
        quantum: bool,
        domains: &HashMap<Loc, Vec<Value>>,
        budget: &Budget,
        report: &mut DrfReport,
    ) {
        if judged.graphs_dropped {
            report.notes.push(format!(
                "class inference skipped: more than {} executions to judge",
                self.max_kept_graphs
            ));
            return;
        }
        let mut sites: Vec<(SourceLoc, Option<Class>)> = judged.unclassified_sites.iter().map(|&s| (s, None)).collect();
        if self.infer == Infer::All {
            sites.extend(judged.classified_sites.iter().map(|(&s, &c)| (s, Some(c))));
        }
        let groups = group_by_location(&sites, &judged.site_locs);
        let untracked: Vec<SourceLoc> = judged
            .unclassified_sites
            .iter()
            .copied()
            .filter(|s| !tracked.contains(s))
            .collect();
        let total = groups.len();
        for (done, group) in groups.into_iter().enumerate() {
            // A group judged while the budget ran out is dropped: a class
            // its cut run could not show legal may well be.
            let cut = |budget: &Budget| {
                budget.spent().map(|why| {
                    format!(
                        "{why} during class inference, after {done} of {total} groups of lines; the rest have no \
                         inference"
                    )
                })
            };
            if let Some(why) = cut(budget) {
                report.incomplete.push(why);
                return;
            }
            let with = |class: AccessClass| ClassOverride {
                sites: group.iter().map(|&(s, _)| (s, class)).collect(),
                unclassified_as: Some(AccessClass::Paired),
                assume_observed: untracked.clone(),
            };
            // Whether the program is legal with the group at `class`. Without
            // quantum accesses anywhere, the SC executions already judged are
            // judged again with other classes; with them, the classes change
            // which program is run, so it runs again.
            let legal_with = |class: AccessClass| -> bool {
                let classes = with(class);
                if !quantum && class != AccessClass::Relaxed(Class::Quantum) {
                    return judged
                        .graphs
                        .iter()
                        .all(|g| analyze(g, &classes).map(|rs| rs.is_empty()).unwrap_or(false));
                }
                let shim_class = match class {
                    AccessClass::Relaxed(c) => Some(c),
                    _ => None,
                };
                shim::set_site_classes(group.iter().map(|&(s, _)| (s, shim_class)).collect());
                let j = self.judge_quantum(f, &classes, domains, false, budget);
                shim::set_site_classes(Vec::new());
                j.races.is_empty() && j.failures.is_empty() && j.internal.is_empty() && j.incomplete.is_empty()
            };
            let quantum_tried = group.iter().all(|(s, _)| tracked.contains(s));
            let mut legal = Vec::new();
            for c in Class::ALL {
                if c == Class::Quantum && !quantum_tried {
                    continue;
                }
                if legal_with(AccessClass::Relaxed(c)) {
                    legal.push(c);
                }
            }
            // `Class::ALL` is in preference order, and so is `legal`.
            // Paired: an order stronger than relaxed (as the shim cannot
            // change a site's order, paired is judged on the class alone,
            // which is what DRFrlx's race definitions look at).
            let paired_legal = legal_with(AccessClass::Paired);
            let suggestion = match legal.first() {
                Some(&c) => Suggestion::Class(c),
                None if paired_legal => Suggestion::MustBePaired,
                None => Suggestion::Nothing,
            };
            if let Some(why) = cut(budget) {
                report.incomplete.push(why);
                return;
            }
            let together: Vec<SourceLoc> = group.iter().map(|&(s, _)| s).collect();
            for &(site, given) in &group {
                report.inferences.push(Inference {
                    site,
                    given,
                    legal: legal.clone(),
                    paired_legal,
                    suggestion: suggestion.clone(),
                    quantum_tried,
                    together: together.iter().copied().filter(|&s| s != site).collect(),
                });
            }
        }
        self.check_suggestions_together(f, judged, quantum, domains, budget, report);
    }

    /// Each group was judged with the other unclassified lines paired, so
    /// the suggestions need not hold together (message passing through
    /// relaxed atomics: the flag is fine as non-ordering if the data is
    /// paired, the data as unpaired if the flag is paired, but not both).
    /// Judges the program with every suggestion applied at once and says
    /// whether that is legal.
    fn check_suggestions_together(
        &self,
        f: &dyn Fn(),
        judged: &Judged,
        quantum: bool,
        domains: &HashMap<Loc, Vec<Value>>,
        budget: &Budget,
        report: &mut DrfReport,
    ) {
        let changed: Vec<(SourceLoc, AccessClass)> = report
            .inferences
            .iter()
            .filter_map(|i| {
                let class = match i.suggestion {
                    Suggestion::Class(c) => AccessClass::Relaxed(c),
                    Suggestion::MustBePaired => AccessClass::Paired,
                    Suggestion::Nothing => return None,
                };
                (i.given.map(AccessClass::Relaxed) != Some(class)).then_some((i.site, class))
            })
            .collect();
        let groups: BTreeSet<Vec<SourceLoc>> = report
            .inferences
            .iter()
            .map(|i| {
                let mut g = i.together.clone();
                g.push(i.site);
                g.sort();
                g
            })
            .collect();
        if groups.len() < 2 || changed.is_empty() {
            return;
        }
        let classes = ClassOverride {
            sites: changed.clone(),
            unclassified_as: Some(AccessClass::Paired),
            assume_observed: Vec::new(),
        };
        let becomes_quantum = changed.iter().any(|(_, c)| *c == AccessClass::Relaxed(Class::Quantum));
        let legal = if !quantum && !becomes_quantum {
            judged
                .graphs
                .iter()
                .all(|g| analyze(g, &classes).map(|rs| rs.is_empty()).unwrap_or(false))
        } else {
            let shim_sites = changed
                .iter()
                .map(|&(s, c)| {
                    (
                        s,
                        match c {
                            AccessClass::Relaxed(c) => Some(c),
                            _ => None,
                        },
                    )
                })
                .collect();
            shim::set_site_classes(shim_sites);
            let j = self.judge_quantum(f, &classes, domains, false, budget);
            shim::set_site_classes(Vec::new());
            if let Some(why) = &j.cut {
                report.incomplete.push(format!(
                    "{why} while judging the suggestions all together; whether they hold together is not known"
                ));
                return;
            }
            j.races.is_empty() && j.failures.is_empty() && j.internal.is_empty() && j.incomplete.is_empty()
        };
        report.suggestions_together = Some(legal);
        if !legal {
            report.notes.push(
                "the suggestions were found one location at a time (the other unclassified lines taken as paired) \
                 and are not legal all together: apply one, then check again"
                    .into(),
            );
        }
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

/// A site with the class its source gives it.
type Site = (SourceLoc, Option<Class>);

/// Splits `sites` into groups connected by a common location.
fn group_by_location(sites: &[Site], locs: &BTreeMap<SourceLoc, BTreeSet<Loc>>) -> Vec<Vec<Site>> {
    let mut groups: Vec<(BTreeSet<Loc>, Vec<Site>)> = Vec::new();
    for &(s, c) in sites {
        let mine = locs.get(&s).cloned().unwrap_or_default();
        let (joined, rest): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(l, _)| !l.is_disjoint(&mine));
        let mut merged = (mine, vec![(s, c)]);
        for (l, members) in joined {
            merged.0.extend(l);
            merged.1.extend(members);
        }
        groups = rest;
        groups.push(merged);
    }
    let mut out: Vec<Vec<Site>> = groups
        .into_iter()
        .map(|(_, mut m)| {
            m.sort();
            m
        })
        .collect();
    out.sort();
    out
}

/// Adds the quantum choice points whose value `g` can tell apart: a
/// returned value the thread observed, a written value that a non-quantum
/// read reads or that ends in memory.
fn note_relevant(g: &ExecutionGraph, relevant: &mut BTreeSet<ChoiceKey>) {
    for (id, e) in g.events() {
        match &e.kind {
            EventKind::Observe { of } => {
                relevant.insert((of.thread, of.index, 0));
            }
            EventKind::Write(w) => {
                let last = g.mo_max(w.loc) == id;
                let read_plainly = g.loc(w.loc).is_some_and(|d| {
                    d.reads.iter().any(|&r| {
                        let re = g.event(r);
                        re.as_read().is_some_and(|x| x.rf == id) && re.rlx != Some(Class::Quantum)
                    })
                });
                if last || read_plainly {
                    if w.rmw {
                        relevant.insert((id.thread, id.index - 1, 1));
                    } else {
                        relevant.insert((id.thread, id.index, 2));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Adds what the judged exploration (of the program, or of its
/// quantum-equivalent program) found to `report`: its races, failures and
/// the limits it reached.
fn finish(report: &mut DrfReport, judged: &Judged, quantum: bool) {
    for (r, n) in &judged.races {
        report.races.push(RaceReport {
            kind: r.kind,
            kinds: r.kinds.clone(),
            first: (r.first_src, r.first_class),
            second: (r.second_src, r.second_class),
            why: r.why.clone(),
            path: r.path.clone(),
            executions: *n,
            quantum_equivalent: quantum,
        });
    }
    report.races.sort_by_key(|r| (r.kind, r.first.0, r.second.0));
    report.failures.splice(0..0, judged.failures.iter().cloned());
    for e in judged.internal.iter().take(1) {
        report.failures.push(internal(e));
    }
    report.incomplete.extend(judged.incomplete.iter().cloned());
    report.outside = judged.acq_rel_sites.iter().copied().collect();
    if report.quantum_domains.is_empty() {
        // A check cut before the weak-model run named no locations.
        report.quantum_domains = judged
            .offered
            .iter()
            .map(|(l, vals)| (l.to_string(), vals.iter().copied().collect()))
            .collect();
    }
}

/// Why an exploration that no bound cut judged nothing: none of its
/// executions completed (each blocked, or gave up as a litmus loop past its
/// unroll bound does). Races judged on zero executions prove nothing, so
/// the check cannot say legal.
fn nothing_completed(j: &Judged, what: &str) -> Option<String> {
    (j.executions == 0 && j.failures.is_empty() && j.cut.is_none()).then(|| {
        format!(
            "no SC execution {what} completed (all {} were abandoned: a `while` loop that needs more than the \
             unroll bound discards its execution), so nothing was judged; the later steps were not run",
            j.abandoned
        )
    })
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
