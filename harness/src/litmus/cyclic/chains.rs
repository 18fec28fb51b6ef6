//! Step 4 thread by thread: the domains grow by the values of the
//! *value-closed partial combinations* of the threads' ways, not only by
//! the values of the consistent executions. (C and OpenCL tests grew by
//! every value any way wrote, which never settles on a value computed
//! from a value read: a compare-exchange counter ran whole, into the work
//! cap; the rule below is the same for every dialect.)
//!
//! Thread by thread (`gpu_split.rs`), a thread alone reads another
//! thread's value only from the domain. Growing the domain only by what
//! consistent executions write misses a value that only a chain of writes
//! across threads reaches: three `atom.add x, 1` from x=0 need the values
//! 1 and 2 to be read before x=3 is written, but with the domain {0, 1}
//! no consistent combination exists (two threads would read one value),
//! so 2 never joined and the run said "0 executions" (issue 18).
//!
//! The rule: for every combination of one way per thread, each way is
//! grown from its start along po over its writes and over the reads it
//! can justify: a read is justified when its value is the location's
//! initial value or is written by a write the ways have already grown
//! over, or, for a value of the first round's domain (the test's
//! constants, which a po ∪ rf cycle may justify), when it is assumed so
//! and the growth bears the assumption out (a grown write of another
//! thread writes the value; [`closed_writes`]). Growing stops when no way grows; the
//! values of the writes grown over join the domain, next to the values of
//! the consistent executions (which still join as before, so the rounds
//! find everything they found before). Model consistency is ignored: a
//! value may join that no consistent execution writes, which costs ways
//! (the validation accepts only consistent graphs). A read is never
//! justified by its own thread's later write or by a write only it
//! justifies: so a copy (`atom.add r, sum, 0` reading what it writes)
//! does not climb by one each round, and an operand constant (`add r1,
//! r0, 5`) is not read back from a location nothing writes it to.
//!
//! Why it is complete for chains (docs/gpu-models.md section 5 item 1):
//! let E be a consistent execution whose po ∪ rf is acyclic, and C_k the
//! largest po ∪ rf-downward-closed set of E's events whose reads take
//! values of round k's domain (per thread a po-prefix). The alone runs
//! read any value of the domain, so each thread has a way that follows
//! E through C_k (a complete run, or a run a loop cut at the unroll bound,
//! `cut_ways.rs`); in the combination of those ways the growth takes C_k
//! in a topological order (each read's rf source comes first), so C_k's
//! writes join. If E is not all in C_k, an event of E outside C_k that is
//! minimal in po ∪ rf is its thread's next event after C_k, and a read
//! (anything else would be in C_k) whose rf source is in C_k: its value
//! is in round k+1's domain, and C_(k+1) is larger. So E is reached after
//! at most one round per read and found in the next: see [`rounds`].
//! With a po ∪ rf cycle, E is found as before (consistent executions'
//! values) or when its cycles go through constants (the assumed reads).

use super::*;
use crate::litmus::gpu_split::Runs;

/// A step of a way that the closure looks at: a read that must be
/// justified, or a write that justifies, by domain entry and value.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Step {
    /// A read whose value the rest of its way may depend on.
    Read(usize, u64),
    /// A write.
    Write(usize, u64),
}

/// Most rounds a test runs thread by thread, whatever its reads allow.
pub(super) const MAX_SPLIT_ROUNDS: usize = 64;

/// The rounds a test may need thread by thread: a consistent execution is
/// reached after at most one round per read (module docs) and found in
/// the next; `unroll` bounds the iterations of each loop. At least
/// [`ROUNDS`], at most [`MAX_SPLIT_ROUNDS`].
pub(super) fn rounds(test: &Test, unroll: u32) -> usize {
    let reads: u64 = test.threads.iter().map(|t| reads_in(&t.body, unroll as u64)).sum();
    (reads.saturating_add(1).min(MAX_SPLIT_ROUNDS as u64) as usize).max(ROUNDS)
}

/// Memory reads `ss` can make in one run, at most, a loop taken `unroll`
/// times (a bound, not exact: every dereference and atomic counts).
fn reads_in(ss: &[Stmt], unroll: u64) -> u64 {
    fn expr(e: &Expr) -> u64 {
        match &e.kind {
            ExprKind::Atomic(c) => 1 + expr(&c.addr) + c.args.iter().map(expr).sum::<u64>(),
            ExprKind::Deref(a) => 1 + expr(a),
            ExprKind::Index(a, b) => 1 + expr(a) + expr(b),
            ExprKind::Unary(_, a) => expr(a),
            ExprKind::Binary(a, rest) => expr(a) + rest.iter().map(|(_, b)| expr(b)).sum::<u64>(),
            ExprKind::Int(_) | ExprKind::Var(_) | ExprKind::AddrOf(_) => 0,
        }
    }
    ss.iter()
        .map(|s| match &s.kind {
            StmtKind::Store { value, addr } => expr(value) + expr(addr),
            StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => expr(e),
            StmtKind::If { cond, then, els } => expr(cond) + reads_in(then, unroll).max(reads_in(els, unroll)),
            StmtKind::While { cond, body } => {
                expr(cond).saturating_mul(unroll + 1) + reads_in(body, unroll).saturating_mul(unroll)
            }
            StmtKind::Block(b) => reads_in(b, unroll),
            _ => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// Per domain entry, the values the writes of the value-closed partial
/// combinations of `runs`' ways and of the prefixes of its runs a loop cut
/// at the unroll bound (module docs). An error says the
/// combinations are more than [`MAX_COMBINATIONS`](crate::litmus::gpu_split::MAX_COMBINATIONS).
pub(super) fn grown(
    prog: &Program,
    runs: &Runs,
    domain: &[(u32, u32, BTreeSet<u64>)],
    inits: &[u64],
    initial: &[BTreeSet<u64>],
) -> Result<Vec<BTreeSet<u64>>, String> {
    let mut ways: Vec<Vec<Vec<Step>>> = Vec::new();
    if let Some(k) = runs.cut().iter().position(|c| c.capped) {
        return Err(format!(
            "P{} alone: more than {} distinct runs cut at the unroll bound, whose prefixes grow the value domains; \
             the outcome set is incomplete",
            prog.test.threads[k].index,
            crate::litmus::cut_ways::MAX_CUT
        ));
    }
    for (k, (groups, cut)) in runs.groups().iter().zip(runs.cut()).enumerate() {
        let t = k as ThreadId + 1;
        let mut distinct: BTreeSet<Vec<Step>> = BTreeSet::new();
        for grp in groups {
            let g = &grp.graph;
            let entries: HashMap<Loc, usize> = domain
                .iter()
                .enumerate()
                .filter_map(|(i, (b, e, _))| Some((loc_of(prog, g, *b, *e)?, i)))
                .collect();
            let mut steps = Vec::new();
            for (i, e) in g.thread_events(t).iter().enumerate() {
                match &e.kind {
                    // A free read (gpu_free.rs): nothing in its thread
                    // depends on its value, so any write justifies it.
                    EventKind::Read(_) if grp.free.contains(&(i as u32)) => {}
                    EventKind::Read(r) => {
                        if let Some(&d) = entries.get(&r.loc) {
                            steps.push(Step::Read(d, r.value));
                        }
                    }
                    EventKind::Write(w) => {
                        if let Some(&d) = entries.get(&w.loc) {
                            steps.push(Step::Write(d, w.value));
                        }
                    }
                    _ => {}
                }
            }
            distinct.insert(steps);
        }
        // A prefix cut at the unroll bound has no free reads worked out:
        // its every read must be justified.
        let entries = entries_of(prog, &cut.allocs, domain);
        for prefix in &cut.prefixes {
            distinct.insert(
                prefix
                    .iter()
                    .filter_map(|&(write, loc, v)| {
                        let d = *entries.get(&loc)?;
                        Some(if write { Step::Write(d, v) } else { Step::Read(d, v) })
                    })
                    .collect(),
            );
        }
        ways.push(maximal(distinct));
    }
    let total = ways
        .iter()
        .try_fold(1u64, |acc, w| acc.checked_mul(w.len() as u64))
        .unwrap_or(u64::MAX);
    let budget = crate::litmus::gpu_split::MAX_COMBINATIONS;
    if total > budget {
        return Err(format!(
            "the po ∪ rf-cyclic enumeration would grow its value domains from {} combinations of the threads' \
             runs, more than its budget of {budget}; the outcome set is incomplete",
            if total == u64::MAX {
                "more than 2^64".to_string()
            } else {
                total.to_string()
            }
        ));
    }
    let mut out = vec![BTreeSet::new(); domain.len()];
    let mut pick = vec![0usize; ways.len()];
    // Every combination adds its pairs: hashed with `PairHasher`, not SipHash
    // (most of the growth's time on a spin loop's 35,721 combinations).
    let mut seen: HashSet<(usize, u64), std::hash::BuildHasherDefault<PairHasher>> = HashSet::default();
    loop {
        let combo: Vec<&[Step]> = pick.iter().zip(&ways).map(|(&p, w)| w[p].as_slice()).collect();
        closed_writes(&combo, inits, initial, &mut seen);
        let mut k = 0;
        loop {
            if k == ways.len() {
                for (d, v) in seen {
                    out[d].insert(v);
                }
                return Ok(out);
            }
            pick[k] += 1;
            if pick[k] < ways[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}

/// Per location of `allocs` (the main thread's allocations in layout
/// order), its domain entry.
fn entries_of(prog: &Program, allocs: &[Loc], domain: &[(u32, u32, BTreeSet<u64>)]) -> HashMap<Loc, usize> {
    domain
        .iter()
        .enumerate()
        .filter_map(|(i, (b, e, _))| {
            let before: u32 = prog.layout.names.iter().take(*b as usize).map(|(_, n)| *n).sum();
            Some((*allocs.get((before + e) as usize)?, i))
        })
        .collect()
}

/// The ways of `distinct` that are no proper prefix of another (the
/// growth over a way's prefix is part of the growth over the way: the
/// longer way only adds writes after it); at least the empty way.
fn maximal(distinct: BTreeSet<Vec<Step>>) -> Vec<Vec<Step>> {
    let all: Vec<Vec<Step>> = distinct.into_iter().collect();
    // In sorted order a way's extensions follow it directly (its proper
    // prefixes come before it), so a way is a prefix of another exactly
    // when it is one of the next.
    let mut out: Vec<Vec<Step>> = Vec::with_capacity(all.len());
    for (i, w) in all.iter().enumerate() {
        if !all.get(i + 1).is_some_and(|next| next.starts_with(w)) {
            out.push(w.clone());
        }
    }
    if out.is_empty() {
        out.push(Vec::new());
    }
    out
}

/// Grows each way of `combo` from nothing along po while its next event
/// is a write or a read it can justify (module docs: `inits` are the
/// initial values, `initial` the first round's domains), until none
/// grows, and adds the grown writes to `out`.
///
/// A read of a first-round value is first assumed justified; once the
/// ways have grown, an assumption that no grown write of another thread
/// (or an earlier one of its own) bears out is dropped and the ways grow
/// again from nothing, until every assumption left is borne out: the
/// largest set of such cycles, and no read justified only by a write that
/// never happens.
fn closed_writes(combo: &[&[Step]], inits: &[u64], initial: &[BTreeSet<u64>], out: &mut impl Extend<(usize, u64)>) {
    let mut assumed: Vec<Vec<bool>> = combo
        .iter()
        .map(|w| {
            w.iter()
                .map(|s| matches!(*s, Step::Read(d, v) if initial[d].contains(&v)))
                .collect()
        })
        .collect();
    loop {
        let len = grow(combo, inits, &assumed);
        // Writes of each grown way (a few each: a list, not a hash set).
        let made: Vec<Vec<(usize, u64)>> = combo
            .iter()
            .zip(&len)
            .map(|(w, &n)| {
                w[..n]
                    .iter()
                    .filter_map(|s| match *s {
                        Step::Write(d, v) => Some((d, v)),
                        Step::Read(..) => None,
                    })
                    .collect()
            })
            .collect();
        let mut dropped = false;
        for (k, (w, &n)) in combo.iter().zip(&len).enumerate() {
            for (i, s) in w[..n].iter().enumerate() {
                let Step::Read(d, v) = *s else { continue };
                if !assumed[k][i] || inits[d] == v {
                    continue;
                }
                let own = w[..i].contains(&Step::Write(d, v));
                let other = made.iter().enumerate().any(|(j, m)| j != k && m.contains(&(d, v)));
                if !own && !other {
                    assumed[k][i] = false;
                    dropped = true;
                }
            }
        }
        if !dropped {
            out.extend(inits.iter().copied().enumerate());
            out.extend(made.into_iter().flatten());
            return;
        }
    }
}

/// How far each way of `combo` grows from nothing: over writes, reads of
/// initial values or of values a grown write wrote, and reads `assumed`.
fn grow(combo: &[&[Step]], inits: &[u64], assumed: &[Vec<bool>]) -> Vec<usize> {
    // The pairs written so far (a few: a list, not a hash set).
    let mut written: Vec<(usize, u64)> = inits.iter().copied().enumerate().collect();
    let mut len = vec![0usize; combo.len()];
    loop {
        let mut grew = false;
        for (k, (w, n)) in combo.iter().zip(len.iter_mut()).enumerate() {
            while let Some(s) = w.get(*n) {
                match *s {
                    Step::Write(d, v) => {
                        if !written.contains(&(d, v)) {
                            written.push((d, v));
                        }
                    }
                    Step::Read(d, v) if written.contains(&(d, v)) || assumed[k][*n] => {}
                    Step::Read(..) => break,
                }
                *n += 1;
                grew = true;
            }
        }
        if !grew {
            return len;
        }
    }
}

/// A hasher for (domain entry, value) pairs: one multiply per word
/// (the pairs are small integers; no hostile input reaches this set).
#[derive(Default)]
struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown_by(combo: &[&[Step]]) -> BTreeSet<(usize, u64)> {
        grown_from(combo, &[BTreeSet::from([0]), BTreeSet::from([0]), BTreeSet::from([0])])
    }

    fn grown_from(combo: &[&[Step]], initial: &[BTreeSet<u64>]) -> BTreeSet<(usize, u64)> {
        let mut out = HashSet::new();
        closed_writes(combo, &[0, 0, 0], initial, &mut out);
        out.into_iter().collect()
    }

    /// Three adders from 0, each way reading what the domain gave it:
    /// the chain 0 -> 1 -> 2 -> 3 is closed, so 3 joins.
    #[test]
    fn a_chain_of_adds_is_closed() {
        let p0 = [Step::Read(0, 0), Step::Write(0, 1)];
        let p1 = [Step::Read(0, 1), Step::Write(0, 2)];
        let p2 = [Step::Read(0, 2), Step::Write(0, 3)];
        let got = grown_by(&[&p0, &p1, &p2]);
        assert_eq!(got, BTreeSet::from([(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (2, 0)]));
    }

    /// A read of a value no write of the combination writes stops its way
    /// there, and whatever only that way's later writes justified stops too.
    #[test]
    fn an_unjustified_read_cuts_the_chain_after_it() {
        let p0 = [Step::Read(0, 5), Step::Write(0, 1)];
        let p1 = [Step::Read(0, 1), Step::Write(0, 2), Step::Write(1, 7)];
        let p2 = [Step::Write(1, 9)];
        let got = grown_by(&[&p0, &p1, &p2]);
        assert_eq!(got, BTreeSet::from([(0, 0), (1, 0), (1, 9), (2, 0)]));
    }

    /// An RMW that copies the value it read (`atom.add r, sum, 0`) does
    /// not justify its own read: the value must come from elsewhere, or
    /// `sum` would climb by one each round (MICRO24-Fig4b).
    #[test]
    fn a_read_is_not_justified_by_its_own_write() {
        let p0 = [Step::Read(0, 3), Step::Write(0, 4)];
        let p1 = [Step::Read(0, 3), Step::Write(0, 3)];
        let got = grown_by(&[&p0, &p1]);
        assert_eq!(got, BTreeSet::from([(0, 0), (1, 0), (2, 0)]));
        // Nor when the value is a constant: the copy's own write is
        // po-after its read.
        let initial = [BTreeSet::from([0, 3]), BTreeSet::from([0]), BTreeSet::from([0])];
        let got = grown_from(&[&p0, &p1], &initial);
        assert_eq!(got, BTreeSet::from([(0, 0), (1, 0), (2, 0)]));
    }

    /// A constant of the first round's domain needs no write before the
    /// read, but some write of the combination: a cycle of two copies of
    /// 7 (`r = x; y = r` and `r = y; x = r`) grows, and starts a chain.
    #[test]
    fn a_cycle_through_a_constant_another_way_writes_grows() {
        let initial = [BTreeSet::from([0, 7]), BTreeSet::from([0, 7]), BTreeSet::from([0])];
        let p0 = [Step::Read(0, 7), Step::Write(1, 7), Step::Write(2, 8)];
        let p1 = [Step::Read(1, 7), Step::Write(0, 7)];
        let got = grown_from(&[&p0, &p1], &initial);
        assert_eq!(got, BTreeSet::from([(0, 0), (0, 7), (1, 0), (1, 7), (2, 0), (2, 8)]));
        // Nothing writes x=7: the read of it is not justified.
        let p1 = [Step::Read(1, 7), Step::Write(0, 6)];
        let got = grown_from(&[&p0, &p1], &initial);
        assert_eq!(got, BTreeSet::from([(0, 0), (1, 0), (2, 0)]));
    }

    /// Prefixes of another way of the thread are dropped, nothing else.
    #[test]
    fn only_maximal_ways_are_kept() {
        let (r0, r1, w1) = (Step::Read(0, 0), Step::Read(0, 1), Step::Write(0, 1));
        let ways = BTreeSet::from([vec![], vec![r0], vec![r0, w1], vec![r1], vec![r0, w1, r1], vec![r1, w1]]);
        assert_eq!(maximal(ways), vec![vec![r0, w1, r1], vec![r1, w1]]);
        assert_eq!(maximal(BTreeSet::new()), vec![Vec::<Step>::new()]);
    }
}
