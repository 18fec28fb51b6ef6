//! Outcome recording inside kernels (the runtime's: it takes the records
//! at the end of each execution; `gpu::record` is its public face): [`record`] lets any model thread (a
//! kernel thread, or the host) name a value it saw, and the run collects,
//! per complete execution, the map of everything recorded into the outcome
//! histogram of its report (`Report::outcomes`), so a test need not route
//! results through a global buffer and back to the host.
//!
//! Which executions count: exactly the complete ones the run reports in
//! its execution count (`Report::executions`, or for a sharded run the ones
//! this shard owns): an execution that failed (an assertion, a race, a
//! deadlock, a hang) or was blocked (pruned, discarded) contributes
//! nothing, and what it recorded is dropped. Under `record_races` an
//! execution with a race completes and counts. Every complete execution
//! contributes its outcome, the empty one if it recorded nothing, so the
//! histogram's counts add up to the execution count. (The reference
//! enumerator may run one execution graph more than once; its counts are
//! of runs, its key set is the same.)

use crate::rt;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::Location;

pub use scopecheck_checker::outcome::Outcome;

/// The current execution's records, with where each key was recorded.
struct Recorded {
    born: Option<rt::Born>,
    values: BTreeMap<String, (String, &'static Location<'static>)>,
}

thread_local! {
    static RECORDED: RefCell<Recorded> = const {
        RefCell::new(Recorded { born: None, values: BTreeMap::new() })
    };
}

/// Records `value` under `key` in the current execution's outcome (a
/// litmus test's final register value, a kernel thread's result). The
/// value is kept as `Debug` shows it, so any printable value will do.
///
/// # Panics
/// At the caller's line outside a model, or if `key` was already recorded
/// in this execution (each key names one value of an outcome; record a
/// thread's several results under several keys).
#[track_caller]
pub fn record(key: impl Into<String>, value: impl fmt::Debug) {
    if !rt::in_model() {
        panic!("scopecheck: gpu::record was called outside `scopecheck::model` (outcomes are per execution)");
    }
    // Checked before touching the shared table: a thread that panics
    // here must not leave it borrowed.
    let key = key.into();
    let value = format!("{value:?}");
    let at = Location::caller();
    let clash = RECORDED.with(|r| {
        let mut r = r.borrow_mut();
        if !r.born.is_some_and(|b| b.is_current()) {
            r.born = Some(rt::Born::here());
            r.values.clear();
        }
        match r.values.get(&key) {
            Some((old, first)) => Some(format!(
                "scopecheck: gpu::record: key `{key}` was already recorded in this execution (value {old} at \
                 {first}); each key names one value of the outcome"
            )),
            None => {
                r.values.insert(key, (value, at));
                None
            }
        }
    });
    if let Some(msg) = clash {
        panic!("{msg}");
    }
}

/// Takes what the execution that just ended recorded (empty if it recorded
/// nothing), leaving nothing behind for the next one.
pub(crate) fn take() -> Outcome {
    RECORDED.with(|r| {
        let mut r = r.borrow_mut();
        let current = r.born.take().is_some_and(|b| b.is_current());
        let values = std::mem::take(&mut r.values);
        if current {
            Outcome(values.into_iter().map(|(k, (v, _))| (k, v)).collect())
        } else {
            Outcome::default()
        }
    })
}
