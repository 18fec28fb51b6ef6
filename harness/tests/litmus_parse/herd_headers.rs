//! Forms of herd's own C tests and of diy-generated ones: information
//! lines between the name and the init block, declarations without an
//! initializer, 128-bit integer types, and herd's witness counts for
//! `~exists`.

use super::*;
use scopecheck::litmus::{check_source, output::herd_text, LitmusModel, Options};
use scopecheck::MemoryModel;

/// Store buffering (`SB`) as diy7 writes it: a doc string, then
/// `Key=value` lines before the init block, and `~exists`.
fn diy_sb() -> String {
    let body = SB.split_once('\n').unwrap().1.replace("exists", "~exists");
    format!(
        "C SB+rlx+rlx\n\"Fre PodWR Fre PodWR\"\nCycle=Fre PodWR Fre PodWR\nRelax=\nSafe=Fre PodWR\n\
         Generator=diy7 (version 7.56)\nPrefetch=0:x=F,0:y=T,1:y=F,1:x=T\nCom = Fr Fr\n\
         Orig=PodWR Fre PodWR Fre\nVariant=Quad\n{body}"
    )
}

#[test]
fn information_lines_before_the_init_block_are_skipped() {
    let t = parse(&diy_sb()).unwrap();
    assert_eq!(t.name, "SB+rlx+rlx");
    assert_eq!(t.init.len(), 2);
    assert_eq!(t.threads.len(), 2);
    // Positions after them are still exact.
    let bad = diy_sb().replace("{ x = 0;", "{ x = ;");
    let e = parse(&bad).unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (11, 7), "{}", e.message);
    // Only `name=` lines: a stray word is still an error where it stands.
    let e = parse("C t\nCycle=a b\nstray words\n{}\nP0 (int* x) { *x = 1; }\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (3, 1), "{}", e.message);
    assert!(e.message.contains("the init block `{`"), "{}", e.message);
    // `==` is not an information line.
    let e = parse("C t\nx==1\n{}\nP0 (int* x) { *x = 1; }\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (2, 1), "{}", e.message);
}

#[test]
fn declarations_without_an_initializer_start_at_zero() {
    let t = parse(
        "C t\n{ int x; __int128 y; __uint128_t z; _Atomic __int128 w = 3; int a[2]; unsigned __int128 u; }\n\
         P0 (volatile __int128* y, __int128_t* x) { __int128 r0 = *x; *y = 1; }\nexists (0:r0 = 0)\n",
    )
    .unwrap();
    let values: Vec<(String, InitValue)> = t
        .init
        .iter()
        .map(|i| (i.ty.as_ref().unwrap().base.clone(), i.value.clone()))
        .collect();
    assert_eq!(
        values,
        vec![
            ("int".into(), InitValue::Int(0)),
            ("__int128".into(), InitValue::Int(0)),
            ("__uint128_t".into(), InitValue::Int(0)),
            ("__int128".into(), InitValue::Int(3)),
            ("int".into(), InitValue::List(vec![])),
            ("u__int128".into(), InitValue::Int(0)),
        ]
    );
    // An untyped name still needs its value, and herd's `int128_t` (no
    // underscores) is no type, as herd says too.
    let e = parse("C t\n{ x; }\nP0 (int* x) { *x = 1; }\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (2, 4), "{}", e.message);
    let e = parse("C t\n{}\nP0 (int128_t* x) { *x = 1; }\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (3, 5), "{}", e.message);
}

#[test]
fn witnesses_of_a_not_exists_count_the_executions_that_satisfy_it() {
    let opts = Options {
        model: Some(LitmusModel::Engine(MemoryModel::Rc11)),
        ..Options::default()
    };
    let r = check_source("sb.litmus", &diy_sb(), &opts).unwrap();
    // herd: 4 states, `Ok` (r0 = r0 = 0 is allowed: `No`), witnesses of
    // `~exists p` are the executions without p, the observation counts p.
    assert_eq!((r.positive, r.negative), (1, 3));
    let text = herd_text(&r);
    assert!(text.contains("\nNo\nWitnesses\nPositive: 3 Negative: 1\n"), "{text}");
    assert!(text.contains("\nObservation SB+rlx+rlx Sometimes 1 3\n"), "{text}");
}

/// Dat3M keeps herd's OpenCL test `CT_wsq2` under a `C` header: its
/// compare-exchange has a release failure order, which C forbids and the
/// OPENCL dialect accepts (herd's OpenCL tests use it). An OpenCL call (one
/// with a memory scope) takes the OPENCL rule under either header, so the
/// `C`-headed copy runs under `opencl` with the public answer of the
/// OPENCL-headed one; without the scope it is still an error.
#[test]
fn an_opencl_call_with_a_release_failure_order_parses_under_a_c_header() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/litmus/public/opencl");
    let opencl = std::fs::read_to_string(dir.join("CT_wsq2.litmus")).unwrap();
    assert!(opencl.starts_with("OPENCL CT_wsq2"));
    let c = opencl.replacen("OPENCL CT_wsq2", "C CT_wsq2", 1);
    let opts = Options {
        model: Some(LitmusModel::OpenCl),
        ..Options::default()
    };
    let run = |src: &str| {
        check_source("CT_wsq2.litmus", src, &opts).unwrap_or_else(|e| panic!("{}", e.located("CT_wsq2.litmus")))
    };
    let (a, b) = (run(&opencl), run(&c));
    assert_eq!(
        (a.executions, a.verdict(), &a.states),
        (b.executions, b.verdict(), &b.states)
    );
    assert_eq!(a.verdict(), Some(false));
    let no_scope = c.replace(
        ", memory_order_release, memory_scope_device)",
        ", memory_order_release)",
    );
    assert_ne!(no_scope, c);
    let e = check_source("CT_wsq2.litmus", &no_scope, &opts)
        .unwrap_err()
        .located("CT_wsq2.litmus");
    assert!(e.contains("is not a valid failure order"), "{e}");
}
