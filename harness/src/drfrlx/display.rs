//! How a DRFrlx report reads: its counts, races with their ordering
//! paths, failures, non-SC outcomes, inferences, notes and what a bound cut.

use super::{DrfReport, Suggestion};
use std::fmt;

impl fmt::Display for DrfReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "DRFrlx: {} SC executions{}, {} weak executions",
            self.sc_executions,
            if self.quantum_programs > 0 {
                format!(
                    "; quantum-equivalent program: {} executions over {} combinations of quantum values",
                    self.quantum_executions, self.quantum_programs
                )
            } else {
                String::new()
            },
            self.weak_executions
        )?;
        if self.races.is_empty() {
            if self.incomplete.is_empty() {
                writeln!(f, "no illegal race")?;
            } else {
                writeln!(f, "no illegal race in what was checked (see `incomplete` below)")?;
            }
        }
        for r in &self.races {
            writeln!(
                f,
                "{}: {} ({}) and {} ({}), in {} SC execution(s){}",
                r.kind,
                r.first.0,
                r.first.1,
                r.second.0,
                r.second.1,
                r.executions,
                if r.quantum_equivalent {
                    " of the quantum-equivalent program"
                } else {
                    ""
                }
            )?;
            writeln!(f, "  why: {}", r.why)?;
            if let Some(p) = &r.path {
                writeln!(f, "  ordering path:")?;
                for l in p {
                    writeln!(f, "    {l}")?;
                }
            }
        }
        for (name, values) in &self.quantum_domains {
            let vals: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            writeln!(
                f,
                "quantum values tried at {name}: {{{}}} (the verdict covers these values only)",
                vals.join(", ")
            )?;
        }
        if !self.outside.is_empty() {
            let lines: Vec<String> = self.outside.iter().map(|s| s.to_string()).collect();
            writeln!(
                f,
                "outside DRFrlx: acquire/release atomics at {} (DRFrlx's paired atomics are seq_cst; its SC \
                 guarantee does not cover these, and the weak-model run gives them their own semantics)",
                lines.join(", ")
            )?;
        }
        for fl in &self.failures {
            writeln!(f, "failure: {}", fl.message())?;
        }
        for o in &self.non_sc {
            let st: Vec<String> = o.state.iter().map(|(l, v)| format!("{l}={v}")).collect();
            writeln!(f, "non-SC outcome: {}", st.join(" "))?;
            if o.blamed.is_empty() {
                writeln!(f, "  allowed by nothing the analysis found: a checker bug")?;
            }
            for b in &o.blamed {
                writeln!(f, "  allowed by {b}")?;
            }
        }
        for i in &self.inferences {
            let legal: Vec<&str> = i.legal.iter().map(|c| c.name()).collect();
            let given = i.given.map_or("unclassified".to_string(), |c| c.name().to_string());
            match &i.suggestion {
                Suggestion::Class(c) => writeln!(
                    f,
                    "inference: {} ({given}): legal as {}; use {c}",
                    i.site,
                    legal.join(", ")
                )?,
                Suggestion::MustBePaired => writeln!(
                    f,
                    "inference: {} ({given}): no relaxed class is legal; it must be paired",
                    i.site
                )?,
                Suggestion::Nothing => writeln!(
                    f,
                    "inference: {} ({given}): no class makes the program legal (other races remain)",
                    i.site
                )?,
            }
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        for i in &self.incomplete {
            writeln!(f, "incomplete: {i}")?;
        }
        Ok(())
    }
}
