//! What a seed covers: the constructs of a litmus text (for the `parse`
//! target's corpus) and of a generated program (for the generator-based
//! targets), as short feature names, and the features a corpus must cover.
//!
//! Variant names come from exhaustive matches (the `names!` macro), so adding a
//! variant to the litmus AST or to the generator's `Step` does not compile
//! until it is named here; once named, it is in the expected list, and
//! `tests/corpus_coverage.rs` fails until a seed covers it.

use std::collections::BTreeSet;

/// A set of feature names.
pub type Features = BTreeSet<String>;

/// Defines `pub fn $f(x: &$ty) -> &'static str` as an exhaustive match (a
/// new variant of `$ty` does not compile until it is named here) and `$all`,
/// every name it returns.
macro_rules! names {
    ($f:ident, $all:ident, $ty:ty { $($p:pat => $name:literal),+ $(,)? }) => {
        #[doc = concat!("The feature name of a `", stringify!($ty), "`.")]
        pub fn $f(x: &$ty) -> &'static str {
            match x {
                $($p => $name),+
            }
        }
        #[doc = concat!("Every name [`", stringify!($f), "`] returns.")]
        pub const $all: &[&str] = &[$($name),+];
    };
}

mod generated;
mod litmus;

pub use generated::*;
pub use litmus::*;
