//! The test's result from the enumeration: the executions, their final
//! states, races and notes, as a `TestResult`.

use super::*;

/// What the caller of [`result`] has already worked out.
pub struct Setup<'a> {
    /// The test's file as events carry it.
    pub file: &'a str,
    /// The model it runs under.
    pub model: crate::litmus::run::LitmusModel,
    /// Notes from validation.
    pub notes: Vec<String>,
    /// Whether to keep a witness graph.
    pub want_witness: bool,
    /// herd's `filter P`: executions whose final state fails it count for
    /// nothing (no state, no race, no execution; `filter.rs`).
    pub filter: crate::litmus::filter::Filter<'a>,
}

/// Runs the enumeration and builds the test's result.
pub fn result(prog: &mut Program, cm: CyclicModel, config: &RunConfig, setup: Setup) -> crate::litmus::run::TestResult {
    use crate::litmus::ast::Quantifier;
    use crate::litmus::interp::holds;
    let test = prog.test;
    let start = std::time::Instant::now();
    let found = explore(prog, cm, config);
    let cond = test.condition.as_ref();
    let mut states: BTreeMap<FinalState, u64> = BTreeMap::new();
    let (mut positive, mut negative) = (0, 0);
    let mut witness = None;
    let kept = |i: usize| setup.filter.keeps(&found.states[i]);
    let mut dropped = 0;
    for (i, (st, g)) in found.states.iter().zip(&found.graphs).enumerate() {
        if !kept(i) {
            dropped += 1;
            continue;
        }
        let sat = cond.is_none_or(|c| holds(&c.prop, st));
        if sat {
            positive += 1;
        } else {
            negative += 1;
        }
        let is_witness = match cond.map(|c| c.quantifier) {
            Some(Quantifier::Exists) | Some(Quantifier::NotExists) => sat,
            Some(Quantifier::Forall) => !sat,
            None => false,
        };
        if setup.want_witness && is_witness && witness.is_none() {
            witness = Some((g.clone(), st.clone()));
        }
        *states.entry(st.clone()).or_insert(0) += 1;
    }
    let mut races = Vec::new();
    let mut race_lines = HashSet::new();
    let mut racy_executions = 0;
    for (_, g, pairs) in found.races.iter().filter(|r| kept(r.0)) {
        racy_executions += 1;
        for &(a, b) in pairs {
            if race_lines.insert((g.event(a).src, g.event(b).src)) {
                races.push(match cm {
                    CyclicModel::OpenCl(_) => crate::litmus::run::race_failure(g, a, b),
                    CyclicModel::Gpu(..) => crate::litmus::run::race_failure_under(g, a, b, setup.model),
                    CyclicModel::C11 => c11_race_failure(g, a, b),
                });
            }
        }
    }
    let mut notes = setup.notes;
    if found.cyclic > 0 {
        notes.push(format!(
            "{} of {} executions have a cycle in po ∪ rf ({} allows a read to read a write po ∪ rf-after it)",
            found.cyclic,
            found.states.len(),
            setup.model
        ));
    }
    if found.copies {
        notes.push(
            "complete up to self-justifying values: a value that only a cycle of copies justifies (herd's \
             symbolic Sn) is produced when it is one of the test's constants, and not otherwise"
                .into(),
        );
    }
    notes.extend(crate::litmus::run::divergence_notes(test, &found.divergence));
    notes.extend(setup.filter.note(dropped));
    let mut failures = found.run.failures;
    crate::litmus::run::litmus_advice(&mut failures);
    let complete = found.run.complete && found.incomplete.is_none();
    let incomplete_reason = found.incomplete.or(found.run.incomplete_reason);
    let judged = positive + negative;
    // Under a GPU model a complete run with no consistent execution judges
    // the condition over none, as Dat3M does (and as `run.rs` says).
    // So it is when the filter dropped every execution.
    let over_none =
        (matches!(cm, CyclicModel::Gpu(..)) || dropped > 0) && complete && failures.is_empty() && judged == 0;
    if over_none && dropped == 0 {
        notes.push(format!(
            "no execution finishes under {} (each hangs at a barrier, spins past --unroll or is inconsistent): the \
             condition is judged over no execution",
            setup.model
        ));
    }
    let no_answer = (!over_none && failures.is_empty() && judged == 0).then(|| {
        if !complete {
            format!(
                "no execution completed before a bound cut the run ({}), so the condition is not judged",
                incomplete_reason.as_deref().unwrap_or("the run was cut short")
            )
        } else {
            "no execution completed consistently: the model rejected every one, so the condition is not judged".into()
        }
    });
    let (witness, witness_state) = match witness {
        Some((g, s)) => (Some(g), Some(s)),
        None => (None, None),
    };
    let _ = setup.file;
    crate::litmus::run::TestResult {
        name: test.name.clone(),
        model: setup.model,
        condition: test.condition.clone(),
        states,
        positive,
        negative,
        executions: (0..found.states.len()).filter(|&i| kept(i)).count() as u64,
        blocked: found.run.stats.blocked + found.rejected,
        racy_executions,
        races,
        failures,
        complete,
        incomplete_reason,
        shard: None,
        sampled: None,
        no_answer,
        witness,
        witness_state,
        // Filled in by the caller, which knows the model's env.
        witness_sw: None,
        elapsed: start.elapsed(),
        notes,
        warnings: crate::litmus::warnings::of(test),
        thread_names: test.threads.iter().map(|t| format!("P{}", t.index)).collect(),
        loc_names: crate::litmus::run::loc_names(prog.layout),
        porf_cyclic: found.cyclic,
        porf_dropped: 0,
    }
}

/// A C11 data race of an execution found here, as a failure report.
pub(super) fn c11_race_failure(g: &ExecutionGraph, a: EventId, b: EventId) -> scopecheck_checker::Failure {
    use scopecheck_checker::failure::FailureKind;
    let (ea, eb) = (g.event(a), g.event(b));
    let message = format!(
        "`{}` ({}) and `{}` ({}) conflict, one is not atomic, and neither happens before the other (c11's dr)",
        ea.describe(),
        ea.src,
        eb.describe(),
        eb.src
    );
    scopecheck_checker::Failure::race(FailureKind::DataRace, message, g, a, b, MemoryModel::C11)
}
