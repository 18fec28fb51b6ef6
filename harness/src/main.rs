//! The `scopecheck` command.
//!
//! `scopecheck litmus FILE|DIR...` checks litmus tests on the same engine as
//! Rust programs and prints herd-style results (see `--help`).

mod cli;

use clap::{Parser, Subcommand};
use cli::json::{error_json, result_json};
use cli::out::{eprint_line, Out};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use scopecheck::drfrlx::{Check, Infer};
use scopecheck::litmus::expect::{self, Expectation, Verdict};
use scopecheck::litmus::liveness::ProgressModel;
use scopecheck::litmus::output::{herd_text, witness_dot};
use scopecheck::litmus::{check_drfrlx_file, check_file, CrossChecks, LitmusModel, Options, TestError, TestResult};
use scopecheck::{MemoryModel, Strategy};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "scopecheck",
    version,
    about = "A stateless model checker for scoped and DRFrlx-classified atomics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check litmus tests (herd's and Dat3M's C and OpenCL dialects, Dat3M's PTX and Vulkan dialects).
    Litmus(LitmusArgs),
    /// Judge litmus tests' DRFrlx classes (`memory_order_relaxed, rlx_quantum`, ...):
    /// illegal races on SC executions, the quantum-equivalent program, results
    /// the weak model adds, and class inference.
    Drfrlx(DrfrlxArgs),
}

#[derive(clap::Args)]
struct DrfrlxArgs {
    /// Litmus files, or folders searched recursively for `*.litmus`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Which relaxed atomics class inference judges: off, unclassified, all.
    #[arg(long, default_value = "unclassified", value_parser = parse_infer)]
    infer: Infer,
    /// The weak model whose extra results are reported (rc11, cpp20, ...).
    #[arg(long, default_value = "rc11", value_parser = parse_model)]
    weak_model: MemoryModel,
    /// Extra values every quantum location's domain holds (comma-separated).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    quantum_values: Vec<i64>,
    /// One JSON object per test on standard output instead of the text
    /// report (verdict, races, non-SC outcomes, inferences, coverage).
    #[arg(long)]
    json: bool,
    /// Leave the type's smallest and largest values out of the quantum
    /// domains (the report lists the values tried either way).
    #[arg(long)]
    no_quantum_boundaries: bool,
    /// Iterations a `while` loop may run; executions needing more are discarded.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
    /// Stop each test's check after this many executions, at least 1, over
    /// all the explorations it runs (its verdict is then incomplete, never legal).
    #[arg(long, value_parser = cli::numbers::positive_u64, allow_hyphen_values = true)]
    max_executions: Option<u64>,
    /// Stop each test's check after this many seconds (a positive number,
    /// at most a year), even inside an execution (its verdict is then
    /// incomplete, never legal).
    #[arg(long, value_name = "SECONDS", value_parser = cli::numbers::timeout, allow_hyphen_values = true)]
    timeout: Option<Duration>,
}

fn parse_infer(s: &str) -> Result<Infer, String> {
    match s {
        "off" => Ok(Infer::Off),
        "unclassified" => Ok(Infer::Unclassified),
        "all" => Ok(Infer::All),
        _ => Err(format!("unknown inference `{s}` (expected off, unclassified or all)")),
    }
}

fn parse_model(s: &str) -> Result<MemoryModel, String> {
    match MemoryModel::from_name(&s.to_ascii_lowercase()) {
        // DRFrlx's theorem is about the RC11 family; C11 (thin air, its
        // seq_cst axiom) is a reference model for `scopecheck litmus` only.
        Some(MemoryModel::C11) => Err(format!(
            "`{s}`: C11 is a reference model for `scopecheck litmus`, not a weak model for DRFrlx (its theorem is \
             about the RC11 family); use rc11, cpp20, src11 or sc"
        )),
        Some(m) => Ok(m),
        None => Err(format!("unknown model `{s}` (expected sc, rc11, cpp20 or src11)")),
    }
}

/// `scopecheck drfrlx`: exit status 0 when every test is DRFrlx-legal, 1
/// when some test has an illegal race, a failure or a non-SC result, 2 when
/// some test could not be checked or the results could not be written (141
/// when standard output's reader went away, see `cli::out`), 3 when none
/// of those but some test's check was cut short by `--timeout` or
/// `--max-executions` (or the cap on quantum combinations): it is then not
/// known to be legal, 4 when none of those but some test uses acquire/release
/// atomics (outside DRFrlx: neither legal nor illegal).
fn drfrlx(args: DrfrlxArgs) -> ExitCode {
    let found = cli::files::collect(&args.paths);
    for n in &found.notes {
        eprint_line(format_args!("note: {n}"));
    }
    let (files, walk_errors) = (found.files, found.errors);
    let check = Check {
        infer: args.infer,
        weak_model: args.weak_model,
        quantum_values: args.quantum_values.iter().map(|&v| v as u64).collect(),
        quantum_boundaries: !args.no_quantum_boundaries,
        max_executions: args.max_executions,
        max_duration: args.timeout,
        ..Check::new()
    };
    let mut out = Out::new();
    let (mut legal, mut illegal, mut incomplete, mut outside, mut errors) = (0, 0, 0, 0, walk_errors.len());
    for e in &walk_errors {
        eprint_line(e);
    }
    for file in &files {
        if out.failed() {
            break;
        }
        let name = file.display().to_string();
        // A panic here is a bug of the checker: report it for this test and go on.
        let outcome = match std::panic::catch_unwind(|| check_drfrlx_file(file, &check, args.unroll)) {
            Ok(r) => r,
            Err(p) => Err(TestError::Internal(scopecheck_instrument::rt::panic_message(&*p))),
        };
        match outcome {
            Ok(r) => {
                // The analysis takes a condition's undeclared location as 0,
                // as `scopecheck litmus` does: say so the same way.
                let src = scopecheck::litmus::read_source(file);
                if let Ok(test) = src.as_deref().map(scopecheck::litmus::parse) {
                    for (pos, w) in test.map(|t| scopecheck::litmus::warnings_of(&t)).unwrap_or_default() {
                        eprint_line(format_args!("{name}:{pos}: warning: {w}"));
                    }
                }
                // What a cut-short check found is real; legality it cannot show.
                let word = cli::drfrlx_json::verdict(&r);
                let verdict = match word {
                    "illegal" => {
                        illegal += 1;
                        "illegal"
                    }
                    "legal" => {
                        legal += 1;
                        "legal"
                    }
                    "outside" => {
                        outside += 1;
                        "outside (acquire/release atomics: not covered by the SC guarantee)"
                    }
                    _ => {
                        incomplete += 1;
                        "incomplete (not known to be legal)"
                    }
                };
                if args.json {
                    let j = cli::drfrlx_json::report_json(&name, args.weak_model.name(), &r);
                    out.write(&format!("{j}\n"));
                } else {
                    out.write(&format!("Test {name}: DRFrlx {verdict}\n{r}\n"));
                }
            }
            Err(e) => {
                if args.json {
                    out.write(&format!("{}\n", cli::drfrlx_json::error_json(&name, &e)));
                } else {
                    out.write(&format!("Test {name}: Error {}\n\n", e.located(&name)));
                }
                eprint_line(e.located(&name));
                errors += 1;
            }
        }
    }
    let summary = format!(
        "{} test(s): {legal} legal, {illegal} illegal, {}{}{errors} error(s)",
        files.len(),
        if outside > 0 {
            format!("{outside} outside DRFrlx, ")
        } else {
            String::new()
        },
        if incomplete > 0 {
            format!("{incomplete} incomplete, ")
        } else {
            String::new()
        }
    );
    // With --json, standard output holds only the tests' objects.
    if args.json {
        eprint_line(&summary);
    } else {
        out.write(&format!("{summary}\n"));
    }
    if let Some(status) = out.finish() {
        return ExitCode::from(status);
    }
    if errors > 0 {
        ExitCode::from(2)
    } else if illegal > 0 {
        ExitCode::from(1)
    } else if incomplete > 0 {
        ExitCode::from(3)
    } else if outside > 0 {
        ExitCode::from(4)
    } else {
        ExitCode::SUCCESS
    }
}

#[derive(clap::Args)]
struct LitmusArgs {
    /// Litmus files, or folders searched recursively for `*.litmus`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Model(s) to check under: sc, rc11, cpp20, src11, c11, opencl, ptx6.0,
    /// ptx7.5, vulkan, vulkan-nochains (comma-separated or repeated). Default:
    /// with --expect, every model the file's rows name; otherwise rc11 for C
    /// tests, opencl for OpenCL tests, ptx7.5 for PTX tests, vulkan for Vulkan
    /// tests.
    #[arg(long, value_delimiter = ',')]
    model: Vec<LitmusModel>,
    /// Print one JSON object per test and model (JSON lines) instead of herd's text.
    #[arg(long)]
    json: bool,
    /// Write the first witness execution of each test as DOT into this folder,
    /// as NAME.MODEL.dot: NAME is the file's stem, or its whole path made into
    /// one name when stems meet, with -2, -3, ... added when names still meet.
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
    /// Compare with an expectation file (the format of the corpus's
    /// expected.tsv) and exit non-zero on any disagreement. Every row must name
    /// an existing file, a file and model take at most one row, and a row
    /// naming a file inside a folder given here must name one the run checks
    /// (a *.litmus file); rows for files outside the paths given are skipped,
    /// so a subset can be checked. A row breaking this stops the run (status 2).
    #[arg(long, value_name = "FILE.tsv")]
    expect: Option<PathBuf>,
    /// Iterations a `while` loop may run; executions needing more are discarded.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
    /// Also decide liveness of PTX and Vulkan tests under GPU progress
    /// model(s): fair, obe, hsa, lobe, hsa_obe (comma-separated or
    /// repeated): whether every execution the model allows ends. Without it,
    /// the models named by --expect's liveness rows.
    #[arg(long, value_delimiter = ',')]
    progress: Vec<ProgressModel>,
    /// Exploration: `exhaustive` (optimal), `reference` (every interleaving,
    /// slow), `random:SEED:N` (N random executions), `pct:SEED:N:DEPTH` (N PCT
    /// executions targeting bugs of that depth), or `shard:I/N` (part I of N of
    /// the exhaustive exploration; the N parts' counts add up to one run's).
    #[arg(long, default_value = "exhaustive", value_parser = parse_strategy)]
    strategy: Strategy,
    /// Stop each test after this many executions, at least 1 (its result is then partial).
    #[arg(long, value_parser = cli::numbers::positive_u64)]
    max_executions: Option<u64>,
    /// Stop each test after this many seconds: a positive number, at most a
    /// year (its result is then partial).
    #[arg(long, value_name = "SECONDS", value_parser = cli::numbers::timeout)]
    timeout: Option<Duration>,
    /// Tests checked at once, 1 to 1024 (default: the number of cores).
    #[arg(long, short, value_parser = cli::numbers::jobs)]
    jobs: Option<usize>,
    /// The checker's cross-checks of its own shortcuts (every-order,
    /// all-at-once, judge-whole, comma-separated): the same answers, slower.
    /// For the checker's own tests and fuzzing; hidden from --help.
    #[arg(long, hide = true, value_name = "CHECKS")]
    cross_check: Option<CrossChecks>,
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    match s {
        "exhaustive" | "optimal" => Ok(Strategy::Exhaustive),
        "reference" => Ok(Strategy::Reference),
        _ => {
            let parts: Vec<&str> = s.split(':').collect();
            match parts.as_slice() {
                ["random", seed, n] => Ok(Strategy::Random {
                    seed: seed.parse().map_err(|_| format!("bad seed `{seed}`"))?,
                    iterations: cli::numbers::positive_u64(n).map_err(|e| format!("bad execution count: {e}"))?,
                }),
                ["shard", spec] => {
                    let (i, n) = spec
                        .split_once('/')
                        .ok_or_else(|| format!("bad shard `{spec}` (expected shard:I/N)"))?;
                    let index: u32 = i.parse().map_err(|_| format!("bad shard index `{i}`"))?;
                    let count: u32 = n.parse().map_err(|_| format!("bad shard count `{n}`"))?;
                    if count == 0 || index >= count {
                        return Err(format!("shard {index}/{count} does not exist (shards are 0..N-1 of N)"));
                    }
                    Ok(Strategy::Shard { index, count })
                }
                ["pct", seed, n, d] => Ok(Strategy::Pct {
                    seed: seed.parse().map_err(|_| format!("bad seed `{seed}`"))?,
                    iterations: cli::numbers::positive_u64(n).map_err(|e| format!("bad execution count: {e}"))?,
                    depth: match d.parse() {
                        Ok(0) => return Err("PCT depth must be at least 1 (depth 1: no priority change point)".into()),
                        Ok(depth) => depth,
                        Err(_) => return Err(format!("bad depth `{d}`")),
                    },
                }),
                _ => Err(format!(
                    "unknown strategy `{s}` (expected exhaustive, reference, random:SEED:N, pct:SEED:N:DEPTH or shard:I/N)"
                )),
            }
        }
    }
}

/// One unit of work: a file under a model (`None`: the dialect's default).
struct Job {
    file: PathBuf,
    model: Option<LitmusModel>,
    /// The file's name in `--dot` output, unique in the run (`cli::dot`).
    dot_name: String,
    /// Whether this is the file's first job (its warnings are printed once).
    first_of_file: bool,
}

/// What a job produced.
struct Done {
    job: usize,
    outcome: Result<TestResult, TestError>,
    /// Liveness under the progress models asked for (`--progress`, or the row's).
    liveness: cli::liveness::Found,
}

fn run_job(job: &Job, base: &Options) -> Result<TestResult, TestError> {
    let mut opts = base.clone();
    opts.model = job.model;
    // A panic here is a bug of the checker: report it for this test and go on.
    match std::panic::catch_unwind(|| check_file(&job.file, &opts)) {
        Ok(r) => r,
        Err(p) => Err(TestError::Internal(scopecheck_instrument::rt::panic_message(&*p))),
    }
}

/// The model a job's result or error is about, for matching expectations.
fn model_of(job: &Job, outcome: &Result<TestResult, TestError>) -> Option<LitmusModel> {
    match outcome {
        Ok(r) => Some(r.model),
        Err(_) => job.model.or_else(|| {
            // Only a regular file is read again (a FIFO's content is gone,
            // and opening it again waits for a writer), bounded like
            // every read of an input.
            if !std::fs::metadata(&job.file).is_ok_and(|m| m.is_file()) {
                return None;
            }
            let src = scopecheck::litmus::read_source(&job.file).ok()?;
            let arch = scopecheck::litmus::parse(&src).ok()?.arch;
            Some(LitmusModel::default_for(arch))
        }),
    }
}

fn litmus(args: LitmusArgs) -> ExitCode {
    let found = cli::files::collect(&args.paths);
    for n in &found.notes {
        eprint_line(format_args!("note: {n}"));
    }
    let (files, walk_errors) = (found.files, found.errors);
    let mut failed = !walk_errors.is_empty();
    for e in &walk_errors {
        eprint_line(e);
    }
    let expectations: Vec<Expectation> = match &args.expect {
        Some(f) => match expect::load(f) {
            Ok(rows) => rows,
            Err(e) => {
                eprint_line(e);
                return ExitCode::from(2);
            }
        },
        None => Vec::new(),
    };
    if let Some(tsv) = &args.expect {
        // An expectation file with no row (empty, or only comments) would
        // compare nothing and pass: a typo must not turn checks off.
        if expectations.is_empty() {
            eprint_line(format_args!(
                "{}: no expectation rows (empty, or only comments): --expect would compare nothing; nothing was run",
                tsv.display()
            ));
            return ExitCode::from(2);
        }
        let bad = cli::rows::check(&expectations, &tsv.display().to_string(), &args.paths, &files);
        if !bad.is_empty() {
            for b in &bad {
                eprint_line(b);
            }
            eprint_line(format_args!(
                "{} row(s) of {} name no file this run can check; nothing was run",
                bad.len(),
                tsv.display()
            ));
            return ExitCode::from(2);
        }
    }
    if let Some(d) = &args.dot {
        if let Err(e) = std::fs::create_dir_all(d) {
            eprint_line(format_args!("{}: cannot create folder: {e}", d.display()));
            return ExitCode::from(2);
        }
    }
    // Each model once (`--model sc,sc` would write one --dot file twice).
    let mut models: Vec<LitmusModel> = Vec::new();
    for m in &args.model {
        if !models.contains(m) {
            models.push(*m);
        }
    }
    // Each file runs under the models asked for; without `--model`, under
    // every model its expectation rows name (so `--expect` alone checks every
    // row), or else the model its dialect implies.
    let models_for = |f: &Path| -> Vec<Option<LitmusModel>> {
        if !models.is_empty() {
            return models.iter().copied().map(Some).collect();
        }
        let named: Vec<Option<LitmusModel>> = expect::models_of(&expectations, f).into_iter().map(Some).collect();
        if named.is_empty() {
            vec![None]
        } else {
            named
        }
    };
    let dot_names = cli::dot::names(&files);
    let jobs: Vec<Job> = files
        .iter()
        .zip(&dot_names)
        .flat_map(|(f, name)| {
            models_for(f).into_iter().enumerate().map(move |(k, m)| Job {
                file: f.clone(),
                model: m,
                dot_name: name.clone(),
                first_of_file: k == 0,
            })
        })
        .collect();
    let opts = Options {
        model: None,
        unroll: args.unroll,
        strategy: args.strategy.clone(),
        max_executions: args.max_executions,
        max_duration: args.timeout,
        witness: args.dot.is_some(),
        porf_cycles: true,
        explorer_cycles: false,
        cross_checks: args.cross_check.unwrap_or_default(),
    };
    let workers = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let bar = ProgressBar::with_draw_target(
        Some(jobs.len() as u64),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} tests {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    // Set when results can no longer be written: no new test starts.
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Done>();
    let mut stats = Summary::default();
    let mut out = Out::new();
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, jobs, opts, stop) = (&next, &jobs, &opts, &stop);
            let (given, rows) = (&args.progress, &expectations);
            // Deep recursion in the parser and the model threads' stacks live
            // elsewhere; the default worker stack is enough for the explorer.
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= jobs.len() || stop.load(Ordering::Relaxed) {
                    break;
                }
                let outcome = run_job(&jobs[k], opts);
                let model = model_of(&jobs[k], &outcome);
                let row = model.and_then(|m| expect::find(rows, &jobs[k].file, m));
                let progress = cli::liveness::wanted(given, row);
                let liveness = match std::panic::catch_unwind(|| cli::liveness::run(&jobs[k].file, model, &progress)) {
                    Ok(found) => found,
                    Err(p) => {
                        let m = scopecheck_instrument::rt::panic_message(&*p);
                        let m = format!("scopecheck internal error (a bug in the checker): {m}");
                        progress.iter().map(|&q| (q, Err(m.clone()))).collect()
                    }
                };
                if tx
                    .send(Done {
                        job: k,
                        outcome,
                        liveness,
                    })
                    .is_err()
                {
                    break;
                }
            });
        }
        drop(tx);
        // Print in input order as results arrive.
        type Pending = (Result<TestResult, TestError>, cli::liveness::Found);
        let mut pending: Vec<Option<Pending>> = (0..jobs.len()).map(|_| None).collect();
        let mut printed = 0;
        for done in rx {
            bar.inc(1);
            bar.set_message(jobs[done.job].file.display().to_string());
            pending[done.job] = Some((done.outcome, done.liveness));
            while printed < jobs.len() {
                let Some((outcome, liveness)) = pending[printed].take() else {
                    break;
                };
                let job = &jobs[printed];
                bar.suspend(|| report(job, &outcome, &liveness, &args, &expectations, &mut stats, &mut out));
                printed += 1;
            }
            if out.failed() {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    });
    bar.finish_and_clear();
    if let Some(status) = out.finish() {
        return ExitCode::from(status);
    }
    failed |= stats.errors > 0 || stats.disagreements > 0;
    // Rows that match no test of this run (another --model, paths outside
    // every row) compare nothing: the run checked nothing it was asked to.
    let compared = stats.agreements + stats.unrecorded + stats.disagreements + stats.known + stats.not_compared;
    let matched_none = args.expect.is_some() && compared == 0 && !jobs.is_empty();
    eprint_line(format_args!(
        "{} test runs: {} checked, {} errors, {}{} disagreements{}",
        jobs.len(),
        stats.checked,
        stats.errors,
        if args.expect.is_some() {
            format!(
                "{} agreements, {} without a recorded answer, {}",
                stats.agreements,
                stats.unrecorded,
                if stats.not_compared > 0 {
                    format!("{} not compared (partial runs), ", stats.not_compared)
                } else {
                    String::new()
                }
            )
        } else {
            String::new()
        },
        stats.disagreements,
        if stats.known > 0 {
            format!(
                ", {} known disagreements (accepted in the expectation file)",
                stats.known
            )
        } else {
            String::new()
        }
    ));
    if matched_none {
        let tsv = args
            .expect
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        eprint_line(format_args!(
            "error: no row of {tsv} matched any test of this run (each row names a file and a model; check \
             --model and the paths): nothing was compared"
        ));
        return ExitCode::from(2);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[derive(Default)]
struct Summary {
    checked: usize,
    errors: usize,
    agreements: usize,
    unrecorded: usize,
    disagreements: usize,
    known: usize,
    /// Runs with a row that could not answer (cut short, sampled, a shard).
    not_compared: usize,
}

/// Prints one job's outcome and its comparison with the expectations.
fn report(
    job: &Job,
    outcome: &Result<TestResult, TestError>,
    liveness: &cli::liveness::Found,
    args: &LitmusArgs,
    rows: &[Expectation],
    stats: &mut Summary,
    out: &mut Out,
) {
    let file = job.file.display().to_string();
    let model = model_of(job, outcome);
    let row = model.and_then(|m| expect::find(rows, &job.file, m));
    let verdicts = cli::liveness::verdicts(liveness);
    let comparison = row.map(|r| (r, expect::compare_all(r, outcome, &verdicts)));
    let mut known_reason = None;
    match &comparison {
        None => {}
        Some((_, Verdict::Agrees)) => stats.agreements += 1,
        Some((_, Verdict::Unrecorded)) => stats.unrecorded += 1,
        Some((_, Verdict::NotCompared(_))) => stats.not_compared += 1,
        Some((r, Verdict::Disagrees(_))) => match r.known() {
            Some(why) => {
                stats.known += 1;
                known_reason = Some(why.to_string());
            }
            None => stats.disagreements += 1,
        },
    }
    match outcome {
        // A test whose program failed (a division by zero, a thread that
        // never ends) has no answer: that is an error of the run.
        Ok(r) if !r.failures.is_empty() && known_reason.is_none() => {
            stats.checked += 1;
            stats.errors += 1;
        }
        Ok(_) => stats.checked += 1,
        // An error the expectation file accepts is counted there, not here.
        Err(_) if known_reason.is_some() => {}
        Err(_) => stats.errors += 1,
    }
    // A liveness check that could not answer is an error of the run.
    for (_, r) in liveness {
        if let Err(e) = r {
            eprint_line(e);
            stats.errors += 1;
        }
    }
    let expect_file = args
        .expect
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let expect_text = comparison.as_ref().map(|(r, v)| match v {
        Verdict::Agrees => {
            // A partial run agrees only where what it found proves the row.
            let partial = outcome.as_ref().ok().and_then(TestResult::partial);
            let how = partial.map_or(String::new(), |why| {
                format!(": this run is {why}, and the executions it found prove every answer the row records")
            });
            format!("agrees with row {} ({}:{}){how}", r.path_text, expect_file, r.line)
        }
        Verdict::Unrecorded => format!("no answer recorded in row {} ({}:{})", r.path_text, expect_file, r.line),
        Verdict::NotCompared(why) => format!(
            "not compared with row {} ({}:{}): this run is {why}, and what it found contradicts nothing",
            r.path_text, expect_file, r.line
        ),
        Verdict::Disagrees(d) => format!(
            "{} with row {} ({}:{}): {}",
            if r.known().is_some() {
                "known disagreement"
            } else {
                "DISAGREES"
            },
            r.path_text,
            expect_file,
            r.line,
            d.join("; ")
        ),
    });
    if let (Some(dir), Ok(r)) = (&args.dot, outcome) {
        if let Some(text) = witness_dot(r) {
            let path = dir.join(format!("{}.{}.dot", job.dot_name, r.model));
            if let Err(e) = std::fs::write(&path, text) {
                eprint_line(format_args!("{}: cannot write: {e}", path.display()));
                stats.errors += 1;
            }
        }
    }
    if let (Ok(r), true) = (outcome, job.first_of_file) {
        for (pos, w) in &r.warnings {
            eprint_line(format_args!("{file}:{pos}: warning: {w}"));
        }
    }
    if args.json {
        let mut obj = match outcome {
            Ok(r) => result_json(&file, r),
            Err(e) => error_json(&file, model.map(|m| m.name()), e),
        };
        if let Some(map) = obj.as_object_mut() {
            cli::liveness::add_json(map, liveness, &file);
            if let Some(t) = &expect_text {
                map.insert("expect".into(), serde_json::Value::String(t.clone()));
            }
        }
        out.write(&format!("{obj}\n"));
    } else {
        match outcome {
            Ok(r) => {
                out.write(&herd_text(r));
                out.write(&cli::liveness::text(liveness, &file));
            }
            Err(e) => {
                out.write(&format!("Error {}\n", e.located(&file)));
                if known_reason.is_none() {
                    eprint_line(e.located(&file));
                }
            }
        }
        if let Some(t) = &expect_text {
            out.write(&format!("Expect {t}\n"));
        }
        out.write("\n");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Litmus(args) => litmus(args),
        Command::Drfrlx(args) => drfrlx(args),
    }
}
