//! The OpenCL side table: what the `opencl` model needs to know about a
//! litmus test that the engine's events do not carry (docs/opencl-model.md
//! section 2): the memory region and declared atomicity of each location,
//! and the flags of each fence and barrier.

use super::ast::*;
use super::interp::Layout;
use scopecheck_checker::event::{Loc, SourceLoc};
use scopecheck_checker::model::opencl::{FenceInfo, LocInfo, OpenClEnv, Region};
use std::collections::HashMap;

/// Builds the side table of `test`, whose events come from `file` and whose
/// locations are allocated by thread 0 in `layout` order.
///
/// A location's region comes from the thread parameters that name it:
/// `global` or `local`, or generic with no qualifier; its type is non-atomic
/// unless declared `atomic_*`. A location no parameter names is generic.
/// Two parameters that declare one location differently are an error
/// (Dat3M silently keeps the last one).
pub fn env_of(test: &Test, layout: &Layout, file: &'static str) -> Result<OpenClEnv, (Pos, String)> {
    let mut declared: HashMap<&str, (LocInfo, Pos, u32)> = HashMap::new();
    for t in &test.threads {
        for p in &t.params {
            let info = LocInfo {
                region: match p.ty.space {
                    Some(AddressSpace::Global) => Region::Global,
                    Some(AddressSpace::Local) => Region::Local,
                    None => Region::Generic,
                },
                non_atomic: !p.ty.atomic,
            };
            match declared.get(p.name.as_str()) {
                Some((other, at, thread)) if *other != info => {
                    return Err((
                        p.pos,
                        format!(
                            "P{} declares `{}` as {} but P{thread} declares it as {} (at {at}); the opencl model \
                             needs one region and one type per location",
                            t.index,
                            p.name,
                            describe(info),
                            describe(*other)
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    declared.insert(&p.name, (info, p.pos, t.index));
                }
            }
        }
    }
    let mut env = OpenClEnv::default();
    let mut seq = 0;
    for (name, len) in &layout.names {
        for _ in 0..*len {
            if let Some((info, _, _)) = declared.get(name.as_str()) {
                env.locs.insert(Loc::new(0, seq), *info);
            }
            seq += 1;
        }
    }
    for t in &test.threads {
        fences(&t.body, file, &mut env.fences);
    }
    Ok(env)
}

fn describe(i: LocInfo) -> String {
    let region = match i.region {
        Region::Global => "global",
        Region::Local => "local",
        Region::Generic => "generic (no address space)",
    };
    format!("{region} {}", if i.non_atomic { "non-atomic" } else { "atomic" })
}

/// Records the flags of every fence and barrier in `body`, by source position.
fn fences(body: &[Stmt], file: &'static str, out: &mut HashMap<SourceLoc, FenceInfo>) {
    for s in body {
        let at = SourceLoc {
            file,
            line: s.pos.line,
            column: s.pos.col,
        };
        let has = |flags: &[MemFlag], f: MemFlag| flags.contains(&f);
        match &s.kind {
            // A C11 `atomic_thread_fence` (no flags) fences global memory (Dat3M).
            StmtKind::Fence { flags, .. } => {
                let info = FenceInfo {
                    global: flags.is_empty() || has(flags, MemFlag::Global),
                    local: has(flags, MemFlag::Local),
                    barrier: None,
                };
                out.insert(at, info);
            }
            StmtKind::Barrier { label, flags, .. } => {
                let info = FenceInfo {
                    global: has(flags, MemFlag::Global),
                    local: has(flags, MemFlag::Local),
                    barrier: Some(label.clone().unwrap_or_default()),
                };
                out.insert(at, info);
            }
            StmtKind::If { then, els, .. } => {
                fences(then, file, out);
                fences(els, file, out);
            }
            StmtKind::While { body, .. } | StmtKind::Block(body) => fences(body, file, out),
            _ => {}
        }
    }
}
