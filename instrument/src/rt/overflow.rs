//! Stack overflow in a model thread.
//!
//! Model threads run on coroutine stacks with a guard page below them
//! (corosensei's `DefaultStack`). Touching it raises `SIGSEGV` on the
//! coroutine's exhausted stack, so the handler runs on an alternate signal
//! stack (`sigaltstack`, set up for every OS thread that runs a model). It
//! looks at the fault: an address in the guard page of the model thread
//! running on this OS thread is that thread's stack overflow; anything else
//! goes to the handler that was there before (std's, which reports the OS
//! thread's own overflows, or the default action).
//!
//! An overflow is recovered from when that is safe: the coroutine is
//! redirected to return [`Exit::Overflowed`] (corosensei's trap handler
//! support), its frames are discarded as an abandoned thread's are (nothing
//! of them runs, what they own is leaked) and the execution fails with a
//! stack-overflow report that names `Builder::stack_size`. It is safe when
//! the fault is in the program's own code (not in a shared library such as
//! libc's allocator, which may hold a lock), the checker's state is not
//! borrowed (the overflow is not inside the checker) and the thread is not
//! panicking (the panic machinery's state would be left half-updated).
//! Otherwise, and on platforms where the registers cannot be redirected,
//! the handler prints std's message with the model thread's number and the
//! setting to raise, and aborts, as std does.
//!
//! Only Linux has the handler (x86-64 recovers; other architectures print
//! and abort); elsewhere an overflow is the platform's plain crash.

use super::Exit;
use corosensei::trap::CoroutineTrapHandler;
use scopecheck_checker::event::ThreadId;

/// What the handler needs to know about a model thread (kept by the
/// runtime next to its coroutine; the handler sees the running one's).
pub(super) struct Guard {
    trap: CoroutineTrapHandler<Exit>,
    /// The guard page's first address (it is one page long).
    low: usize,
    thread: ThreadId,
}

impl Guard {
    /// The guard of thread `thread`, whose stack's limit (the lowest
    /// address of its mapping, where the guard page is) is `limit`.
    #[inline]
    pub(super) fn new(trap: CoroutineTrapHandler<Exit>, limit: usize, thread: ThreadId) -> Guard {
        Guard {
            trap,
            low: limit,
            thread,
        }
    }
}

pub(super) use imp::{enter, leave, prepare_thread, stack_size};

/// The failure message of a recovered overflow.
pub(super) fn message(thread: ThreadId, stack_size: usize) -> String {
    format!(
        "thread {thread} has overflowed its stack: a model thread's stack is {stack_size} bytes here \
         (`Builder::stack_size`; a std thread gets 2 MiB by default); raise `Builder::stack_size` if the \
         recursion is meant to be this deep"
    )
}

#[cfg(target_os = "linux")]
mod imp {
    use super::Guard;
    use std::cell::{Cell, UnsafeCell};
    use std::mem::MaybeUninit;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    thread_local! {
        /// The guard of the model thread running on this OS thread (null:
        /// none). The runtime sets it right before resuming the thread and
        /// clears it right after, and the guard does not move meanwhile.
        static ACTIVE: Cell<*const Guard> = const { Cell::new(std::ptr::null()) };
        /// This OS thread's alternate signal stack, if this module made it.
        static ALT: AltStack = const { AltStack(Cell::new(0)) };
        /// The size of the model threads' stacks in the run on this OS thread.
        static SIZE: Cell<usize> = const { Cell::new(0) };
    }

    const ALT_SIZE: usize = 64 * 1024;

    /// An alternate signal stack made here; disabled and unmapped when its
    /// OS thread ends.
    struct AltStack(Cell<usize>);

    impl Drop for AltStack {
        fn drop(&mut self) {
            let base = self.0.get();
            if base != 0 {
                // SAFETY: disables the alternate stack this thread registered
                // (this is its own thread-local, dropped on its own thread)
                // before unmapping the mapping made for it.
                unsafe {
                    let off = libc::stack_t {
                        ss_sp: std::ptr::null_mut(),
                        ss_flags: libc::SS_DISABLE,
                        ss_size: ALT_SIZE,
                    };
                    libc::sigaltstack(&off, std::ptr::null_mut());
                    libc::munmap(base as *mut libc::c_void, ALT_SIZE + page_size());
                }
            }
        }
    }

    static PAGE: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn page_size() -> usize {
        let p = PAGE.load(Ordering::Relaxed);
        if p != 0 {
            return p;
        }
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        PAGE.store(p, Ordering::Relaxed);
        p
    }

    /// The handlers that were installed before ours (SIGSEGV, SIGBUS).
    struct Previous(UnsafeCell<[MaybeUninit<libc::sigaction>; 2]>);
    // SAFETY: written once, inside `INSTALL`, before the handler that reads
    // it is installed; only read afterwards.
    unsafe impl Sync for Previous {}
    static PREVIOUS: Previous = Previous(UnsafeCell::new([MaybeUninit::uninit(), MaybeUninit::uninit()]));
    static INSTALL: Once = Once::new();

    /// The program's own code: the executable segments of the object this
    /// module is linked into (up to 4 ranges; none if not found).
    static CODE: [AtomicUsize; 8] = [const { AtomicUsize::new(0) }; 8];

    /// The size of the model threads' stacks in the run on this OS thread.
    pub(crate) fn stack_size() -> usize {
        SIZE.with(|s| s.get())
    }

    /// Makes this OS thread ready to catch a model thread's overflow (its
    /// stacks are `stack_size` bytes): the process-wide handler (once) and
    /// an alternate signal stack for this thread if it has none.
    pub(crate) fn prepare_thread(stack_size: usize) {
        SIZE.with(|s| s.set(stack_size));
        INSTALL.call_once(install);
        // SAFETY: queries this thread's alternate stack, and registers one
        // made here if it has none; the mapping lives until the thread ends
        // (`AltStack`'s drop unregisters it first).
        unsafe {
            let mut old = MaybeUninit::<libc::stack_t>::zeroed();
            if libc::sigaltstack(std::ptr::null(), old.as_mut_ptr()) != 0 {
                return;
            }
            if old.assume_init().ss_flags & libc::SS_DISABLE == 0 {
                return;
            }
            let page = page_size();
            let map = libc::mmap(
                std::ptr::null_mut(),
                ALT_SIZE + page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if map == libc::MAP_FAILED {
                return;
            }
            // A guard page below the alternate stack too.
            libc::mprotect(map, page, libc::PROT_NONE);
            let st = libc::stack_t {
                ss_sp: (map as usize + page) as *mut libc::c_void,
                ss_flags: 0,
                ss_size: ALT_SIZE,
            };
            if libc::sigaltstack(&st, std::ptr::null_mut()) == 0 {
                ALT.with(|a| a.0.set(map as usize));
            } else {
                libc::munmap(map, ALT_SIZE + page);
            }
        }
    }

    fn install() {
        page_size();
        find_code();
        // SAFETY: `PREVIOUS` is written before the handler that reads it is
        // installed, and only here (inside the `Once`). The new action is a
        // valid `SA_SIGINFO` handler that runs on the alternate stack.
        unsafe {
            let prev = &mut *PREVIOUS.0.get();
            for (i, sig) in [libc::SIGSEGV, libc::SIGBUS].into_iter().enumerate() {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, std::ptr::null(), prev[i].as_mut_ptr());
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    }

    /// Records the executable segments of the object holding this code.
    fn find_code() {
        unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut libc::c_void) -> libc::c_int {
            // SAFETY: the loader passes a valid `info` for the duration of
            // the call; `data` is the marker address passed below.
            unsafe {
                let marker = *(data as *const usize);
                let info = &*info;
                let phdrs = std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize);
                let exec = |p: &&libc::Elf64_Phdr| p.p_type == libc::PT_LOAD && p.p_flags & libc::PF_X != 0;
                let range = |p: &libc::Elf64_Phdr| {
                    let lo = info.dlpi_addr as usize + p.p_vaddr as usize;
                    (lo, lo + p.p_memsz as usize)
                };
                if !phdrs.iter().filter(exec).any(|p| {
                    let (lo, hi) = range(p);
                    (lo..hi).contains(&marker)
                }) {
                    return 0;
                }
                for (i, p) in phdrs.iter().filter(exec).take(4).enumerate() {
                    let (lo, hi) = range(p);
                    CODE[2 * i].store(lo, Ordering::Relaxed);
                    CODE[2 * i + 1].store(hi, Ordering::Relaxed);
                }
                1
            }
        }
        let mut marker = handler as *const () as usize;
        // SAFETY: `each` only reads what the loader gives it and `marker`.
        unsafe {
            libc::dl_iterate_phdr(Some(each), &mut marker as *mut usize as *mut libc::c_void);
        }
    }

    fn in_own_code(pc: usize) -> bool {
        (0..4).any(|i| {
            let lo = CODE[2 * i].load(Ordering::Relaxed);
            let hi = CODE[2 * i + 1].load(Ordering::Relaxed);
            lo != 0 && (lo..hi).contains(&pc)
        })
    }

    /// Model thread `g` runs on this OS thread until [`leave`]; `g` must
    /// not move or be dropped until then.
    #[inline]
    pub(crate) fn enter(g: &Guard) {
        ACTIVE.with(|a| a.set(g));
    }

    /// No model thread runs on this OS thread (the runtime's own code).
    #[inline]
    pub(crate) fn leave() {
        ACTIVE.with(|a| a.set(std::ptr::null()));
    }

    /// Whether the checker's or the panic machinery's state could be half
    /// updated at the fault (then the run cannot go on).
    fn state_is_clean() -> bool {
        let free = super::super::SHARED.with(|s| s.try_borrow_mut().is_ok())
            && super::super::YIELDERS.with(|y| y.try_borrow_mut().is_ok());
        free && !std::thread::panicking()
    }

    /// Writes `parts` to stderr without allocating (a signal handler).
    fn say(parts: &[&[u8]]) {
        for p in parts {
            // SAFETY: writes a valid buffer to fd 2.
            unsafe {
                libc::write(2, p.as_ptr() as *const libc::c_void, p.len());
            }
        }
    }

    /// `n` in decimal, in `buf`.
    fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                return &buf[i..];
            }
        }
    }

    /// Redirects the interrupted model thread to return `Exit::Overflowed`,
    /// if this platform can.
    ///
    /// # Safety
    /// `ctx` is the handler's context argument, and the fault happened on
    /// `g`'s coroutine stack.
    #[cfg(target_arch = "x86_64")]
    unsafe fn redirect(g: &Guard, ctx: *mut libc::c_void) -> bool {
        // SAFETY: (the caller's) the context is the interrupted one, whose
        // stack pointer lies in the coroutine; corosensei resets that stack
        // and the registers below make the thread return from it.
        unsafe {
            let uc = &mut *(ctx as *mut libc::ucontext_t);
            let gregs = &mut uc.uc_mcontext.gregs;
            let (pc, sp) = (
                gregs[libc::REG_RIP as usize] as usize,
                gregs[libc::REG_RSP as usize] as usize,
            );
            if !g.trap.stack_ptr_in_bounds(sp) || !in_own_code(pc) || !state_is_clean() {
                return false;
            }
            let regs = g.trap.setup_trap_handler(|| super::Exit::Overflowed);
            gregs[libc::REG_RIP as usize] = regs.rip as i64;
            gregs[libc::REG_RSP as usize] = regs.rsp as i64;
            gregs[libc::REG_RBP as usize] = regs.rbp as i64;
            gregs[libc::REG_RDI as usize] = regs.rdi as i64;
            gregs[libc::REG_RSI as usize] = regs.rsi as i64;
            true
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    unsafe fn redirect(_g: &Guard, _ctx: *mut libc::c_void) -> bool {
        false
    }

    unsafe extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid `info` and `ctx` for this signal.
        let addr = unsafe { (*info).si_addr() } as usize;
        let active = ACTIVE.with(|a| a.get());
        // SAFETY: the runtime keeps the guard in place while it is active.
        if let Some(g) = unsafe { active.as_ref() } {
            if (g.low..g.low + page_size()).contains(&addr) {
                // SAFETY: the fault is in `g`'s guard page, so on its stack.
                if unsafe { redirect(g, ctx) } {
                    leave();
                    return;
                }
                let (mut b1, mut b2) = ([0u8; 20], [0u8; 20]);
                say(&[
                    b"\nthread ",
                    decimal(g.thread as usize, &mut b1),
                    b" has overflowed its stack\nscopecheck: model thread ",
                    decimal(g.thread as usize, &mut b2),
                    b" overflowed its stack (",
                ]);
                say(&[
                    decimal(stack_size(), &mut b1),
                    b" bytes; raise `Builder::stack_size`: a std thread gets 2 MiB by default); it cannot be \
                      reported as a failure here (the overflow hit code that may hold a lock, the checker's \
                      state, or a panic in progress)\nfatal runtime error: stack overflow, aborting\n",
                ]);
                // SAFETY: abort has no preconditions.
                unsafe { libc::abort() };
            }
        }
        // Not a model thread's overflow: what was there before.
        // SAFETY: `PREVIOUS` was filled before this handler was installed.
        unsafe {
            let i = if sig == libc::SIGSEGV { 0 } else { 1 };
            let prev = (*PREVIOUS.0.get())[i].assume_init_ref();
            let h = prev.sa_sigaction;
            if h == libc::SIG_DFL || h == libc::SIG_IGN {
                // Back to the default action; the fault happens again on
                // return and takes it.
                libc::sigaction(sig, prev, std::ptr::null_mut());
            } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
                let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(h);
                f(sig, info, ctx);
            } else {
                let f: unsafe extern "C" fn(libc::c_int) = std::mem::transmute(h);
                f(sig);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Guard;

    pub(crate) fn prepare_thread(stack_size: usize) {
        SIZE.with(|s| s.set(stack_size));
    }

    thread_local! {
        static SIZE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    pub(crate) fn stack_size() -> usize {
        SIZE.with(|s| s.get())
    }

    #[inline]
    pub(crate) fn enter(_g: &Guard) {}

    #[inline]
    pub(crate) fn leave() {}
}
