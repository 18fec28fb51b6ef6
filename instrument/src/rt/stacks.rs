//! Coroutine stacks, kept from one execution to the next so that starting a
//! model thread does not map fresh memory.

use corosensei::stack::DefaultStack;

/// A pool of stacks of one size.
pub(crate) struct Pool {
    size: usize,
    free: Vec<DefaultStack>,
}

impl Pool {
    pub(crate) fn new(size: usize) -> Pool {
        Pool { size, free: Vec::new() }
    }

    pub(crate) fn take(&mut self) -> DefaultStack {
        self.free.pop().unwrap_or_else(|| {
            DefaultStack::new(self.size).unwrap_or_else(|e| {
                panic!(
                    "scopecheck: cannot allocate a {} byte stack for a model thread: {e}",
                    self.size
                )
            })
        })
    }

    pub(crate) fn give(&mut self, s: DefaultStack) {
        self.free.push(s);
    }
}
