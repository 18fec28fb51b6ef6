//! A deterministic fuzz run (truncations and random mutations of the
//! corpus) that must never panic and always gives a located error.

use super::*;
use crate::corpus::all_corpus;

/// xorshift64*: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ":",
    "@",
    "=",
    "/\\",
    "\\/",
    "~",
    "*",
    "&",
    "-",
    "(*",
    "*)",
    "/*",
    "*/",
    "//",
    "\"",
    "\0",
    "P0",
    "P1 (int* x) { }",
    "0:r0",
    "exists",
    "~exists",
    "forall",
    "locations [",
    "memory_order_release",
    "memory_order_acquire",
    "memory_scope_device",
    "rlx_quantum",
    "atomic_load_explicit(",
    "atomic_compare_exchange_strong_explicit(x, &r0, 1, ",
    "barrier(CLK_GLOBAL_MEM_FENCE);",
    "L: ",
    "if (",
    "else",
    "while",
    "int",
    "_Atomic(",
    "global",
    "99999999999999999999999",
    "0x",
    "-9223372036854775808",
    "é",
    "\u{fffd}",
    "\r\n",
    "\n",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut b: Vec<u8> = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = match rng.below(3) {
                    0 => rng.next() as u8,
                    1 => b" (){};,:=*&~/\\\"0aP\n"[rng.below(19)],
                    _ => b[i] ^ (1 << rng.below(8)),
                };
            }
            1 if !b.is_empty() => {
                let len = 1 + rng.below(20);
                let at = at.min(b.len() - 1);
                b.drain(at..(at + len).min(b.len()));
            }
            2 | 3 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                b.splice(at..at, t.bytes());
            }
            4 => {
                // Duplicate a line.
                let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
                let l = lines[rng.below(lines.len())].to_vec();
                let at = rng.below(b.len() + 1);
                b.splice(at..at, l.into_iter().chain([b'\n']));
            }
            _ => {
                // Swap two lines.
                let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(i, j);
                b = lines.join(&b'\n');
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Parses `src` and checks the outcome: no panic, and an error located in the text.
fn check_total(src: &str, what: &dyn Fn() -> String) -> bool {
    let r = std::panic::catch_unwind(|| parse(src));
    let Ok(r) = r else {
        panic!("parser panicked on {}:\n{src}", what())
    };
    let Err(e) = r else { return true };
    let lines: Vec<&str> = src.strip_prefix('\u{feff}').unwrap_or(src).split('\n').collect();
    let Pos { line, col } = e.pos;
    assert!(line >= 1 && col >= 1, "{}: {e}", what());
    assert!(
        line as usize <= src.lines().count() + 1,
        "{}: {e} is past the end of the text",
        what()
    );
    let len = lines.get(line as usize - 1).map_or(0, |l| l.chars().count());
    assert!(
        col as usize <= len + 1,
        "{}: {e}: column past the end of line {line}",
        what()
    );
    assert!(!e.message.is_empty());
    assert!(e.to_string().starts_with(&format!("{line}:{col}: ")));
    false
}

#[test]
fn fuzz_never_panics_and_errors_are_located() {
    let corpus = all_corpus();
    assert!(!corpus.is_empty());
    let mut truncations = 0;
    for (path, src) in &corpus {
        let bounds: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        for &i in bounds.iter().step_by(3) {
            let cut = &src[..i];
            check_total(cut, &|| format!("{} truncated at byte {i}", path.display()));
            truncations += 1;
        }
    }
    let mut rng = Rng(0x5C0B_EC4E_C4A1_1001);
    let (mut ok, mut err) = (0, 0);
    for n in 0..2000 {
        let (path, src) = &corpus[rng.below(corpus.len())];
        let m = mutate(&mut rng, src);
        if check_total(&m, &|| format!("mutation {n} of {}", path.display())) {
            ok += 1;
        } else {
            err += 1;
        }
    }
    // Seeded: the exact tallies are fixed. The mutations are mostly fatal, but not always.
    // (207: one mutation changes a header's case, which parses since
    // headers are read in any case.)
    assert_eq!((truncations, ok, err), (17348, 207, 1793));
}
