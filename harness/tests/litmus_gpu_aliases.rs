//! PTX aliases that name other aliases (`y @ generic aliases x;
//! s @ surface aliases y;`), as NVIDIA's mixed-proxy tests write synonyms:
//! each resolves to the location at the end of its chain, whatever the
//! order of the declarations; a cycle of aliases is a located error.

use scopecheck::litmus::{check_source, LitmusModel, Options, TestError};

fn under(model: &str, src: &str) -> Result<scopecheck::litmus::TestResult, TestError> {
    let opts = Options {
        model: Some(model.parse::<LitmusModel>().unwrap()),
        ..Options::default()
    };
    check_source("t.litmus", src, &opts)
}

/// A surface store through an alias of a generic synonym of `x` writes `x`.
#[test]
fn an_alias_of_an_alias_names_the_location() {
    let chained = "PTX chain\n{\nx = 0;\ny @ generic aliases x;\ns @ surface aliases y;\n}\n\
                   P0@cta 0,gpu 0 ;\n sust.weak s, 2 ;\nforall (x == 2)\n";
    // The same declarations, the alias of the alias first.
    let reversed = "PTX chain\n{\ns @ surface aliases y;\ny @ generic aliases x;\nx = 0;\n}\n\
                    P0@cta 0,gpu 0 ;\n sust.weak s, 2 ;\nforall (x == 2)\n";
    for src in [chained, reversed] {
        for model in ["ptx6.0", "ptx7.5"] {
            let r = under(model, src).unwrap_or_else(|e| panic!("{model}: {e:?}"));
            assert_eq!(r.verdict(), Some(true), "{model}: {src}");
            assert_eq!(r.states.len(), 1, "{model}");
            assert_eq!(r.executions, 1, "{model}");
        }
    }
}

/// The error of `src` under ptx7.5, as `line:col: message`.
fn parse_error(src: &str) -> String {
    match under("ptx7.5", src) {
        Err(TestError::Parse(e)) => format!("{}:{}: {}", e.pos.line, e.pos.col, e.message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn a_cycle_of_aliases_is_a_located_error() {
    let src = "PTX cyc\n{\nx = 0;\na @ generic aliases b;\nb @ surface aliases a;\n}\n\
               P0@cta 0,gpu 0 ;\n st.weak a, 2 ;\nforall (x == 2)\n";
    assert_eq!(
        parse_error(src),
        "4:1: the aliases a, b form a cycle: they name no location"
    );
    let twice = "PTX twice\n{\nx = 0;\na @ generic aliases x;\na @ surface aliases x;\n}\n\
                 P0@cta 0,gpu 0 ;\n st.weak a, 2 ;\nforall (x == 2)\n";
    assert_eq!(parse_error(twice), "5:1: `a` is declared as an alias twice");
}
