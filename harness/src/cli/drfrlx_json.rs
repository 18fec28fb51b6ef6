//! `scopecheck drfrlx --json`: one JSON object per litmus test, with the
//! verdict, the illegal races with their kinds and lines, the non-SC
//! outcomes with what they are blamed on, the inferences, and what the
//! check covered. Kept beside the litmus command's JSON (`json.rs`), out of
//! the library.

use scopecheck::drfrlx::{DrfReport, Suggestion};
use scopecheck::litmus::TestError;
use serde_json::{json, Value as Json};

/// The verdict word of a report, as the text output and the summary count it.
pub fn verdict(r: &DrfReport) -> &'static str {
    if r.is_illegal() {
        "illegal"
    } else if r.is_legal() {
        "legal"
    } else if r.is_outside() && r.is_complete() {
        "outside"
    } else {
        "incomplete"
    }
}

/// One JSON object for a judged test.
pub fn report_json(file: &str, weak_model: &str, r: &DrfReport) -> Json {
    let races: Vec<Json> = r
        .races
        .iter()
        .map(|race| {
            json!({
                "kind": race.kind.name(),
                "kinds": race.kinds.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "first": { "at": race.first.0.to_string(), "class": race.first.1.to_string() },
                "second": { "at": race.second.0.to_string(), "class": race.second.1.to_string() },
                "why": race.why,
                "path": race.path,
                "executions": race.executions,
                "quantum_equivalent": race.quantum_equivalent,
            })
        })
        .collect();
    let non_sc: Vec<Json> = r
        .non_sc
        .iter()
        .map(|o| {
            let state: serde_json::Map<String, Json> = o.state.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
            json!({ "state": state, "blamed": o.blamed })
        })
        .collect();
    let inferences: Vec<Json> = r
        .inferences
        .iter()
        .map(|i| {
            let suggestion = match &i.suggestion {
                Suggestion::Class(c) => json!(c.name()),
                Suggestion::MustBePaired => json!("paired"),
                Suggestion::Nothing => Json::Null,
            };
            json!({
                "at": i.site.to_string(),
                "given": i.given.map(|c| c.name()),
                "legal": i.legal.iter().map(|c| c.name()).collect::<Vec<_>>(),
                "paired_legal": i.paired_legal,
                "suggestion": suggestion,
                "quantum_tried": i.quantum_tried,
                "together": i.together.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let failures: Vec<Json> = r
        .failures
        .iter()
        .map(|f| json!({ "kind": f.kind().name(), "message": f.message(), "token": f.token() }))
        .collect();
    let quantum_domains: Vec<Json> = r
        .quantum_domains
        .iter()
        .map(|(name, values)| json!({ "location": name, "values": values }))
        .collect();
    json!({
        "file": file,
        "verdict": verdict(r),
        "weak_model": weak_model,
        "complete": r.is_complete(),
        "sc_executions": r.sc_executions,
        "quantum_programs": r.quantum_programs,
        "quantum_executions": r.quantum_executions,
        "weak_executions": r.weak_executions,
        "races": races,
        "failures": failures,
        "non_sc": non_sc,
        "outside": r.outside.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "quantum_domains": quantum_domains,
        "inferences": inferences,
        "suggestions_together": r.suggestions_together,
        "notes": r.notes,
        "incomplete": r.incomplete,
    })
}

/// One JSON object for a test that could not be judged.
pub fn error_json(file: &str, e: &TestError) -> Json {
    json!({
        "file": file,
        "verdict": "error",
        "error": { "kind": e.kind(), "message": e.located(file) },
    })
}
