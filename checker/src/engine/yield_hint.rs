//! `thread::yield_now`: a scheduling hint that becomes a spin wait only
//! once the thread is seen going round a loop that learns nothing.
//!
//! `hint::spin_loop` marks the end of a spin-loop iteration, so the first
//! iteration that reads and writes nothing already waits (`Engine::spin`).
//! `yield_now` is also called outside loops: loom's tests take a lock, yield
//! once and return. Treating that lone yield as a wait makes the thread wait
//! for a write to the lock word that only it can make, a false deadlock. So
//! a yield waits only when the iteration that ends at it is an exact
//! repetition of the iteration that ended at the thread's previous yield:
//! the same yield (source location) reached again, having read the same
//! locations and nothing new there (no write by another thread mo-after
//! what the previous iteration read), and written nothing (mutex lock words
//! aside, as for `spin_loop`). Straight-line code never reaches the same
//! yield twice, so it never waits; a loop with nothing to wait for is caught
//! at its second iteration and reported as spinning, as with `spin_loop`.
//!
//! From then on the loop is known and its yield is a `spin_loop`: the
//! repeating iteration waits for news, and each later iteration at that
//! yield that reads and writes nothing must read news (else the execution
//! is moot) and then waits again. A yield loop thus explores what the
//! `spin_loop` loop explores, plus executions with one stale iteration in
//! front of a waiting one (the iteration before a wait is not yet known to
//! be a loop's): more executions, the same outcomes and failures.
//! (Making the repeating iteration's wake moot instead, on the grounds that
//! the execution where it read the news covers it, loses executions under
//! the optimal explorer: that execution is reachable only by a backward
//! revisit, and cutting the moot execution short drops the events that
//! would make it.)

use super::{Engine, SpinWait, Stop, WaitSite};
use crate::event::{SourceLoc, ThreadId};

impl Engine {
    /// Thread `t` gave a spin hint (`spin_loop` or `yield_now`) at `src`:
    /// one step of the thread, counted toward `max_steps`, at which the
    /// run's deadline is looked at. A loop that spins on something no shim
    /// operation reads (a std atomic, a plain variable) never waits and
    /// never reaches a shim operation: without this it ran forever, past
    /// both bounds.
    pub fn hint_step(&mut self, t: ThreadId, src: SourceLoc) -> Result<(), Stop> {
        self.count_step(t, src, |t, max, src| {
            format!(
                "thread {t} took more than {max} steps in one execution (at {src}, a spin hint): a loop whose \
                 `spin_loop()` / `yield_now()` iterations read nothing through scopecheck's types (a std \
                 atomic, a plain variable) cannot wait for another thread's write; read what it waits for \
                 through `scopecheck::sync`, or raise `max_steps`"
            )
        })
    }

    /// Thread `t` called `yield_now` at `site`. Returns whether the thread
    /// must wait (see the module documentation); `Err(Moot)` when the
    /// iteration after a wait here read nothing new, as for a spin hint
    /// ([`Engine::spin_at`]).
    pub fn yield_hint(&mut self, t: ThreadId, site: SourceLoc) -> Result<bool, Stop> {
        let replaying = self.replaying(t);
        let r = self.rt(t);
        r.hint_at = Some(r.cursor);
        let read = std::mem::take(&mut r.spin_reads);
        let wrote = std::mem::replace(&mut r.spin_wrote, false);
        let prev_wait = r.spin_prev.take();
        let prev_yield = r.yield_prev.take();
        if wrote || read.is_empty() {
            return Ok(false);
        }
        let in_loop = match &prev_yield {
            Some((at, before)) if *at == site => match &prev_wait {
                // The previous iteration waited here: the spin contract.
                Some(waited) => {
                    if !replaying && !self.sees_news(t, waited, &read) {
                        return Err(Stop::Moot);
                    }
                    true
                }
                // It did not: a loop once this iteration repeats it.
                None => !self.sees_news(t, before, &read),
            },
            _ => false,
        };
        let r = self.rt(t);
        r.yield_prev = Some((site, read.clone()));
        if !in_loop {
            return Ok(false);
        }
        r.spin_prev = Some(read.clone());
        if replaying {
            return Ok(false);
        }
        r.spin_wait = Some(SpinWait {
            read,
            at: WaitSite {
                src: Some(site),
                on: None,
            },
        });
        Ok(true)
    }
}
