//! Generating a [`Program`] of a [`Shape`] from fuzzer bytes: the
//! program-wide order leaning, the per-thread generator and the
//! [`Arbitrary`] implementation.

use super::*;
use arbitrary::{Arbitrary, Result, Unstructured};

/// Small values: 0 is the initial value, so stores write 1 or 2.
fn small(u: &mut Unstructured) -> Result<i32> {
    u.int_in_range(1..=2)
}

/// A program-wide leaning of the orders, as in the litmus families'
/// variants (`-rlx`, `-relacq`, `-sc`): uniform choices alone rarely give
/// every access of a cycle the same strength (store buffering with four
/// seq_cst accesses, say), which is where models differ most.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Bias {
    Relaxed,
    RelAcq,
    SeqCst,
}

impl Bias {
    /// The order this leaning picks among `orders` (the valid ones).
    fn pick(self, orders: &[Order]) -> Option<Order> {
        let want: &[Order] = match self {
            Bias::Relaxed => &[Order::Relaxed],
            Bias::RelAcq => &[Order::AcqRel, Order::Acquire, Order::Release],
            Bias::SeqCst => &[Order::SeqCst],
        };
        // RMWs and fences take acq_rel; loads acquire; stores release.
        want.iter().copied().find(|o| orders.contains(o))
    }
}

/// The generator's state for one thread.
struct ThreadGen<'s> {
    shape: &'s Shape,
    bias: Option<Bias>,
    gpu: bool,
    regs: usize,
    published: Vec<usize>,
}

impl ThreadGen<'_> {
    fn reg(&mut self) -> usize {
        self.regs += 1;
        self.regs - 1
    }

    /// A register just loaded into: published (used) or not.
    fn loaded(&mut self, u: &mut Unstructured) -> Result<usize> {
        let r = self.reg();
        if self.shape.mode == Mode::Drfrlx && u.arbitrary::<bool>()? {
            self.published.push(r);
        }
        Ok(r)
    }

    fn access(&self, u: &mut Unstructured, orders: &[Order]) -> Result<Access> {
        match self.shape.mode {
            Mode::Drfrlx => Ok(if u.ratio(1, 3)? {
                Access {
                    order: Order::SeqCst,
                    scope: None,
                    class: None,
                }
            } else {
                Access {
                    order: Order::Relaxed,
                    scope: None,
                    class: Some(*u.choose(THEOREM_CLASSES)?),
                }
            }),
            Mode::General => {
                let leaning = match self.bias {
                    Some(b) if u.ratio(3, 4)? => b.pick(orders),
                    _ => None,
                };
                let order = match leaning {
                    Some(o) => o,
                    None => *u.choose(orders)?,
                };
                let scope = self.scope(u)?;
                let class = if order == Order::Relaxed && u.ratio(1, 4)? {
                    Some(*u.choose(ALL_CLASSES)?)
                } else {
                    None
                };
                Ok(Access { order, scope, class })
            }
        }
    }

    fn scope(&self, u: &mut Unstructured) -> Result<Option<Scope>> {
        Ok(if self.gpu && u.ratio(3, 4)? {
            Some(*u.choose(SCOPES)?)
        } else {
            None
        })
    }

    /// One statement; `top` allows a branch (when a register exists to test).
    fn step(&mut self, u: &mut Unstructured, left: &mut usize, top: bool) -> Result<Step> {
        if top && self.shape.branches && self.regs > 0 && u.ratio(1, 6)? {
            let reg = u.int_in_range(0..=self.regs - 1)?;
            let value = u.int_in_range(0..=2)?;
            let n = u.int_in_range(1..=(*left).min(2))?;
            let mut then = Vec::new();
            for _ in 0..n {
                then.push(self.step(u, left, false)?);
            }
            return Ok(Step::If { reg, value, then });
        }
        *left -= 1;
        if top && self.shape.waits && u.ratio(1, 12)? {
            return Ok(Step::Await {
                loc: u.int_in_range(0..=1)?,
                value: small(u)?,
                access: self.access(u, LOAD_ORDERS)?,
            });
        }
        if self.shape.plain_one_in > 0 && u.ratio(1, self.shape.plain_one_in)? {
            return Ok(if u.arbitrary::<bool>()? {
                Step::PlainLoad { reg: self.reg() }
            } else {
                Step::PlainStore { value: small(u)? }
            });
        }
        let loc = u.int_in_range(0..=1)?;
        self.access_step(u, loc, self.shape.fences_and_cas)
    }

    /// An atomic access to `loc` (or, with `extra`, possibly a
    /// compare-exchange or a fence).
    fn access_step(&mut self, u: &mut Unstructured, loc: usize, extra: bool) -> Result<Step> {
        let kinds = if extra { 7 } else { 5 };
        Ok(match u.int_in_range(0..=kinds - 1)? {
            0 | 1 => Step::Load {
                loc,
                access: self.access(u, LOAD_ORDERS)?,
                reg: self.loaded(u)?,
            },
            2 | 3 => Step::Store {
                loc,
                value: small(u)?,
                access: self.access(u, STORE_ORDERS)?,
            },
            4 if u.arbitrary::<bool>()? => Step::FetchAdd {
                loc,
                value: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                reg: self.loaded(u)?,
            },
            4 => Step::Exchange {
                loc,
                value: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                reg: self.loaded(u)?,
            },
            5 => Step::Cas {
                loc,
                expected: u.int_in_range(0..=2)?,
                desired: small(u)?,
                access: self.access(u, RMW_ORDERS)?,
                failure: *u.choose(CAS_FAILURE_ORDERS)?,
                reg: self.reg(),
                ok: self.reg(),
            },
            _ => Step::Fence {
                order: match self.bias.and_then(|b| b.pick(FENCE_ORDERS)) {
                    Some(o) if u.ratio(3, 4)? => o,
                    _ => *u.choose(FENCE_ORDERS)?,
                },
                scope: self.scope(u)?,
            },
        })
    }
}

impl Program {
    /// Generates a program of `shape` from the fuzzer's bytes. Running out of
    /// bytes gives a smaller program, never an error.
    pub fn generate(u: &mut Unstructured, shape: &Shape) -> Result<Program> {
        let n = u.int_in_range(2..=shape.max_threads.max(2))?;
        let gpu = shape.gpu && u.arbitrary::<bool>()?;
        let bias = *u.choose(&[None, Some(Bias::Relaxed), Some(Bias::RelAcq), Some(Bias::SeqCst)])?;
        let max_steps = if n == 2 { shape.max_steps_2 } else { shape.max_steps_3 };
        let mut threads = Vec::new();
        let cyclic = u.arbitrary::<bool>()?;
        for i in 0..n {
            let place = if gpu {
                Some((u.int_in_range(0..=1)?, u.int_in_range(0..=1)?))
            } else {
                None
            };
            let mut g = ThreadGen {
                shape,
                bias,
                gpu,
                regs: 0,
                published: Vec::new(),
            };
            let mut left = u.int_in_range(1..=max_steps.max(1))?;
            let mut steps = Vec::new();
            if cyclic && max_steps >= 2 {
                // Thread t goes from location t % 2 to the other one, as in
                // SB, MP, LB, 2+2W, S, R, WRC, IRIW: the critical cycles of
                // the classic litmus tests, where models differ.
                left = max_steps;
                let first = i % 2;
                steps.push(g.access_step(u, first, false)?);
                if shape.fences_and_cas && max_steps >= 3 && u.ratio(1, 3)? {
                    let order = match bias.and_then(|b| b.pick(FENCE_ORDERS)) {
                        Some(o) => o,
                        None => *u.choose(FENCE_ORDERS)?,
                    };
                    steps.push(Step::Fence {
                        order,
                        scope: g.scope(u)?,
                    });
                    left -= 1;
                }
                steps.push(g.access_step(u, 1 - first, false)?);
                left -= 2;
            }
            while left > 0 {
                steps.push(g.step(u, &mut left, true)?);
            }
            threads.push(Thread {
                place,
                steps,
                regs: g.regs,
                published: g.published,
            });
        }
        Ok(Program { threads })
    }
}

impl<'a> Arbitrary<'a> for Program {
    /// A program of the [`Shape::models`] shape.
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Program> {
        Program::generate(u, &Shape::models())
    }
}
