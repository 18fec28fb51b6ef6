//! Dat3M's Vulkan instructions: `ld` and `st` (atomic or not), `rmw`
//! (always atomic), each with semantics, storage classes and availability /
//! visibility, `membar`,
//! `cbar`, `avdevice`, `visdevice` and register arithmetic, each as the
//! statements the interpreter runs plus its attributes for the `vulkan`
//! models (docs/gpu-models.md).

use super::ast::*;
use super::gpu::Decode;
use super::parser::ParseError;
use super::ptx::mem_order;
use scopecheck_checker::model::gpu::{GpuKind, GpuOp, GpuOrder};

/// The statements and side-table entry of one Vulkan instruction.
pub fn decode(cx: &Decode<'_>) -> Result<(Vec<Stmt>, Option<GpuOp>), ParseError> {
    let parts: Vec<&str> = cx.mnemonic.split('.').collect();
    let head = parts[0];
    if let Some(stmt) = cx.register_arith(head)? {
        return Ok((vec![stmt], None));
    }
    let mut op = GpuOp::default();
    let mut rmw: Option<&str> = None;
    for &p in &parts[1..] {
        // One digit only: `semsc01` is not storage class 1.
        let class = |prefix: &str| {
            p.strip_prefix(prefix)
                .filter(|n| n.len() == 1)
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| *n < 4)
        };
        match p {
            "atom" => op.atomic = true,
            "acq" => op.order = GpuOrder::Acquire,
            "rel" => op.order = GpuOrder::Release,
            "acq_rel" => op.order = GpuOrder::AcqRel,
            "sg" => op.scope = Some(0),
            "wg" => op.scope = Some(1),
            "qf" => op.scope = Some(2),
            "dv" => op.scope = Some(3),
            "av" => op.av = true,
            "vis" => op.vis = true,
            "semav" => op.semav = true,
            "semvis" => op.semvis = true,
            "nonpriv" => op.nonpriv = true,
            // Dat3M's older grammar: the semantics of both storage classes.
            "semsc01" => op.semsc |= 0b11,
            "add" | "sub" | "and" | "or" | "xor" | "min" | "max" | "exch" if head == "rmw" => rmw = Some(p),
            _ => {
                if let Some(n) = class("semsc") {
                    op.semsc |= 1 << n;
                } else if let Some(n) = class("sc") {
                    op.sc |= 1 << n;
                } else {
                    return Err(cx.error(format!("unknown Vulkan qualifier `.{p}` in `{}`", cx.mnemonic)));
                }
            }
        }
    }
    // An rmw is atomic with or without `.atom` (Dat3M tags every `rmw`
    // atomic; its Khronos translations write both `rmw.dv.sc0` and
    // `rmw.atom.dv.sc0`).
    if head == "rmw" {
        op.atomic = true;
    }
    // Atomics and availability / visibility operations are non-private.
    if op.atomic || op.av || op.vis {
        op.nonpriv = true;
    }
    // An atomic access is available (a store) and visible (a load) at its
    // own scope (Vulkan memory model: atomics are implicitly av/vis).
    if op.atomic {
        match head {
            "st" => op.av = true,
            "ld" => op.vis = true,
            "rmw" => {
                op.av = true;
                op.vis = true;
            }
            _ => {}
        }
    }
    let is_access = matches!(head, "ld" | "st" | "rmw");
    if is_access {
        if op.sc == 0 {
            return Err(cx.error(format!("`{}` names no storage class (`.sc0` ... `.sc3`)", cx.mnemonic)));
        }
        if op.atomic && op.order == GpuOrder::Weak {
            op.order = GpuOrder::Relaxed;
        }
        if !op.atomic && op.order != GpuOrder::Weak {
            return Err(cx.error(format!(
                "`{}`: only atomics have acquire or release semantics",
                cx.mnemonic
            )));
        }
        if (op.atomic || op.av || op.vis) && op.scope.is_none() {
            return Err(cx.error(format!(
                "`{}` names no scope (`.sg`, `.wg`, `.qf` or `.dv`)",
                cx.mnemonic
            )));
        }
    }
    match head {
        "ld" => {
            cx.arity(2, "ld... REG, LOCATION")?;
            if op.order.release() || op.av || op.semav {
                return Err(cx.error(format!("a load cannot release or be available (`{}`)", cx.mnemonic)));
            }
            let reg = cx.reg(0)?;
            // `ld.sc0 r0, 1` (Dat3M's grammar: a load of a constant): no
            // memory access, the register takes the value.
            if cx.args[1].parse::<i64>().is_ok() {
                let value = cx.value(1)?;
                return Ok((vec![cx.stmt(StmtKind::AssignReg { name: reg, value })], None));
            }
            let (addr, vaddr) = cx.addr(1)?;
            op.vaddr = Some(vaddr);
            let s = if op.atomic {
                let mut c = cx.atomic(AtomicOp::Load, addr, Vec::new());
                c.order = mem_order(op.order);
                cx.call(Some(reg), c)
            } else {
                cx.plain_load(reg, addr)
            };
            Ok((vec![s], Some(op)))
        }
        "st" => {
            cx.arity(2, "st... LOCATION, VALUE")?;
            if op.order.acquire() || op.vis || op.semvis {
                return Err(cx.error(format!("a store cannot acquire or be visible (`{}`)", cx.mnemonic)));
            }
            let (addr, vaddr) = cx.addr(0)?;
            op.vaddr = Some(vaddr);
            let v = cx.value(1)?;
            let s = if op.atomic {
                let mut c = cx.atomic(AtomicOp::Store, addr, vec![v]);
                c.order = mem_order(op.order);
                cx.call(None, c)
            } else {
                cx.plain_store(addr, v)
            };
            Ok((vec![s], Some(op)))
        }
        "rmw" => {
            cx.arity(3, "rmw[.atom]... REG, LOCATION, VALUE")?;
            let reg = cx.reg(0)?;
            let (addr, vaddr) = cx.addr(1)?;
            op.vaddr = Some(vaddr);
            // Without an operation, rmw exchanges.
            let aop = match rmw.unwrap_or("exch") {
                "exch" => AtomicOp::Exchange,
                "add" => AtomicOp::FetchAdd,
                "sub" => AtomicOp::FetchSub,
                "and" => AtomicOp::FetchAnd,
                "or" => AtomicOp::FetchOr,
                "xor" => AtomicOp::FetchXor,
                "min" => AtomicOp::FetchMin,
                _ => AtomicOp::FetchMax,
            };
            let mut c = cx.atomic(aop, addr, vec![cx.value(2)?]);
            c.order = mem_order(op.order);
            Ok((vec![cx.call(Some(reg), c)], Some(op)))
        }
        "membar" => {
            cx.arity(0, "membar.SEM.SCOPE.SEMSC...")?;
            if op.order == GpuOrder::Weak || op.scope.is_none() {
                return Err(cx.error("a membar names its semantics (acq, rel, acq_rel) and its scope"));
            }
            op.kind = GpuKind::Fence;
            Ok((vec![cx.fence()], Some(op)))
        }
        "cbar" => {
            if op.scope.is_none() {
                return Err(cx.error("a control barrier names its scope (`cbar.wg`, ...)"));
            }
            let stmts = cx.barrier(&mut op, false)?;
            Ok((stmts, Some(op)))
        }
        "avdevice" | "visdevice" => {
            cx.arity(0, head)?;
            op.kind = if head == "avdevice" {
                GpuKind::AvDevice
            } else {
                GpuKind::VisDevice
            };
            op.scope = Some(3);
            Ok((vec![cx.fence()], Some(op)))
        }
        _ => Err(cx.error(format!("unknown Vulkan instruction `{}`", cx.mnemonic))),
    }
}
