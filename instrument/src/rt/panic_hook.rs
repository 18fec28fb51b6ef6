//! Panics inside a model are failures to report, not output: while a model
//! runs on this OS thread, the panic hook records the message and location
//! instead of printing them. Other threads' panics go to the previous hook.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static IN_MODEL: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

static INSTALL: Once = Once::new();

fn install() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_MODEL.with(|m| m.get()) {
                let msg = payload_text(info.payload());
                let text = match info.location() {
                    Some(l) => format!("{msg} (at {}:{}:{})", l.file(), l.line(), l.column()),
                    None => msg,
                };
                LAST.with(|l| *l.borrow_mut() = Some(text));
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

/// Called when it ends.
pub(crate) fn leave_model() {
    IN_MODEL.with(|m| m.set(false));
    let last = LAST.with(|l| l.borrow_mut().take());
    // Leaving because the checker's own code panicked (outside every model
    // thread): the hook kept the message quiet, so say it here, plainly as
    // the checker's failure, before the panic goes on.
    if std::thread::panicking() {
        if let Some(msg) = last {
            eprintln!("scopecheck internal error (a bug in the checker, not in the program under test): {msg}");
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
    LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| payload_text(p))
}
