//! Seed 001's scoped synchronization objects: `cuda::barrier` (split
//! arrive/wait with arrival tokens, `arrive_and_drop`, an optional
//! completion function), `cuda::latch`, and `cuda::counting_semaphore` /
//! `cuda::binary_semaphore`, each at a thread scope.
//!
//! Seed 001 amends the C++ standard so that concurrent calls of these
//! objects' member functions "do not introduce data races *as if they were
//! atomic operations*": an object is a set of atomic words, and every
//! operation on it is an atomic operation at the object's scope. That is
//! how they are built here, on checker locations accessed with the object's
//! scope, so everything the checker knows about scoped atomics applies:
//! under `MemoryModel::Src11` a thread outside the scope (a block-scope
//! barrier used from another block) is a heterogeneous race on the
//! object's word, and the synchronization each object promises (phase
//! completion, a latch reaching zero, a semaphore release read by an
//! acquire) exists only between threads the scope includes.
//!
//! Waits block the calling model thread with the spin-loop contract, so a
//! wait nobody ends is a deadlock (or, under a progress model that may
//! starve the thread that would end it, a hang), reported at the user's line
//! as a wait "on a cuda::barrier" (latch, semaphore). A precondition the
//! standard makes undefined behaviour (more arrivals than a phase expects, a
//! latch counted below zero, a semaphore released past its maximum) panics
//! at the user's line with what was violated.

use crate::raw_atomic::alloc;
use crate::rt;
use scopecheck_checker::event::Loc;
use scopecheck_checker::event::{LocKind, Op, Order, RmwOp, Scope, SourceLoc, Value};

use crate::sync::{fetch_in as fetch, load_in as load};

/// A strong compare-exchange at `scope` whose failure reads relaxed.
fn cas(loc: Loc, expected: Value, new: Value, success: Order, scope: Scope, src: SourceLoc) -> Result<Value, Value> {
    crate::sync::cas_in(loc, expected, new, success, Order::Relaxed, None, scope, src)
}

fn fence(order: Order, scope: Scope, src: SourceLoc) {
    rt::op_at(Op::Fence { order, scope }, src);
}

// ---------------------------------------------------------------------------
// cuda::barrier

/// Bits of the barrier word holding the arrivals a phase still expects.
const PENDING_BITS: u32 = 20;
/// Bits holding how many participants dropped out so far (all phases).
const DROP_BITS: u32 = 20;
const FIELD: Value = (1 << PENDING_BITS) - 1;
const DROP_ONE: Value = 1 << PENDING_BITS;
const PHASE_ONE: Value = 1 << (PENDING_BITS + DROP_BITS);

/// The largest expected count a [`Barrier`] or [`Latch`] takes.
pub const MAX_EXPECTED: u32 = FIELD as u32;

fn pending(w: Value) -> u32 {
    (w & FIELD) as u32
}
fn drops(w: Value) -> u32 {
    ((w >> PENDING_BITS) & FIELD) as u32
}
fn phase(w: Value) -> u32 {
    (w >> (PENDING_BITS + DROP_BITS)) as u32
}

/// `cuda::barrier<scope>` (and `std::barrier`): a barrier whose phases
/// complete when the expected number of arrivals is reached.
///
/// One atomic word at the barrier's scope holds the phase, the arrivals
/// the phase still expects, and how many participants dropped out. An
/// arrival is a release read-modify-write of the word; the last arrival of
/// a phase (the one that brings its expected count to zero) then issues an
/// acquire fence, runs the completion function, starts the next phase with
/// a read-modify-write that resets the expected count (the initial one
/// minus the participants dropped so far), and then publishes the
/// completion on a second word with a release maximum. A wait spins with acquire loads
/// of the second word until the phase of its token is over. So, as the standard
/// says, every arrival of a phase happens before the completion step, and
/// the completion step happens before every wait for that phase returns;
/// arriving does not by itself make other threads' work visible.
///
/// Scope: every operation on the word is at the barrier's scope (seed 001:
/// "as if they were atomic operations"), so under `src11` a thread outside
/// it is a heterogeneous race, and a block-scope barrier does not order
/// anything for a thread of another block.
pub struct Barrier<F: Fn() = fn()> {
    word: Loc,
    /// Completed phases (a maximum: successive completions publish in any
    /// order). Waiters look only here, not at every arrival.
    done: Loc,
    expected: u32,
    scope: Scope,
    completion: F,
    born: rt::Born,
}

/// What [`Barrier::arrive`] returns: the phase the arrival counted for, to
/// give to [`Barrier::wait`] (`cuda::barrier::arrival_token`).
#[must_use = "an arrival token is waited on with Barrier::wait"]
#[derive(Debug)]
pub struct ArrivalToken {
    phase: u32,
    word: Loc,
}

impl ArrivalToken {
    /// The barrier phase (0 for the first) the arrival counted for.
    pub fn phase(&self) -> u32 {
        self.phase
    }
}

fn no_completion() {}

impl Barrier {
    /// A barrier for `expected` arrivals per phase, at `scope`
    /// (`cuda::barrier<scope> bar(expected)`; `init(&bar, expected)`).
    ///
    /// # Panics
    /// At the caller's line if `expected` is 0 or above [`MAX_EXPECTED`].
    #[track_caller]
    pub fn new(expected: u32, scope: Scope) -> Barrier {
        Barrier::with_completion(expected, scope, no_completion as fn())
    }
}

impl<F: Fn()> Barrier<F> {
    /// A barrier whose phase completion step runs `completion` once per
    /// phase, on the thread whose arrival completed the phase, before any
    /// waiter of that phase is released (`cuda::barrier<scope,
    /// CompletionFunction>`).
    ///
    /// # Panics
    /// As [`Barrier::new`].
    #[track_caller]
    pub fn with_completion(expected: u32, scope: Scope, completion: F) -> Barrier<F> {
        if expected == 0 || expected > MAX_EXPECTED {
            panic!("scopecheck: a cuda::barrier expects 1 to {MAX_EXPECTED} arrivals per phase, not {expected}");
        }
        Barrier {
            word: alloc(expected as Value, LocKind::Atomic),
            done: alloc(0, LocKind::Atomic),
            expected,
            scope,
            completion,
            born: rt::Born::here(),
        }
    }

    /// The barrier's scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The expected count it was made with (`max()` is the same bound).
    pub fn expected(&self) -> u32 {
        self.expected
    }

    /// Counts one arrival in the current phase and returns its token
    /// without waiting (`bar.arrive()`).
    #[track_caller]
    pub fn arrive(&self) -> ArrivalToken {
        self.arrive_n(1)
    }

    /// Counts `update` arrivals in the current phase (`bar.arrive(update)`).
    ///
    /// # Panics
    /// At the caller's line if `update` is 0 or more than the phase still
    /// expects (undefined behaviour in C++).
    #[track_caller]
    pub fn arrive_n(&self, update: u32) -> ArrivalToken {
        if update == 0 {
            panic!("scopecheck: cuda::barrier::arrive(update) needs update > 0");
        }
        self.arrive_at(update, false, SourceLoc::caller())
    }

    /// Leaves the barrier: the expected count of every later phase is one
    /// less, and this call counts as one arrival in the current phase
    /// (`bar.arrive_and_drop()`). It does not wait.
    #[track_caller]
    pub fn arrive_and_drop(&self) {
        let _ = self.arrive_at(1, true, SourceLoc::caller());
    }

    /// Arrives and waits for the phase to complete (`bar.arrive_and_wait()`).
    #[track_caller]
    pub fn arrive_and_wait(&self) {
        let src = SourceLoc::caller();
        let token = self.arrive_at(1, false, src);
        self.wait_at(token, src);
    }

    /// Waits until the phase `token` counted for has completed
    /// (`bar.wait(std::move(token))`): everything every arrival of that
    /// phase did before arriving happens before this returns.
    ///
    /// # Panics
    /// At the caller's line if the token comes from another barrier, or if
    /// its phase is neither the current nor the previous one (undefined
    /// behaviour in C++).
    #[track_caller]
    pub fn wait(&self, token: ArrivalToken) {
        self.wait_at(token, SourceLoc::caller())
    }

    fn arrive_at(&self, update: u32, drop: bool, src: SourceLoc) -> ArrivalToken {
        self.born.check("a cuda::barrier");
        let add = if drop { DROP_ONE } else { 0 };
        // One read-modify-write: add the drop and take the arrivals, on the
        // fields (the pending field never borrows: checked below before
        // anything else looks at the word).
        let old = fetch(
            self.word,
            RmwOp::Add(add.wrapping_sub(update as Value)),
            Order::Release,
            self.scope,
            src,
        );
        let left = pending(old);
        if update > left {
            panic!(
                "scopecheck: cuda::barrier::arrive: {update} arrival(s) in phase {} of a barrier that expects only \
                 {left} more in this phase (more arrivals than the expected count is undefined behaviour; a \
                 thread arriving again must first wait for the phase to complete)",
                phase(old)
            );
        }
        if update == left {
            // The phase completes with this arrival: acquire what every
            // arrival released (they head the release sequence this
            // read-modify-write continues), run the completion step, and
            // start the next phase.
            fence(Order::Acquire, self.scope, src);
            (self.completion)();
            let dropped = drops(old) + drop as u32;
            let next = self.expected.saturating_sub(dropped) as Value;
            fetch(self.word, RmwOp::Add(PHASE_ONE + next), Order::Release, self.scope, src);
            // Published only after the reset: a waiter released by it may
            // arrive again at once, and must find the next phase's count.
            // (Phases are counted in 24 bits; 2^24 phases of one barrier in
            // one execution would exceed any step bound long before.)
            let completed = phase(old) as Value + 1;
            fetch(self.done, RmwOp::Max(completed), Order::Release, self.scope, src);
        }
        ArrivalToken {
            phase: phase(old),
            word: self.word,
        }
    }

    #[track_caller]
    fn wait_at(&self, token: ArrivalToken, src: SourceLoc) {
        self.born.check("a cuda::barrier");
        if token.word != self.word {
            panic!("scopecheck: cuda::barrier::wait was given an arrival token of another barrier");
        }
        loop {
            let done = load(self.done, Order::Acquire, self.scope, src);
            let want = token.phase as Value + 1;
            if done == want {
                return;
            }
            if done > want {
                panic!(
                    "scopecheck: cuda::barrier::wait on a token of phase {}, but phase {} is already complete (a \
                     token must be of the current or the previous phase)",
                    token.phase,
                    done - 1
                );
            }
            rt::spin_on("a cuda::barrier");
        }
    }
}

impl<F: Fn()> std::fmt::Debug for Barrier<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Barrier")
            .field("expected", &self.expected)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------
// cuda::latch

/// `cuda::latch<scope>` (and `std::latch`): a single-use countdown. Its
/// counter is an atomic word at the latch's scope; `count_down` is a
/// release subtraction and the waits are acquire loads, so every count_down
/// happens before every wait that sees the counter at zero.
pub struct Latch {
    word: Loc,
    scope: Scope,
    born: rt::Born,
}

impl Latch {
    /// A latch expecting `expected` count-downs, at `scope`.
    ///
    /// # Panics
    /// At the caller's line if `expected` is above [`MAX_EXPECTED`].
    #[track_caller]
    pub fn new(expected: u32, scope: Scope) -> Latch {
        if expected > MAX_EXPECTED {
            panic!("scopecheck: a cuda::latch counts at most {MAX_EXPECTED}, not {expected}");
        }
        Latch {
            word: alloc(expected as Value, LocKind::Atomic),
            scope,
            born: rt::Born::here(),
        }
    }

    /// The latch's scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Decrements the counter by `n` without waiting (`count_down(n)`).
    ///
    /// # Panics
    /// At the caller's line if the counter would go below zero (undefined
    /// behaviour in C++).
    #[track_caller]
    pub fn count_down(&self, n: u32) {
        self.count_down_at(n, SourceLoc::caller());
    }

    fn count_down_at(&self, n: u32, src: SourceLoc) {
        self.born.check("a cuda::latch");
        let old = fetch(self.word, RmwOp::Sub(n as Value), Order::Release, self.scope, src);
        if (n as Value) > old {
            panic!(
                "scopecheck: cuda::latch::count_down({n}) on a latch whose counter is {old}: it would go below zero"
            );
        }
    }

    /// Whether the counter has reached zero (`try_wait()`); a `true`
    /// synchronizes with every count-down. It may read an older counter
    /// and answer `false`, as the standard allows.
    #[track_caller]
    pub fn try_wait(&self) -> bool {
        self.born.check("a cuda::latch");
        load(self.word, Order::Acquire, self.scope, SourceLoc::caller()) == 0
    }

    /// Waits until the counter is zero (`wait()`).
    #[track_caller]
    pub fn wait(&self) {
        self.wait_at(SourceLoc::caller());
    }

    /// Counts down by `n` and waits (`arrive_and_wait(n)`).
    #[track_caller]
    pub fn arrive_and_wait(&self, n: u32) {
        let src = SourceLoc::caller();
        self.count_down_at(n, src);
        self.wait_at(src);
    }

    #[track_caller]
    fn wait_at(&self, src: SourceLoc) {
        self.born.check("a cuda::latch");
        while load(self.word, Order::Acquire, self.scope, src) != 0 {
            rt::spin_on("a cuda::latch");
        }
    }
}

impl std::fmt::Debug for Latch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Latch")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------
// cuda::counting_semaphore

/// `cuda::counting_semaphore<scope, MAX>` (and `std::counting_semaphore`):
/// a counter of permits at the semaphore's scope. `release` is a release
/// addition; `acquire` waits for a positive counter and takes a permit with
/// an acquire compare-exchange, so a release happens before the acquire
/// that takes the permit it added (and, by the release sequence, every
/// acquire that reads a later counter).
pub struct CountingSemaphore<const MAX: u32> {
    word: Loc,
    scope: Scope,
    born: rt::Born,
}

/// `cuda::binary_semaphore<scope>`: a counting semaphore with at most one permit.
pub type BinarySemaphore = CountingSemaphore<1>;

impl<const MAX: u32> CountingSemaphore<MAX> {
    /// A semaphore holding `desired` permits, at `scope`.
    ///
    /// # Panics
    /// At the caller's line if `desired` is above `MAX`.
    #[track_caller]
    pub fn new(desired: u32, scope: Scope) -> Self {
        if desired > MAX {
            panic!("scopecheck: a counting_semaphore<{MAX}> cannot start with {desired} permits");
        }
        CountingSemaphore {
            word: alloc(desired as Value, LocKind::Atomic),
            scope,
            born: rt::Born::here(),
        }
    }

    /// The most permits it may hold (`max()`).
    pub const fn max() -> u32 {
        MAX
    }

    /// The semaphore's scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Adds one permit (`release()`).
    #[track_caller]
    pub fn release(&self) {
        self.release_at(1, SourceLoc::caller());
    }

    /// Adds `update` permits (`release(update)`).
    ///
    /// # Panics
    /// At the caller's line if the counter would exceed `MAX` (undefined
    /// behaviour in C++).
    #[track_caller]
    pub fn release_n(&self, update: u32) {
        self.release_at(update, SourceLoc::caller());
    }

    fn release_at(&self, update: u32, src: SourceLoc) {
        self.born.check("a counting_semaphore");
        let old = fetch(self.word, RmwOp::Add(update as Value), Order::Release, self.scope, src);
        if old + update as Value > MAX as Value {
            panic!(
                "scopecheck: counting_semaphore<{MAX}>::release({update}) with {old} permits held: the counter \
                 would exceed its maximum {MAX}"
            );
        }
    }

    /// Waits for a permit and takes it (`acquire()`).
    #[track_caller]
    pub fn acquire(&self) {
        self.born.check("a counting_semaphore");
        let src = SourceLoc::caller();
        let mut seen = load(self.word, Order::Relaxed, self.scope, src);
        loop {
            if seen == 0 {
                rt::spin_on("a counting_semaphore");
                seen = load(self.word, Order::Relaxed, self.scope, src);
                continue;
            }
            match cas(self.word, seen, seen - 1, Order::Acquire, self.scope, src) {
                Ok(_) => return,
                // Another thread changed the counter meanwhile: look again
                // at what the exchange read.
                Err(now) => seen = now,
            }
        }
    }

    /// Takes a permit if it sees one, without waiting (`try_acquire()`).
    /// It fails only when it reads a counter of zero (which may be an older
    /// counter than the latest: the standard allows failing then, and
    /// libcu++ fails no other way).
    #[track_caller]
    pub fn try_acquire(&self) -> bool {
        self.born.check("a counting_semaphore");
        let src = SourceLoc::caller();
        let mut seen = load(self.word, Order::Relaxed, self.scope, src);
        while seen != 0 {
            match cas(self.word, seen, seen - 1, Order::Acquire, self.scope, src) {
                Ok(_) => return true,
                Err(now) => seen = now,
            }
        }
        false
    }
}

impl<const MAX: u32> std::fmt::Debug for CountingSemaphore<MAX> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountingSemaphore")
            .field("max", &MAX)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}
