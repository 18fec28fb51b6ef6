//! The exact execution counts an optimal explorer finds under RC11, where
//! a closed form is known, with their derivations.

use crate::programs::Program;

impl Program {
    /// The exact number of executions an optimal explorer finds under RC11,
    /// where it is known in closed form.
    pub fn expected_rc11_executions(self) -> Option<u64> {
        match self {
            // Each load reads 0 or 1: 4 outcomes; SeqCst forbids (0, 0).
            Program::StoreBuffering { seq_cst: false } => Some(4),
            Program::StoreBuffering { seq_cst: true } => Some(3),
            // Each load reads 0 or 1; release/acquire forbids flag 1, data 0.
            Program::MessagePassing { release_acquire: false } => Some(4),
            Program::MessagePassing { release_acquire: true } => Some(3),
            // Four loads, each 0 or 1; SeqCst forbids the one outcome where
            // the readers see the stores in opposite orders.
            Program::Iriw { seq_cst: false } => Some(16),
            Program::Iriw { seq_cst: true } => Some(15),
            // One execution per modification order of the RMWs: the
            // interleavings of the per-thread sequences, a multinomial.
            Program::FetchAdd { threads, per_thread } => {
                let total = (threads * per_thread) as u64;
                let mut n = factorial(total);
                for _ in 0..threads {
                    n /= factorial(per_thread as u64);
                }
                Some(n)
            }
            Program::CasRotation { n } => Some(cas_rotation_executions(n as u64)),
            // Each reader reads 0 or 1, independently.
            Program::Readers { n } => Some(1 << n),
            Program::LastZero { n } => last_zero_executions(n as u64),
            // One update, two tries (counted by hand). First try: reading
            // sequence 2 (acquire: data 1, 1, then 2 again) succeeds, 1 way;
            // reading 0, data (0, 0) and 0 again succeeds, 1 way; reading 1
            // retries, and the second try (not older: 1 or 2) gives 2 ways.
            // Reading 0 and then failing: data (0, 0) with the second read
            // 1 (2 continuations: 1 or 2) or 2 (1: 2), 3 ways; data with a 1
            // in it (3 pairs; the fences force the second read to 1 or 2),
            // 3 × 3 = 9 ways. Total 1 + 1 + 2 + 3 + 9 = 16.
            Program::Seqlock { writes: 1 } => Some(16),
            Program::Treiber { .. } | Program::Seqlock { .. } => None,
        }
    }
}

pub(crate) fn factorial(n: u64) -> u64 {
    (1..=n).product()
}

/// Executions of the compare-exchange rotation with `n` threads under RC11.
/// The successful CASes form a prefix 1..=k of the threads (thread i can
/// only succeed by reading thread i - 1's value, and RMW atomicity then puts
/// it right after that write in the modification order), and every k from 1
/// to n happens (thread 1 cannot fail when no one else has written). Given
/// k < n, thread k + 1 fails by reading one of the k writes whose value is
/// not k (the initial 0 or threads 1..k-1's), and each later thread fails
/// reading any of the k + 1 writes; failed CASes are plain loads with no
/// constraint between them. So the count is 1 + Σ_{k=1}^{n-1} k (k+1)^(n-1-k)
/// (cas-rot-12: 919146, the published count).
pub fn cas_rotation_executions(n: u64) -> u64 {
    1 + (1..n).map(|k| k * (k + 1).pow((n - 1 - k) as u32)).sum::<u64>()
}

/// Executions of the last-zero search with `n >= 2` writers under RC11.
/// Writer j >= 2 reads `a[j - 1]` from the initial 0 or from writer j - 1
/// (2^(n-1) choices; writer 1 reads the never-written `a[0]`). The scan stops
/// at `a[n]` (reading 0), or at `a[0]`, or at `a[k]` for 1 <= k < n after reading
/// writer k + 1's store, which it then happens-after: reading 0 at `a[k]` is
/// coherent only when writer k + 1 read the initial 0 there, true in half of
/// the writer choices. Total 2·2^(n-1) + (n-1)·2^(n-2) = (n + 3)·2^(n-2)
/// (last-zero-15: 147456, the published count).
pub fn last_zero_executions(n: u64) -> Option<u64> {
    (n >= 2).then(|| (n + 3) << (n - 2))
}
