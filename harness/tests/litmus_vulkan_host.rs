//! Every row of corpus/vulkan-host/expected.tsv (the shared GPU format:
//! `path model property progress expected`): the `ssw` block, `filter`
//! with races, and an undeclared location, each with an exact answer.

mod common;

use common::litmus_rows::{corpus_dir, every_row_agrees};

#[test]
fn every_row_agrees_with_its_answer() {
    assert_eq!(every_row_agrees(&corpus_dir("vulkan-host")), 13);
}
