//! `cargo bench -p scopecheck-bench [-- OPTIONS] [PROGRAM...]`: the same
//! runner as the `scopecheck-bench` binary, built with the bench profile.

fn main() -> std::process::ExitCode {
    scopecheck_bench::main_with_args(std::env::args().skip(1))
}
