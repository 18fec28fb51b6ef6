//! GPU kernels under the checker: a launch runs the kernel closure once per
//! thread of a grid of blocks, each a model thread placed at its (device,
//! block, warp, lane), with block, warp and grid barriers and one instance
//! of per-block shared state per block. The kernel's completion
//! synchronizes with the launching thread, as a stream synchronize would.
//!
//! Memory: [`Buffer`]s in global memory (made by the host) or in a block's
//! local memory (made per block, `|_| Buffer::local(n)`), and barriers that
//! fence the spaces they are given ([`ThreadCtx::barrier`]); see
//! `docs/gpu-memory-spaces.md`.

pub use crate::gpu_memory::{AtomicElement, Buffer};
use crate::rt;
use crate::thread;
use scopecheck_checker::event::{BarrierGroup, Loc, LocKind, Op, Placement, Scope, SourceLoc};
pub use scopecheck_checker::space::{FenceSpace, Space};

pub use crate::gpu_alloc::{alloc_in, alloc_on_device, MemAtomic};
pub use crate::typed::{Arithmetic, Bitwise, MinMax};
pub use crate::value::{AtomicValue, ValueKind};
pub use scopecheck_checker::memory::{DeviceAttributes, MemoryKind, Platform};
pub use scopecheck_checker::progress::Progress;

/// The shape of a launch: `grid` blocks of `block` threads, in warps of
/// `warp_size`, on device `device`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks in the grid.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Threads per warp (32 on NVIDIA hardware; a sub-group size in SYCL).
    pub warp_size: u32,
    /// The device the kernel runs on.
    pub device: u32,
}

impl Launch {
    /// `grid` blocks of `block` threads on device 0, warps of 32.
    pub fn new(grid: u32, block: u32) -> Launch {
        Launch {
            grid,
            block,
            warp_size: 32,
            device: 0,
        }
    }

    /// The same launch with another warp size.
    pub fn warp_size(self, warp_size: u32) -> Launch {
        Launch { warp_size, ..self }
    }

    /// The same launch on another device.
    pub fn device(self, device: u32) -> Launch {
        Launch { device, ..self }
    }
}

/// What a kernel thread knows about itself, and its barriers.
pub struct ThreadCtx<'k, S> {
    kernel: Loc,
    cfg: Launch,
    block_idx: u32,
    thread_idx: u32,
    shared: &'k S,
}

impl<S> ThreadCtx<'_, S> {
    /// The block's index in the grid (`blockIdx.x`).
    pub fn block_idx(&self) -> u32 {
        self.block_idx
    }

    /// The thread's index in its block (`threadIdx.x`).
    pub fn thread_idx(&self) -> u32 {
        self.thread_idx
    }

    /// Threads per block (`blockDim.x`).
    pub fn block_dim(&self) -> u32 {
        self.cfg.block
    }

    /// Blocks in the grid (`gridDim.x`).
    pub fn grid_dim(&self) -> u32 {
        self.cfg.grid
    }

    /// The thread's index in the whole grid.
    pub fn global_idx(&self) -> u32 {
        self.block_idx * self.cfg.block + self.thread_idx
    }

    /// The thread's warp within its block.
    pub fn warp(&self) -> u32 {
        self.thread_idx / self.cfg.warp_size
    }

    /// The thread's lane within its warp.
    pub fn lane(&self) -> u32 {
        self.thread_idx % self.cfg.warp_size
    }

    /// This block's shared state (CUDA `__shared__`, SYCL local memory):
    /// one instance per block.
    pub fn shared(&self) -> &S {
        self.shared
    }

    fn group_barrier(&self, level: Scope, index: u32, size: u32, fence: FenceSpace, src: SourceLoc) {
        rt::op_at(
            Op::Barrier {
                group: BarrierGroup {
                    kernel: self.kernel,
                    level,
                    index,
                },
                size,
                fence,
            },
            src,
        );
    }

    /// Waits until every thread of the block arrives (`__syncthreads()`,
    /// SYCL's `group_barrier` on the work-group): everything each of them
    /// did before happens before everything any of them does after, in
    /// global and local memory alike. A thread that never arrives, or
    /// threads arriving at different barrier calls, is reported as barrier
    /// divergence.
    #[track_caller]
    pub fn sync_threads(&self) {
        self.barrier(FenceSpace::Both);
    }

    /// A work-group barrier that orders only the memory spaces `fence`
    /// names (SYCL's `item.barrier(fence_space)`, OpenCL's
    /// `barrier(CLK_LOCAL_MEM_FENCE)`): with `FenceSpace::Local`, local
    /// memory written before it is seen after it by the whole block, but a
    /// global-memory handoff across it is still a data race. Divergence is
    /// reported as for [`ThreadCtx::sync_threads`]; threads meeting at the
    /// same call with different fences diverge too.
    #[track_caller]
    pub fn barrier(&self, fence: FenceSpace) {
        self.group_barrier(Scope::Block, self.block_idx, self.cfg.block, fence, SourceLoc::caller());
    }

    /// Waits until every thread of the warp arrives (`__syncwarp()`).
    #[track_caller]
    pub fn sync_warp(&self) {
        let start = self.warp() * self.cfg.warp_size;
        let size = self.cfg.warp_size.min(self.cfg.block - start);
        let index = self.block_idx * self.cfg.block.div_ceil(self.cfg.warp_size) + self.warp();
        self.group_barrier(Scope::Warp, index, size, FenceSpace::Both, SourceLoc::caller());
    }

    /// Waits until every thread of the grid arrives (a cooperative launch's
    /// `grid.sync()`).
    #[track_caller]
    pub fn sync_grid(&self) {
        self.group_barrier(
            Scope::Device,
            0,
            self.cfg.grid * self.cfg.block,
            FenceSpace::Both,
            SourceLoc::caller(),
        );
    }
}

/// Runs `kernel` once for every thread of `cfg`'s grid and waits for all of
/// them (the kernel's completion happens before `launch` returns). Each
/// block gets its own shared state from `shared(block_index)`, made by the
/// launching thread before the kernel starts.
#[track_caller]
pub fn launch<S, I, K>(cfg: Launch, shared: I, kernel: K)
where
    S: Sync,
    I: Fn(u32) -> S,
    K: Fn(&ThreadCtx<'_, S>) + Sync,
{
    assert!(
        cfg.grid > 0 && cfg.block > 0 && cfg.warp_size > 0,
        "scopecheck: a launch needs at least one block, one thread per block and a warp size, got {cfg:?}"
    );
    // A location names this kernel run, so barrier groups of two launches differ.
    let kernel_id = crate::atomic::alloc(0, LocKind::Cell);
    let states: Vec<S> = (0..cfg.grid).map(&shared).collect();
    let kernel = &kernel;
    thread::scope(|s| {
        let mut blocks = Vec::with_capacity(cfg.grid as usize);
        for (b, state) in states.iter().enumerate() {
            let mut ids = Vec::with_capacity(cfg.block as usize);
            for t in 0..cfg.block {
                let ctx = ThreadCtx {
                    kernel: kernel_id,
                    cfg,
                    block_idx: b as u32,
                    thread_idx: t,
                    shared: state,
                };
                let place = Placement::gpu(cfg.device, b as u32, t / cfg.warp_size, t % cfg.warp_size);
                ids.push(s.spawn_at(place, move || kernel(&ctx)).thread().id().0);
            }
            blocks.push(ids);
        }
        // Before any kernel thread runs: the progress model dispatches blocks.
        rt::register_kernel(cfg.device, blocks);
    });
}
