//! The names every other module uses: a thread ([`ThreadId`]), a value
//! ([`Value`]) and an event's position ([`EventId`]).
//!
//! A leaf: it imports no module of the crate, so the modules that only need
//! these names (`clock`, `scope`, `float`) do not depend on `event`, which
//! depends on them (the recorded event carries clocks, scopes and float
//! operations). `event` re-exports all three.

use std::fmt;

/// Index of a thread in one execution (0 is the thread that runs the model's closure).
pub type ThreadId = u32;

/// A value held by a memory location. Narrower atomics are zero-extended into it.
pub type Value = u64;

/// The position of an event: its thread and its index in program order.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    /// Thread of the event ([`EventId::INIT_THREAD`] for initial writes).
    pub thread: ThreadId,
    /// Index of the event in its thread's program order.
    pub index: u32,
}

impl EventId {
    /// Thread number used by the initial write of every location.
    pub const INIT_THREAD: ThreadId = u32::MAX;
    /// The initial write of the location an access refers to.
    pub const INIT: EventId = EventId {
        thread: EventId::INIT_THREAD,
        index: 0,
    };
    /// Builds an event id.
    pub fn new(thread: ThreadId, index: u32) -> EventId {
        EventId { thread, index }
    }
    /// The next event of the same thread.
    #[inline]
    pub fn next(self) -> EventId {
        EventId::new(self.thread, self.index + 1)
    }
    /// Whether this is the initial write of a location.
    pub fn is_init(self) -> bool {
        self.thread == EventId::INIT_THREAD
    }
}

impl fmt::Debug for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_init() {
            write!(f, "init")
        } else {
            write!(f, "T{}.{}", self.thread, self.index)
        }
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
