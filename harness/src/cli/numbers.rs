//! Value parsers for the command's numeric options. Each refuses what the
//! option cannot mean (a negative, infinite or not-a-number timeout, zero
//! jobs, zero executions) with a message; clap turns it into a usage error
//! that names the option, instead of a panic later.

use std::time::Duration;

/// The longest `--timeout` accepted, in seconds (one year): longer is no
/// bound at all, and far larger values overflow the clock's arithmetic.
pub const MAX_TIMEOUT_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// The most `--jobs` accepted: each job is an OS thread.
pub const MAX_JOBS: usize = 1024;

/// `--timeout SECONDS`: a finite number of seconds above 0, at most a year.
pub fn timeout(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("`{s}` is not a positive, finite number of seconds"));
    }
    if v > MAX_TIMEOUT_SECS {
        return Err(format!(
            "`{s}` seconds is more than the longest timeout accepted ({MAX_TIMEOUT_SECS} seconds, a year)"
        ));
    }
    Duration::try_from_secs_f64(v).map_err(|e| format!("`{s}`: {e}"))
}

/// A count that must be at least 1 (`--max-executions`).
pub fn positive_u64(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1 (a run of no execution answers nothing)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}` is not a whole number from 1 to {}: {e}", u64::MAX)),
    }
}

/// `--jobs N`: from 1 to [`MAX_JOBS`].
pub fn jobs(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!("`{s}` is not a number of jobs from 1 to {MAX_JOBS}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        assert_eq!(timeout("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(timeout("0.001"), Ok(Duration::from_millis(1)));
        for bad in [
            "-1", "0", "-0", "nan", "NaN", "inf", "-inf", "infinity", "1e300", "31536001", "", "x",
        ] {
            assert!(timeout(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(timeout("31536000"), Ok(Duration::from_secs(31_536_000)));
    }

    #[test]
    fn counts() {
        assert_eq!(positive_u64("1"), Ok(1));
        assert!(positive_u64("0").is_err());
        assert!(positive_u64("-1").is_err());
        assert!(positive_u64("18446744073709551616").is_err());
        assert_eq!(jobs("1"), Ok(1));
        assert_eq!(jobs("1024"), Ok(1024));
        for bad in ["0", "1025", "-1", "99999999999999999999", "two"] {
            assert!(jobs(bad).is_err(), "{bad} accepted");
        }
    }
}
