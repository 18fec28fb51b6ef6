//! Exact trees of small tests: SB, an OpenCL test, compare-exchange and arrays.

use super::*;

#[test]
fn sb_tree() {
    use AtomicOp::*;
    use Order::Relaxed;
    let ai = || ty("int", true, 1);
    let thread = |index: u32, line: u32, (a, b): (&str, &str)| Thread {
        index,
        placement: vec![],
        params: vec![param(ai(), "x", line, 5), param(ai(), "y", line, 20)],
        body: vec![
            stmt(
                StmtKind::Expr(call(
                    Store,
                    var(a, line + 1, 25),
                    vec![int(1, line + 1, 28)],
                    Relaxed,
                    None,
                    None,
                    None,
                    line + 1,
                    3,
                )),
                line + 1,
                3,
            ),
            stmt(
                decl(
                    "r0",
                    ty("int", false, 0),
                    Some(call(
                        Load,
                        var(b, line + 2, 33),
                        vec![],
                        Relaxed,
                        None,
                        None,
                        None,
                        line + 2,
                        12,
                    )),
                ),
                line + 2,
                3,
            ),
        ],
        pos: p(line, 1),
    };
    let expected = Test {
        arch: Arch::C,
        name: "SB".into(),
        init: vec![
            Init {
                target: InitTarget::Loc("x".into()),
                ty: None,
                value: InitValue::Int(0),
                pos: p(2, 3),
            },
            Init {
                target: InitTarget::Loc("y".into()),
                ty: None,
                value: InitValue::Int(0),
                pos: p(2, 10),
            },
        ],
        threads: vec![thread(0, 3, ("x", "y")), thread(1, 7, ("y", "x"))],
        locations: vec![],
        condition: Some(Condition {
            quantifier: Quantifier::Exists,
            prop: and(
                Prop::Eq(reg(0, "r0"), Value::Int(0)),
                Prop::Eq(reg(1, "r0"), Value::Int(0)),
            ),
            pos: p(11, 1),
            vars: vec![(reg(0, "r0"), p(11, 9)), (reg(1, "r0"), p(11, 19))],
            filter: None,
            filter_only: false,
        }),
        gpu: None,
    };
    assert_eq!(parse(SB), Ok(expected));
}

#[test]
fn opencl_tree() {
    let src = "OPENCL scoped-mp
{ [x]=0; local atomic_int y = 0; }
P0@wg 0, dev 0 (global atomic_int* x, local atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_release, memory_scope_work_group);
  B1: barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
}
P1@block 1, device 0 (global atomic_int* x, local atomic_int* y) {
  int r0 = atomic_fetch_add_explicit(y, 2, memory_order_relaxed, thread_scope_block, rlx_commutative);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_all_svm_devices);
  atomic_thread_fence(memory_order_seq_cst, system);
}
~exists (1:r0 = 1 \\/ ~x = 2 /\\ y != 0);
";
    let g = |t| spaced(AddressSpace::Global, t);
    let l = |t| spaced(AddressSpace::Local, t);
    let expected = Test {
        arch: Arch::OpenCl,
        name: "scoped-mp".into(),
        init: vec![
            Init {
                target: InitTarget::Loc("x".into()),
                ty: None,
                value: InitValue::Int(0),
                pos: p(2, 3),
            },
            Init {
                target: InitTarget::Loc("y".into()),
                ty: Some(l(ty("int", true, 0))),
                value: InitValue::Int(0),
                pos: p(2, 10),
            },
        ],
        threads: vec![
            Thread {
                index: 0,
                placement: vec![(Level::Block, 0), (Level::Device, 0)],
                params: vec![
                    param(g(ty("int", true, 1)), "x", 3, 17),
                    param(l(ty("int", true, 1)), "y", 3, 39),
                ],
                body: vec![
                    stmt(
                        StmtKind::Expr(call(
                            AtomicOp::Store,
                            var("x", 4, 25),
                            vec![int(1, 4, 28)],
                            Order::Release,
                            None,
                            Some(Scope::Block),
                            None,
                            4,
                            3,
                        )),
                        4,
                        3,
                    ),
                    stmt(
                        StmtKind::Barrier {
                            label: Some("B1".into()),
                            flags: vec![MemFlag::Local, MemFlag::Global],
                            scope: None,
                        },
                        5,
                        3,
                    ),
                    stmt(
                        StmtKind::Fence {
                            flags: vec![MemFlag::Global],
                            order: Order::AcqRel,
                            consume: false,
                            scope: Some(Scope::Device),
                        },
                        6,
                        3,
                    ),
                ],
                pos: p(3, 1),
            },
            Thread {
                index: 1,
                placement: vec![(Level::Block, 1), (Level::Device, 0)],
                params: vec![
                    param(g(ty("int", true, 1)), "x", 8, 23),
                    param(l(ty("int", true, 1)), "y", 8, 45),
                ],
                body: vec![
                    stmt(
                        decl(
                            "r0",
                            ty("int", false, 0),
                            Some(call(
                                AtomicOp::FetchAdd,
                                var("y", 9, 38),
                                vec![int(2, 9, 41)],
                                Order::Relaxed,
                                None,
                                Some(Scope::Block),
                                Some(RlxClass::Commutative),
                                9,
                                12,
                            )),
                        ),
                        9,
                        3,
                    ),
                    stmt(
                        StmtKind::Barrier {
                            label: None,
                            flags: vec![MemFlag::Global],
                            scope: Some(Scope::System),
                        },
                        10,
                        3,
                    ),
                    stmt(
                        StmtKind::Fence {
                            flags: vec![],
                            order: Order::SeqCst,
                            consume: false,
                            scope: Some(Scope::System),
                        },
                        11,
                        3,
                    ),
                ],
                pos: p(8, 1),
            },
        ],
        locations: vec![],
        condition: Some(Condition {
            quantifier: Quantifier::NotExists,
            prop: or(
                Prop::Eq(reg(1, "r0"), Value::Int(1)),
                and(
                    Prop::Not(Box::new(Prop::Eq(loc("x", 0), Value::Int(2)))),
                    Prop::Ne(loc("y", 0), Value::Int(0)),
                ),
            ),
            pos: p(13, 1),
            vars: vec![
                (reg(1, "r0"), p(13, 10)),
                (loc("x", 0), p(13, 23)),
                (loc("y", 0), p(13, 32)),
            ],
            filter: None,
            filter_only: false,
        }),
        gpu: None,
    };
    assert_eq!(parse(src), Ok(expected));
}

#[test]
fn cas_tree() {
    let src = "C cas
{ x = 0; }
P0 (atomic_int* x) {
  int r0 = 0;
  int r1 = atomic_compare_exchange_strong_explicit(x, &r0, 1, memory_order_acq_rel, memory_order_acquire);
  int r2 = atomic_compare_exchange_weak(x, &r0, 2);
}
forall (0:r1 = 1 /\\ P0:r2 != 1)
";
    let addr_of = |n: &str, line, col| Expr {
        kind: ExprKind::AddrOf(n.into()),
        pos: p(line, col),
    };
    let t = parse(src).unwrap();
    assert_eq!(
        t.threads[0].body,
        vec![
            stmt(decl("r0", ty("int", false, 0), Some(int(0, 4, 12))), 4, 3),
            stmt(
                decl(
                    "r1",
                    ty("int", false, 0),
                    Some(call(
                        AtomicOp::CasStrong,
                        var("x", 5, 52),
                        vec![addr_of("r0", 5, 55), int(1, 5, 60)],
                        Order::AcqRel,
                        Some(Order::Acquire),
                        None,
                        None,
                        5,
                        12
                    ))
                ),
                5,
                3
            ),
            stmt(
                decl(
                    "r2",
                    ty("int", false, 0),
                    Some(call(
                        AtomicOp::CasWeak,
                        var("x", 6, 41),
                        vec![addr_of("r0", 6, 44), int(2, 6, 49)],
                        Order::SeqCst,
                        Some(Order::SeqCst),
                        None,
                        None,
                        6,
                        12
                    ))
                ),
                6,
                3
            ),
        ]
    );
    assert_eq!(
        t.condition,
        Some(Condition {
            quantifier: Quantifier::Forall,
            prop: and(
                Prop::Eq(reg(0, "r1"), Value::Int(1)),
                Prop::Ne(reg(0, "r2"), Value::Int(1))
            ),
            pos: p(8, 1),
            vars: vec![(reg(0, "r1"), p(8, 9)), (reg(0, "r2"), p(8, 21))],
            filter: None,
            filter_only: false,
        })
    );
}

#[test]
fn array_tree() {
    let src = "C arr
{ atomic_int y[2] = {0, -1}; 0:r1 = &y; P0:r2 = x; int x = 5; }
P0 (atomic_int* y, int* x) {
  y[1] = 3;
  int r0 = y[r1 - 1] + *x * 2;
  *(y + 1) = -9223372036854775808;
}
locations [y[1]; 0:r0;]
exists y[1] = 3 /\\ [x] == 5 /\\ 0:r1 = y
";
    let t = parse(src).unwrap();
    assert_eq!(
        t.init,
        vec![
            Init {
                target: InitTarget::Array {
                    name: "y".into(),
                    len: 2
                },
                ty: Some(ty("int", true, 0)),
                value: InitValue::List(vec![0, -1]),
                pos: p(2, 3),
            },
            Init {
                target: InitTarget::Reg {
                    thread: 0,
                    reg: "r1".into()
                },
                ty: None,
                value: InitValue::Addr("y".into()),
                pos: p(2, 30),
            },
            Init {
                target: InitTarget::Reg {
                    thread: 0,
                    reg: "r2".into()
                },
                ty: None,
                value: InitValue::Addr("x".into()),
                pos: p(2, 41),
            },
            Init {
                target: InitTarget::Loc("x".into()),
                ty: Some(ty("int", false, 0)),
                value: InitValue::Int(5),
                pos: p(2, 52),
            },
        ]
    );
    let deref_x = Expr {
        kind: ExprKind::Deref(Box::new(var("x", 5, 25))),
        pos: p(5, 24),
    };
    let index = Expr {
        kind: ExprKind::Index(
            Box::new(var("y", 5, 12)),
            Box::new(bin(BinOp::Sub, var("r1", 5, 14), int(1, 5, 19))),
        ),
        pos: p(5, 12),
    };
    assert_eq!(
        t.threads[0].body,
        vec![
            stmt(
                StmtKind::Store {
                    addr: bin(BinOp::Add, var("y", 4, 3), int(1, 4, 5)),
                    value: int(3, 4, 10)
                },
                4,
                3
            ),
            stmt(
                decl(
                    "r0",
                    ty("int", false, 0),
                    Some(bin(BinOp::Add, index, bin(BinOp::Mul, deref_x, int(2, 5, 29))))
                ),
                5,
                3
            ),
            stmt(
                StmtKind::Store {
                    addr: bin(BinOp::Add, var("y", 6, 5), int(1, 6, 9)),
                    value: int(i64::MIN, 6, 14)
                },
                6,
                3
            ),
        ]
    );
    assert_eq!(t.locations, vec![loc("y", 1), reg(0, "r0")]);
    assert_eq!(
        t.condition.unwrap().prop,
        and(
            and(
                Prop::Eq(loc("y", 1), Value::Int(3)),
                Prop::Eq(loc("x", 0), Value::Int(5))
            ),
            Prop::Eq(
                reg(0, "r1"),
                Value::Addr {
                    name: "y".into(),
                    index: 0
                }
            )
        )
    );
}
