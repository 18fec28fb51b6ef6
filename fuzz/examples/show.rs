//! Prints the program a fuzz input generates: `cargo run -p scopecheck-fuzz --example show -- <shape> <file>`.
use arbitrary::Unstructured;
use scopecheck_fuzz::{Program, Shape};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shape = match args.get(1).map(String::as_str) {
        Some("differential") => Shape::differential(),
        Some("drfrlx") => Shape::drfrlx(),
        Some("replay") => Shape::replay(),
        Some("models") => Shape::models(),
        _ => {
            eprintln!("usage: show <differential|models|drfrlx|replay> <input file>");
            std::process::exit(2);
        }
    };
    let data = std::fs::read(args.get(2).expect("an input file")).expect("a readable input file");
    let mut u = Unstructured::new(&data);
    // The differential and replay targets draw the model first.
    if matches!(args[1].as_str(), "differential" | "replay") {
        let m = u.choose(&["rc11", "sc", "src11"]).unwrap_or(&"rc11");
        println!("(* model {m} *)");
    }
    match Program::generate(&mut u, &shape) {
        Ok(p) => print!("{p}"),
        Err(e) => eprintln!("no program: {e}"),
    }
}
