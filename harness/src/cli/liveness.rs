//! `--progress` in the `litmus` command: which progress models each test
//! is checked under, and how the liveness answers are printed (text lines
//! and the `liveness` field of `--json`).

use scopecheck::litmus::expect::{self, Expectation};
use scopecheck::litmus::liveness::{self, Liveness, ProgressModel};
use scopecheck::litmus::LitmusModel;
use serde_json::{json, Map, Value as Json};
use std::path::Path;

/// The liveness answers of one test: per progress model, the result or a located error.
pub type Found = Vec<(ProgressModel, Result<Liveness, String>)>;

/// The progress models a test is checked under: those given with
/// `--progress`, or else those its expectation row's `liveness` rows name.
pub fn wanted(given: &[ProgressModel], row: Option<&Expectation>) -> Vec<ProgressModel> {
    if !given.is_empty() {
        return given.to_vec();
    }
    row.map(expect::progress_of).unwrap_or_default()
}

/// Checks `file` under each model of `progress`, and under the job's
/// model when it is a hardware model (else the dialect's default).
pub fn run(file: &Path, model: Option<LitmusModel>, progress: &[ProgressModel]) -> Found {
    if progress.is_empty() {
        return Vec::new();
    }
    let gpu = match model {
        Some(LitmusModel::Gpu(m)) => Some(m),
        _ => None,
    };
    liveness::check_path_under(file, gpu, progress)
}

/// The answers as `--expect` compares them.
pub fn verdicts(found: &Found) -> Vec<(ProgressModel, Result<bool, String>)> {
    found
        .iter()
        .map(|(p, r)| (*p, r.as_ref().map(|l| l.live).map_err(Clone::clone)))
        .collect()
}

/// One line per progress model, for the herd-style text.
pub fn text(found: &Found, file: &str) -> String {
    found
        .iter()
        .map(|(p, r)| match r {
            Ok(l) => format!("{}\n", l.text(file)),
            Err(e) => format!("Liveness under {p}: error: {e}\n"),
        })
        .collect()
}

/// Adds `progress`, `liveness` (true when every execution ends; `null`
/// without an answer) and `liveness_witness` to a test's JSON object: plain
/// values for one progress model, objects keyed by the model's name for several.
pub fn add_json(obj: &mut Map<String, Json>, found: &Found, file: &str) {
    let one = |r: &Result<Liveness, String>| -> (Json, Json) {
        match r {
            Ok(l) => (
                json!(l.live),
                l.witness.as_ref().map_or(Json::Null, |w| json!(w.text(file))),
            ),
            Err(e) => (Json::Null, json!({ "error": e })),
        }
    };
    match found.as_slice() {
        [] => {}
        [(p, r)] => {
            let (live, witness) = one(r);
            obj.insert("progress".into(), json!(p.name()));
            obj.insert("liveness".into(), live);
            obj.insert("liveness_witness".into(), witness);
        }
        many => {
            let mut live = Map::new();
            let mut witness = Map::new();
            for (p, r) in many {
                let (l, w) = one(r);
                live.insert(p.name().into(), l);
                witness.insert(p.name().into(), w);
            }
            obj.insert(
                "progress".into(),
                json!(many.iter().map(|(p, _)| p.name()).collect::<Vec<_>>()),
            );
            obj.insert("liveness".into(), Json::Object(live));
            obj.insert("liveness_witness".into(), Json::Object(witness));
        }
    }
}
