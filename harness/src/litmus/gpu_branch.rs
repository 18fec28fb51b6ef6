//! The control flow of Dat3M's PTX and Vulkan dialects: `goto LABEL` and
//! the conditional branches `beq`, `bne`, `blt`, `ble`, `bgt`, `bge`
//! (`bXX A, B, LABEL`). Split out of `gpu.rs`.

use super::ast::*;
use super::gpu::{err, is_name, Item, Operand};
use super::parser::ParseError;

/// The hidden register an ordered branch (`blt`, `ble`, `bgt`, `bge`)
/// compares into before it jumps.
const CMP_REG: &str = "__cmp";

/// The items of a `goto` or branch cell; `None` when `mnemonic` is neither.
/// An ordered branch is two items: the comparison into a hidden register,
/// then a `bne` on it, so every consumer of the code (unrolling, the
/// liveness search) keeps to its equality branches.
pub(super) fn branch(mnemonic: &str, args: &[&str], pos: Pos) -> Option<Result<Vec<Item>, ParseError>> {
    Some(match mnemonic {
        "goto" => match args {
            [l] if is_name(l) => Ok(vec![Item::Goto(l.to_string(), pos)]),
            _ => Err(err(pos, "expected `goto LABEL`")),
        },
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => match args {
            [a, b, l] if is_name(l) => conditional(mnemonic, a, b, l, pos),
            _ => Err(err(pos, format!("expected `{mnemonic} REG, VALUE, LABEL`"))),
        },
        _ => return None,
    })
}

fn conditional(mnemonic: &str, a: &str, b: &str, label: &str, pos: Pos) -> Result<Vec<Item>, ParseError> {
    let (a, b) = (operand(a, pos)?, operand(b, pos)?);
    let target = label.to_string();
    let cmp = match mnemonic {
        "beq" | "bne" => {
            let eq = mnemonic == "beq";
            return Ok(vec![Item::Branch { eq, a, b, target, pos }]);
        }
        "blt" => BinOp::Lt,
        "ble" => BinOp::Le,
        "bgt" => BinOp::Gt,
        _ => BinOp::Ge,
    };
    let e = |o: Operand| Expr {
        kind: match o {
            Operand::Reg(r) => ExprKind::Var(r),
            Operand::Int(v) => ExprKind::Int(v),
        },
        pos,
    };
    let set = Stmt {
        kind: StmtKind::AssignReg {
            name: CMP_REG.to_string(),
            value: Expr {
                kind: ExprKind::Binary(Box::new(e(a)), vec![(cmp, e(b))]),
                pos,
            },
        },
        pos,
    };
    Ok(vec![
        Item::Stmts(vec![set]),
        Item::Branch {
            eq: false,
            a: Operand::Reg(CMP_REG.to_string()),
            b: Operand::Int(0),
            target,
            pos,
        },
    ])
}

/// A branch or register operand: a register or an integer.
pub(super) fn operand(s: &str, pos: Pos) -> Result<Operand, ParseError> {
    if let Ok(v) = s.parse::<i64>() {
        Ok(Operand::Int(v))
    } else if is_name(s) {
        Ok(Operand::Reg(s.to_string()))
    } else {
        Err(err(pos, format!("expected a register or an integer, found `{s}`")))
    }
}
