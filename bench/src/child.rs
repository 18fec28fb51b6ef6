//! The child-process protocol: each (program, tool) pair runs in a child
//! (this executable with `--child`) that prints its row as one tagged line.

use crate::cli::Options;
use crate::programs::Program;
use crate::row::Problem;
use crate::row::Row;
use crate::tools::Tool;
use std::io::Read;
use std::process::Command as Process;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

pub(crate) const ROW_TAG: &str = "SCOPECHECK_BENCH_ROW";

/// The line a child prints for its parent.
pub(crate) fn encode_row(row: &Row) -> String {
    let problem = match &row.problem {
        None => "ok".to_string(),
        Some(Problem::NotRun(s)) => format!("notrun {s}"),
        Some(Problem::Failed(s)) => format!("failed {s}"),
        Some(Problem::TimedOut(d)) => format!("timeout {}", d.as_secs()),
    };
    format!(
        "{ROW_TAG}\t{}\t{}\t{}\t{}\t{}\t{}",
        row.executions,
        row.closure_runs,
        row.forbidden,
        row.wall.as_nanos(),
        row.vm_hwm_kb.map(|k| k.to_string()).unwrap_or_else(|| "-".to_string()),
        problem.replace(['\t', '\n'], " ")
    )
}

pub(crate) fn decode_row(program: Program, tool: Tool, line: &str) -> Option<Row> {
    let mut f = line.strip_prefix(ROW_TAG)?.strip_prefix('\t')?.splitn(6, '\t');
    let executions = f.next()?.parse().ok()?;
    let closure_runs = f.next()?.parse().ok()?;
    let forbidden = f.next()?.parse().ok()?;
    let wall = Duration::from_nanos(f.next()?.parse().ok()?);
    let vm_hwm_kb = f.next()?.parse().ok();
    let p = f.next()?;
    let problem = match p.split_once(' ') {
        _ if p == "ok" => None,
        Some(("notrun", s)) => Some(Problem::NotRun(s.to_string())),
        Some(("timeout", s)) => Some(Problem::TimedOut(Duration::from_secs(s.parse().ok()?))),
        Some((_, s)) => Some(Problem::Failed(s.to_string())),
        None => Some(Problem::Failed(p.to_string())),
    };
    Some(Row {
        program,
        tool,
        executions,
        closure_runs,
        forbidden,
        wall,
        vm_hwm_kb,
        problem,
    })
}

pub(crate) fn drain<R: Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    })
}

/// Runs `program` under `tool` in a child process (this executable with
/// `--child`), stopping it after `opts.timeout`.
pub fn run_in_child(program: Program, tool: Tool, opts: &Options) -> Row {
    let failed = |why: String, wall: Duration| Row {
        program,
        tool,
        executions: 0,
        closure_runs: 0,
        forbidden: 0,
        wall,
        vm_hwm_kb: None,
        problem: Some(Problem::Failed(why)),
    };
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return failed(format!("cannot find this executable: {e}"), Duration::ZERO),
    };
    let model = opts.memory_model.name();
    let start = Instant::now();
    let spawned = Process::new(exe)
        .arg("--child")
        .arg(program.name())
        .arg(tool.name())
        .args(["--iterations", &opts.iterations.to_string()])
        .args(["--seed", &opts.seed.to_string()])
        .args(["--model", model])
        .args(
            opts.max_executions
                .map(|n| vec!["--max-executions".to_string(), n.to_string()])
                .unwrap_or_default(),
        )
        // Shuttle prints a warning about Relaxed orderings on each run; the
        // notes under the table say it once.
        .env("SHUTTLE_SILENCE_WARNINGS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start a child process: {e}"), Duration::ZERO),
    };
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= opts.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return failed(format!("waiting for the child: {e}"), start.elapsed()),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let Some(status) = status else {
        let mut row = failed(String::new(), start.elapsed());
        row.problem = Some(Problem::TimedOut(opts.timeout));
        return row;
    };
    match stdout.lines().find_map(|l| decode_row(program, tool, l)) {
        Some(row) => row,
        None => {
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
            failed(format!("child exited with {status}: {last}"), start.elapsed())
        }
    }
}
