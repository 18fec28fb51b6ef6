//! Judging explorations: one exhaustive `sc` exploration of the program
//! (or of its quantum-equivalent program) with each complete execution's
//! races judged on hb1 ([`Judged`]), the quantum locations' domains, and
//! how a judged exploration's findings go into the report.

use super::budget::Budget;
use super::combos::Combinations;
use super::{count_text, internal, rt, shim, Check, DrfReport, RaceReport};
use scopecheck_checker::drfrlx::{analyze, ClassOverride, IllegalRace};
use scopecheck_checker::event::{EventKind, Loc, LocKind, Order, SourceLoc, Value};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::{ExecutionEnd, Failure, MemoryModel};
use scopecheck_instrument::drfrlx::{ChoiceKey, Class, QuantumPlan};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Final memory: each atomic location and its mo-last value.
pub(super) type State = BTreeMap<Loc, Value>;

pub(super) fn final_state(g: &ExecutionGraph) -> State {
    g.locs()
        .filter(|(_, d)| d.kind == LocKind::Atomic)
        .map(|(&l, _)| (l, g.write_value(l, g.mo_max(l))))
        .collect()
}

/// What one judged exploration (of the program or of its quantum-equivalent
/// program) produced.
#[derive(Default)]
pub(super) struct Judged {
    pub(super) races: Vec<(IllegalRace, u64)>,
    pub(super) executions: u64,
    pub(super) programs: u64,
    pub(super) failures: Vec<Failure>,
    pub(super) results: BTreeSet<State>,
    pub(super) graphs: Vec<ExecutionGraph>,
    pub(super) graphs_dropped: bool,
    pub(super) written: HashMap<Loc, BTreeSet<Value>>,
    /// Each location's initial value, from every complete execution (not
    /// from the kept graphs: none are kept when inference is off).
    pub(super) init: HashMap<Loc, Value>,
    pub(super) unclassified_sites: BTreeSet<SourceLoc>,
    pub(super) classified_sites: BTreeMap<SourceLoc, Class>,
    /// The locations each relaxed line accessed.
    pub(super) site_locs: BTreeMap<SourceLoc, BTreeSet<Loc>>,
    pub(super) quantum_sites: BTreeSet<SourceLoc>,
    /// Lines of acquire, release and acq_rel atomics (outside DRFrlx).
    pub(super) acq_rel_sites: BTreeSet<SourceLoc>,
    /// The values quantum accesses of each location were offered.
    pub(super) offered: BTreeMap<Loc, BTreeSet<Value>>,
    pub(super) internal: Vec<String>,
    pub(super) incomplete: Vec<String>,
    /// Why the check's budget ran out during (or before) this exploration.
    pub(super) cut: Option<String>,
    /// Quantum combinations known and not run when the budget ran out.
    pub(super) combos_left: u128,
    /// Executions abandoned without a result (blocked: a litmus loop past
    /// its unroll bound, say).
    pub(super) abandoned: u64,
    /// Quantum choice points whose value some execution can tell: a
    /// returned value the thread observed, a written value that a
    /// non-quantum read reads or that ends in memory.
    pub(super) relevant: BTreeSet<ChoiceKey>,
}

impl Judged {
    pub(super) fn add_race(&mut self, r: IllegalRace) {
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
    /// One exhaustive `sc` exploration, each complete execution judged with `classes`.
    /// The run gets what is left of `budget`; when the budget runs out,
    /// `out.cut` says why.
    pub(super) fn judge_once(
        &self,
        f: &dyn Fn(),
        classes: &ClassOverride,
        keep: bool,
        out: &mut Judged,
        budget: &Budget,
    ) {
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
    pub(super) fn judge_quantum(
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

    /// Each quantum location's domain: its initial value, what the program
    /// wrote there in any SC execution, and the declared extra values.
    pub(super) fn domains(&self, p: &Judged) -> HashMap<Loc, Vec<Value>> {
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
}

/// Adds the quantum choice points whose value `g` can tell apart: a
/// returned value the thread observed, a written value that a non-quantum
/// read reads or that ends in memory.
pub(super) fn note_relevant(g: &ExecutionGraph, relevant: &mut BTreeSet<ChoiceKey>) {
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
pub(super) fn finish(report: &mut DrfReport, judged: &Judged, quantum: bool) {
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
pub(super) fn nothing_completed(j: &Judged, what: &str) -> Option<String> {
    (j.executions == 0 && j.failures.is_empty() && j.cut.is_none()).then(|| {
        format!(
            "no SC execution {what} completed (all {} were abandoned: a `while` loop that needs more than the \
             unroll bound discards its execution), so nothing was judged; the later steps were not run",
            j.abandoned
        )
    })
}
