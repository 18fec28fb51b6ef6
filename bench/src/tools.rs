//! The tools and exploration modes a row is measured with.

/// A tool and the way it explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// scopecheck, `Strategy::Exhaustive`.
    ScopecheckExhaustive,
    /// loom, `loom::model::Builder::new().check(..)`.
    Loom,
    /// scopecheck, `Strategy::Random { seed, iterations }`.
    ScopecheckRandom,
    /// shuttle, `shuttle::check_random(f, iterations)`.
    Shuttle,
    /// scopecheck, `Builder::explore_parallel(cores, f)`: the exhaustive
    /// exploration split into shards on every core.
    ScopecheckParallel,
    /// scopecheck, `Strategy::Pct { seed, iterations, depth: 3 }`.
    ScopecheckPct,
    /// shuttle, `shuttle::check_pct(f, iterations, 3)`.
    ShuttlePct,
}

impl Tool {
    /// Every tool, in the order each program runs them.
    pub const ALL: [Tool; 7] = [
        Tool::ScopecheckExhaustive,
        Tool::Loom,
        Tool::ScopecheckParallel,
        Tool::ScopecheckRandom,
        Tool::Shuttle,
        Tool::ScopecheckPct,
        Tool::ShuttlePct,
    ];

    /// Name, as accepted by `--tools`.
    pub fn name(self) -> &'static str {
        match self {
            Tool::ScopecheckExhaustive => "scopecheck",
            Tool::Loom => "loom",
            Tool::ScopecheckRandom => "scopecheck-random",
            Tool::Shuttle => "shuttle",
            Tool::ScopecheckParallel => "scopecheck-parallel",
            Tool::ScopecheckPct => "scopecheck-pct",
            Tool::ShuttlePct => "shuttle-pct",
        }
    }

    /// The scopecheck run this tool's time is compared with.
    pub fn baseline(self) -> Option<Tool> {
        match self {
            Tool::Loom => Some(Tool::ScopecheckExhaustive),
            Tool::Shuttle => Some(Tool::ScopecheckRandom),
            // The ratio is then the speed-up on all cores.
            Tool::ScopecheckParallel => Some(Tool::ScopecheckExhaustive),
            Tool::ShuttlePct => Some(Tool::ScopecheckPct),
            _ => None,
        }
    }
}

/// Parses a comma-separated tool list.
pub fn parse_tools(arg: &str) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    for part in arg.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let found: Vec<Tool> = match part {
            "all" => Tool::ALL.to_vec(),
            "exhaustive" => vec![Tool::ScopecheckExhaustive, Tool::Loom],
            "random" => vec![Tool::ScopecheckRandom, Tool::Shuttle],
            "pct" => vec![Tool::ScopecheckPct, Tool::ShuttlePct],
            name => Tool::ALL.iter().copied().filter(|t| t.name() == name).collect(),
        };
        if found.is_empty() {
            return Err(format!(
                "unknown tool `{part}` (scopecheck, loom, scopecheck-parallel, scopecheck-random, shuttle, scopecheck-pct, shuttle-pct, exhaustive, random, pct, all)"
            ));
        }
        for t in found {
            if !tools.contains(&t) {
                tools.push(t);
            }
        }
    }
    tools.sort_by_key(|t| Tool::ALL.iter().position(|u| u == t));
    Ok(tools)
}
