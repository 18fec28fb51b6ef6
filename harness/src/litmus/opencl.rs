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
/// locations are allocated by thread 0 in `layout` order, with a note for
/// each location that threads declare differently.
///
/// A location's region comes from the thread parameters that name it:
/// `global` or `local`, or generic with no qualifier; its type is non-atomic
/// unless declared `atomic_*`. A location no parameter names is generic.
///
/// Threads may declare one location differently (`global atomic_int* y` in
/// P0, `volatile global int* y` in P1, or `global` in one and `local` in
/// another). Each access stays atomic or non-atomic as written, whatever
/// the declarations; the location's region and type, which the model reads
/// from its initial write (Dat3M's `opencl.cat` takes both from the initial
/// write's tags), are those of its last declaration in the file (threads in
/// file order, parameters left to right): Dat3M's front end gives the
/// location each declaration in turn, so the last one stays.
pub fn env_of(test: &Test, layout: &Layout, file: &'static str) -> (OpenClEnv, Vec<String>) {
    // Every declaration of each location, in file order.
    let mut declared: HashMap<&str, Vec<(LocInfo, u32)>> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    for t in &test.threads {
        for p in &t.params {
            let decls = declared.entry(p.name.as_str()).or_insert_with(|| {
                names.push(p.name.as_str());
                Vec::new()
            });
            decls.push((info_of(&p.ty), t.index));
        }
    }
    let last = |name: &str| {
        declared[name]
            .last()
            .copied()
            .expect("a declared name has a declaration")
    };
    let mut notes = Vec::new();
    for name in names {
        let (info, thread) = last(name);
        if let Some(&(other, at)) = declared[name].iter().find(|(i, _)| *i != info) {
            notes.push(format!(
                "P{at} declares `{name}` as {} and P{thread} as {}: the opencl model gives the location its last \
                 declaration's region and type, as Dat3M does; each access stays atomic or non-atomic as written",
                describe(other),
                describe(info)
            ));
        }
    }
    let mut env = OpenClEnv::default();
    let mut seq = 0;
    for (name, len) in &layout.names {
        for _ in 0..*len {
            if declared.contains_key(name.as_str()) {
                env.locs.insert(Loc::new(0, seq), last(name).0);
            }
            seq += 1;
        }
    }
    for t in &test.threads {
        fences(&t.body, file, &mut env.fences);
    }
    (env, notes)
}

/// The region and type a parameter declares.
fn info_of(ty: &Type) -> LocInfo {
    LocInfo {
        region: match ty.space {
            Some(AddressSpace::Global) => Region::Global,
            Some(AddressSpace::Local) => Region::Local,
            None => Region::Generic,
        },
        non_atomic: !ty.atomic,
    }
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
