//! Expression precedence, statement forms, types and scopes, conditions,
//! comments and doc strings.

use super::*;

#[test]
fn expression_precedence() {
    let cases = [
        (
            "a || b && c | d ^ e & f == g < h << i + j * k",
            "(a || (b && (c | (d ^ (e & (f == (g < (h << (i + (j * k))))))))))",
        ),
        (
            "a * b + c << d > e != f & g ^ h | i && j || k",
            "((((((((((a * b) + c) << d) > e) != f) & g) ^ h) | i) && j) || k)",
        ),
        ("a - b - c", "((a - b) - c)"),
        ("a / b % c * d", "(((a / b) % c) * d)"),
        ("a <= b >= c >> 1", "((a <= b) >= (c >> 1))"),
        ("-a * !b", "((-a) * (!b))"),
        ("~-1 - -2", "((~-1) - -2)"),
        ("--1", "(--1)"),
        ("- 0x1F", "-31"),
        ("-(1)", "(-1)"),
        ("*p + *q", "((*p) + (*q))"),
        ("**p", "(*(*p))"),
        ("*(p + 1)", "(*(p + 1))"),
        ("&p[2]", "(p + 2)"),
        ("&*p", "p"),
        ("&r", "(&r)"),
        ("p[1][2]", "p[1][2]"),
        ("(((a)))", "a"),
        ("a != 0 && atomic_load(p) == 1", "((a != 0) && (Load(p) == 1))"),
        (
            "atomic_fetch_add_explicit(p + 1, atomic_load(q) * 2, memory_order_relaxed)",
            "FetchAdd((p + 1), (Load(q) * 2))",
        ),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
    ];
    for (src, want) in cases {
        assert_eq!(show_expr(src), want, "{src}");
    }
}

#[test]
fn statement_forms() {
    let src = "C stmts
{}
P0 (volatile int* x, atomic_int* y) {
  int r0;
  ;
  if (r0) r0 = 1; else if (r0 == 2) { r0 = 3; } else ;
  while (atomic_load(y) == 0);
  while (r0) {}
  { { int r1 = 1; } }
  x[2] = r0;
  *x = *x + 1;
  atomic_store(y, 1);
}
";
    let t = parse(src).unwrap();
    assert!(t.condition.is_none());
    assert!(t.init.is_empty());
    assert!(t.threads[0].params[0].ty.volatile);
    let b = &t.threads[0].body;
    assert_eq!(b.len(), 8, "{b:#?}");
    assert_eq!(b[0].kind, decl("r0", ty("int", false, 0), None));
    let StmtKind::If { then, els, .. } = &b[1].kind else {
        panic!()
    };
    assert!(matches!(
        &then[..],
        [Stmt {
            kind: StmtKind::AssignReg { .. },
            ..
        }]
    ));
    let [Stmt {
        kind: StmtKind::If {
            then: then2, els: els2, ..
        },
        ..
    }] = &els[..]
    else {
        panic!("{els:?}")
    };
    assert_eq!(then2.len(), 1);
    assert!(els2.is_empty());
    assert!(matches!(&b[2].kind, StmtKind::While { body, .. } if body.is_empty()));
    assert!(matches!(&b[3].kind, StmtKind::While { body, .. } if body.is_empty()));
    let StmtKind::Block(outer) = &b[4].kind else { panic!() };
    assert!(matches!(&outer[..], [Stmt { kind: StmtKind::Block(inner), .. }] if inner.len() == 1));
    assert_eq!(
        b[5].kind,
        StmtKind::Store {
            addr: bin(BinOp::Add, var("x", 10, 3), int(2, 10, 5)),
            value: var("r0", 10, 10)
        }
    );
    assert!(matches!(&b[6].kind, StmtKind::Store { addr, .. } if addr.kind == ExprKind::Var("x".into())));
    assert!(matches!(&b[7].kind, StmtKind::Expr(_)));
}

#[test]
fn types_and_scopes() {
    let src = "OPENCL types
{ global int a = 1; unsigned int b; long long c = -2; }
P0 (const int* a, _Atomic int* b, _Atomic(long)* c, atomic_uint** d, volatile unsigned* e, __local atomic_bool* f) {
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_work_item);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_sub_group);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_all_devices);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_thread);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_warp);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_block);
  atomic_store_explicit(b, 1, memory_order_relaxed, memory_scope_system);
  atomic_store_explicit(b, 1, memory_order_relaxed, thread_scope_thread);
  atomic_store_explicit(b, 1, memory_order_relaxed, thread_scope_warp);
  atomic_store_explicit(b, 1, memory_order_relaxed, thread_scope_device);
  atomic_store_explicit(b, 1, memory_order_relaxed, thread_scope_system);
  atomic_store_explicit(b, 1, memory_order_relaxed, warp);
  atomic_store_explicit(b, 1, memory_order_relaxed, rlx_unpaired);
  atomic_store_explicit(b, 1, memory_order_relaxed, device, rlx_non_ordering);
  atomic_store_explicit(b, 1, memory_order_relaxed, block, rlx_quantum);
  atomic_store_explicit(b, 1, memory_order_relaxed, thread, rlx_speculative);
}
";
    // `unsigned int b;` has no `=`: a declaration that starts at 0, as in
    // C and herd (herd_headers.rs), the same as writing `= 0`.
    let t = parse(src).unwrap();
    assert_eq!(t.init[1].value, InitValue::Int(0));
    let written = parse(&src.replace("unsigned int b;", "unsigned int b = 0;")).unwrap();
    assert_eq!(
        (&t.init[1].ty, &t.init[1].value),
        (&written.init[1].ty, &written.init[1].value)
    );
    assert_eq!(t.init[0].ty, Some(spaced(AddressSpace::Global, ty("int", false, 0))));
    assert_eq!(t.init[1].ty, Some(ty("uint", false, 0)));
    assert_eq!(t.init[2].ty, Some(ty("long", false, 0)));
    assert_eq!(t.init[2].value, InitValue::Int(-2));
    let tys: Vec<Type> = t.threads[0].params.iter().map(|p| p.ty.clone()).collect();
    assert_eq!(
        tys,
        vec![
            ty("int", false, 1),
            ty("int", true, 1),
            ty("long", true, 1),
            ty("uint", true, 2),
            Type {
                volatile: true,
                ..ty("uint", false, 1)
            },
            spaced(AddressSpace::Local, ty("bool", true, 1)),
        ]
    );
    let got: Vec<(Option<Scope>, Option<RlxClass>)> = t.threads[0]
        .body
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Expr(Expr {
                kind: ExprKind::Atomic(c),
                ..
            }) => (c.scope, c.class),
            k => panic!("{k:?}"),
        })
        .collect();
    use RlxClass::*;
    use Scope::*;
    assert_eq!(
        got,
        vec![
            (Some(Thread), None),
            (Some(Warp), None),
            (Some(System), None),
            (Some(Thread), None),
            (Some(Warp), None),
            (Some(Block), None),
            (Some(System), None),
            (Some(Thread), None),
            (Some(Warp), None),
            (Some(Device), None),
            (Some(System), None),
            (Some(Warp), None),
            (None, Some(Unpaired)),
            (Some(Device), Some(NonOrdering)),
            (Some(Block), Some(Quantum)),
            (Some(Thread), Some(Speculative)),
        ]
    );
}

#[test]
fn conditions() {
    let cond = |c: &str| {
        let src = format!("C c\n{{}}\nP0 (int* x) {{ }}\n{c}");
        parse(&src).map(|t| (t.locations, t.condition))
    };
    let (_, c) = cond("exists true").unwrap();
    assert_eq!(c.unwrap().prop, Prop::True);
    let (_, c) = cond("~ exists (false)").unwrap();
    let c = c.unwrap();
    assert_eq!((c.quantifier, c.prop), (Quantifier::NotExists, Prop::False));
    let (_, c) = cond("forall not (x = -1 \\/ x == 2 /\\ ~~P0:r0 != x)").unwrap();
    assert_eq!(
        c.unwrap().prop,
        Prop::Not(Box::new(or(
            Prop::Eq(loc("x", 0), Value::Int(-1)),
            and(
                Prop::Eq(loc("x", 0), Value::Int(2)),
                Prop::Not(Box::new(Prop::Not(Box::new(Prop::Ne(
                    reg(0, "r0"),
                    Value::Addr {
                        name: "x".into(),
                        index: 0
                    }
                )))))
            )
        )))
    );
    let (l, c) = cond("locations [x; 0:r1; y[1];]").unwrap();
    assert_eq!(l, vec![loc("x", 0), reg(0, "r1"), loc("y", 1)]);
    assert!(c.is_none());
    let (l, c) = cond("locations []\nexists ([y[3]] = &z[1]) // done\n(* end *)").unwrap();
    assert!(l.is_empty());
    assert_eq!(
        c.unwrap().prop,
        Prop::Eq(
            loc("y", 3),
            Value::Addr {
                name: "z".into(),
                index: 1
            }
        )
    );
}

#[test]
fn comments_and_doc_strings() {
    let src = "\u{feff}(* before *) C  with comments  \r
\"doc string \\\" with a quote\" (* herd *) // line
{ /* block */ x = 1; }
\"between threads\"
P0 (int* x) { /* (* not herd inside code *) */ int r0 = (*x); // (*x) is a dereference
}
(* after *) exists (0:r0 = 1) (* trailing *) \"also\"
";
    let t = parse(src).unwrap();
    assert_eq!(t.name, "with comments");
    let StmtKind::Decl { init: Some(e), .. } = &t.threads[0].body[0].kind else {
        panic!()
    };
    assert_eq!(show(e), "(*x)");
}

/// The orders of one test's atomic calls, as (order, written as consume,
/// failure order, failure written as consume), in statement order.
fn call_orders(body: &[Stmt]) -> Vec<(Order, bool, Option<Order>, bool)> {
    body.iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Decl {
                init:
                    Some(Expr {
                        kind: ExprKind::Atomic(c),
                        ..
                    }),
                ..
            } => Some((c.order, c.consume, c.failure, c.failure_consume)),
            _ => None,
        })
        .collect()
}

/// `memory_order_consume` is read as acquire (the engine has no consume
/// order) and the node remembers the spelling, on a call's order, on a
/// compare-exchange's failure order and on a fence; messages about an
/// order name it as the test wrote it.
#[test]
fn consume_is_read_as_acquire_and_keeps_its_spelling() {
    let src = "C consume
{}
P0 (atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_consume);
  int r1 = atomic_load_explicit(x, memory_order_acquire);
  int r2 = atomic_compare_exchange_strong_explicit(x, &r0, 1, memory_order_acq_rel, memory_order_consume);
  int r3 = atomic_compare_exchange_strong_explicit(x, &r0, 1, memory_order_consume, memory_order_acquire);
  atomic_thread_fence(memory_order_consume);
  atomic_thread_fence(memory_order_acquire);
}
";
    let t = parse(src).unwrap();
    let b = &t.threads[0].body;
    assert_eq!(
        call_orders(b),
        [
            (Order::Acquire, true, None, false),
            (Order::Acquire, false, None, false),
            (Order::AcqRel, false, Some(Order::Acquire), true),
            (Order::Acquire, true, Some(Order::Acquire), false),
        ]
    );
    let fences: Vec<&StmtKind> = b
        .iter()
        .map(|s| &s.kind)
        .filter(|k| matches!(k, StmtKind::Fence { .. }))
        .collect();
    assert_eq!(
        fences,
        [
            &StmtKind::Fence {
                flags: vec![],
                order: Order::Acquire,
                consume: true,
                scope: None,
            },
            &StmtKind::Fence {
                flags: vec![],
                order: Order::Acquire,
                consume: false,
                scope: None,
            },
        ]
    );

    // Messages name the order as written: consume, not the acquire it is read as.
    let message = |call: &str| {
        let src = format!("C m\n{{}}\nP0 (atomic_int* x) {{\n  {call};\n}}\n");
        parse(&src).unwrap_err().message
    };
    assert_eq!(
        message("atomic_store_explicit(x, 1, memory_order_consume)"),
        "memory_order_consume is not a valid order for a store"
    );
    assert_eq!(
        message("atomic_store_explicit(x, 1, memory_order_acquire)"),
        "memory_order_acquire is not a valid order for a store"
    );
    assert_eq!(
        message("int r0 = atomic_load_explicit(x, memory_order_consume, rlx_unpaired)"),
        "DRFrlx classes apply to relaxed atomics only (this one is memory_order_consume)"
    );
    assert_eq!(
        message("int r0 = atomic_load_explicit(x, memory_order_acquire, rlx_unpaired)"),
        "DRFrlx classes apply to relaxed atomics only (this one is memory_order_acquire)"
    );
}
