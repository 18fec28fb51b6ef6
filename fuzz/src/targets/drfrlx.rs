//! `drfrlx`: DRFrlx's theorem on generated programs whose atomics are
//! seq_cst (paired) or relaxed with a non-quantum class. When the SC
//! executions have no illegal race, the weak model (`rc11`) gives no final
//! memory that SC does not; non-SC results of racy programs are blamed on a
//! race.

use crate::program::{Program, Shape};
use crate::run::FILE;
use arbitrary::Unstructured;
use scopecheck::drfrlx::{Check, DrfReport, Infer};
use scopecheck::litmus::check_drfrlx_source;
use scopecheck::FailureKind;

/// Runs the target on `data`.
pub fn check(data: &[u8]) {
    if let Some(p) = input(data) {
        check_program(&p.to_string());
    }
}

/// The program `data` stands for (`None` when the bytes run out before a
/// program is drawn).
pub fn input(data: &[u8]) -> Option<Program> {
    Program::generate(&mut Unstructured::new(data), &Shape::drfrlx()).ok()
}

/// Checks the theorem on the litmus text `src`; returns the report.
pub fn check_program(src: &str) -> DrfReport {
    let check = Check {
        infer: Infer::Off,
        ..Check::new()
    };
    let r = match check_drfrlx_source(FILE, src, &check, 2) {
        Ok(r) => r,
        Err(e) => panic!("a generated program was refused: {}\n{src}", e.located(FILE)),
    };
    assert!(
        r.failures.iter().all(|f| f.kind() != FailureKind::Internal),
        "the checker failed inside\n{r}\n{src}"
    );
    assert!(
        r.notes.is_empty() && r.incomplete.is_empty(),
        "the check was cut short\n{r}\n{src}"
    );
    assert_eq!(r.quantum_programs, 0, "no quantum access was generated\n{src}");
    if r.races.is_empty() {
        assert!(
            !r.failures.iter().any(|f| f.kind() == FailureKind::DataRace),
            "a data race the DRFrlx analysis does not see\n{r}\n{src}"
        );
        assert!(r.non_sc.is_empty(), "a non-SC result in a legal program\n{r}\n{src}");
    }
    assert!(
        r.non_sc.iter().all(|o| !o.blamed.is_empty()),
        "a non-SC result blamed on nothing\n{r}\n{src}"
    );
    r
}
