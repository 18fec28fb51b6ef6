//! Memory kinds and the device attributes that decide whether a
//! system-scope atomic is really atomic (docs/semantics.md §2).
//!
//! Seed 001 ("Atomicity") says, word for word:
//!
//! > An atomic operation is atomic at the scope it specifies if:
//! > - it specifies a scope other than `thread_scope_system`, **or**
//! > - the scope is `thread_scope_system` and:
//! >   - it affects an object in system allocated memory and
//! >     `pageableMemoryAccess` is `1` \[0\], **or**
//! >   - it affects an object in managed memory and
//! >     `concurrentManagedAccess` is `1`, **or**
//! >   - it affects an object in mapped memory and
//! >     `hostNativeAtomicSupported` is `1`, **or**
//! >   - it is a load or store that affects a naturally-aligned object of
//! >     sizes 1, 2, 4, 8, or 16 bytes on mapped memory \[1\], **or**
//! >   - it affects an object in GPU memory, only GPU threads access it, and
//! >     - `*val` returned from `cudaDeviceGetP2PAttribute(&val,
//! >       cudaDevP2PAttrNativeAtomicSupported, srcDev, dstDev)` between each
//! >       accessing `srcDev` and the GPU where the object resides, `dstDev`,
//! >       is `1`, or
//! >     - only GPU threads from a single GPU concurrently access it.
//!
//! An operation that is not atomic at its scope is, for the race definition
//! of the same seed ("Data Races"), a plain access: two conflicting accesses
//! not ordered by happens-before, one of them so, are a data race. This
//! module judges each access of a location that was given a memory kind
//! (`gpu::alloc_in`); locations without one (every ordinary atomic) are
//! atomic at every scope, as before.
//!
//! Not modelled: note \[0\] of the seed (with
//! `PageableMemoryAccessUsesHostPagetables` = 0, atomics on memory-mapped
//! files or `hugetlbfs` allocations are not atomic) needs a notion of file
//! backed memory the shim does not have; note \[1\] (16-byte loads and stores
//! on mapped memory need system support) concerns widths the shim's
//! atomics (at most 8 bytes, always naturally aligned) never have.

use crate::event::{EventId, EventKind, Loc, Order, Scope, ThreadId};
use crate::graph::{ExecutionGraph, SyncRules};
use crate::model::relations::Relations;
use std::collections::HashMap;
use std::fmt;

/// Where an object lives (seed 001 links each to the CUDA programming guide).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// GPU memory (`cudaMalloc`), resident on one device.
    Device,
    /// Managed memory (`cudaMallocManaged`, unified memory).
    Managed,
    /// Mapped memory: pinned host memory mapped into the device's address
    /// space (`cudaHostAlloc(..., cudaHostAllocMapped)`).
    Mapped,
    /// System-allocated (pageable) memory: plain `malloc` or the stack,
    /// accessed from the GPU.
    System,
}

impl MemoryKind {
    /// Every kind.
    pub const ALL: [MemoryKind; 4] = [
        MemoryKind::Device,
        MemoryKind::Managed,
        MemoryKind::Mapped,
        MemoryKind::System,
    ];

    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Device => "device (GPU) memory",
            MemoryKind::Managed => "managed memory",
            MemoryKind::Mapped => "mapped memory",
            MemoryKind::System => "system-allocated (pageable) memory",
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The device attributes seed 001 names, as `cudaDeviceProp` reports them
/// (every device of a [`Platform`] has the same ones). The default is every
/// attribute 0: nothing is promised until the test says what its platform
/// has.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceAttributes {
    /// `concurrentManagedAccess`: the device can access managed memory
    /// concurrently with the CPU.
    pub concurrent_managed_access: bool,
    /// `hostNativeAtomicSupported`: the link between device and host
    /// supports native atomic operations.
    pub host_native_atomic_supported: bool,
    /// `pageableMemoryAccess`: the device can access pageable host memory
    /// (system-allocated memory) coherently.
    pub pageable_memory_access: bool,
}

impl DeviceAttributes {
    /// Every attribute 1 (a hardware-coherent system such as a Grace Hopper superchip).
    pub const ALL: DeviceAttributes = DeviceAttributes {
        concurrent_managed_access: true,
        host_native_atomic_supported: true,
        pageable_memory_access: true,
    };
    /// Every attribute 0 (the default).
    pub const NONE: DeviceAttributes = DeviceAttributes {
        concurrent_managed_access: false,
        host_native_atomic_supported: false,
        pageable_memory_access: false,
    };
}

/// The machine a GPU test runs on: the devices' attributes and which pairs
/// of devices have native peer atomics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Platform {
    /// Attributes of every device.
    pub attributes: DeviceAttributes,
    /// Pairs `(src, dst)` for which `cudaDeviceGetP2PAttribute(&val,
    /// cudaDevP2PAttrNativeAtomicSupported, src, dst)` gives 1.
    pub peer_native_atomics: Vec<(u32, u32)>,
}

impl Platform {
    /// A platform whose devices have `attributes` and no native peer atomics.
    pub fn new(attributes: DeviceAttributes) -> Platform {
        Platform {
            attributes,
            peer_native_atomics: Vec::new(),
        }
    }

    /// The same platform where device `src` has native atomics on memory of
    /// device `dst` (`cudaDevP2PAttrNativeAtomicSupported` = 1 from `src` to `dst`).
    pub fn with_peer_native_atomics(mut self, src: u32, dst: u32) -> Platform {
        self.peer_native_atomics.push((src, dst));
        self
    }

    /// Whether device `src` has native atomics on memory resident on `dst`
    /// (a device always has them on its own memory).
    pub fn peer_native(&self, src: u32, dst: u32) -> bool {
        src == dst || self.peer_native_atomics.contains(&(src, dst))
    }
}

/// Where one location lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Residence {
    /// Its memory kind.
    pub kind: MemoryKind,
    /// For [`MemoryKind::Device`], the device it is resident on.
    pub device: u32,
}

/// The memory kinds of the current execution's locations, and the platform.
#[derive(Clone, Debug, Default)]
pub struct MemoryTable {
    /// The platform the run models.
    pub platform: Platform,
    kinds: HashMap<Loc, Residence>,
}

/// What kind of access an event is, for the atomicity rule (a load or store
/// on mapped memory is atomic where a read-modify-write is not).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    Rmw,
}

/// Which condition of seed 001's "Atomicity" a system-scope atomic fails,
/// making it a plain access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlainReason {
    /// On system-allocated memory, and `pageableMemoryAccess` is 0.
    NoPageableMemoryAccess,
    /// On managed memory, and `concurrentManagedAccess` is 0.
    NoConcurrentManagedAccess,
    /// A read-modify-write on mapped memory, and `hostNativeAtomicSupported` is 0.
    NoHostNativeAtomics,
    /// On device memory that this host thread (the lowest numbered one) accesses.
    HostAccess(ThreadId),
    /// On device memory that GPU threads of several devices access, and these
    /// accessing devices (ascending) have no native peer atomics to the device
    /// the object resides on. Two accesses of one device are still atomic.
    NoPeerAtomics(Vec<u32>),
}

/// A system-scope atomic that is a plain access for its memory kind on the
/// platform. Its `Display` is the reason in words, as race reports give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainAccess {
    /// The access.
    pub event: EventId,
    /// The operation it belongs to, as the user wrote it (`fetch_add`, `load`).
    pub op: &'static str,
    /// Where the object lives.
    pub residence: Residence,
    /// Which condition fails.
    pub reason: PlainReason,
}

impl fmt::Display for PlainAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let res = self.residence;
        write!(f, "`{}` at system scope on {}", self.op, res.kind)?;
        match &self.reason {
            PlainReason::NoPageableMemoryAccess => f.write_str(
                " is atomic only if pageableMemoryAccess is 1 (seed 001, Atomicity), and this platform has \
                 pageableMemoryAccess = 0, so it is a plain access",
            ),
            PlainReason::NoConcurrentManagedAccess => f.write_str(
                " is atomic only if concurrentManagedAccess is 1 (seed 001, Atomicity), and this platform has \
                 concurrentManagedAccess = 0, so it is a plain access",
            ),
            PlainReason::NoHostNativeAtomics => f.write_str(
                " is a read-modify-write, atomic on mapped memory only if hostNativeAtomicSupported is 1 \
                 (seed 001, Atomicity; loads and stores would be atomic), and this platform has \
                 hostNativeAtomicSupported = 0, so it is a plain access",
            ),
            PlainReason::HostAccess(h) => write!(
                f,
                " (resident on device {}) is atomic only if only GPU threads access the object \
                 (seed 001, Atomicity), and host thread {h} accesses it, so it is a plain access",
                res.device
            ),
            PlainReason::NoPeerAtomics(missing) => {
                write!(
                    f,
                    " (resident on device {}) is accessed concurrently by GPU threads of two devices, which is \
                     atomic only if {PEER} is 1 between each accessing device and the device the object resides on \
                     (seed 001, Atomicity), and this platform has ",
                    res.device
                )?;
                for (i, d) in missing.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{PEER}({d}, {}) = 0", res.device)?;
                }
                f.write_str(", so it is a plain access")
            }
        }
    }
}

/// A data race that memory kinds make: two conflicting accesses, neither
/// happening before the other, at least one a plain access by its memory kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRace {
    /// The earlier-added access.
    pub first: EventId,
    /// The later-added access.
    pub second: EventId,
    /// The access of the two that is plain, and why (if both are, the one
    /// met first going through the location's writes in mo, then its reads).
    pub why: PlainAccess,
}

impl MemoryTable {
    /// Forgets every location's kind (a new execution registers them again,
    /// since the same location name may be another allocation on another path).
    pub fn clear(&mut self) {
        self.kinds.clear();
    }

    /// Records that `loc` lives in `res`.
    pub fn set(&mut self, loc: Loc, res: Residence) {
        self.kinds.insert(loc, res);
    }

    /// Where `loc` lives, if it was given a memory kind.
    pub fn get(&self, loc: Loc) -> Option<Residence> {
        self.kinds.get(&loc).copied()
    }

    /// Whether no location has a memory kind (the usual case: then nothing
    /// here needs judging).
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Whether `loc` was given a memory kind (its accesses are then judged here).
    pub fn tracked(&self, loc: Loc) -> bool {
        self.kinds.contains_key(&loc)
    }

    /// A pair of conflicting accesses of `loc` in different threads, both
    /// atomic by their order, at least one of which is not atomic at its
    /// (system) scope for `loc`'s memory kind on this platform, neither
    /// happening before the other (earlier-added first), with why. `None`
    /// when there is none.
    pub fn find_race(&self, g: &ExecutionGraph, loc: Loc, rules: SyncRules) -> Option<MemoryRace> {
        let res = self.get(loc)?;
        // This location first: most accesses are atomic where they are,
        // and then nothing else needs looking at.
        let here = self.plain_accesses(g, loc, res);
        if here.is_empty() {
            return None;
        }
        PlainHb::new(self, g, rules, None).race_on(loc, &here)
    }

    /// [`MemoryTable::find_race`] for every location of `g` with a memory
    /// kind, in location order, with one happens-before computation for all.
    pub fn find_races(&self, g: &ExecutionGraph, rules: SyncRules) -> Vec<MemoryRace> {
        let plain: Vec<(Loc, Vec<PlainAccess>)> = g
            .locs()
            .filter_map(|(l, _)| {
                let here = self.plain_accesses(g, *l, self.get(*l)?);
                (!here.is_empty()).then_some((*l, here))
            })
            .collect();
        if plain.is_empty() {
            return Vec::new();
        }
        let all = plain
            .iter()
            .flat_map(|(_, here)| here.iter().map(|p| p.event))
            .collect();
        let mut hb = PlainHb::new(self, g, rules, Some(all));
        plain.iter().filter_map(|(loc, here)| hb.race_on(*loc, here)).collect()
    }

    /// The accesses of `loc` (living in `res`) that are atomic by their
    /// order but not at their scope, each with why.
    fn plain_accesses(&self, g: &ExecutionGraph, loc: Loc, res: Residence) -> Vec<PlainAccess> {
        let Some(d) = g.loc(loc) else { return Vec::new() };
        let accesses: Vec<EventId> =
            d.mo.iter()
                .chain(d.reads.iter())
                .copied()
                .filter(|&e| atomic_order(g, e))
                .collect();
        let ctx = ObjectUse::of(g, &accesses);
        accesses
            .into_iter()
            .filter_map(|e| {
                self.not_atomic(g, res, e, &ctx).map(|reason| PlainAccess {
                    event: e,
                    op: op_name(g, e),
                    residence: res,
                    reason,
                })
            })
            .collect()
    }

    /// Why access `e` of an object in `res` is not atomic at its scope, or
    /// `None` if it is. For GPU memory shared by several GPUs, the answer
    /// holds unless the racing access is of the same GPU (see `race_on`).
    fn not_atomic(&self, g: &ExecutionGraph, res: Residence, e: EventId, ctx: &ObjectUse) -> Option<PlainReason> {
        // "it specifies a scope other than thread_scope_system": atomic.
        if g.event(e).scope != Scope::System {
            return None;
        }
        let a = &self.platform.attributes;
        match res.kind {
            MemoryKind::System if !a.pageable_memory_access => Some(PlainReason::NoPageableMemoryAccess),
            MemoryKind::Managed if !a.concurrent_managed_access => Some(PlainReason::NoConcurrentManagedAccess),
            // Loads and stores on mapped memory are atomic whatever the
            // attributes: the shim's atomics are naturally aligned objects of
            // 1, 2, 4 or 8 bytes.
            MemoryKind::Mapped if access_of(g, e) == Access::Rmw && !a.host_native_atomic_supported => {
                Some(PlainReason::NoHostNativeAtomics)
            }
            MemoryKind::Device => {
                if let Some(&h) = ctx.host.first() {
                    return Some(PlainReason::HostAccess(h));
                }
                if ctx.devices.len() < 2 {
                    return None;
                }
                // Several GPUs access it: each needs native atomics on the
                // device the object resides on.
                let missing: Vec<u32> = ctx
                    .devices
                    .iter()
                    .copied()
                    .filter(|&d| !self.platform.peer_native(d, res.device))
                    .collect();
                (!missing.is_empty()).then_some(PlainReason::NoPeerAtomics(missing))
            }
            _ => None,
        }
    }

    /// What to do about a race [`MemoryTable::find_race`] found on `loc`.
    pub fn fix(&self, loc: Loc) -> String {
        let Some(res) = self.get(loc) else {
            return String::new();
        };
        match res.kind {
            MemoryKind::System => {
                "run on a platform with pageableMemoryAccess = 1 (`DeviceAttributes::pageable_memory_access`), \
                 or allocate the object in managed or device memory, or order the accesses with happens-before"
                    .into()
            }
            MemoryKind::Managed => "run on a platform with concurrentManagedAccess = 1 \
                 (`DeviceAttributes::concurrent_managed_access`), or keep the host from touching the object while \
                 the kernel runs (order the accesses with happens-before)"
                .into(),
            MemoryKind::Mapped => "run on a platform with hostNativeAtomicSupported = 1 \
                 (`DeviceAttributes::host_native_atomic_supported`), or replace the read-modify-writes on mapped \
                 memory by loads and stores, or order them with happens-before"
                .into(),
            MemoryKind::Device => "keep host threads off device memory, use device scope when only one GPU's threads \
                 access the object, or run on a platform with native peer atomics between the devices \
                 (`Platform::with_peer_native_atomics`)"
                .into(),
        }
    }
}

/// Who accesses an object in the execution (the object-level conditions of
/// the seed's GPU-memory case).
struct ObjectUse {
    /// Host threads that access it.
    host: Vec<ThreadId>,
    /// Devices whose threads access it.
    devices: Vec<u32>,
}

impl ObjectUse {
    fn of(g: &ExecutionGraph, accesses: &[EventId]) -> ObjectUse {
        let mut host = Vec::new();
        let mut devices = Vec::new();
        for &e in accesses {
            if e.is_init() {
                continue;
            }
            match g.placement(e.thread).gpu {
                None if !host.contains(&e.thread) => host.push(e.thread),
                Some(p) if !devices.contains(&p.device) => devices.push(p.device),
                _ => {}
            }
        }
        host.sort_unstable();
        devices.sort_unstable();
        ObjectUse { host, devices }
    }
}

/// Happens-before of a graph with every plain access (of any location with
/// a memory kind) made plain: a plain access synchronizes with nothing, so a
/// release/acquire pair of them orders nothing either. Computed once, when
/// the first pair of accesses needs it.
struct PlainHb<'a> {
    table: &'a MemoryTable,
    g: &'a ExecutionGraph,
    rules: SyncRules,
    /// The plain accesses, if the caller has them all already.
    plain: Option<Vec<EventId>>,
    /// The relations, and each event's index in them.
    rel: Option<(Relations, HashMap<EventId, usize>)>,
}

impl<'a> PlainHb<'a> {
    fn new(table: &'a MemoryTable, g: &'a ExecutionGraph, rules: SyncRules, plain: Option<Vec<EventId>>) -> Self {
        PlainHb {
            table,
            g,
            rules,
            plain,
            rel: None,
        }
    }

    /// Whether `a` happens before `b`, or `b` before `a`.
    fn ordered(&mut self, a: EventId, b: EventId) -> bool {
        let (rel, index) = self.rel.get_or_insert_with(|| {
            let (table, g) = (self.table, self.g);
            let plain = self.plain.take().unwrap_or_else(|| {
                g.locs()
                    .filter_map(|(l, _)| table.get(*l).map(|r| (*l, r)))
                    .flat_map(|(l, r)| table.plain_accesses(g, l, r).into_iter().map(|p| p.event))
                    .collect()
            });
            let mut g2 = g.clone();
            for e in plain {
                match &mut g2.event_mut(e).kind {
                    EventKind::Read(r) => r.order = Order::NonAtomic,
                    EventKind::Write(w) => w.order = Order::NonAtomic,
                    _ => {}
                }
            }
            let rel = Relations::of(&g2, self.rules);
            let index = rel
                .ids
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.is_init())
                .map(|(i, e)| (*e, i))
                .collect();
            (rel, index)
        });
        match (index.get(&a), index.get(&b)) {
            (Some(&i), Some(&j)) => rel.hb.has(i, j) || rel.hb.has(j, i),
            _ => false,
        }
    }

    /// The first race on `loc`, whose plain accesses are `here`, pairs taken
    /// in the order their accesses were added.
    fn race_on(&mut self, loc: Loc, here: &[PlainAccess]) -> Option<MemoryRace> {
        let g = self.g;
        let d = g.loc(loc)?;
        let mut accesses: Vec<(EventId, bool)> =
            d.mo.iter()
                .map(|&w| (w, true))
                .chain(d.reads.iter().map(|&r| (r, false)))
                .filter(|&(e, _)| atomic_order(g, e))
                .collect();
        accesses.sort_by_key(|&(e, _)| g.event(e).stamp);
        let dev = |t: ThreadId| g.placement(t).gpu.map(|p| p.device);
        for (i, &(a, aw)) in accesses.iter().enumerate() {
            for &(b, bw) in &accesses[i + 1..] {
                if a.thread == b.thread || !(aw || bw) {
                    continue;
                }
                let Some(why) = here.iter().find(|p| p.event == a || p.event == b) else {
                    continue;
                };
                // GPU memory shared by GPUs without native peer atomics:
                // "or only GPU threads from a single GPU concurrently access
                // it" -- two unordered accesses of one device are atomic.
                if matches!(why.reason, PlainReason::NoPeerAtomics(_)) && dev(a.thread) == dev(b.thread) {
                    continue;
                }
                if self.ordered(a, b) {
                    continue;
                }
                return Some(MemoryRace {
                    first: a,
                    second: b,
                    why: why.clone(),
                });
            }
        }
        None
    }
}

fn atomic_order(g: &ExecutionGraph, e: EventId) -> bool {
    match &g.event(e).kind {
        EventKind::Read(r) => r.order.is_atomic(),
        EventKind::Write(w) => w.order.is_atomic(),
        _ => false,
    }
}

/// The operation an access belongs to, as the user wrote it (`fetch_add`,
/// `load`, `store`): the write part of an RMW is named by its read part.
fn op_name(g: &ExecutionGraph, e: EventId) -> &'static str {
    match &g.event(e).kind {
        EventKind::Read(r) => r.rmw.map_or("load", |(op, ..)| op.name()),
        EventKind::Write(w) if w.rmw && e.index > 0 => match &g.event(EventId::new(e.thread, e.index - 1)).kind {
            EventKind::Read(r) => r.rmw.map_or("read-modify-write", |(op, ..)| op.name()),
            _ => "read-modify-write",
        },
        _ => "store",
    }
}

/// The CUDA name of the peer attribute.
const PEER: &str = "cudaDevP2PAttrNativeAtomicSupported";

fn access_of(g: &ExecutionGraph, e: EventId) -> Access {
    match &g.event(e).kind {
        EventKind::Read(r) if r.rmw.is_some() => Access::Rmw,
        EventKind::Write(w) if w.rmw => Access::Rmw,
        EventKind::Read(_) => Access::Load,
        _ => Access::Store,
    }
}
