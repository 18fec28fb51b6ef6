//! Locations only one thread can reach: they need no promised values.
//!
//! A read takes a promised value so that it can read a write that is
//! po ∪ rf-after it, which only another thread's write can be (a read never
//! reads its own thread's later write: `irreflexive(rf ; hb)`). A location
//! that no other thread can access has no such write, so the promising
//! thread stores nothing to it; its stores there only multiplied the ways
//! a thread ran (Dat3M's `TSan` keeps a compare-exchange's expected value in
//! a location only its thread names).
//!
//! C litmus threads reach a location through its name (a parameter, `x` or
//! `&x`) or through an address value. The test below is conservative: a
//! location is private when at most one thread names it, every use of its
//! name there is the address of an access (`*x`, `x[i]`, an atomic's
//! address, a compare-exchange's expected-value address), so its address is
//! never a value that could be stored, compared or computed with, and no
//! init entry holds its address. A name some thread also uses as a
//! register is never private (the name then means the register once
//! assigned).

use super::super::ast::{AtomicOp, BinOp, Expr, ExprKind, InitTarget, InitValue, Stmt, StmtKind, Test};
use std::collections::{BTreeMap, BTreeSet};

/// The test's private locations (see the module doc), by name.
pub(in super::super) fn private_locations(test: &Test) -> BTreeSet<String> {
    // Per name: the threads that name it, and whether a use lets its
    // address escape.
    let mut uses: BTreeMap<String, (BTreeSet<u32>, bool)> = BTreeMap::new();
    let mut registers: BTreeSet<String> = BTreeSet::new();
    let mut escaped: BTreeSet<String> = BTreeSet::new();
    for i in &test.init {
        if let InitTarget::Reg { reg, .. } = &i.target {
            registers.insert(reg.clone());
        }
        if let InitValue::Addr(name) = &i.value {
            escaped.insert(name.clone());
        }
    }
    for t in &test.threads {
        let mut walk = Walk {
            thread: t.index,
            uses: &mut uses,
            registers: &mut registers,
        };
        walk.stmts(&t.body);
    }
    uses.into_iter()
        .filter(|(name, (threads, escapes))| {
            threads.len() <= 1 && !escapes && !escaped.contains(name) && !registers.contains(name)
        })
        .map(|(name, _)| name)
        .collect()
}

/// One thread's walk over its statements.
struct Walk<'a> {
    thread: u32,
    uses: &'a mut BTreeMap<String, (BTreeSet<u32>, bool)>,
    registers: &'a mut BTreeSet<String>,
}

impl Walk<'_> {
    fn name(&mut self, name: &str, escapes: bool) {
        let u = self.uses.entry(name.to_string()).or_default();
        u.0.insert(self.thread);
        u.1 |= escapes;
    }

    /// `e` used as the address of an access.
    fn address(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(n) | ExprKind::AddrOf(n) => self.name(n, false),
            // Pointer arithmetic stays inside the location's elements (the
            // interpreter rejects an offset out of bounds).
            ExprKind::Binary(base, rest) if rest.iter().all(|(op, _)| matches!(op, BinOp::Add | BinOp::Sub)) => {
                self.address(base);
                rest.iter().for_each(|(_, b)| self.value(b));
            }
            _ => self.value(e),
        }
    }

    /// `e` used as a value: every name in it escapes, except inside the
    /// address of an access it makes.
    fn value(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Int(_) => {}
            ExprKind::Var(n) | ExprKind::AddrOf(n) => self.name(n, true),
            ExprKind::Deref(a) => self.address(a),
            ExprKind::Index(a, i) => {
                self.address(a);
                self.value(i);
            }
            ExprKind::Unary(_, a) => self.value(a),
            ExprKind::Binary(a, rest) => {
                self.value(a);
                rest.iter().for_each(|(_, b)| self.value(b));
            }
            ExprKind::Atomic(c) => {
                self.address(&c.addr);
                match (c.op, c.args.as_slice()) {
                    (AtomicOp::CasStrong | AtomicOp::CasWeak, [expected, desired]) => {
                        self.address(expected);
                        self.value(desired);
                    }
                    (_, args) => args.iter().for_each(|a| self.value(a)),
                }
            }
        }
    }

    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            match &s.kind {
                StmtKind::Decl { name, init, .. } => {
                    self.registers.insert(name.clone());
                    if let Some(e) = init {
                        self.value(e);
                    }
                }
                StmtKind::AssignReg { name, value } => {
                    self.registers.insert(name.clone());
                    self.value(value);
                }
                StmtKind::Store { addr, value } => {
                    self.address(addr);
                    self.value(value);
                }
                StmtKind::Expr(e) => self.value(e),
                StmtKind::If { cond, then, els } => {
                    self.value(cond);
                    self.stmts(then);
                    self.stmts(els);
                }
                StmtKind::While { cond, body } => {
                    self.value(cond);
                    self.stmts(body);
                }
                StmtKind::Block(body) => self.stmts(body),
                StmtKind::Fence { .. } | StmtKind::Barrier { .. } => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::private_locations;
    use crate::litmus::parser::parse;

    fn private(src: &str) -> Vec<String> {
        private_locations(&parse(src).expect("parses")).into_iter().collect()
    }

    #[test]
    fn a_location_only_one_thread_accesses_through_its_name_is_private() {
        let src = "C t\n{ x = 0; }\n\
            P0 (atomic_int* x, int* e) {\n  *e = atomic_load_explicit(x, memory_order_relaxed);\n  \
              int r0 = atomic_compare_exchange_strong_explicit(x, e, *e + 1, memory_order_relaxed, memory_order_relaxed);\n}\n\
            P1 (atomic_int* x) {\n  atomic_store_explicit(x, 2, memory_order_relaxed);\n}\n\
            exists (0:r0=1)\n";
        assert_eq!(private(src), ["e"]);
    }

    #[test]
    fn an_address_used_as_a_value_or_named_twice_is_not_private() {
        // `p`'s address is stored into `q` (which stays private: only P0
        // names it), so another thread could load it. `s` is named by two
        // threads. `a[1]` and `*(a + 1)` are accesses: `a` stays private.
        let src = "C t\n{ p = 0; q = 0; s = 0; int a[2] = {0, 0}; }\n\
            P0 (int* p, int* q, int* s, int* a) {\n  *q = p;\n  *s = 1;\n  a[1] = 3;\n  int r0 = *(a + 1);\n}\n\
            P1 (int* s) {\n  int r1 = *s;\n}\n\
            exists (0:r0=3)\n";
        assert_eq!(private(src), ["a", "q"]);
    }

    #[test]
    fn an_address_in_the_init_block_or_a_register_name_is_not_private() {
        let src = "C t\n{ x = 0; y = 0; 0:r9 = x; }\n\
            P0 (int* x, int* y) {\n  *x = 1;\n  int y = 2;\n  *y = 3;\n}\n\
            exists (0:y=2)\n";
        assert_eq!(private(src), Vec::<String>::new());
    }
}
