//! Size limits on a litmus test, checked before anything is allocated for it.
//!
//! A litmus file is small text, but a few bytes can ask for a lot: `int
//! a[4294967295]` asks for four billion locations, and every execution
//! allocates each of them again. Without a limit such a file either aborts
//! the whole process on an allocation failure (which no `catch_unwind` can
//! stop, so the other files of a batch lose their results) or runs into the
//! per-thread step bound and is misreported as a runaway thread. These
//! limits turn such files into a located error of their own:
//!
//! - [`MAX_FILE_BYTES`]: the size of the file read;
//! - [`MAX_ELEMENTS`]: memory locations in all, each element of an array
//!   counting as one (herd's tests use a handful);
//! - [`MAX_THREADS`]: `PN` threads.
//!
//! Everything else a test can make the checker allocate is bounded by these
//! and by the run's own bounds: a `while` loop runs at most `--unroll`
//! iterations and every model thread at most the runtime's `max_steps`
//! operations per execution, so an execution's graph stays bounded whatever
//! the unroll bound is; values are 64-bit and wrap.

use super::ast::{InitTarget, Pos, StateVar, Test};
use super::interp::condition_vars;
use super::run::TestError;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The largest litmus file read, in bytes (16 MiB; herd's tests are a few
/// hundred bytes, generated stress tests a few megabytes).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// The most memory locations a test may have, arrays' elements included.
/// The interpreter allocates each of them in every execution; 65,536 keeps
/// that well under the runtime's per-thread step bound (100,000) and under
/// the 2^24 elements an address value can name.
pub const MAX_ELEMENTS: u64 = 1 << 16;

/// The most threads (`P0`, `P1`, ...) a test may have.
pub const MAX_THREADS: usize = 256;

/// Reads a litmus file, refusing one larger than `MAX_FILE_BYTES` (16 MiB) before
/// reading it whole.
pub fn read_source(path: &Path) -> Result<String, TestError> {
    let file = std::fs::File::open(path).map_err(|e| TestError::Io(format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| TestError::Io(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(TestError::Io(format!(
            "larger than {} MiB, the largest litmus file scopecheck reads",
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Checks a parsed test against [`MAX_THREADS`] and [`MAX_ELEMENTS`]; the
/// error points at the thread or the declaration that goes over.
pub fn check(test: &Test) -> Result<(), (Pos, String)> {
    if let Some(t) = test.threads.get(MAX_THREADS) {
        return Err((
            t.pos,
            format!(
                "too many threads: P{} is thread number {}; a test may have at most {MAX_THREADS}",
                t.index,
                MAX_THREADS + 1
            ),
        ));
    }
    element_count(test).map(|_| ())
}

/// The number of memory locations `test` has (arrays' elements counted one
/// by one), counted the way the interpreter lays them out: init entries
/// (a later declaration of a name replaces an earlier one), then thread
/// parameters and locations named by the condition or `locations`. Fails
/// at the first declaration that takes the count over [`MAX_ELEMENTS`].
pub fn element_count(test: &Test) -> Result<u64, (Pos, String)> {
    let mut sizes: BTreeMap<&str, u64> = BTreeMap::new();
    let mut total: u64 = 0;
    let over = |pos: Pos, what: String| -> (Pos, String) {
        (
            pos,
            format!(
                "{what}: a test may have at most {MAX_ELEMENTS} memory locations in all (each array element counts \
                 as one)"
            ),
        )
    };
    for i in &test.init {
        let (name, len) = match &i.target {
            InitTarget::Loc(n) => {
                if sizes.contains_key(n.as_str()) {
                    continue;
                }
                (n.as_str(), 1)
            }
            InitTarget::Array { name, len } => (name.as_str(), u64::from(*len)),
            InitTarget::Reg { .. } => continue,
        };
        let old = sizes.insert(name, len).unwrap_or(0);
        total = total - old + len;
        if total > MAX_ELEMENTS {
            let what = if len == total {
                format!("array `{name}` has {len} elements")
            } else if len > 1 {
                format!("array `{name}` has {len} elements, {total} locations with those declared before it")
            } else {
                format!("`{name}` is location number {total}")
            };
            return Err(over(i.pos, what));
        }
    }
    let params = test
        .threads
        .iter()
        .flat_map(|t| t.params.iter().map(|p| (p.name.as_str(), p.pos)));
    let at = test.condition.as_ref().map_or(Pos { line: 1, col: 1 }, |c| c.pos);
    let named: Vec<StateVar> = test
        .condition
        .iter()
        .flat_map(condition_vars)
        .chain(test.locations.iter().cloned())
        .collect();
    let observed = named.iter().filter_map(|v| match v {
        StateVar::Loc { name, .. } => Some((name.as_str(), at)),
        StateVar::Reg { .. } => None,
    });
    for (name, pos) in params.chain(observed) {
        if !sizes.contains_key(name) {
            sizes.insert(name, 1);
            total += 1;
            if total > MAX_ELEMENTS {
                return Err(over(pos, format!("`{name}` is location number {total}")));
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::parse;

    fn count(init: &str, cond: &str) -> Result<u64, (Pos, String)> {
        let src = format!("C t\n{{ {init} }}\nP0 (atomic_int* x, atomic_int* y) {{ }}\nexists ({cond})\n");
        element_count(&parse(&src).unwrap())
    }

    #[test]
    fn counts_follow_the_layout() {
        // Parameters and condition names count once each, arrays element by element.
        assert_eq!(count("int a[3] = {0};", "x=0 /\\ z=0 /\\ a[1]=0"), Ok(6));
        // A later declaration replaces an earlier one (the layout refuses one of
        // another length, after this count); a scalar entry keeps an array.
        assert_eq!(count("int a[65535] = {0}; int a[2] = {0};", "x=0"), Ok(4));
        assert_eq!(count("int a[65534] = {0}; a = 1;", "x=0"), Ok(65536));
        // One over, at the declaration, the parameter or the condition that goes over.
        assert_eq!(
            count("int a[65535] = {0};", "x=0").unwrap_err().0,
            Pos { line: 3, col: 20 }
        );
        assert_eq!(
            count("int a[65534] = {0};", "z=0").unwrap_err().0,
            Pos { line: 4, col: 1 }
        );
        let (pos, msg) = count("int a[2] = {0}; int b[65535] = {0};", "x=0").unwrap_err();
        assert_eq!(pos, Pos { line: 2, col: 19 });
        assert!(
            msg.starts_with("array `b` has 65535 elements, 65537 locations"),
            "{msg}"
        );
    }
}
