//! Unit tests of the model interface on scripted graphs: each model's
//! answers, and the incremental views (`graph/sw.rs`, the one
//! synchronizes-with rule) against the declarative relations
//! (`relations.rs`) on scoped and unscoped graphs.

use super::relations::Relations;
use super::MemoryModel;
use crate::event::*;
use crate::graph::{ExecutionGraph, SyncRules};
use crate::scope::{Placement, Scope};
use crate::space::Space;

#[test]
fn every_model_has_its_own_token_code_and_name() {
    let mut codes: Vec<u8> = MemoryModel::ALL.iter().map(|m| m.code()).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes, (0..8).collect::<Vec<u8>>(), "token codes are 0..8, each once");
    for m in MemoryModel::ALL {
        assert_eq!(MemoryModel::from_code(m.code()), Some(m));
        let parsed = MemoryModel::from_name(m.name());
        // `porf` is a base, not a model a user names.
        assert_eq!(parsed, (m != MemoryModel::Porf).then_some(m), "{}", m.name());
    }
    assert_eq!(MemoryModel::from_code(8), None);
    assert_eq!(MemoryModel::from_name("rust"), Some(MemoryModel::Cpp20));
    assert_eq!(MemoryModel::from_name("c++20"), Some(MemoryModel::Cpp20));
    assert_eq!(MemoryModel::from_name("opencl"), None);
    // The codes printed tokens carry (token.rs): fixed forever.
    let fixed: Vec<(&str, u8)> = MemoryModel::ALL.iter().map(|m| (m.name(), m.code())).collect();
    assert_eq!(
        fixed,
        [
            ("sc", 0),
            ("rc11", 1),
            ("cpp20", 2),
            ("src11", 3),
            ("porf", 4),
            ("c11", 5),
            ("ptx7.5", 6),
            ("vulkan", 7)
        ]
    );
}

#[test]
fn each_model_answers_the_engines_questions() {
    use MemoryModel::*;
    let coherent: Vec<MemoryModel> = MemoryModel::ALL.into_iter().filter(|m| m.coherent()).collect();
    assert_eq!(coherent, [Sc, Rc11, Cpp20, Src11, C11]);
    let hb_races: Vec<MemoryModel> = MemoryModel::ALL.into_iter().filter(|m| m.hb_races()).collect();
    assert_eq!(hb_races, [Sc, Rc11, Cpp20, Src11, C11]);
    let refusing: Vec<MemoryModel> = MemoryModel::ALL
        .into_iter()
        .filter(|m| m.refuses_operations())
        .collect();
    assert_eq!(refusing, [Ptx75, Vulkan]);
    let cyclic: Vec<MemoryModel> = MemoryModel::ALL
        .into_iter()
        .filter(|m| m.allows_porf_cycles())
        .collect();
    assert_eq!(cyclic, [C11]);
    // The graph check: always under sc; from two seq_cst events (or a new
    // seq_cst access) in the RC11 family and c11; never on the porf base.
    for m in MemoryModel::ALL {
        let answers = [
            m.check_needed(0, false),
            m.check_needed(1, false),
            m.check_needed(1, true),
            m.check_needed(2, false),
        ];
        let expected = match m {
            Sc => [true; 4],
            Rc11 | Cpp20 | Src11 | C11 => [false, false, true, true],
            Porf | Ptx75 | Vulkan => [false; 4],
        };
        assert_eq!(answers, expected, "{}", m.name());
    }
    let rules = |m: MemoryModel| {
        let r = m.sync_rules();
        (r.all_sc, r.same_thread_rs, r.scoped)
    };
    assert_eq!(rules(Sc), (true, false, false));
    assert_eq!(rules(Rc11), (false, true, false));
    assert_eq!(rules(Src11), (false, true, true));
    for m in [Cpp20, C11, Porf, Ptx75, Vulkan] {
        assert_eq!(rules(m), (false, false, false), "{}", m.name());
    }
}

/// A small deterministic generator (xorshift), so the graphs are scripted
/// and the same on every run.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A graph of `threads` threads spawned by main, each doing `steps`
/// accesses and fences on two atomic locations with orders (and, when
/// `scoped`, scopes and GPU placements) drawn from `seed`. Reads read any
/// write already in the graph; writes go last in mo; an RMW reads the
/// mo-last write. Consistency does not matter here: the views and the
/// relations must agree on every graph.
fn scripted(seed: u64, threads: u32, steps: u32, rules: SyncRules) -> ExecutionGraph {
    let mut dice = Dice(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut g = ExecutionGraph::new();
    g.keep_porf(true);
    let src = SourceLoc::caller();
    let locs = [Loc::new(0, 0), Loc::new(0, 1)];
    g.push_event(0, EventKind::Start { parent: None }, src, Scope::System, rules, true);
    for loc in locs {
        let alloc = EventKind::Alloc {
            loc,
            init: 0,
            kind: LocKind::Atomic,
            space: Space::Global,
            addresses: false,
        };
        g.push_event(0, alloc, src, Scope::System, rules, true);
    }
    for t in 1..=threads {
        if rules.scoped {
            // Two blocks of two warps: some scopes include each other's
            // thread, some do not.
            g.set_placement(t, Placement::gpu(0, dice.below(2) as u32, dice.below(2) as u32, t));
        }
        let sp = g.push_event(0, EventKind::Spawn { child: t }, src, Scope::System, rules, true);
        g.push_event(
            t,
            EventKind::Start { parent: Some(sp) },
            src,
            Scope::System,
            rules,
            true,
        );
    }
    let orders = [
        Order::Relaxed,
        Order::Acquire,
        Order::Release,
        Order::AcqRel,
        Order::SeqCst,
    ];
    let scopes = if rules.scoped {
        &[Scope::Warp, Scope::Block, Scope::Device, Scope::System][..]
    } else {
        &[Scope::System][..]
    };
    let mut value = 0;
    for _ in 0..steps {
        for t in 1..=threads {
            let loc = dice.pick(&locs);
            let scope = dice.pick(scopes);
            let order = dice.pick(&orders);
            let writes: Vec<EventId> = std::iter::once(EventId::INIT)
                .chain(g.loc(loc).expect("loc").mo.iter().copied())
                .collect();
            value += 1;
            match dice.below(4) {
                0 => {
                    let rf = dice.pick(&writes);
                    let read = ReadEvent {
                        loc,
                        order: if order == Order::Release || order == Order::AcqRel {
                            Order::Relaxed
                        } else {
                            order
                        },
                        rf,
                        value: g.write_value(loc, rf),
                        rmw: None,
                        spurious: false,
                        await_: None,
                    };
                    g.push_event(t, EventKind::Read(read), src, scope, rules, true);
                }
                1 => {
                    let order = if order.is_acquire() && !order.is_release() {
                        Order::Relaxed
                    } else if order == Order::AcqRel {
                        Order::Release
                    } else {
                        order
                    };
                    let w = WriteEvent {
                        loc,
                        order,
                        value,
                        rmw: false,
                    };
                    let id = g.push_event(t, EventKind::Write(w), src, scope, rules, true);
                    let n = g.loc(loc).expect("loc").mo.len();
                    g.insert_mo(loc, id, n + 1);
                }
                2 => {
                    let rf = g.mo_max(loc);
                    let read = ReadEvent {
                        loc,
                        order: if order.is_acquire() { order } else { Order::Relaxed },
                        rf,
                        value: g.write_value(loc, rf),
                        rmw: Some((RmwOp::Add(1), ValueType::U64, order, Order::Relaxed)),
                        spurious: false,
                        await_: None,
                    };
                    g.push_event(t, EventKind::Read(read), src, scope, rules, true);
                    let w = WriteEvent {
                        loc,
                        order: if order.is_release() { order } else { Order::Relaxed },
                        value,
                        rmw: true,
                    };
                    let id = g.push_event(t, EventKind::Write(w), src, scope, rules, true);
                    let n = g.loc(loc).expect("loc").mo.len();
                    g.insert_mo(loc, id, n + 1);
                }
                _ => {
                    g.push_event(t, EventKind::Fence { order }, src, scope, rules, true);
                }
            }
        }
    }
    g
}

/// Pairs of events.
type Pairs = Vec<(EventId, EventId)>;

/// Every pair (a, b) with a in the hb view of b, from the views, and from
/// the declarative relation (reflexive: an event's view holds itself).
fn hb_both_ways(g: &ExecutionGraph, rules: SyncRules) -> (Pairs, Pairs) {
    let rel = Relations::of(g, rules);
    let index = |e: EventId| rel.ids.iter().position(|&x| x == e).expect("indexed");
    let events: Vec<EventId> = g.events().map(|(id, _)| id).collect();
    let mut by_views = Vec::new();
    let mut by_relations = Vec::new();
    for &b in &events {
        let view = g.hb(b);
        for &a in &events {
            if view.contains(a) {
                by_views.push((a, b));
            }
            if a == b || rel.hb.has(index(a), index(b)) {
                by_relations.push((a, b));
            }
        }
    }
    (by_views, by_relations)
}

/// The one sw rule of `graph/sw.rs` gives every event the hb the
/// declarative relations derive, under every model's rules: unscoped
/// (sc, rc11, cpp20) and scoped (src11, with threads in different warps
/// and blocks and accesses at every scope).
#[test]
fn the_views_sw_rule_gives_the_relations_hb_scoped_and_unscoped() {
    let models = [
        MemoryModel::Sc,
        MemoryModel::Rc11,
        MemoryModel::Cpp20,
        MemoryModel::Src11,
    ];
    let mut compared = 0;
    let mut synchronized = 0;
    for m in models {
        let rules = m.sync_rules();
        for seed in 1..=60 {
            let g = scripted(seed, 3, 4, rules);
            let (views, relations) = hb_both_ways(&g, rules);
            assert_eq!(
                views,
                relations,
                "{} seed {seed}: hb by views vs by relations",
                m.name()
            );
            compared += 1;
            // Count the graphs where some thread's event is hb-after
            // another spawned thread's: the test must see synchronization.
            if views
                .iter()
                .any(|&(a, b)| a.thread != 0 && b.thread != 0 && a.thread != b.thread)
            {
                synchronized += 1;
            }
        }
    }
    assert_eq!(compared, 240);
    assert!(
        synchronized >= 100,
        "only {synchronized} graphs synchronize: the scripts test too little"
    );
}

/// sw edges for pictures come from each model's own relations: on one
/// message-passing graph with a relaxed write between the release and the
/// read it reads, `rc11` (C11's release sequences, same thread) has the
/// edge and `cpp20` (RMW chains only) does not.
#[test]
fn sync_edges_follow_the_models_release_sequences() {
    let rules = MemoryModel::Rc11.sync_rules();
    let mut g = ExecutionGraph::new();
    let src = SourceLoc::caller();
    let x = Loc::new(0, 0);
    let push = |g: &mut ExecutionGraph, t, kind| g.push_event(t, kind, src, Scope::System, rules, true);
    push(&mut g, 0, EventKind::Start { parent: None });
    let alloc = EventKind::Alloc {
        loc: x,
        init: 0,
        kind: LocKind::Atomic,
        space: Space::Global,
        addresses: false,
    };
    push(&mut g, 0, alloc);
    let sp1 = push(&mut g, 0, EventKind::Spawn { child: 1 });
    let sp2 = push(&mut g, 0, EventKind::Spawn { child: 2 });
    push(&mut g, 1, EventKind::Start { parent: Some(sp1) });
    push(&mut g, 2, EventKind::Start { parent: Some(sp2) });
    let write = |order, value| WriteEvent {
        loc: x,
        order,
        value,
        rmw: false,
    };
    let rel = push(&mut g, 1, EventKind::Write(write(Order::Release, 1)));
    g.insert_mo(x, rel, 1);
    let rlx = push(&mut g, 1, EventKind::Write(write(Order::Relaxed, 2)));
    g.insert_mo(x, rlx, 2);
    let read = ReadEvent {
        loc: x,
        order: Order::Acquire,
        rf: rlx,
        value: 2,
        rmw: None,
        spurious: false,
        await_: None,
    };
    let acq = push(&mut g, 2, EventKind::Read(read));
    let edges = |m: MemoryModel| m.sync_edges(&g).expect("an sw relation");
    assert!(edges(MemoryModel::Rc11).contains(&(rel, acq)));
    assert!(!edges(MemoryModel::Cpp20).contains(&(rel, acq)));
    assert_eq!(MemoryModel::Porf.sync_edges(&g), None);
    assert_eq!(MemoryModel::Vulkan.sync_edges(&g), None);
}
