//! Output whose every write is checked.
//!
//! Results written nowhere are lost results: a write that fails (a full
//! disk, `> /dev/full`, a closed pipe) must not end in exit status 0. The
//! first failure is kept; the command then stops checking further tests
//! and exits with [`WRITE_FAILED`], after one message on standard error,
//! except for a closed pipe (`scopecheck ... | head`), where it stops
//! quietly with [`BROKEN_PIPE`], the status a shell reports for a tool
//! that a closed pipe stopped.

use std::io::{self, Write};

/// Exit status after a failed write of results.
pub const WRITE_FAILED: u8 = 2;

/// Exit status after standard output's reader went away (128 + SIGPIPE).
pub const BROKEN_PIPE: u8 = 141;

/// Standard output, every write checked.
pub struct Out {
    inner: io::Stdout,
    error: Option<io::Error>,
}

impl Default for Out {
    fn default() -> Out {
        Out::new()
    }
}

impl Out {
    /// Standard output.
    pub fn new() -> Out {
        Out {
            inner: io::stdout(),
            error: None,
        }
    }

    /// Writes `text`, unless an earlier write failed; a failure is kept.
    pub fn write(&mut self, text: &str) {
        if self.error.is_none() {
            if let Err(e) = self.inner.lock().write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Whether a write failed (the run should stop).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Flushes, and turns a failure into the exit status to end with (after
    /// saying what failed, unless the pipe was closed).
    pub fn finish(mut self) -> Option<u8> {
        if self.error.is_none() {
            if let Err(e) = self.inner.lock().flush() {
                self.error = Some(e);
            }
        }
        let e = self.error?;
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Some(BROKEN_PIPE);
        }
        eprint_line(format_args!(
            "scopecheck: cannot write the results to standard output: {e}"
        ));
        Some(WRITE_FAILED)
    }
}

/// Writes one line to standard error. A failure there is ignored: there is
/// nowhere left to report it, and the exit status still tells.
pub fn eprint_line(text: impl std::fmt::Display) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}
