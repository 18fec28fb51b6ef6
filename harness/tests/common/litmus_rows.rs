//! Litmus corpora with an `expected.tsv`, checked the way
//! `scopecheck litmus --expect` checks them: through the product's own
//! reader and comparison (`litmus::expect`), not a copy of them.

use scopecheck::litmus::expect::{self, Verdict};
use scopecheck::litmus::{check_file, check_source, liveness, LitmusModel, Options, TestResult};
use std::path::{Path, PathBuf};

/// The folder `corpus/NAME` of the repository.
pub fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(name)
}

/// The shared GPU corpus (`../shared/litmus/gpu`), when this checkout has
/// it beside it (a clean clone on another machine may not).
pub fn shared_gpu_corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus/gpu");
    dir.join("expected.tsv").is_file().then_some(dir)
}

/// Options that run `model` (a name `--model` accepts) and nothing else.
pub fn model_options(model: &str) -> Options {
    Options {
        model: Some(
            model
                .parse::<LitmusModel>()
                .unwrap_or_else(|e| panic!("model {model}: {e:?}")),
        ),
        ..Options::default()
    }
}

/// The result of litmus source `src` (named `name` in errors) under `model`.
pub fn run_source(name: &str, src: &str, model: &str) -> TestResult {
    check_source(name, src, &model_options(model)).unwrap_or_else(|e| panic!("{name}: {}", e.located(name)))
}

/// The result of the file `file` of folder `dir` under `model`.
pub fn run_file(dir: &Path, file: &str, model: &str) -> TestResult {
    let src = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    run_source(file, &src, model)
}

/// The final states, each as `var=value` joined by spaces, sorted.
pub fn states(r: &TestResult) -> Vec<String> {
    r.states
        .keys()
        .map(|s| s.iter().map(|(v, x)| format!("{v}={x}")).collect::<Vec<_>>().join(" "))
        .collect()
}

/// Checks every row of `dir/expected.tsv` under its model (and its
/// progress models) as `--expect` does, and asserts that each agrees:
/// a run that is partial and proves less than its row records fails as
/// surely as a disagreement. Returns how many answers the rows record (a
/// condition, a race verdict, a final-state set, a liveness verdict each
/// count one), so a test can pin that nothing was skipped.
pub fn every_row_agrees(dir: &Path) -> usize {
    let rows = expect::load(&dir.join("expected.tsv")).unwrap_or_else(|e| panic!("{e}"));
    let mut answers = 0;
    for row in &rows {
        let opts = Options {
            model: Some(row.model),
            ..Options::default()
        };
        let outcome = check_file(&row.path, &opts);
        let model = match row.model {
            LitmusModel::Gpu(m) => Some(m),
            _ => None,
        };
        let found: Vec<_> = match row.liveness.is_empty() {
            true => Vec::new(),
            false => liveness::check_path_under(&row.path, model, &expect::progress_of(row))
                .into_iter()
                .map(|(p, r)| (p, r.map(|l| l.live)))
                .collect(),
        };
        let verdict = expect::compare_all(row, &outcome, &found);
        assert_eq!(
            verdict,
            Verdict::Agrees,
            "{} under {} (line {})",
            row.path_text,
            row.model,
            row.line
        );
        answers += row.holds.is_some() as usize
            + row.race_free.is_some() as usize
            + row.states.is_some() as usize
            + row.liveness.len();
    }
    answers
}

/// Everything a run reports about its executions: completeness and why
/// not, failures, verdict, counts and the final states with theirs. Two
/// ways of enumerating one test must give the same summary.
pub fn summary(r: &TestResult) -> String {
    format!(
        "complete {} {:?} failures {} verdict {:?} executions {} positive {} negative {} states {:?}",
        r.complete,
        r.incomplete_reason,
        r.failures.len(),
        r.verdict(),
        r.executions,
        r.positive,
        r.negative,
        r.states
    )
}

/// Held while a run sets one of the litmus front end's global switches
/// (`ALL_AT_ONCE`, `JUDGE_WHOLE`), so that tests of one binary, which run
/// in parallel, do not see each other's setting.
static SWITCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `run()` with `switch` set when `on` (and cleared after), holding
/// [`SWITCH`] meanwhile.
pub fn with_switch<T>(switch: &std::sync::atomic::AtomicBool, on: bool, run: impl FnOnce() -> T) -> T {
    use std::sync::atomic::Ordering;
    let _held = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    switch.store(on, Ordering::Relaxed);
    let r = run();
    switch.store(false, Ordering::Relaxed);
    r
}
