//! Coroutine stacks, kept from one execution to the next so that starting a
//! model thread does not map fresh memory.
//!
//! Each stack starts a different distance below the top of its mapping
//! (its colour). Mappings are page-aligned, so without that every model
//! thread's hottest stack lines (the frames at the top, touched at every
//! switch) would sit at the same offset in their pages and fall into the
//! same few cache sets: with a dozen threads switching every few
//! instructions they evicted each other, and more so with two explorers on
//! cores that share a cache (the 12-thread compare-exchange rotation ran
//! its two parallel explorers 20-40% slower per thread on some runs than
//! one alone).

use corosensei::stack::{DefaultStack, Stack, StackPointer, STACK_ALIGNMENT};
use std::cell::Cell;

thread_local! {
    /// Stacks mapped by the pools of this OS thread so far (see [`stacks_made`]).
    static MADE: Cell<u64> = const { Cell::new(0) };
}

/// How many coroutine stacks the model runs on this OS thread have mapped so
/// far. A test hook: a finished model thread's stack goes back to its pool
/// at once, so a program that spawns and joins threads one after another
/// maps only as many stacks as it has threads alive at a time.
#[doc(hidden)]
pub fn stacks_made() -> u64 {
    MADE.with(Cell::get)
}

/// Distance between the tops of consecutive colours: 17 cache lines, so
/// successive stacks' top frames move through the sets of a 4 KiB cache
/// way, and wrap only after 32 KiB (past an L1 way and across L2 sets).
const COLOUR_STEP: usize = 17 * 64;
const COLOUR_SPAN: usize = 32 * 1024;

/// A coroutine stack whose usable top sits `offset` bytes below the top of
/// its mapping.
pub(crate) struct ColouredStack {
    inner: DefaultStack,
    offset: usize,
}

// SAFETY: the base is the inner stack's base moved down by a multiple of
// the stack alignment, still above its limit (the offset is at most a 32nd
// of the stack size), and the limit (with the guard page) is the inner
// stack's.
unsafe impl Stack for ColouredStack {
    #[inline]
    fn base(&self) -> StackPointer {
        StackPointer::new(self.inner.base().get() - self.offset).expect("a stack base above zero")
    }

    #[inline]
    fn limit(&self) -> StackPointer {
        self.inner.limit()
    }

    #[cfg(windows)]
    fn teb_fields(&self) -> corosensei::stack::StackTebFields {
        self.inner.teb_fields()
    }

    #[cfg(windows)]
    fn update_teb_fields(&mut self, stack_limit: usize, guaranteed_stack_bytes: usize) {
        self.inner.update_teb_fields(stack_limit, guaranteed_stack_bytes)
    }
}

/// A pool of stacks of one size.
pub(crate) struct Pool {
    size: usize,
    free: Vec<ColouredStack>,
    /// Stacks made so far (the next one's colour).
    made: usize,
}

/// A margin above any page size and guard: a requested size within it of
/// `usize::MAX` overflows corosensei's own size arithmetic (a panic there).
const SIZE_MARGIN: usize = 1 << 20;

impl Pool {
    /// A pool of `size`-byte stacks, holding its first stack already (the
    /// main model thread's): a size that cannot be mapped is refused here,
    /// before any model state exists, as the user's setting it is.
    pub(crate) fn new(size: usize) -> Result<Pool, String> {
        let mut pool = Pool {
            size,
            free: Vec::new(),
            made: 0,
        };
        let first = pool.make()?;
        pool.free.push(first);
        Ok(pool)
    }

    /// A stack from the pool, or a new one. A failure to map one (memory
    /// ran out with this many threads alive) is reported as the setting's.
    pub(crate) fn take(&mut self) -> ColouredStack {
        if let Some(s) = self.free.pop() {
            return s;
        }
        self.make().unwrap_or_else(|e| {
            super::panic_hook::not_the_checkers();
            panic!("{e}")
        })
    }

    fn make(&mut self) -> Result<ColouredStack, String> {
        if self.size > usize::MAX - SIZE_MARGIN {
            return Err(format!(
                "scopecheck: Builder::stack_size = {} bytes is larger than any address space; a model thread's \
                 stack must be mappable (a std thread gets 2 MiB by default)",
                self.size
            ));
        }
        // At most a 32nd of the stack goes to colours (the checker's own
        // work runs on these stacks too).
        let span = (self.size / 32).clamp(1, COLOUR_SPAN);
        let offset = (self.made * COLOUR_STEP) % span / STACK_ALIGNMENT * STACK_ALIGNMENT;
        let inner = DefaultStack::new(self.size).map_err(|e| {
            format!(
                "scopecheck: cannot map a {} byte stack for a model thread (Builder::stack_size = {}, with {} \
                 stacks mapped already): {e}; lower Builder::stack_size",
                self.size, self.size, self.made
            )
        })?;
        self.made += 1;
        MADE.with(|m| m.set(m.get() + 1));
        Ok(ColouredStack { inner, offset })
    }

    pub(crate) fn give(&mut self, s: ColouredStack) {
        self.free.push(s);
    }
}
