//! The PTX memory models `ptx6.0` and `ptx7.5` (docs/gpu-models.md), as
//! Dat3M's `ptx-v6.0.cat` and `ptx-v7.5.cat` define them (which follow the
//! PTX ISA's memory consistency model and Lustig et al., ASPLOS'19; 7.5
//! adds proxies), judged on each complete graph the explorer builds under
//! [`MemoryModel::Porf`](crate::MemoryModel::Porf).
//!
//! Two relations of the cat files are not given by the graph:
//! - `co` is partial in PTX: only morally strong writes must be ordered
//!   (Coherence2). The axioms only get harder to meet as co grows, so the
//!   graph is consistent for some co exactly when it is for the smallest
//!   one that the axioms force: initial writes first, the engine's mo on
//!   morally strong pairs (the explorer tries every mo, so every
//!   orientation), and `([W]; cause; [W]) & loc` (Coherence), closed
//!   transitively (`let co = co+`).
//! - `sync_fence`, the order of morally strong `fence.sc` pairs: every
//!   order of the SC fences is tried (a cyclic choice makes cause cyclic,
//!   which FenceSC forbids).
//!
//! No-Thin-Air (`acyclic (rf | dep)`) holds by construction: the explorer
//! keeps po ∪ rf acyclic.

use super::gpu::alg::*;
use super::gpu::{next_permutation, GpuEnv, GpuOrder, NodeKind, Nodes, Proxy};
use super::relations::Rel;
use crate::graph::ExecutionGraph;

/// Which PTX model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PtxVersion {
    /// `ptx-v6.0.cat`: no proxies, SC-per-location, recursive observation.
    V60,
    /// `ptx-v7.5.cat`: proxies and virtual aliases.
    V75,
}

/// A PTX axiom a graph violates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PtxAxiom {
    /// `axiom-Coherence`: the co that cause forces is cyclic.
    Coherence,
    /// `axiom-FenceSC`: no order of the SC fences agrees with cause.
    FenceSc,
    /// `axiom-Atomicity`.
    Atomicity,
    /// `axiom-ScPerLocation` (6.0 only).
    ScPerLocation,
    /// `axiom-Causality`: irreflexive((rf | fr); cause).
    Causality,
    /// A barrier's quorum is never reached: no execution of this graph finishes.
    BarrierHang,
}

/// Judges a complete graph under `ptx6.0` or `ptx7.5`.
pub fn check(g: &ExecutionGraph, env: &GpuEnv, version: PtxVersion) -> Result<(), PtxAxiom> {
    let ns = Nodes::of(g, env);
    let n = ns.nodes.len();
    let v75 = version == PtxVersion::V75;
    // sync_barrier = syncbar & scta: one relation per choice of how the
    // barriers with the same id meet (Nodes::syncbar_choices); none when
    // a quorum is never reached (the execution hangs).
    let bar_choices = ns.syncbar_choices(env, 1);
    let mut last = Err(PtxAxiom::Causality);
    for choice in &bar_choices {
        let mut sync_barrier = Rel::new(n);
        for &(a, b) in choice {
            sync_barrier.add(a, b);
        }
        last = check_with(&ns, env, v75, &sync_barrier);
        if last.is_ok() {
            return last;
        }
    }
    if bar_choices.is_empty() {
        return Err(PtxAxiom::BarrierHang);
    }
    last
}

/// Judges with one choice of sync_barrier.
fn check_with(ns: &Nodes, env: &GpuEnv, v75: bool, sync_barrier: &Rel) -> Result<(), PtxAxiom> {
    let nodes = &ns.nodes;
    let n = nodes.len();
    // Base relations and tags.
    let po = tab(n, |a, b| ns.po(a, b));
    let loc = tab(n, |a, b| ns.same_loc(a, b));
    let vloc = if v75 {
        tab(n, |a, b| ns.same_vloc(a, b))
    } else {
        loc.clone()
    };
    let mut rf = Rel::new(n);
    for &(w, r) in &ns.rf {
        rf.add(w, r);
    }
    let mut rmw = Rel::new(n);
    for &(r, w) in &ns.rmw {
        rmw.add(r, w);
    }
    let is_w = |a: usize| nodes[a].is_write();
    let is_r = |a: usize| nodes[a].is_read();
    let is_m = |a: usize| nodes[a].is_mem();
    let is_f = |a: usize| nodes[a].is_fence();
    let ord = |a: usize| nodes[a].order;
    let rel = |a: usize| matches!(ord(a), GpuOrder::Release | GpuOrder::AcqRel | GpuOrder::Sc);
    let acq = |a: usize| matches!(ord(a), GpuOrder::Acquire | GpuOrder::AcqRel | GpuOrder::Sc);
    // A fence.sc is also a fence.acq_rel (PTX ISA, "Memory Consistency Model").
    let f_acq_rel = |a: usize| is_f(a) && matches!(ord(a), GpuOrder::AcqRel | GpuOrder::Sc);
    let f_sc = |a: usize| is_f(a) && ord(a) == GpuOrder::Sc;
    // strong-write = W & (RLX | REL); strong-read = R & (RLX | ACQ); strong-operation = strong-m | F.
    let strong_w = |a: usize| is_w(a) && nodes[a].kind != NodeKind::Init && ord(a) != GpuOrder::Weak;
    let strong_r = |a: usize| is_r(a) && ord(a) != GpuOrder::Weak;
    let strong_op = |a: usize| strong_w(a) || strong_r(a) || is_f(a);
    let thread = |a: usize| ns.thread(a);
    // sr: each operation's scope includes the other's thread.
    let includes = |a: usize, b: usize| match (thread(a), thread(b), nodes[a].op.scope) {
        (Some(ta), Some(tb), Some(s)) => env.same_group(ta, tb, s),
        _ => false,
    };
    let sr = |a: usize, b: usize| includes(a, b) && includes(b, a);
    // scta: the same CTA.
    let scta = |a: usize, b: usize| match (thread(a), thread(b)) {
        (Some(ta), Some(tb)) => env.same_group(ta, tb, 1),
        _ => false,
    };
    let proxy = |a: usize| match nodes[a].op.proxy {
        Proxy::Alias => Proxy::Generic,
        p => p,
    };
    // same-proxy = GEN * GEN | SUR * SUR | TEX * TEX | CON * CON.
    let same_proxy = |a: usize, b: usize| proxy(a) == proxy(b);
    let gen = |a: usize| is_m(a) && proxy(a) == Proxy::Generic;
    // ms1 = (po | po^-1) | ([strong-operation]; sr; [strong-operation]).
    let ms1 = |a: usize, b: usize| ns.po(a, b) || ns.po(b, a) || (strong_op(a) && strong_op(b) && sr(a, b));
    // 7.5: ms2 = same-proxy, ms3 = ((M * M) & vloc) | ((_ * _) \ (M * M));
    // 6.0: ms2 = ((M * M) & loc) | ((_ * _) \ (M * M)).
    let overlap = |a: usize, b: usize| !(is_m(a) && is_m(b)) || vloc.has(a, b);
    let ms = tab(n, |a, b| {
        a != b && ms1(a, b) && overlap(a, b) && (!v75 || same_proxy(a, b))
    });
    let ms_rf = inter(n, &ms, &rf);
    // 7.5: observation = (morally-strong & rf) | rmw;
    // 6.0: let rec observation = (morally-strong & rf) | (observation; rmw; observation).
    let observation = if v75 {
        union(&ms_rf, &rmw)
    } else {
        let mut obs = ms_rf.clone();
        loop {
            let next = union(&ms_rf, &seq(&[&obs, &rmw, &obs]));
            if next == obs {
                break obs;
            }
            obs = next;
        }
    };
    // release-pattern = ([W & REL]; po-vloc?; [strong-write]) | ([F & ACQ_REL]; po; [strong-write]).
    let po_vloc = inter(n, &po, &vloc);
    let release_pattern = union(
        &seq(&[&id(n, |a| is_w(a) && rel(a)), &opt(&po_vloc), &id(n, strong_w)]),
        &seq(&[&id(n, f_acq_rel), &po, &id(n, strong_w)]),
    );
    // acquire-pattern = ([strong-read]; po-vloc?; [R & ACQ]) | ([strong-read]; po; [F & ACQ_REL]).
    let acquire_pattern = union(
        &seq(&[&id(n, strong_r), &opt(&po_vloc), &id(n, |a| is_r(a) && acq(a))]),
        &seq(&[&id(n, strong_r), &po, &id(n, f_acq_rel)]),
    );
    // 7.5: sync = morally-strong & (release-pattern; observation+; acquire-pattern);
    // 6.0: the same with one observation.
    let obs_path = if v75 {
        observation.closure()
    } else {
        observation.clone()
    };
    let sync = inter(n, &ms, &seq(&[&release_pattern, &obs_path, &acquire_pattern]));
    // The morally strong fence.sc pairs, whose order sync_fence picks.
    let sc_fences: Vec<usize> = (0..n).filter(|&a| f_sc(a)).collect();
    let mut perm: Vec<usize> = (0..sc_fences.len()).collect();
    loop {
        let rank = |a: usize| sc_fences.iter().position(|&f| f == a).map(|i| perm[i]);
        let sync_fence = tab(n, |a, b| {
            ms.has(a, b) && matches!((rank(a), rank(b)), (Some(x), Some(y)) if x < y)
        });
        match judge(
            ns,
            v75,
            Judged {
                n,
                po: &po,
                loc: &loc,
                vloc: &vloc,
                rf: &rf,
                rmw: &rmw,
                ms: &ms,
                observation: &observation,
                sync: &sync,
                sync_barrier,
                sync_fence: &sync_fence,
                gen: &gen,
                f_sc: &f_sc,
                pfo: &tab(n, |a, b| is_f(a) && is_m(b) && same_proxy(a, b) && scta(a, b)),
                alias: &|a: usize| is_f(a) && nodes[a].op.proxy == Proxy::Alias,
                same_proxy_scta: &tab(n, |a, b| same_proxy(a, b) && scta(a, b)),
            },
        ) {
            Ok(()) => return Ok(()),
            Err(e) if !next_permutation(&mut perm) => return Err(e),
            Err(_) => {}
        }
    }
}

/// The relations one choice of sync_fence is judged with.
struct Judged<'a> {
    n: usize,
    po: &'a Rel,
    loc: &'a Rel,
    vloc: &'a Rel,
    rf: &'a Rel,
    rmw: &'a Rel,
    ms: &'a Rel,
    observation: &'a Rel,
    sync: &'a Rel,
    sync_barrier: &'a Rel,
    sync_fence: &'a Rel,
    gen: &'a dyn Fn(usize) -> bool,
    f_sc: &'a dyn Fn(usize) -> bool,
    /// proxy-fence-ops = [F]; (same-proxy & scta); [M].
    pfo: &'a Rel,
    /// F & ALIAS.
    alias: &'a dyn Fn(usize) -> bool,
    /// same-proxy & scta.
    same_proxy_scta: &'a Rel,
}

fn judge(ns: &Nodes, v75: bool, j: Judged<'_>) -> Result<(), PtxAxiom> {
    let n = j.n;
    let nodes = &ns.nodes;
    let syncs = unions(n, &[j.sync, j.sync_fence, j.sync_barrier]);
    // cause-base = po?; ((sync | sync_fence | sync_barrier); po?)+   (6.0)
    // cause-base = (po?; ((sync | sync_fence | sync_barrier); po?)+) | po   (7.5)
    let chain = seq(&[&opt(j.po), &seq(&[&syncs, &opt(j.po)]).closure()]);
    let cause = if v75 {
        let cb = union(&chain, j.po);
        let gen = id(n, j.gen);
        let m = id(n, |a| nodes[a].is_mem());
        let pfo_inv = inv(n, j.pfo);
        let into_fence = inter(n, &cb, &pfo_inv);
        let out_of_fence = inter(n, &cb, j.pfo);
        let alias = id(n, j.alias);
        // proxy-preserved-cause-base, term by term.
        let terms = [
            seq(&[&gen, &inter(n, j.vloc, &cb), &gen]),
            seq(&[&m, &inter(n, &inter(n, j.same_proxy_scta, j.vloc), &cb), &m]),
            inter(n, j.vloc, &seq(&[&into_fence, &cb, &gen])),
            inter(n, j.vloc, &seq(&[&gen, &cb, &out_of_fence])),
            inter(n, j.vloc, &seq(&[&into_fence, &cb, &out_of_fence])),
            inter(n, j.loc, &seq(&[&gen, &cb, &alias, &cb, &gen])),
            inter(n, j.loc, &seq(&[&into_fence, &cb, &alias, &cb, &gen])),
            inter(n, j.loc, &seq(&[&gen, &cb, &alias, &cb, &out_of_fence])),
            inter(n, j.loc, &seq(&[&into_fence, &cb, &alias, &cb, &out_of_fence])),
        ];
        let ppcb = unions(n, &terms.iter().collect::<Vec<_>>());
        // cause = observation?; proxy-preserved-cause-base.
        seq(&[&opt(j.observation), &ppcb])
    } else {
        // cause = cause-base | (observation; (cause-base | po-loc)).
        let po_loc = inter(n, j.po, j.loc);
        union(&chain, &seq(&[j.observation, &union(&chain, &po_loc)]))
    };
    // The smallest co (module comment), then `let co = co+`.
    let is_w = |a: usize| nodes[a].is_write();
    let mut c0 = tab(n, |a, b| {
        is_w(b) && nodes[b].kind != NodeKind::Init && nodes[a].kind == NodeKind::Init && j.loc.has(a, b)
    });
    for chain in &ns.chains {
        for (i, &a) in chain.iter().enumerate() {
            for &b in &chain[i + 1..] {
                if j.ms.has(a, b) {
                    c0.add(a, b);
                }
            }
        }
    }
    // axiom-Coherence: ([W]; cause; [W]) & loc ⊆ co.
    c0.union_with(&inter(n, &seq(&[&id(n, is_w), &cause, &id(n, is_w)]), j.loc));
    let co = c0.closure();
    if co.is_reflexive_somewhere() {
        return Err(PtxAxiom::Coherence);
    }
    // The engine's mo must extend co: every consistent co has a total
    // extension the explorer also tries, and the final values (the last
    // write in mo) then respect co.
    for chain in &ns.chains {
        for (i, &a) in chain.iter().enumerate() {
            if chain[..i].iter().any(|&b| co.has(a, b)) {
                return Err(PtxAxiom::Coherence);
            }
        }
    }
    // fr = rf^-1; co.
    let fr = seq(&[&inv(n, j.rf), &co]);
    // axiom-FenceSC: ([F & SC]; cause; [F & SC]) \ sync_fence is empty.
    let f_sc = id(n, j.f_sc);
    if !is_empty(n, &minus(n, &seq(&[&f_sc, &cause, &f_sc]), j.sync_fence)) {
        return Err(PtxAxiom::FenceSc);
    }
    // axiom-Atomicity: ((morally-strong & fr); (morally-strong & co)) & rmw is empty.
    let at = inter(n, &seq(&[&inter(n, j.ms, &fr), &inter(n, j.ms, &co)]), j.rmw);
    if !is_empty(n, &at) {
        return Err(PtxAxiom::Atomicity);
    }
    // 6.0 axiom-ScPerLocation: acyclic((morally-strong & (rf | co | fr)) | po-loc).
    if !v75 {
        let com = unions(n, &[j.rf, &co, &fr]);
        let r = union(&inter(n, j.ms, &com), &inter(n, j.po, j.loc));
        if r.has_cycle() {
            return Err(PtxAxiom::ScPerLocation);
        }
    }
    // axiom-Causality: irreflexive((rf | fr); cause).
    if seq(&[&union(j.rf, &fr), &cause]).is_reflexive_somewhere() {
        return Err(PtxAxiom::Causality);
    }
    Ok(())
}
