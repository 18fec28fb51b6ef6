//! Warnings: things herd accepts that probably do not mean what they say.
//!
//! A condition may name a location the test never declares (`exists
//! (z=1)` in a test of `x` and `y`). herd takes every location as 0 unless
//! initialised, so such a name is a location of value 0 in every final
//! state, and scopecheck answers the same, but the likely cause is a typo
//! that silently changes the answer, so each such name is reported with its
//! position. So is an element past the end of an array (`a[5]` of `int
//! a[2]`), likewise 0 in every final state.

use super::ast::{InitTarget, Pos, StateVar, Test};
use std::collections::{BTreeMap, HashSet};

/// Warnings about `test`, each with the position it is about.
pub fn of(test: &Test) -> Vec<(Pos, String)> {
    let Some(cond) = &test.condition else {
        return Vec::new();
    };
    // Declared locations with their element counts, as the layout has them.
    let mut declared: BTreeMap<&str, u32> = BTreeMap::new();
    for i in &test.init {
        match &i.target {
            InitTarget::Loc(n) => {
                declared.entry(n.as_str()).or_insert(1);
            }
            InitTarget::Array { name, len } => {
                declared.insert(name.as_str(), *len);
            }
            InitTarget::Reg { .. } => {}
        }
    }
    for p in test.threads.iter().flat_map(|t| &t.params) {
        declared.entry(p.name.as_str()).or_insert(1);
    }
    let mut warned = HashSet::new();
    let mut out = Vec::new();
    for (v, pos) in &cond.vars {
        let StateVar::Loc { name, index } = v else {
            continue;
        };
        if !warned.insert(v) {
            continue;
        }
        match declared.get(name.as_str()) {
            None => out.push((
                *pos,
                format!(
                    "the condition names `{name}`, which the test does not declare (not in the init block, not a \
                     parameter of any thread): like herd, scopecheck takes it as a location that is 0 in every \
                     final state"
                ),
            )),
            Some(&len) if *index >= len => out.push((
                *pos,
                format!(
                    "the condition names `{v}`, past the end of `{name}` ({len} element(s)): it is 0 in every \
                     final state"
                ),
            )),
            Some(_) => {}
        }
    }
    out
}
