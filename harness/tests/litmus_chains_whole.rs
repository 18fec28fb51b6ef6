//! Values reached only through a chain of writes across threads
//! (docs/gpu-models.md section 5 item 1): the po ∪ rf-cyclic enumeration
//! thread by thread, whose value domains grow by value-closed partial
//! combinations (`cyclic/chains.rs`), against the same enumeration with
//! all threads at once (the cross-check `CrossChecks::all_at_once`), where
//! a thread reads the others'
//! writes themselves and needs no domain to pass a chain on. The exact
//! states with their counts, executions and verdicts must agree:
//!
//! - corpus/gpu-chains, every file under each model it is for (their
//!   counts are in litmus_gpu_chains.rs);
//! - small PTX and Vulkan tests generated from a fixed seed: 2 to 4
//!   threads of adds, exchanges passing on a value read, compare-exchanges
//!   from a value read to one more, stores of a value read plus one, and
//!   spin loops on them.
//!
//! Before the fix, 21 of the 79 runs disagreed (thread by thread found
//! fewer executions or none): all 15 of corpus/gpu-chains and 6 generated
//! Vulkan ones.

mod common;

use common::litmus_rows::{cross_checked, run_source_with, summary};
use scopecheck::litmus::{CrossChecks, TestResult};
use std::fmt::Write as _;
use std::path::Path;

fn run(name: &str, src: &str, model: &str, whole: bool, unroll: Option<u32>) -> TestResult {
    let checks = CrossChecks {
        all_at_once: whole,
        ..CrossChecks::default()
    };
    let mut opts = cross_checked(model, checks);
    if let Some(u) = unroll {
        opts.unroll = u;
    }
    run_source_with(name, src, &opts)
}

/// Runs `src` both ways under `model` (at `unroll`, or the default);
/// both must be complete and agree. Returns the executions.
fn agree(name: &str, src: &str, model: &str, unroll: Option<u32>) -> u64 {
    let whole = run(name, src, model, true, unroll);
    assert!(
        whole.complete,
        "{name} {model}: whole: {:?}\n{src}",
        whole.incomplete_reason
    );
    let split = run(name, src, model, false, unroll);
    assert_eq!(summary(&split), summary(&whole), "{name} under {model}\n{src}");
    split.executions
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The instructions of one dialect.
struct Dialect {
    /// `add REG, LOC, 1` as an RMW.
    add: &'static str,
    /// An exchange `REG, LOC, VALUE`.
    exch: &'static str,
    /// A compare-exchange `REG, LOC, EXPECTED, DESIRED`, if the dialect has one.
    cas: Option<&'static str>,
    ld: &'static str,
    st: &'static str,
}

const PTX: Dialect = Dialect {
    add: "atom.relaxed.gpu.add",
    exch: "atom.relaxed.gpu.exch",
    cas: Some("atom.relaxed.gpu.cas"),
    ld: "ld.relaxed.gpu",
    st: "st.relaxed.gpu",
};

const VULKAN: Dialect = Dialect {
    add: "rmw.atom.dv.sc0.add",
    exch: "rmw.atom.dv.sc0",
    cas: None,
    ld: "ld.atom.dv.sc0",
    st: "st.atom.dv.sc0",
};

/// A test of `threads` threads on `x` and `y`, each thread in its own CTA
/// or workgroup: one step (two with two threads) that reads a value and
/// passes it on (the value read, or one more) to `x` or `y`, with two
/// threads sometimes a store or a spin loop.
fn test(rng: &mut Rng, k: usize, vulkan: bool, threads: usize) -> String {
    let d = if vulkan { &VULKAN } else { &PTX };
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut regs = Vec::new();
    for t in 0..threads {
        let mut col = Vec::new();
        // (Three threads of two steps each ran past the whole run's work cap.)
        let steps = if threads == 2 { 1 + rng.below(2) } else { 1 };
        let mut last: Option<String> = None;
        for i in 0..steps {
            let r = format!("r{i}");
            let loc = if rng.below(3) == 0 { "y" } else { "x" };
            // Three or four threads: RMWs only (stores and spin loops ran
            // past the whole run's work cap).
            let kind = match (threads, d.cas.is_some()) {
                (2, true) => rng.below(5),
                (2, false) => rng.below(4),
                (_, true) => [0, 1, 4][rng.below(3) as usize],
                (_, false) => rng.below(2),
            };
            match kind {
                0 => col.push(format!("{} {r}, {loc}, 1", d.add)),
                1 => {
                    let v = last.clone().unwrap_or_else(|| "2".into());
                    col.push(format!("{} {r}, {loc}, {v}", d.exch));
                }
                2 => {
                    let s = format!("s{i}");
                    col.push(format!("{} {r}, {loc}", d.ld));
                    col.push(format!("add {s}, {r}, 1"));
                    col.push(format!("{} {}, {s}", d.st, if loc == "x" { "y" } else { "x" }));
                    regs.push((t, s));
                }
                3 => {
                    // Spin until the value read is not 0, then pass it on.
                    let s = format!("s{i}");
                    col.push(format!("L{t}{i}:"));
                    col.push(format!("{} {r}, {loc}", d.ld));
                    col.push(format!("beq {r}, 0, L{t}{i}"));
                    col.push(format!("add {s}, {r}, 1"));
                    col.push(format!("{} {}, {s}", d.st, if loc == "x" { "y" } else { "x" }));
                    regs.push((t, s));
                }
                _ => {
                    let s = format!("s{i}");
                    let cas = d.cas.expect("kinds");
                    col.push(format!("{} {r}, {loc}", d.ld));
                    col.push(format!("add {s}, {r}, 1"));
                    col.push(format!("{cas} {s}, {loc}, {r}, {s}"));
                    regs.push((t, s));
                }
            }
            regs.push((t, r.clone()));
            last = Some(r);
        }
        cols.push(col);
    }
    let mut s = format!(
        "{} gen-chain-{k}\n{{\nx=0; y=0;\n",
        if vulkan { "VULKAN" } else { "PTX" }
    );
    for (t, r) in &regs {
        writeln!(s, "P{t}:{r}=0;").unwrap();
    }
    s.push_str("}\n");
    let head: Vec<String> = (0..threads)
        .map(|t| {
            if vulkan {
                format!("P{t}@sg 0, wg {t}, qf 0")
            } else {
                format!("P{t}@cta {t},gpu 0")
            }
        })
        .collect();
    writeln!(s, "{} ;", head.join(" | ")).unwrap();
    let rows = cols.iter().map(Vec::len).max().unwrap();
    for i in 0..rows {
        let row: Vec<&str> = cols.iter().map(|c| c.get(i).map_or("", String::as_str)).collect();
        writeln!(s, "{} ;", row.join(" | ")).unwrap();
    }
    writeln!(s, "exists (x=1)").unwrap();
    s
}

#[test]
fn chains_thread_by_thread_equal_all_at_once() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/gpu-chains");
    let mut own = 0;
    // (All threads at once, the retried compare-exchange runs past the
    // 1,000,000-execution work cap at the default unroll 2: it is compared
    // at unroll 1.)
    for (file, models, unroll) in [
        ("add3-ptx.litmus", &["ptx6.0", "ptx7.5"][..], None),
        ("add3-vulkan.litmus", &["vulkan", "vulkan-nochains"], None),
        ("add4-ptx.litmus", &["ptx7.5"], None),
        ("exch-pass-ptx.litmus", &["ptx6.0", "ptx7.5"], None),
        ("exch-pass-vulkan.litmus", &["vulkan", "vulkan-nochains"], None),
        ("cas-retry-ptx.litmus", &["ptx6.0", "ptx7.5"], Some(1)),
        ("store-chain-spin-ptx.litmus", &["ptx6.0", "ptx7.5"], None),
        ("write-then-spin-ptx.litmus", &["ptx6.0", "ptx7.5"], None),
    ] {
        let src = std::fs::read_to_string(dir.join(file)).unwrap();
        for m in models {
            agree(file, &src, m, unroll);
            own += 1;
        }
    }
    assert_eq!(own, 15);
    let mut rng = Rng(0xc4a1_2026_1126);
    let mut executions = 0;
    for k in 0..16 {
        let threads = 2 + (k % 3);
        let src = test(&mut rng, k, false, threads);
        for m in ["ptx6.0", "ptx7.5"] {
            executions += agree(&format!("gen-chain-{k}"), &src, m, None);
        }
    }
    for k in 16..32 {
        let threads = 2 + (k % 3);
        let src = test(&mut rng, k, true, threads);
        for m in ["vulkan", "vulkan-nochains"] {
            executions += agree(&format!("gen-chain-{k}"), &src, m, None);
        }
    }
    assert!(executions > 0);
}
