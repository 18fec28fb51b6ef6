//! The ordering-path search of DRFrlx's non-ordering check (seed 004,
//! section 3.3.3): whether a co edge X -> Y lies on an ordering path between
//! two conflicting accesses that no valid path also orders, and the path
//! that shows it.

use super::*;

/// What the non-ordering check needs about one graph.
pub(super) struct PathCtx<'a> {
    pub(super) g: &'a ExecutionGraph,
    pub(super) idx: &'a Index,
    pub(super) edges: &'a [Vec<(usize, EdgeKind)>],
    pub(super) reach: &'a [Bits],
    pub(super) reach_po: &'a [Bits],
    pub(super) valid_po: &'a [Bits],
    pub(super) accesses: &'a [Access],
    pub(super) access_at: &'a HashMap<EventId, usize>,
    pub(super) hb1: &'a [Clock],
}

impl PathCtx<'_> {
    /// Section 3.3.3: X -co-> Y is on an ordering path from A to B (a path
    /// with at least one po edge between conflicting A and B) and there is
    /// no valid path from A to B. Returns the path and the explanation.
    pub(super) fn unguarded_ordering_path(&self, x: &Access, y: &Access) -> Option<Vec<String>> {
        let (xi, yi) = (self.idx.of(x.first), self.idx.of(y.first));
        // The edge X -> Y itself starts at X's last event.
        let xl = self.idx.of(x.last);
        for a in self.accesses {
            let ai = self.idx.of(a.first);
            if !self.reach[ai].has(xi) && !self.reach[ai].has(xl) {
                continue;
            }
            // Data endpoints never count: unordered by hb1 they are a data
            // race (reported as such, as herd's model subtracts data races),
            // ordered by it they have a valid path.
            if a.class == AccessClass::Data {
                continue;
            }
            for b in self.accesses {
                if a.first == b.first || a.loc != b.loc || !(a.writes || b.writes) || b.class == AccessClass::Data {
                    continue;
                }
                let bi = self.idx.of(b.first);
                if !self.reach[yi].has(bi) {
                    continue;
                }
                let po_before = self.reach_po[ai].has(xi) || self.reach_po[ai].has(xl);
                if !po_before && !self.reach_po[yi].has(bi) {
                    continue;
                }
                // Valid paths: hb1 (condition 1 for every edge), the
                // per-edge conditions (1) and (3), or a path that stays on
                // the location of A and B (condition 2).
                if self.hb1[self.idx.of(b.first)].contains(a.last) || self.valid_po[ai].has(bi) {
                    continue;
                }
                if self.same_location_ordering_path(a, b) {
                    continue;
                }
                return Some(self.describe(a, x, y, b, po_before));
            }
        }
        None
    }

    /// An ordering path from `a` to `b` all of whose accesses are to their
    /// location (herd's valid-opath1: po & loc and conflict edges).
    fn same_location_ordering_path(&self, a: &Access, b: &Access) -> bool {
        let on_loc: Vec<&Access> = self.accesses.iter().filter(|c| c.loc == a.loc).collect();
        // BFS over (access, has a po edge yet).
        let mut seen: Vec<[bool; 2]> = vec![[false; 2]; on_loc.len()];
        let start = on_loc
            .iter()
            .position(|c| c.first == a.first)
            .expect("a is on its location");
        let mut queue = VecDeque::from([(start, false)]);
        seen[start][0] = true;
        while let Some((i, po)) = queue.pop_front() {
            let c = on_loc[i];
            if c.first == b.first && po {
                return true;
            }
            for (j, d) in on_loc.iter().enumerate() {
                let step = if d.first.thread == c.first.thread && d.first > c.first {
                    Some(true)
                } else if d.first.thread != c.first.thread && (c.writes || d.writes) && self.co_edge(c, d) {
                    Some(false)
                } else {
                    None
                };
                if let Some(is_po) = step {
                    let p = po || is_po;
                    if !seen[j][p as usize] {
                        seen[j][p as usize] = true;
                        queue.push_back((j, p));
                    }
                }
            }
        }
        false
    }

    fn co_edge(&self, c: &Access, d: &Access) -> bool {
        let from = self.idx.of(c.last);
        let to = self.idx.of(d.first);
        self.edges[from]
            .iter()
            .any(|&(m, k)| m == to && matches!(k, EdgeKind::Co { .. }))
    }

    /// The path A ~> X -> Y ~> B in words, with the reason no valid path exists.
    fn describe(&self, a: &Access, x: &Access, y: &Access, b: &Access, po_before: bool) -> Vec<String> {
        let head = self.find_path(self.idx.of(a.first), self.idx.of(x.first), po_before);
        let tail = self.find_path(self.idx.of(y.first), self.idx.of(b.first), !po_before);
        let mut nodes: Vec<usize> = head;
        nodes.extend(tail);
        let mut lines = Vec::new();
        let mut last_access: Option<usize> = None;
        for &i in &nodes {
            let e = self.idx.ids[i];
            let Some(&ai) = self.access_at.get(&e) else { continue };
            if last_access == Some(ai) {
                continue;
            }
            last_access = Some(ai);
            let acc = &self.accesses[ai];
            let ev = self.g.event(e);
            lines.push(format!(
                "{} ({}) in thread {} at {}",
                ev.describe(),
                acc.class,
                e.thread,
                ev.src
            ));
        }
        lines.push(format!(
            "no valid path from {} to {}: they are not ordered by hb1, no ordering path between them stays on \
             their location, and every other one crosses a conflict edge whose ends are neither ordered by hb1 \
             nor both paired or unpaired (here {} -> {}: {} -> {})",
            self.g.event(a.first).src,
            self.g.event(b.first).src,
            self.g.event(x.first).src,
            self.g.event(y.first).src,
            x.class,
            y.class,
        ));
        lines
    }

    /// Some path from `from` to `to` (a po edge on it if `need_po`), as
    /// event indices.
    fn find_path(&self, from: usize, to: usize, need_po: bool) -> Vec<usize> {
        let n = self.edges.len();
        let mut parent: Vec<[Option<(usize, bool)>; 2]> = vec![[None; 2]; n];
        let mut queue = VecDeque::from([(from, false)]);
        let mut seen = vec![[false; 2]; n];
        seen[from][0] = true;
        while let Some((i, po)) = queue.pop_front() {
            if i == to && (po || !need_po) {
                let mut path = vec![i];
                let mut cur = (i, po);
                while let Some(p) = parent[cur.0][cur.1 as usize] {
                    path.push(p.0);
                    cur = p;
                }
                path.reverse();
                return path;
            }
            for &(m, k) in &self.edges[i] {
                let p = po || k == EdgeKind::Po;
                if !seen[m][p as usize] {
                    seen[m][p as usize] = true;
                    parent[m][p as usize] = Some((i, po));
                    queue.push_back((m, p));
                }
            }
        }
        vec![from, to]
    }
}
