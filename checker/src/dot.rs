//! Graphviz DOT rendering of an execution graph, drawn the way herd and
//! GenMC draw executions: one column (cluster) per thread with its events in
//! program order, the initial writes on top, reads-from edges in red,
//! modification-order edges in blue and synchronizes-with edges in dashed
//! green.
//!
//! What is drawn:
//!
//! * one node `init_<thread>_<seq>` per location that some read or write
//!   accesses (named after the location's allocating thread and rank), labelled
//!   `init x=0`;
//! * one node `e_<thread>_<index>` per memory event, labelled with a letter
//!   and the access: `a: Wrlx x=1`, `b: Racq y=0`, `c: RMW sc x 0->1`,
//!   `d: F sc`, `e: Wcell c` / `Rcell c` (tracked non-atomic cells),
//!   `spawn P1`, `join P1`. An RMW's read and write parts share one node (the
//!   read part's id). Start, end and allocation events are not memory
//!   accesses and are not drawn;
//! * black `po` edges between consecutive drawn events of a thread, dotted grey
//!   edges from a spawn to the child's first event and from a thread's last
//!   event to its join;
//! * `rf` edges (red) from each read's write, `mo` edges (blue) between
//!   immediate mo successors of each location, the initial write first;
//! * `sw` edges (dashed green) between threads, as the caller's model
//!   defines them ([`crate::model::MemoryModel::sync_edges`], or the
//!   `opencl` check's): the picture never derives synchronization itself, so
//!   it shows exactly the edges the model judged the graph with. Edges
//!   implied by po ; sw ; po are left out (a release fence before a release
//!   write that synchronizes with the same read, an acquire fence after an
//!   acquire read), and so is sw within one thread. A model whose
//!   synchronization is not one sw relation (`None`) gets a comment instead.
//!
//! The output depends only on the graph and the style: threads, events and
//! locations are visited in sorted order.

use crate::event::*;
use crate::graph::ExecutionGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Options for naming things in the picture.
pub struct DotStyle<'a> {
    /// Title shown as the graph label (e.g. test name and outcome).
    pub title: &'a str,
    /// A name for each location (e.g. the litmus variable `x`), or None to print `Loc`'s Display.
    pub loc_name: &'a dyn Fn(Loc) -> Option<String>,
    /// A label for each thread (e.g. "P0"), or None for "thread N".
    pub thread_name: &'a dyn Fn(ThreadId) -> Option<String>,
}

/// Escapes `s` for use inside a double-quoted DOT string.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The herd-style name of the `n`-th drawn event: a, b, ..., z, aa, ab, ...
fn letter(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).expect("ascii")
}

/// Node id of the initial write of `loc`.
fn init_id(loc: Loc) -> String {
    format!("init_{}_{}", loc.thread(), loc.seq())
}

/// Node id of event `e` of `g` (an RMW's write part maps to its read part's
/// node; an initial write to the node of `loc`'s initial write).
fn node_id(g: &ExecutionGraph, e: EventId, loc: Loc) -> String {
    if e.is_init() {
        return init_id(loc);
    }
    let merged = e.index > 0 && g.event(e).as_write().is_some_and(|w| w.rmw);
    let index = if merged { e.index - 1 } else { e.index };
    format!("e_{}_{}", e.thread, index)
}

/// Whether `e` (not an initial write) is in `g`.
fn present(g: &ExecutionGraph, e: EventId) -> bool {
    !e.is_init() && g.contains(e)
}

/// The sw edges worth drawing: those between threads whose source is the
/// po-latest and target the po-earliest of the edges linking the same two
/// threads around them. An edge (a, b) is left out when another (a2, b2) has
/// a2 po-after-or-at a and b2 po-before-or-at b: po ; sw ; po implies it.
fn representative(g: &ExecutionGraph, sw: &[(EventId, EventId)]) -> BTreeSet<(EventId, EventId)> {
    let between: Vec<(EventId, EventId)> = sw
        .iter()
        .copied()
        .filter(|&(a, b)| present(g, a) && present(g, b) && a.thread != b.thread)
        .collect();
    let implied_by = |(a, b): (EventId, EventId), (a2, b2): (EventId, EventId)| {
        (a, b) != (a2, b2)
            && a2.thread == a.thread
            && b2.thread == b.thread
            && a2.index >= a.index
            && b2.index <= b.index
    };
    between
        .iter()
        .copied()
        .filter(|&e| !between.iter().any(|&o| implied_by(e, o)))
        .collect()
}

/// Renders `graph` as a Graphviz DOT digraph (see the module documentation
/// for what is drawn). The same graph and style always give the same text.
pub fn render(graph: &ExecutionGraph, sw: Option<&[(EventId, EventId)]>, style: &DotStyle) -> String {
    let loc_name = |l: Loc| escape(&(style.loc_name)(l).unwrap_or_else(|| l.to_string()));
    let thread_name = |t: ThreadId| escape(&(style.thread_name)(t).unwrap_or_else(|| format!("thread {t}")));
    let threads: Vec<ThreadId> = (0..graph.num_threads() as ThreadId)
        .filter(|&t| graph.has_thread(t))
        .collect();

    // Locations read or written (cells take no part in rf and mo).
    let mut accessed = BTreeSet::new();
    for (_, e) in graph.events() {
        match &e.kind {
            EventKind::Read(r) => accessed.insert(r.loc),
            EventKind::Write(w) => accessed.insert(w.loc),
            _ => false,
        };
    }

    // Drawn nodes per thread, in program order: (id, label).
    let mut letters = 0usize;
    let mut nodes: BTreeMap<ThreadId, Vec<(String, String)>> = BTreeMap::new();
    for &t in &threads {
        let events = graph.thread_events(t);
        let mut list = Vec::new();
        for (i, e) in events.iter().enumerate() {
            let what = match &e.kind {
                EventKind::Start { .. } | EventKind::End | EventKind::Alloc { .. } | EventKind::Observe { .. } => {
                    continue
                }
                EventKind::Write(w) if w.rmw && i > 0 => continue,
                EventKind::Spawn { child } => format!("spawn {}", thread_name(*child)),
                EventKind::Join { target } => format!("join {}", thread_name(*target)),
                EventKind::Barrier {
                    instance,
                    fence: FenceSpace::Both,
                    ..
                } => format!("barrier #{instance}"),
                EventKind::Barrier { instance, fence, .. } => format!("barrier #{instance} ({fence})"),
                EventKind::Fence { order } => format!("F {}", order.short()),
                EventKind::Cell { loc, write } => format!("{}cell {}", if *write { "W" } else { "R" }, loc_name(*loc)),
                EventKind::Write(w) => format!("W{} {}={}", w.order.short(), loc_name(w.loc), w.value),
                EventKind::Read(r) => match r.rmw {
                    Some((_, _, success, _)) if r.is_exclusive() => {
                        let new = events
                            .get(i + 1)
                            .and_then(|n| n.as_write())
                            .map_or_else(|| "?".to_string(), |w| w.value.to_string());
                        format!("RMW {} {} {}->{}", success.short(), loc_name(r.loc), r.value, new)
                    }
                    Some(_) => format!(
                        "R{} {}={} ({})",
                        r.order.short(),
                        loc_name(r.loc),
                        r.value,
                        if r.spurious { "cas spurious fail" } else { "cas failed" }
                    ),
                    None => format!("R{} {}={}", r.order.short(), loc_name(r.loc), r.value),
                },
            };
            let label = format!("{}: {}", letter(letters), what);
            letters += 1;
            list.push((format!("e_{t}_{i}"), label));
        }
        nodes.insert(t, list);
    }
    // First and last node of each thread (a placeholder for a thread with none).
    let first_last = |t: ThreadId| -> Option<(String, String)> {
        let list = nodes.get(&t)?;
        Some(match (list.first(), list.last()) {
            (Some(f), Some(l)) => (f.0.clone(), l.0.clone()),
            _ => (format!("t_{t}_empty"), format!("t_{t}_empty")),
        })
    };

    let mut out = String::new();
    out.push_str("digraph execution {\n");
    if !style.title.is_empty() {
        let _ = writeln!(out, "  label=\"{}\";", escape(style.title));
        out.push_str("  labelloc=t;\n");
    }
    out.push_str("  node [shape=box, fontsize=11];\n");
    out.push_str("  edge [fontsize=9];\n");

    if !accessed.is_empty() {
        out.push_str("  subgraph init {\n    rank=source;\n");
        for &loc in &accessed {
            let init = graph.loc(loc).map_or_else(|| "?".to_string(), |d| d.init.to_string());
            let _ = writeln!(
                out,
                "    {} [label=\"init {}={}\", style=filled, fillcolor=gray92];",
                init_id(loc),
                loc_name(loc),
                init
            );
        }
        out.push_str("  }\n");
    }

    for (&t, list) in &nodes {
        let _ = writeln!(out, "  subgraph cluster_{t} {{");
        let _ = writeln!(out, "    label=\"{}\";", thread_name(t));
        if list.is_empty() {
            let _ = writeln!(out, "    t_{t}_empty [shape=plaintext, label=\"(no accesses)\"];");
        }
        for (id, label) in list {
            let _ = writeln!(out, "    {id} [label=\"{}\"];", escape(label));
        }
        for pair in list.windows(2) {
            let _ = writeln!(out, "    {} -> {} [label=\"po\", weight=10];", pair[0].0, pair[1].0);
        }
        out.push_str("  }\n");
    }

    let mut rf = Vec::new();
    let mut spawn_join = Vec::new();
    for (id, e) in graph.events() {
        match &e.kind {
            EventKind::Spawn { child } => {
                let started_here = graph
                    .thread_events(*child)
                    .first()
                    .is_some_and(|s| matches!(s.kind, EventKind::Start { parent: Some(p) } if p == id));
                if let (true, Some((first, _))) = (started_here, first_last(*child)) {
                    spawn_join.push((node_id(graph, id, Loc(0)), first));
                }
            }
            EventKind::Join { target } => {
                if let Some((_, last)) = first_last(*target) {
                    spawn_join.push((last, node_id(graph, id, Loc(0))));
                }
            }
            EventKind::Read(r) if r.rf.is_init() || present(graph, r.rf) => {
                rf.push((node_id(graph, r.rf, r.loc), node_id(graph, id, r.loc)));
            }
            _ => {}
        }
    }
    for (a, b) in spawn_join {
        let _ = writeln!(out, "  {a} -> {b} [style=dotted, color=gray40];");
    }
    for (a, b) in rf {
        let _ = writeln!(
            out,
            "  {a} -> {b} [label=\"rf\", color=red, fontcolor=red, constraint=false];"
        );
    }
    for (&loc, d) in graph.locs() {
        if d.kind == LocKind::Cell || !accessed.contains(&loc) {
            continue;
        }
        let mut prev = init_id(loc);
        for &w in d.mo.iter().filter(|&&w| present(graph, w)) {
            let next = node_id(graph, w, loc);
            let _ = writeln!(
                out,
                "  {prev} -> {next} [label=\"mo\", color=blue, fontcolor=blue, constraint=false];"
            );
            prev = next;
        }
    }
    let Some(sw) = sw else {
        out.push_str("  // sw: this model's synchronization is not drawn\n}\n");
        return out;
    };
    // Node ids: an RMW's write part is drawn in its read part's node (the
    // location only names initial writes, which have no sw edges here).
    let sw: BTreeSet<(String, String)> = representative(graph, sw)
        .into_iter()
        .map(|(a, b)| (node_id(graph, a, Loc(0)), node_id(graph, b, Loc(0))))
        .filter(|(a, b)| a != b)
        .collect();
    for (a, b) in sw {
        let _ = writeln!(
            out,
            "  {a} -> {b} [label=\"sw\", color=darkgreen, fontcolor=darkgreen, style=dashed, constraint=false];"
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemoryModel;

    /// Builds graphs the way the engine does: views first, then the event,
    /// then its place in mo.
    struct Builder {
        g: ExecutionGraph,
    }

    impl Builder {
        fn new() -> Builder {
            let mut b = Builder {
                g: ExecutionGraph::new(),
            };
            b.push(0, EventKind::Start { parent: None });
            b
        }
        fn push(&mut self, t: ThreadId, kind: EventKind) -> EventId {
            self.g.push_event(
                t,
                kind,
                SourceLoc::caller(),
                Scope::System,
                crate::graph::SyncRules::default(),
                true,
            )
        }
        fn alloc(&mut self, t: ThreadId, seq: u32, init: Value) -> Loc {
            let loc = Loc::new(t, seq);
            self.push(
                t,
                EventKind::Alloc {
                    loc,
                    init,
                    kind: LocKind::Atomic,
                    space: Space::Global,
                    addresses: false,
                },
            );
            loc
        }
        fn spawn(&mut self, parent: ThreadId) -> ThreadId {
            let child = self.g.free_thread_slot();
            let sp = self.push(parent, EventKind::Spawn { child });
            self.push(child, EventKind::Start { parent: Some(sp) });
            child
        }
        /// A write placed last in mo.
        fn write(&mut self, t: ThreadId, loc: Loc, order: Order, value: Value) -> EventId {
            self.write_rmw(t, loc, order, value, false)
        }
        fn write_rmw(&mut self, t: ThreadId, loc: Loc, order: Order, value: Value, rmw: bool) -> EventId {
            let id = self.push(t, EventKind::Write(WriteEvent { loc, order, value, rmw }));
            let pos = self.g.loc(loc).unwrap().mo.len() + 1;
            self.g.insert_mo(loc, id, pos);
            id
        }
        fn read(&mut self, t: ThreadId, loc: Loc, order: Order, rf: EventId) -> EventId {
            let value = self.g.write_value(loc, rf);
            self.push(
                t,
                EventKind::Read(ReadEvent {
                    loc,
                    order,
                    rf,
                    value,
                    rmw: None,
                    spurious: false,
                    await_: None,
                }),
            )
        }
        fn rmw(&mut self, t: ThreadId, loc: Loc, op: RmwOp, order: Order, rf: EventId) -> (EventId, EventId) {
            let value = self.g.write_value(loc, rf);
            let r = self.push(
                t,
                EventKind::Read(ReadEvent {
                    loc,
                    order: order.read_part(),
                    rf,
                    value,
                    rmw: Some((op, ValueType::U64, order, Order::Relaxed)),
                    spurious: false,
                    await_: None,
                }),
            );
            let new = op.apply(ValueType::U64, value).unwrap();
            let w = self.write_rmw(t, loc, order.write_part(), new, true);
            (r, w)
        }
        fn end(&mut self, t: ThreadId) {
            self.push(t, EventKind::End);
        }
    }

    fn names(l: Loc) -> Option<String> {
        match l.seq() {
            0 => Some("x".into()),
            1 => Some("y".into()),
            _ => None,
        }
    }

    fn thread_names(t: ThreadId) -> Option<String> {
        (t > 0).then(|| format!("P{}", t - 1))
    }

    fn draw(g: &ExecutionGraph, title: &str) -> String {
        draw_under(g, title, MemoryModel::Cpp20)
    }

    fn draw_under(g: &ExecutionGraph, title: &str, model: MemoryModel) -> String {
        render(
            g,
            model.sync_edges(g).as_deref(),
            &DotStyle {
                title,
                loc_name: &names,
                thread_name: &thread_names,
            },
        )
    }

    /// Message passing: P0 writes x (rlx) then y (rel); P1 reads y (acq) = 1
    /// then x = 0 from the initial write. Returns the graph.
    fn message_passing() -> ExecutionGraph {
        let mut b = Builder::new();
        let x = b.alloc(0, 0, 0);
        let y = b.alloc(0, 1, 0);
        let p0 = b.spawn(0);
        let p1 = b.spawn(0);
        b.write(p0, x, Order::Relaxed, 1);
        let wy = b.write(p0, y, Order::Release, 1);
        b.end(p0);
        b.read(p1, y, Order::Acquire, wy);
        b.read(p1, x, Order::Relaxed, EventId::INIT);
        b.end(p1);
        b.push(0, EventKind::Join { target: p0 });
        b.push(0, EventKind::Join { target: p1 });
        b.end(0);
        b.g
    }

    fn balanced(s: &str) -> bool {
        let mut depth = 0i64;
        for c in s.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                _ => {}
            }
        }
        depth == 0
    }

    #[test]
    fn dot_message_passing() {
        let g = message_passing();
        let s = draw(&g, "MP: r0=1 r1=0");
        assert!(s.starts_with("digraph"), "{s}");
        assert!(balanced(&s), "{s}");
        assert!(s.contains("label=\"MP: r0=1 r1=0\";"), "{s}");
        // Thread clusters.
        assert!(s.contains("subgraph cluster_0 {\n    label=\"thread 0\";"), "{s}");
        assert!(s.contains("subgraph cluster_1 {\n    label=\"P0\";"), "{s}");
        assert!(s.contains("subgraph cluster_2 {\n    label=\"P1\";"), "{s}");
        // Initial writes, on top.
        assert!(s.contains("init_0_0 [label=\"init x=0\""), "{s}");
        assert!(s.contains("init_0_1 [label=\"init y=0\""), "{s}");
        // Events: allocations, starts and ends are left out.
        assert!(s.contains("e_0_3 [label=\"a: spawn P0\"];"), "{s}");
        assert!(s.contains("e_1_1 [label=\"e: Wrlx x=1\"];"), "{s}");
        assert!(s.contains("e_1_2 [label=\"f: Wrel y=1\"];"), "{s}");
        assert!(s.contains("e_2_1 [label=\"g: Racq y=1\"];"), "{s}");
        assert!(s.contains("e_2_2 [label=\"h: Rrlx x=0\"];"), "{s}");
        assert!(!s.contains("e_0_1 "), "alloc drawn: {s}");
        assert!(!s.contains("e_1_0 "), "start drawn: {s}");
        // po inside a thread.
        assert!(s.contains("    e_1_1 -> e_1_2 [label=\"po\""), "{s}");
        // rf: from the initial write and from P0's write.
        assert!(s.contains("  init_0_0 -> e_2_2 [label=\"rf\", color=red"), "{s}");
        assert!(s.contains("  e_1_2 -> e_2_1 [label=\"rf\", color=red"), "{s}");
        // mo from the initial writes.
        assert!(s.contains("  init_0_0 -> e_1_1 [label=\"mo\", color=blue"), "{s}");
        assert!(s.contains("  init_0_1 -> e_1_2 [label=\"mo\", color=blue"), "{s}");
        // sw: release write to acquire read.
        assert!(s.contains("  e_1_2 -> e_2_1 [label=\"sw\", color=darkgreen"), "{s}");
        assert_eq!(s.matches("label=\"sw\"").count(), 1, "{s}");
        // spawn and join.
        assert!(s.contains("  e_0_3 -> e_1_1 [style=dotted"), "{s}");
        assert!(s.contains("  e_2_2 -> e_0_6 [style=dotted"), "{s}");
        // Deterministic.
        assert_eq!(s, draw(&g.clone(), "MP: r0=1 r1=0"));
    }

    #[test]
    fn dot_mo_between_writes_and_rmw() {
        let mut b = Builder::new();
        let x = b.alloc(0, 0, 0);
        let p0 = b.spawn(0);
        let p1 = b.spawn(0);
        let w1 = b.write(p0, x, Order::Release, 1);
        let w2 = b.write(p0, x, Order::Relaxed, 2);
        // An acq_rel RMW reading w2: w2 is relaxed with no release fence
        // before it, so nothing synchronizes.
        let (r, _w3) = b.rmw(p1, x, RmwOp::Add(5), Order::AcqRel, w2);
        b.push(p1, EventKind::Fence { order: Order::SeqCst });
        let s = draw(&b.g, "two writes and an RMW");
        assert!(balanced(&s), "{s}");
        assert_eq!(
            (w1, w2, r),
            (EventId::new(1, 1), EventId::new(1, 2), EventId::new(2, 1))
        );
        assert!(s.contains("  init_0_0 -> e_1_1 [label=\"mo\""), "{s}");
        assert!(s.contains("  e_1_1 -> e_1_2 [label=\"mo\""), "{s}");
        // The RMW's write part is drawn in the RMW's node.
        assert!(s.contains("  e_1_2 -> e_2_1 [label=\"mo\""), "{s}");
        assert!(s.contains("  e_1_2 -> e_2_1 [label=\"rf\""), "{s}");
        assert!(s.contains("e_2_1 [label=\"e: RMW acq_rel x 2->7\"];"), "{s}");
        assert!(s.contains("e_2_3 [label=\"f: F sc\"];"), "{s}");
        assert!(!s.contains("e_2_2"), "{s}");
        // w2 is relaxed with no fence before it: no sw.
        assert!(!s.contains("label=\"sw\""), "{s}");
        assert_eq!(s.matches("label=\"mo\"").count(), 3, "{s}");
    }

    #[test]
    fn dot_sw_through_release_sequence_and_fences() {
        let mut b = Builder::new();
        let x = b.alloc(0, 0, 0);
        let p0 = b.spawn(0);
        let p1 = b.spawn(0);
        let p2 = b.spawn(0);
        // P0: F rel; W rlx x=1. P1: RMW rlx x reads it. P2: R rlx x reads the RMW; F acq.
        let f = b.push(p0, EventKind::Fence { order: Order::Release });
        let w = b.write(p0, x, Order::Relaxed, 1);
        let (_, rw) = b.rmw(p1, x, RmwOp::Swap(3), Order::Relaxed, w);
        b.read(p2, x, Order::Relaxed, rw);
        let fa = b.push(p2, EventKind::Fence { order: Order::Acquire });
        let s = draw(&b.g, "");
        assert!(!s.contains("labelloc"), "{s}");
        assert_eq!((f, fa), (EventId::new(1, 1), EventId::new(3, 2)));
        // Head of the release sequence is w (via the RMW), synchronizing
        // through P0's release fence and P2's acquire fence.
        assert!(s.contains("  e_1_1 -> e_3_2 [label=\"sw\", color=darkgreen"), "{s}");
        assert_eq!(s.matches("label=\"sw\"").count(), 1, "{s}");
        assert!(s.contains("  e_2_1 -> e_3_1 [label=\"rf\""), "{s}");
    }

    /// P0: W rel x=1; W rlx x=2. P1: R acq x reads the second write.
    fn same_thread_release_sequence() -> ExecutionGraph {
        let mut b = Builder::new();
        let x = b.alloc(0, 0, 0);
        let p0 = b.spawn(0);
        let p1 = b.spawn(0);
        b.write(p0, x, Order::Release, 1);
        let w2 = b.write(p0, x, Order::Relaxed, 2);
        b.read(p1, x, Order::Acquire, w2);
        b.g
    }

    #[test]
    fn dot_sw_edges_are_the_models() {
        let g = same_thread_release_sequence();
        // rc11 (C11's release sequences): the release write heads a sequence
        // holding the same thread's later write, so it synchronizes.
        let rc11 = draw_under(&g, "", MemoryModel::Rc11);
        assert!(rc11.contains("  e_1_1 -> e_2_1 [label=\"sw\""), "{rc11}");
        assert_eq!(rc11.matches("label=\"sw\"").count(), 1, "{rc11}");
        // cpp20 (only RMW chains continue a sequence): no sw.
        let cpp20 = draw_under(&g, "", MemoryModel::Cpp20);
        assert_eq!(cpp20.matches("label=\"sw\"").count(), 0, "{cpp20}");
        // c11 keeps the same-thread clause: sw, as under rc11.
        let c11 = draw_under(&g, "", MemoryModel::C11);
        assert_eq!(c11.matches("label=\"sw\"").count(), 1, "{c11}");
        // sc: every atomic access synchronizes, relaxed message passing too.
        let mut b = Builder::new();
        let x = b.alloc(0, 0, 0);
        let p0 = b.spawn(0);
        let p1 = b.spawn(0);
        let w = b.write(p0, x, Order::Relaxed, 1);
        b.read(p1, x, Order::Relaxed, w);
        let sc = draw_under(&b.g, "", MemoryModel::Sc);
        assert!(sc.contains("  e_1_1 -> e_2_1 [label=\"sw\""), "{sc}");
        let rlx = draw_under(&b.g, "", MemoryModel::Cpp20);
        assert_eq!(rlx.matches("label=\"sw\"").count(), 0, "{rlx}");
        // A model without one sw relation says so instead of drawing none.
        let porf = draw_under(&b.g, "", MemoryModel::Porf);
        assert!(
            porf.contains("// sw: this model's synchronization is not drawn"),
            "{porf}"
        );
        assert!(balanced(&porf), "{porf}");
    }

    #[test]
    fn dot_escapes_and_defaults() {
        let mut b = Builder::new();
        let x = b.alloc(0, 5, 7);
        b.read(0, x, Order::SeqCst, EventId::INIT);
        let quote = |_: Loc| Some("a\"b\\c".to_string());
        let none = |_: ThreadId| None;
        let s = render(
            &b.g,
            Some(&[]),
            &DotStyle {
                title: "say \"hi\"\nnow",
                loc_name: &quote,
                thread_name: &none,
            },
        );
        assert!(s.contains("label=\"say \\\"hi\\\"\\nnow\";"), "{s}");
        assert!(s.contains("init_0_5 [label=\"init a\\\"b\\\\c=7\""), "{s}");
        assert!(s.contains("label=\"thread 0\""), "{s}");
        assert!(s.contains("init_0_5 -> e_0_2 [label=\"rf\""), "{s}");
        // Default location names.
        let s = render(
            &b.g,
            Some(&[]),
            &DotStyle {
                title: "",
                loc_name: &|_| None,
                thread_name: &none,
            },
        );
        assert!(s.contains("[label=\"init loc0.5=7\""), "{s}");
        assert!(s.contains("e_0_2 [label=\"a: Rsc loc0.5=7\"];"), "{s}");
    }

    #[test]
    fn dot_letters() {
        assert_eq!(letter(0), "a");
        assert_eq!(letter(25), "z");
        assert_eq!(letter(26), "aa");
        assert_eq!(letter(27), "ab");
        assert_eq!(letter(26 + 26 * 26), "aaa");
    }
}
