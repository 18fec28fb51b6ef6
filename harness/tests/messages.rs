//! What a user reads in a report (issue 21 item 6): waits named by what
//! they wait on and where, no "explored 0 executions", a location legend
//! that stays short with many locations.

use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::{Arc, Condvar, Mutex};
use scopecheck::{thread, Builder, FailureKind, Report};

fn the_failure(r: &Report) -> &scopecheck::Failure {
    r.failures().first().unwrap_or_else(|| panic!("no failure: {r}"))
}

#[test]
fn a_condvar_wait_nobody_notifies_is_reported_at_the_wait() {
    static LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let r = Builder::new().explore(|| {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let p2 = pair.clone();
        let t = thread::spawn(move || {
            let (m, c) = &*p2;
            let mut g = m.lock().unwrap();
            while !*g {
                LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
                g = c.wait(g).unwrap();
            }
        });
        t.join().unwrap();
    });
    let f = the_failure(&r);
    assert_eq!(f.kind(), FailureKind::Deadlock, "{r}");
    let at = format!(
        "thread 1 waits at {}:{}:",
        file!(),
        LINE.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(f.message().contains(&at), "{}", f.message());
    assert!(f.message().contains("on a condvar"), "{}", f.message());
    assert!(!f.message().contains("spins on"), "{}", f.message());
}

#[test]
fn a_spin_loop_hang_names_the_hint_line() {
    let r = Builder::new().explore(|| {
        let flag = AtomicUsize::new(0);
        while flag.load(Ordering::Acquire) == 0 {
            scopecheck::hint::spin_loop(); // HINT
        }
    });
    let f = the_failure(&r);
    let hint = include_str!("messages.rs")
        .lines()
        .position(|l| l.ends_with("spin_loop(); // HINT"))
        .unwrap()
        + 1;
    let at = format!("thread 0 spins on loc0.0 at {}:{hint}:", file!());
    assert!(f.message().contains(&at), "{}", f.message());
}

#[test]
fn a_failure_in_the_first_execution_does_not_say_explored_0() {
    let r = Builder::new().explore(|| {
        let n = AtomicUsize::new(0);
        assert_eq!(n.load(Ordering::Relaxed), 1, "always fails");
    });
    assert_eq!((r.executions(), r.blocked(), r.failed()), (0, 0, 1));
    let text = r.to_string();
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("the first execution explored failed (in "), "{last}");
    assert!(!text.contains("explored 0"), "{text}");
}

#[test]
fn a_later_failure_counts_every_execution_run() {
    let r = Builder::new().explore(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || n2.store(1, Ordering::Relaxed));
        let seen = n.load(Ordering::Relaxed);
        t.join().unwrap();
        assert_eq!(seen, 0, "sees the store");
    });
    let last = r.to_string().lines().last().unwrap().to_string();
    let expect = format!(
        "explored {} execution(s): {} complete, {} blocked, 1 failed, in ",
        r.executions() + r.blocked() + 1,
        r.executions(),
        r.blocked()
    );
    assert!(last.starts_with(&expect), "{last}");
}

#[test]
fn sixty_locations_make_a_short_legend() {
    let r = Builder::new().explore(|| {
        let cells: Vec<AtomicUsize> = (0..60).map(AtomicUsize::new).collect();
        let other = AtomicUsize::new(0);
        let sum: usize = cells.iter().map(|c| c.load(Ordering::Relaxed)).sum();
        assert_eq!(sum + other.load(Ordering::Relaxed), 0, "nonzero");
    });
    let text = r.to_string();
    let start = text.find("    locations").expect("a legend");
    let legend: Vec<&str> = text[start..].lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(legend.len(), 3, "{}", legend.join("\n"));
    assert_eq!(legend[0], "    locations (61):");
    let here = file!();
    // (The sixty are created inside `map`, so their line is the library's.)
    assert!(
        legend[1].starts_with("      loc0.0-loc0.59 (60) created at "),
        "{}",
        legend[1]
    );
    assert!(
        legend[2].starts_with(&format!("      loc0.60 created at {here}:")),
        "{}",
        legend[2]
    );
}

#[test]
fn many_creation_sites_are_summed_up() {
    let r = Builder::new().explore(|| {
        let cells = [
            AtomicUsize::new(0),
            AtomicUsize::new(1),
            AtomicUsize::new(2),
            AtomicUsize::new(3),
            AtomicUsize::new(4),
            AtomicUsize::new(5),
            AtomicUsize::new(6),
            AtomicUsize::new(7),
            AtomicUsize::new(8),
            AtomicUsize::new(9),
            AtomicUsize::new(10),
            AtomicUsize::new(11),
            AtomicUsize::new(12),
            AtomicUsize::new(13),
            AtomicUsize::new(14),
            AtomicUsize::new(15),
            AtomicUsize::new(16),
            AtomicUsize::new(17),
            AtomicUsize::new(18),
            AtomicUsize::new(19),
        ];
        assert_eq!(cells[19].load(Ordering::Relaxed), 0, "nonzero");
    });
    let text = r.to_string();
    let start = text.find("    locations").expect("a legend");
    let legend: Vec<&str> = text[start..].lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(legend.len(), 1 + 12 + 1, "{}", legend.join("\n"));
    assert_eq!(legend[13], "      ... 8 more location(s) created at 8 other line(s)");
}

/// Run in a child process by `progress_is_shown_when_asked_and_not_when_captured`:
/// a 3-thread program (6 executions) with progress from the start.
#[test]
#[ignore = "a child process of progress_is_shown_when_asked_and_not_when_captured"]
fn progress_child() {
    let mut b = Builder::new();
    if std::env::var("CHILD_SETS_FIELD").is_ok() {
        b.show_progress = Some(true);
    }
    b.progress_after = std::time::Duration::ZERO;
    let r = b.explore(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..3)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || {
                    n.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
    assert_eq!(r.executions(), 6);
}

/// The progress lines' text in the child's stderr (a pipe: not a terminal).
fn child_progress(field: bool, env: Option<&str>) -> Vec<String> {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["progress_child", "--exact", "--ignored", "--test-threads=1"]);
    cmd.env_remove("SCOPECHECK_PROGRESS").env_remove("CHILD_SETS_FIELD");
    if field {
        cmd.env("CHILD_SETS_FIELD", "1");
    }
    if let Some(v) = env {
        cmd.env("SCOPECHECK_PROGRESS", v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8(out.stderr).unwrap();
    err.lines()
        .filter(|l| l.starts_with("scopecheck") && l.contains("execution(s) run"))
        .map(String::from)
        .collect()
}

#[test]
fn progress_is_shown_when_asked_and_not_when_captured() {
    // Asked for (field or environment): the first execution, then (runs
    // this short) only the closing line with the totals.
    for (field, env) in [(true, None), (false, Some("1"))] {
        let lines = child_progress(field, env);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains(": 1 execution(s) run (1 complete), "), "{lines:?}");
        assert!(lines[1].contains(": 6 execution(s) run (6 complete), "), "{lines:?}");
        assert!(
            lines[1].contains(" depth ") && lines[1].ends_with(" (done)"),
            "{lines:?}"
        );
    }
    // Not asked for, and stderr is a pipe: nothing. Turned off: nothing.
    assert_eq!(child_progress(false, None), Vec::<String>::new());
    assert_eq!(child_progress(false, Some("0")), Vec::<String>::new());
}

#[test]
fn lock_words_are_shown_in_lock_terms() {
    let r = Builder::new().explore(|| {
        let l = scopecheck::sync::RwLock::new(0);
        let m = Mutex::new(0);
        {
            let _r1 = l.read().unwrap();
            let _r2 = l.read().unwrap();
        }
        let _w = l.write().unwrap();
        let _g = m.lock().unwrap();
        panic!("stop here");
    });
    let text = r.to_string();
    assert!(!text.contains(&u64::MAX.to_string()), "{text}");
    for want in [
        "new rwlock loc0.0 = 0",
        "rwlock loc0.0 := 1 reader",
        "rwlock loc0.0 := 2 readers",
        "rwlock loc0.0 = unlocked",
        "rwlock loc0.0 := write-locked",
        "mutex loc0.1 := locked",
    ] {
        assert!(text.contains(want), "no `{want}` in {text}");
    }
}
