//! The table: formatting rows, ratios against the peers, notes, the whole
//! run and the checks that give the exit status its meaning.

use crate::child::run_in_child;
use crate::cli::Options;
use crate::row::Problem;
use crate::row::Row;
use crate::tools::Tool;
use std::fmt::Write as _;
use std::time::Duration;

pub(crate) fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

pub(crate) fn fmt_rate(r: f64) -> String {
    if !r.is_finite() {
        "-".to_string()
    } else if r >= 1e6 {
        format!("{:.2}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// The ratio of the matching scopecheck run's wall time to this row's.
pub fn ratio(rows: &[Row], row: &Row) -> Option<f64> {
    let base = row.tool.baseline()?;
    if !row.measured() {
        return None;
    }
    let sc = rows
        .iter()
        .find(|r| r.program == row.program && r.tool == base && r.measured())?;
    let peer = row.wall.as_secs_f64();
    (peer > 0.0).then(|| sc.wall.as_secs_f64() / peer)
}

/// One line of the table for `row`.
pub fn format_row(rows: &[Row], row: &Row) -> String {
    let ratio = match ratio(rows, row) {
        Some(r) if r < 0.01 => format!("{r:.1e}"),
        Some(r) => format!("{r:.3}"),
        None => "-".to_string(),
    };
    let hwm = row
        .vm_hwm_kb
        .map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
        .unwrap_or_else(|| "-".to_string());
    let (execs, closure, time, rate) = match &row.problem {
        Some(Problem::NotRun(_)) | Some(Problem::TimedOut(_)) => {
            ("-".to_string(), "-".to_string(), "-".to_string(), "-".to_string())
        }
        _ => (
            row.executions.to_string(),
            row.closure_runs.to_string(),
            fmt_duration(row.wall),
            fmt_rate(row.rate()),
        ),
    };
    let mut line = format!(
        "{:<13} {:<19} {:>10} {:>10} {:>10} {:>9} {:>8} {:>9}",
        row.program.name(),
        row.tool.name(),
        execs,
        closure,
        time,
        rate,
        ratio,
        hwm
    );
    if let Some(p) = &row.problem {
        let _ = write!(line, "  {p}");
    }
    if row.forbidden > 0 {
        let _ = write!(
            line,
            "  {} run(s) ended in an outcome the program forbids",
            row.forbidden
        );
    }
    line
}

/// The table's header line.
pub fn header() -> String {
    format!(
        "{:<13} {:<19} {:>10} {:>10} {:>10} {:>9} {:>8} {:>9}",
        "program", "tool", "executions", "closure", "wall", "exec/s", "sc/peer", "VmHWM"
    )
}

/// Notes printed under the table.
pub fn notes(opts: &Options) -> String {
    let model = opts.memory_model.name();
    let n = opts.iterations;
    let mut s = String::new();
    let _ = writeln!(s, "How each column is counted:");
    let _ = writeln!(
        s,
        "  executions  scopecheck: Report::executions(), the complete, distinct consistent executions"
    );
    let _ = writeln!(s, "              under {model} (the exact optimal count);");
    let _ = writeln!(
        s,
        "              scopecheck-random: Report::runs(), executions run ({n} asked, seed {});",
        opts.seed
    );
    let _ = writeln!(
        s,
        "              loom: invocations of the model closure by loom::model::Builder::new().check"
    );
    let _ = writeln!(s, "              (default settings: no preemption bound);");
    let _ = writeln!(
        s,
        "              shuttle: the iteration count given to shuttle::check_random ({n})"
    );
    let _ = writeln!(
        s,
        "  closure     invocations of the program closure, counted the same way for every tool"
    );
    let _ = writeln!(s, "  exec/s      executions / wall");
    let _ = writeln!(
        s,
        "  sc/peer     scopecheck's wall time / the peer's (exhaustive vs loom, random vs shuttle);"
    );
    let _ = writeln!(s, "              below 1 means scopecheck was faster");
    let _ = writeln!(
        s,
        "  VmHWM       peak RSS of the child process that ran this one row, read from /proc/self/status"
    );
    let _ = writeln!(s, "              (a process high-water mark) right after the run");
    let _ = writeln!(
        s,
        "Each row runs in its own child process, stopped after --timeout ({} s).",
        opts.timeout.as_secs()
    );
    if opts.repeat > 1 {
        let _ = writeln!(
            s,
            "Each row is the run with the median wall time of {} (--repeat), the tools of a program",
            opts.repeat
        );
        let _ = writeln!(s, "alternated run by run; every run's time is listed above the notes.");
    }
    if let Some(n) = opts.max_executions {
        let _ = writeln!(
            s,
            "scopecheck's exhaustive and parallel runs stop after {n} executions (--max-executions): their"
        );
        let _ = writeln!(s, "counts are those explored, not the programs' whole numbers.");
    }
    let _ = writeln!(
        s,
        "Semantics differ: shuttle runs every atomic as SeqCst (no weak-memory behaviours); loom"
    );
    let _ = writeln!(
        s,
        "explores Relaxed/Acquire/Release store visibility from a bounded history and treats SeqCst"
    );
    let _ = writeln!(
        s,
        "accesses as AcqRel (its README says so: false alarms on SeqCst store buffering); scopecheck"
    );
    let _ = write!(s, "explores every execution {model} allows.");
    s
}

/// Runs the benchmark as `opts` says, each row in a child process, printing
/// each row as it is measured and the whole table at the end.
pub fn run(opts: &Options) -> Vec<Row> {
    println!(
        "scopecheck-bench: {} program(s) × {} tool(s); {} iterations for the random tools; scopecheck under {}; \
         timeout {} s per run",
        opts.programs.len(),
        opts.tools.len(),
        opts.iterations,
        opts.memory_model.name(),
        opts.timeout.as_secs()
    );
    println!("{}", header());
    let mut rows: Vec<Row> = Vec::new();
    let mut walls: Vec<String> = Vec::new();
    for &program in &opts.programs {
        let mut runs: Vec<Vec<Row>> = opts.tools.iter().map(|_| Vec::new()).collect();
        for round in 1..=opts.repeat {
            for (i, &tool) in opts.tools.iter().enumerate() {
                let row = run_in_child(program, tool, opts);
                if opts.repeat > 1 {
                    println!(
                        "  run {round}/{} of {} under {}: {}",
                        opts.repeat,
                        program.name(),
                        tool.name(),
                        fmt_duration(row.wall)
                    );
                }
                runs[i].push(row);
            }
        }
        for tool_runs in runs {
            if opts.repeat > 1 {
                let all: Vec<String> = tool_runs.iter().map(|r| fmt_duration(r.wall)).collect();
                walls.push(format!(
                    "{} {}: {}",
                    tool_runs[0].program.name(),
                    tool_runs[0].tool.name(),
                    all.join(", ")
                ));
            }
            rows.push(median_row(tool_runs));
            println!("{}", format_row(&rows, rows.last().unwrap()));
        }
    }
    println!();
    println!("=== results ===");
    println!("{}", header());
    for row in &rows {
        println!("{}", format_row(&rows, row));
    }
    if !walls.is_empty() {
        println!();
        println!("every run's wall time:");
        for w in &walls {
            println!("  {w}");
        }
    }
    println!();
    println!("{}", notes(opts));
    rows
}

/// Of several runs of one (program, tool), the one with the median wall
/// time (the later of the two middle ones for an even count).
pub fn median_row(mut runs: Vec<Row>) -> Row {
    runs.sort_by_key(|r| r.wall);
    let mid = runs.len() / 2;
    runs.swap_remove(mid)
}

/// Checks that make the benchmark's exit status mean something: scopecheck
/// must run every program without a failure, find the closed-form count where
/// one is known, and never produce an outcome the program forbids.
pub fn scopecheck_errors(rows: &[Row], opts: &Options) -> Vec<String> {
    let mut errors = Vec::new();
    for row in rows {
        if !matches!(row.tool, Tool::ScopecheckExhaustive | Tool::ScopecheckRandom) {
            continue;
        }
        let name = row.program.name();
        let tool = row.tool.name();
        if let Some(p) = &row.problem {
            errors.push(format!("{name} under {tool}: {p}"));
        }
        if row.forbidden > 0 {
            errors.push(format!("{name} under {tool}: {} forbidden outcome(s)", row.forbidden));
        }
        if row.tool == Tool::ScopecheckExhaustive
            && opts.memory_model != scopecheck::MemoryModel::Sc
            && opts.max_executions.is_none()
        {
            if let Some(n) = row.program.expected_rc11_executions() {
                if row.measured() && row.executions != n {
                    errors.push(format!(
                        "{name} under {tool}: {} executions, expected {n}",
                        row.executions
                    ));
                }
            }
        }
    }
    errors
}
