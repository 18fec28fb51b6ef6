//! What checking a test gives: a [`TestResult`], or the [`TestError`] that
//! says why the test could not be checked.

use super::*;

/// Why a test produced no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestError {
    /// The file could not be read.
    Io(String),
    /// The file is not a litmus test (located).
    Parse(ParseError),
    /// The test is well formed but means nothing (located): an unknown
    /// variable, a condition naming a thread that does not exist, ...
    Invalid {
        /// Where.
        pos: Pos,
        /// What.
        message: String,
    },
    /// The test needs something the chosen model (or analysis) does not
    /// support (located: where the test uses it).
    Unsupported {
        /// Where.
        pos: Pos,
        /// What, and what would support it.
        message: String,
    },
    /// The checker itself broke (a bug in scopecheck, not in the test).
    Internal(String),
}

impl TestError {
    /// The message with `file:line:col:` in front where there is a position.
    pub fn located(&self, file: &str) -> String {
        match self {
            TestError::Io(m) => format!("{file}: {m}"),
            TestError::Parse(e) => format!("{file}:{e}"),
            TestError::Invalid { pos, message } => format!("{file}:{pos}: {message}"),
            TestError::Unsupported { pos, message } => format!("{file}:{pos}: unsupported: {message}"),
            TestError::Internal(m) => format!("{file}: scopecheck internal error (a bug in the checker): {m}"),
        }
    }

    /// A short word for the kind (`io`, `parse`, `invalid`, `unsupported`, `internal`).
    pub fn kind(&self) -> &'static str {
        match self {
            TestError::Io(_) => "io",
            TestError::Parse(_) => "parse",
            TestError::Invalid { .. } => "invalid",
            TestError::Unsupported { .. } => "unsupported",
            TestError::Internal(_) => "internal",
        }
    }
}

/// What checking one test found.
#[derive(Debug)]
pub struct TestResult {
    /// The test's name (from its header).
    pub name: String,
    /// The model it ran under.
    pub model: LitmusModel,
    /// The condition, if the test has one.
    pub condition: Option<Condition>,
    /// Each distinct final state with the number of executions ending in it.
    pub states: BTreeMap<FinalState, u64>,
    /// Executions whose final state satisfies the condition's proposition.
    pub positive: u64,
    /// Executions whose final state does not.
    pub negative: u64,
    /// Complete executions explored (distinct ones, for the reference enumerator).
    pub executions: u64,
    /// Executions abandoned (an RMW alternative that broke atomicity, an
    /// inconsistent step, a loop past the unroll bound).
    pub blocked: u64,
    /// One report per distinct racing pair of litmus lines.
    pub races: Vec<Failure>,
    /// Complete executions with a data race.
    pub racy_executions: u64,
    /// Failures of the test's program (a division by zero, a thread that
    /// never ends, an internal error of the checker).
    pub failures: Vec<Failure>,
    /// Whether every execution was explored.
    pub complete: bool,
    /// Why not, if not.
    pub incomplete_reason: Option<String>,
    /// The part of the exhaustive exploration this result covers, when it
    /// was one shard (`index`, `count`; `--strategy shard:I/N`): its states,
    /// counts and races are that shard's only, and [`TestResult::verdict`]
    /// answers only what the shard proves on its own.
    pub shard: Option<(u32, u32)>,
    /// What the run sampled, when it was not systematic (`random:S:N`,
    /// `pct:S:N:D`, a replay): "N random executions (seed S)", ... Such a
    /// run is complete when its N executions ran, but proves only what they
    /// show: [`TestResult::verdict`] answers only an `exists` seen or a
    /// `~exists` / `forall` violated.
    pub sampled: Option<String>,
    /// Why a run without failures has no answer: no execution completed
    /// (each was discarded at the unroll bound, say, or a bound cut the run
    /// before the first one ended), so there is no final state to judge the
    /// condition on (and no observation is printed: `??`, JSON `null`). herd answers such a test
    /// from zero states (`No` for `exists`); scopecheck gives no verdict.
    pub no_answer: Option<String>,
    /// The graph of the first witness: an execution satisfying the
    /// proposition for `exists` / `~exists`, one violating it for `forall`.
    pub witness: Option<ExecutionGraph>,
    /// The final state of the witness.
    pub witness_state: Option<FinalState>,
    /// The witness's synchronizes-with edges under the model, for its
    /// picture; `None` when the model's synchronization is not one sw
    /// relation (`ptx`, `vulkan`): the picture then says it is not drawn.
    pub witness_sw: Option<Vec<(EventId, EventId)>>,
    /// Wall time of the exploration.
    pub elapsed: Duration,
    /// Things the reader should know (scopes ignored by the model, ...).
    pub notes: Vec<String>,
    /// Likely mistakes in the test that do not stop it (a condition naming
    /// a location the test does not declare), each with where it is.
    pub warnings: Vec<(Pos, String)>,
    /// The litmus name of each engine thread after the first (`P0`, ...).
    pub thread_names: Vec<String>,
    /// The litmus name of each location, in allocation order (`x`, `y[1]`).
    pub loc_names: Vec<String>,
    /// Executions with a cycle in po ∪ rf (only under `c11` and `opencl`).
    pub porf_cyclic: u64,
    /// Cyclic executions the explorer (`Options::explorer_cycles`) found
    /// but left out because a promised read in them synchronizes
    /// (`Stats::cyclic_dropped`); the enumeration leaves none out.
    pub porf_dropped: u64,
}

impl TestResult {
    /// Whether the condition is validated (herd's `Ok`): some execution
    /// satisfies an `exists`, none satisfies a `~exists`, every execution
    /// satisfies a `forall`. `None` without a condition, or when the run
    /// failed, was cut short, or explored one shard, before the answer was
    /// known.
    pub fn verdict(&self) -> Option<bool> {
        let c = self.condition.as_ref().filter(|c| !c.filter_only)?;
        if !self.failures.is_empty() || self.no_answer.is_some() {
            return None;
        }
        let answer = match c.quantifier {
            Quantifier::Exists => self.positive > 0,
            Quantifier::NotExists => self.positive == 0,
            Quantifier::Forall => self.negative == 0,
        };
        // A cut-short run, or one shard of a run, only knows an answer some
        // execution proved: the execution that settles it may be in the
        // part not explored (another shard's).
        let proven = match c.quantifier {
            Quantifier::Exists => answer,
            Quantifier::NotExists | Quantifier::Forall => !answer,
        };
        let whole = self.complete && self.shard.is_none() && self.sampled.is_none();
        (whole || proven).then_some(answer)
    }

    /// Why this result cannot settle everything a complete exhaustive run
    /// would (cut short, one shard, a sample); `None` when it can. An
    /// expectation is compared with such a result only where the result
    /// proves something.
    pub fn partial(&self) -> Option<String> {
        if let Some(what) = &self.sampled {
            return Some(format!("a sample ({what})"));
        }
        if let Some((i, n)) = self.shard {
            return Some(format!("shard {i}/{n}"));
        }
        (!self.complete).then(|| {
            let why = self.incomplete_reason.as_deref().unwrap_or("cut short");
            format!("incomplete: {why}")
        })
    }

    /// The litmus name of engine thread `t`: `P<n>` for the test's threads,
    /// `init/final` for the thread that allocates, spawns and reads the final state.
    pub fn thread_name(&self, t: u32) -> String {
        match t {
            0 => "init/final".into(),
            t => self
                .thread_names
                .get(t as usize - 1)
                .cloned()
                .unwrap_or_else(|| format!("thread {t}")),
        }
    }

    /// The litmus name of location `l` (`x`, `y[1]`), if the test allocated it.
    pub fn loc_name(&self, l: scopecheck_checker::event::Loc) -> Option<&str> {
        (l.thread() == 0).then(|| self.loc_names.get(l.seq() as usize).map(String::as_str))?
    }

    /// Whether no execution has a data race.
    pub fn race_free(&self) -> bool {
        self.racy_executions == 0
    }
}
