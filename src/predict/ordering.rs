//! Which milestones always happen before which, over many runs: the
//! happens-before relation, reduced to its transitive reduction
//! (`petgraph::algo::tred`), and the pairs whose order varies.

use crate::time::SimTime;
use petgraph::algo::tred::{dag_to_toposorted_adjacency_list, dag_transitive_reduction_closure};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::IntoNeighbors;

/// One pair whose order is not fixed: how often each way, over the runs
/// that reached both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Varies {
    pub a: usize,
    pub b: usize,
    pub before: u32,
    pub same: u32,
    pub after: u32,
}

/// The ordering of milestones `0..n` over runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ordering {
    /// `(a, b)`: in every run that reached `b`, `a` happened strictly
    /// earlier — reduced (an edge implied by two others is left out).
    pub always_before: Vec<(usize, usize)>,
    pub varies: Vec<Varies>,
    /// Set (to the number of milestones) when there were too many to order.
    pub skipped: Option<usize>,
}

/// Milestones ordered at most: every pair costs two counters, so 4,000
/// milestones take 128 MB; a 1,000-replica rollout has hundreds of
/// thousands, whose pairs would not fit in any machine's memory.
pub const MAX_ORDERED: usize = 4000;

/// Counts, for every ordered pair, the runs where both happened and how.
/// `runs[r][m]` is milestone `m`'s time in run `r`, if reached.
pub fn analyse(runs: &[Vec<Option<SimTime>>], n: usize) -> Ordering {
    if n > MAX_ORDERED {
        return Ordering { skipped: Some(n), ..Ordering::default() };
    }
    // before[a][b]: runs where both happened and a < b; reached[b]: runs with b.
    let mut before = vec![0u32; n * n];
    let mut same = vec![0u32; n * n];
    let mut reached = vec![0u32; n];
    for run in runs {
        let hit: Vec<(usize, SimTime)> = run.iter().enumerate().filter_map(|(m, t)| t.map(|t| (m, t))).collect();
        for &(b, tb) in &hit {
            reached[b] += 1;
            for &(a, ta) in &hit {
                if ta < tb {
                    before[a * n + b] += 1;
                } else if ta == tb && a != b {
                    same[a * n + b] += 1;
                }
            }
        }
    }
    let mut graph: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..n).map(|_| graph.add_node(())).collect();
    let mut varies = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a == b || reached[b] == 0 {
                continue;
            }
            if before[a * n + b] == reached[b] {
                graph.add_edge(nodes[a], nodes[b], ());
            }
            let (ab, ba, eq) = (before[a * n + b], before[b * n + a], same[a * n + b]);
            let mixed = [ab, ba, eq].iter().filter(|c| **c > 0).count() > 1;
            if a < b && mixed {
                varies.push(Varies { a, b, before: ab, same: eq, after: ba });
            }
        }
    }
    Ordering { always_before: reduce(&graph), varies, skipped: None }
}

/// The transitive reduction of an acyclic "always before" graph.
fn reduce(graph: &DiGraph<(), ()>) -> Vec<(usize, usize)> {
    // Strict "earlier in every run" cannot cycle; if it ever did, report nothing reduced.
    let Ok(order) = petgraph::algo::toposort(graph, None) else { return Vec::new() };
    let (list, _) = dag_to_toposorted_adjacency_list::<_, u32>(graph, &order);
    let (tred, _closure) = dag_transitive_reduction_closure(&list);
    let mut edges: Vec<(usize, usize)> = tred
        .node_indices()
        .flat_map(|i| (&tred).neighbors(i).map(move |j| (i, j)))
        .map(|(i, j)| (order[i as usize].index(), order[j as usize].index()))
        .collect();
    edges.sort_unstable();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Option<SimTime> {
        Some(SimTime::from_millis(ms))
    }

    #[test]
    fn a_chain_is_reduced_and_a_race_varies() {
        // 0 < 1 < 2 always; 3 races 2 (before in run 1, after in run 2).
        let runs = vec![vec![t(1), t(2), t(5), t(4)], vec![t(1), t(3), t(4), t(6)]];
        let o = analyse(&runs, 4);
        // 0→1→2 kept, 0→2 implied; 1→3 and 0→3 hold in both runs (3 after 1).
        assert_eq!(o.always_before, vec![(0, 1), (1, 2), (1, 3)]);
        assert_eq!(o.varies, vec![Varies { a: 2, b: 3, before: 1, same: 0, after: 1 }]);
    }

    #[test]
    fn a_milestone_missing_in_a_run_is_judged_where_it_happened() {
        // 1 happens only in run 1, after 0: "whenever 1 happened, 0 was earlier".
        let runs = vec![vec![t(1), t(2)], vec![t(1), None]];
        let o = analyse(&runs, 2);
        assert_eq!(o.always_before, vec![(0, 1)]);
        assert!(o.varies.is_empty());
    }

    #[test]
    fn too_many_milestones_are_not_ordered_rather_than_exhausting_memory() {
        let n = MAX_ORDERED + 1;
        let o = analyse(&[vec![t(1); n]], n);
        assert_eq!(o.skipped, Some(n));
        assert!(o.always_before.is_empty() && o.varies.is_empty());
        assert_eq!(analyse(&[vec![t(1); 3]], 3).skipped, None);
    }
}
