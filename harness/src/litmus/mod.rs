//! Litmus tests in herd's and Dat3M's C dialect: parsing, running them on
//! the checker's runtime, and reporting herd-style.
//!
//! ```
//! use scopecheck::litmus::{check_source, Options};
//! let src = "C SB\n{}\n\
//!   P0 (atomic_int* x, atomic_int* y) { atomic_store_explicit(x, 1, memory_order_relaxed);\n\
//!     int r0 = atomic_load_explicit(y, memory_order_relaxed); }\n\
//!   P1 (atomic_int* x, atomic_int* y) { atomic_store_explicit(y, 1, memory_order_relaxed);\n\
//!     int r0 = atomic_load_explicit(x, memory_order_relaxed); }\n\
//!   exists (0:r0=0 /\\ 1:r0=0)\n";
//! let r = check_source("sb.litmus", src, &Options::default()).unwrap();
//! assert_eq!(r.verdict(), Some(true));
//! assert_eq!(r.states.len(), 4);
//! ```

//! The public entry point is small: parse a test ([`parse`]), check it
//! ([`check_file`], [`check_source`], [`check_test`] with [`Options`], or the
//! DRFrlx check), read the result ([`TestResult`], [`FinalState`]), print it
//! ([`output`]) and compare it with an expected-results table ([`expect`]).
//! The lexer, parser, interpreter and the models' runners are the crate's own:
//!
//! ```compile_fail
//! let _ = scopecheck::litmus::lexer::Lexer::new("C t");
//! ```
//!
//! ```compile_fail
//! let _ = scopecheck::litmus::interp::placement_of;
//! ```

// Public: the parse result, which callers read (the `scopecheck` command,
// the fuzzer's coverage walk) and build directly (property tests).
pub mod ast;
pub(crate) mod cyclic;
pub(crate) mod drfrlx;
pub(crate) mod filter;
// Public: the expected-results table (TSV) and its comparison with a run,
// for the `scopecheck` command and the corpus tests.
pub(crate) mod cut_ways;
pub mod expect;
pub(crate) mod gpu;
pub(crate) mod gpu_branch;
pub(crate) mod gpu_cond;
pub(crate) mod gpu_cyclic;
pub(crate) mod gpu_expand;
pub(crate) mod gpu_free;
pub(crate) mod gpu_init;
pub(crate) mod gpu_model;
pub(crate) mod gpu_orders;
pub(crate) mod gpu_split;
pub(crate) mod gpu_ssw;
pub(crate) mod interp;
pub(crate) mod lexer;
pub(crate) mod limits;
// Public: the liveness check (`scopecheck --liveness`), for the command.
pub mod liveness;
pub(crate) mod opencl;
pub(crate) mod own_coherence;
pub(crate) mod unsequenced;
// Public: herd-style text and DOT pictures of results, for the command.
pub mod output;
pub(crate) mod parser;
pub(crate) mod ptx;
pub(crate) mod run;
pub(crate) mod split_lost;
pub(crate) mod split_rmw;
pub(crate) mod vulkan;
pub(crate) mod warnings;
pub(crate) mod workgroups;

pub use drfrlx::{check_drfrlx_file, check_drfrlx_source, check_drfrlx_test};
pub use interp::{holds, FinalState};
pub use limits::read_source;
pub use parser::{parse, ParseError};
pub use run::{check_file, check_source, check_test, CrossChecks, LitmusModel, Options, TestError, TestResult};
pub use warnings::of as warnings_of;

/// The identifiers of litmus text `src` after its header line (the test's
/// name is free text, not words of the dialect), in order, up to the end or
/// the first lexical error: the spellings a test uses, for the fuzzer's
/// coverage.
///
/// ```
/// let src = "C my test\n{ x = 0; }\nP0 (atomic_int* x) { int r0 = 1; }\nexists (0:r0=1)\n";
/// assert_eq!(scopecheck::litmus::body_identifiers(src), ["x", "P0", "atomic_int", "x", "int", "r0", "exists", "r0"]);
/// ```
pub fn body_identifiers(src: &str) -> Vec<String> {
    let mut lex = lexer::Lexer::new(src);
    let header = lex.next_token().pos.line;
    let mut out = Vec::new();
    loop {
        let t = lex.next_token();
        match t.kind {
            lexer::TokenKind::Ident(s) if t.pos.line > header => out.push(s),
            lexer::TokenKind::Eof | lexer::TokenKind::Error(_) => return out,
            _ => {}
        }
    }
}
