//! The word-wise relation algebra of `relations.rs` (`compose` over set
//! bits, `has_cycle` by elimination, `transpose`, `intersect_with`,
//! `subtract`, `is_empty`) against the pair-by-pair definitions, on
//! pseudo-random relations over 1 to 130 nodes (one, two and three words
//! a row), sparse and dense.

use super::relations::Rel;

/// A small deterministic generator (xorshift), so the cases are the same
/// on every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn random(g: &mut Gen, n: usize, per_mille: u64) -> Rel {
    let mut r = Rel::new(n);
    for a in 0..n {
        for b in 0..n {
            if g.next() % 1000 < per_mille {
                r.add(a, b);
            }
        }
    }
    r
}

fn pairs(r: &Rel) -> Vec<(usize, usize)> {
    let n = r.size();
    (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| r.has(a, b))
        .collect()
}

/// Whether some node reaches itself, by a depth-first search from each
/// node over the pairs one at a time.
fn cyclic_by_definition(r: &Rel) -> bool {
    let n = r.size();
    (0..n).any(|start| {
        let mut seen = vec![false; n];
        let mut stack = vec![start];
        while let Some(a) = stack.pop() {
            for b in (0..n).filter(|&b| r.has(a, b)) {
                if b == start {
                    return true;
                }
                if !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        false
    })
}

#[test]
fn word_wise_algebra_agrees_with_the_pairwise_definitions() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for &n in &[1usize, 2, 7, 63, 64, 65, 100, 130] {
        for &density in &[0u64, 5, 20, 100, 500] {
            let r = random(&mut g, n, density);
            let o = random(&mut g, n, density);
            // compose
            let c = r.compose(&o);
            for a in 0..n {
                for b in 0..n {
                    let want = (0..n).any(|k| r.has(a, k) && o.has(k, b));
                    assert_eq!(c.has(a, b), want, "compose n={n} density={density} ({a},{b})");
                }
            }
            // transpose, intersect, subtract, is_empty
            let t = r.transpose();
            assert!(pairs(&t).iter().all(|&(a, b)| r.has(b, a)));
            assert_eq!(pairs(&t).len(), pairs(&r).len());
            let mut i = r.clone();
            i.intersect_with(&o);
            assert_eq!(
                pairs(&i),
                pairs(&r).into_iter().filter(|&(a, b)| o.has(a, b)).collect::<Vec<_>>()
            );
            let mut d = r.clone();
            d.subtract(&o);
            assert_eq!(
                pairs(&d),
                pairs(&r).into_iter().filter(|&(a, b)| !o.has(a, b)).collect::<Vec<_>>()
            );
            assert_eq!(r.is_empty(), pairs(&r).is_empty());
            // has_cycle and closure
            assert_eq!(
                r.has_cycle(),
                cyclic_by_definition(&r),
                "has_cycle n={n} density={density}"
            );
            assert_eq!(r.has_cycle(), r.closure().is_reflexive_somewhere());
        }
    }
    // A long chain closed into a cycle by its last edge, and without it.
    let mut chain = Rel::new(130);
    for a in 0..129 {
        chain.add(a, a + 1);
    }
    assert!(!chain.has_cycle());
    chain.add(129, 0);
    assert!(chain.has_cycle());
}
