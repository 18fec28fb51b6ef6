//! A GPU test's labels and branches unrolled into the thread bodies the
//! interpreter runs ([`expand`]). Split out of `gpu.rs`.

use super::ast::*;
use super::gpu::{Item, Operand};
use std::collections::HashMap;

/// The thread bodies of a GPU test, with backward jumps taken at most
/// `unroll` times each (a path that would take one more is discarded).
pub fn expand(test: &Test, unroll: u32) -> Test {
    let mut out = test.clone();
    let Some(gpu) = &test.gpu else { return out };
    for (t, items) in gpu.code.iter().enumerate() {
        let mut regs: Vec<String> = Vec::new();
        collect_regs(items, &mut regs);
        let initialised = |r: &String| {
            test.init.iter().any(
                |i| matches!(&i.target, InitTarget::Reg { thread, reg } if *thread == out.threads[t].index && reg == r),
            )
        };
        let pos = out.threads[t].pos;
        // Registers the init block leaves out start at 0.
        let mut body: Vec<Stmt> = regs
            .iter()
            .filter(|r| !initialised(r))
            .map(|r| Stmt {
                kind: StmtKind::Decl {
                    ty: Type {
                        space: None,
                        atomic: false,
                        volatile: false,
                        base: "int".into(),
                        pointer: 0,
                    },
                    name: r.clone(),
                    init: Some(Expr {
                        kind: ExprKind::Int(0),
                        pos,
                    }),
                },
                pos,
            })
            .collect();
        let labels: HashMap<&str, usize> = items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| match it {
                Item::Label(l) => Some((l.as_str(), i)),
                _ => None,
            })
            .collect();
        let mut taken = HashMap::new();
        body.extend(walk(items, &labels, 0, &mut taken, unroll));
        out.threads[t].body = body;
    }
    out
}

fn collect_regs(items: &[Item], out: &mut Vec<String>) {
    fn add(out: &mut Vec<String>, r: &str) {
        if !out.iter().any(|x| x == r) {
            out.push(r.to_string());
        }
    }
    for item in items {
        match item {
            Item::Stmts(ss) => {
                for s in ss {
                    if let StmtKind::AssignReg { name, .. } = &s.kind {
                        add(out, name);
                    }
                }
            }
            Item::Branch { a, b, .. } => {
                for o in [a, b] {
                    if let Operand::Reg(r) = o {
                        add(out, r);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The statements from `pc` on; `taken` counts backward jumps per target.
fn walk(
    items: &[Item],
    labels: &HashMap<&str, usize>,
    mut pc: usize,
    taken: &mut HashMap<usize, u32>,
    unroll: u32,
) -> Vec<Stmt> {
    let mut out = Vec::new();
    while let Some(item) = items.get(pc) {
        match item {
            Item::Label(_) => pc += 1,
            Item::Stmts(ss) => {
                out.extend(ss.iter().cloned());
                pc += 1;
            }
            Item::Goto(l, pos) => match jump(labels[l.as_str()], pc, taken, unroll) {
                Some(to) => pc = to,
                None => {
                    out.push(discard(*pos));
                    return out;
                }
            },
            Item::Branch { eq, a, b, target, pos } => {
                let e = |o: &Operand| Expr {
                    kind: match o {
                        Operand::Reg(r) => ExprKind::Var(r.clone()),
                        Operand::Int(v) => ExprKind::Int(*v),
                    },
                    pos: *pos,
                };
                let op = if *eq { BinOp::Eq } else { BinOp::Ne };
                let cond = Expr {
                    kind: ExprKind::Binary(Box::new(e(a)), vec![(op, e(b))]),
                    pos: *pos,
                };
                let mut t = taken.clone();
                let then = match jump(labels[target.as_str()], pc, &mut t, unroll) {
                    Some(to) => walk(items, labels, to, &mut t, unroll),
                    None => vec![discard(*pos)],
                };
                let els = walk(items, labels, pc + 1, taken, unroll);
                out.push(Stmt {
                    kind: StmtKind::If { cond, then, els },
                    pos: *pos,
                });
                return out;
            }
        }
    }
    out
}

/// Where a jump from `pc` to `to` continues, or `None` when a backward jump
/// has been taken `unroll` times already.
fn jump(to: usize, pc: usize, taken: &mut HashMap<usize, u32>, unroll: u32) -> Option<usize> {
    if to > pc {
        return Some(to);
    }
    let k = taken.entry(to).or_insert(0);
    if *k >= unroll {
        return None;
    }
    *k += 1;
    Some(to)
}

/// Ends the execution as a loop past its unroll bound does: `while (1) {}`,
/// which the interpreter discards once it has run `unroll` empty iterations.
fn discard(pos: Pos) -> Stmt {
    Stmt {
        kind: StmtKind::While {
            cond: Expr {
                kind: ExprKind::Int(1),
                pos,
            },
            body: Vec::new(),
        },
        pos,
    }
}
