//! The init block of Dat3M's `PTX` and `Vulkan` litmus tests (`x=0;`,
//! `P0:r0=0;`) and their aliases (`y @ generic aliases x;`, Vulkan's bare
//! `z aliases x`), each resolved to the location at the end of its chain.
//! Split out of `gpu.rs`, which reads the rest of the file's frame.

use super::ast::*;
use super::gpu::{err, is_name, thread_index, Aliases, Cell};
use super::parser::ParseError;
use std::collections::HashMap;

/// The init block: `x=0;`, `P0:r0=0;`, `rd2 @ generic aliases rd1;`.
/// Returns the inits and the alias map (virtual name → physical name).
pub(super) fn init_block(body: &str, at: Pos) -> Result<(Vec<Init>, Aliases), ParseError> {
    let mut inits = Vec::new();
    // Alias name → (its target, whether it is a generic alias, where).
    let mut declared: HashMap<String, (String, bool, Pos)> = HashMap::new();
    let mut off = 0;
    // Entries end at `;` or at a line break (the last one may lack its `;`).
    for raw in body.split([';', '\n']) {
        let mut p = at;
        for ch in body[..off].chars() {
            if ch == '\n' {
                p.line += 1;
                p.col = 1;
            } else {
                p.col += 1;
            }
        }
        off += raw.len() + 1;
        let cell = Cell::of(raw, p);
        let text = cell.text.as_str();
        if text.is_empty() {
            continue;
        }
        // `z aliases x` (Vulkan): another name of x, as a generic alias is.
        if let [name, "aliases", target] = text.split_whitespace().collect::<Vec<_>>().as_slice() {
            if declared
                .insert(name.to_string(), (target.to_string(), true, cell.pos))
                .is_some()
            {
                return Err(err(cell.pos, format!("`{name}` is declared as an alias twice")));
            }
            continue;
        }
        if let Some((left, right)) = text.split_once('@') {
            // `v @ proxy aliases x`: v is another virtual address of x.
            let words: Vec<&str> = right.split_whitespace().collect();
            match words.as_slice() {
                [proxy, "aliases", target] => {
                    let name = left.trim().to_string();
                    let generic = proxy.eq_ignore_ascii_case("generic");
                    if declared
                        .insert(name.clone(), (target.to_string(), generic, cell.pos))
                        .is_some()
                    {
                        return Err(err(cell.pos, format!("`{name}` is declared as an alias twice")));
                    }
                }
                _ => return Err(err(cell.pos, "expected `NAME @ PROXY aliases LOCATION`")),
            }
            continue;
        }
        let Some((left, right)) = text.split_once('=') else {
            return Err(err(
                cell.pos,
                format!("expected `NAME = VALUE` in the init block, found `{text}`"),
            ));
        };
        let value: i64 = right.trim().parse().map_err(|_| {
            err(
                cell.pos,
                format!("expected an integer initial value, found `{}`", right.trim()),
            )
        })?;
        let left = left.trim();
        let target = match left.split_once(':') {
            Some((t, reg)) => InitTarget::Reg {
                thread: thread_index(t)
                    .ok_or_else(|| err(cell.pos, format!("expected a thread such as `P0`, found `{t}`")))?,
                reg: reg.trim().to_string(),
            },
            None => {
                if !is_name(left) {
                    return Err(err(cell.pos, format!("expected a location name, found `{left}`")));
                }
                InitTarget::Loc(left.to_string())
            }
        };
        inits.push(Init {
            target,
            ty: None,
            value: InitValue::Int(value),
            pos: cell.pos,
        });
    }
    Ok((inits, resolve_aliases(&declared)?))
}

/// The alias map of the declared aliases. A proxy (constant, surface,
/// texture) alias names the virtual address of its target; a generic alias
/// is a virtual address of its own. An alias may name another alias
/// (`y @ generic aliases x; t @ texture aliases y;`: `t` is the texture
/// view of virtual address `y` of location `x`), in either order of
/// declaration; a cycle of aliases names no location and is an error.
fn resolve_aliases(declared: &HashMap<String, (String, bool, Pos)>) -> Result<Aliases, ParseError> {
    let mut aliases = Aliases::new();
    // In name order, so that a cycle is always reported the same way.
    let mut names: Vec<&String> = declared.keys().collect();
    names.sort();
    for name in names {
        let (_, generic, pos) = declared[name];
        // Follow the chain to the location (a name that is not an alias).
        let mut seen = vec![name.as_str()];
        let mut at = name.as_str();
        while let Some((target, _, _)) = declared.get(at) {
            if seen.contains(&target.as_str()) {
                return Err(err(
                    pos,
                    format!("the aliases {} form a cycle: they name no location", seen.join(", ")),
                ));
            }
            seen.push(target);
            at = target;
        }
        let target = &declared[name].0;
        let virt = if generic {
            name.clone()
        } else {
            // The target's virtual address: its own name if it is a generic
            // alias or a location, else the one its proxy alias names.
            let mut v = target.as_str();
            while let Some((t, false, _)) = declared.get(v) {
                v = t;
            }
            v.to_string()
        };
        aliases.insert(name.clone(), (at.to_string(), virt));
    }
    Ok(aliases)
}
