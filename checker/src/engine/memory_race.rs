//! Data races of atomics that are plain for their memory kind
//! (`crate::memory`), as reports.

use super::{Engine, Stop};
use crate::event::{Event, EventId};
use crate::failure::FailureKind;
use crate::memory::MemoryRace;

impl Engine {
    /// A data race between two atomics, one of which is plain because of
    /// its memory kind (`race.why` says which attribute is missing).
    pub(super) fn memory_race(&self, race: MemoryRace) -> Stop {
        let (a, b) = (race.first, race.second);
        let why = race.why.to_string();
        let g = &self.graph;
        let (ea, eb) = (g.event(a), g.event(b));
        let loc = ea.loc().expect("an access");
        let side = |e: &Event, id: EventId| super::race_check::scoped_side(g, e, id);
        let mut f = self.failure(
            FailureKind::DataRace,
            format!(
                "data race on {loc} (created at {}): {} and {} conflict and neither happens before the other; {why}",
                g.event(g.loc(loc).expect("loc").alloc).src,
                side(ea, a),
                side(eb, b)
            ),
            Some(b.thread),
            vec![a, b],
            Some(eb.src),
        );
        f.cause = Some(why);
        f.fix = Some(self.memory.fix(loc));
        Stop::Failure(f)
    }
}
