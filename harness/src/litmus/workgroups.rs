//! Work-group barriers and local memory of C-dialect litmus tests on the
//! engine's own models: `src11` (`scopecheck litmus --model src11`) and the
//! DRFrlx analysis (`scopecheck drfrlx`). The `opencl` model has its own
//! reading of both (`opencl.rs`: entry and exit fences matched by label, and
//! regions); here they become what the Rust API's kernels use, so a litmus
//! test means what the same program written with `gpu::launch` means
//! (docs/gpu-memory-spaces.md, docs/opencl-model.md section 10):
//!
//! - **A work-group** is the test threads with one `(device, block)`
//!   placement (`P0@wg 0, dev 0`). A thread placed without a `wg` level is a
//!   work-group of its own, as its scopes already treat it.
//! - **`barrier(flags)`** and **`work_group_barrier(flags[, scope])`** are a
//!   block barrier of that work-group (the engine's `Op::Barrier`): every
//!   member waits until all have arrived, and everything each did before
//!   happens before everything any does after, in the memory spaces the
//!   flags name (`CLK_GLOBAL_MEM_FENCE`: global, `CLK_LOCAL_MEM_FENCE`:
//!   local, both: both). Barriers meet by label, as herd matches them: the
//!   members' k-th barriers must carry the same label and flags, else it is
//!   barrier divergence, and so is a member that never arrives. A barrier's
//!   scope argument may only be `memory_scope_work_group` (the barrier's own
//!   group); a wider one would also fence for other work-groups, which a
//!   block barrier does not do, and is refused rather than weakened.
//! - **`local` locations** live in local memory: ordered by barriers that
//!   fence local memory, not by those that fence only global memory. Local
//!   memory has one instance per work-group, so every thread naming a
//!   `local` location must be in one work-group, and no thread may declare
//!   it `global` (both are errors at the declaration). The final state reads
//!   a local location from the execution's last write to it (a host-side
//!   load would be a host thread touching local memory).

use super::ast::*;
use super::interp::{placement_of, Layout};
use scopecheck_checker::event::{BarrierGroup, Loc, Op, SourceLoc};
use scopecheck_checker::space::FenceSpace;
use std::collections::{BTreeMap, HashMap};

/// The work-groups, barrier meeting places and local locations of a test.
#[derive(Debug)]
pub struct WorkGroups {
    /// Per location of the layout (its index in `Layout::names`): whether it
    /// is local memory.
    local: Vec<bool>,
    /// Per test thread (its `PN` index): its work-group's index and size.
    groups: HashMap<u32, (u32, u32)>,
    /// Where the barriers of each label meet (the first barrier with that
    /// label in the file; `None`: unlabelled barriers): the engine matches
    /// barriers by the place they are at, herd by label.
    sites: HashMap<Option<String>, Pos>,
}

/// A work-group: `(device, block)` of a thread's placement.
type GroupKey = (u32, u32);

impl WorkGroups {
    /// The work-groups of `test`, or `None` when it has neither barriers
    /// nor `local` locations (then it runs exactly as before). An error is
    /// the position and text of a construct the engine models cannot run.
    pub fn of(test: &Test, layout: &Layout) -> Result<Option<WorkGroups>, (Pos, String)> {
        let mut barriers = Vec::new();
        for t in &test.threads {
            collect_barriers(&t.body, t, &mut barriers);
        }
        let has_local = test
            .threads
            .iter()
            .flat_map(|t| &t.params)
            .any(|p| p.ty.space == Some(AddressSpace::Local));
        if barriers.is_empty() && !has_local {
            return Ok(None);
        }
        let key_of = |t: &Thread| placement_of(t).gpu.map(|g| (g.device, g.block));
        let mut sites = HashMap::new();
        for &(t, pos, label, scope) in &barriers {
            if key_of(t).is_none() {
                return Err((
                    pos,
                    format!(
                        "P{} has a barrier but runs on the host (it has no placement): a work-group barrier needs a \
                         work-group; place the thread, e.g. `P{}@wg 0, dev 0 (...)`",
                        t.index, t.index
                    ),
                ));
            }
            if let Some(s) = scope.filter(|s| *s != Scope::Block) {
                return Err((
                    pos,
                    format!(
                        "a work-group barrier with memory scope `{}`: a barrier here synchronizes its work-group, \
                         as a block-scope barrier (docs/opencl-model.md section 10); a fence for another scope is \
                         not modelled, so write `memory_scope_work_group` and add an \
                         `atomic_work_item_fence(flags, order, scope)` for a wider one",
                        scope_name(s)
                    ),
                ));
            }
            sites.entry(label.cloned()).or_insert(pos);
        }
        // Work-groups, numbered in the order of their (device, block).
        let mut members: BTreeMap<GroupKey, u32> = BTreeMap::new();
        for t in &test.threads {
            if let Some(k) = key_of(t) {
                *members.entry(k).or_default() += 1;
            }
        }
        let index: HashMap<GroupKey, u32> = members.keys().enumerate().map(|(i, k)| (*k, i as u32)).collect();
        let groups = test
            .threads
            .iter()
            .filter_map(|t| key_of(t).map(|k| (t.index, (index[&k], members[&k]))))
            .collect();
        let local = local_locations(test, layout, &key_of)?;
        Ok(Some(WorkGroups { local, groups, sites }))
    }

    /// Whether the `base`-th location of the layout is in local memory.
    pub fn is_local(&self, base: usize) -> bool {
        self.local.get(base).copied().unwrap_or(false)
    }

    /// The barrier operation of test thread `thread` at a barrier labelled
    /// `label` fencing `flags`, and the place it is issued at (where the
    /// barriers of its label meet); `kernel` names the test's run.
    pub fn barrier(
        &self,
        kernel: Loc,
        thread: u32,
        label: &Option<String>,
        flags: &[MemFlag],
        file: &'static str,
    ) -> (Op, SourceLoc) {
        let (index, size) = self.groups[&thread];
        let fence = match (flags.contains(&MemFlag::Global), flags.contains(&MemFlag::Local)) {
            (true, false) => FenceSpace::Global,
            (false, true) => FenceSpace::Local,
            _ => FenceSpace::Both,
        };
        let at = self.sites[label];
        let op = Op::Barrier {
            group: BarrierGroup {
                kernel,
                level: Scope::Block,
                index,
                lanes: 0,
            },
            size,
            fence,
        };
        let src = SourceLoc {
            file,
            line: at.line,
            column: at.col,
        };
        (op, src)
    }
}

/// Every barrier of `body`, with its thread, position, label and scope.
fn collect_barriers<'t>(
    body: &'t [Stmt],
    t: &'t Thread,
    out: &mut Vec<(&'t Thread, Pos, Option<&'t String>, Option<Scope>)>,
) {
    for s in body {
        match &s.kind {
            StmtKind::Barrier { label, scope, .. } => out.push((t, s.pos, label.as_ref(), *scope)),
            StmtKind::If { then, els, .. } => {
                collect_barriers(then, t, out);
                collect_barriers(els, t, out);
            }
            StmtKind::While { body, .. } | StmtKind::Block(body) => collect_barriers(body, t, out),
            _ => {}
        }
    }
}

/// Which locations are local, checking that each has one work-group and no
/// `global` declaration.
fn local_locations(
    test: &Test,
    layout: &Layout,
    key_of: &dyn Fn(&Thread) -> Option<GroupKey>,
) -> Result<Vec<bool>, (Pos, String)> {
    let mut local = vec![false; layout.names.len()];
    for (base, (name, _)) in layout.names.iter().enumerate() {
        let decls: Vec<(&Thread, &Param)> = test
            .threads
            .iter()
            .flat_map(|t| t.params.iter().filter(|p| &p.name == name).map(move |p| (t, p)))
            .collect();
        let Some(&(first, lp)) = decls.iter().find(|(_, p)| p.ty.space == Some(AddressSpace::Local)) else {
            continue;
        };
        local[base] = true;
        let Some(group) = key_of(first) else {
            return Err((
                lp.pos,
                format!(
                    "P{} runs on the host (it has no placement) and declares `{name}` local: local memory exists \
                     only inside a work-group",
                    first.index
                ),
            ));
        };
        for &(t, p) in &decls {
            if p.ty.space == Some(AddressSpace::Global) {
                return Err((
                    p.pos,
                    format!(
                        "P{} declares `{name}` global, and P{} local (at {}): a location is in one memory space",
                        t.index, first.index, lp.pos
                    ),
                ));
            }
            match key_of(t) {
                None => {
                    return Err((
                        p.pos,
                        format!(
                            "P{} runs on the host (it has no placement) and names `{name}`, which P{} declares \
                             local: local memory exists only inside a work-group",
                            t.index, first.index
                        ),
                    ))
                }
                Some(k) if k != group => {
                    return Err((
                        p.pos,
                        format!(
                            "P{} ({}) names `{name}`, which P{} ({}) declares local: local memory has one instance \
                             per work-group, so one local location cannot be shared by two",
                            t.index,
                            where_is(t, k),
                            first.index,
                            where_is(first, group)
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    Ok(local)
}

/// Where a GPU thread is, as the test placed it.
fn where_is(t: &Thread, (device, block): GroupKey) -> String {
    if t.placement.iter().any(|(l, _)| *l == Level::Block) {
        format!("device {device}, work-group {block}")
    } else {
        format!("device {device}, placed without `wg`: a work-group of its own")
    }
}

/// A scope as the OpenCL dialect spells it.
fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Thread => "memory_scope_work_item",
        Scope::Warp => "memory_scope_sub_group",
        Scope::Block => "memory_scope_work_group",
        Scope::Device => "memory_scope_device",
        Scope::System => "memory_scope_all_svm_devices",
        // OpenCL has no cluster scope and the parser never reads one.
        Scope::Cluster => "cluster scope",
    }
}
