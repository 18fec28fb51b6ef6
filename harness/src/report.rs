//! What a check found, and how it is shown to a person.

use scopecheck_checker::event::{Event, EventId, EventKind, Loc, LocKind, SourceLoc, ThreadId};
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_checker::{Failure, MemoryModel};
use scopecheck_instrument::gpu::Outcome;
use scopecheck_instrument::rt::RunResult;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

/// The result of exploring a program.
#[derive(Debug)]
pub struct Report {
    run: RunResult,
    model: MemoryModel,
    /// What else the run did, said after its counts (a budget's PCT part).
    notes: Vec<String>,
}

impl Report {
    pub(crate) fn new(mut run: RunResult, model: MemoryModel) -> Report {
        // Races collected under `record_races` are failures like any other.
        let races = std::mem::take(&mut run.races);
        run.failures.extend(races);
        Report {
            run,
            model,
            notes: Vec::new(),
        }
    }

    pub(crate) fn with_note(mut self, note: String) -> Report {
        self.notes.push(note);
        self
    }

    /// Under a model that allows cycles in po ∪ rf (`c11`), what the run
    /// covered of them, said with the counts (docs/c11-model.md section
    /// 4): the optimal explorer (with promises) and the reference
    /// enumerator (with guessed values) build them, except where a value
    /// or a store only the cycle itself makes (thin air); the sampling
    /// strategies build none; `porf_cycles` off builds none.
    pub(crate) fn with_cycle_coverage(self, model: MemoryModel, porf_cycles: bool) -> Report {
        if !model.allows_porf_cycles() {
            return self;
        }
        let note = if !porf_cycles {
            "no execution with a cycle in po ∪ rf was built (porf_cycles is off), though the model allows them"
        } else {
            match self.run.strategy {
                // (An incomplete run says why it stopped; a shard keeps to
                // executions without cycles and says so there.)
                "exhaustive" | "reference" if !self.run.complete => return self,
                "exhaustive" => {
                    "complete up to self-justifying values and to cycles the promises do not reach: an execution \
                     with a cycle in po ∪ rf is built when a read on the \
                     cycle (an atomic load or RMW) can be promised the value of a write the explorer has built \
                     po ∪ rf-after it and that promised read does not synchronize; a value or a store that only \
                     the cycle itself makes (thin air) is not, nor a cycle closed only through a mutex \
                     acquisition or a load of an address (AtomicPtr), nor one whose only promisable read would \
                     synchronize (`--strategy reference` builds some of these; docs/c11-model.md section 4)"
                }
                "reference" => {
                    "complete up to self-justifying values and to cycles through mutexes and addresses: \
                     an execution with a cycle in po ∪ rf is built when each value its guessed reads return is \
                     an initial value or written by an execution found, and the guessed reads are atomic loads \
                     or RMWs; a value or a store that only the cycle itself makes (thin air) is not, nor a cycle \
                     closed only through a mutex acquisition or a load of an address (AtomicPtr) \
                     (docs/c11-model.md section 4)"
                }
                "replay" => return self,
                _ => {
                    "no execution with a cycle in po ∪ rf was built: only the exhaustive and reference strategies \
                     build them (docs/c11-model.md section 4)"
                }
            }
        };
        let dropped = self.run.stats.cyclic_dropped;
        let r = self.with_note(note.into());
        if dropped == 0 {
            return r;
        }
        r.with_note(format!(
            "{dropped} execution(s) with a cycle in po ∪ rf left out: a promised read in each synchronizes, which \
             the race detection would not see (docs/c11-model.md section 4); the outcomes may lack theirs"
        ))
    }

    /// What else the run did besides the counted executions (under a
    /// budget: the PCT executions, whether the exhaustive part was cut).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// What the complete executions recorded with `gpu::record`: each
    /// outcome with the number of complete executions that had it (an
    /// execution that recorded nothing has the empty outcome; failed and
    /// blocked executions are not here). See `docs/gpu-api.md`.
    pub fn outcomes(&self) -> &BTreeMap<Outcome, u64> {
        &self.run.outcomes
    }

    /// The outcomes of [`Report::outcomes`] as `key=value; key=value`
    /// strings, without their counts.
    pub fn outcome_set(&self) -> BTreeSet<String> {
        self.run.outcomes.keys().map(|o| o.to_string()).collect()
    }

    /// With `Builder::record_races`: complete executions that had a race.
    pub fn racy_executions(&self) -> u64 {
        self.run.racy_executions
    }

    /// Complete executions explored (for the reference enumerator: distinct ones).
    pub fn executions(&self) -> u64 {
        self.run.distinct.unwrap_or(self.run.stats.complete)
    }

    /// Executions that ended blocked or were abandoned as redundant.
    pub fn blocked(&self) -> u64 {
        self.run.stats.blocked
    }

    /// Executions that ended in a failure.
    pub fn failed(&self) -> u64 {
        self.run.stats.failed
    }

    /// Every execution run, complete or not (with repetitions for the reference enumerator).
    pub fn runs(&self) -> u64 {
        self.run.stats.complete + self.run.stats.blocked + self.run.stats.failed + self.run.stats.pruned
    }

    /// Under a preemption bound: executions stopped once they were past
    /// the bound (see [`crate::Builder::preemption_bound`]).
    pub fn pruned(&self) -> u64 {
        self.run.stats.pruned
    }

    /// The preemption bound the run kept to, if one applied.
    pub fn preemption_bound(&self) -> Option<u32> {
        self.run.preemption_bound
    }

    /// What a bounded run covered, in one sentence; `None` without a bound.
    /// A complete bounded run explored every execution some interleaving
    /// with at most that many preemptions reaches, and possibly others.
    pub fn coverage(&self) -> Option<String> {
        let b = self.preemption_bound()?;
        Some(if self.is_complete() {
            format!(
                "complete up to {b} preemption(s): every execution with at most {b} preemption(s) was explored \
                 (some with more too; {} cut past the bound)",
                self.pruned()
            )
        } else {
            format!(
                "not complete even up to {b} preemption(s): the run stopped first ({} execution(s) cut past the bound)",
                self.pruned()
            )
        })
    }

    /// Whether the strategy covered everything it meant to (no bound cut it short,
    /// no failure stopped it).
    pub fn is_complete(&self) -> bool {
        self.run.complete
    }

    /// Why the exploration stopped early, if it did.
    pub fn incomplete_reason(&self) -> Option<&str> {
        self.run.incomplete_reason.as_deref()
    }

    /// Why the exploration stopped early, as a value to match (its text is
    /// [`Report::incomplete_reason`]).
    pub fn stop_cause(&self) -> Option<&crate::StopCause> {
        self.run.stop.as_ref()
    }

    /// Why the run checked nothing although nothing failed: no execution
    /// completed (each one blocked or gave up, or the run stopped before
    /// the first one ended). A passing run must have checked something:
    /// [`crate::Builder::check`] panics with this when the exploration was
    /// complete.
    pub fn no_answer(&self) -> Option<String> {
        if self.executions() > 0 || !self.run.failures.is_empty() {
            return None;
        }
        if self.runs() == 0 && self.is_complete() {
            // Only a shard that owns no execution of the tree gets here:
            // the other shards judge them.
            return None;
        }
        Some(match self.incomplete_reason() {
            None => format!(
                "no execution completed: all {} were abandoned (blocked) before their end, so nothing was checked",
                self.runs()
            ),
            // (A replay's divergence is said in full at the top of the report.)
            Some(_) if self.replay_divergence().is_some() => {
                "no execution completed before the run stopped (the replay diverged), so nothing was checked".into()
            }
            Some(why) => format!("no execution completed before the run stopped ({why}), so nothing was checked"),
        })
    }

    /// Failures found.
    pub fn failures(&self) -> &[Failure] {
        &self.run.failures
    }

    /// Wall time.
    pub fn elapsed(&self) -> Duration {
        self.run.elapsed
    }

    /// The memory model explored under.
    pub fn memory_model(&self) -> MemoryModel {
        self.model
    }

    /// Events added and replayed over the exploration.
    pub fn events(&self) -> (u64, u64) {
        (self.run.stats.events_added, self.run.stats.events_replayed)
    }

    /// For a replay: whether the program asked for choices the token did not hold
    /// (the program changed since the token was printed).
    pub fn replay_diverged(&self) -> bool {
        self.run.replay_diverged
    }

    /// For a replay that diverged: `replay diverged at step N`, what the
    /// token expected there and what the program did. Such a replay is
    /// neither a failure nor a pass: the run is incomplete.
    pub fn replay_divergence(&self) -> Option<&str> {
        self.run.replay_divergence.as_deref()
    }
}

/// Name of the libtest test running on this OS thread, if any.
fn test_name() -> Option<String> {
    let t = std::thread::current();
    let n = t.name()?;
    (n != "main").then(|| n.to_string())
}

/// Writes `g` as a table: one block per thread, an event per line with its
/// source line; reads show the write they read (rf), writes their rank in mo.
pub fn write_execution(f: &mut impl fmt::Write, g: &ExecutionGraph, mark: &[EventId]) -> fmt::Result {
    for t in 0..g.num_threads() as ThreadId {
        let evs = g.thread_events(t);
        if evs.is_empty() {
            continue;
        }
        writeln!(f, "    thread {t}:")?;
        for (i, e) in evs.iter().enumerate() {
            let id = EventId::new(t, i as u32);
            if matches!(e.kind, EventKind::Start { .. } | EventKind::End) {
                continue;
            }
            let mut what = lock_terms(g, e.describe(), e);
            if let Some(p) = g.promise_at(t, i as u32) {
                // A promised read (a cycle in po ∪ rf, `c11`) reads the
                // initial write only as the engine's placeholder.
                what = what.replace(
                    &format!("(rf {:?})", EventId::INIT),
                    &format!(
                        "(rf {:?}, promised: a write po ∪ rf-after this read)",
                        g.promised_write(&p).unwrap_or(p.write)
                    ),
                );
            }
            if let Some(w) = e.as_write() {
                what.push_str(&format!(" (mo #{})", g.mo_position(w.loc, id)));
            }
            let star = if mark.contains(&id) { ">>" } else { "  " };
            writeln!(f, "    {star} {id:<8} {what:<56} {}", e.src)?;
        }
    }
    let mut locs: Vec<(Loc, SourceLoc)> = g.locs().map(|(loc, d)| (*loc, g.event(d.alloc).src)).collect();
    locs.sort_by_key(|&(l, _)| l);
    write_locations(f, &locs)
}

/// An access to a lock's word in the lock's terms: `rwlock loc0.0 :=
/// write-locked` rather than the raw state value (`18446744073709551615`).
fn lock_terms(g: &ExecutionGraph, text: String, e: &Event) -> String {
    let (loc, value, op) = match (e.as_read(), e.as_write()) {
        (Some(r), _) => (r.loc, r.value, "="),
        (None, Some(w)) => (w.loc, w.value, ":="),
        _ => return text,
    };
    let Some(kind) = g.loc(loc).map(|d| d.kind).filter(|k| k.is_lock()) else {
        return text;
    };
    let Some(state) = kind.lock_state(value) else {
        return text;
    };
    let name = if kind == LocKind::RwLock { "rwlock" } else { "mutex" };
    text.replacen(&format!("{loc} {op} {value}"), &format!("{name} {loc} {op} {state}"), 1)
}

/// How many creation sites the legend lists before summing up the rest.
const LEGEND_SITES: usize = 12;
/// How many runs of locations one site's line lists before summing up.
const LEGEND_RUNS: usize = 4;

/// The location legend: which line created each location. Locations are
/// grouped by creation site and consecutive ones shown as a range
/// (`loc0.2-loc0.61 (60) created at ...`), so a program with many locations
/// (60 nodes of a list, say) still gets a legend one can read; past
/// [`LEGEND_SITES`] sites the rest is counted, not listed.
fn write_locations(f: &mut impl fmt::Write, locs: &[(Loc, SourceLoc)]) -> fmt::Result {
    if locs.is_empty() {
        return Ok(());
    }
    // Sites in order of first creation, each with its locations.
    let mut sites: Vec<(SourceLoc, Vec<Loc>)> = Vec::new();
    for &(loc, src) in locs {
        match sites.iter_mut().find(|(s, _)| *s == src) {
            Some((_, v)) => v.push(loc),
            None => sites.push((src, vec![loc])),
        }
    }
    let entry = |src: &SourceLoc, v: &[Loc]| {
        let mut runs: Vec<(Loc, Loc)> = Vec::new();
        for &l in v {
            match runs.last_mut() {
                Some((_, hi)) if hi.thread() == l.thread() && hi.seq() + 1 == l.seq() => *hi = l,
                _ => runs.push((l, l)),
            }
        }
        let mut parts: Vec<String> = runs
            .iter()
            .take(LEGEND_RUNS)
            .map(|(lo, hi)| if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") })
            .collect();
        if runs.len() > LEGEND_RUNS {
            let rest: usize = runs[LEGEND_RUNS..]
                .iter()
                .map(|(lo, hi)| (hi.seq() - lo.seq()) as usize + 1)
                .sum();
            parts.push(format!("{rest} more"));
        }
        let count = if v.len() > 1 {
            format!(" ({})", v.len())
        } else {
            String::new()
        };
        format!("{}{count} created at {src}", parts.join(", "))
    };
    if sites.len() == 1 && sites[0].1.len() == 1 {
        return writeln!(f, "    locations: {}", entry(&sites[0].0, &sites[0].1));
    }
    if sites.iter().all(|(_, v)| v.len() == 1) && sites.len() <= 3 {
        let line: Vec<String> = sites.iter().map(|(s, v)| entry(s, v)).collect();
        return writeln!(f, "    locations: {}", line.join("; "));
    }
    writeln!(f, "    locations ({}):", locs.len())?;
    for (src, v) in sites.iter().take(LEGEND_SITES) {
        writeln!(f, "      {}", entry(src, v))?;
    }
    if sites.len() > LEGEND_SITES {
        let rest: usize = sites[LEGEND_SITES..].iter().map(|(_, v)| v.len()).sum();
        writeln!(
            f,
            "      ... {rest} more location(s) created at {} other line(s)",
            sites.len() - LEGEND_SITES
        )?;
    }
    Ok(())
}

/// Writes one failure the way reports show it.
pub fn write_failure(f: &mut impl fmt::Write, fl: &Failure, model: MemoryModel) -> fmt::Result {
    writeln!(f, "scopecheck: {} ({} model)", fl.kind().name(), model.name())?;
    writeln!(f)?;
    writeln!(f, "  {}", fl.message())?;
    if !fl.events().is_empty() {
        writeln!(f)?;
        writeln!(f, "  events:")?;
        for e in fl.events() {
            writeln!(f, "    thread {} {:<50} at {}", e.id.thread, e.what, e.src)?;
        }
    }
    if let Some(fix) = fl.fix() {
        writeln!(f)?;
        writeln!(f, "  fix: {fix}")?;
    }
    writeln!(f)?;
    writeln!(f, "  execution (rf: the write a read reads; mo #k: a write's place in modification order, #0 being the initial value):")?;
    let marks: Vec<EventId> = fl.events().iter().map(|e| e.id).collect();
    write_execution(f, fl.graph(), &marks)?;
    writeln!(f)?;
    writeln!(f, "  replay token: {}", fl.token())?;
    match test_name() {
        Some(name) => writeln!(
            f,
            "  to replay: SCOPECHECK_REPLAY={} cargo test {name} -- --exact",
            fl.token()
        ),
        None => writeln!(
            f,
            "  to replay: SCOPECHECK_REPLAY={} cargo test <test name>",
            fl.token()
        ),
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = self.replay_divergence() {
            writeln!(f, "scopecheck: {d}")?;
            writeln!(f)?;
        }
        for fl in self.failures() {
            write_failure(f, fl, self.model)?;
            writeln!(f)?;
        }
        let how = format!(
            "in {:.3}s with the {} strategy under {}",
            self.elapsed().as_secs_f64(),
            self.run.strategy,
            self.model.name()
        );
        if self.executions() == 0 && self.blocked() == 0 && self.failed() > 0 {
            // Not "explored 0 executions": the run stopped in the first one.
            write!(f, "the first execution explored failed ({how})")?;
        } else if self.failed() > 0 {
            write!(
                f,
                "explored {} execution(s): {} complete, {} blocked, {} failed, {how}",
                self.executions() + self.blocked() + self.failed(),
                self.executions(),
                self.blocked(),
                self.failed()
            )?;
        } else {
            write!(
                f,
                "explored {} execution(s) ({} blocked) {how}",
                self.executions(),
                self.blocked()
            )?;
        }
        match self.incomplete_reason() {
            // (Already said in full above.)
            Some(_) if self.replay_divergence().is_some() => write!(f, "; incomplete: the replay diverged")?,
            Some(r) => write!(f, "; incomplete: {r}")?,
            None => {}
        }
        if let Some(c) = self.coverage() {
            write!(f, "; {c}")?;
        }
        for n in &self.notes {
            write!(f, "; {n}")?;
        }
        if let Some(r) = self.no_answer() {
            write!(f, "; {r}")?;
        }
        Ok(())
    }
}
