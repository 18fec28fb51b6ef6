//! Values while a kept graph is replayed (docs/heap-addresses.md).
//!
//! The engine re-runs the program to replay a kept graph, whose values were
//! recorded in earlier executions (different ones for different events: a
//! revisit keeps a prefix of one execution and adds a write of another).
//! Heap addresses differ from one execution to the next, so values are
//! handled by what the location holds:
//!
//! - A location of pointers (`Op::Alloc::addresses`): the replayed store's
//!   value (and initial value) replaces the recorded one, and every read
//!   returns the value its write holds now. Reads are replayed only after
//!   the write they read (`Engine::replay_ready`), and every kept event is
//!   replayed before any new one, so once the replay is over every value in
//!   the graph is the running execution's: a read never gets an address of
//!   an earlier execution, and every later decision (a new read's value, a
//!   revisit, a compare-exchange's outcome) compares values of one
//!   execution.
//! - Any other location: the value must be the recorded one; a difference
//!   is a nondeterministic program, reported with the line, the operation
//!   and both values.
//!
//! The one decision a kept graph holds that depends on values, whether a
//! read-modify-write wrote (a compare-exchange succeeded), is decided again
//! on the running execution's values; if that differs from the kept graph,
//! the program's values do not correspond between executions, which is
//! reported too.

use super::{Engine, Stop};
use crate::event::{EventId, EventKind, Loc, ReadEvent, RmwOp, SourceLoc, ThreadId, Value};
use crate::failure::FailureKind;

/// The likely causes a nondeterminism report lists.
pub(crate) const CAUSES: &str = "the program depends on something the checker does not control; likely causes: a \
     heap address kept as an integer (`ptr as usize` in an `AtomicUsize`: keep it in an `AtomicPtr`, whose values \
     the checker takes from the running execution) or hashed, ordered or printed; time; randomness (`RandomState`, \
     the iteration order of a `HashMap` or `HashSet`); std atomics, statics or thread-locals shared between \
     executions; OS threads";

/// A value as a report shows it: in decimal, and in hex too when it is
/// large (addresses are read in hex).
pub(crate) fn show(v: Value) -> String {
    if v >= 0x1000 {
        format!("{v} ({v:#x})")
    } else {
        v.to_string()
    }
}

impl Engine {
    /// Whether `loc` holds addresses (values of a pointer type).
    pub(super) fn holds_addresses(&self, loc: Loc) -> bool {
        self.graph.holds_addresses(loc)
    }

    /// `loc` as a report names it: with where it was created.
    fn loc_named(&self, loc: Loc) -> String {
        match self.graph.loc(loc) {
            Some(d) => format!("{loc} (created at {})", self.graph.event(d.alloc).src),
            None => loc.to_string(),
        }
    }

    /// Replaying the allocation of `loc` by thread `t`, whose kept initial
    /// value is `kept`, the program gave `init`: a location of pointers
    /// takes it; any other is a nondeterministic program.
    pub(super) fn replay_init(&mut self, t: ThreadId, loc: Loc, init: Value, src: SourceLoc) -> Result<(), Stop> {
        if self.holds_addresses(loc) {
            self.graph.set_init(loc, init);
            return Ok(());
        }
        let kept = self.graph.loc(loc).expect("replayed location").init;
        let did = format!(
            "thread {t} created {loc} at {src} with the initial value {}, where an earlier execution with the same \
             choices created it with {}",
            show(init),
            show(kept)
        );
        Err(self.value_nondeterminism(t, did, src))
    }

    /// Replaying the kept write `w` (a store, or an RMW's write part: `op`
    /// names it with its preposition, `store to`, `fetch_add on`), the
    /// program wrote `value`: a location of pointers takes
    /// it; any other is a nondeterministic program.
    pub(super) fn replay_write_value(
        &mut self,
        t: ThreadId,
        w: EventId,
        value: Value,
        op: &str,
        src: SourceLoc,
    ) -> Result<(), Stop> {
        let Some(kept) = self.graph.event(w).as_write().copied() else {
            unreachable!("a replayed write is a write")
        };
        if self.holds_addresses(kept.loc) {
            if let EventKind::Write(x) = &mut self.graph.event_mut(w).kind {
                x.value = value;
            }
            return Ok(());
        }
        let did = format!(
            "thread {t}'s {op} {} at {src} wrote {}, where an earlier execution with the same choices wrote {} \
             there",
            self.loc_named(kept.loc),
            show(value),
            show(kept.value)
        );
        Err(self.value_nondeterminism(t, did, src))
    }

    /// The kept read `r` (event `id`) as the running execution makes it
    /// (asked when its value or operands differ from the kept ones): it
    /// reads the value its write holds now, with the operands the program
    /// gave now (`rmw`, for an RMW's read part). An RMW must still write
    /// exactly when the kept graph says it did (a compare-exchange must
    /// succeed or fail as it did); otherwise the program's values do not
    /// correspond between executions.
    pub(super) fn replay_read(
        &mut self,
        t: ThreadId,
        id: EventId,
        r: &ReadEvent,
        rmw: Option<RmwOp>,
        src: SourceLoc,
    ) -> Result<ReadEvent, Stop> {
        let mut now = *r;
        now.value = self.graph.write_value(r.loc, r.rf);
        if let (Some(op), Some(kept)) = (rmw, &mut now.rmw) {
            kept.0 = op;
            if now.is_exclusive() != r.is_exclusive() {
                let did = match op {
                    RmwOp::Cas { expected, .. } => format!(
                        "thread {t}'s {} on {} at {src} read {} and expected {}, so it {} in this execution, where \
                         an earlier execution with the same choices {} there",
                        op.name(),
                        self.loc_named(r.loc),
                        show(now.value),
                        show(expected),
                        if now.is_exclusive() { "succeeds" } else { "fails" },
                        if r.is_exclusive() { "succeeded" } else { "failed" },
                    ),
                    _ => format!(
                        "thread {t}'s {} on {} at {src} read {}, where an earlier execution with the same choices \
                         read {} there and {}",
                        op.name(),
                        self.loc_named(r.loc),
                        show(now.value),
                        show(r.value),
                        if r.is_exclusive() { "wrote" } else { "did not write" },
                    ),
                };
                return Err(self.value_nondeterminism(t, did, src));
            }
        }
        self.graph.event_mut(id).kind = EventKind::Read(now);
        Ok(now)
    }

    /// A nondeterminism report: `did` says what differed, in the
    /// program's terms; the report names thread `t`'s next kept event.
    pub(super) fn value_nondeterminism(&self, t: ThreadId, did: String, src: SourceLoc) -> Stop {
        let idx = self.threads[t as usize].cursor;
        Stop::Failure(self.failure(
            FailureKind::Nondeterminism,
            format!("{did}; {CAUSES}"),
            Some(t),
            vec![EventId::new(t, idx)],
            Some(src),
        ))
    }
}
