//! `parse`: arbitrary bytes as a litmus file. The parser and the checker
//! never panic; a refusal is located (`file:line:col:` for parse errors,
//! invalid tests and unsupported constructs, inside the text); a run is bounded by small limits.

use crate::run::FILE;
use scopecheck::litmus::{check_source, parse, Options, TestError};
use std::time::Duration;

/// The bounds a parsed input runs under: unroll 2, 64 executions, 200 ms,
/// the model the test's dialect implies.
pub fn options() -> Options {
    Options {
        unroll: 2,
        max_executions: Some(64),
        max_duration: Some(Duration::from_millis(200)),
        ..Options::default()
    }
}

/// Runs the target on `data`.
pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let lines = src.split('\n').count() as u32;
    let parsed = parse(&src);
    let r = check_source(FILE, &src, &options());
    match (&parsed, &r) {
        (Err(pe), Err(TestError::Parse(ce))) => assert_eq!(pe, ce, "parse and check_source disagree"),
        (Err(pe), _) => panic!("parse refused ({pe}) but check_source did not"),
        (Ok(_), Err(TestError::Parse(e))) => panic!("parse accepted but check_source says {e}"),
        _ => {}
    }
    match r {
        Ok(_) => {}
        Err(e @ (TestError::Parse(_) | TestError::Invalid { .. } | TestError::Unsupported { .. })) => {
            let (pos, msg) = match &e {
                TestError::Parse(p) => (p.pos, &p.message),
                TestError::Invalid { pos, message } | TestError::Unsupported { pos, message } => (*pos, message),
                _ => unreachable!(),
            };
            assert!(
                pos.line >= 1 && pos.line <= lines && pos.col >= 1,
                "{} is outside the text ({lines} lines)",
                e.located(FILE)
            );
            assert!(!msg.is_empty(), "an empty message at {pos}");
            let located = e.located(FILE);
            assert!(
                located.starts_with(&format!("{FILE}:{}:{}: ", pos.line, pos.col)),
                "not located: {located}"
            );
        }
        Err(e @ (TestError::Io(_) | TestError::Internal(_))) => {
            panic!("{}\n--- input ---\n{src}", e.located(FILE))
        }
    }
}
