//! `cargo run --release -p scopecheck-bench --bin first-failure -- [SEEDS] [LIMIT]`:
//! mean executions until the first failure on seeded buggy programs,
//! scopecheck's random walk and PCT beside shuttle's (see `bugs.rs`).

use scopecheck_bench::bugs::{first_failure_table, PCT_DEPTH};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| -> Result<u64, String> {
        match args.get(i) {
            Some(a) => a.parse().map_err(|_| format!("`{a}` is not a number")),
            None => Ok(default),
        }
    };
    let (seeds, limit) = match (number(0, 20), number(1, 100_000)) {
        (Ok(s), Ok(l)) => (s, l),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("first-failure: {e} (usage: first-failure [SEEDS] [LIMIT])");
            return std::process::ExitCode::from(2);
        }
    };
    println!("runs until the first failure, mean over seeds 0..{seeds} (at most {limit} runs per seed; PCT depth {PCT_DEPTH})");
    println!(
        "{:<16} {:<18} {:>12} {:>8} {:>10}",
        "program", "finder", "mean runs", "found", "wall"
    );
    for r in first_failure_table(seeds, limit) {
        println!(
            "{:<16} {:<18} {:>12.1} {:>5}/{:<2} {:>10.2?}",
            r.bug.name(),
            r.finder.name(),
            r.mean_runs,
            r.found,
            r.seeds,
            r.wall
        );
    }
    std::process::ExitCode::SUCCESS
}
