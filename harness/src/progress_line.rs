//! Progress of a long `model()` / `Builder::explore` run on stderr
//! (issue 21 item 6): executions so far, the rate, and the depth (events in
//! the latest execution, and the most seen). No library dependency: on a
//! terminal one status line redrawn in place, otherwise a plain line every
//! [`LINE_EVERY`].
//!
//! When: a run shows progress once it has gone on for
//! `Builder::progress_after` (default 3 s). `Builder::show_progress` decides
//! whether at all: `Some(false)` never, `Some(true)` always, `None` (the
//! default) as `SCOPECHECK_PROGRESS` says (`0`/`off` never, `1`/`on`
//! always), else only when stderr is a terminal, so a test runner, CI log or
//! file that captures stderr gets nothing. The lines go to the process's
//! stderr directly, not through `eprint!`: libtest's capture of `eprint!`
//! would otherwise hold them until the test ends, which defeats their
//! purpose (showing that a long test is alive).

use scopecheck_checker::engine::ExecutionEnd;
use scopecheck_checker::graph::ExecutionGraph;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often a plain (non-terminal) progress line is written.
pub const LINE_EVERY: Duration = Duration::from_secs(10);
/// How often the terminal status line is redrawn.
const REDRAW_EVERY: Duration = Duration::from_millis(250);
/// Executions between two looks at the clock.
const CHECK_EVERY: u64 = 64;

/// Whether progress is shown, from the builder's setting and the environment.
pub fn wanted(setting: Option<bool>) -> bool {
    if let Some(on) = setting {
        return on;
    }
    match std::env::var("SCOPECHECK_PROGRESS").map(|v| v.trim().to_ascii_lowercase()) {
        Ok(v) if matches!(v.as_str(), "0" | "off" | "false" | "no") => false,
        Ok(v) if matches!(v.as_str(), "1" | "on" | "true" | "yes") => true,
        _ => std::io::stderr().is_terminal(),
    }
}

/// Counts executions as they end and writes progress when due.
pub struct Ticker {
    start: Instant,
    after: Duration,
    terminal: bool,
    last: Option<Instant>,
    runs: u64,
    complete: u64,
    depth: usize,
    max_depth: usize,
    label: String,
}

impl Ticker {
    /// A ticker for a run starting now, showing progress after `after`.
    pub fn new(after: Duration) -> Ticker {
        let label = match std::thread::current().name() {
            Some(n) if n != "main" => format!("scopecheck [{n}]"),
            _ => "scopecheck".to_string(),
        };
        Ticker {
            start: Instant::now(),
            after,
            terminal: std::io::stderr().is_terminal(),
            last: None,
            runs: 0,
            complete: 0,
            depth: 0,
            max_depth: 0,
            label,
        }
    }

    /// One execution ended with graph `g`.
    pub fn ended(&mut self, g: &ExecutionGraph, end: ExecutionEnd) {
        self.runs += 1;
        if matches!(end, ExecutionEnd::Complete) {
            self.complete += 1;
        }
        self.depth = g.len();
        self.max_depth = self.max_depth.max(self.depth);
        if !self.runs.is_multiple_of(CHECK_EVERY) && self.runs != 1 {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < self.after {
            return;
        }
        let every = if self.terminal { REDRAW_EVERY } else { LINE_EVERY };
        if self.last.is_some_and(|l| now.duration_since(l) < every) {
            return;
        }
        self.last = Some(now);
        self.write(false);
    }

    fn line(&self) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { self.runs as f64 / secs } else { 0.0 };
        format!(
            "{}: {} execution(s) run ({} complete), {:.0}/s, {:.1}s, depth {} events (max {})",
            self.label, self.runs, self.complete, rate, secs, self.depth, self.max_depth
        )
    }

    fn write(&self, last: bool) {
        let mut err = std::io::stderr().lock();
        // Write errors (a closed stderr) are not the run's business.
        let _ = if self.terminal {
            let end = if last { "\n" } else { "" };
            write!(err, "\r\x1b[K{}{end}", self.line())
        } else {
            writeln!(err, "{}{}", self.line(), if last { " (done)" } else { "" })
        };
        let _ = err.flush();
    }

    /// The run is over: a last line with the totals, if any was shown.
    pub fn finish(&self) {
        if self.last.is_some() {
            self.write(true);
        }
    }
}
