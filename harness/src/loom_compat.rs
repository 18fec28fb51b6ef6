//! What loom's `model::Builder` and crate root offer beyond scopecheck's own
//! configuration, mapped onto it: the `LOOM_*` environment variables,
//! checkpoint files, `log`, `MAX_THREADS`, and `explore` / `skip_branch` /
//! `stop_exploring`.
//!
//! Checkpoint files: loom stores its exploration path there every
//! `checkpoint_interval` executions and resumes from it. scopecheck's
//! optimal explorer cannot be resumed midway (its position is a stack of
//! pending revisits tied to the program's live execution graphs), so a
//! checkpoint file here holds one thing: the replay token of the first
//! failing execution. A run whose file does not exist yet explores as usual
//! and writes the token there when an execution fails; a run whose file
//! exists replays that execution (the step of loom's debugging workflow the
//! file is for: "isolate the failing permutation"). `checkpoint_interval`
//! has nothing to pace. Both are said in one line on stderr at run time.

use crate::report::Report;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

/// The most threads a loom model may have (loom's constant, kept for code
/// that sizes arrays with it). scopecheck itself has no such limit:
/// `Builder::max_threads` is unbounded unless set.
pub const MAX_THREADS: usize = 5;

/// What the `LOOM_*` variables say (loom reads them in `Builder::new()`).
pub(crate) struct LoomEnv {
    pub max_branches: Option<usize>,
    pub max_permutations: Option<usize>,
    pub max_duration: Option<Duration>,
    pub checkpoint_file: Option<PathBuf>,
    pub checkpoint_interval: Option<usize>,
    pub location: bool,
    pub log: bool,
}

fn number(var: &str, what: &str) -> Option<usize> {
    let v = std::env::var(var).ok()?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => panic!("scopecheck: {var}={v:?} is not a whole number ({var} is {what})"),
    }
}

impl LoomEnv {
    /// Reads the variables as loom does; a malformed number is refused
    /// with the variable's name (loom: "invalid value for `...`").
    pub(crate) fn read() -> LoomEnv {
        LoomEnv {
            max_branches: number("LOOM_MAX_BRANCHES", "the maximum number of branches per execution"),
            max_permutations: number("LOOM_MAX_PERMUTATIONS", "the maximum number of executions"),
            max_duration: number("LOOM_MAX_DURATION", "a time limit in seconds").map(|s| Duration::from_secs(s as u64)),
            checkpoint_file: std::env::var_os("LOOM_CHECKPOINT_FILE").map(PathBuf::from),
            checkpoint_interval: number("LOOM_CHECKPOINT_INTERVAL", "how often a checkpoint is written"),
            location: std::env::var_os("LOOM_LOCATION").is_some(),
            log: std::env::var_os("LOOM_LOG").is_some(),
        }
    }
}

/// The first line of a checkpoint file, before the token.
const CHECKPOINT_TAG: &str = "scopecheck-replay";

/// The token a checkpoint file holds, if the file exists.
///
/// # Panics
/// If it exists but cannot be read or holds no token (a loom checkpoint,
/// say): the message names the file and what was expected.
pub(crate) fn read_checkpoint(path: &Path) -> Option<String> {
    if !path.exists() {
        return None;
    }
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("scopecheck: cannot read the checkpoint file {}: {e}", path.display()));
    match text.trim().strip_prefix(CHECKPOINT_TAG) {
        Some(tok) if !tok.trim().is_empty() => Some(tok.trim().to_string()),
        _ => panic!(
            "scopecheck: the checkpoint file {} does not hold a scopecheck replay token (a first line \
             `{CHECKPOINT_TAG} <token>`; a checkpoint written by loom cannot be read): delete it to explore \
             from the start",
            path.display()
        ),
    }
}

/// The one line a run with a checkpoint file prints, saying what it does.
pub(crate) fn checkpoint_notice(path: &Path, replaying: bool) {
    if replaying {
        eprintln!(
            "scopecheck: checkpoint_file {}: replaying the failing execution it holds (a checkpoint holds the \
             first failing execution's replay token; an exploration cannot be resumed midway, and \
             checkpoint_interval is not used)",
            path.display()
        );
    } else {
        eprintln!(
            "scopecheck: checkpoint_file {}: an exploration cannot be resumed midway; the first failing \
             execution's replay token will be written there and replayed by the next run (checkpoint_interval \
             is not used)",
            path.display()
        );
    }
}

/// Writes the first failure's token to the checkpoint file (after an
/// exploration, not a replay of it).
pub(crate) fn write_checkpoint(path: &Path, report: &Report) {
    let Some(f) = report.failures().first() else { return };
    if let Err(e) = std::fs::write(path, format!("{CHECKPOINT_TAG} {}\n", f.token())) {
        eprintln!("scopecheck: cannot write the checkpoint file {}: {e}", path.display());
    }
}

static IGNORED_HINTS: Once = Once::new();

fn exploration_hint_ignored() {
    IGNORED_HINTS.call_once(|| {
        eprintln!(
            "scopecheck: loom::explore / stop_exploring / skip_branch are accepted and have no effect: every \
             execution is still explored (a superset of what loom explores)"
        )
    });
}

/// loom's `explore`: resumes exploration after [`stop_exploring`]. scopecheck
/// always explores every execution, so this has no effect (said once on
/// stderr).
pub fn explore() {
    exploration_hint_ignored();
}

/// loom's `stop_exploring`: loom explores no alternatives for what follows
/// until [`explore`]. scopecheck explores them all the same (a superset of
/// loom's executions: the same verdict or a failure loom missed); said
/// once on stderr.
pub fn stop_exploring() {
    exploration_hint_ignored();
}

/// loom's `skip_branch`: loom explores no alternatives for the rest of the
/// execution. As [`stop_exploring`], no effect here.
pub fn skip_branch() {
    exploration_hint_ignored();
}
