//! Dat3M's PTX instructions: `ld`, `st`, `atom`, `red`, `fence`, `bar`, the
//! proxy forms (`cold`, `sust`, `suld`, `tld`, `suatom`, `sured`,
//! `fence.proxy.*`) and register
//! arithmetic, each as the statements the interpreter runs plus its
//! attributes for the `ptx6.0` / `ptx7.5` models (docs/gpu-models.md).

use super::ast::*;
use super::gpu::Decode;
use super::parser::ParseError;
use scopecheck_checker::model::gpu::{GpuKind, GpuOp, GpuOrder, Proxy};

/// The statements and side-table entry of one PTX instruction.
pub fn decode(cx: &Decode<'_>) -> Result<(Vec<Stmt>, Option<GpuOp>), ParseError> {
    let parts: Vec<&str> = cx.mnemonic.split('.').collect();
    let head = parts[0];
    if let Some(stmt) = cx.register_arith(head)? {
        return Ok((vec![stmt], None));
    }
    let mut op = GpuOp::default();
    let mut rmw: Option<&str> = None;
    let mut sem_seen = false;
    for &p in &parts[1..] {
        match p {
            "weak" => op.order = GpuOrder::Weak,
            "relaxed" => op.order = GpuOrder::Relaxed,
            "acquire" => op.order = GpuOrder::Acquire,
            "release" => op.order = GpuOrder::Release,
            "acq_rel" => op.order = GpuOrder::AcqRel,
            "sc" => op.order = GpuOrder::Sc,
            // PTX: volatile is relaxed at system scope.
            "volatile" => {
                op.order = GpuOrder::Relaxed;
                op.scope = Some(3);
            }
            "cta" => op.scope = Some(1),
            "gpu" => op.scope = Some(2),
            "sys" => op.scope = Some(3),
            "proxy" if head == "fence" => {}
            "alias" if head == "fence" => op.proxy = Proxy::Alias,
            "constant" if head == "fence" => op.proxy = Proxy::Constant,
            "surface" if head == "fence" => op.proxy = Proxy::Surface,
            "texture" if head == "fence" => op.proxy = Proxy::Texture,
            "sync" | "arrive" if head == "bar" => {}
            "exch" | "add" | "sub" | "cas" | "and" | "or" | "xor" | "min" | "max" | "inc" | "dec"
                if matches!(head, "atom" | "red" | "suatom" | "sured") =>
            {
                rmw = Some(p)
            }
            _ => return Err(cx.error(format!("unknown PTX qualifier `.{p}` in `{}`", cx.mnemonic))),
        }
        if matches!(
            p,
            "weak" | "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "volatile"
        ) {
            sem_seen = true;
        }
    }
    let strong = op.order != GpuOrder::Weak;
    // Strong operations name a scope; PTX's default is .gpu.
    if strong && op.scope.is_none() {
        op.scope = Some(2);
    }
    match head {
        "ld" | "cold" | "suld" | "tld" => {
            cx.arity(2, &format!("{} REG, LOCATION", cx.mnemonic))?;
            op.proxy = match head {
                "cold" => Proxy::Constant,
                "suld" => Proxy::Surface,
                "tld" => Proxy::Texture,
                _ => Proxy::Generic,
            };
            if matches!(op.order, GpuOrder::Release | GpuOrder::AcqRel | GpuOrder::Sc) {
                return Err(cx.error(format!("a load cannot be `{:?}` (`{}`)", op.order, cx.mnemonic)));
            }
            let reg = cx.reg(0)?;
            // `ld r0, 1` (Dat3M's load of a constant, as the Memalloy tests
            // set a register): no memory access, the register takes the value.
            if head == "ld" && cx.args[1].parse::<i64>().is_ok() {
                let value = cx.value(1)?;
                return Ok((vec![cx.stmt(StmtKind::AssignReg { name: reg, value })], None));
            }
            let (addr, vaddr) = cx.addr(1)?;
            op.vaddr = Some(vaddr);
            let s = if strong {
                let mut c = cx.atomic(AtomicOp::Load, addr, Vec::new());
                c.order = mem_order(op.order);
                cx.call(Some(reg), c)
            } else {
                cx.plain_load(reg, addr)
            };
            Ok((vec![s], Some(op)))
        }
        "st" | "sust" => {
            cx.arity(2, &format!("{} LOCATION, VALUE", cx.mnemonic))?;
            op.proxy = if head == "sust" { Proxy::Surface } else { Proxy::Generic };
            if matches!(op.order, GpuOrder::Acquire | GpuOrder::AcqRel | GpuOrder::Sc) {
                return Err(cx.error(format!("a store cannot be `{:?}` (`{}`)", op.order, cx.mnemonic)));
            }
            let (addr, vaddr) = cx.addr(0)?;
            op.vaddr = Some(vaddr);
            let v = cx.value(1)?;
            let s = if strong {
                let mut c = cx.atomic(AtomicOp::Store, addr, vec![v]);
                c.order = mem_order(op.order);
                cx.call(None, c)
            } else {
                cx.plain_store(addr, v)
            };
            Ok((vec![s], Some(op)))
        }
        "atom" | "red" | "suatom" | "sured" => {
            // suatom and sured are atom and red through the surface proxy.
            if head.starts_with("su") {
                op.proxy = Proxy::Surface;
            }
            // An atom or red is always strong: relaxed unless it says more.
            if !sem_seen {
                op.order = GpuOrder::Relaxed;
            }
            if op.order == GpuOrder::Weak {
                return Err(cx.error(format!("`{head}` cannot be weak")));
            }
            if op.scope.is_none() {
                op.scope = Some(2);
            }
            let Some(kind) = rmw else {
                return Err(cx.error(format!("`{}` names no operation (exch, add, cas, ...)", cx.mnemonic)));
            };
            let red = head.ends_with("red");
            let first = usize::from(!red);
            let want = if kind == "cas" { 3 } else { 2 } + first;
            let form = match (red, kind == "cas") {
                (true, true) => "red.cas LOCATION, EXPECTED, NEW",
                (true, false) => "red.OP LOCATION, VALUE",
                (false, true) => "atom.cas REG, LOCATION, EXPECTED, NEW",
                (false, false) => "atom.OP REG, LOCATION, VALUE",
            };
            cx.arity(want, form)?;
            let (addr, vaddr) = cx.addr(first)?;
            op.vaddr = Some(vaddr);
            let order = mem_order(op.order);
            if kind == "cas" {
                // r = expected; CAS(&r, new): r ends as the value read either way.
                let reg = if red { "__cas".to_string() } else { cx.reg(0)? };
                let set = cx.stmt(StmtKind::AssignReg {
                    name: reg.clone(),
                    value: cx.value(first + 1)?,
                });
                let expected = Expr {
                    kind: ExprKind::AddrOf(reg),
                    pos: cx.cell.pos,
                };
                let mut c = cx.atomic(AtomicOp::CasStrong, addr, vec![expected, cx.value(first + 2)?]);
                c.order = order;
                c.failure = Some(order);
                return Ok((vec![set, cx.call(None, c)], Some(op)));
            }
            let v = cx.value(first + 1)?;
            let aop = match kind {
                "exch" => AtomicOp::Exchange,
                "add" | "inc" => AtomicOp::FetchAdd,
                "sub" | "dec" => AtomicOp::FetchSub,
                "and" => AtomicOp::FetchAnd,
                "or" => AtomicOp::FetchOr,
                "xor" => AtomicOp::FetchXor,
                "min" => AtomicOp::FetchMin,
                _ => AtomicOp::FetchMax,
            };
            let mut c = cx.atomic(aop, addr, vec![v]);
            c.order = order;
            let reg = if red { None } else { Some(cx.reg(0)?) };
            Ok((vec![cx.call(reg, c)], Some(op)))
        }
        "fence" | "membar" => {
            cx.arity(0, "fence.SEM.SCOPE")?;
            op.kind = GpuKind::Fence;
            if op.proxy != Proxy::Generic {
                // fence.proxy.X: no order of its own; acts within the CTA.
                op.order = GpuOrder::Weak;
                op.scope = Some(1);
            } else if !sem_seen {
                return Err(cx.error("expected `fence.sc.SCOPE`, `fence.acq_rel.SCOPE` or `fence.proxy.PROXY`"));
            } else if !matches!(op.order, GpuOrder::Sc | GpuOrder::AcqRel) {
                return Err(cx.error(format!("a fence is `sc` or `acq_rel`, not `{}`", cx.mnemonic)));
            }
            Ok((vec![cx.fence()], Some(op)))
        }
        "bar" => {
            op.order = GpuOrder::Weak;
            op.scope = Some(1);
            let stmts = cx.barrier(&mut op, parts.contains(&"arrive"))?;
            Ok((stmts, Some(op)))
        }
        _ => Err(cx.error(format!("unknown PTX instruction `{}`", cx.mnemonic))),
    }
}

/// The engine order of a strong access (the engine's porf base ignores it;
/// it keeps reports readable).
pub fn mem_order(o: GpuOrder) -> Order {
    match o {
        GpuOrder::Weak | GpuOrder::Relaxed => Order::Relaxed,
        GpuOrder::Acquire => Order::Acquire,
        GpuOrder::Release => Order::Release,
        GpuOrder::AcqRel => Order::AcqRel,
        GpuOrder::Sc => Order::SeqCst,
    }
}
