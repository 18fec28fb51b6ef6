//! The model's verdict on a complete execution, taken before the run
//! records its outcome ([`crate::model::Semantics::judge_complete`]): the
//! complete-graph axioms of `c11` and of the GPU hardware models
//! (`ptx7.5`, `vulkan`; `model/gpu_rust.rs`), and the data races of a
//! model that defines its own (Vulkan's `dr`), which only the complete
//! graph shows.

use super::Engine;
use crate::event::{EventId, EventKind};
use crate::failure::{Failure, FailureKind};
use crate::sched::ExecutionEnd;

impl Engine {
    /// The verdict on the execution that just ended with `end`: `Blocked`
    /// when the model rejects its complete graph (it did not happen); a
    /// consistent execution with a race by the model's own definition
    /// (Vulkan's `dr`) fails with its first racing pair (under `Limits::record_races` it completes,
    /// counted racy, each new pair of source lines kept). Anything but a
    /// complete execution is returned as it is.
    ///
    /// An execution whose graph holds promises (po ∪ rf cycles under
    /// `c11`) is judged with them kept, and may turn from failed to blocked
    /// (a promise was broken): its failure is then not the program's.
    pub fn judge_complete(&mut self, end: ExecutionEnd) -> (ExecutionEnd, Option<Failure>) {
        if self.dropped_by_program && end == ExecutionEnd::Complete {
            return (ExecutionEnd::Blocked, None);
        }
        if !self.graph.promises().is_empty() {
            return (self.judge_promised(end), None);
        }
        if self.has_guesses() {
            return (self.judge_guessed(end), None);
        }
        if end != ExecutionEnd::Complete {
            return (end, None);
        }
        let races = match self.model.judge_complete(&self.graph) {
            Ok(races) => races,
            Err(_) => return (ExecutionEnd::Blocked, None),
        };
        let Some(&(a, b)) = races.first() else {
            return (end, None);
        };
        if !self.limits.record_races {
            return (ExecutionEnd::Failed, Some(self.model_race(a, b)));
        }
        if self.strategy.owns_execution() {
            self.races.racy_executions += 1;
            for (a, b) in races {
                let key = (self.graph.event(a).src, self.graph.event(b).src);
                if self.races.seen.insert(key) {
                    let f = self.model_race(a, b);
                    self.races.distinct.push(f);
                }
            }
        }
        (end, None)
    }

    /// The program drops the current execution, which is about to complete
    /// (herd's `filter P`, whose `P` its final state fails): it ends as
    /// blocked, so it adds no outcome, no race and no count of complete
    /// executions, and its alternatives are still explored.
    pub fn drop_execution(&mut self) {
        self.dropped_by_program = true;
    }

    /// Whether the model keeps the current execution, asked by a program
    /// that is about to finish it (the litmus front end, before it records
    /// the final state): its complete-graph axioms hold (`c11`), and, with
    /// promised reads, they were kept (`promised.rs`). The verdict is the
    /// one [`Engine::judge_complete`] then gives.
    pub fn complete_execution_kept(&mut self) -> bool {
        if !self.graph.promises().is_empty() {
            return self.judge_promised(ExecutionEnd::Complete) == ExecutionEnd::Complete;
        }
        if self.has_guesses() {
            return self.judge_guessed(ExecutionEnd::Complete) == ExecutionEnd::Complete;
        }
        self.model.check_complete(&self.graph).is_ok()
    }

    /// The report of a pair the model's own race definition (Vulkan's
    /// `dr`) finds: a heterogeneous race when both are atomics (their
    /// scopes do not include each other's thread), else a data race.
    fn model_race(&self, a: EventId, b: EventId) -> Failure {
        let g = &self.graph;
        let (ea, eb) = (g.event(a), g.event(b));
        let atomic = |k: &EventKind| match k {
            EventKind::Read(r) => r.order.is_atomic(),
            EventKind::Write(w) => w.order.is_atomic(),
            _ => false,
        };
        let both = atomic(&ea.kind) && atomic(&eb.kind);
        let side = |id: EventId| {
            let e = g.event(id);
            let scope = if atomic(&e.kind) {
                format!(", {} scope", e.scope)
            } else {
                String::new()
            };
            format!(
                "`{}` (thread {} at {}{scope}, {})",
                e.describe(),
                id.thread,
                g.placement(id.thread).describe(),
                e.src
            )
        };
        let loc = ea.loc().map(|l| l.to_string()).unwrap_or_default();
        let (kind, what, fix) = if both {
            (
                FailureKind::HeterogeneousRace,
                "heterogeneous race (scope mismatch)",
                "use a scope that includes both threads on both atomics",
            )
        } else {
            (
                FailureKind::DataRace,
                "data race",
                "order the plain accesses: a release store (or fence) and an acquire load (or fence) of the same \
                 atomic at a scope that includes both threads",
            )
        };
        let mut f = self.failure(
            kind,
            format!(
                "{what} on {loc} under {}: {} and {} conflict, neither is ordered before the other by \
                 `locord`, and they are not two atomics whose scopes include each other's thread",
                self.model.race_definition(),
                side(a),
                side(b)
            ),
            Some(b.thread),
            vec![a, b],
            Some(eb.src),
        );
        f.fix = Some(fix.into());
        *f
    }
}
