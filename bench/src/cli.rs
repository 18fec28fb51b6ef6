//! The command line: options, usage, argument parsing and the entry point.

use crate::child::encode_row;
use crate::measure::run_one;
use crate::programs::Program;
use crate::table::run;
use crate::table::scopecheck_errors;
use crate::tools::parse_tools;
use crate::tools::Tool;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

/// Parses a program name, or a group name, into programs.
pub fn parse_programs(arg: &str) -> Result<Vec<Program>, String> {
    let group: Vec<Program> = match arg {
        "all" => Program::all(),
        "large" => Program::large(),
        "litmus" => Program::all()
            .into_iter()
            .filter(|p| matches!(p.family(), "sb" | "mp" | "iriw"))
            .collect(),
        "rot" => parse_programs("cas-rot")?,
        family if Program::all().iter().any(|p| p.family() == family) => {
            Program::all().into_iter().filter(|p| p.family() == family).collect()
        }
        name => Program::every().into_iter().filter(|p| p.name() == name).collect(),
    };
    if group.is_empty() {
        Err(format!("unknown program `{arg}` (try --list)"))
    } else {
        Ok(group)
    }
}

/// Settings of a benchmark run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Programs, in order.
    pub programs: Vec<Program>,
    /// Tools, in order.
    pub tools: Vec<Tool>,
    /// Iterations for the two random tools.
    pub iterations: u64,
    /// Seed for scopecheck's random strategy.
    pub seed: u64,
    /// Memory model for the scopecheck runs.
    pub memory_model: scopecheck::MemoryModel,
    /// Wall-clock limit of one (program, tool) run.
    pub timeout: Duration,
    /// Stop scopecheck's exhaustive and parallel runs after this many
    /// executions (a size at which to read memory use; the row then counts
    /// the executions explored, not the program's whole number).
    pub max_executions: Option<u64>,
    /// Runs of each (program, tool); the table shows the run with the
    /// median wall time, the tools of a program alternated run by run (on
    /// a machine whose speed drifts, one-shot times are not comparable).
    pub repeat: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            programs: Program::all(),
            tools: Tool::ALL.to_vec(),
            iterations: 10_000,
            seed: 1,
            memory_model: scopecheck::MemoryModel::Cpp20,
            // Long enough for loom on the 3-thread programs; its 4-thread
            // searches run for many minutes (README) and are cut here.
            timeout: Duration::from_secs(300),
            max_executions: None,
            repeat: 1,
        }
    }
}

/// The usage text.
pub fn usage() -> String {
    let names: Vec<String> = Program::all().into_iter().map(Program::name).collect();
    let large: Vec<String> = Program::large().into_iter().map(Program::name).collect();
    format!(
        "usage: scopecheck-bench [OPTIONS] [PROGRAM...]\n\
         \n\
         Runs each PROGRAM (default: all) under each selected tool, each run in a child\n\
         process, and prints one table.\n\
         \n\
         PROGRAM: a name or a group.\n\
         \x20 names:  {}\n\
         \x20 large:  {} (not in `all`: 10^5 to 10^6 executions each)\n\
         \x20 by name only: cas-rot-13 (4,866,871 executions; with --max-executions, for memory use)\n\
         \x20 groups: sb, mp, iriw, litmus (= sb, mp, iriw), fai, cas-rot, readers, last-zero,\n\
         \x20         treiber, seqlock (each takes its programs in `all`), all (default), large\n\
         \n\
         OPTIONS:\n\
         \x20 --tools LIST       comma-separated: scopecheck, loom, scopecheck-parallel, scopecheck-random,\n\
         \x20                    shuttle, scopecheck-pct, shuttle-pct; exhaustive (= scopecheck,loom),\n\
         \x20                    random (= scopecheck-random,shuttle), pct (= scopecheck-pct,shuttle-pct), all (default)\n\
         \x20 --iterations N     iterations of the random and PCT tools (default 10000)\n\
         \x20 --seed N           seed of scopecheck's random strategy (default 1)\n\
         \x20 --model cpp20|rc11|sc  memory model of the scopecheck runs (default cpp20)\n\
         \x20 --timeout SECS     stop one (program, tool) run after SECS seconds (default 300)\n\
         \x20 --repeat N         run each (program, tool) N times, the tools of a program alternated run\n\
         \x20                    by run, and show the run with the median wall time (default 1)\n\
         \x20 --max-executions N stop scopecheck's exhaustive and parallel runs after N executions\n\
         \x20                    (to read memory use at a given size; the counts are then partial)\n\
         \x20 --list             list the programs and exit\n\
         \x20 -h, --help         this text\n",
        names.join(", "),
        large.join(", ")
    )
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Run the benchmark.
    Run(Options),
    /// Run one (program, tool) pair in this process and print its row
    /// for the parent (internal).
    Child(Program, Tool, Options),
    /// Print this text and exit successfully.
    Print(String),
}

/// Parses the command line (without the program name). `--bench`, which
/// `cargo bench` passes, is ignored.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut opts = Options::default();
    let mut programs: Vec<Program> = Vec::new();
    let mut child: Option<(String, String)> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Print(usage())),
            "--list" => {
                let mut s = String::new();
                for p in Program::every() {
                    let expected = p
                        .expected_rc11_executions()
                        .map(|n| format!("{n} executions under rc11"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        s,
                        "{:<13} {:>2} spawned threads  {expected}",
                        p.name(),
                        p.spawned_threads()
                    );
                }
                return Ok(Command::Print(s));
            }
            "--bench" => {}
            "--tools" => opts.tools = parse_tools(&value("--tools")?)?,
            "--iterations" => {
                opts.iterations = value("--iterations")?
                    .parse()
                    .map_err(|e| format!("--iterations: {e}"))?
            }
            "--seed" => opts.seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--repeat" => {
                let n: usize = value("--repeat")?.parse().map_err(|e| format!("--repeat: {e}"))?;
                if n == 0 {
                    return Err("--repeat: at least 1".into());
                }
                opts.repeat = n;
            }
            "--max-executions" => {
                let n = value("--max-executions")?;
                opts.max_executions = Some(n.parse().map_err(|e| format!("--max-executions: {e}"))?);
            }
            "--timeout" => {
                let secs: f64 = value("--timeout")?.parse().map_err(|e| format!("--timeout: {e}"))?;
                if !(secs > 0.0 && secs.is_finite()) {
                    return Err("--timeout must be a positive number of seconds".to_string());
                }
                opts.timeout = Duration::from_secs_f64(secs);
            }
            "--model" => {
                let name = value("--model")?;
                opts.memory_model = scopecheck::MemoryModel::from_name(&name)
                    .ok_or_else(|| format!("--model: unknown model `{name}` (cpp20, rc11, sc)"))?;
            }
            "--child" => {
                let p = value("--child")?;
                let t = args.next().ok_or("--child needs a program and a tool")?;
                child = Some((p, t));
            }
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`\n\n{}", usage())),
            name => {
                for p in parse_programs(name)? {
                    if !programs.contains(&p) {
                        programs.push(p);
                    }
                }
            }
        }
    }
    if let Some((p, t)) = child {
        let program = match parse_programs(&p)?.as_slice() {
            [one] => *one,
            _ => return Err(format!("--child takes one program, not `{p}`")),
        };
        let tool = match parse_tools(&t)?.as_slice() {
            [one] => *one,
            _ => return Err(format!("--child takes one tool, not `{t}`")),
        };
        return Ok(Command::Child(program, tool, opts));
    }
    if !programs.is_empty() {
        opts.programs = programs;
    }
    if opts.tools.is_empty() {
        return Err("--tools selects no tool".to_string());
    }
    Ok(Command::Run(opts))
}

/// Entry point shared by the binary and the `cargo bench` target.
pub fn main_with_args<I: IntoIterator<Item = String>>(args: I) -> ExitCode {
    match parse_args(args) {
        Ok(Command::Print(s)) => {
            print!("{s}");
            ExitCode::SUCCESS
        }
        Ok(Command::Child(program, tool, opts)) => {
            let row = run_one(program, tool, &opts);
            println!("{}", encode_row(&row));
            ExitCode::SUCCESS
        }
        Ok(Command::Run(opts)) => {
            let rows = run(&opts);
            let errors = scopecheck_errors(&rows, &opts);
            for e in &errors {
                eprintln!("error: {e}");
            }
            if errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("scopecheck-bench: {e}");
            ExitCode::from(2)
        }
    }
}
