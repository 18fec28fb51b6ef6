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
use scopecheck_checker::failure::FailureKind;
pub use scopecheck_checker::space::{FenceSpace, Space};

pub use crate::gpu_alloc::{alloc_in, alloc_on_device, MemAtomic};
pub use crate::gpu_sync::{ArrivalToken, Barrier, BinarySemaphore, CountingSemaphore, Latch, MAX_EXPECTED};
pub use crate::rt::records::{record, Outcome};
pub use crate::typed::{Arithmetic, Bitwise, MinMax};
pub use crate::value::{AtomicValue, ValueKind};
pub use scopecheck_checker::memory::{DeviceAttributes, MemoryKind, Platform};
pub use scopecheck_checker::progress::{Guarantee, Progress};

/// A 1-, 2- or 3-dimensional extent or index (CUDA's `dim3`). `5`, `(4, 2)`
/// and `(4, 2, 3)` convert into one; missing dimensions are 1 (extents) or
/// 0 (indices).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The fastest-varying dimension.
    pub x: u32,
    /// The second dimension.
    pub y: u32,
    /// The slowest-varying dimension.
    pub z: u32,
}

impl Dim3 {
    /// An extent or index with all three dimensions.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// The number of points of an extent (`x * y * z`).
    pub fn count(self) -> u32 {
        self.x * self.y * self.z
    }

    /// The index at linear position `i` of extent `self`, x fastest (CUDA's
    /// order: `i = x + y * dim.x + z * dim.x * dim.y`).
    fn unlinear(self, i: u32) -> Dim3 {
        Dim3 {
            x: i % self.x,
            y: i / self.x % self.y,
            z: i / (self.x * self.y),
        }
    }

    /// The linear position of index `at` in extent `self`.
    fn linear(self, at: Dim3) -> u32 {
        at.x + at.y * self.x + at.z * self.x * self.y
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3 { x, y, z }
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// The shape of a launch: a `grid` of blocks of `block` threads (each 1-,
/// 2- or 3-dimensional), in warps of `warp_size`, on device `device`, its
/// blocks grouped into clusters of `cluster` blocks, in memory
/// synchronization domain `domain`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks in the grid (`gridDim`).
    pub grid: Dim3,
    /// Threads per block (`blockDim`).
    pub block: Dim3,
    /// Threads per warp (32 on NVIDIA hardware; a sub-group size in SYCL).
    pub warp_size: u32,
    /// The device the kernel runs on.
    pub device: u32,
    /// Blocks per cluster (`__cluster_dims__`, `cudaLaunchAttributeClusterDimension`);
    /// (1, 1, 1): no clusters, every block is its own.
    pub cluster: Dim3,
    /// The memory synchronization domain (`cudaLaunchAttributeMemSyncDomain`):
    /// device-scope operations relate only threads of one domain.
    pub domain: u32,
}

impl Launch {
    /// `grid` blocks of `block` threads on device 0, warps of 32, no
    /// clusters, domain 0. `Launch::new(4, 64)` is one-dimensional;
    /// `Launch::new((gx, gy, gz), (bx, by, bz))` is a 3-D launch (CUDA's
    /// `<<<dim3(gx, gy, gz), dim3(bx, by, bz)>>>`).
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Launch {
        Launch {
            grid: grid.into(),
            block: block.into(),
            warp_size: 32,
            device: 0,
            cluster: Dim3::new(1, 1, 1),
            domain: 0,
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

    /// The same launch with its blocks grouped into clusters of `cluster`
    /// blocks (each grid dimension must be a multiple of the cluster's).
    pub fn cluster(self, cluster: impl Into<Dim3>) -> Launch {
        Launch {
            cluster: cluster.into(),
            ..self
        }
    }

    /// The same launch in memory synchronization domain `domain`.
    pub fn domain(self, domain: u32) -> Launch {
        Launch { domain, ..self }
    }

    /// Clusters in the grid, per dimension.
    fn clusters(&self) -> Dim3 {
        Dim3::new(
            self.grid.x / self.cluster.x,
            self.grid.y / self.cluster.y,
            self.grid.z / self.cluster.z,
        )
    }

    /// The cluster of the block at linear index `b`, and the block's rank in it.
    fn cluster_of(&self, b: u32) -> (u32, u32) {
        let at = self.grid.unlinear(b);
        let c = Dim3::new(at.x / self.cluster.x, at.y / self.cluster.y, at.z / self.cluster.z);
        let r = Dim3::new(at.x % self.cluster.x, at.y % self.cluster.y, at.z % self.cluster.z);
        (self.clusters().linear(c), self.cluster.linear(r))
    }

    /// What is wrong with this shape, if anything.
    fn invalid(&self) -> Option<String> {
        let dims = [self.grid, self.block, self.cluster];
        if dims.iter().any(|d| d.x == 0 || d.y == 0 || d.z == 0) || self.warp_size == 0 {
            return Some(
                "a launch needs at least one block, one thread per block, a warp size, and clusters of at \
                         least one block"
                    .into(),
            );
        }
        if dims
            .iter()
            .any(|d| (d.x as u64) * (d.y as u64) * (d.z as u64) > u32::MAX as u64)
        {
            return Some("the grid, the block or the cluster has more than u32::MAX points".into());
        }
        if (self.grid.count() as u64) * (self.block.count() as u64) > u32::MAX as u64 {
            return Some("the grid has more than u32::MAX threads".into());
        }
        let c = self.cluster;
        if !self.grid.x.is_multiple_of(c.x) || !self.grid.y.is_multiple_of(c.y) || !self.grid.z.is_multiple_of(c.z) {
            return Some(format!(
                "the grid {} is not a whole number of clusters {} (each grid dimension must be a multiple of the \
                 cluster's)",
                self.grid, c
            ));
        }
        None
    }
}

/// What a kernel thread knows about itself, and its barriers.
pub struct ThreadCtx<'k, S> {
    kernel: Loc,
    cfg: Launch,
    block_idx: u32,
    thread_idx: u32,
    cluster_idx: u32,
    cluster_rank: u32,
    shared: &'k S,
}

impl<S> ThreadCtx<'_, S> {
    /// The block's linear index in the grid (`blockIdx.x` in a 1-D launch;
    /// `x + y * gridDim.x + z * gridDim.x * gridDim.y` in general).
    pub fn block_idx(&self) -> u32 {
        self.block_idx
    }

    /// The thread's linear index in its block (`threadIdx.x` in a 1-D
    /// launch; `x + y * blockDim.x + z * blockDim.x * blockDim.y` in general).
    pub fn thread_idx(&self) -> u32 {
        self.thread_idx
    }

    /// Threads per block (`blockDim.x` in a 1-D launch; all of them in general).
    pub fn block_dim(&self) -> u32 {
        self.cfg.block.count()
    }

    /// Blocks in the grid (`gridDim.x` in a 1-D launch; all of them in general).
    pub fn grid_dim(&self) -> u32 {
        self.cfg.grid.count()
    }

    /// The block's index (`blockIdx`: `.x`, `.y`, `.z`).
    pub fn block_idx_3d(&self) -> Dim3 {
        self.cfg.grid.unlinear(self.block_idx)
    }

    /// The thread's index in its block (`threadIdx`).
    pub fn thread_idx_3d(&self) -> Dim3 {
        self.cfg.block.unlinear(self.thread_idx)
    }

    /// The block's extent (`blockDim`).
    pub fn block_dim_3d(&self) -> Dim3 {
        self.cfg.block
    }

    /// The grid's extent (`gridDim`).
    pub fn grid_dim_3d(&self) -> Dim3 {
        self.cfg.grid
    }

    /// The thread's linear index in the whole grid.
    pub fn global_idx(&self) -> u32 {
        self.block_idx * self.cfg.block.count() + self.thread_idx
    }

    /// The thread's warp within its block (its linear index / the warp size).
    pub fn warp(&self) -> u32 {
        self.thread_idx / self.cfg.warp_size
    }

    /// The thread's lane within its warp.
    pub fn lane(&self) -> u32 {
        self.thread_idx % self.cfg.warp_size
    }

    /// The block's cluster: its linear index in the grid of clusters
    /// (`cluster.block_index()`'s cluster; the block index without clusters).
    pub fn cluster_idx(&self) -> u32 {
        self.cluster_idx
    }

    /// The block's rank within its cluster (`cluster.block_rank()`).
    pub fn cluster_rank(&self) -> u32 {
        self.cluster_rank
    }

    /// Blocks per cluster (`cluster.dim_blocks()`).
    pub fn cluster_dim_3d(&self) -> Dim3 {
        self.cfg.cluster
    }

    /// The launch's memory synchronization domain.
    pub fn domain(&self) -> u32 {
        self.cfg.domain
    }

    /// This block's shared state (CUDA `__shared__`, SYCL local memory):
    /// one instance per block.
    pub fn shared(&self) -> &S {
        self.shared
    }

    #[allow(clippy::too_many_arguments)]
    fn group_barrier(&self, level: Scope, index: u32, lanes: u64, size: u32, fence: FenceSpace, src: SourceLoc) {
        rt::op_at(
            Op::Barrier {
                group: BarrierGroup {
                    kernel: self.kernel,
                    level,
                    index,
                    lanes,
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
        let size = self.cfg.block.count();
        self.group_barrier(Scope::Block, self.block_idx, 0, size, fence, SourceLoc::caller());
    }

    /// The threads of this thread's warp that exist (a block's last warp
    /// may be partial), as a lane mask.
    fn warp_lanes(&self) -> u64 {
        let start = self.warp() * self.cfg.warp_size;
        let n = self.cfg.warp_size.min(self.cfg.block.count() - start);
        if n >= 64 {
            u64::MAX
        } else {
            (1u64 << n) - 1
        }
    }

    fn warp_index(&self) -> u32 {
        self.block_idx * self.cfg.block.count().div_ceil(self.cfg.warp_size) + self.warp()
    }

    /// Waits until every thread of the warp arrives (`__syncwarp()`).
    #[track_caller]
    pub fn sync_warp(&self) {
        let start = self.warp() * self.cfg.warp_size;
        let size = self.cfg.warp_size.min(self.cfg.block.count() - start);
        let index = self.warp_index();
        self.group_barrier(Scope::Warp, index, 0, size, FenceSpace::Both, SourceLoc::caller());
    }

    /// Waits until every lane named in `mask` arrives at a
    /// `sync_warp_mask` with the same mask (`__syncwarp(mask)`): everything
    /// each of them did before happens before everything any of them does
    /// after. Lanes beyond the end of a partial warp are left out of the
    /// mask. A thread whose own lane is not in the mask, and lanes that
    /// wait with different masks (each waits for lanes that never come),
    /// are reported as barrier divergence, at the call.
    ///
    /// Needs a warp size of at most 64 (a mask has a bit per lane).
    #[track_caller]
    pub fn sync_warp_mask(&self, mask: u64) {
        self.partial_warp_barrier(mask, "__syncwarp", SourceLoc::caller());
    }

    /// Waits for the other threads of this thread's tile of `size`
    /// consecutive threads of the warp (cooperative groups'
    /// `tiled_partition<size>(block).sync()`, a SYCL sub-group split): a
    /// partial warp barrier on the tile's lanes. `size` must be a power of
    /// two no larger than the warp size (and at most 64).
    #[track_caller]
    pub fn sync_tile(&self, size: u32) {
        let src = SourceLoc::caller();
        if !size.is_power_of_two() || size > self.cfg.warp_size || size > 64 {
            panic!(
                "scopecheck: a tile has a power-of-two size no larger than the warp size ({}) and 64, not {size}",
                self.cfg.warp_size
            );
        }
        let ones = if size == 64 { u64::MAX } else { (1u64 << size) - 1 };
        let first = self.lane() / size * size;
        self.partial_warp_barrier(ones << first, "a tile's sync", src);
    }

    fn partial_warp_barrier(&self, mask: u64, what: &str, src: SourceLoc) {
        if self.cfg.warp_size > 64 {
            panic!(
                "scopecheck: {what} names lanes by a 64-bit mask, and this launch's warps have {} lanes",
                self.cfg.warp_size
            );
        }
        let lane = self.lane();
        if mask >> lane & 1 == 0 {
            rt::fail(
                FailureKind::BarrierDivergence,
                format!(
                    "barrier divergence in warp {} of kernel {}: lane {lane} (thread {} of block {}) calls {what} \
                     with mask {mask:#x}, which does not name its own lane",
                    self.warp_index(),
                    self.kernel,
                    self.thread_idx,
                    self.block_idx
                ),
                Some(
                    "a thread calling __syncwarp(mask) must have its own bit set in the mask, and every lane the \
                     mask names must call it with the same mask"
                        .into(),
                ),
                src,
            );
        }
        let lanes = mask & self.warp_lanes();
        self.group_barrier(
            Scope::Warp,
            self.warp_index(),
            lanes,
            lanes.count_ones(),
            FenceSpace::Both,
            src,
        );
    }

    /// Waits until every thread of the block's cluster arrives
    /// (`cooperative_groups::this_cluster().sync()`,
    /// `barrier.cluster.arrive` + `wait`): everything each of them did
    /// before happens before everything any of them does after. Without
    /// clusters it is a block barrier.
    #[track_caller]
    pub fn sync_cluster(&self) {
        let size = self.cfg.cluster.count() * self.cfg.block.count();
        self.group_barrier(
            Scope::Cluster,
            self.cluster_idx,
            0,
            size,
            FenceSpace::Both,
            SourceLoc::caller(),
        );
    }

    /// Waits until every thread of the grid arrives (a cooperative launch's
    /// `grid.sync()`).
    #[track_caller]
    pub fn sync_grid(&self) {
        self.group_barrier(
            Scope::Device,
            0,
            0,
            self.cfg.grid.count() * self.cfg.block.count(),
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
    if let Some(why) = cfg.invalid() {
        panic!("scopecheck: {why}, got {cfg:?}");
    }
    // A location names this kernel run, so barrier groups of two launches differ.
    let kernel_id = crate::raw_atomic::alloc(0, LocKind::Cell);
    let states: Vec<S> = (0..cfg.grid.count()).map(&shared).collect();
    let kernel = &kernel;
    thread::scope(|s| {
        let mut blocks = Vec::with_capacity(cfg.grid.count() as usize);
        for (b, state) in states.iter().enumerate() {
            let b = b as u32;
            let (cluster_idx, cluster_rank) = cfg.cluster_of(b);
            let mut ids = Vec::with_capacity(cfg.block.count() as usize);
            for t in 0..cfg.block.count() {
                let ctx = ThreadCtx {
                    kernel: kernel_id,
                    cfg,
                    block_idx: b,
                    thread_idx: t,
                    cluster_idx,
                    cluster_rank,
                    shared: state,
                };
                let place = Placement::gpu(cfg.device, b, t / cfg.warp_size, t % cfg.warp_size)
                    .in_cluster(cluster_idx)
                    .in_domain(cfg.domain);
                ids.push(s.spawn_at(place, move || kernel(&ctx)).thread().id().0);
            }
            blocks.push(ids);
        }
        // Before any kernel thread runs: the progress model dispatches blocks.
        rt::register_kernel(cfg.device, blocks);
    });
}
