//! Exact messages and positions for malformed inputs, lexical oddities and
//! nesting limits.

use super::*;

/// `(replace this, with this)` in [`SB`], then the expected error.
const ERRORS: &[(&str, &str, &str)] = &[
    // Missing `;`: at the token after the statement.
    (
        "memory_order_relaxed);\n  int r0",
        "memory_order_relaxed)\n  int r0",
        "5:3: expected `;`, found `int`",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_release",
        "5:36: memory_order_release is not a valid order for a load",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_acq_rel",
        "5:36: memory_order_acq_rel is not a valid order for a load",
    ),
    (
        "store_explicit(x, 1, memory_order_relaxed",
        "store_explicit(x, 1, memory_order_acquire",
        "4:31: memory_order_acquire is not a valid order for a store",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_bogus",
        "5:36: expected a memory order, found `memory_order_bogus`",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y",
        "5:34: expected `,` and a memory order, found `)`",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_acquire, rlx_quantum",
        "5:58: DRFrlx classes apply to relaxed atomics only (this one is memory_order_acquire)",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_seq_cst, memory_scope_device, rlx_unpaired",
        "5:79: DRFrlx classes apply to relaxed atomics only (this one is memory_order_seq_cst)",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_relaxed, memory_scope_device, rlx_quantum, 3",
        "5:90: expected `)` to close the call to `atomic_load_explicit`, found `,`",
    ),
    (
        "load_explicit(y, memory_order_relaxed",
        "load_explicit(y, memory_order_relaxed, cuda::thread_scope_device",
        "5:58: expected a memory scope or a DRFrlx class, found `cuda`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed)",
        "int r0 = atomic_load(y, memory_order_relaxed)",
        "5:25: expected `)` to close the call to `atomic_load` (orders and scopes go in `atomic_load_explicit`), found `,`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed)",
        "int r0 = atomic_compare_exchange_strong_explicit(y, &r0, 1, memory_order_relaxed)",
        "5:83: expected `,` and the failure memory order, found `)`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed)",
        "int r0 = atomic_compare_exchange_strong_explicit(y, &r0, 1, memory_order_relaxed, memory_order_release)",
        "5:85: memory_order_release is not a valid failure order for a compare-exchange",
    ),
    (
        "atomic_store_explicit(x",
        "atomic_stor_explicit(x",
        "4:3: unknown function `atomic_stor_explicit` (expected an atomic operation such as `atomic_load_explicit`)",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed)",
        "int r0 = barrier(CLK_LOCAL_MEM_FENCE)",
        "5:12: expected an expression, found `barrier` (a statement, not a value)",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "L1: int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "5:3: labels are only supported before barrier",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "barrier(CLK_LOCAL_MEM_FENCE | 0);",
        "5:33: expected `CLK_LOCAL_MEM_FENCE` or `CLK_GLOBAL_MEM_FENCE`, found `0`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "atomic_thread_fence();",
        "5:23: expected a memory order, found `)`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "r0 + 1 = 2;",
        "5:3: expected a register, `*p` or `p[i]` on the left of `=`, found another expression",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "else;",
        "5:3: expected a statement, found `else`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed);",
        "if (1) { int r0 = 1;",
        "7:1: expected `}` to close the block opened at 3:35, found `P1`",
    ),
    (
        "int r0 = atomic_load_explicit(y, memory_order_relaxed)",
        "int r0 = &(1)",
        "5:14: expected a variable, `p[i]` or `*p` after `&`, found another expression",
    ),
    ("P1 (", "P0 (", "7:1: duplicate thread `P0` (already defined at 3:1)"),
    ("P0 (", "P0@wg 0, wg 1 (", "3:10: duplicate placement level `wg`"),
    (
        "P0 (",
        "P0@team 0 (",
        "3:4: expected a placement level (`wg`, `sg`, `dev`, `block`, `warp`, `device`), found `team`",
    ),
    (
        "P0 (atomic_int* x",
        "P0 (atomic_int* x, foo",
        "3:20: expected a parameter type (`atomic_int*`, `volatile int*`, ...), found `foo`",
    ),
    ("{ x = 0;", "(* oops { x = 0;", "2:1: unterminated comment `(*`"),
    ("{ x = 0;", "/* oops { x = 0;", "2:1: unterminated comment `/*`"),
    ("{ x = 0;", "\"oops { x = 0;", "2:1: unterminated string"),
    ("x = 0;", "x = 99999999999999999999;", "2:7: integer out of range"),
    ("x = 0;", "x = 9223372036854775808;", "2:7: integer out of range"),
    ("x = 0;", "x = 0\0;", "2:8: unexpected character '\\0'"),
    ("x = 0;", "x = 0x;", "2:7: invalid integer literal `0x`"),
    ("x = 0;", "x = 12ab;", "2:7: invalid integer literal `12ab`"),
    ("{ x = 0; [y] = 0; }", "{ x = 0 y = 0 }", "2:9: expected `;` or `}` after an init entry, found `y`"),
    (
        "{ x = 0; [y] = 0; }",
        "{ x = 0; [y] = 0; ",
        "3:1: expected `}` to close the init block opened at 2:1, found `P0`",
    ),
    ("{ x = 0; [y] = 0; }", "{ int y[2] = {1,2,3}; }", "2:19: too many elements: array `y` has 2"),
    (
        "{ x = 0; [y] = 0; }",
        "{ x = {1}; }",
        "2:7: expected a single value, found `{` (element lists need an array declaration such as `int y[2]`)",
    ),
    ("C SB", "C", "1:2: expected a test name after `C`, found end of line"),
    ("C SB", "X SB", "1:1: expected a header `C <name>` or `OPENCL <name>`, found `X`"),
    (
        "exists",
        "exist",
        "11:1: expected a thread, `locations`, `filter`, `exists`, `~exists`, `forall` or end of input, found `exist`",
    ),
    ("1:r0=0)", "1:r0=0) garbage", "11:27: expected end of input after the condition, found `garbage`"),
    ("1:r0=0)", "1:r0=0", "12:1: expected `)` to close the `(` at 11:8, found end of input"),
    ("0:r0=0 /\\", "0:r0 0 /\\", "11:14: expected `=` or `!=`, found `0`"),
    ("0:r0=0 /\\", "0:r0=0 /\\ /\\", "11:19: expected a proposition (`0:r0 = 1`, `x = 1`, `true`, `~`, `(`), found `/\\`"),
    ("exists (", "~forall (", "11:2: expected `exists` after `~`, found `forall`"),
];

#[test]
fn error_messages_and_positions() {
    for (from, to, want) in ERRORS {
        assert!(SB.contains(from), "{from:?} not in SB");
        let src = SB.replacen(from, to, 1);
        match parse(&src) {
            Ok(_) => panic!("{to:?}: parsed, expected {want}"),
            Err(e) => assert_eq!(&e.to_string(), want, "after replacing {from:?} with {to:?}"),
        }
    }
}

#[test]
fn error_display_and_fields() {
    let e = parse("C t\n{}\nP0 () { r0 = ; }").unwrap_err();
    assert_eq!(
        e,
        ParseError {
            pos: Pos { line: 3, col: 14 },
            message: "expected an expression, found `;`".into()
        }
    );
    assert_eq!(e.to_string(), "3:14: expected an expression, found `;`");
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().starts_with("3:14:"));
}

#[test]
fn lexical_oddities() {
    // Invalid UTF-8, replaced.
    let bytes = b"C t\n{ x = 1; }\nP0 (int* x) { \xff }";
    let src = String::from_utf8_lossy(bytes);
    assert_eq!(
        parse(&src).unwrap_err().to_string(),
        "3:15: unexpected character '\u{fffd}'"
    );
    // Columns count characters, not bytes.
    let src = "C t (ünïcödé)\n{ x = 1; }\nP0 (int* x) { }";
    assert_eq!(parse(src).unwrap().name, "t (ünïcödé)");
    let e = parse(&src.replace("{ x = 1; }", "{ x = 1; ü }")).unwrap_err();
    assert_eq!(e.to_string(), "2:10: unexpected character 'ü'");
    assert_eq!(
        parse("").unwrap_err().to_string(),
        "1:1: expected a header `C <name>` or `OPENCL <name>`, found end of input"
    );
    assert_eq!(
        parse("C t\n{}\n").unwrap_err().to_string(),
        "3:1: expected a thread `P0 (...) { ... }`, found end of input"
    );
    assert_eq!(
        parse("C t\n{}\nP99999999999 () {}").unwrap_err().to_string(),
        "3:1: integer out of range"
    );
    assert_eq!(
        parse("C t\n{}\nP0 () { int r = \"s\"; }").unwrap_err().to_string(),
        "3:17: string literals are only allowed between top-level items"
    );
    // `(*` inside code is a dereference; at top level an unterminated herd comment.
    assert_eq!(
        parse("C t\n{}\nP0 (int* x) { int r = (*x); }\n(* x")
            .unwrap_err()
            .to_string(),
        "4:1: unterminated comment `(*`"
    );
}

#[test]
fn nesting_limits() {
    let n = 100_000;
    let in_thread = |body: &str| format!("C deep\n{{}}\nP0 (int* x) {{\n  {body}\n}}\n");
    // Expressions count their own levels, not the statements' around them.
    let cases = [
        (
            in_thread(&format!("int r = {};", "(".repeat(n))),
            "4:267: expression nested deeper than 256 levels",
        ),
        (
            in_thread(&format!("int r = {}1;", "-!".repeat(n))),
            "4:267: expression nested deeper than 256 levels",
        ),
        (
            in_thread(&format!("int r = {}", "atomic_load(".repeat(n))),
            "4:3083: expression nested deeper than 256 levels",
        ),
        (
            in_thread(&format!("int r = {}", "x[".repeat(n))),
            "4:523: expression nested deeper than 256 levels",
        ),
        // A right operand nested in parentheses is real nesting (a flat
        // chain is not: see `flat_chains_are_one_level`).
        (
            in_thread(&format!("int r = 1{};", "+(1".repeat(n))),
            "4:779: expression nested deeper than 256 levels",
        ),
        (
            in_thread(&"{".repeat(n)),
            "4:259: statement nested deeper than 256 levels",
        ),
        (
            in_thread(&"if (1) ".repeat(n)),
            // The 257th `if` is the statement too deep (not the condition
            // of the 256th, as when statements and expressions shared a count).
            "4:1795: statement nested deeper than 256 levels",
        ),
        (
            format!("{}exists {}", in_thread(""), "(".repeat(n)),
            "6:264: condition nested deeper than 256 levels",
        ),
        (
            format!("{}exists {}", in_thread(""), "~".repeat(n)),
            "6:264: condition nested deeper than 256 levels",
        ),
        (
            format!("{}exists {}", in_thread(""), "x=1 /\\ (".repeat(n)),
            "6:2056: condition nested deeper than 256 levels",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(parse(&src).unwrap_err().to_string(), want, "{}", &src[..80]);
    }
    // Just under the limits parses.
    let ok = in_thread(&format!("int r = {}1{};", "(".repeat(200), ")".repeat(200)));
    parse(&ok).unwrap();
    let ok = format!("{}exists {}", in_thread(""), vec!["x=1"; 250].join(" /\\ "));
    parse(&ok).unwrap();
}

/// A chain of left-associative operators (`1 + 1 + ...`, `a && b && ...`,
/// a condition of many conjuncts) is one level of nesting however long it
/// is, is kept flat, and means the left-associative tree.
#[test]
fn flat_chains_are_one_level() {
    let in_thread = |body: &str| format!("C chain\n{{}}\nP0 (int* x) {{\n  {body}\n}}\n");
    let init = |src: &str| -> Expr {
        let t = parse(src).unwrap_or_else(|e| panic!("{e}"));
        let StmtKind::Decl { init: Some(e), .. } = &t.threads[0].body[0].kind else {
            panic!()
        };
        e.clone()
    };
    for (n, op, binop) in [
        (257, "+", BinOp::Add),
        (258, "&&", BinOp::And),
        (10_000, "-", BinOp::Sub),
        (100_000, "*", BinOp::Mul),
    ] {
        let src = in_thread(&format!("int r = {};", vec!["1"; n].join(op)));
        let ExprKind::Binary(first, rest) = init(&src).kind else {
            panic!("{op}")
        };
        assert_eq!(first.kind, ExprKind::Int(1));
        assert_eq!(rest.len(), n - 1, "{op}");
        assert!(
            rest.iter().all(|(o, e)| *o == binop && e.kind == ExprKind::Int(1)),
            "{op}"
        );
    }
    // Mixed precedences: each run of one precedence is a chain, a lower one
    // takes the chain before it as its first operand.
    assert_eq!(
        show_expr(&["a * b * c"; 300].join(" + ")).matches("(a * b)").count(),
        300
    );
    let long_mixed = format!("{} - 1 << 2", vec!["1"; 5000].join(" + "));
    let ExprKind::Binary(first, rest) = init(&in_thread(&format!("int r = {long_mixed};"))).kind else {
        panic!()
    };
    assert_eq!(rest.len(), 1);
    let ExprKind::Binary(_, sum) = first.kind else { panic!() };
    assert_eq!(sum.len(), 5000);
    assert_eq!(sum.last().unwrap().0, BinOp::Sub);
    // A condition of 100,000 conjuncts is one flat `/\`, an `\/` of them too.
    let conj = vec!["x=1"; 100_000].join(" /\\ ");
    let src = format!("{}exists ({conj} \\/ x=2)", in_thread(""));
    let Prop::Or(any) = parse(&src).unwrap().condition.unwrap().prop else {
        panic!()
    };
    assert_eq!(any.len(), 2);
    let Prop::And(all) = &any[0] else { panic!() };
    assert_eq!(all.len(), 100_000);
    // Parentheses written around a chain keep it apart.
    let src = format!("{}exists ((x=1 /\\ x=2) /\\ x=3)", in_thread(""));
    assert_eq!(
        scopecheck::litmus::output::condition_text(&parse(&src).unwrap().condition.unwrap()),
        "exists ((x=1 /\\ x=2) /\\ x=3)"
    );
}

/// An `if` or `while` and the block that is its body are one level, an
/// `else if` chain is flat, and a statement too deep is blamed as one (at
/// its own first token), never a condition inside it.
#[test]
fn real_nesting_only() {
    let in_thread = |body: &str| format!("C deep\n{{}}\nP0 (int* x) {{\n  int r0 = 0;\n  {body}\n}}\n");
    // 255 levels of `if (1) { ... }` and the statement inside (level 256)
    // parse; one more, and the statement inside is refused.
    let nest = |k: usize, kw: &str| format!("{}r0 = 1;{}", format!("{kw} (1) {{ ").repeat(k), " }".repeat(k));
    parse(&in_thread(&nest(255, "if"))).unwrap();
    parse(&in_thread(&nest(255, "while"))).unwrap();
    assert_eq!(
        parse(&in_thread(&nest(256, "if"))).unwrap_err().to_string(),
        format!("5:{}: statement nested deeper than 256 levels", 3 + 9 * 256)
    );
    // A 300-arm `else if` chain, with a 200-level nest in its last arm.
    let arms: String = (1..300)
        .map(|k| format!(" else if (r0 == {k}) {{ r0 = {k}; }}"))
        .collect();
    let src = in_thread(&format!(
        "if (r0 == 0) {{ r0 = 1; }}{arms} else {{ {} }}",
        nest(200, "if")
    ));
    let t = parse(&src).unwrap();
    // The chain is nested in the tree: 299 `else if`s, then the `else`.
    let mut depth = 0;
    let mut s = &t.threads[0].body[1];
    while let StmtKind::If { els, .. } = &s.kind {
        match &els[..] {
            [one @ Stmt {
                kind: StmtKind::If { .. },
                ..
            }] if depth < 299 => s = one,
            _ => break,
        }
        depth += 1;
    }
    assert_eq!(depth, 299);
    // The tree bound: an `else if` that would be level 1025 is refused at its `if`...
    let arms: String = (1..1100).map(|k| format!("\nelse if (r0 == {k}) {{}}")).collect();
    let e = parse(&in_thread(&format!("if (r0 == 0) r0 = 1;{arms}"))).unwrap_err();
    assert_eq!(e.pos, Pos { line: 5 + 1024, col: 6 }, "{e}");
    assert!(
        e.message
            .starts_with("`else if` chain too long: this `if` is level 1025"),
        "{e}"
    );
    // ...and a statement that would be, at the statement (here in arm 1023).
    let arms: String = (1..1100).map(|k| format!("\nelse if (r0 == {k}) r0 = {k};")).collect();
    let e = parse(&in_thread(&format!("if (r0 == 0) r0 = 1;{arms}"))).unwrap_err();
    assert_eq!(
        e.pos,
        Pos {
            line: 5 + 1023,
            col: 22
        },
        "{e}"
    );
    assert!(e.message.contains("this statement is level 1025"), "{e}");
    // 1022 arms with a statement each parse.
    let arms: String = (1..=1022).map(|k| format!("\nelse if (r0 == {k}) r0 = {k};")).collect();
    parse(&in_thread(&format!("if (r0 == 0) r0 = 1;{arms}"))).unwrap();
}
