//! The `scopecheck` command against hostile inputs (issue 16): huge arrays,
//! bad numbers, symbolic-link loops, expectation rows that match nothing,
//! colliding `--dot` names, output that cannot be written, and messages
//! that must say where and what.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scopecheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .output()
        .expect("the scopecheck binary runs")
}

/// Runs the command, killing it if it has not ended after a minute (a
/// regression here hangs, and a hung test would stop CI without a word).
fn scopecheck_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the scopecheck binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("scopecheck {args:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const OK: &str = "C ok\n{ x = 0; }\nP0 (atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
                  exists (x=1)\n";

fn with_init(name: &str, init: &str) -> String {
    format!(
        "C {name}\n{{ {init} }}\nP0 (atomic_int* x) {{ atomic_store_explicit(x, 1, memory_order_relaxed); }}\n\
         exists (x=1)\n"
    )
}

// ---- item 4: sizes ----

#[test]
fn huge_arrays_are_located_errors_and_the_batch_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let files = [
        ("a_list.litmus", with_init("a_list", "int a[4294967295] = {0};")),
        ("b_param.litmus", with_init("b_param", "int a[65536] = {0};")),
        ("c_mid.litmus", with_init("c_mid", "int a[150000] = {0};")),
        (
            "d_sum.litmus",
            with_init("d_sum", "int a[40000] = {0}; int b[40000] = {0};"),
        ),
        ("e_ok.litmus", OK.to_string()),
        ("f_edge.litmus", with_init("f_edge", "int a[65535] = {0};")),
    ];
    for (n, src) in &files {
        std::fs::write(d.path().join(n), src).unwrap();
    }
    let out = scopecheck_bounded(&["litmus", s(d.path())]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let limit = "a test may have at most 65536 memory locations in all (each array element counts as one)";
    for (file, what) in [
        ("a_list", "2:3: array `a` has 4294967295 elements"),
        ("b_param", "3:5: `x` is location number 65537"),
        ("c_mid", "2:3: array `a` has 150000 elements"),
        (
            "d_sum",
            "2:23: array `b` has 40000 elements, 80000 locations with those declared before it",
        ),
    ] {
        let want = format!("{}.litmus:{what}: {limit}", d.path().join(file).display());
        assert!(stderr.contains(&want), "{want}\n{stderr}");
    }
    // The file at the limit (65,535 elements and `x`) runs, as does the small one.
    assert!(stdout.contains("Test ok Allowed"), "{stdout}");
    assert!(stdout.contains("Test f_edge Allowed"), "{stdout}");
    assert_eq!(stdout.matches("\nOk\n").count(), 2, "{stdout}");
    assert!(!stdout.contains("runaway"), "{stdout}");
    assert!(
        stderr.contains("6 test runs: 2 checked, 4 errors, 0 disagreements"),
        "{stderr}"
    );
}

#[test]
fn too_many_threads_and_too_large_files_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let threads: String = (0..257)
        .map(|k| format!("P{k} (atomic_int* x) {{ atomic_store_explicit(x, 1, memory_order_relaxed); }}\n"))
        .collect();
    std::fs::write(d.path().join("many.litmus"), format!("C many\n{{}}\n{threads}")).unwrap();
    let mut big = OK.as_bytes().to_vec();
    big.resize((16 << 20) + 1, b'\n');
    std::fs::write(d.path().join("big.litmus"), &big).unwrap();
    std::fs::write(d.path().join("ok.litmus"), OK).unwrap();
    for cmd in ["litmus", "drfrlx"] {
        let out = scopecheck_bounded(&[cmd, s(d.path())]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(if cmd == "litmus" { 1 } else { 2 }), "{stderr}");
        let many = d.path().join("many.litmus");
        assert!(
            stderr.contains(&format!(
                "{}:259:1: too many threads: P256 is thread number 257; a test may have at most 256",
                many.display()
            )),
            "{stderr}"
        );
        let big = d.path().join("big.litmus");
        assert!(
            stderr.contains(&format!(
                "{}: larger than 16 MiB, the largest litmus file scopecheck reads",
                big.display()
            )),
            "{stderr}"
        );
    }
}

// ---- item 6: numeric options ----

#[test]
fn bad_numbers_are_usage_errors_naming_the_option() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("ok.litmus");
    std::fs::write(&f, OK).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["litmus", "--timeout=-1"], "'--timeout <SECONDS>'"),
        (&["litmus", "--timeout", "nan"], "'--timeout <SECONDS>'"),
        (&["litmus", "--timeout", "inf"], "'--timeout <SECONDS>'"),
        (&["litmus", "--timeout", "1e300"], "'--timeout <SECONDS>'"),
        (&["litmus", "--timeout", "0"], "'--timeout <SECONDS>'"),
        (&["litmus", "--timeout=-0.5"], "'--timeout <SECONDS>'"),
        (&["litmus", "--jobs", "0"], "'--jobs <JOBS>'"),
        (&["litmus", "-j", "100000"], "'--jobs <JOBS>'"),
        (
            &["litmus", "--max-executions", "0"],
            "'--max-executions <MAX_EXECUTIONS>'",
        ),
        (
            &["litmus", "--max-executions=-3"],
            "'--max-executions <MAX_EXECUTIONS>'",
        ),
        (&["litmus", "--unroll=-1"], "'--unroll <UNROLL>'"),
        (&["litmus", "--unroll", "99999999999"], "'--unroll <UNROLL>'"),
        (&["litmus", "--strategy", "random:1:0"], "'--strategy <STRATEGY>'"),
        (&["litmus", "--strategy", "pct:1:0:2"], "'--strategy <STRATEGY>'"),
        (&["drfrlx", "--unroll=-1"], "'--unroll <UNROLL>'"),
        (
            &["drfrlx", "--quantum-values", "1,x"],
            "'--quantum-values <QUANTUM_VALUES>'",
        ),
    ];
    for (args, option) in cases {
        let mut all = args.to_vec();
        all.push(s(&f));
        let out = scopecheck(&all);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(option), "{all:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{all:?}: {stderr}");
    }
    // Good values still run.
    let out = scopecheck(&[
        "litmus",
        "--timeout",
        "30",
        "--jobs",
        "1",
        "--max-executions",
        "5",
        s(&f),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

// ---- item 8: symbolic-link loops ----

#[cfg(unix)]
#[test]
fn symlink_loops_are_skipped_with_a_note() {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("ok.litmus"), OK).unwrap();
    std::fs::write(root.join("sub/ok2.litmus"), OK.replace("C ok", "C ok2")).unwrap();
    symlink(".", root.join("x")).unwrap();
    symlink(".", root.join("y")).unwrap();
    symlink("..", root.join("sub/up")).unwrap();
    symlink("ok.litmus", root.join("alias.litmus")).unwrap();
    for cmd in ["litmus", "drfrlx"] {
        let out = scopecheck_bounded(&[cmd, s(root)]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{cmd}: {stdout}\n{stderr}");
        // Two files, each once.
        assert_eq!(stdout.lines().filter(|l| l.starts_with("Test ")).count(), 2, "{stdout}");
        assert!(stdout.contains("ok2"), "{stdout}");
        for link in ["x", "y", "sub/up"] {
            let note = format!("note: {}: skipped, a link back to ", root.join(link).display());
            assert!(stderr.contains(&note), "{note}\n{stderr}");
        }
        // Sorted, the link comes first: the file itself is the one skipped.
        let same = format!(
            "note: {}: skipped, the same file as {}",
            root.join("ok.litmus").display(),
            root.join("alias.litmus").display()
        );
        assert!(stderr.contains(&same), "{stderr}");
    }
    let out = scopecheck_bounded(&["litmus", s(root)]);
    assert!(text(&out.stderr).contains("2 test runs: 2 checked, 0 errors"));
}

// ---- item 9: expectation rows ----

#[test]
fn expectation_rows_that_match_no_file_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir(root.join("t")).unwrap();
    std::fs::create_dir(root.join("other")).unwrap();
    std::fs::write(root.join("t/ok.litmus"), OK).unwrap();
    std::fs::write(root.join("t/notes.txt"), "").unwrap();
    std::fs::write(root.join("other/ok.litmus"), OK).unwrap();
    let run = |rows: &str| {
        std::fs::write(root.join("exp.tsv"), rows).unwrap();
        scopecheck(&["litmus", "--expect", s(&root.join("exp.tsv")), s(&root.join("t"))])
    };
    let tsv = root.join("exp.tsv").display().to_string();
    // A typo: the row names a file that does not exist.
    let out = run("# header\nt/okk.litmus\trc11\t1\t\t\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{tsv}:2: `t/okk.litmus` does not exist")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing runs: {}", text(&out.stdout));
    // Two rows for one file and model, even when they agree.
    let out = run("t/ok.litmus\trc11\t1\t\t\nt/ok.litmus\trc11\t0\t\t\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{tsv}:2: a second row for `t/ok.litmus` under rc11 (the first is line 1)"
        )),
        "{stderr}"
    );
    // A file inside the folder given that the run does not check.
    let out = run("t/ok.litmus\trc11\t1\t\t\nt/notes.txt\trc11\t1\t\t\n");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{tsv}:2: `t/notes.txt` is inside the folder {} given, but the run does not check it",
            root.join("t").display()
        )),
        "{stderr}"
    );
    // A row for an existing file outside the paths given is a subset run: fine.
    let out = run("t/ok.litmus\trc11\t1\t\t\nother/ok.litmus\trc11\t1\t\t\n");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 test runs: 1 checked, 0 errors, 1 agreements"),
        "{stderr}"
    );
}

// ---- item 14: --dot names and failed writes ----

const SB: &str = "C SB\n{ x = 0; y = 0; }\n\
P0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n}\n\
P1 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
exists (0:r0=0 /\\ 1:r0=0)\n";

#[test]
fn dot_names_never_collide() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    // `a/b_c` and `a_b/c` share their stems with the `z/` files, so each
    // takes its whole path as a name, and the two paths map to one name.
    let files = ["a/b_c.litmus", "a_b/c.litmus", "z/b_c.litmus", "z/c.litmus"];
    for f in files {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), SB.replace("C SB", &format!("C {f}"))).unwrap();
    }
    let dot = root.join("dot");
    // Relative paths, as a user types them.
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .current_dir(root)
        .args(["litmus", "--model", "sc,rc11,sc", "--dot", "dot"])
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut written: Vec<String> = std::fs::read_dir(&dot)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    // SB has a witness under rc11 only (sc forbids the weak outcome).
    assert_eq!(
        written,
        vec![
            "a_b_c_litmus-2.rc11.dot",
            "a_b_c_litmus.rc11.dot",
            "z_b_c_litmus.rc11.dot",
            "z_c_litmus.rc11.dot"
        ]
    );
    // Each file's witness is its own (the title names the test).
    let first = std::fs::read_to_string(dot.join("a_b_c_litmus.rc11.dot")).unwrap();
    let second = std::fs::read_to_string(dot.join("a_b_c_litmus-2.rc11.dot")).unwrap();
    assert!(first.contains("a/b_c.litmus (rc11)"), "{first}");
    assert!(second.contains("a_b/c.litmus (rc11)"), "{second}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("ok.litmus");
    std::fs::write(&f, OK).unwrap();
    for args in [
        vec!["litmus", s(&f)],
        vec!["litmus", "--json", s(&f)],
        vec!["drfrlx", s(&f)],
    ] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("scopecheck: cannot write the results to standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // A --dot folder that cannot be written to is an error too.
    let out = scopecheck(&["litmus", "--dot", "/dev/full/x", s(&f)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_stops_quietly() {
    let d = tempfile::tempdir().unwrap();
    for k in 0..4 {
        std::fs::write(d.path().join(format!("t{k}.litmus")), OK).unwrap();
    }
    // The reading end is closed before the command starts: its first write fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_scopecheck"))
        .args(["litmus", "-j", "1", s(d.path())])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert_eq!(stderr, "", "a closed pipe is not worth a message");
}

// ---- item 15: messages ----

#[test]
fn messages_say_where_and_suggest_only_what_exists() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("bar.litmus");
    std::fs::write(
        &f,
        "OPENCL b\n{}\nP0@wg 0, dev 0 (global atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  \
         B: barrier(CLK_GLOBAL_MEM_FENCE);\n}\nexists (x=1)\n",
    )
    .unwrap();
    let out = scopecheck(&["litmus", "--model", "rc11", s(&f)]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:5:3: unsupported: P0 has a barrier; barriers are supported by the opencl and src11 models \
             (`--model opencl`, `--model src11`) and by `scopecheck drfrlx`, not by rc11",
            f.display()
        )),
        "{stderr}"
    );
    // DRFrlx runs work-group barriers (issue 19 item 8): this test is legal.
    let out = scopecheck(&["drfrlx", s(&f)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("DRFrlx legal"), "{stdout}");
    // A barrier outside any work-group is an error at the barrier, worded
    // without options the command does not have.
    let host = d.path().join("host.litmus");
    let src = std::fs::read_to_string(&f).unwrap().replace("P0@wg 0, dev 0", "P0");
    std::fs::write(&host, src).unwrap();
    let out = scopecheck(&["drfrlx", s(&host)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains(&format!(
            "{}:5:3: P0 has a barrier but runs on the host (it has no placement)",
            host.display()
        )),
        "{stderr}"
    );
    assert!(
        !stdout.contains("--model") && !stderr.contains("--model"),
        "{stdout}{stderr}"
    );
    // `c11` is C11's own model for litmus tests (it once ran rc11 under
    // that name, then was refused); DRFrlx's weak model may not be C11.
    let ok = d.path().join("ok.litmus");
    std::fs::write(&ok, OK).unwrap();
    for args in [
        vec!["litmus", "--model", "c11", s(&ok)],
        vec!["litmus", "--model", "C11", s(&ok)],
    ] {
        let out = scopecheck(&args);
        let stdout = text(&out.stdout);
        assert!(stdout.contains("Model c11 "), "{args:?}: {stdout}");
    }
    let out = scopecheck(&["drfrlx", "--weak-model", "c11", s(&ok)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("C11 is a reference model for `scopecheck litmus`, not a weak model for DRFrlx"),
        "{stderr}"
    );
    std::fs::write(d.path().join("exp.tsv"), "ok.litmus\tc11\t1\t\t\n").unwrap();
    let out = scopecheck(&["litmus", "--expect", s(&d.path().join("exp.tsv")), s(&ok)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("Model c11 "), "{stdout}");
}

#[test]
fn a_condition_naming_an_undeclared_location_is_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("typo.litmus");
    std::fs::write(
        &f,
        "C typo\n{ x = 0; int a[2] = {1, 2}; }\nP0 (atomic_int* x) { atomic_store_explicit(x, 1, memory_order_relaxed); }\n\
         exists (x=1 /\\ xx=0 /\\ a[1]=2 /\\ a[5]=0)\n",
    )
    .unwrap();
    let out = scopecheck(&["litmus", s(&f)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // herd's answer stands (`xx` and `a[5]` are 0)...
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("\nOk\n"), "{stdout}");
    // ...but each name is reported where it is written.
    let file = f.display();
    assert!(
        stderr.contains(&format!(
            "{file}:4:16: warning: the condition names `xx`, which the test does not declare"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{file}:4:34: warning: the condition names `a[5]`, past the end of `a` (2 element(s))"
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("warning:").count(), 2, "{stderr}");
    assert!(stdout.contains("Warning 4:16: the condition names `xx`"), "{stdout}");
    let out = scopecheck(&["litmus", "--json", s(&f)]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(2), "{v}");
    // Once per file, however many models run it; `drfrlx` says it too.
    let out = scopecheck(&["litmus", "--model", "sc,rc11", s(&f)]);
    assert_eq!(
        text(&out.stderr).matches("warning:").count(),
        2,
        "{}",
        text(&out.stderr)
    );
    let out = scopecheck(&["drfrlx", s(&f)]);
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("warning:").count(), 2, "{stderr}");
    assert!(
        stderr.contains(&format!("{file}:4:16: warning: the condition names `xx`")),
        "{stderr}"
    );
}

/// A thread cut by the step bound gets advice a litmus test can follow
/// (`--unroll`), not the Rust shim's (`spin_loop`, `max_steps`), at the loop (every
/// iteration is a step of its thread).
#[test]
fn a_runaway_litmus_thread_gets_litmus_advice() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("spin.litmus");
    std::fs::write(
        &f,
        "C spin\n{ x = 0; }\nP0 (atomic_int* x) { while (1) { atomic_thread_fence(memory_order_acquire); } }\n\
         exists (x=1)\n",
    )
    .unwrap();
    for cmd in ["litmus", "drfrlx"] {
        let out = scopecheck(&[cmd, "--unroll", "1000000", s(&f)]);
        let stdout = text(&out.stdout);
        assert!(!out.status.success(), "{stdout}");
        assert!(
            stdout.contains(&format!(
                "steps in one execution (at {}:3:22); a thread of a litmus test runs at most that many \
                 operations in one execution: a `while` loop runs at most `--unroll` iterations (lower it), or \
                 the thread is too long",
                f.display()
            )),
            "{cmd}: {stdout}"
        );
        assert!(
            !stdout.contains("spin_loop") && !stdout.contains("max_steps"),
            "{cmd}: {stdout}"
        );
    }
}

/// Flat operator chains are one level of nesting (generated herd tests have
/// conditions of hundreds of conjuncts), and a chain of 10,000 operands
/// runs on a model thread's stack and gets the left-associative answer.
#[test]
fn long_operator_chains_run() {
    let dir = tempfile::tempdir().unwrap();
    let sum = vec!["1"; 10_000].join(" + ");
    let diff = format!("20000 - {}", vec!["1"; 9_999].join(" - "));
    let and = vec!["r0"; 258].join(" && ");
    let regs: String = (3..300).map(|i| format!(" int r{i} = 1;")).collect();
    let cond: Vec<String> = std::iter::once("0:r0=10000 /\\ 0:r1=10001 /\\ 0:r2=1".to_string())
        .chain((3..300).map(|i| format!("0:r{i}=1")))
        .collect();
    let src = format!(
        "C chain\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n int r0 = {sum};\n int r1 = {diff};\n int r2 = {and};\n{regs}\n}}\n\
         exists ({})\n",
        cond.join(" /\\ ")
    );
    let f = dir.path().join("chain.litmus");
    std::fs::write(&f, src).unwrap();
    let out = scopecheck_bounded(&["litmus", s(&f)]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("\nOk\n"), "{stdout}");
    assert!(stdout.contains("Observation chain Always 1 0"), "{stdout}");
}

/// A folder search takes regular files only: a FIFO named `*.litmus` is
/// skipped with a note (opening it would wait for a writer forever) and
/// the rest of the folder runs.
#[cfg(unix)]
#[test]
fn a_fifo_in_a_folder_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.litmus"), OK).unwrap();
    let fifo = dir.path().join("z.litmus");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = scopecheck_bounded(&["litmus", s(dir.path())]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("Test ok Allowed"), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "note: {}: skipped, not a regular file (a FIFO, socket or device)",
            fifo.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("1 test runs: 1 checked, 0 errors"), "{stderr}");
}

/// An input that never ends (a device, a FIFO fed forever) is read only up
/// to the size limit, once: a FIFO named on the command line, fed with
/// zeros by a writer that reopens it whenever a reader comes back, loses
/// at most 16 MiB and a pipe's buffer to the run (the refused file used to
/// be read whole again to learn its model).
#[cfg(unix)]
#[test]
fn an_endless_input_is_read_up_to_the_limit_once() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("endless.litmus");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cap: usize = 64 << 20;
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let chunk = vec![0u8; 1 << 16];
            let mut total = 0;
            // Two sessions at most: the run's reads, then the test's own
            // open below that ends a writer still waiting for a reader.
            for _ in 0..2 {
                let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
                while total < cap {
                    match w.write(&chunk) {
                        Ok(n) => total += n,
                        Err(_) => break,
                    }
                }
            }
            total
        })
    };
    let out = scopecheck_bounded(&["litmus", s(&fifo)]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("larger than 16 MiB"), "{stdout}");
    // Let a writer still waiting for a reader finish (from a thread of its
    // own: when the writer has ended, this open waits forever).
    std::thread::spawn(move || drop(std::fs::File::open(&fifo)));
    let total = writer.join().unwrap();
    assert!(total <= (16 << 20) + (2 << 20), "{total} bytes read");
}

/// An `--expect` that compares no test is an error (exit 2), not a pass: an
/// empty or comment-only file is refused before running, and rows that
/// match no test of the run (another `--model`, other files) are reported
/// after it.
#[test]
fn an_expectation_that_compares_nothing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mp = dir.path().join("mp.litmus");
    let other = dir.path().join("other.litmus");
    std::fs::write(&mp, OK.replace("C ok", "C mp")).unwrap();
    std::fs::write(&other, OK).unwrap();
    let tsv = dir.path().join("e.tsv");
    std::fs::write(&tsv, "mp.litmus\trc11\t1\t\tx=1;\t\n").unwrap();
    let empty = dir.path().join("empty.tsv");
    std::fs::write(&empty, "").unwrap();
    let comments = dir.path().join("comments.tsv");
    std::fs::write(&comments, "# only a comment\n").unwrap();
    for f in [&empty, &comments] {
        let out = scopecheck(&["litmus", "--expect", s(f), s(&mp)]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: no expectation rows (empty, or only comments): --expect would compare nothing; nothing was run",
                f.display()
            )),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    let nothing = format!("error: no row of {} matched any test of this run", tsv.display());
    for args in [
        vec!["litmus", "--expect", s(&tsv), "--model", "sc", s(&mp)],
        vec!["litmus", "--expect", s(&tsv), s(&other)],
    ] {
        let out = scopecheck(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&nothing), "{args:?}: {stderr}");
    }
    // One row compared is enough.
    let out = scopecheck(&["litmus", "--expect", s(&tsv), s(&mp), s(&other)]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("1 agreements"), "{stderr}");
}
