//! The litmus families as model programs, each instantiated with a [`V`]:
//! registers are returned by the threads and recorded by `main` after
//! joining; final memory values are read (relaxed) after every join.

use super::*;

/// SB:  T0: x=1; r0=y  ||  T1: y=1; r1=x.  Weak: r0=r1=0.  Records (r0, r1).
pub(crate) fn sb(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, v.st());
                y.load(v.ld())
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                y.store(1, v.st());
                x.load(v.ld())
            })
        };
        rec((t0.join().unwrap(), t1.join().unwrap()));
    }
}

/// SB+fences:  T0: x=1; fence(SeqCst); r0=y  ||  T1: y=1; fence(SeqCst); r1=x,
/// accesses relaxed.  Weak: r0=r1=0.  Records (r0, r1).
pub(crate) fn sb_fenced() -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, Ordering::Relaxed);
                fence(Ordering::SeqCst);
                y.load(Ordering::Relaxed)
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                y.store(1, Ordering::Relaxed);
                fence(Ordering::SeqCst);
                x.load(Ordering::Relaxed)
            })
        };
        rec((t0.join().unwrap(), t1.join().unwrap()));
    }
}

/// MP:  T0: x=1; y=1  ||  T1: r0=y; r1=x.  Weak: r0=1, r1=0.  Records (r0, r1).
pub(crate) fn mp(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, v.st());
                y.store(1, v.st());
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r0 = y.load(v.ld());
                let r1 = x.load(v.ld());
                (r0, r1)
            })
        };
        t0.join().unwrap();
        rec(t1.join().unwrap());
    }
}

/// LB:  T0: r0=x; y=1  ||  T1: r1=y; x=1.  Weak: r0=r1=1.  Records (r0, r1).
pub(crate) fn lb(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r0 = x.load(v.ld());
                y.store(1, v.st());
                r0
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r1 = y.load(v.ld());
                x.store(1, v.st());
                r1
            })
        };
        rec((t0.join().unwrap(), t1.join().unwrap()));
    }
}

/// IRIW:  T0: x=1  ||  T1: y=1  ||  T2: r0=x; r1=y  ||  T3: r2=y; r3=x.
/// Weak: r0=1, r1=0, r2=1, r3=0.  Records (r0, r1, r2, r3).
pub(crate) fn iriw(v: V) -> impl Fn(&dyn Fn(R4)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let x = x.clone();
            spawn(move || x.store(1, v.st()))
        };
        let t1 = {
            let y = y.clone();
            spawn(move || y.store(1, v.st()))
        };
        let t2 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r0 = x.load(v.ld());
                let r1 = y.load(v.ld());
                (r0, r1)
            })
        };
        let t3 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r2 = y.load(v.ld());
                let r3 = x.load(v.ld());
                (r2, r3)
            })
        };
        t0.join().unwrap();
        t1.join().unwrap();
        let (r0, r1) = t2.join().unwrap();
        let (r2, r3) = t3.join().unwrap();
        rec((r0, r1, r2, r3));
    }
}

/// 2+2W:  T0: x=1; y=2  ||  T1: y=1; x=2.
/// Weak: final x=1 and y=1 (each thread's second write mo-before the other
/// thread's first).  Records (final x, final y).
pub(crate) fn two_plus_two_w(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, v.st());
                y.store(2, v.st());
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                y.store(1, v.st());
                x.store(2, v.st());
            })
        };
        t0.join().unwrap();
        t1.join().unwrap();
        rec((x.load(Ordering::Relaxed), y.load(Ordering::Relaxed)));
    }
}

/// R:  T0: x=1; y=1  ||  T1: y=2; r0=x.
/// Weak: final y=2 and r0=0.  Records (r0, final y).
pub(crate) fn r(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, v.st());
                y.store(1, v.st());
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                y.store(2, v.st());
                x.load(v.ld())
            })
        };
        t0.join().unwrap();
        let r0 = t1.join().unwrap();
        rec((r0, y.load(Ordering::Relaxed)));
    }
}

/// S:  T0: x=2; y=1  ||  T1: r0=y; x=1.
/// Weak: r0=1 and final x=2.  Records (r0, final x).
pub(crate) fn s(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(2, v.st());
                y.store(1, v.st());
            })
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r0 = y.load(v.ld());
                x.store(1, v.st());
                r0
            })
        };
        t0.join().unwrap();
        let r0 = t1.join().unwrap();
        rec((r0, x.load(Ordering::Relaxed)));
    }
}

/// WRC:  T0: x=1  ||  T1: r0=x; y=1  ||  T2: r1=y; r2=x.
/// Weak: r0=1, r1=1, r2=0.  Records (r0, r1, r2).
pub(crate) fn wrc(v: V) -> impl Fn(&dyn Fn(R3)) + Clone {
    move |rec| {
        let (x, y) = (loc(), loc());
        let t0 = {
            let x = x.clone();
            spawn(move || x.store(1, v.st()))
        };
        let t1 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r0 = x.load(v.ld());
                y.store(1, v.st());
                r0
            })
        };
        let t2 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                let r1 = y.load(v.ld());
                let r2 = x.load(v.ld());
                (r1, r2)
            })
        };
        t0.join().unwrap();
        let r0 = t1.join().unwrap();
        let (r1, r2) = t2.join().unwrap();
        rec((r0, r1, r2));
    }
}

/// ISA2:  T0: x=1; y=1  ||  T1: r0=y; z=1  ||  T2: r1=z; r2=x.
/// Weak: r0=1, r1=1, r2=0.  Records (r0, r1, r2).
pub(crate) fn isa2(v: V) -> impl Fn(&dyn Fn(R3)) + Clone {
    move |rec| {
        let (x, y, z) = (loc(), loc(), loc());
        let t0 = {
            let (x, y) = (x.clone(), y.clone());
            spawn(move || {
                x.store(1, v.st());
                y.store(1, v.st());
            })
        };
        let t1 = {
            let (y, z) = (y.clone(), z.clone());
            spawn(move || {
                let r0 = y.load(v.ld());
                z.store(1, v.st());
                r0
            })
        };
        let t2 = {
            let (x, z) = (x.clone(), z.clone());
            spawn(move || {
                let r1 = z.load(v.ld());
                let r2 = x.load(v.ld());
                (r1, r2)
            })
        };
        t0.join().unwrap();
        let r0 = t1.join().unwrap();
        let (r1, r2) = t2.join().unwrap();
        rec((r0, r1, r2));
    }
}

/// CoRR:  T0: x=1  ||  T1: r0=x; r1=x.  Weak: r0=1, r1=0.  Records (r0, r1).
pub(crate) fn corr(v: V) -> impl Fn(&dyn Fn(R2)) + Clone {
    move |rec| {
        let x = loc();
        let t0 = {
            let x = x.clone();
            spawn(move || x.store(1, v.st()))
        };
        let t1 = {
            let x = x.clone();
            spawn(move || {
                let r0 = x.load(v.ld());
                let r1 = x.load(v.ld());
                (r0, r1)
            })
        };
        t0.join().unwrap();
        rec(t1.join().unwrap());
    }
}

/// CoWW:  T0: x=1; x=2.  Weak: final x=1.  Records the final x.
pub(crate) fn coww(v: V) -> impl Fn(&dyn Fn(usize)) + Clone {
    move |rec| {
        let x = loc();
        let t0 = {
            let x = x.clone();
            spawn(move || {
                x.store(1, v.st());
                x.store(2, v.st());
            })
        };
        t0.join().unwrap();
        rec(x.load(Ordering::Relaxed));
    }
}
