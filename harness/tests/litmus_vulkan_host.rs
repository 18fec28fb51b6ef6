//! Every row of corpus/vulkan-host/expected.tsv (the shared GPU format:
//! `path model property progress expected`): the `ssw` block, `filter`
//! with races, and an undeclared location, each with an exact answer.

use scopecheck::litmus::{check_source, LitmusModel, Options};
use std::path::Path;

#[test]
fn every_row_agrees() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/vulkan-host");
    let rows = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in rows.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [path, model, property, "-", expected] = f.as_slice() else {
            panic!("bad row: {line}")
        };
        let src = std::fs::read_to_string(dir.join(path)).unwrap();
        let opts = Options {
            model: Some(model.parse::<LitmusModel>().unwrap()),
            ..Options::default()
        };
        let r = check_source(path, &src, &opts).unwrap_or_else(|e| panic!("{path}: {e:?}"));
        let found = match *property {
            "condition" => r.verdict().expect("a verdict"),
            "race_free" => r.race_free(),
            p => panic!("unknown property {p}"),
        };
        assert_eq!(found, *expected == "1", "{line}");
        checked += 1;
    }
    assert_eq!(checked, 13);
}
