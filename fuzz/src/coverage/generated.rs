//! Features of generated programs: the generator targets' side of the coverage.

use super::Features;
use crate::program::{
    Class, Mode, Order, Program, Scope as GenScope, Shape, Step, ALL_CLASSES, CAS_FAILURE_ORDERS, FENCE_ORDERS,
    LOAD_ORDERS, RMW_ORDERS, SCOPES, STORE_ORDERS, THEOREM_CLASSES,
};

names!(step_name, STEP_KINDS, Step {
    Step::Load { .. } => "load",
    Step::Store { .. } => "store",
    Step::FetchAdd { .. } => "fetch_add",
    Step::Exchange { .. } => "exchange",
    Step::Cas { .. } => "cas",
    Step::Fence { .. } => "fence",
    Step::PlainLoad { .. } => "plain_load",
    Step::PlainStore { .. } => "plain_store",
    Step::Await { .. } => "await",
    Step::If { .. } => "if",
});
/// The feature name of an `Order` (the generator never draws
/// `NonAtomic`, which [`GEN_ORDERS`] leaves out).
pub fn gen_order_name(x: &Order) -> &'static str {
    match x {
        Order::Relaxed => "relaxed",
        Order::Acquire => "acquire",
        Order::Release => "release",
        Order::AcqRel => "acq_rel",
        Order::SeqCst => "seq_cst",
        Order::NonAtomic => "non_atomic",
    }
}
/// Every name [`gen_order_name`] returns for an order the generator draws.
pub const GEN_ORDERS: &[&str] = &["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
/// The feature name of a `Scope` (the generator never draws `Cluster`,
/// which [`GEN_SCOPES`] leaves out).
pub fn gen_scope_name(x: &GenScope) -> &'static str {
    match x {
        GenScope::Thread => "thread",
        GenScope::Warp => "warp",
        GenScope::Block => "block",
        GenScope::Device => "device",
        GenScope::System => "system",
        GenScope::Cluster => "cluster",
    }
}
/// Every name [`gen_scope_name`] returns for a scope the generator draws.
pub const GEN_SCOPES: &[&str] = &["thread", "warp", "block", "device", "system"];
names!(gen_class_name, GEN_CLASSES, Class {
    Class::Unpaired => "unpaired",
    Class::Commutative => "commutative",
    Class::NonOrdering => "non_ordering",
    Class::Speculative => "speculative",
    Class::Quantum => "quantum",
});

/// Whether `shape` can generate statements of kind `kind` (a name from
/// [`STEP_KINDS`]; a kind this does not know is taken as always possible,
/// so a new kind is expected of every corpus until this says otherwise).
fn shape_allows(shape: &Shape, kind: &str) -> bool {
    match kind {
        "cas" | "fence" => shape.fences_and_cas,
        "if" => shape.branches,
        "await" => shape.waits,
        "plain_load" | "plain_store" => shape.plain_one_in > 0,
        _ => true,
    }
}

/// Every feature programs of `shape` can have: thread counts, placements,
/// statement kinds, each order on each kind of statement that takes it,
/// scopes, classes, and the critical-cycle skeleton.
pub fn shape_expected(shape: &Shape) -> Features {
    let mut f = Features::new();
    let mut add = |s: String| {
        f.insert(s);
    };
    for n in 2..=shape.max_threads.max(2) {
        add(format!("threads:{n}"));
    }
    add("cpu".into());
    for k in STEP_KINDS.iter().filter(|k| shape_allows(shape, k)) {
        add(format!("step:{k}"));
    }
    let order_lists: [(&str, &[Order]); 7] = match shape.mode {
        Mode::General => [
            ("load", LOAD_ORDERS),
            ("await", LOAD_ORDERS),
            ("store", STORE_ORDERS),
            ("fetch_add", RMW_ORDERS),
            ("exchange", RMW_ORDERS),
            ("cas", RMW_ORDERS),
            ("cas-failure", CAS_FAILURE_ORDERS),
        ],
        Mode::Drfrlx => {
            let two: &[Order] = &[Order::Relaxed, Order::SeqCst];
            [
                ("load", two),
                ("await", two),
                ("store", two),
                ("fetch_add", two),
                ("exchange", two),
                ("cas", two),
                ("cas-failure", CAS_FAILURE_ORDERS),
            ]
        }
    };
    for (kind, orders) in order_lists {
        let step = if kind == "cas-failure" { "cas" } else { kind };
        if shape_allows(shape, step) {
            for o in orders {
                add(format!("{kind}:{}", gen_order_name(o)));
            }
        }
    }
    if shape.fences_and_cas {
        for o in FENCE_ORDERS {
            add(format!("fence:{}", gen_order_name(o)));
        }
    }
    if shape.gpu {
        add("gpu".into());
        for b in 0..=1 {
            for w in 0..=1 {
                add(format!("place:block{b}-warp{w}"));
            }
        }
        for s in SCOPES {
            add(format!("scope:{}", gen_scope_name(s)));
        }
        if shape.fences_and_cas {
            add("fence:scoped".into());
        }
    }
    let classes = match shape.mode {
        Mode::General => ALL_CLASSES,
        Mode::Drfrlx => {
            add("publishes".into());
            THEOREM_CLASSES
        }
    };
    for c in classes {
        add(format!("class:{}", gen_class_name(c)));
    }
    if shape.max_steps_2 >= 2 {
        add("cycle".into());
    }
    f
}

/// The features of a generated program.
pub fn program_features(p: &Program) -> Features {
    let mut f = Features::new();
    f.insert(format!("threads:{}", p.threads.len()));
    f.insert(if p.on_gpu() { "gpu" } else { "cpu" }.into());
    for t in &p.threads {
        if let Some((b, w)) = t.place {
            f.insert(format!("place:block{b}-warp{w}"));
        }
        if !t.published.is_empty() {
            f.insert("publishes".into());
        }
        steps_features(&t.steps, &mut f);
    }
    if is_cycle(p) {
        f.insert("cycle".into());
    }
    f
}

fn steps_features(steps: &[Step], f: &mut Features) {
    for s in steps {
        let kind = step_name(s);
        f.insert(format!("step:{kind}"));
        let access = match s {
            Step::Load { access, .. }
            | Step::Store { access, .. }
            | Step::FetchAdd { access, .. }
            | Step::Exchange { access, .. }
            | Step::Await { access, .. } => Some(access),
            Step::Cas { access, failure, .. } => {
                f.insert(format!("cas-failure:{}", gen_order_name(failure)));
                Some(access)
            }
            Step::Fence { order, scope } => {
                f.insert(format!("fence:{}", gen_order_name(order)));
                if let Some(sc) = scope {
                    f.insert("fence:scoped".into());
                    f.insert(format!("scope:{}", gen_scope_name(sc)));
                }
                None
            }
            Step::If { then, .. } => {
                steps_features(then, f);
                None
            }
            Step::PlainLoad { .. } | Step::PlainStore { .. } => None,
        };
        if let Some(a) = access {
            f.insert(format!("{kind}:{}", gen_order_name(&a.order)));
            if let Some(sc) = &a.scope {
                f.insert(format!("scope:{}", gen_scope_name(sc)));
            }
            if let Some(c) = &a.class {
                f.insert(format!("class:{}", gen_class_name(c)));
            }
        }
    }
}

/// Whether every thread `t` starts with an access to location `t % 2`
/// followed (after an optional fence) by one to the other location: the
/// generator's critical-cycle skeleton (SB, MP, LB, 2+2W, ...).
fn is_cycle(p: &Program) -> bool {
    fn loc(s: &Step) -> Option<usize> {
        match s {
            Step::Load { loc, .. }
            | Step::Store { loc, .. }
            | Step::FetchAdd { loc, .. }
            | Step::Exchange { loc, .. }
            | Step::Cas { loc, .. } => Some(*loc),
            _ => None,
        }
    }
    p.threads.iter().enumerate().all(|(i, t)| {
        let mut accesses = t.steps.iter().filter(|s| !matches!(s, Step::Fence { .. }));
        let (Some(a), Some(b)) = (accesses.next(), accesses.next()) else {
            return false;
        };
        loc(a) == Some(i % 2) && loc(b) == Some(1 - i % 2) && loc(&t.steps[0]).is_some()
    })
}
