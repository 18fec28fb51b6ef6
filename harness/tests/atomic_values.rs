//! One value encoding for every typed front end: memory-kind atomics
//! (`gpu::alloc_in`), GPU buffer elements (`Buffer::atomic`) and atomic
//! references (`AtomicRef` on a `Plain` cell) keep a value as the same
//! checker word with the same width and signedness, so the same script of
//! operations gives exactly what std's atomics give, in each of them. The
//! std-shaped shims (`scopecheck::sync::atomic`) and their classified
//! relaxed accesses (`rlx`) keep values by the same rule and give the same.

mod common;

use common::{both, builder, outcomes, the_failure};
use scopecheck::gpu::{alloc_in, AtomicElement, Buffer, MemAtomic, MemoryKind};
use scopecheck::scope::Scope;
use scopecheck::sync::atomic::Ordering;
use scopecheck::sync::atomic_ref::{thread_scope, Arithmetic, AtomicRef, AtomicValue, MinMax, Plain, ValueType};
use scopecheck::{Builder, FailureKind, MemoryModel, Report, Strategy};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::mem::size_of;

const SC: Ordering = Ordering::SeqCst;

/// Runs a single-threaded body that records one outcome; asserts it has
/// exactly one execution and no failure, and returns the outcome.
fn only<T: Ord + Clone + Debug + 'static>(body: impl Fn(&dyn Fn(T))) -> T {
    let (o, r) = outcomes(&builder(MemoryModel::Cpp20, Strategy::Exhaustive), body);
    assert!(r.failures().is_empty(), "{r}");
    assert_eq!(r.executions(), 1, "{r}");
    assert_eq!(o.len(), 1);
    o.into_iter().next().unwrap()
}

// ------------------------------------------------------------ the encoding

fn ty(bits: u8, signed: bool) -> ValueType {
    ValueType { bits, signed }
}

#[test]
fn each_type_has_its_width_and_signedness_and_bool_is_one_bit() {
    assert_eq!(bool::TYPE, ty(1, false));
    assert_eq!(i8::TYPE, ty(8, true));
    assert_eq!(u8::TYPE, ty(8, false));
    assert_eq!(i16::TYPE, ty(16, true));
    assert_eq!(u16::TYPE, ty(16, false));
    assert_eq!(i32::TYPE, ty(32, true));
    assert_eq!(u32::TYPE, ty(32, false));
    assert_eq!(i64::TYPE, ty(64, true));
    assert_eq!(u64::TYPE, ty(64, false));
    assert_eq!(isize::TYPE, ty(usize::BITS as u8, true));
    assert_eq!(usize::TYPE, ty(usize::BITS as u8, false));
    assert_eq!(f32::TYPE, ty(32, false));
    assert_eq!(f64::TYPE, ty(64, false));
    assert_eq!(<*mut u16>::TYPE, ty(usize::BITS as u8, false));
    assert_eq!(<*const u16>::TYPE, ty(usize::BITS as u8, false));
}

#[test]
fn words_are_zero_extended_and_decoding_reads_the_low_bits() {
    assert_eq!(false.to_bits(), 0);
    assert_eq!(true.to_bits(), 1);
    assert!(bool::from_bits(1));
    assert!(!bool::from_bits(2), "only the low bit of a bool's word counts");
    assert_eq!((-1i8).to_bits(), 0xff);
    assert_eq!((-2i16).to_bits(), 0xfffe);
    assert_eq!((-2i32).to_bits(), 0xffff_fffe);
    assert_eq!((-2i64).to_bits(), u64::MAX - 1);
    assert_eq!(u64::MAX.to_bits(), u64::MAX);
    assert_eq!(i8::from_bits(0x1ff), -1);
    assert_eq!(i32::from_bits(0x1_8000_0000), i32::MIN);
    assert_eq!(AtomicValue::to_bits(-1.5f32), 0xbfc0_0000);
    assert_eq!(<f32 as AtomicValue>::from_bits(0xffff_ffff_3fc0_0000), 1.5);
    for v in [i8::MIN, -1, 0, 1, i8::MAX] {
        assert_eq!(i8::from_bits(v.to_bits()), v);
        assert_eq!(
            i8::TYPE.mask(v.to_bits()),
            v.to_bits(),
            "{v}'s word is masked to 8 bits"
        );
    }
}

// ---------------------------------------- the same script on every front end

/// The operations of the script, on one front end (names unlike the
/// front ends' own, so that the trait's are the ones called).
trait Front<T> {
    fn ld(&self) -> T;
    fn st(&self, v: T);
    fn xchg(&self, v: T) -> T;
    fn add(&self, v: T) -> T;
    fn sub(&self, v: T) -> T;
    fn lo(&self, v: T) -> T;
    fn hi(&self, v: T) -> T;
    fn cas(&self, current: T, new: T) -> Result<T, T>;
}

/// A value the script runs on: the arithmetic and min/max that the three
/// front ends give, the operand of `fetch_add` being the value itself.
trait Val: Arithmetic<Operand = Self> + MinMax + Debug + 'static {}
impl<T: Arithmetic<Operand = T> + MinMax + Debug + 'static> Val for T {}

/// Starting from `a`, every operation once, each result written down
/// (with `{:?}`, so floats compare by what they print).
fn script<T: Val>(f: &impl Front<T>, [a, b, c, d]: [T; 4]) -> Vec<String> {
    let mut out = vec![];
    let mut rec = |x: &dyn Debug| out.push(format!("{x:?}"));
    rec(&f.ld());
    rec(&f.add(b));
    rec(&f.sub(c));
    rec(&f.lo(d));
    rec(&f.hi(d));
    rec(&f.xchg(c));
    rec(&f.cas(d, a)); // fails unless c == d
    rec(&f.cas(c, d));
    rec(&f.ld());
    f.st(b);
    rec(&f.ld());
    out
}

/// `Front` for generic front ends with the same API: `$x` is the front
/// end, `$v` the operand, `$c` a compare-exchange's expected value.
macro_rules! front {
    ($($ty:ty),+; |$x:ident, $c:ident, $v:ident| {
        $ld:expr, $st:expr, $xchg:expr, $add:expr, $sub:expr, $min:expr, $max:expr, $cas:expr $(,)?
    }) => {$(
        impl<T: Val> Front<T> for $ty {
            fn ld(&self) -> T {
                let $x = self;
                $ld
            }
            fn st(&self, $v: T) {
                let $x = self;
                $st
            }
            fn xchg(&self, $v: T) -> T {
                let $x = self;
                $xchg
            }
            fn add(&self, $v: T) -> T {
                let $x = self;
                $add
            }
            fn sub(&self, $v: T) -> T {
                let $x = self;
                $sub
            }
            fn lo(&self, $v: T) -> T {
                let $x = self;
                $min
            }
            fn hi(&self, $v: T) -> T {
                let $x = self;
                $max
            }
            fn cas(&self, $c: T, $v: T) -> Result<T, T> {
                let $x = self;
                $cas
            }
        }
    )+};
}

// The two GPU front ends: every operation takes an order and a scope.
front!(MemAtomic<T>, AtomicElement<'_, T>; |x, c, v| {
    x.load(SC, Scope::Device),
    x.store(v, SC, Scope::Device),
    x.swap(v, SC, Scope::Device),
    x.fetch_add(v, SC, Scope::Device),
    x.fetch_sub(v, SC, Scope::Device),
    x.fetch_min(v, SC, Scope::Device),
    x.fetch_max(v, SC, Scope::Device),
    x.compare_exchange(c, v, SC, SC, Scope::Device),
});

front!(AtomicRef<'_, T>; |x, c, v| {
    x.load(),
    x.store(v),
    x.exchange(v),
    x.fetch_add(v),
    x.fetch_sub(v),
    x.fetch_min(v),
    x.fetch_max(v),
    x.compare_exchange_strong(c, v),
});

/// std's atomics, the reference for the integers.
macro_rules! std_front {
    ($($int:ty => $atomic:ty;)*) => {$(
        impl Front<$int> for $atomic {
            fn ld(&self) -> $int { self.load(SC) }
            fn st(&self, v: $int) { self.store(v, SC) }
            fn xchg(&self, v: $int) -> $int { self.swap(v, SC) }
            fn add(&self, v: $int) -> $int { self.fetch_add(v, SC) }
            fn sub(&self, v: $int) -> $int { self.fetch_sub(v, SC) }
            fn lo(&self, v: $int) -> $int { self.fetch_min(v, SC) }
            fn hi(&self, v: $int) -> $int { self.fetch_max(v, SC) }
            fn cas(&self, current: $int, new: $int) -> Result<$int, $int> {
                self.compare_exchange(current, new, SC, SC)
            }
        }
    )*};
}

use std::sync::atomic as sa;
std_front! {
    i8 => sa::AtomicI8; i16 => sa::AtomicI16; i32 => sa::AtomicI32; i64 => sa::AtomicI64;
    isize => sa::AtomicIsize; u8 => sa::AtomicU8; u16 => sa::AtomicU16; u32 => sa::AtomicU32;
    u64 => sa::AtomicU64; usize => sa::AtomicUsize;
}

/// The shims with std's API: the same macro, since their API is std's.
use scopecheck::sync::atomic as ss;
std_front! {
    i8 => ss::AtomicI8; i16 => ss::AtomicI16; i32 => ss::AtomicI32; i64 => ss::AtomicI64;
    isize => ss::AtomicIsize; u8 => ss::AtomicU8; u16 => ss::AtomicU16; u32 => ss::AtomicU32;
    u64 => ss::AtomicU64; usize => ss::AtomicUsize;
}

// A shim's classified relaxed accesses (DRFrlx, `x.rlx(None)`): relaxed,
// which a single thread cannot tell from `SeqCst`.
front!(scopecheck::drfrlx::Rlx<'_, T>; |x, c, v| {
    x.load().get(),
    x.store(v),
    x.swap(v).get(),
    x.fetch_add(v).get(),
    x.fetch_sub(v).get(),
    x.fetch_min(v).get(),
    x.fetch_max(v).get(),
    x.compare_exchange(c, v).get(),
});

/// IEEE arithmetic on a cell, the reference for the floats (the scripts'
/// values are no NaNs and no signed zeros, where `min` / `max` would need
/// minimumNumber's rules).
macro_rules! float_front {
    ($($f:ty)*) => {$(
        impl Front<$f> for Cell<$f> {
            fn ld(&self) -> $f { self.get() }
            fn st(&self, v: $f) { self.set(v) }
            fn xchg(&self, v: $f) -> $f { self.replace(v) }
            fn add(&self, v: $f) -> $f { self.replace(self.get() + v) }
            fn sub(&self, v: $f) -> $f { self.replace(self.get() - v) }
            fn lo(&self, v: $f) -> $f { self.replace(self.get().min(v)) }
            fn hi(&self, v: $f) -> $f { self.replace(self.get().max(v)) }
            fn cas(&self, current: $f, new: $f) -> Result<$f, $f> {
                let old = self.get();
                if old.to_bits() == current.to_bits() {
                    self.set(new);
                    Ok(old)
                } else {
                    Err(old)
                }
            }
        }
    )*};
}

float_front!(f32 f64);

/// The script's results on each front end that can hold `T` (an atomic
/// reference needs 4 or 8 bytes), each the model's single execution.
fn on_every_front_end<T: Val>(vals: [T; 4]) -> Vec<(&'static str, Vec<String>)> {
    let mut got = vec![(
        "gpu::alloc_in",
        only(|rec: &dyn Fn(Vec<String>)| rec(script(&alloc_in(MemoryKind::Managed, vals[0]), vals))),
    )];
    got.push((
        "Buffer::atomic",
        only(|rec| {
            let b = Buffer::from_slice(&[vals[1], vals[0]]);
            rec(script(&b.atomic(1), vals));
        }),
    ));
    if matches!(size_of::<T>(), 4 | 8) {
        got.push((
            "AtomicRef",
            only(|rec: &dyn Fn(Vec<String>)| {
                let c = Plain::new(vals[0]);
                rec(script(&AtomicRef::cuda(&c, thread_scope::device), vals));
            }),
        ));
    }
    got
}

fn agree<T: Val>(vals: [T; 4], reference: impl Front<T>) {
    let want = script(&reference, vals);
    for (front, got) in on_every_front_end(vals) {
        assert_eq!(got, want, "{front} on {vals:?}");
    }
}

#[test]
fn negative_small_integers_agree_with_std() {
    agree([-100i8, -100, 127, 5], sa::AtomicI8::new(-100));
    agree([-30000i16, -30000, 32767, 3], sa::AtomicI16::new(-30000));
    agree([200u8, 100, 250, 3], sa::AtomicU8::new(200));
}

#[test]
fn negative_wide_integers_agree_with_std() {
    agree([i32::MIN + 5, -10, i32::MAX, 1], sa::AtomicI32::new(i32::MIN + 5));
    agree([-1i64, i64::MIN, 7, -2], sa::AtomicI64::new(-1));
    agree([-3isize, isize::MAX, -7, 2], sa::AtomicIsize::new(-3));
}

#[test]
fn the_largest_unsigned_integers_agree_with_std() {
    agree([u64::MAX, 1, 2, 5], sa::AtomicU64::new(u64::MAX));
    agree([usize::MAX - 1, 3, usize::MAX, 0], sa::AtomicUsize::new(usize::MAX - 1));
}

#[test]
fn floats_agree_with_ieee_arithmetic() {
    agree([1.5f32, 2.25, -0.5, -3.0], Cell::new(1.5f32));
    agree([-1e300f64, 0.125, 1e300, -7.5], Cell::new(-1e300f64));
}

/// Each std shim, and its classified accesses, against std's atomic of the
/// same name, from the same values as the other front ends.
macro_rules! shims_agree {
    ($($atomic:ident: $vals:expr;)*) => {$(
        let vals = $vals;
        let want = script(&sa::$atomic::new(vals[0]), vals);
        let shim = only(|rec: &dyn Fn(Vec<String>)| rec(script(&ss::$atomic::new(vals[0]), vals)));
        assert_eq!(shim, want, "{} on {vals:?}", stringify!($atomic));
        let rlx = only(|rec: &dyn Fn(Vec<String>)| rec(script(&ss::$atomic::new(vals[0]).rlx(None), vals)));
        assert_eq!(rlx, want, "{}::rlx on {vals:?}", stringify!($atomic));
    )*};
}

#[test]
fn the_std_shims_and_their_classified_accesses_agree_with_std() {
    shims_agree! {
        AtomicI8: [-100i8, -100, 127, 5];
        AtomicI16: [-30000i16, -30000, 32767, 3];
        AtomicU8: [200u8, 100, 250, 3];
        AtomicU16: [65000u16, 600, 65535, 9];
        AtomicI32: [i32::MIN + 5, -10, i32::MAX, 1];
        AtomicU32: [u32::MAX, 2, 7, u32::MAX - 1];
        AtomicI64: [-1i64, i64::MIN, 7, -2];
        AtomicIsize: [-3isize, isize::MAX, -7, 2];
        AtomicU64: [u64::MAX, 1, 2, 5];
        AtomicUsize: [usize::MAX - 1, 3, usize::MAX, 0];
    }
}

/// `AtomicPtr`'s std operations, each result written down: the shim must
/// give what std gives. The pointers include one whose address has every
/// high bit set, and `fetch_update` moves it one element on, wrapping to
/// null; `get_mut` writes through plainly before the next operation.
macro_rules! ptr_script {
    ($x:expr, [$a:expr, $b:expr, $c:expr]) => {{
        let mut x = $x;
        let mut out: Vec<String> = vec![];
        out.push(format!("{:?}", x.load(SC)));
        out.push(format!("{:?}", x.swap($b, SC)));
        out.push(format!("{:?}", x.compare_exchange($a, $c, SC, SC)));
        out.push(format!("{:?}", x.compare_exchange($b, $c, SC, SC)));
        out.push(format!("{:?}", x.fetch_update(SC, SC, |p| Some(p.wrapping_add(1)))));
        out.push(format!("{:?}", x.load(SC)));
        *x.get_mut() = $b;
        out.push(format!("{:?}", x.swap($a, SC)));
        out.push(format!("{:?}", x.into_inner()));
        out
    }};
}

#[test]
fn the_atomic_ptr_shim_agrees_with_std() {
    let p = |a: usize| a as *mut u64;
    let ptrs = [p(0), p(0x1000), p(usize::MAX - 7)];
    let want = ptr_script!(sa::AtomicPtr::new(ptrs[0]), [ptrs[0], ptrs[1], ptrs[2]]);
    let (got, r) = outcomes(
        &builder(MemoryModel::Cpp20, Strategy::Exhaustive),
        |rec: &dyn Fn(Vec<String>)| {
            let ptrs = [p(0), p(0x1000), p(usize::MAX - 7)];
            rec(ptr_script!(ss::AtomicPtr::new(ptrs[0]), [ptrs[0], ptrs[1], ptrs[2]]))
        },
    );
    assert!(r.failures().is_empty(), "{r}");
    // fetch_update's weak compare-exchange succeeds at once, or fails
    // spuriously once and then succeeds: two executions, one outcome.
    assert_eq!(r.executions(), 2, "{r}");
    assert_eq!(got, BTreeSet::from([want.clone()]));
    // By hand: the wrap to null, and get_mut's value read by the swap.
    assert_eq!(want[4], format!("Ok({:?})", ptrs[2]));
    assert_eq!(want[5], format!("{:?}", p(0)));
    assert_eq!(want[6], format!("{:?}", ptrs[1]));
}

/// The script pinned by hand once, so that a wrong reference cannot pass
/// with a wrong front end: `i8` from -100.
#[test]
fn the_i8_script_by_hand() {
    let want: Vec<String> = [
        "-100",     // load
        "-100",     // fetch_add(-100): wraps to 56
        "56",       // fetch_sub(127): -71
        "-71",      // fetch_min(5), signed: stays -71 (unsigned, 0xb9 > 5)
        "-71",      // fetch_max(5): 5
        "5",        // swap(127)
        "Err(127)", // compare_exchange(5, -100)
        "Ok(127)",  // compare_exchange(127, 5)
        "5",        // load
        "-100",     // load after store(-100)
    ]
    .map(String::from)
    .to_vec();
    for (front, got) in on_every_front_end([-100i8, -100, 127, 5]) {
        assert_eq!(got, want, "{front}");
    }
}

// ------------------------------------------------------------------- bool

/// A bool's operations on one front end: load, swap, both compare-exchange
/// outcomes, and, or, xor.
fn bool_script(
    ld: &dyn Fn() -> bool,
    xchg: &dyn Fn(bool) -> bool,
    cas: &dyn Fn(bool, bool) -> Result<bool, bool>,
    bit: &dyn Fn(char, bool) -> bool,
) -> Vec<String> {
    let r = [
        format!("{:?}", ld()),
        format!("{:?}", xchg(false)),
        format!("{:?}", cas(true, true)),
        format!("{:?}", cas(false, true)),
        format!("{:?}", bit('&', false)),
        format!("{:?}", bit('|', true)),
        format!("{:?}", bit('^', true)),
        format!("{:?}", bit('^', true)),
        format!("{:?}", ld()),
    ];
    r.to_vec()
}

#[test]
fn bools_agree_with_std_on_every_front_end_that_holds_them() {
    let std = sa::AtomicBool::new(true);
    let want = bool_script(
        &|| std.load(SC),
        &|v| std.swap(v, SC),
        &|c, n| std.compare_exchange(c, n, SC, SC),
        &|op, v| match op {
            '&' => std.fetch_and(v, SC),
            '|' => std.fetch_or(v, SC),
            _ => std.fetch_xor(v, SC),
        },
    );
    let s = Scope::Block;
    let mem = only(|rec: &dyn Fn(Vec<String>)| {
        let x = alloc_in(MemoryKind::Device, true);
        rec(bool_script(
            &|| x.load(SC, s),
            &|v| x.swap(v, SC, s),
            &|c, n| x.compare_exchange(c, n, SC, SC, s),
            &|op, v| match op {
                '&' => x.fetch_and(v, SC, s),
                '|' => x.fetch_or(v, SC, s),
                _ => x.fetch_xor(v, SC, s),
            },
        ))
    });
    let buf = only(|rec: &dyn Fn(Vec<String>)| {
        let b = Buffer::new(2, true);
        let x = b.atomic(0);
        let mut v = bool_script(
            &|| x.load(SC, s),
            &|v| x.swap(v, SC, s),
            &|c, n| x.compare_exchange(c, n, SC, SC, s),
            &|op, v| match op {
                '&' => x.fetch_and(v, SC, s),
                '|' => x.fetch_or(v, SC, s),
                _ => x.fetch_xor(v, SC, s),
            },
        );
        v.push(format!("{:?}", b.to_vec())); // plain reads of both elements
        rec(v)
    });
    let shim = only(|rec: &dyn Fn(Vec<String>)| {
        let x = ss::AtomicBool::new(true);
        rec(bool_script(
            &|| x.load(SC),
            &|v| x.swap(v, SC),
            &|c, n| x.compare_exchange(c, n, SC, SC),
            &|op, v| match op {
                '&' => x.fetch_and(v, SC),
                '|' => x.fetch_or(v, SC),
                _ => x.fetch_xor(v, SC),
            },
        ))
    });
    let rlx = only(|rec: &dyn Fn(Vec<String>)| {
        let a = ss::AtomicBool::new(true);
        let x = a.rlx(None);
        rec(bool_script(
            &|| x.load().get(),
            &|v| x.swap(v).get(),
            &|c, n| x.compare_exchange(c, n).get(),
            &|op, v| {
                match op {
                    '&' => x.fetch_and(v),
                    '|' => x.fetch_or(v),
                    _ => x.fetch_xor(v),
                }
                .get()
            },
        ))
    });
    assert_eq!(mem, want);
    assert_eq!(buf[..want.len()], want[..]);
    assert_eq!(buf[want.len()], "[true, true]");
    assert_eq!(shim, want, "the AtomicBool shim");
    assert_eq!(rlx, want, "AtomicBool::rlx");
}

// --------------------------------------- plain accesses read the same word

#[test]
fn plain_writes_and_atomic_reads_agree() {
    let got = only(|rec: &dyn Fn(Vec<String>)| {
        let b = Buffer::from_slice(&[0i16]);
        b.set(0, -2);
        let p = Plain::new(-2i32);
        let r = AtomicRef::cuda(&p, thread_scope::block);
        let mut v = vec![
            format!("{}", b.atomic(0).load(SC, Scope::Block)),
            format!("{}", r.load()),
        ];
        b.atomic(0).store(i16::MIN, SC, Scope::Block);
        r.store(i32::MIN);
        v.push(format!("{}", b.get(0)));
        v.push(format!("{}", p.read()));
        let f = Plain::new(false);
        f.write(true);
        v.push(format!("{}", f.read()));
        rec(v);
    });
    assert_eq!(
        got,
        ["-2", "-2", "-32768", "-2147483648", "true"].map(String::from).to_vec()
    );
}

// ------------------------------------------------------------ concurrency

/// Two threads, a signed `fetch_max(50)` and `fetch_min(i32::MIN)` from
/// -100: each order of the two is one execution, and the results are
/// signed comparisons (unsigned, -100 would beat 50), on each front end alike.
#[test]
fn racing_signed_min_and_max_have_the_same_outcomes_on_every_front_end() {
    type Run = (i32, i32, i32);
    let two = |a: &(dyn Fn() -> i32 + Sync), b: &(dyn Fn() -> i32 + Sync), last: &dyn Fn() -> i32| -> Run {
        let (x, y) = scopecheck::thread::scope(|s| {
            let h = s.spawn(a);
            let y = b();
            (h.join().unwrap(), y)
        });
        (x, y, last())
    };
    let at = Scope::Device;
    let mem = both(MemoryModel::Cpp20, move |rec: &dyn Fn(Run)| {
        let m = alloc_in(MemoryKind::Device, -100i32);
        rec(two(
            &|| m.fetch_max(50, SC, at),
            &|| m.fetch_min(i32::MIN, SC, at),
            &|| m.load(SC, at),
        ))
    });
    let buf = both(MemoryModel::Cpp20, move |rec: &dyn Fn(Run)| {
        let b = Buffer::from_slice(&[-100i32]);
        rec(two(
            &|| b.atomic(0).fetch_max(50, SC, at),
            &|| b.atomic(0).fetch_min(i32::MIN, SC, at),
            &|| b.get(0),
        ))
    });
    let aref = both(MemoryModel::Cpp20, move |rec: &dyn Fn(Run)| {
        let c = Plain::new(-100i32);
        let r = AtomicRef::cuda(&c, thread_scope::device);
        rec(two(&|| r.fetch_max(50), &|| r.fetch_min(i32::MIN), &|| c.read()))
    });
    let want: BTreeSet<Run> = [
        (-100, 50, i32::MIN), // max first: 50, then min: MIN
        (i32::MIN, -100, 50), // min first: MIN, then max: 50
    ]
    .into();
    assert_eq!(mem, (want.clone(), 2));
    assert_eq!(buf, (want.clone(), 2));
    assert_eq!(aref, (want, 2));
}

// ------------------------------------------------------------------ errors

#[test]
fn every_front_end_refuses_values_wider_than_a_word_at_the_callers_line() {
    #[derive(Copy, Clone, Debug)]
    struct Wide([u64; 2]);
    impl AtomicValue for Wide {
        const KIND: scopecheck::sync::atomic_ref::ValueKind = scopecheck::sync::atomic_ref::ValueKind::Other;
        fn to_bits(self) -> u64 {
            self.0[0]
        }
        fn from_bits(b: u64) -> Wide {
            Wide([b, 0])
        }
    }
    fn discard<T>(_: T) {}
    let bodies: [(u32, fn()); 3] = [
        (line!(), || discard(alloc_in(MemoryKind::Device, Wide([1, 2])))),
        (line!(), || discard(Buffer::from_slice(&[Wide([1, 2])]))),
        (line!(), || discard(Plain::new(Wide([1, 2])))),
    ];
    for (line, body) in bodies {
        let r: Report = Builder::new().explore(body);
        let f = the_failure(&r, FailureKind::Panic);
        assert!(
            f.message().contains("holds values of at most 8 bytes"),
            "{}",
            f.message()
        );
        assert!(
            f.message().contains("Wide does not fit: this type has 16"),
            "{}",
            f.message()
        );
        let at = format!("(at {}:{line}:", file!());
        assert!(f.message().contains(&at), "{at} in {}", f.message());
    }
}
