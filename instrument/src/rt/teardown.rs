//! Ending an execution that still has unfinished threads (another thread
//! failed, a spin wait that cannot end, a discarded thread, a deadlock, a
//! runaway, the end of a parallel explorer's subtree, the checker's own
//! panic).
//!
//! Nothing of the program runs past the execution's end. Its unfinished
//! threads are *abandoned*: their coroutines are marked finished without
//! unwinding and their stacks go back to the pool, so the values their
//! frames own are forgotten (as `std::mem::forget` would: heap objects they
//! own are leaked, nothing is freed twice, no `Drop` runs), and bodies of
//! threads spawned but never started are forgotten the same way. Unwinding
//! them instead would run the program's `Drop`s after the execution ended:
//! every shim operation there could only answer an invented value (a
//! refcount's `assert!(prev >= 1)` then fails), and a panic during that
//! unwind is a panic in a destructor during unwinding, which Rust turns
//! into an abort of the whole process. Even a `Drop` that reads no shim
//! object (a drop bomb) would see an unwind the program never made.
//!
//! The cost is the heap the abandoned frames own, leaked once per
//! abandoned execution: what the program allocated and its unfinished
//! threads still hold (their `Arc`s, boxes, vectors), plus the runtime's
//! own box and result slot per abandoned thread. Measured on three threads
//! spinning on a flag, each holding an `Arc` of 64 bytes: 579 bytes per
//! blocked execution (81,000 blocked executions of 864,000: 2 MB -> 48 MB
//! in 4.9 s). Nothing else grows: the stacks are reused.
//!
//! One more thing stays behind when the abandoned thread was itself
//! unwinding from a panic (suspended at a shim operation in a `Drop`, and
//! another thread's failure ended the execution first): std's panic count
//! of the OS thread stays raised, so `std::thread::panicking()` answers
//! true on it from then on. Finishing that unwind would run the program's
//! `Drop`s past the execution's end, which is what this module avoids; the
//! old unwind aborted the process there.

use super::stacks::ColouredStack;
use super::ThreadCoroutine;

/// Abandons `c` (finished or not) and returns its stack for reuse.
pub(super) fn abandon(mut c: ThreadCoroutine) -> ColouredStack {
    if !c.done() {
        // SAFETY: `force_reset` skips the drops of what lives on the
        // coroutine's stack, which is sound exactly as `mem::forget` is:
        // the coroutine is never resumed again (it is consumed here), so
        // nothing reads those frames, and what they own is leaked, not
        // freed. The one promise this does not keep is `Pin`'s drop
        // guarantee for a value pinned on an abandoned thread's stack (the
        // stack is reused): a program that pins a value there and makes it
        // reachable from outside the model closure would see it overwritten
        // in a later execution.
        unsafe { c.force_reset() };
    }
    c.into_stack()
}

/// Abandons the bodies of threads spawned but never started: forgotten,
/// not dropped (dropping runs the `Drop`s of what they captured).
pub(super) fn abandon_bodies(bodies: Vec<(scopecheck_checker::event::ThreadId, Box<dyn FnOnce()>)>) {
    for (_, body) in bodies {
        std::mem::forget(body);
    }
}
