//! `models`: the models' own inclusions on a generated program. Every `sc`
//! outcome is an `rc11` outcome; `src11` with every scope written as system
//! scope has exactly `rc11`'s outcomes; `rc11`'s outcomes are `src11`
//! outcomes whatever the scopes; narrowing one scope never removes an
//! outcome under `src11`.

use crate::program::{Program, Shape};
use crate::run::{missing, outcomes, run};
use arbitrary::Unstructured;
use scopecheck::{MemoryModel, Strategy};

/// Runs the target on `data`.
pub fn check(data: &[u8]) {
    if let Some((p, site)) = input(data) {
        check_program(&p, site);
    }
}

/// The program `data` stands for and the scope site to narrow (`None` when
/// the bytes run out before a program is drawn).
pub fn input(data: &[u8]) -> Option<(Program, usize)> {
    let mut u = Unstructured::new(data);
    let p = Program::generate(&mut u, &Shape::models()).ok()?;
    // Which site to narrow is drawn after the program, from what is left.
    let sites = p.scope_sites();
    let site = if sites > 0 {
        u.int_in_range(0..=sites - 1).unwrap_or(0)
    } else {
        0
    };
    Some((p, site))
}

/// Checks the inclusions on `p`, narrowing scope site `site` (on GPU programs).
pub fn check_program(p: &Program, site: usize) {
    let src = p.to_string();
    let ex = Strategy::Exhaustive;
    let sc = outcomes(&run(&src, MemoryModel::Sc, ex.clone()));
    let rc = outcomes(&run(&src, MemoryModel::Rc11, ex.clone()));
    assert!(
        sc.is_subset(&rc),
        "sc outcomes missing under rc11:\n{}{src}",
        missing(&sc, &rc)
    );
    let scoped = outcomes(&run(&src, MemoryModel::Src11, ex.clone()));
    assert!(
        rc.is_subset(&scoped),
        "rc11 outcomes missing under src11:\n{}{src}",
        missing(&rc, &scoped)
    );
    let system = p.all_system().to_string();
    let sys = outcomes(&run(&system, MemoryModel::Src11, ex.clone()));
    assert!(
        sys == rc,
        "src11 with system scopes differs from rc11\nonly src11:\n{}only rc11:\n{}{system}",
        missing(&sys, &rc),
        missing(&rc, &sys)
    );
    if !p.on_gpu() {
        return;
    }
    if let Some(narrow) = p.narrowed(site) {
        let narrow = narrow.to_string();
        let wide = outcomes(&run(&narrow, MemoryModel::Src11, ex));
        assert!(
            scoped.is_subset(&wide),
            "narrowing scope site {site} removed src11 outcomes:\n{}before:\n{src}after:\n{narrow}",
            missing(&scoped, &wide)
        );
    }
}
