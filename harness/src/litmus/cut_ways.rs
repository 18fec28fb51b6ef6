//! The prefixes of a thread's runs alone that a loop cut at `--unroll`
//! (`gpu_split.rs`): a run discarded there is no way of the thread, but
//! its events up to the cut are a partial way, and the domains' growth
//! needs them (`cyclic/chains.rs`): a thread that writes a value and then
//! spins until another thread passes on a value computed from it has no
//! complete run until that value is in the domain, and it joins only
//! through the thread's own write.

use scopecheck_checker::event::ThreadId;
use scopecheck_checker::graph::ExecutionGraph;
use scopecheck_instrument::rt;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The distinct cut prefixes of one thread's runs alone, by the events and
/// values of that thread, and whether [`MAX_CUT`] left some out.
pub type Log = Mutex<(BTreeMap<String, ExecutionGraph>, bool)>;

/// Cut prefixes kept per thread, at most (memory cap; past it the growth
/// from them is partial, which can only leave values out of the domains,
/// and the run says so: see [`Cut::capped`]).
pub const MAX_CUT: usize = super::cyclic::MAX_KEPT;

/// Records the current execution's graph in `log` as the prefix of engine
/// thread `t`, the thread a loop is about to discard. Called from inside
/// the model thread, before it discards.
pub fn record(log: &Log, t: ThreadId) {
    let g = rt::current_graph();
    let mut key = String::new();
    for e in g.thread_events(t) {
        let d = e.describe();
        key.push_str(d.split(" (rf ").next().unwrap_or(&d));
        key.push(';');
    }
    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
    let (map, capped) = &mut *log;
    if map.len() < MAX_CUT || map.contains_key(&key) {
        map.entry(key).or_insert(g);
    } else {
        *capped = true;
    }
}

/// A thread's cut prefixes, taken from its [`Log`] after its runs.
#[derive(Default)]
pub struct Cut {
    /// The graphs, each with the thread's events up to the cut.
    pub graphs: Vec<ExecutionGraph>,
    /// Whether the cap [`MAX_CUT`] left some out.
    pub capped: bool,
}

impl Cut {
    /// The prefixes `log` holds.
    pub fn of(log: Log) -> Cut {
        let (map, capped) = log.into_inner().unwrap_or_else(|e| e.into_inner());
        Cut {
            graphs: map.into_values().collect(),
            capped,
        }
    }
}
