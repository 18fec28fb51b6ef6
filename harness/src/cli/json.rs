//! The command's `--json` lines: one JSON object per litmus test. Kept out
//! of the library so that depending on `scopecheck` does not compile
//! `serde_json` (issue 21 item 7); built from the library's text helpers.

use scopecheck::litmus::ast::Value;
use scopecheck::litmus::output::{condition_text, observation, race_text};
use scopecheck::litmus::{holds, LitmusModel, TestError, TestResult};
use serde_json::{json, Value as Json};

fn json_value(v: &Value) -> Json {
    match v {
        Value::Int(i) => json!(i),
        Value::Addr { .. } => json!(v.to_string()),
    }
}

/// One JSON object for a checked test.
pub fn result_json(file: &str, r: &TestResult) -> Json {
    let states: Vec<Json> = r
        .states
        .iter()
        .map(|(s, n)| {
            let vars: serde_json::Map<String, Json> = s.iter().map(|(k, v)| (k.to_string(), json_value(v))).collect();
            let sat = r.condition.as_ref().is_none_or(|c| holds(&c.prop, s));
            json!({ "state": vars, "executions": n, "satisfies": sat })
        })
        .collect();
    let races: Vec<Json> = r
        .races
        .iter()
        .map(|f| {
            json!({
                "message": race_text(r, f),
                "events": f.events().iter().map(|e| json!({
                    "thread": r.thread_name(e.id.thread),
                    "what": e.what,
                    "at": e.src.to_string(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let failures: Vec<Json> = r
        .failures
        .iter()
        .map(|f| json!({ "kind": f.kind().name(), "message": f.message(), "token": f.token() }))
        .collect();
    json!({
        "file": file,
        "name": r.name,
        "model": r.model.name(),
        "condition": r.condition.as_ref().filter(|c| !c.filter_only).map(condition_text),
        "states": states,
        "verdict": r.verdict().map(|v| if v { "Ok" } else { "No" }),
        "observation": observation(r),
        "positive": r.positive,
        "negative": r.negative,
        "executions": r.executions,
        "blocked": r.blocked,
        "races": races,
        "racy_executions": r.racy_executions,
        // A partial run proves a race it saw, never the absence of one
        // (under a model that defines races: PTX's define none).
        "race_free": (!r.race_free() || r.partial().is_none() || !defines_races(r.model)).then(|| r.race_free()),
        "failures": failures,
        "complete": r.complete,
        "incomplete_reason": r.incomplete_reason,
        "shard": r.shard.map(|(i, n)| format!("{i}/{n}")),
        "sampled": r.sampled,
        "no_answer": r.no_answer,
        "time": r.elapsed.as_secs_f64(),
        "notes": r.notes,
        "warnings": r.warnings.iter().map(|(pos, w)| format!("{file}:{pos}: {w}")).collect::<Vec<_>>(),
    })
}

/// One JSON object for a test that produced no result.
pub fn error_json(file: &str, model: Option<&str>, e: &TestError) -> Json {
    json!({
        "file": file,
        "model": model,
        "error": { "kind": e.kind(), "message": e.located(file) },
    })
}

/// Whether `model` defines data races (PTX's cat files define none: every
/// PTX execution is race free, whatever part of them a run saw).
fn defines_races(model: LitmusModel) -> bool {
    match model {
        LitmusModel::Gpu(m) => m.has_races(),
        _ => true,
    }
}
