//! Class inference for unclassified relaxed atomics: sites grouped by the
//! locations they share, each group judged under every assignment of
//! classes, and the suggestions judged together.

use super::budget::Budget;
use super::judge::Judged;
use super::{shim, Check, DrfReport, Infer, Inference, Suggestion};
use scopecheck_checker::drfrlx::{analyze, AccessClass, ClassOverride};
use scopecheck_checker::event::{Loc, SourceLoc, Value};
use scopecheck_instrument::drfrlx::Class;
use std::collections::{BTreeMap, BTreeSet, HashMap};

impl Check {
    /// Class inference. Sites are judged in groups: those that access a
    /// common location take each class together (a counter's increments
    /// and its final load, a seqlock's data stores and loads), since a class
    /// is a property of how a location is used: quantum accesses, for one,
    /// may race only with quantum ones. Unclassified sites are always
    /// judged; classified ones join the groups only under [`Infer::All`]
    /// (otherwise they keep their classes). Unclassified sites outside the
    /// group are taken as paired meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn infer_classes(
        &self,
        f: &dyn Fn(),
        judged: &Judged,
        tracked: &BTreeSet<SourceLoc>,
        quantum: bool,
        domains: &HashMap<Loc, Vec<Value>>,
        budget: &Budget,
        report: &mut DrfReport,
    ) {
        if judged.graphs_dropped {
            report.notes.push(format!(
                "class inference skipped: more than {} executions to judge",
                self.max_kept_graphs
            ));
            return;
        }
        let mut sites: Vec<(SourceLoc, Option<Class>)> = judged.unclassified_sites.iter().map(|&s| (s, None)).collect();
        if self.infer == Infer::All {
            sites.extend(judged.classified_sites.iter().map(|(&s, &c)| (s, Some(c))));
        }
        let groups = group_by_location(&sites, &judged.site_locs);
        let untracked: Vec<SourceLoc> = judged
            .unclassified_sites
            .iter()
            .copied()
            .filter(|s| !tracked.contains(s))
            .collect();
        let total = groups.len();
        for (done, group) in groups.into_iter().enumerate() {
            // A group judged while the budget ran out is dropped: a class
            // its cut run could not show legal may well be.
            let cut = |budget: &Budget| {
                budget.spent().map(|why| {
                    format!(
                        "{why} during class inference, after {done} of {total} groups of lines; the rest have no \
                         inference"
                    )
                })
            };
            if let Some(why) = cut(budget) {
                report.incomplete.push(why);
                return;
            }
            let with = |class: AccessClass| ClassOverride {
                sites: group.iter().map(|&(s, _)| (s, class)).collect(),
                unclassified_as: Some(AccessClass::Paired),
                assume_observed: untracked.clone(),
            };
            // Whether the program is legal with the group at `class`. Without
            // quantum accesses anywhere, the SC executions already judged are
            // judged again with other classes; with them, the classes change
            // which program is run, so it runs again.
            let legal_with = |class: AccessClass| -> bool {
                let classes = with(class);
                if !quantum && class != AccessClass::Relaxed(Class::Quantum) {
                    return judged
                        .graphs
                        .iter()
                        .all(|g| analyze(g, &classes).map(|rs| rs.is_empty()).unwrap_or(false));
                }
                let shim_class = match class {
                    AccessClass::Relaxed(c) => Some(c),
                    _ => None,
                };
                shim::set_site_classes(group.iter().map(|&(s, _)| (s, shim_class)).collect());
                let j = self.judge_quantum(f, &classes, domains, false, budget);
                shim::set_site_classes(Vec::new());
                j.races.is_empty() && j.failures.is_empty() && j.internal.is_empty() && j.incomplete.is_empty()
            };
            let quantum_tried = group.iter().all(|(s, _)| tracked.contains(s));
            let mut legal = Vec::new();
            for c in Class::ALL {
                if c == Class::Quantum && !quantum_tried {
                    continue;
                }
                if legal_with(AccessClass::Relaxed(c)) {
                    legal.push(c);
                }
            }
            // `Class::ALL` is in preference order, and so is `legal`.
            // Paired: an order stronger than relaxed (as the shim cannot
            // change a site's order, paired is judged on the class alone,
            // which is what DRFrlx's race definitions look at).
            let paired_legal = legal_with(AccessClass::Paired);
            let suggestion = match legal.first() {
                Some(&c) => Suggestion::Class(c),
                None if paired_legal => Suggestion::MustBePaired,
                None => Suggestion::Nothing,
            };
            if let Some(why) = cut(budget) {
                report.incomplete.push(why);
                return;
            }
            let together: Vec<SourceLoc> = group.iter().map(|&(s, _)| s).collect();
            for &(site, given) in &group {
                report.inferences.push(Inference {
                    site,
                    given,
                    legal: legal.clone(),
                    paired_legal,
                    suggestion: suggestion.clone(),
                    quantum_tried,
                    together: together.iter().copied().filter(|&s| s != site).collect(),
                });
            }
        }
        self.check_suggestions_together(f, judged, quantum, domains, budget, report);
    }

    /// Each group was judged with the other unclassified lines paired, so
    /// the suggestions need not hold together (message passing through
    /// relaxed atomics: the flag is fine as non-ordering if the data is
    /// paired, the data as unpaired if the flag is paired, but not both).
    /// Judges the program with every suggestion applied at once and says
    /// whether that is legal.
    pub(super) fn check_suggestions_together(
        &self,
        f: &dyn Fn(),
        judged: &Judged,
        quantum: bool,
        domains: &HashMap<Loc, Vec<Value>>,
        budget: &Budget,
        report: &mut DrfReport,
    ) {
        let changed: Vec<(SourceLoc, AccessClass)> = report
            .inferences
            .iter()
            .filter_map(|i| {
                let class = match i.suggestion {
                    Suggestion::Class(c) => AccessClass::Relaxed(c),
                    Suggestion::MustBePaired => AccessClass::Paired,
                    Suggestion::Nothing => return None,
                };
                (i.given.map(AccessClass::Relaxed) != Some(class)).then_some((i.site, class))
            })
            .collect();
        let groups: BTreeSet<Vec<SourceLoc>> = report
            .inferences
            .iter()
            .map(|i| {
                let mut g = i.together.clone();
                g.push(i.site);
                g.sort();
                g
            })
            .collect();
        if groups.len() < 2 || changed.is_empty() {
            return;
        }
        let classes = ClassOverride {
            sites: changed.clone(),
            unclassified_as: Some(AccessClass::Paired),
            assume_observed: Vec::new(),
        };
        let becomes_quantum = changed.iter().any(|(_, c)| *c == AccessClass::Relaxed(Class::Quantum));
        let legal = if !quantum && !becomes_quantum {
            judged
                .graphs
                .iter()
                .all(|g| analyze(g, &classes).map(|rs| rs.is_empty()).unwrap_or(false))
        } else {
            let shim_sites = changed
                .iter()
                .map(|&(s, c)| {
                    (
                        s,
                        match c {
                            AccessClass::Relaxed(c) => Some(c),
                            _ => None,
                        },
                    )
                })
                .collect();
            shim::set_site_classes(shim_sites);
            let j = self.judge_quantum(f, &classes, domains, false, budget);
            shim::set_site_classes(Vec::new());
            if let Some(why) = &j.cut {
                report.incomplete.push(format!(
                    "{why} while judging the suggestions all together; whether they hold together is not known"
                ));
                return;
            }
            j.races.is_empty() && j.failures.is_empty() && j.internal.is_empty() && j.incomplete.is_empty()
        };
        report.suggestions_together = Some(legal);
        if !legal {
            report.notes.push(
                "the suggestions were found one location at a time (the other unclassified lines taken as paired) \
                 and are not legal all together: apply one, then check again"
                    .into(),
            );
        }
    }
}

/// A site with the class its source gives it.
type Site = (SourceLoc, Option<Class>);

/// Splits `sites` into groups connected by a common location.
fn group_by_location(sites: &[Site], locs: &BTreeMap<SourceLoc, BTreeSet<Loc>>) -> Vec<Vec<Site>> {
    let mut groups: Vec<(BTreeSet<Loc>, Vec<Site>)> = Vec::new();
    for &(s, c) in sites {
        let mine = locs.get(&s).cloned().unwrap_or_default();
        let (joined, rest): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(l, _)| !l.is_disjoint(&mine));
        let mut merged = (mine, vec![(s, c)]);
        for (l, members) in joined {
            merged.0.extend(l);
            merged.1.extend(members);
        }
        groups = rest;
        groups.push(merged);
    }
    let mut out: Vec<Vec<Site>> = groups
        .into_iter()
        .map(|(_, mut m)| {
            m.sort();
            m
        })
        .collect();
    out.sort();
    out
}
