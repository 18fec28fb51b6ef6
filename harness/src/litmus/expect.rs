//! Expectation files in the format of the shared corpus's `expected.tsv`:
//! tab-separated `path`, `model`, `condition_holds`, `race_free`,
//! `final_states`, and an optional sixth column `note`.
//!
//! The GPU corpus's format is read too (`../shared/litmus/gpu/expected.tsv`):
//! a header `path model property progress expected`, one row per property
//! (`condition`, `race_free`, `liveness`), `progress` naming the progress
//! model of a `liveness` row (`-` otherwise), `expected` 0 or 1. The rows of
//! one test and model become one [`Expectation`]; its `liveness` rows are
//! compared by [`compare_liveness`] with what [`super::liveness`] finds.
//!
//! `path` is relative to the expectation file's folder. An empty cell means
//! "no recorded answer". A note starting with `known:` marks a disagreement
//! the project has accepted (for example out-of-thin-air values RC11 forbids
//! by design): it is still reported, but does not fail the run.

use super::interp::FinalState;
use super::run::{LitmusModel, TestError, TestResult};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One row of an expectation file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The test file, resolved against the expectation file's folder.
    pub path: PathBuf,
    /// The path as written.
    pub path_text: String,
    /// The model (`rc11`, `sc`, `opencl`, ...; `cpp20` also as `c++20` or `rust`).
    pub model: LitmusModel,
    /// `condition_holds`: the verdict, if recorded.
    pub holds: Option<bool>,
    /// `race_free`, if recorded.
    pub race_free: Option<bool>,
    /// The final states, each normalised as a set of `var=value` strings.
    pub states: Option<BTreeSet<BTreeSet<String>>>,
    /// The note, if any.
    pub note: Option<String>,
    /// GPU format: the `liveness` rows, as (progress model, expected).
    pub liveness: Vec<(String, bool)>,
    /// Line in the expectation file.
    pub line: usize,
}

impl Expectation {
    /// The reason given for a known disagreement, if the note gives one.
    pub fn known(&self) -> Option<&str> {
        self.note
            .as_deref()
            .and_then(|n| n.strip_prefix("known:"))
            .map(str::trim)
    }
}

/// The header of the GPU corpus's expectation format.
pub const GPU_HEADER: &str = "path\tmodel\tproperty\tprogress\texpected";

/// Parses rows in the GPU format (after its header).
fn parse_gpu(text: &str, base: &Path, name: &str) -> Result<Vec<Expectation>, String> {
    let mut rows: Vec<Expectation> = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        if line.trim().is_empty() || line.starts_with('#') || line.trim_end() == GPU_HEADER {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        if cols.len() != 5 {
            return Err(format!(
                "{name}:{n}: expected 5 tab-separated columns (path, model, property, progress, expected), found {}",
                cols.len()
            ));
        }
        let value = match cols[4] {
            "1" => true,
            "0" => false,
            other => return Err(format!("{name}:{n}: expected must be 0 or 1, found `{other}`")),
        };
        let model: LitmusModel = cols[1].parse().map_err(|e: String| format!("{name}:{n}: {e}"))?;
        let path = base.join(cols[0]);
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let at = match rows.iter().position(|r| r.path == path && r.model == model) {
            Some(i) => i,
            None => {
                rows.push(Expectation {
                    path,
                    path_text: cols[0].to_string(),
                    model,
                    holds: None,
                    race_free: None,
                    states: None,
                    note: None,
                    liveness: Vec::new(),
                    line: n,
                });
                rows.len() - 1
            }
        };
        let row = &mut rows[at];
        let progress_dash = || -> Result<(), String> {
            if cols[3] == "-" {
                Ok(())
            } else {
                Err(format!(
                    "{name}:{n}: a {} row has progress `-`, found `{}`",
                    cols[2], cols[3]
                ))
            }
        };
        let twice = || {
            format!(
                "{name}:{n}: a second `{}` row for {} under {}",
                cols[2], cols[0], cols[1]
            )
        };
        match cols[2] {
            "condition" => {
                progress_dash()?;
                if row.holds.replace(value).is_some() {
                    return Err(twice());
                }
            }
            "race_free" => {
                progress_dash()?;
                if row.race_free.replace(value).is_some() {
                    return Err(twice());
                }
            }
            "liveness" => match cols[3] {
                "fair" | "obe" | "hsa" | "lobe" | "hsa_obe" => {
                    if row.liveness.iter().any(|(p, _)| p == cols[3]) {
                        return Err(twice());
                    }
                    row.liveness.push((cols[3].to_string(), value));
                }
                other => {
                    return Err(format!(
                        "{name}:{n}: unknown progress model `{other}` (expected fair, obe, hsa, lobe or hsa_obe)"
                    ))
                }
            },
            other => {
                return Err(format!(
                    "{name}:{n}: unknown property `{other}` (expected condition, race_free or liveness)"
                ))
            }
        }
    }
    Ok(rows)
}

/// Reads an expectation file. Errors are `file:line: what`.
pub fn load(file: &Path) -> Result<Vec<Expectation>, String> {
    let text = super::limits::read_source(file).map_err(|e| e.located(&file.display().to_string()))?;
    parse(
        &text,
        file.parent().unwrap_or(Path::new(".")),
        &file.display().to_string(),
    )
}

/// Parses expectation rows; `base` is the folder paths are relative to.
pub fn parse(text: &str, base: &Path, name: &str) -> Result<Vec<Expectation>, String> {
    let first = text.lines().find(|l| !l.trim().is_empty() && !l.starts_with('#'));
    if first.is_some_and(|l| l.trim_end() == GPU_HEADER) {
        return parse_gpu(text, base, name);
    }
    let mut rows = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 5 || cols.len() > 6 {
            return Err(format!(
                "{name}:{n}: expected 5 or 6 tab-separated columns (path, model, condition_holds, race_free, \
                 final_states[, note]), found {}",
                cols.len()
            ));
        }
        let flag = |c: &str, what: &str| -> Result<Option<bool>, String> {
            match c.trim() {
                "" => Ok(None),
                "1" => Ok(Some(true)),
                "0" => Ok(Some(false)),
                other => Err(format!("{name}:{n}: {what} must be 0, 1 or empty, found `{other}`")),
            }
        };
        let states = match cols[4].trim() {
            "" => None,
            s => Some(parse_states(s)),
        };
        let path = base.join(cols[0].trim());
        rows.push(Expectation {
            path: std::fs::canonicalize(&path).unwrap_or(path),
            path_text: cols[0].trim().to_string(),
            model: cols[1].trim().parse().map_err(|e: String| format!("{name}:{n}: {e}"))?,
            holds: flag(cols[2], "condition_holds")?,
            race_free: flag(cols[3], "race_free")?,
            states,
            note: cols.get(5).map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
            liveness: Vec::new(),
            line: n,
        });
    }
    Ok(rows)
}

/// `0:r0=0; 1:r0=1; | ...` as a set of states, each a set of `var=value`.
pub fn parse_states(s: &str) -> BTreeSet<BTreeSet<String>> {
    s.split('|')
        .map(|st| {
            st.split(';')
                .map(|a| a.split_whitespace().collect::<String>())
                .filter(|a| !a.is_empty())
                .collect::<BTreeSet<String>>()
        })
        .filter(|st| !st.is_empty())
        .collect()
}

/// A final state normalised like [`parse_states`] does: `var=value` atoms.
pub fn normalise(s: &FinalState) -> BTreeSet<String> {
    s.iter().map(|(v, x)| format!("{v}={x}")).collect()
}

/// How a result compares with its expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Everything recorded agrees.
    Agrees,
    /// The row records no answer (every cell empty), so there is nothing to
    /// compare; the test still ran.
    Unrecorded,
    /// Something differs; each string says what.
    Disagrees(Vec<String>),
    /// The run could not settle what the row records (cut short, one
    /// shard, a sample) and what it did find contradicts nothing: not
    /// compared; the string says why.
    NotCompared(String),
}

/// Compares a test's outcome (a result or an error) with its expectation row.
pub fn compare(e: &Expectation, outcome: &Result<TestResult, TestError>) -> Verdict {
    if e.holds.is_none() && e.race_free.is_none() && e.states.is_none() {
        return Verdict::Unrecorded;
    }
    let r = match outcome {
        Ok(r) => r,
        Err(err) => return Verdict::Disagrees(vec![format!("no result: {}", err.located(&e.path_text))]),
    };
    // A partial run (cut short, a shard, a sample) proves only what it saw:
    // a verdict it found, a final state or a race it saw. What it did not
    // see may be in the part not explored, so absences are not compared.
    let partial = r.partial();
    let mut diffs = Vec::new();
    if let Some(h) = e.holds {
        match r.verdict() {
            Some(v) if v == h => {}
            Some(v) => diffs.push(format!("condition_holds: expected {}, found {}", h as u8, v as u8)),
            None if partial.is_some() => {}
            None => diffs.push(format!("condition_holds: expected {}, found no verdict", h as u8)),
        }
    }
    if let Some(rf) = e.race_free {
        if rf != r.race_free() && !(partial.is_some() && r.race_free()) {
            diffs.push(format!(
                "race_free: expected {}, found {} ({} racy executions)",
                rf as u8,
                r.race_free() as u8,
                r.racy_executions
            ));
        }
    }
    if let Some(want) = &e.states {
        let have: BTreeSet<BTreeSet<String>> = r.states.keys().map(normalise).collect();
        let (missing, extra) = state_differences(want, &have);
        let show = |s: &BTreeSet<String>| s.iter().map(|a| format!("{a};")).collect::<Vec<_>>().join(" ");
        for m in missing.iter().filter(|_| partial.is_none()) {
            diffs.push(format!("missing final state: {}", show(m)));
        }
        for x in &extra {
            diffs.push(format!("extra final state: {}", show(x)));
        }
    }
    // What a partial run found can still prove every answer the row
    // records: a verdict some execution settled (`verdict()` answers only
    // then), a race it saw. Recorded final states or race freedom need
    // the executions not explored, so such a row stays not compared.
    let proven = e.states.is_none()
        && e.race_free.is_none_or(|rf| !rf && !r.race_free())
        && e.holds.is_none_or(|_| r.verdict().is_some());
    if diffs.is_empty() {
        match partial {
            Some(why) if !proven => Verdict::NotCompared(why),
            _ => Verdict::Agrees,
        }
    } else {
        Verdict::Disagrees(diffs)
    }
}

/// herd's name for a value no equation fixes (`S8`): a self-justifying,
/// out-of-thin-air value that stands for every value.
fn is_symbol(value: &str) -> bool {
    value.len() > 1 && value.starts_with('S') && value[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether `have` (concrete `var=value` atoms) is an instance of `want`:
/// the same variables, equal values where `want` is concrete, and one value
/// for each symbol wherever that symbol occurs (herd's `x=S8; y=S8;` holds
/// `x=42; y=42;` but not `x=42; y=0;`).
fn instance_of(want: &BTreeSet<String>, have: &BTreeSet<String>) -> bool {
    if want.len() != have.len() {
        return false;
    }
    let split = |a: &String| a.split_once('=').map(|(v, x)| (v.to_string(), x.to_string()));
    let have: std::collections::BTreeMap<String, String> = have.iter().filter_map(split).collect();
    let mut bound: std::collections::BTreeMap<String, String> = Default::default();
    want.iter().all(|a| {
        let Some((var, value)) = split(a) else { return false };
        let Some(got) = have.get(&var) else { return false };
        if is_symbol(&value) {
            bound.entry(value).or_insert_with(|| got.clone()) == got
        } else {
            &value == got
        }
    })
}

/// The expected states not found and the found states not expected.
///
/// An expected state with a symbolic value (herd's `S8`, a value only a
/// cycle of copies justifies) stands for all its instances. scopecheck does
/// not compute symbolically: it produces the instances whose values are the
/// test's constants and says its outcome set is complete up to such values
/// (docs/c11-model.md section 4). So a symbolic state is found when some
/// found state that is not itself an expected concrete state is an instance
/// of it (an instance that is also expected concretely, such as the
/// all-zero state, proves nothing about the cycle), and a found state is
/// expected when it is an expected concrete state or an instance of an
/// expected symbolic one.
fn state_differences(
    want: &BTreeSet<BTreeSet<String>>,
    have: &BTreeSet<BTreeSet<String>>,
) -> (Vec<BTreeSet<String>>, Vec<BTreeSet<String>>) {
    let symbolic = |s: &BTreeSet<String>| s.iter().any(|a| a.split_once('=').is_some_and(|(_, x)| is_symbol(x)));
    let (sym, concrete): (Vec<_>, Vec<_>) = want.iter().partition(|s| symbolic(s));
    let missing = concrete
        .iter()
        .filter(|s| !have.contains(**s))
        .chain(
            sym.iter()
                .filter(|s| !have.iter().any(|h| !concrete.contains(&h) && instance_of(s, h))),
        )
        .map(|s| (*s).clone())
        .collect();
    let extra = have
        .iter()
        .filter(|h| !concrete.contains(h) && !sym.iter().any(|s| instance_of(s, h)))
        .cloned()
        .collect();
    (missing, extra)
}

/// The row for `file` under `model`, if any (paths are compared after
/// canonicalisation, so `./a/../b.litmus` finds `b.litmus`).
pub fn find<'a>(rows: &'a [Expectation], file: &Path, model: LitmusModel) -> Option<&'a Expectation> {
    let want = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    rows.iter().find(|r| r.model == model && r.path == want)
}

/// The models the rows for `file` name, in row order, without repeats.
pub fn models_of(rows: &[Expectation], file: &Path) -> Vec<LitmusModel> {
    let want = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut out: Vec<LitmusModel> = Vec::new();
    for r in rows.iter().filter(|r| r.path == want) {
        if !out.contains(&r.model) {
            out.push(r.model);
        }
    }
    out
}

/// The progress models the row's `liveness` rows name, in row order.
pub fn progress_of(e: &Expectation) -> Vec<super::liveness::ProgressModel> {
    e.liveness.iter().filter_map(|(p, _)| p.parse().ok()).collect()
}

/// Compares the row's `liveness` rows with the liveness found under each
/// progress model (`Ok(true)`: every execution ends); each string says
/// what differs. A row whose progress model was not checked differs too.
pub fn compare_liveness(
    e: &Expectation,
    found: &[(super::liveness::ProgressModel, Result<bool, String>)],
) -> Vec<String> {
    let mut diffs = Vec::new();
    for (p, want) in &e.liveness {
        match found.iter().find(|(q, _)| q.name() == p) {
            Some((_, Ok(live))) if live == want => {}
            Some((_, Ok(live))) => diffs.push(format!(
                "liveness under {p}: expected {}, found {}",
                *want as u8, *live as u8
            )),
            Some((_, Err(m))) => diffs.push(format!(
                "liveness under {p}: expected {}, found no answer: {m}",
                *want as u8
            )),
            None => diffs.push(format!("liveness under {p}: expected {}, not checked", *want as u8)),
        }
    }
    diffs
}

/// [`compare`] with the row's `liveness` rows folded in ([`compare_liveness`]).
pub fn compare_all(
    e: &Expectation,
    outcome: &Result<TestResult, TestError>,
    found: &[(super::liveness::ProgressModel, Result<bool, String>)],
) -> Verdict {
    let base = compare(e, outcome);
    if e.liveness.is_empty() {
        return base;
    }
    let diffs = compare_liveness(e, found);
    match (base, diffs.is_empty()) {
        (Verdict::Disagrees(mut d), _) => {
            d.extend(diffs);
            Verdict::Disagrees(d)
        }
        (_, false) => Verdict::Disagrees(diffs),
        (Verdict::Unrecorded, true) => Verdict::Agrees,
        (v, true) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> BTreeSet<BTreeSet<String>> {
        parse_states(text)
    }

    #[test]
    fn a_symbolic_state_is_found_by_an_instance_with_one_value_per_symbol() {
        let want = set("x=S8; y=S8; | x=0; y=0;");
        let (missing, extra) = state_differences(&want, &set("x=42; y=42; | x=0; y=0;"));
        assert_eq!((missing.len(), extra.len()), (0, 0));
        // Two values for one symbol: not an instance, so the symbolic state
        // is missing and the found one is extra.
        let (missing, extra) = state_differences(&want, &set("x=42; y=0; | x=0; y=0;"));
        assert_eq!(missing, vec![set("x=S8; y=S8;").into_iter().next().unwrap()]);
        assert_eq!(extra, vec![set("x=42; y=0;").into_iter().next().unwrap()]);
    }

    #[test]
    fn an_expected_concrete_state_does_not_stand_for_a_symbolic_one() {
        // x=0; y=0; is an instance of x=S8; y=S8; but is expected on its own:
        // finding it alone does not find the cycle's state.
        let want = set("x=S8; y=S8; | x=0; y=0;");
        let (missing, extra) = state_differences(&want, &set("x=0; y=0;"));
        assert_eq!(missing, vec![set("x=S8; y=S8;").into_iter().next().unwrap()]);
        assert!(extra.is_empty());
    }

    #[test]
    fn distinct_symbols_may_take_any_values_and_concrete_atoms_must_match() {
        let want = set("0:r0=S1; 0:r1=S2; x=1;");
        let (missing, extra) = state_differences(&want, &set("0:r0=3; 0:r1=3; x=1;"));
        assert_eq!((missing.len(), extra.len()), (0, 0));
        let (missing, extra) = state_differences(&want, &set("0:r0=3; 0:r1=4; x=2;"));
        assert_eq!((missing.len(), extra.len()), (1, 1));
        // A variable more or less is not an instance.
        let (missing, extra) = state_differences(&want, &set("0:r0=3; 0:r1=4;"));
        assert_eq!((missing.len(), extra.len()), (1, 1));
    }

    #[test]
    fn only_s_and_digits_is_a_symbol() {
        assert!(is_symbol("S8") && is_symbol("S123"));
        assert!(!is_symbol("S") && !is_symbol("8") && !is_symbol("Sx") && !is_symbol("s8"));
    }
}
