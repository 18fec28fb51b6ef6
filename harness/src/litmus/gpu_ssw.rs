//! Vulkan's `ssw` block: `{ ssw 0 1; ssw 1 2; }` after the init block
//! declares that thread `P0` system-synchronizes-with `P1` (host-side
//! synchronization, such as a fence the host waits on before it submits
//! more work), and `P1` with `P2`.
//!
//! Dat3M adds `P1` to `P0`'s sync set for `ssw 0 1` and relates every
//! event of `P0` to every event of `P1` (not the reverse); vulkan.cat
//! uses the relation in `ithbsemsc` and in `locord`'s `[R]; ssw+; [R | W]`
//! (`checker/src/model/vulkan.rs`).

use super::ast::{Pos, Thread};
use super::parser::ParseError;

/// One `ssw a b` declaration: the two thread numbers, where it stands.
pub(super) struct Decl {
    from: u32,
    to: u32,
    pos: Pos,
}

fn err(pos: Pos, message: impl Into<String>) -> ParseError {
    ParseError {
        pos,
        message: message.into(),
    }
}

/// Parses the block's body, which starts at `at`: entries end at `;` or at
/// a line break; each is `ssw A B` with thread numbers `A` and `B`.
pub(super) fn block(body: &str, at: Pos) -> Result<Vec<Decl>, ParseError> {
    let mut decls = Vec::new();
    let mut p = at;
    for line in body.split_inclusive('\n') {
        let mut col = p;
        for raw in line.split_inclusive(';') {
            let lead = raw.len() - raw.trim_start().len();
            let pos = Pos {
                line: col.line,
                col: col.col + raw[..lead].chars().count() as u32,
            };
            col.col += raw.chars().count() as u32;
            let text = raw.trim().trim_end_matches(';').trim();
            if text.is_empty() {
                continue;
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            let thread = |w: &str| w.strip_prefix('P').unwrap_or(w).parse::<u32>().ok();
            match words.as_slice() {
                ["ssw", a, b] => match (thread(a), thread(b)) {
                    (Some(from), Some(to)) if from != to => decls.push(Decl { from, to, pos }),
                    (Some(_), Some(_)) => {
                        return Err(err(
                            pos,
                            format!("`{text}`: a thread cannot system-synchronize with itself"),
                        ))
                    }
                    _ => {
                        return Err(err(
                            pos,
                            format!("`{text}`: expected two thread numbers, as in `ssw 0 1`"),
                        ))
                    }
                },
                _ => {
                    return Err(err(
                        pos,
                        format!("expected `ssw A B` (two thread numbers), found `{text}`"),
                    ))
                }
            }
        }
        p.line += 1;
        p.col = 1;
    }
    Ok(decls)
}

/// The declarations as pairs of file-order thread positions; a thread the
/// table does not have is a located error.
pub(super) fn resolve(decls: &[Decl], threads: &[Thread]) -> Result<Vec<(usize, usize)>, ParseError> {
    let find = |n: u32, pos: Pos| {
        threads
            .iter()
            .position(|t| t.index == n)
            .ok_or_else(|| err(pos, format!("`ssw` names P{n}, which the thread table does not have")))
    };
    let mut out = Vec::new();
    for d in decls {
        let pair = (find(d.from, d.pos)?, find(d.to, d.pos)?);
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    Ok(out)
}
