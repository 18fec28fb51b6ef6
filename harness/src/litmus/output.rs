//! How litmus results are shown: herd's text format and DOT pictures of
//! witnesses (the command's JSON lines are built from these in the
//! command's own `cli::json`, so the library needs no JSON crate).

use super::ast::*;
use super::interp::FinalState;
use super::run::{LitmusModel, TestResult};
use scopecheck_checker::dot::{self, DotStyle};
use scopecheck_checker::event::{Loc, ThreadId};
use scopecheck_checker::{Failure, FailureKind, MemoryModel};
use std::fmt::Write as _;

/// A proposition written back in herd's syntax.
pub fn prop_text(p: &Prop) -> String {
    fn go(p: &Prop, out: &mut String, parent: u8) {
        // Precedence: \/ = 1, /\ = 2, ~ and atoms = 3.
        let (me, paren) = match p {
            Prop::Or(..) => (1, parent > 1),
            Prop::And(..) => (2, parent > 2),
            _ => (3, false),
        };
        if paren {
            out.push('(');
        }
        match p {
            Prop::True => out.push_str("true"),
            Prop::False => out.push_str("false"),
            Prop::Eq(v, x) => {
                let _ = write!(out, "{v}={x}");
            }
            Prop::Ne(v, x) => {
                let _ = write!(out, "{v}!={x}");
            }
            Prop::Same(a, b) => {
                let _ = write!(out, "{a}={b}");
            }
            Prop::Not(a) => {
                out.push('~');
                go(a, out, 3);
            }
            Prop::And(all) | Prop::Or(all) => {
                let sep = if me == 1 { " \\/ " } else { " /\\ " };
                for (i, a) in all.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    // An operand of the same operator is parenthesised:
                    // it was written so (the parser flattens the rest).
                    go(a, out, me + 1);
                }
            }
        }
        if paren {
            out.push(')');
        }
    }
    let mut s = String::new();
    go(p, &mut s, 0);
    s
}

/// A condition in herd's syntax: `exists (0:r0=1 /\ 1:r0=0)`.
pub fn condition_text(c: &Condition) -> String {
    let q = match c.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{q} ({})", prop_text(&c.prop))
}

/// A final state as herd prints it: `0:r0=0; 1:r0=1; x=2;`.
pub fn state_text(s: &FinalState) -> String {
    let mut out = String::new();
    for (k, (v, x)) in s.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{v}={x};");
    }
    out
}

/// herd's `Sometimes` / `Always` / `Never` for the proposition; `None`
/// when no final state was judged (see [`TestResult::no_answer`]): zero
/// states observe nothing, not `Never`.
pub fn observation(r: &TestResult) -> Option<&'static str> {
    // Zero final states observe nothing (every execution failed, was cut
    // or was discarded): `Never 0 0` would read as an answer.
    Some(if r.no_answer.is_some() || r.positive + r.negative == 0 {
        return None;
    } else if r.positive == 0 {
        "Never"
    } else if r.negative == 0 {
        "Always"
    } else {
        "Sometimes"
    })
}

/// For one shard of a run: what its answer covers.
pub fn shard_text(r: &TestResult) -> Option<String> {
    let (i, n) = r.shard?;
    Some(format!(
        "Shard {i}/{n}: states, counts, observation and races cover this shard's executions only; the \
         condition is answered only where this shard proves it, `??` otherwise (the executions that \
         settle it may be in another shard: add the Positive and Negative counts of all {n} shards)"
    ))
}

/// The result in herd's format, followed by what herd does not print
/// (executions, races, notes, failures).
pub fn herd_text(r: &TestResult) -> String {
    let mut o = String::new();
    let kind = match r.condition.as_ref().filter(|c| !c.filter_only).map(|c| c.quantifier) {
        Some(Quantifier::Exists) => " Allowed",
        Some(Quantifier::NotExists) => " Forbidden",
        Some(Quantifier::Forall) => " Required",
        None => "",
    };
    let _ = writeln!(o, "Test {}{kind}", r.name);
    let _ = writeln!(o, "States {}", r.states.len());
    for s in r.states.keys() {
        let _ = writeln!(o, "{}", state_text(s));
    }
    // herd's rc11.cat says `undefined_unless empty dr`: a racy consistent
    // execution makes the program's behaviour undefined, and herd prints
    // `Undef` for the verdict and flags it (the condition's answer stays
    // in the Observation line, and in `--json`'s verdict).
    let undefined = r.model == LitmusModel::Engine(MemoryModel::Rc11) && !r.race_free();
    match r.verdict() {
        _ if undefined => o.push_str("Undef\n"),
        Some(true) => o.push_str("Ok\n"),
        Some(false) => o.push_str("No\n"),
        None => o.push_str("??\n"),
    }
    o.push_str("Witnesses\n");
    // herd counts witnesses of the condition as written: for `~exists p`
    // the executions that do not satisfy `p` are the positive ones (the
    // Observation line below counts `p` itself, as herd's does).
    let (pos, neg) = match r.condition.as_ref().map(|c| c.quantifier) {
        Some(Quantifier::NotExists) => (r.negative, r.positive),
        _ => (r.positive, r.negative),
    };
    let _ = writeln!(o, "Positive: {pos} Negative: {neg}");
    if undefined {
        o.push_str("Flag *undef*\n");
    }
    if let Some(c) = r.condition.as_ref().filter(|c| !c.filter_only) {
        let _ = writeln!(o, "Condition {}", condition_text(c));
    }
    let _ = writeln!(
        o,
        "Observation {} {} {} {}",
        r.name,
        observation(r).unwrap_or("??"),
        r.positive,
        r.negative
    );
    let _ = writeln!(o, "Time {} {:.2}", r.name, r.elapsed.as_secs_f64());
    let _ = writeln!(
        o,
        "Model {} Executions {} Blocked {}{}",
        r.model,
        r.executions,
        r.blocked,
        if r.complete { "" } else { " (incomplete)" }
    );
    if let Some(why) = &r.incomplete_reason {
        let _ = writeln!(o, "Incomplete: {why}");
    }
    if let Some(line) = shard_text(r) {
        let _ = writeln!(o, "{line}");
    }
    if let Some(what) = &r.sampled {
        let _ = writeln!(
            o,
            "Sampled: {what}: states, counts and observation cover the sampled executions only; the condition is \
             answered only where a sampled execution proves it, `??` otherwise"
        );
    }
    if let Some(why) = &r.no_answer {
        let _ = writeln!(o, "No answer: {why}");
    }
    if r.races.is_empty() && r.partial().is_some() {
        // What was not explored may race: the absence is not proven.
        o.push_str("Races none found in the executions explored\n");
    } else if r.races.is_empty() {
        o.push_str("Races none\n");
    } else {
        let _ = writeln!(o, "Races {} racy executions of {}", r.racy_executions, r.executions);
        for f in &r.races {
            let _ = writeln!(o, "  {}", race_text(r, f));
        }
    }
    for f in &r.failures {
        let _ = writeln!(o, "Failure {}: {}", f.kind().name(), f.message());
    }
    for n in &r.notes {
        let _ = writeln!(o, "Note {n}");
    }
    for (pos, w) in &r.warnings {
        let _ = writeln!(o, "Warning {pos}: {w}");
    }
    o
}

/// A race in the test's own names: `data race on x: store(na) x := 1 (P0,
/// file:13:2) and load(na) x = 0 (P1, file:21:9)`.
pub fn race_text(r: &TestResult, f: &Failure) -> String {
    let name_of = |l: Loc| -> String { r.loc_name(l).map_or_else(|| l.to_string(), str::to_string) };
    let loc = f.events().first().and_then(|e| f.graph().event(e.id).loc());
    let heterogeneous = f.kind() == FailureKind::HeterogeneousRace;
    let what = |e: &scopecheck_checker::failure::EventInfo| -> String {
        let ev = f.graph().event(e.id);
        let text = match ev.loc() {
            Some(l) => e.what.replace(&l.to_string(), &name_of(l)),
            None => e.what.clone(),
        };
        if heterogeneous {
            let p = f.graph().placement(e.id.thread).describe();
            format!(
                "`{text}` ({} at {p}, {} scope, {})",
                r.thread_name(e.id.thread),
                ev.scope,
                e.src
            )
        } else {
            format!("`{text}` ({}, {})", r.thread_name(e.id.thread), e.src)
        }
    };
    let parts: Vec<String> = f.events().iter().map(what).collect();
    let loc = loc.map(name_of).unwrap_or_else(|| "?".into());
    if heterogeneous {
        format!(
            "heterogeneous race (scope mismatch) on {loc}: {} are not mutually scope-inclusive and not ordered by \
             happens-before; fix: {}",
            parts.join(" and "),
            f.fix().unwrap_or("widen the scopes")
        )
    } else {
        // Under a scoped model the engine says which release was too narrow.
        let narrow = f
            .cause()
            .map(|why| {
                let fix = rename_threads(r, f.fix().unwrap_or(""));
                format!("; {}; fix: {fix}", rename_threads(r, why))
            })
            .unwrap_or_default();
        format!(
            "data race on {loc}: {} are not ordered by happens-before{narrow}",
            parts.join(" and ")
        )
    }
}

/// An engine message in the test's names: `thread N` as `PN` (engine
/// thread 0 is the one that allocates and joins) and locations by name.
fn rename_threads(r: &TestResult, text: &str) -> String {
    let mut out = text.to_string();
    for t in (1..=r.thread_names.len() as u32).rev() {
        out = out.replace(&format!("thread {t}"), &r.thread_name(t));
    }
    // Longest first, so `loc0.1` does not eat the front of `loc0.12`.
    for (k, name) in r.loc_names.iter().enumerate().rev() {
        out = out.replace(&Loc::new(0, k as u32).to_string(), name);
    }
    out
}

/// The witness of `r` as a DOT graph, with the test's names for threads
/// (`P0`, ...) and locations.
pub fn witness_dot(r: &TestResult) -> Option<String> {
    let g = r.witness.as_ref()?;
    let title = format!(
        "{} ({}): {}",
        r.name,
        r.model,
        r.witness_state.as_ref().map(state_text).unwrap_or_default()
    );
    // The interpreter's thread 0 allocates every location, in layout order.
    let loc_name = |l: Loc| -> Option<String> { r.loc_name(l).map(str::to_string) };
    let thread_name = |t: ThreadId| -> Option<String> { Some(r.thread_name(t)) };
    Some(dot::render(
        g,
        r.witness_sw.as_deref(),
        &DotStyle {
            title: &title,
            loc_name: &loc_name,
            thread_name: &thread_name,
        },
    ))
}
