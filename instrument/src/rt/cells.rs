//! loom's access tracking for `UnsafeCell`: an access lasts from its start
//! to its end (the whole closure of `with` / `with_mut`, the whole life of
//! a `ConstPtr` / `MutPtr`), not one instant.
//!
//! Two things follow. An access that overlaps another conflicting one on
//! the same cell is an error even when happens-before orders their starts
//! (the other thread was told, through an atomic, while the access was
//! still going on): a read while a mutable access lives, a mutable access
//! while any access lives. The registry of live accesses below catches
//! that, on one thread or across threads, and the thread panics saying
//! which two accesses overlap. And an access that outlives synchronization
//! of its own thread (a `MutPtr` kept across a `Release` store) is checked
//! for races at its end as well as at its start: when the thread added
//! events while the access lived, the end is a second access event at the
//! line that started it, judged by the race checker like any other.

use super::{in_model, op_at, position, with_shared};
use scopecheck_checker::event::{Loc, Op, SourceLoc, ThreadId};

/// One access in progress.
struct Live {
    id: u64,
    loc: Loc,
    write: bool,
    thread: ThreadId,
    at: SourceLoc,
}

/// The accesses in progress in the current execution (few at a time: a
/// vector beats a map).
#[derive(Default)]
pub(super) struct LiveCells {
    live: Vec<Live>,
    next: u64,
}

impl LiveCells {
    pub(super) fn clear(&mut self) {
        self.live.clear();
        self.next = 0;
    }
}

/// The end of an access begun by [`cell_begin`]: dropping it ends the access.
#[derive(Debug)]
pub struct CellAccessGuard {
    /// `None` outside a model.
    live: Option<GuardState>,
}

#[derive(Debug)]
struct GuardState {
    loc: Loc,
    write: bool,
    id: u64,
    execution: u64,
    at: SourceLoc,
    /// The calling thread and its next event index right after the start.
    after: Option<(ThreadId, u32)>,
}

fn describe(write: bool) -> &'static str {
    if write {
        "mutable"
    } else {
        "immutable"
    }
}

fn article(write: bool) -> &'static str {
    if write {
        "a"
    } else {
        "an"
    }
}

/// Begins an access to the cell at `loc` at `at` (a write if `write`):
/// checks it against the accesses in progress, performs it (the race
/// checker judges it), and records it until the guard is dropped.
///
/// # Panics
/// If it overlaps a conflicting access in progress (loom's "currently
/// writing to cell" / "currently reading from cell"), at the caller's line.
#[track_caller]
pub fn cell_begin(loc: Loc, write: bool, at: SourceLoc) -> CellAccessGuard {
    if !in_model() {
        return CellAccessGuard { live: None };
    }
    let me = super::current();
    let clash = with_shared(|s| {
        s.live_cells
            .live
            .iter()
            .find(|l| l.loc == loc && (write || l.write))
            .map(|l| (l.write, l.thread, l.at))
    });
    if let Some((other_write, other_thread, other_at)) = clash {
        panic!(
            "UnsafeCell {loc}: {} {} access at {at} (thread {me}) overlaps the {} access begun at {other_at} \
             (thread {other_thread}) that is still in progress (a `with`/`with_mut` closure, or a \
             `ConstPtr`/`MutPtr` not dropped yet); loom reports this as \"currently {} cell\"",
            article(write),
            describe(write),
            describe(other_write),
            if other_write { "writing to" } else { "reading from" },
        );
    }
    op_at(Op::CellAccess { loc, write }, at);
    let (id, execution) = with_shared(|s| {
        let id = s.live_cells.next;
        s.live_cells.next += 1;
        s.live_cells.live.push(Live {
            id,
            loc,
            write,
            thread: me,
            at,
        });
        (id, s.execution)
    });
    CellAccessGuard {
        live: Some(GuardState {
            loc,
            write,
            id,
            execution,
            at,
            after: position(),
        }),
    }
}

/// Ends the access `g` (what dropping it does).
pub fn cell_end(g: CellAccessGuard) {
    drop(g)
}

impl Drop for CellAccessGuard {
    fn drop(&mut self) {
        let Some(g) = self.live.take() else { return };
        if !in_model() {
            return;
        }
        let same = with_shared(|s| {
            if s.execution != g.execution {
                return false;
            }
            s.live_cells.live.retain(|l| l.id != g.id);
            true
        });
        // While unwinding the thread has failed already: a second report
        // would only hide the first (loom skips this check too).
        if same && !std::thread::panicking() && position() != g.after {
            op_at(
                Op::CellAccess {
                    loc: g.loc,
                    write: g.write,
                },
                g.at,
            );
        }
    }
}
