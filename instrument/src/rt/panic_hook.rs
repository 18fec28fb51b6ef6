//! Panics inside a model are failures to report, not output: while a model
//! runs on this OS thread, the panic hook records the message and location
//! instead of printing them. Other threads' panics go to the previous hook.
//!
//! One exception: a panic in a `Drop` while the thread unwinds from an
//! earlier panic. Rust aborts the process there (it cannot be caught), so
//! the recorded messages would be lost with the report: the hook prints
//! them first (see [`is_abort_panic`]).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static IN_MODEL: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The message recorded before `LAST`, if not taken since: the panic
    /// being unwound when `LAST` started in a `Drop`.
    static BEFORE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The checker's panic under way is about the user's setting or
    /// resources (see [`not_the_checkers`]), not a bug of the checker.
    static NOT_INTERNAL: Cell<bool> = const { Cell::new(false) };
}

/// Marks the panic the checker is about to raise on this thread as the
/// user's setting failing (a stack `Builder::stack_size` bytes long that
/// cannot be mapped), so that [`leave_model`] does not call it a checker
/// bug.
pub(crate) fn not_the_checkers() {
    NOT_INTERNAL.with(|n| n.set(true));
}

static INSTALL: Once = Once::new();

fn install() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_MODEL.with(|m| m.get()) {
                let msg = payload_text(info.payload());
                if is_abort_panic(&msg, info.location()) {
                    print_double_panic();
                    return;
                }
                let text = match info.location() {
                    Some(l) => format!("{msg} (at {}:{}:{})", l.file(), l.line(), l.column()),
                    None => msg,
                };
                let before = LAST.with(|l| l.borrow_mut().replace(text));
                BEFORE.with(|b| *b.borrow_mut() = before);
            } else {
                previous(info);
            }
        }));
    });
}

/// Called when a model starts on this thread.
pub(crate) fn enter_model() {
    install();
    IN_MODEL.with(|m| m.set(true));
}

/// Whether the panic whose message is `msg` is the one Rust raises to
/// abort when a panic leaves a `Drop` during unwinding (or a function that
/// cannot unwind): its message is std's own, raised from core's
/// `panicking.rs`. (The test `double_panic.rs` checks that this is still
/// std's wording.)
fn is_abort_panic(msg: &str, at: Option<&std::panic::Location<'_>>) -> bool {
    msg.starts_with("panic in a destructor during cleanup")
        || msg.starts_with("panic in a function that cannot unwind")
        || at.is_some_and(|l| {
            let f = l.file().replace('\\', "/");
            f.ends_with("core/src/panicking.rs") && msg.starts_with("panic in a")
        })
}

/// The process is about to abort on a panic during unwinding: says which
/// two panics of the program did it, while they can still be said.
fn print_double_panic() {
    let second = LAST.with(|l| l.borrow_mut().take());
    let first = BEFORE.with(|b| b.borrow_mut().take());
    let thread = super::CURRENT
        .with(|c| c.get())
        .map_or_else(|| "a model thread".to_string(), |t| format!("model thread {t}"));
    let mut text = format!(
        "scopecheck: {thread} panicked in a `Drop` while it was unwinding from an earlier panic (the program's \
         own double panic, not a checker error); Rust aborts the process on that, so the model's report cannot \
         be printed."
    );
    match (first, second) {
        (Some(first), Some(second)) => {
            text += &format!("\n  first panic: {first}\n  panic during unwinding: {second}");
        }
        (None, Some(only)) | (Some(only), None) => text += &format!("\n  panic: {only}"),
        (None, None) => {}
    }
    eprintln!("{text}");
}

/// Called when it ends.
pub(crate) fn leave_model() {
    IN_MODEL.with(|m| m.set(false));
    BEFORE.with(|b| b.borrow_mut().take());
    let last = LAST.with(|l| l.borrow_mut().take());
    // Leaving because the checker's own code panicked (outside every model
    // thread): the hook kept the message quiet, so say it here, plainly as
    // the checker's failure, before the panic goes on.
    let not_internal = NOT_INTERNAL.with(|n| n.replace(false));
    if std::thread::panicking() {
        if let Some(msg) = last {
            if not_internal {
                eprintln!("{msg}");
            } else {
                eprintln!("scopecheck internal error (a bug in the checker, not in the program under test): {msg}");
            }
        }
    }
}

fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(panic payload that is not a string)".to_string()
    }
}

/// The message (with location) of the panic whose payload is `p`.
pub fn panic_message(p: &(dyn Any + Send)) -> String {
    BEFORE.with(|b| b.borrow_mut().take());
    LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| payload_text(p))
}
