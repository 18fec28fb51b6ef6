//! Step 4 for PTX and Vulkan tests: the domains grow by the values of the
//! *value-closed partial combinations* of the threads' ways, not only by
//! the values of the consistent executions.
//!
//! Thread by thread (`gpu_split.rs`), a thread alone reads another
//! thread's value only from the domain. Growing the domain only by what
//! consistent executions write misses a value that only a chain of writes
//! across threads reaches: three `atom.add x, 1` from x=0 need the values
//! 1 and 2 to be read before x=3 is written, but with the domain {0, 1}
//! no consistent combination exists (two threads would read one value),
//! so 2 never joined and the run said "0 executions" (issue 18).
//!
//! The rule: for every combination of one way per thread, each way is cut
//! to its longest po-prefix in which every read's value is written by a
//! write of the cut ways (or is the location's initial value), repeated
//! until nothing is cut; the values the remaining writes write join the
//! domain. Model consistency is ignored: a value joins that no consistent
//! execution may write, which only costs ways (the validation never
//! accepts a graph that reads it unless some consistent graph writes it).
//!
//! Why it is complete (docs/gpu-models.md section 5 item 1): let E be a
//! consistent execution and C the largest set of per-thread po-prefixes
//! of E whose reads all take values in the domain, each read's value
//! written by a write of C (or initial). The thread runs that read the
//! domain's values follow E through C, so some combination extends C's
//! prefixes; the cutting never removes an event of C (C satisfies the
//! closure by itself, and the cut is the greatest such set), so C's
//! writes join. If E's po ∪ rf is acyclic outside C, a po ∪ rf-minimal
//! event of E outside C is its thread's next event after C and reads (if
//! it reads) from a write in C: its value is in the next round's domain,
//! and C grows. A cycle of E outside C whose reads take domain values
//! would, with C, satisfy the closure, so C would hold it already: C
//! stops growing only at a cycle that carries a value not in the domain,
//! the self-justifying values the docs already leave out. So E is found
//! within (its number of reads + 1) rounds: see [`rounds`].

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

/// Most rounds a PTX or Vulkan test runs, whatever its reads allow.
pub(super) const MAX_GPU_ROUNDS: usize = 64;

/// The rounds a PTX or Vulkan test may need: a consistent execution is
/// reached after at most one round per read (module docs) and found in
/// the next; `unroll` bounds the iterations of each loop. At least
/// [`ROUNDS`], at most [`MAX_GPU_ROUNDS`].
pub(super) fn rounds(test: &Test, unroll: u32) -> usize {
    let reads: u64 = test.threads.iter().map(|t| reads_in(&t.body, unroll as u64)).sum();
    (reads.saturating_add(1).min(MAX_GPU_ROUNDS as u64) as usize).max(ROUNDS)
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
            StmtKind::Decl { init: Some(e), .. } | StmtKind::AssignReg { value: e, .. } | StmtKind::Expr(e) => {
                expr(e)
            }
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
/// combinations of `runs`' ways write (module docs). A thread without a
/// way takes part with none of its events. An error says the
/// combinations are more than [`MAX_COMBINATIONS`](crate::litmus::gpu_split::MAX_COMBINATIONS).
pub(super) fn grown(
    prog: &Program,
    runs: &Runs,
    domain: &[(u32, u32, BTreeSet<u64>)],
    inits: &[u64],
) -> Result<Vec<BTreeSet<u64>>, String> {
    let mut ways: Vec<Vec<Vec<Step>>> = Vec::new();
    for (k, groups) in runs.groups().iter().enumerate() {
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
        if distinct.is_empty() {
            distinct.insert(Vec::new());
        }
        ways.push(distinct.into_iter().collect());
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
    let mut seen: HashSet<(usize, u64)> = HashSet::new();
    loop {
        let combo: Vec<&[Step]> = pick.iter().zip(&ways).map(|(&p, w)| w[p].as_slice()).collect();
        closed_writes(&combo, inits, &mut seen);
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

/// Cuts each way of `combo` to its longest prefix whose reads are
/// justified by the cut ways' writes or the initial values `inits`,
/// until nothing is cut, and adds the remaining writes to `out`.
fn closed_writes(combo: &[&[Step]], inits: &[u64], out: &mut HashSet<(usize, u64)>) {
    let mut len: Vec<usize> = combo.iter().map(|w| w.len()).collect();
    let mut written: HashSet<(usize, u64)> = HashSet::new();
    loop {
        written.clear();
        written.extend(inits.iter().copied().enumerate());
        for (w, &n) in combo.iter().zip(&len) {
            written.extend(w[..n].iter().filter_map(|s| match *s {
                Step::Write(d, v) => Some((d, v)),
                Step::Read(..) => None,
            }));
        }
        let mut cut = false;
        for (w, n) in combo.iter().zip(len.iter_mut()) {
            let first = w[..*n]
                .iter()
                .position(|s| matches!(*s, Step::Read(d, v) if !written.contains(&(d, v))));
            if let Some(i) = first {
                *n = i;
                cut = true;
            }
        }
        if !cut {
            break;
        }
    }
    out.extend(written);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown_by(combo: &[&[Step]]) -> BTreeSet<(usize, u64)> {
        let mut out = HashSet::new();
        closed_writes(combo, &[0], &mut out);
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
        assert_eq!(got, BTreeSet::from([(0, 0), (0, 1), (0, 2), (0, 3)]));
    }

    /// A read of a value no write of the combination writes cuts its way
    /// there, and whatever only that way's later writes justified goes too.
    #[test]
    fn an_unjustified_read_cuts_the_chain_after_it() {
        let p0 = [Step::Read(0, 5), Step::Write(0, 1)];
        let p1 = [Step::Read(0, 1), Step::Write(0, 2), Step::Write(1, 7)];
        let p2 = [Step::Write(1, 9)];
        let got = grown_by(&[&p0, &p1, &p2]);
        assert_eq!(got, BTreeSet::from([(0, 0), (1, 9)]));
    }
}
