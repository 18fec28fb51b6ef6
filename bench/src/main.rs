//! `cargo run --release -p scopecheck-bench -- [OPTIONS] [PROGRAM...]`
//! (`--help` lists them).

fn main() -> std::process::ExitCode {
    scopecheck_bench::main_with_args(std::env::args().skip(1))
}
