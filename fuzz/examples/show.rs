//! Prints the program a fuzz input generates, and the features it covers
//! (the names `tests/corpus_coverage.rs` checks):
//! `cargo run -p scopecheck-fuzz --example show -- <target> <file>`.
//! For `parse`, the file is a litmus test and only its features are printed.
use scopecheck_fuzz::coverage::{litmus_features, program_features, Features};
use scopecheck_fuzz::{differential, drfrlx, models, replay, Program};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(target), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: show <parse|differential|models|drfrlx|replay> <input file>");
        std::process::exit(2);
    };
    let data = std::fs::read(file).expect("a readable input file");
    // What each target draws from the bytes: the model first for
    // `differential` and `replay`, the scope site to narrow after the
    // program for `models`.
    let drawn: Option<(Option<String>, Program)> = match target.as_str() {
        "parse" => {
            match litmus_features(&String::from_utf8_lossy(&data)) {
                Ok(f) => print_features(&f),
                Err(e) => println!("(* refused: {e} *)"),
            }
            return;
        }
        "differential" => differential::input(&data).map(|(m, p)| (Some(format!("model {}", m.name())), p)),
        "replay" => replay::input(&data).map(|(m, p)| (Some(format!("model {}", m.name())), p)),
        "models" => models::input(&data).map(|(p, site)| (Some(format!("narrows scope site {site}")), p)),
        "drfrlx" => drfrlx::input(&data).map(|p| (None, p)),
        _ => {
            eprintln!("unknown target `{target}` (parse, differential, models, drfrlx or replay)");
            std::process::exit(2);
        }
    };
    match drawn {
        Some((note, p)) => {
            if let Some(n) = note {
                println!("(* {n} *)");
            }
            print!("{p}");
            print_features(&program_features(&p));
        }
        None => eprintln!("no program: the input runs out of bytes first"),
    }
}

fn print_features(f: &Features) {
    let names: Vec<&str> = f.iter().map(String::as_str).collect();
    println!("(* features: {} *)", names.join(" "));
}
