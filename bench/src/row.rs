//! What one tool did on one program.

use crate::programs::Program;
use crate::tools::Tool;
use std::time::Duration;

/// Why a row has no complete measurement, or what it found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The tool cannot run the program (loom's thread limit).
    NotRun(String),
    /// The run was stopped after `--timeout`.
    TimedOut(Duration),
    /// The tool reported a failure, panicked or stopped early.
    Failed(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::NotRun(why) => write!(f, "not run: {why}"),
            Problem::TimedOut(d) => write!(f, "stopped after the {} s timeout", d.as_secs()),
            Problem::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// What one tool did on one program.
#[derive(Clone, Debug)]
pub struct Row {
    /// The program.
    pub program: Program,
    /// The tool.
    pub tool: Tool,
    /// Executions as the tool counts them (see the notes printed with the table).
    pub executions: u64,
    /// Invocations of the program closure.
    pub closure_runs: u64,
    /// Program runs whose outcome the program forbids (loom's SeqCst, shuttle's SC-only model...).
    pub forbidden: u64,
    /// Wall time of the tool's entry point.
    pub wall: Duration,
    /// Peak RSS (VmHWM, kB) of the process that ran it, read right after the run.
    pub vm_hwm_kb: Option<u64>,
    /// Set when the tool did not run the program to the end.
    pub problem: Option<Problem>,
}

impl Row {
    /// Executions per second.
    pub fn rate(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.executions as f64 / s
        } else {
            f64::INFINITY
        }
    }

    /// Whether the row holds a full measurement.
    pub fn measured(&self) -> bool {
        self.problem.is_none()
    }
}
