//! Thread placement and memory scopes (docs/semantics.md §1).
//!
//! Every thread has a placement: a host thread is placed only in the system;
//! a GPU thread has a device, block, warp and lane. A scope names the group
//! of threads around the acting thread that an operation is atomic and
//! synchronizing for. Scope S of an operation by thread t *includes* thread
//! u iff u is in t's S-group; two operations are *mutually scope-inclusive*
//! iff each one's scope includes the other's thread.

use crate::ids::ThreadId;
use std::fmt;

/// A memory scope, from the narrowest to the widest.
///
/// Aliases: `Thread` is SYCL's and OpenCL's work-item and PTX's thread;
/// `Warp` is SYCL's sub-group, Vulkan's subgroup and OpenCL's sub_group;
/// `Block` is CUDA's block, SYCL's work-group, Vulkan's workgroup and PTX's
/// CTA; `Cluster` is CUDA's thread block cluster (`thread_scope_cluster`,
/// PTX's cluster: the blocks a launch groups together); `Device` is the GPU
/// (Vulkan's queue family, PTX's gpu) within one memory synchronization
/// domain; `System` is every thread of every device and the host (OpenCL's
/// all_svm_devices).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Scope {
    /// Only the acting thread.
    Thread,
    /// The acting thread's warp.
    Warp,
    /// The acting thread's block.
    Block,
    /// The acting thread's block cluster (its block when the launch has no
    /// clusters).
    Cluster,
    /// The acting thread's device, within its memory synchronization domain.
    Device,
    /// Everything.
    #[default]
    System,
}

impl Scope {
    /// Every scope, narrowest first.
    pub const ALL: [Scope; 6] = [
        Scope::Thread,
        Scope::Warp,
        Scope::Block,
        Scope::Cluster,
        Scope::Device,
        Scope::System,
    ];

    /// The scope's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Thread => "thread",
            Scope::Warp => "warp",
            Scope::Block => "block",
            Scope::Cluster => "cluster",
            Scope::Device => "device",
            Scope::System => "system",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a GPU thread runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuPlace {
    /// Device index.
    pub device: u32,
    /// Block index within the device.
    pub block: u32,
    /// Warp index within the block.
    pub warp: u32,
    /// Lane within the warp.
    pub lane: u32,
    /// The block's cluster within the device (by default the block's own
    /// index: every block is a cluster of one).
    pub cluster: u32,
    /// The memory synchronization domain the thread's launch chose (0 by
    /// default): device scope relates only threads of one domain.
    pub domain: u32,
}

/// Where a thread runs: on the host, or at a place on a GPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Placement {
    /// `None` for a host thread.
    pub gpu: Option<GpuPlace>,
}

impl Placement {
    /// A host thread.
    pub const HOST: Placement = Placement { gpu: None };

    /// A GPU thread, its block a cluster of its own, in domain 0.
    pub fn gpu(device: u32, block: u32, warp: u32, lane: u32) -> Placement {
        Placement {
            gpu: Some(GpuPlace {
                device,
                block,
                warp,
                lane,
                cluster: block,
                domain: 0,
            }),
        }
    }

    /// The same GPU placement with its block in cluster `cluster` (a block
    /// cluster: cluster scope and cluster barriers relate the blocks of one
    /// cluster). A host placement is returned unchanged.
    pub fn in_cluster(mut self, cluster: u32) -> Placement {
        if let Some(g) = &mut self.gpu {
            g.cluster = cluster;
        }
        self
    }

    /// The same GPU placement in memory synchronization domain `domain`
    /// (seed 001: device scope relates the GPU threads of one device
    /// *within the same domain*). A host placement is returned unchanged.
    pub fn in_domain(mut self, domain: u32) -> Placement {
        if let Some(g) = &mut self.gpu {
            g.domain = domain;
        }
        self
    }

    /// Whether thread `u` placed at `other` is in the `scope`-group of
    /// thread `t` placed here.
    pub fn includes(&self, t: ThreadId, scope: Scope, other: &Placement, u: ThreadId) -> bool {
        if t == u || scope == Scope::System {
            return true;
        }
        match (self.gpu, other.gpu) {
            // A warp, block or cluster lies inside one launch, so inside one
            // memory synchronization domain: threads of two domains share
            // none (their block indices may coincide, being of two launches).
            (Some(a), Some(b)) if scope < Scope::Device && a.domain != b.domain => false,
            (Some(a), Some(b)) => match scope {
                Scope::Thread => false,
                Scope::Warp => a.device == b.device && a.block == b.block && a.warp == b.warp,
                Scope::Block => a.device == b.device && a.block == b.block,
                Scope::Cluster => a.device == b.device && a.cluster == b.cluster,
                // Seed 001: "in the same CUDA device and within the same
                // memory synchronization domain".
                Scope::Device => a.device == b.device && a.domain == b.domain,
                Scope::System => true,
            },
            // A host thread's groups below system hold only itself, and no
            // GPU group holds a host thread.
            _ => false,
        }
    }

    /// The narrowest scope whose group around this thread (`t`) holds `u`.
    pub fn narrowest_reaching(&self, t: ThreadId, other: &Placement, u: ThreadId) -> Scope {
        Scope::ALL
            .into_iter()
            .find(|&s| self.includes(t, s, other, u))
            .unwrap_or(Scope::System)
    }

    /// Describes the placement for reports: `host` or `(device 0, block 1,
    /// warp 0, lane 3)`, with `cluster c` when the block is in a cluster of
    /// several blocks and `domain d` outside domain 0.
    pub fn describe(&self) -> String {
        match self.gpu {
            None => "host".into(),
            Some(g) => {
                let mut s = format!("(device {}", g.device);
                if g.domain != 0 {
                    s += &format!(", domain {}", g.domain);
                }
                if g.cluster != g.block {
                    s += &format!(", cluster {}", g.cluster);
                }
                s + &format!(", block {}, warp {}, lane {})", g.block, g.warp, g.lane)
            }
        }
    }
}

/// One side of a scope-inclusion question: a thread, its placement, and the
/// scope its operation used.
#[derive(Copy, Clone, Debug)]
pub struct Actor<'a> {
    /// The thread.
    pub thread: ThreadId,
    /// Its placement.
    pub placement: &'a Placement,
    /// The operation's scope.
    pub scope: Scope,
}

/// Whether two operations are mutually scope-inclusive.
pub fn mutually_inclusive(a: Actor<'_>, b: Actor<'_>) -> bool {
    a.placement.includes(a.thread, a.scope, b.placement, b.thread)
        && b.placement.includes(b.thread, b.scope, a.placement, a.thread)
}

/// The narrowest scope that, used by both operations, would make them
/// mutually inclusive (the fix a heterogeneous-race report suggests).
pub fn narrowest_common(a: Actor<'_>, b: Actor<'_>) -> Scope {
    let one = a.placement.narrowest_reaching(a.thread, b.placement, b.thread);
    let two = b.placement.narrowest_reaching(b.thread, a.placement, a.thread);
    one.max(two)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusion_follows_the_hierarchy() {
        let a = Placement::gpu(0, 0, 0, 0);
        let same_warp = Placement::gpu(0, 0, 0, 1);
        let same_block = Placement::gpu(0, 0, 1, 0);
        let other_block = Placement::gpu(0, 1, 0, 0);
        let other_device = Placement::gpu(1, 0, 0, 0);
        let host = Placement::HOST;
        assert!(a.includes(1, Scope::Warp, &same_warp, 2));
        assert!(!a.includes(1, Scope::Warp, &same_block, 2));
        assert!(a.includes(1, Scope::Block, &same_block, 2));
        assert!(!a.includes(1, Scope::Block, &other_block, 2));
        assert!(a.includes(1, Scope::Device, &other_block, 2));
        assert!(!a.includes(1, Scope::Device, &other_device, 2));
        assert!(a.includes(1, Scope::System, &host, 2));
        assert!(!a.includes(1, Scope::Device, &host, 2));
        assert!(!host.includes(2, Scope::Device, &a, 1));
        assert!(
            a.includes(1, Scope::Thread, &a, 1),
            "a thread is always in its own groups"
        );
    }

    #[test]
    fn clusters_sit_between_blocks_and_the_device() {
        let a = Placement::gpu(0, 0, 0, 0).in_cluster(0);
        let same_cluster = Placement::gpu(0, 1, 0, 0).in_cluster(0);
        let other_cluster = Placement::gpu(0, 2, 0, 0).in_cluster(1);
        assert!(!a.includes(1, Scope::Block, &same_cluster, 2));
        assert!(a.includes(1, Scope::Cluster, &same_cluster, 2));
        assert!(!a.includes(1, Scope::Cluster, &other_cluster, 2));
        assert!(a.includes(1, Scope::Device, &other_cluster, 2));
        // Without clusters every block is its own: cluster scope is block scope.
        assert!(!Placement::gpu(0, 0, 0, 0).includes(1, Scope::Cluster, &Placement::gpu(0, 1, 0, 0), 2));
        assert_eq!(
            Scope::ALL
                .iter()
                .filter(|s| **s > Scope::Block && **s < Scope::Device)
                .count(),
            1
        );
    }

    #[test]
    fn device_scope_stays_in_its_domain() {
        let a = Placement::gpu(0, 0, 0, 0);
        let b = Placement::gpu(0, 1, 0, 0).in_domain(1);
        assert!(!a.includes(1, Scope::Device, &b, 2));
        assert!(a.includes(1, Scope::System, &b, 2));
        assert_eq!(
            narrowest_common(
                Actor {
                    thread: 1,
                    placement: &a,
                    scope: Scope::Device
                },
                Actor {
                    thread: 2,
                    placement: &b,
                    scope: Scope::Device
                }
            ),
            Scope::System
        );
        assert_eq!(b.describe(), "(device 0, domain 1, block 1, warp 0, lane 0)");
    }

    #[test]
    fn narrowest_common_scope() {
        let a = Placement::gpu(0, 0, 0, 0);
        let b = Placement::gpu(0, 1, 0, 0);
        let x = Actor {
            thread: 1,
            placement: &a,
            scope: Scope::Block,
        };
        let y = Actor {
            thread: 2,
            placement: &b,
            scope: Scope::Device,
        };
        assert!(!mutually_inclusive(x, y));
        assert_eq!(narrowest_common(x, y), Scope::Device);
        let h = Placement::HOST;
        let z = Actor {
            thread: 3,
            placement: &h,
            scope: Scope::System,
        };
        assert_eq!(narrowest_common(x, z), Scope::System);
    }
}
