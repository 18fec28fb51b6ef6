//! What one execution recorded ([`Outcome`]): the values a program names
//! while it runs (the shim's `gpu::record`), collected per complete
//! execution into a run's outcome histogram
//! ([`RunResult::outcomes`](crate::driver::RunResult::outcomes)). Plain
//! data, here because the driver that counts outcomes is in this crate.

use std::collections::BTreeMap;
use std::fmt;

/// What one execution recorded: each key with the value recorded under it,
/// ordered by key. Shown as `key=value; key=value` (values as `Debug` shows
/// them).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Outcome(pub BTreeMap<String, String>);

impl Outcome {
    /// The value recorded under `key`, as `Debug` showed it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}
