//! The prefixes of a thread's runs alone that a loop cut at `--unroll`
//! (`gpu_split.rs`): a run discarded there is no way of the thread, but
//! its accesses up to the cut are a partial way, and the domains' growth
//! needs them (`cyclic/chains.rs`): a thread that writes a value and then
//! spins until another thread passes on a value computed from it has no
//! complete run until that value is in the domain, and it joins only
//! through the thread's own write.

use scopecheck_checker::event::{EventKind, Loc, ThreadId};
use scopecheck_instrument::rt;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// One access of a prefix: whether it writes, its location, its value.
pub type Access = (bool, Loc, u64);

/// What the runs of one thread alone recorded.
#[derive(Default)]
pub struct Recorded {
    /// The distinct cut prefixes, as the thread's reads and writes.
    prefixes: BTreeSet<Vec<Access>>,
    /// The main thread's allocations, in order (the same in every run):
    /// layout element `k` is the `k`-th.
    allocs: Vec<Loc>,
    /// Whether [`MAX_CUT`] left some out.
    capped: bool,
}

/// Filled by the runs of one thread alone (`interp.rs`, before a loop
/// discards its run at the unroll bound).
pub type Log = Mutex<Recorded>;

/// Cut prefixes kept per thread, at most (memory cap; past it the growth
/// from them would be partial, and the run says so: see [`Cut::capped`]).
pub const MAX_CUT: usize = super::cyclic::MAX_KEPT;

/// Records the current execution's reads and writes of engine thread `t`,
/// the thread a loop is about to discard, in `log`. Called from inside
/// the model thread, before it discards; copies only those accesses.
pub fn record(log: &Log, t: ThreadId) {
    let (prefix, allocs) = rt::with_current_graph(|g| {
        let prefix: Vec<Access> = g
            .thread_events(t)
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Read(r) => Some((false, r.loc, r.value)),
                EventKind::Write(w) => Some((true, w.loc, w.value)),
                _ => None,
            })
            .collect();
        let allocs: Vec<Loc> = g
            .thread_events(0)
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Alloc { loc, .. } => Some(loc),
                _ => None,
            })
            .collect();
        (prefix, allocs)
    });
    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
    if log.allocs.is_empty() {
        log.allocs = allocs;
    }
    if log.prefixes.len() < MAX_CUT || log.prefixes.contains(&prefix) {
        log.prefixes.insert(prefix);
    } else {
        log.capped = true;
    }
}

/// A thread's cut prefixes, taken from its [`Log`] after its runs.
#[derive(Default)]
pub struct Cut {
    /// The prefixes.
    pub prefixes: Vec<Vec<Access>>,
    /// The main thread's allocations in layout order.
    pub allocs: Vec<Loc>,
    /// Whether the cap [`MAX_CUT`] left some out.
    pub capped: bool,
}

impl Cut {
    /// The prefixes `log` holds.
    pub fn of(log: Log) -> Cut {
        let r = log.into_inner().unwrap_or_else(|e| e.into_inner());
        Cut {
            prefixes: r.prefixes.into_iter().collect(),
            allocs: r.allocs,
            capped: r.capped,
        }
    }
}
