//! Litmus corpora with an `expected.tsv`, checked the way
//! `scopecheck litmus --expect` checks them: through the product's own
//! reader and comparison (`litmus::expect`), not a copy of them.

use scopecheck::litmus::expect::{self, Verdict};
use scopecheck::litmus::{check_file, check_source, liveness, CrossChecks, LitmusModel, Options, TestResult};
use std::path::{Path, PathBuf};

/// The folder `corpus/NAME` of the repository.
pub fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(name)
}

/// The shared GPU corpus: `SCOPECHECK_GPU_CORPUS` when set, else
/// `../shared/litmus/gpu` beside the checkout; `None`, said on stderr, when
/// it is not there (a clean clone on another machine: it is not vendored).
pub fn shared_gpu_corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("SCOPECHECK_GPU_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus/gpu"),
    };
    if dir.join("expected.tsv").is_file() {
        return Some(dir);
    }
    eprintln!(
        "skipped: the public GPU corpus is not at {} (it is not vendored: its README gives no permission to copy \
         it into the repository); set SCOPECHECK_GPU_CORPUS to run this test",
        dir.display()
    );
    None
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

/// [`model_options`] with the checker's cross-checks `checks`.
pub fn cross_checked(model: &str, checks: CrossChecks) -> Options {
    Options {
        cross_checks: checks,
        ..model_options(model)
    }
}

/// The result of litmus source `src` (named `name` in errors) under `model`.
pub fn run_source(name: &str, src: &str, model: &str) -> TestResult {
    run_source_with(name, src, &model_options(model))
}

/// The result of litmus source `src` (named `name` in errors) with `opts`.
pub fn run_source_with(name: &str, src: &str, opts: &Options) -> TestResult {
    check_source(name, src, opts).unwrap_or_else(|e| panic!("{name}: {}\n{src}", e.located(name)))
}

/// The result of the litmus file at `path` with `opts`, read by the
/// command's own reader (`check_file`).
pub fn run_path(path: &Path, opts: &Options) -> TestResult {
    check_file(path, opts).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.located(&path.display().to_string())))
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
/// not, failures, verdict, counts (racy and po ∪ rf-cyclic ones too) and
/// the final states with theirs. Two ways of enumerating one test must
/// give the same summary.
pub fn summary(r: &TestResult) -> String {
    format!(
        "complete {} {:?} failures {} verdict {:?} executions {} positive {} negative {} racy {} porf-cyclic {} \
         states {:?}",
        r.complete,
        r.incomplete_reason,
        r.failures.len(),
        r.verdict(),
        r.executions,
        r.positive,
        r.negative,
        r.racy_executions,
        r.porf_cyclic,
        r.states
    )
}

/// Asserts that `r` is complete, without failure, with exactly these
/// counts and verdict.
#[track_caller]
pub fn exact(r: &TestResult, executions: u64, positive: u64, verdict: bool) {
    assert!(r.complete, "{} {}: {:?}", r.name, r.model, r.incomplete_reason);
    assert_eq!(r.incomplete_reason, None, "{}", r.name);
    assert!(r.failures.is_empty(), "{}: {:?}", r.name, r.failures);
    assert_eq!(
        (r.executions, r.positive, r.negative),
        (executions, positive, executions - positive),
        "{} {}",
        r.name,
        r.model
    );
    assert_eq!(r.verdict(), Some(verdict), "{} {}", r.name, r.model);
}
