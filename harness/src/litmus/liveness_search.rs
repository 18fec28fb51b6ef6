//! The search for a schedule that never ends (see the parent module): over
//! the explored state graph, for each set `L` of threads that keep
//! stepping, the strongly connected components of the graph restricted to
//! `L`'s steps in which every thread of `L` steps; the other threads stay
//! put there. With `L` empty, a single state where some thread is blocked
//! at a barrier. Each candidate is kept when the progress model lets every
//! thread that stays put while able to run (starved) stay put.

use super::{Prog, ProgressModel, Space, State, Witness};

/// What a thread does forever in a candidate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// Finished.
    Done,
    /// Blocked at a barrier that never completes.
    Blocked,
    /// Keeps stepping (spins).
    Spins,
    /// Could run but is never scheduled again.
    Starved,
}

impl Class {
    /// Dat3M's "schedulable": enabled, not finished, not blocked.
    fn schedulable(self) -> bool {
        matches!(self, Class::Spins | Class::Starved)
    }
}

impl Prog<'_> {
    /// A never-ending schedule the progress model allows, if there is one.
    pub(super) fn search(&self, space: &Space, model: ProgressModel) -> Option<Witness> {
        let n = self.code.len();
        let mut masks: Vec<u32> = (0..1u32 << n).collect();
        masks.sort_by_key(|m| (m.count_ones(), *m));
        for mask in masks {
            if mask == 0 {
                for s in &space.states {
                    let cls: Vec<Class> = (0..n).map(|t| self.frozen(std::slice::from_ref(s), t)).collect();
                    if cls.contains(&Class::Blocked) && self.allowed(s, &cls, model) {
                        return Some(self.witness(std::slice::from_ref(s), &cls));
                    }
                }
                continue;
            }
            for comp in components(space, mask) {
                let inside = |i: usize| comp.binary_search(&i).is_ok();
                let every_steps = (0..n).filter(|t| mask & (1 << t) != 0).all(|t| {
                    comp.iter()
                        .any(|&i| space.edges[i].iter().any(|&(u, j)| u == t && inside(j)))
                });
                if !every_steps {
                    continue;
                }
                let states: Vec<State> = comp.iter().map(|&i| space.states[i].clone()).collect();
                let cls: Vec<Class> = (0..n)
                    .map(|t| {
                        if mask & (1 << t) != 0 {
                            Class::Spins
                        } else {
                            self.frozen(&states, t)
                        }
                    })
                    .collect();
                if self.allowed(&states[0], &cls, model) {
                    return Some(self.witness(&states, &cls));
                }
            }
        }
        None
    }

    /// The class of a thread that takes no step in `states`.
    fn frozen(&self, states: &[State], t: usize) -> Class {
        if self.done(&states[0], t) {
            Class::Done
        } else if states.iter().all(|s| self.blocked(s, t)) {
            Class::Blocked
        } else {
            Class::Starved
        }
    }

    /// Whether the progress model lets the starved threads starve: some
    /// assignment of progress to the hierarchy's nodes meets the model's
    /// rules with no starved thread having progress.
    pub(super) fn allowed(&self, s: &State, cls: &[Class], model: ProgressModel) -> bool {
        let all: Vec<usize> = (0..self.code.len()).collect();
        self.group_ok(s, &all, 0, cls, model)
    }

    /// Whether a group (its member threads; `depth` levels below the root)
    /// can have progress.
    fn group_ok(&self, s: &State, members: &[usize], depth: usize, cls: &[Class], model: ProgressModel) -> bool {
        let leaf_level = members.iter().all(|&t| depth >= self.code[t].path.len());
        // Children as (id, members), by ascending id.
        let mut children: Vec<(u32, Vec<usize>)> = Vec::new();
        for &t in members {
            let id = if leaf_level {
                self.code[t].index
            } else {
                self.code[t].path.get(depth).copied().unwrap_or(u32::MAX)
            };
            match children.iter_mut().find(|(i, _)| *i == id) {
                Some((_, m)) => m.push(t),
                None => children.push((id, vec![t])),
            }
        }
        children.sort_by_key(|(id, _)| *id);
        let sched = |ms: &[usize]| ms.iter().any(|&t| cls[t].schedulable());
        let started = |ms: &[usize]| ms.iter().any(|&t| s.threads[t].started);
        let child_ok = |ms: &[usize]| {
            if leaf_level {
                cls[ms[0]] != Class::Starved
            } else {
                self.group_ok(s, ms, depth + 1, cls, model)
            }
        };
        let hsa = |k: usize| children[..k].iter().all(|(_, ms)| !sched(ms));
        let obe = |k: usize| started(&children[k].1);
        let forced: Vec<bool> = (0..children.len())
            .map(|k| match model {
                ProgressModel::Fair => true,
                ProgressModel::Hsa => hsa(k),
                ProgressModel::Obe => obe(k),
                ProgressModel::HsaObe => hsa(k) || obe(k),
                ProgressModel::Lobe => children[k..].iter().any(|(_, ms)| started(ms)),
            })
            .collect();
        for (k, (_, ms)) in children.iter().enumerate() {
            if forced[k] && !child_ok(ms) {
                return false;
            }
        }
        // Minimal progress: a group with progress that can run lets one of
        // its children that can run have progress.
        if !sched(members) {
            return true;
        }
        children
            .iter()
            .enumerate()
            .any(|(k, (_, ms))| sched(ms) && (forced[k] || child_ok(ms)))
    }

    fn witness(&self, states: &[State], cls: &[Class]) -> Witness {
        let mut w = Witness {
            spinning: Vec::new(),
            blocked: Vec::new(),
            starved: Vec::new(),
            finished: Vec::new(),
            keeps_reading: Vec::new(),
        };
        for (t, c) in cls.iter().enumerate() {
            let code = &self.code[t];
            let at = |pc: u32| code.pos.get(pc as usize).copied().flatten().unwrap_or_default();
            match c {
                Class::Done => w.finished.push(code.index),
                Class::Blocked => w.blocked.push((code.index, at(states[0].threads[t].pc))),
                Class::Spins => {
                    // The loop's last instruction the thread reaches: its backward jump.
                    let pc = states.iter().map(|s| s.threads[t].pc).max().unwrap_or(0);
                    w.spinning.push((code.index, at(pc)));
                }
                Class::Starved => {
                    let th = &states[0].threads[t];
                    w.starved.push((code.index, th.started.then(|| at(th.pc))));
                }
            }
        }
        w
    }
}

/// The strongly connected components (each sorted) of the state graph
/// restricted to the steps of the threads in `mask`, that have at least one
/// such step inside (Tarjan's algorithm, iterative).
fn components(space: &Space, mask: u32) -> Vec<Vec<usize>> {
    let n = space.states.len();
    let succ = |v: usize| {
        space.edges[v]
            .iter()
            .filter(move |(t, _)| mask & (1 << t) != 0)
            .map(|&(_, j)| j)
    };
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (vertex, successors still to visit)
        let mut work: Vec<(usize, Vec<usize>)> = vec![(root, succ(root).collect())];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((v, rest)) = work.last_mut() {
            let v = *v;
            if let Some(w) = rest.pop() {
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, succ(w).collect()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((p, _)) = work.last() {
                let p = *p;
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                let has_edge = comp.iter().any(|&x| succ(x).any(|y| comp.binary_search(&y).is_ok()));
                if has_edge {
                    out.push(comp);
                }
            }
        }
    }
    out
}
