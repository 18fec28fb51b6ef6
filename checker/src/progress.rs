//! Forward-progress models (docs/semantics.md §6): which threads the scheduler
//! must keep running, and so which spin-waits are hangs.
//!
//! The checker never explores a spin loop forever: a thread whose loop
//! iteration read something and wrote nothing waits until a newer write
//! appears where it read (`Engine::spin`). What the progress model decides
//! is whether such a wait can last forever because the threads that would
//! end it need never be scheduled:
//!
//! - [`Progress::Fair`]: every thread that can take a step eventually does.
//!   A spin-wait hangs only if no thread at all will ever write what it
//!   waits for, which is a deadlock under every model (`FailureKind::Deadlock`).
//! - [`Progress::OccupancyBound`]: the occupancy-bound execution model of
//!   GPUs (OBE; Sorensen, Donaldson et al., and Dat3M's `OBE`). At most
//!   `resident_blocks` blocks of a device are resident at once; a resident
//!   block is scheduled fairly until it finishes, but a block that has not
//!   started need not be scheduled while `resident_blocks` blocks are
//!   resident. Blocks are dispatched in index order (block 0 first; the
//!   blocks of an earlier launch on the same device before those of a
//!   later one), as hardware does in practice: the first `resident_blocks`
//!   blocks start, and the next waiting block takes the slot of a finished
//!   one. CUDA does not promise this order; a program that is correct only
//!   under it can be checked under other orders by permuting block indices
//!   in the kernel (see docs/gpu-memory-and-progress.md).
//! - [`Progress::Unfair`]: nothing is guaranteed: while one thread can take
//!   a step, the scheduler may run only it. A spin-wait that has to wait for
//!   another thread's write can spin forever (hardware barriers, joins and
//!   mutexes block instead of spinning, so they are not hangs by themselves).
//!
//! The progress model changes no finite execution: a block beyond the
//! resident ones *need not* run, but it may (the hardware may have room), so
//! the outcomes, races and assertion failures explored are those of the fair
//! scheduler; only the verdict on waits that may never end differs.
//!
//! How the explorers find occupancy-bound hangs: the threads of a device's
//! blocks that have not started are taken out of the enabled set, except
//! those of the first blocks in dispatch order that fit in the free slots
//! (so the reference enumerator, which tries every enabled thread, also
//! dispatches in index order). When
//! nothing else can run, the resident blocks wait on blocks that need never
//! be scheduled: a hang ([`OccupancyHang`]). Which threads are held back is
//! a function of the graph (a block has started iff one of its threads has a
//! visible event), so every re-execution of a kept graph schedules alike.

use crate::event::{Event, EventId, EventKind, Loc, Op, ThreadId};
use crate::graph::ExecutionGraph;
use crate::sched::ThreadStatus;
use smallvec::SmallVec;
use std::fmt;

/// A forward-progress model.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Progress {
    /// Every thread that can take a step eventually does (the default).
    #[default]
    Fair,
    /// GPU occupancy-bound execution: at most `resident_blocks` blocks of a
    /// device run at once, each fairly until it finishes; a block that has
    /// not started need not be scheduled while that many are resident.
    OccupancyBound {
        /// How many blocks of one device are resident at once (at least 1).
        resident_blocks: u32,
    },
    /// No fairness: while one thread can run, the others need never run.
    Unfair,
    /// A guarantee per level of the thread hierarchy (seed 003: SYCL
    /// work-items are "not required to provide stronger than weakly
    /// parallel forward progress guarantees"): `within_group` between the
    /// work-items of one work-group (the threads of one block of one
    /// launch), `between_groups` between threads of different work-groups
    /// (and host threads, each a group of its own). Made with
    /// [`Progress::per_level`].
    PerLevel {
        /// Between the threads of one work-group.
        within_group: Guarantee,
        /// Between threads of different work-groups.
        between_groups: Guarantee,
    },
    /// A GPU progress model of Sorensen et al. (`hsa`, `obe`, `lobe`,
    /// `hsa_obe`; see the `progress_model` module), between work-groups and
    /// between the work-items of one.
    Gpu(crate::gpu_progress::GpuProgress),
}

/// The forward-progress guarantee between two threads, at one level of
/// [`Progress::PerLevel`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Guarantee {
    /// Concurrent forward progress: while a thread can take a step, it
    /// eventually does, whatever the other one does.
    Fair,
    /// Weakly parallel forward progress: while the other thread can run,
    /// this one need never be scheduled.
    Weak,
}

impl Guarantee {
    /// The guarantee's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Guarantee::Fair => "fair",
            Guarantee::Weak => "weak",
        }
    }
}

impl Progress {
    /// Forward progress chosen per level: `within_group` between the
    /// work-items of one work-group, `between_groups` between work-groups.
    /// `per_level(Fair, Fair)` is [`Progress::Fair`] and `per_level(Weak,
    /// Weak)` is [`Progress::Unfair`] (those are returned); the mixed ones
    /// are [`Progress::PerLevel`].
    pub const fn per_level(within_group: Guarantee, between_groups: Guarantee) -> Progress {
        match (within_group, between_groups) {
            (Guarantee::Fair, Guarantee::Fair) => Progress::Fair,
            (Guarantee::Weak, Guarantee::Weak) => Progress::Unfair,
            _ => Progress::PerLevel {
                within_group,
                between_groups,
            },
        }
    }

    /// The guarantee between two threads, `same_group` saying whether they
    /// are work-items of one work-group; `None` under the occupancy-bound
    /// model (whose rule is about blocks, not pairs of threads).
    pub fn between(self, same_group: bool) -> Option<Guarantee> {
        match self {
            Progress::Fair => Some(Guarantee::Fair),
            Progress::Unfair => Some(Guarantee::Weak),
            Progress::PerLevel {
                within_group,
                between_groups,
            } => Some(if same_group { within_group } else { between_groups }),
            Progress::OccupancyBound { .. } | Progress::Gpu(_) => None,
        }
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::Fair => f.write_str("fair"),
            Progress::OccupancyBound { resident_blocks } => {
                write!(f, "occupancy-bound, {resident_blocks} resident block(s)")
            }
            Progress::Unfair => f.write_str("unfair"),
            Progress::Gpu(m) => write!(f, "{m}"),
            Progress::PerLevel {
                within_group,
                between_groups,
            } => write!(
                f,
                "per level: {} within a work-group, {} between work-groups",
                within_group.name(),
                between_groups.name()
            ),
        }
    }
}

// The threads a hang report names: a part of the report (`failure.rs`),
// named here too, where the progress models make it.
pub use crate::failure::HangInfo;

/// One kernel launch: its device and the threads of each of its blocks.
#[derive(Clone, Debug)]
struct Kernel {
    device: u32,
    blocks: Vec<Vec<ThreadId>>,
}

/// A block of a kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct BlockRef {
    kernel: usize,
    block: usize,
}

/// The progress model and the kernels of the current execution.
#[derive(Clone, Debug, Default)]
pub struct ProgressState {
    /// The model.
    pub model: Progress,
    kernels: Vec<Kernel>,
    /// Per thread (by id), how far the search for its first visible event
    /// got in this execution's graph. Within an execution the graph only
    /// grows, so each event is looked at once, not at every scheduling step.
    first_visible: Vec<FirstVisible>,
}

/// Where a thread's first visible event is (see [`ProgressState::started`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FirstVisible {
    /// Not among the thread's first this many events, all invisible.
    NotIn(u32),
    /// At this index.
    At(u32),
}

impl FirstVisible {
    /// Brought up to date with `events`, the thread's events now.
    fn update(self, events: &[Event]) -> FirstVisible {
        let from = match self {
            FirstVisible::At(i) if events.get(i as usize).is_some_and(visible) => return self,
            FirstVisible::NotIn(n) if n as usize <= events.len() => n as usize,
            // Fewer events than seen before: not the same graph; look again.
            _ => 0,
        };
        match events[from..].iter().position(visible) {
            Some(i) => FirstVisible::At((from + i) as u32),
            None => FirstVisible::NotIn(events.len() as u32),
        }
    }
}

/// Whether an event is visible to other threads' waits: an access, a
/// barrier or a join. What a thread does before its first such event
/// (allocations, plain cell accesses, spawns) is not.
fn visible(e: &Event) -> bool {
    matches!(
        e.kind,
        EventKind::Read(_) | EventKind::Write(_) | EventKind::Barrier { .. } | EventKind::Join { .. }
    )
}

/// An occupancy-bound hang: the device, its resident blocks and their
/// waiting threads, and the blocks held back with their threads.
#[derive(Clone, Debug)]
pub struct OccupancyHang {
    /// The device.
    pub device: u32,
    /// The resident (started, unfinished) blocks' indices.
    pub resident: Vec<u32>,
    /// The blocks that have not started.
    pub unscheduled: Vec<u32>,
    /// Who waits and who is waited for.
    pub info: HangInfo,
}

impl ProgressState {
    /// Forgets the kernels (each execution registers its launches again).
    pub fn clear(&mut self) {
        self.kernels.clear();
        self.first_visible.clear();
    }

    /// Records a launch on `device` whose block `b` is the threads `blocks[b]`.
    pub fn register_kernel(&mut self, device: u32, blocks: Vec<Vec<ThreadId>>) {
        self.kernels.push(Kernel { device, blocks });
    }

    fn threads(&self, b: BlockRef) -> &[ThreadId] {
        &self.kernels[b.kernel].blocks[b.block]
    }

    /// Brings every kernel thread's first visible event up to date with `g`:
    /// looks only at the events added since the last call, and not even at
    /// those once a thread has one.
    fn refresh(&mut self, g: &ExecutionGraph) {
        for k in &self.kernels {
            for &t in k.blocks.iter().flatten() {
                let i = t as usize;
                if i >= self.first_visible.len() {
                    self.first_visible.resize(i + 1, FirstVisible::NotIn(0));
                }
                self.first_visible[i] = self.first_visible[i].update(g.thread_events(t));
            }
        }
    }

    /// Whether a block has started: one of its threads has a visible event
    /// (an access, a barrier, a join), as of the last
    /// [`ProgressState::refresh`]. What a thread does when it is spawned,
    /// before its first visible step (allocations, plain cell accesses, even
    /// finishing without any visible step), does not count: the runtime
    /// runs it at once, but it is invisible to every other thread's waits.
    fn started(&self, b: BlockRef) -> bool {
        self.threads(b)
            .iter()
            .any(|&t| matches!(self.first_visible.get(t as usize), Some(FirstVisible::At(_))))
    }

    fn finished(&self, status: &[ThreadStatus], b: BlockRef) -> bool {
        self.threads(b)
            .iter()
            .all(|&t| matches!(status.get(t as usize), None | Some(ThreadStatus::Gone)))
    }

    /// Blocks of `device`, as (block, resident, not started).
    fn blocks_of(&self, status: &[ThreadStatus], device: u32) -> (Vec<BlockRef>, Vec<BlockRef>) {
        let mut resident = Vec::new();
        let mut waiting = Vec::new();
        for (k, kern) in self.kernels.iter().enumerate() {
            if kern.device != device {
                continue;
            }
            for block in 0..kern.blocks.len() {
                let b = BlockRef { kernel: k, block };
                if self.finished(status, b) {
                    continue;
                }
                if self.started(b) {
                    resident.push(b);
                } else {
                    waiting.push(b);
                }
            }
        }
        (resident, waiting)
    }

    fn devices(&self) -> Vec<u32> {
        let mut d: Vec<u32> = self.kernels.iter().map(|k| k.device).collect();
        d.sort_unstable();
        d.dedup();
        d
    }

    /// Under the occupancy-bound model, removes from `enabled` the threads
    /// of blocks that need not be scheduled: blocks not started, beyond the
    /// ones that fill the device's free resident slots in dispatch order;
    /// and the threads waiting at a barrier that a held-back thread waits at
    /// too (it has not really arrived). Returns the held-back threads removed.
    pub fn gate(
        &mut self,
        g: &ExecutionGraph,
        status: &[ThreadStatus],
        enabled: &mut SmallVec<[ThreadId; 16]>,
    ) -> Vec<ThreadId> {
        let Progress::OccupancyBound { resident_blocks } = self.model else {
            return Vec::new();
        };
        self.refresh(g);
        let mut held = Vec::new();
        let mut held_barriers = Vec::new();
        for d in self.devices() {
            let (_, held_blocks) = self.dispatch(status, d, resident_blocks);
            for b in held_blocks {
                for &t in self.threads(b) {
                    if enabled.contains(&t) {
                        held.push(t);
                    }
                    if let Some(ThreadStatus::Op(Op::Barrier { group, .. }, _)) = status.get(t as usize) {
                        held_barriers.push(*group);
                    }
                }
            }
        }
        // A thread of a held-back block waiting at its first step, a grid
        // barrier, has not arrived there yet: the barrier cannot complete.
        enabled.retain(|t| {
            !held.contains(t)
                && !matches!(status.get(*t as usize), Some(ThreadStatus::Op(Op::Barrier { group, .. }, _))
                    if held_barriers.contains(group))
        });
        held.sort_unstable();
        held
    }

    /// The blocks of `device` in dispatch order (launch order, then block
    /// index), split into the resident ones (started and not finished, plus
    /// the first not started ones that fill the free slots) and the ones
    /// held back until a slot frees.
    fn dispatch(&self, status: &[ThreadStatus], device: u32, slots: u32) -> (Vec<BlockRef>, Vec<BlockRef>) {
        let (mut resident, waiting) = self.blocks_of(status, device);
        let free = (slots as usize).saturating_sub(resident.len());
        let held = waiting.iter().skip(free).copied().collect();
        resident.extend(waiting.into_iter().take(free));
        (resident, held)
    }

    /// With nothing enabled after [`ProgressState::gate`] held back `held`:
    /// the hang, on the first device with held-back threads (its slots are
    /// all taken by resident blocks).
    pub fn occupancy_hang(
        &mut self,
        g: &ExecutionGraph,
        status: &[ThreadStatus],
        held: &[ThreadId],
    ) -> Option<OccupancyHang> {
        let Progress::OccupancyBound { resident_blocks } = self.model else {
            return None;
        };
        self.refresh(g);
        for d in self.devices() {
            // Blocks are held back only while the resident ones fill every slot.
            let (resident, waiting) = self.dispatch(status, d, resident_blocks);
            let unscheduled: Vec<BlockRef> = waiting
                .into_iter()
                .filter(|&b| self.threads(b).iter().any(|t| held.contains(t)))
                .collect();
            if unscheduled.is_empty() {
                continue;
            }
            let live = |b: &BlockRef| -> Vec<ThreadId> {
                self.threads(*b)
                    .iter()
                    .copied()
                    .filter(|&t| !matches!(status.get(t as usize), None | Some(ThreadStatus::Gone)))
                    .collect()
            };
            let mut w: Vec<ThreadId> = resident.iter().flat_map(live).collect();
            let mut a: Vec<ThreadId> = unscheduled.iter().flat_map(live).collect();
            w.sort_unstable();
            a.sort_unstable();
            return Some(OccupancyHang {
                device: d,
                resident: resident.iter().map(|b| b.block as u32).collect(),
                unscheduled: unscheduled.iter().map(|b| b.block as u32).collect(),
                info: HangInfo { waiting: w, awaited: a },
            });
        }
        None
    }

    /// The work-group of GPU thread `t`: its launch (in launch order) and
    /// its block index, if it is a kernel thread.
    pub fn group_of(&self, t: ThreadId) -> Option<(usize, u32)> {
        self.kernels
            .iter()
            .enumerate()
            .find_map(|(k, kern)| kern.blocks.iter().position(|b| b.contains(&t)).map(|b| (k, b as u32)))
    }

    /// Every block of every kernel: (launch, block index, its threads).
    pub fn blocks(&self) -> Vec<(usize, u32, &[ThreadId])> {
        self.kernels
            .iter()
            .enumerate()
            .flat_map(|(k, kern)| {
                kern.blocks
                    .iter()
                    .enumerate()
                    .map(move |(b, ts)| (k, b as u32, ts.as_slice()))
            })
            .collect()
    }

    /// The block index of GPU thread `t` in its kernel, if it is in one.
    pub fn block_of(&self, t: ThreadId) -> Option<u32> {
        self.kernels
            .iter()
            .find_map(|k| k.blocks.iter().position(|b| b.contains(&t)))
            .map(|b| b as u32)
    }
}

/// Under the unfair model: whether thread `t`, waiting at a spin hint after
/// an iteration that read `read` (per location, the write it read), can
/// spin forever; if so, the threads it may starve (ascending).
///
/// The judgement looks at the state where `t` has just arrived at the spin
/// hint: its porf prefix (every event before it in program order or
/// reads-from), a state every execution with this graph passes through.
/// If that state holds a newer write to a location `t` read, `t` sees it on
/// its next iteration (writes become visible eventually). Otherwise `t`
/// waits for a write no thread has made yet, and an unfair scheduler may run
/// only `t` from there on: a hang, if some other thread is still unfinished
/// in that state and could have made it. A thread that then waits to join
/// another, having done nothing since but spawns, cannot write before its
/// target ends and is not counted.
pub fn unfair_hang(
    g: &ExecutionGraph,
    status: &[ThreadStatus],
    t: ThreadId,
    read: &[(Loc, EventId)],
) -> Option<Vec<ThreadId>> {
    let n = g.thread_len(t);
    if n == 0 {
        return None;
    }
    let prefix = g.porf(EventId::new(t, n - 1));
    let news_in_prefix = read.iter().any(|&(loc, before)| {
        g.loc(loc).is_some_and(|d| {
            let from = g.mo_position(loc, before);
            d.mo[from..].iter().any(|&w| w.thread != t && prefix.contains(w))
        })
    });
    if news_in_prefix {
        return None;
    }
    let mut awaited = Vec::new();
    for u in 0..g.num_threads() as ThreadId {
        let len = g.thread_len(u);
        if u == t || len == 0 {
            continue;
        }
        let end = EventId::new(u, len - 1);
        if matches!(g.event(end).kind, EventKind::End) && prefix.contains(end) {
            continue;
        }
        let joining = matches!(status.get(u as usize), Some(ThreadStatus::Op(Op::Join { .. }, _)));
        let quiet_since = (prefix.get(u)..len).all(|i| {
            !matches!(
                g.event(EventId::new(u, i)).kind,
                EventKind::Read(_) | EventKind::Write(_) | EventKind::Cell { .. } | EventKind::Barrier { .. }
            )
        });
        if joining && quiet_since {
            continue;
        }
        awaited.push(u);
    }
    if awaited.is_empty() {
        None
    } else {
        Some(awaited)
    }
}
