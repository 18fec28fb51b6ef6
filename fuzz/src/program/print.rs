//! Printing a [`Program`] as a litmus test in the dialect `scopecheck
//! litmus` parses.

use super::*;
use std::fmt::{self, Write as _};

/// The litmus spelling of an order the generator draws (from the
/// `*_ORDERS` lists, which hold no [`Order::NonAtomic`]).
fn order_spelling(o: Order) -> &'static str {
    match o {
        Order::Relaxed => "memory_order_relaxed",
        Order::Acquire => "memory_order_acquire",
        Order::Release => "memory_order_release",
        Order::AcqRel => "memory_order_acq_rel",
        Order::SeqCst => "memory_order_seq_cst",
        Order::NonAtomic => unreachable!("the fuzz generator gave an atomic call a non-atomic order"),
    }
}

/// The litmus spelling of a scope the generator draws (from [`SCOPES`],
/// which holds no [`Scope::Cluster`]: C tests cannot name it).
fn scope_spelling(s: Scope) -> &'static str {
    match s {
        Scope::Thread => "memory_scope_thread",
        Scope::Warp => "memory_scope_warp",
        Scope::Block => "memory_scope_block",
        Scope::Device => "memory_scope_device",
        Scope::System => "memory_scope_system",
        Scope::Cluster => unreachable!("the fuzz generator gave an access the cluster scope"),
    }
}

impl Access {
    /// `, order[, scope][, class]` as the tail of an `_explicit` call.
    fn tail(&self) -> String {
        let mut s = format!(", {}", order_spelling(self.order));
        if let Some(sc) = self.scope {
            write!(s, ", {}", scope_spelling(sc)).unwrap();
        }
        if let Some(c) = self.class {
            write!(s, ", {}", c.name()).unwrap();
        }
        s
    }
}

impl Program {
    /// The litmus test, named `name`.
    pub fn litmus(&self, name: &str) -> String {
        let mut s = format!("C {name}\n\n{{ [x] = 0; [y] = 0; [d] = 0;");
        let publishes = self.publishes();
        if publishes {
            for t in 0..self.threads.len() {
                write!(s, " [out{t}] = 0;").unwrap();
            }
        }
        s.push_str(" }\n\n");
        for (i, t) in self.threads.iter().enumerate() {
            write!(s, "P{i}").unwrap();
            if let Some((b, w)) = t.place {
                write!(s, "@block {b}, warp {w}, device 0").unwrap();
            }
            s.push_str(" (atomic_int* x, atomic_int* y, int* d");
            if publishes {
                write!(s, ", atomic_int* out{i}").unwrap();
            }
            s.push_str(") {\n");
            for r in 0..t.regs {
                writeln!(s, "  int r{r} = -1;").unwrap();
            }
            print_steps(&mut s, &t.steps, 1);
            if !t.published.is_empty() {
                let folded: Vec<String> = t.published.iter().map(|r| format!("r{r}")).collect();
                // Values are -1..=4 here; base 8 keeps most combinations apart.
                let mut expr = folded[0].clone();
                for r in &folded[1..] {
                    expr = format!("({expr}) * 8 + {r}");
                }
                writeln!(s, "  atomic_store_explicit(out{i}, {expr}, memory_order_seq_cst);").unwrap();
            }
            s.push_str("}\n\n");
        }
        if !publishes {
            // Observe every register and location (DRFrlx observes memory only).
            s.push_str("locations [");
            for (i, t) in self.threads.iter().enumerate() {
                for r in 0..t.regs {
                    write!(s, "{i}:r{r}; ").unwrap();
                }
            }
            s.push_str("x; y; d;]\n");
        }
        s
    }
}

const LOCS: [&str; 2] = ["x", "y"];

fn print_steps(s: &mut String, steps: &[Step], depth: usize) {
    let pad = "  ".repeat(depth);
    for st in steps {
        match st {
            Step::Load { loc, reg, access } => {
                writeln!(
                    s,
                    "{pad}r{reg} = atomic_load_explicit({}{});",
                    LOCS[*loc],
                    access.tail()
                )
            }
            Step::Store { loc, value, access } => {
                writeln!(
                    s,
                    "{pad}atomic_store_explicit({}, {value}{});",
                    LOCS[*loc],
                    access.tail()
                )
            }
            Step::FetchAdd {
                loc,
                value,
                reg,
                access,
            } => writeln!(
                s,
                "{pad}r{reg} = atomic_fetch_add_explicit({}, {value}{});",
                LOCS[*loc],
                access.tail()
            ),
            Step::Exchange {
                loc,
                value,
                reg,
                access,
            } => writeln!(
                s,
                "{pad}r{reg} = atomic_exchange_explicit({}, {value}{});",
                LOCS[*loc],
                access.tail()
            ),
            Step::Cas {
                loc,
                expected,
                desired,
                reg,
                ok,
                access,
                failure,
            } => {
                // The failure order goes between the success order and the scope.
                let mut tail = format!(", {}, {}", order_spelling(access.order), order_spelling(*failure));
                if let Some(sc) = access.scope {
                    write!(tail, ", {}", scope_spelling(sc)).unwrap();
                }
                if let Some(c) = access.class {
                    write!(tail, ", {}", c.name()).unwrap();
                }
                writeln!(s, "{pad}r{reg} = {expected};").unwrap();
                writeln!(
                    s,
                    "{pad}r{ok} = atomic_compare_exchange_strong_explicit({}, &r{reg}, {desired}{tail});",
                    LOCS[*loc]
                )
            }
            Step::Fence { order, scope } => match scope {
                Some(sc) => writeln!(
                    s,
                    "{pad}atomic_thread_fence({}, {});",
                    order_spelling(*order),
                    scope_spelling(*sc)
                ),
                None => writeln!(s, "{pad}atomic_thread_fence({});", order_spelling(*order)),
            },
            Step::Await { loc, value, access } => writeln!(
                s,
                "{pad}while (atomic_load_explicit({}{}) != {value}) {{ }}",
                LOCS[*loc],
                access.tail()
            ),
            Step::PlainLoad { reg } => writeln!(s, "{pad}r{reg} = *d;"),
            Step::PlainStore { value } => writeln!(s, "{pad}*d = {value};"),
            Step::If { reg, value, then } => {
                writeln!(s, "{pad}if (r{reg} == {value}) {{").unwrap();
                print_steps(s, then, depth + 1);
                writeln!(s, "{pad}}}")
            }
        }
        .unwrap();
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.litmus("fuzz"))
    }
}
