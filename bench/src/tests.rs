//! Unit tests of the benchmark runner.

use super::*;
use crate::child::{decode_row, encode_row};
use std::time::Duration;

fn serial() -> std::sync::MutexGuard<'static, ()> {
    crate::tests_serial()
}

fn small_opts(tools: &[Tool]) -> Options {
    Options {
        tools: tools.to_vec(),
        iterations: 50,
        ..Options::default()
    }
}

#[test]
fn scopecheck_counts_match_closed_forms() {
    let _g = serial();
    let opts = small_opts(&[Tool::ScopecheckExhaustive]);
    for p in [
        Program::StoreBuffering { seq_cst: false },
        Program::StoreBuffering { seq_cst: true },
        Program::FetchAdd {
            threads: 2,
            per_thread: 3,
        },
        Program::FetchAdd {
            threads: 4,
            per_thread: 1,
        },
    ] {
        let row = run_one(p, Tool::ScopecheckExhaustive, &opts);
        assert!(row.problem.is_none(), "{}: {:?}", p.name(), row.problem);
        assert_eq!(row.forbidden, 0, "{}", p.name());
        assert_eq!(Some(row.executions), p.expected_rc11_executions(), "{}", p.name());
    }
    let big = Program::FetchAdd {
        threads: 2,
        per_thread: 10,
    };
    assert_eq!(big.expected_rc11_executions(), Some(184_756));
}

/// Runs `p` under scopecheck's exhaustive strategy and checks that it
/// completes with no forbidden outcome; returns the execution count.
fn exhaustive_count(p: Program, opts: &Options) -> u64 {
    let row = run_one(p, Tool::ScopecheckExhaustive, opts);
    assert!(row.problem.is_none(), "{}: {:?}", p.name(), row.problem);
    assert_eq!(row.forbidden, 0, "{}", p.name());
    assert_eq!(row.closure_runs, row.executions, "{}", p.name());
    row.executions
}

#[test]
fn new_programs_match_their_closed_forms() {
    let _g = serial();
    let opts = small_opts(&[Tool::ScopecheckExhaustive]);
    let cheap = [
        (Program::MessagePassing { release_acquire: false }, 4),
        (Program::MessagePassing { release_acquire: true }, 3),
        (Program::Iriw { seq_cst: false }, 16),
        (Program::Iriw { seq_cst: true }, 15),
        (
            Program::FetchAdd {
                threads: 3,
                per_thread: 3,
            },
            1680,
        ),
        (
            Program::FetchAdd {
                threads: 6,
                per_thread: 1,
            },
            720,
        ),
        (Program::CasRotation { n: 4 }, 14),
        (Program::CasRotation { n: 5 }, 43),
        (Program::CasRotation { n: 6 }, 144),
        (Program::CasRotation { n: 7 }, 523),
        (Program::CasRotation { n: 8 }, 2048),
        (Program::Readers { n: 3 }, 8),
        (Program::Readers { n: 4 }, 16),
        (Program::Readers { n: 8 }, 256),
        (Program::LastZero { n: 2 }, 5),
        (Program::LastZero { n: 3 }, 12),
        (Program::LastZero { n: 4 }, 28),
        (Program::LastZero { n: 8 }, 704),
        (Program::Seqlock { writes: 1 }, 16),
    ];
    for (p, n) in cheap {
        assert_eq!(p.expected_rc11_executions(), Some(n), "{}", p.name());
        assert_eq!(exhaustive_count(p, &opts), n, "{}", p.name());
    }
}

#[test]
fn closed_forms_give_the_published_large_counts() {
    assert_eq!(Program::CasRotation { n: 12 }.expected_rc11_executions(), Some(919_146));
    assert_eq!(Program::Readers { n: 17 }.expected_rc11_executions(), Some(131_072));
    assert_eq!(Program::LastZero { n: 15 }.expected_rc11_executions(), Some(147_456));
    assert_eq!(last_zero_executions(1), None);
    for p in Program::large() {
        assert!(!Program::all().contains(&p), "{} is in both groups", p.name());
    }
}

#[test]
fn data_structures_run_clean_everywhere() {
    let _g = serial();
    let opts = small_opts(&Tool::ALL);
    for p in [
        Program::Treiber { pushers: 2 },
        Program::Treiber { pushers: 3 },
        Program::Seqlock { writes: 1 },
        Program::Seqlock { writes: 2 },
    ] {
        assert!(exhaustive_count(p, &opts) > 0);
        // loom is left out: its exploration of these takes minutes (see the README table).
        for tool in [Tool::ScopecheckRandom, Tool::Shuttle, Tool::ScopecheckPct] {
            let row = run_one(p, tool, &opts);
            assert!(row.problem.is_none(), "{} {}: {:?}", p.name(), tool.name(), row.problem);
            assert_eq!(row.forbidden, 0, "{} {}", p.name(), tool.name());
        }
    }
}

#[test]
fn groups_select_families_and_large() {
    let names = |g: &str| -> Vec<String> { parse_programs(g).unwrap().into_iter().map(Program::name).collect() };
    assert_eq!(names("mp"), ["mp-relaxed", "mp-relacq"]);
    assert_eq!(names("iriw"), ["iriw-relaxed", "iriw-seqcst"]);
    assert_eq!(names("litmus").len(), 6);
    assert_eq!(names("readers"), ["readers-3", "readers-8", "readers-12"]);
    assert_eq!(names("last-zero"), ["last-zero-3", "last-zero-8", "last-zero-12"]);
    assert_eq!(
        names("large"),
        ["cas-rot-11", "cas-rot-12", "fai-9", "readers-17", "last-zero-15"]
    );
    assert_eq!(names("cas-rot-12"), ["cas-rot-12"]);
    assert_eq!(names("rot"), names("cas-rot"));
    assert!(parse_programs("readers-5").is_err());
    // Sizes outside both groups are not selectable.
    assert!(parse_programs("readers-4").is_err());
}

#[test]
fn every_tool_runs_a_small_program() {
    let _g = serial();
    let opts = small_opts(&Tool::ALL);
    for tool in Tool::ALL {
        let row = run_one(Program::CasRotation { n: 3 }, tool, &opts);
        assert!(row.problem.is_none(), "{}: {:?}", tool.name(), row.problem);
        assert!(row.executions > 0 && row.closure_runs > 0, "{}", tool.name());
        assert_eq!(row.forbidden, 0);
    }
}

#[test]
fn loom_thread_limit_is_reported_not_run() {
    let _g = serial();
    let opts = small_opts(&[Tool::Loom]);
    let row = run_one(Program::CasRotation { n: 8 }, Tool::Loom, &opts);
    assert!(matches!(row.problem, Some(Problem::NotRun(_))));
}

#[test]
fn rows_survive_the_trip_from_a_child() {
    let row = Row {
        program: Program::StoreBuffering { seq_cst: true },
        tool: Tool::Loom,
        executions: 42,
        closure_runs: 42,
        forbidden: 3,
        wall: Duration::from_nanos(123_456_789),
        vm_hwm_kb: Some(2048),
        problem: Some(Problem::Failed("panicked:\tx".to_string())),
    };
    let back = decode_row(row.program, row.tool, &encode_row(&row)).unwrap();
    assert_eq!(back.executions, 42);
    assert_eq!(back.forbidden, 3);
    assert_eq!(back.wall, row.wall);
    assert_eq!(back.vm_hwm_kb, Some(2048));
    assert_eq!(back.problem, Some(Problem::Failed("panicked: x".to_string())));
}

#[test]
fn arguments_select_programs_and_tools() {
    let args = [
        "fai",
        "sb-relaxed",
        "--tools",
        "loom,scopecheck",
        "--iterations=7",
        "--bench",
    ];
    let Command::Run(o) = parse_args(args.iter().map(|s| s.to_string())).unwrap() else {
        panic!("expected a run");
    };
    // fai: 2x10, 3x3, then 3..=8 threads × 1.
    assert_eq!(o.programs.len(), 9);
    assert_eq!(
        o.programs[1],
        Program::FetchAdd {
            threads: 3,
            per_thread: 3
        }
    );
    assert_eq!(o.programs[8], Program::StoreBuffering { seq_cst: false });
    assert_eq!(o.tools, vec![Tool::ScopecheckExhaustive, Tool::Loom]);
    assert_eq!(o.iterations, 7);
    assert!(parse_args(["nope".to_string()]).is_err());
    assert!(parse_args(["--tools".to_string(), "x".to_string()]).is_err());
    let child = ["--child", "cas-rot-5", "shuttle", "--iterations", "3"];
    let Command::Child(p, t, o) = parse_args(child.iter().map(|s| s.to_string())).unwrap() else {
        panic!("expected a child");
    };
    assert_eq!((p, t, o.iterations), (Program::CasRotation { n: 5 }, Tool::Shuttle, 3));
    let capped = ["cas-rot-13", "--max-executions", "250"];
    let Command::Run(o) = parse_args(capped.iter().map(|s| s.to_string())).unwrap() else {
        panic!("expected a run");
    };
    assert_eq!(
        (o.programs, o.max_executions),
        (vec![Program::CasRotation { n: 13 }], Some(250))
    );
    assert!(parse_args(["--max-executions".to_string(), "x".to_string()]).is_err());
    let repeated = ["sb", "--repeat", "5"];
    let Command::Run(o) = parse_args(repeated.iter().map(|s| s.to_string())).unwrap() else {
        panic!("expected a run");
    };
    assert_eq!(o.repeat, 5);
    assert!(parse_args(["--repeat".to_string(), "0".to_string()]).is_err());
}

/// The median run is the middle one by wall time, whatever the order
/// the runs came in.
#[test]
fn the_median_run_is_the_middle_one_by_wall_time() {
    let row = |ms: u64| Row {
        program: Program::CasRotation { n: 3 },
        tool: Tool::ScopecheckExhaustive,
        executions: ms,
        closure_runs: ms,
        forbidden: 0,
        wall: Duration::from_millis(ms),
        vm_hwm_kb: None,
        problem: None,
    };
    let runs = vec![row(40), row(10), row(30), row(50), row(20)];
    assert_eq!(median_row(runs).wall, Duration::from_millis(30));
    assert_eq!(median_row(vec![row(7)]).wall, Duration::from_millis(7));
    assert_eq!(median_row(vec![row(9), row(3)]).wall, Duration::from_millis(9));
}

/// A capped exhaustive run explores exactly the cap, counts every
/// closure run, and is not reported as a problem (nor as a wrong count).
#[test]
fn max_executions_caps_the_exhaustive_tools() {
    let _g = serial();
    let mut opts = small_opts(&[Tool::ScopecheckExhaustive, Tool::ScopecheckParallel]);
    opts.max_executions = Some(250);
    for tool in [Tool::ScopecheckExhaustive, Tool::ScopecheckParallel] {
        let row = run_one(Program::CasRotation { n: 13 }, tool, &opts);
        assert_eq!(row.problem, None, "{}", tool.name());
        assert_eq!((row.executions, row.closure_runs), (250, 250), "{}", tool.name());
        assert!(scopecheck_errors(&[row], &opts).is_empty());
    }
}
