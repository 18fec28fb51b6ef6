//! Liveness of PTX and Vulkan litmus tests under the GPU progress models
//! (`--progress fair|obe|hsa|lobe|hsa_obe`; Sorensen et al., "Specifying
//! and testing GPU workgroup progress models", OOPSLA 2021, as Dat3M
//! encodes them; docs/gpu-models.md §6).
//!
//! The question: is there an infinite execution that the progress model
//! allows and that never ends? Such an execution settles, after a finite
//! prefix, into a cycle in which some threads keep stepping (they spin in a
//! loop forever: `L`), and every other thread stays put: at its end (`T`),
//! blocked at a barrier that never completes (`B`), or enabled but never
//! scheduled again (`S`, starved). It is a liveness violation when some
//! thread spins or blocks forever and the progress model lets every
//! starved thread starve.
//!
//! Which threads must be scheduled follows Dat3M's forward-progress
//! encoding over the thread hierarchy (Vulkan: queue family, workgroup,
//! subgroup, thread; PTX: GPU, CTA, thread), the same model at every
//! level. The root has progress; a group with progress passes it to
//! children:
//! - `fair`: to every child;
//! - `hsa`: to the child with the lowest id among those not finished or
//!   blocked (and to every child before which all are finished or blocked);
//! - `obe`: to every child that has started (taken a step);
//! - `lobe`: to every child with a started child of the same or higher id;
//! - `hsa_obe`: both `hsa`'s and `obe`'s;
//! - and under every model, a group with progress that still has a child
//!   able to run gives progress to at least one such child.
//!
//! A thread with progress never starves. A starved thread may be one that
//! never started: under `obe` a thread that waits for another that has not
//! started spins forever.
//!
//! The executions are the interleavings of the threads' instructions with
//! one memory value per location (sequential consistency). Every such
//! execution is one the PTX and Vulkan models allow, and memory fairness
//! (a spinning read eventually sees the last write) holds in it, so a
//! violation found here is one under every model. What SC cannot show is a
//! spin that only weak memory makes endless (a read that may keep seeing a
//! stale value because coherence leaves two writes unordered, as PTX's weak
//! accesses do): when the interleavings show no violation, the search under
//! the hardware model (`liveness_weak.rs`) looks for one.
//!
//! The state space is explored explicitly (every reachable state once),
//! so loops are not unrolled; a test with more than [`MAX_STATES`] states
//! (registers that count without bound) is refused, saying so.

use super::ast::*;
use super::gpu::{Dialect, GpuCode, Item, Operand};
use super::gpu_model::GpuModel;
use scopecheck_checker::model::gpu::GpuKind;
use std::collections::HashMap;
use std::fmt;

/// The most states explored before giving up.
pub const MAX_STATES: usize = 200_000;

/// The most threads a test may have (the search tries every set of spinning threads).
pub const MAX_THREADS: usize = 12;

/// A GPU progress model (Sorensen et al. OOPSLA 2021; Dat3M's names).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProgressModel {
    /// Every thread that can run eventually does.
    Fair,
    /// Occupancy-bound execution: a started thread (group) runs fairly; one
    /// not started need never start.
    Obe,
    /// Heterogeneous System Architecture: only the lowest-id thread (group)
    /// that has not finished is guaranteed to run.
    Hsa,
    /// Linear OBE: once a thread (group) starts, it and every lower-id one
    /// run fairly.
    Lobe,
    /// The guarantees of HSA and OBE together.
    HsaObe,
}

impl ProgressModel {
    /// Every model, in the order of the flag's help.
    pub const ALL: [ProgressModel; 5] = [
        ProgressModel::Fair,
        ProgressModel::Obe,
        ProgressModel::Hsa,
        ProgressModel::Lobe,
        ProgressModel::HsaObe,
    ];

    /// The name on the command line and in expectation files.
    pub fn name(self) -> &'static str {
        match self {
            ProgressModel::Fair => "fair",
            ProgressModel::Obe => "obe",
            ProgressModel::Hsa => "hsa",
            ProgressModel::Lobe => "lobe",
            ProgressModel::HsaObe => "hsa_obe",
        }
    }
}

impl fmt::Display for ProgressModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ProgressModel {
    type Err = String;
    fn from_str(s: &str) -> Result<ProgressModel, String> {
        ProgressModel::ALL
            .into_iter()
            .find(|m| {
                m.name().eq_ignore_ascii_case(s) || (s.eq_ignore_ascii_case("hsa-obe") && *m == ProgressModel::HsaObe)
            })
            .ok_or_else(|| format!("unknown progress model `{s}` (expected fair, obe, hsa, lobe or hsa_obe)"))
    }
}

/// What the liveness check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness {
    /// The progress model.
    pub progress: ProgressModel,
    /// True when no execution the model allows runs forever.
    pub live: bool,
    /// The violation, when there is one.
    pub witness: Option<Witness>,
    /// States explored.
    pub states: usize,
    /// What the search under the hardware model did.
    pub weak: WeakSearch,
}

/// A schedule that never ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// Threads that spin forever, each with where (the loop's backward jump).
    pub spinning: Vec<(u32, Pos)>,
    /// Threads blocked forever at a barrier, with the barrier.
    pub blocked: Vec<(u32, Pos)>,
    /// Threads the progress model need never schedule again (they wait
    /// with nothing to stop them, or never started), with where they stopped
    /// (`None`: before their first instruction).
    pub starved: Vec<(u32, Option<Pos>)>,
    /// Threads that finished.
    pub finished: Vec<u32>,
    /// For a spin only weak memory makes endless (found under the hardware
    /// model, `liveness_weak.rs`): the reads the spinning threads keep
    /// making, each of a co-maximal write. Empty for a sequentially
    /// consistent witness.
    pub keeps_reading: Vec<KeptRead>,
}

impl Liveness {
    /// One line for reports: `Liveness under hsa: No (...)`.
    pub fn text(&self, file: &str) -> String {
        match &self.witness {
            None => format!(
                "Liveness under {}: Ok (every execution ends; {} states{})",
                self.progress,
                self.states,
                match &self.weak {
                    WeakSearch::Done(n) => format!("; {n} executions under the memory model"),
                    WeakSearch::Bounded(n) => format!(
                        "; {n} executions under the memory model, loops cut at {} iterations as in Dat3M's bound \
                         (a thread still needed more)",
                        weak::MAX_UNROLL + 1
                    ),
                    WeakSearch::Skipped(why) => format!("; no search under the memory model: {why}"),
                    WeakSearch::NotNeeded => String::new(),
                }
            ),
            Some(w) => format!("Liveness under {}: No ({})", self.progress, w.text(file)),
        }
    }
}

impl Witness {
    /// The threads that starve and the ones they wait for, located.
    pub fn text(&self, file: &str) -> String {
        let mut parts = Vec::new();
        for (t, p) in &self.spinning {
            let mut s = format!("P{t} spins forever in the loop at {file}:{}", p.line);
            let reads: Vec<String> = self
                .keeps_reading
                .iter()
                .filter(|r| r.thread == *t)
                .map(|r| {
                    let from = match r.writer {
                        None => "the initial value".to_string(),
                        Some((w, line)) => format!("P{w}'s write at line {line}"),
                    };
                    format!("{} = {} ({from}, co-last)", r.loc, r.value)
                })
                .collect();
            if !reads.is_empty() {
                s.push_str(&format!(
                    ", reading {} forever under the memory model",
                    reads.join(", ")
                ));
            }
            parts.push(s);
        }
        for (t, p) in &self.blocked {
            parts.push(format!("P{t} waits forever at the barrier at {file}:{}", p.line));
        }
        if !self.starved.is_empty() {
            let who: Vec<String> = self
                .starved
                .iter()
                .map(|(t, p)| match p {
                    None => format!("P{t} (never started)"),
                    Some(p) => format!("P{t} (stopped at {file}:{})", p.line),
                })
                .collect();
            parts.push(format!(
                "waiting for {}, which the progress model need never schedule",
                who.join(", ")
            ));
        }
        if !self.finished.is_empty() {
            let who: Vec<String> = self.finished.iter().map(|t| format!("P{t}")).collect();
            parts.push(format!("{} finished", who.join(", ")));
        }
        parts.join("; ")
    }
}

/// Decides liveness of a parsed GPU test under `progress` and the
/// dialect's default hardware model (`ptx7.5`, `vulkan`). Errors carry a
/// position in the test (an instruction the check cannot run) or none.
pub fn check(test: &Test, progress: ProgressModel) -> Result<Liveness, (Option<Pos>, String)> {
    check_limited(test, progress, MAX_STATES)
}

/// [`check`] exploring at most `max_states` states.
pub fn check_limited(
    test: &Test,
    progress: ProgressModel,
    max_states: usize,
) -> Result<Liveness, (Option<Pos>, String)> {
    check_under(test, progress, None, max_states)
}

/// [`check`] under the hardware model `model` (`None`: the dialect's
/// default), exploring at most `max_states` states.
pub fn check_under(
    test: &Test,
    progress: ProgressModel,
    model: Option<GpuModel>,
    max_states: usize,
) -> Result<Liveness, (Option<Pos>, String)> {
    check_all(test, &[progress], model, max_states)
        .pop()
        .expect("one answer per progress model")
}

/// [`check_under`] for each of `progress`, in order. The state space and
/// the executions under the memory model are built once and judged under
/// every progress model.
pub fn check_all(
    test: &Test,
    progress: &[ProgressModel],
    model: Option<GpuModel>,
    max_states: usize,
) -> Vec<Result<Liveness, (Option<Pos>, String)>> {
    let every = |f: Fail| progress.iter().map(|_| Err(f.clone())).collect();
    let Some(gpu) = test.gpu.as_deref() else {
        return every((
            None,
            "liveness (--progress) is checked for PTX and Vulkan tests only".to_string(),
        ));
    };
    let model = model.unwrap_or_else(|| GpuModel::default_for(gpu.dialect));
    if model.dialect() != gpu.dialect {
        return every((
            None,
            format!(
                "liveness under {} judges {:?} tests only, not this one",
                model.name(),
                model.dialect()
            ),
        ));
    }
    let space = Prog::new(test, gpu).and_then(|prog| prog.explore(max_states).map(|space| (prog, space)));
    let (prog, space) = match space {
        Ok(ps) => ps,
        Err(f) => return every(f),
    };
    // Sequentially consistent executions first (they find livelocks with
    // side effects too); then the spins only weak memory makes endless,
    // for the progress models without a violation so far.
    let sc: Vec<Option<Witness>> = progress.iter().map(|&p| prog.search(&space, p)).collect();
    let undecided: Vec<ProgressModel> = progress
        .iter()
        .zip(&sc)
        .filter(|(_, w)| w.is_none())
        .map(|(&p, _)| p)
        .collect();
    let mut weak = prog.weak_search(test, model, &undecided).into_iter();
    progress
        .iter()
        .zip(sc)
        .map(|(&progress, w)| {
            let (witness, weak) = match w {
                Some(w) => (Some(w), WeakSearch::NotNeeded),
                None => weak.next().expect("one weak answer per undecided model")?,
            };
            Ok(Liveness {
                progress,
                live: witness.is_none(),
                witness,
                states: space.states.len(),
                weak,
            })
        })
        .collect()
}

/// Reads, parses and checks the test at `path` under each model in
/// `progress` and the dialect's default hardware model; an error is
/// `file:line:col: what` (or `file: what`).
pub fn check_path(
    path: &std::path::Path,
    progress: &[ProgressModel],
) -> Vec<(ProgressModel, Result<Liveness, String>)> {
    check_path_under(path, None, progress)
}

/// [`check_path`] under the hardware model `model` (`None`: the dialect's default).
pub fn check_path_under(
    path: &std::path::Path,
    model: Option<GpuModel>,
    progress: &[ProgressModel],
) -> Vec<(ProgressModel, Result<Liveness, String>)> {
    let file = path.display().to_string();
    let test = super::limits::read_source(path)
        .map_err(|e| e.located(&file))
        .and_then(|src| super::parse(&src).map_err(|e| format!("{file}:{e}")));
    let found = match &test {
        Ok(t) => check_all(t, progress, model, MAX_STATES),
        Err(e) => return progress.iter().map(|&p| (p, Err(e.clone()))).collect(),
    };
    progress
        .iter()
        .zip(found)
        .map(|(&p, r)| {
            let r = r.map_err(|(pos, m)| match pos {
                Some(pos) => format!("{file}:{pos}: {m}"),
                None => format!("{file}: {m}"),
            });
            (p, r)
        })
        .collect()
}

/// A barrier instance: (group key, logical id).
type BarKey = ((u32, u32), i64);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BarState {
    key: BarKey,
    /// Threads arrived in this generation.
    arrived: Vec<u32>,
    /// Completed generations (a quorum barrier completes once and stays open).
    gen: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TState {
    pc: u32,
    regs: Vec<i64>,
    started: bool,
    /// Waiting at a barrier: its key and the generation it waits to complete.
    wait: Option<(BarKey, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    threads: Vec<TState>,
    mem: Vec<i64>,
    bars: Vec<BarState>,
}

/// A thread's compiled instruction list.
struct Code<'a> {
    index: u32,
    items: &'a [Item],
    /// Where each item is (labels: the next item's position).
    pos: Vec<Option<Pos>>,
    labels: HashMap<&'a str, u32>,
    regs: HashMap<String, usize>,
    group: (u32, u32),
    /// The thread's place, outermost level first, for the hierarchy.
    path: Vec<u32>,
}

struct Prog<'a> {
    gpu: &'a GpuCode,
    code: Vec<Code<'a>>,
    locs: HashMap<String, usize>,
    init: State,
    /// Per barrier (group, id): the threads with a barrier of that id (or a
    /// register id) in their code; a barrier without a quorum completes
    /// when all of them have arrived.
    participants: HashMap<BarKey, Vec<u32>>,
}

struct Space {
    states: Vec<State>,
    /// Per state: (thread position, successor).
    edges: Vec<Vec<(usize, usize)>>,
}

type Fail = (Option<Pos>, String);

fn fail(pos: Pos, m: impl Into<String>) -> Fail {
    (Some(pos), m.into())
}

impl<'a> Prog<'a> {
    fn new(test: &'a Test, gpu: &'a GpuCode) -> Result<Prog<'a>, Fail> {
        if gpu.code.len() > MAX_THREADS {
            return Err((
                None,
                format!(
                    "liveness is checked for tests of at most {MAX_THREADS} threads (this one has {})",
                    gpu.code.len()
                ),
            ));
        }
        let mut locs: HashMap<String, usize> = HashMap::new();
        let mut mem = Vec::new();
        for i in &test.init {
            if let InitTarget::Loc(name) = &i.target {
                let v = match &i.value {
                    InitValue::Int(v) => *v,
                    _ => return Err(fail(i.pos, "liveness: only integer initial values are supported")),
                };
                let k = *locs.entry(name.clone()).or_insert_with(|| {
                    mem.push(0);
                    mem.len() - 1
                });
                mem[k] = v;
            }
        }
        let mut code = Vec::new();
        let mut threads = Vec::new();
        for (k, items) in gpu.code.iter().enumerate() {
            let t = &test.threads[k];
            let place = gpu.places[k];
            let mut c = Code {
                index: t.index,
                items,
                pos: Vec::new(),
                labels: HashMap::new(),
                regs: HashMap::new(),
                group: (place[1], place[2]),
                path: match gpu.dialect {
                    Dialect::Vulkan => vec![place[2], place[1], place[0]],
                    Dialect::Ptx => vec![place[2], place[1]],
                },
            };
            for (i, it) in items.iter().enumerate() {
                if let Item::Label(l) = it {
                    c.labels.insert(l.as_str(), i as u32);
                }
                let p = match it {
                    Item::Stmts(s) => s.first().map(|s| s.pos),
                    Item::Goto(_, p) => Some(*p),
                    Item::Branch { pos, .. } => Some(*pos),
                    Item::Label(_) => None,
                };
                c.pos.push(p);
                scan_item(it, &mut c.regs, &mut locs, &mut mem);
            }
            // A label's position is the next instruction's (or the last one's).
            let mut next = None;
            for i in (0..c.pos.len()).rev() {
                match c.pos[i] {
                    Some(p) => next = Some(p),
                    None => c.pos[i] = next,
                }
            }
            let mut last = None;
            for p in c.pos.iter_mut() {
                match p {
                    Some(q) => last = Some(*q),
                    None => *p = last,
                }
            }
            let mut regs = vec![0; c.regs.len()];
            for i in &test.init {
                if let InitTarget::Reg { thread, reg } = &i.target {
                    if *thread == t.index {
                        if let (Some(&r), InitValue::Int(v)) = (c.regs.get(reg), &i.value) {
                            regs[r] = *v;
                        }
                    }
                }
            }
            threads.push(TState {
                pc: 0,
                regs,
                started: false,
                wait: None,
            });
            code.push(c);
        }
        let mut participants: HashMap<BarKey, Vec<u32>> = HashMap::new();
        let mut reg_sites: Vec<((u32, u32), u32)> = Vec::new();
        for (k, c) in code.iter().enumerate() {
            for it in c.items {
                for s in stmts_of(it) {
                    if let Some((id, _, _)) = barrier_of(gpu, s) {
                        match id {
                            Some(id) => {
                                let e = participants.entry((c.group, id)).or_default();
                                if !e.contains(&(k as u32)) {
                                    e.push(k as u32);
                                }
                            }
                            None => reg_sites.push((c.group, k as u32)),
                        }
                    }
                }
            }
        }
        for (g, k) in reg_sites {
            for (key, e) in participants.iter_mut() {
                if key.0 == g && !e.contains(&k) {
                    e.push(k);
                }
            }
        }
        Ok(Prog {
            gpu,
            code,
            locs,
            init: State {
                threads,
                mem,
                bars: Vec::new(),
            },
            participants,
        })
    }

    fn explore(&self, max_states: usize) -> Result<Space, Fail> {
        let mut index: HashMap<State, usize> = HashMap::new();
        let mut space = Space {
            states: vec![self.init.clone()],
            edges: Vec::new(),
        };
        index.insert(self.init.clone(), 0);
        let mut next = 0;
        while next < space.states.len() {
            let s = space.states[next].clone();
            let mut out = Vec::new();
            for t in 0..self.code.len() {
                if let Some(n) = self.step(&s, t)? {
                    let id = match index.get(&n) {
                        Some(&i) => i,
                        None => {
                            if space.states.len() >= max_states {
                                return Err((
                                    None,
                                    format!(
                                        "liveness: more than {max_states} states (registers or memory that \
                                         count without bound?); not decided"
                                    ),
                                ));
                            }
                            space.states.push(n.clone());
                            index.insert(n, space.states.len() - 1);
                            space.states.len() - 1
                        }
                    };
                    out.push((t, id));
                }
            }
            space.edges.push(out);
            next += 1;
        }
        Ok(space)
    }

    /// Whether thread `t` is at its end.
    fn done(&self, s: &State, t: usize) -> bool {
        s.threads[t].pc as usize >= self.code[t].items.len()
    }

    /// Whether thread `t` is blocked at a barrier not yet complete.
    fn blocked(&self, s: &State, t: usize) -> bool {
        match &s.threads[t].wait {
            None => false,
            Some((key, gen)) => s.bars.iter().find(|b| &b.key == key).is_none_or(|b| b.gen <= *gen),
        }
    }

    /// The state after thread `t` takes one step, `None` if it cannot.
    fn step(&self, s: &State, t: usize) -> Result<Option<State>, Fail> {
        if self.done(s, t) || self.blocked(s, t) {
            return Ok(None);
        }
        let mut n = s.clone();
        n.threads[t].started = true;
        if n.threads[t].wait.take().is_some() {
            // Released from the barrier: move past it.
            n.threads[t].pc += 1;
            return Ok(Some(n));
        }
        let c = &self.code[t];
        let pc = s.threads[t].pc as usize;
        match &c.items[pc] {
            Item::Label(_) => n.threads[t].pc += 1,
            Item::Goto(l, _) => n.threads[t].pc = c.labels[l.as_str()],
            Item::Branch { eq, a, b, target, .. } => {
                let va = operand(&n.threads[t].regs, c, a);
                let vb = operand(&n.threads[t].regs, c, b);
                if (va == vb) == *eq {
                    n.threads[t].pc = c.labels[target.as_str()];
                } else {
                    n.threads[t].pc += 1;
                }
            }
            Item::Stmts(stmts) => {
                let mut ex = Exec {
                    prog: self,
                    t,
                    bar_id: None,
                    barrier: None,
                };
                for st in stmts {
                    ex.stmt(&mut n, st)?;
                }
                match ex.barrier {
                    None => n.threads[t].pc += 1,
                    Some((key, quorum, arrive)) => {
                        let parts = self.participants.get(&key).map_or(1, Vec::len);
                        let at = match n.bars.iter().position(|b| b.key == key) {
                            Some(i) => i,
                            None => {
                                n.bars.push(BarState {
                                    key,
                                    arrived: Vec::new(),
                                    gen: 0,
                                });
                                n.bars.sort_by_key(|b| b.key);
                                n.bars.iter().position(|b| b.key == key).unwrap_or(0)
                            }
                        };
                        let b = &mut n.bars[at];
                        let gen = b.gen;
                        let open = quorum.is_some() && gen > 0;
                        if !open {
                            b.arrived.push(t as u32);
                            let need = quorum.map_or(parts, |q| q as usize);
                            if b.arrived.len() >= need {
                                b.gen += 1;
                                // A barrier without a quorum starts a new round;
                                // a quorum barrier stays open.
                                if quorum.is_none() {
                                    b.arrived.clear();
                                }
                            }
                        }
                        if arrive || open {
                            n.threads[t].pc += 1;
                        } else {
                            n.threads[t].wait = Some((key, gen));
                            if !self.blocked(&n, t) {
                                // It completed the barrier itself.
                                n.threads[t].wait = None;
                                n.threads[t].pc += 1;
                            }
                        }
                    }
                }
            }
        }
        Ok(Some(n))
    }
}

fn stmts_of(it: &Item) -> &[Stmt] {
    match it {
        Item::Stmts(s) => s,
        _ => &[],
    }
}

/// The barrier a statement is (per the side table): id (None: a register's),
/// quorum, arrive.
fn barrier_of(gpu: &GpuCode, s: &Stmt) -> Option<(Option<i64>, Option<u32>, bool)> {
    if !matches!(s.kind, StmtKind::Fence { .. }) {
        return None;
    }
    match gpu.ops.get(&(s.pos.line, s.pos.col)).map(|o| &o.kind) {
        Some(GpuKind::Barrier { id, quorum, arrive }) => Some((*id, *quorum, *arrive)),
        _ => None,
    }
}

fn operand(regs: &[i64], c: &Code<'_>, o: &Operand) -> i64 {
    match o {
        Operand::Int(v) => *v,
        Operand::Reg(r) => c.regs.get(r).map_or(0, |&i| regs[i]),
    }
}

#[path = "liveness_exec.rs"]
mod exec;
use exec::{scan_item, Exec};

#[path = "liveness_search.rs"]
mod search;

#[path = "liveness_spin.rs"]
mod spin;
#[path = "liveness_weak.rs"]
mod weak;
pub use weak::{KeptRead, WeakSearch};
