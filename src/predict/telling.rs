//! The order a prediction prints in: the most telling first.
//!
//! Milestones are named so that sorting by name groups them by object, which
//! hides the story; by median time they read as the run does: scheduled,
//! initialized, Ready, the endpoint, kube-proxy, the first 200. The "always
//! before" edges follow the same order. Among the pairs whose order varies,
//! a coin toss says more than a pair that is 999 to 1: the smaller the share
//! of the commonest outcome (before, same instant, after), the earlier the
//! pair prints.

use super::{Ordering, Prediction, Varies};
use std::cmp::Ordering as Cmp;

/// The prediction with its milestones by median time (ties by name), its
/// edges in that order, and its varying pairs most uncertain first (ties by
/// the names), each pair's earlier milestone (by median) first.
pub fn in_telling_order(p: Prediction) -> Prediction {
    let mut order: Vec<usize> = (0..p.names.len()).collect();
    order.sort_by(|&a, &b| p.stats[a].p50.cmp(&p.stats[b].p50).then_with(|| p.names[a].cmp(&p.names[b])));
    // rank[old index] = new index.
    let mut rank = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old] = new;
    }
    let mut always_before: Vec<(usize, usize)> =
        p.ordering.always_before.iter().map(|&(a, b)| (rank[a], rank[b])).collect();
    always_before.sort_unstable();
    let mut varies: Vec<Varies> = p
        .ordering
        .varies
        .iter()
        .map(|v| {
            let (a, b) = (rank[v.a], rank[v.b]);
            match a < b {
                true => Varies { a, b, ..v.clone() },
                false => Varies { a: b, b: a, before: v.after, same: v.same, after: v.before },
            }
        })
        .collect();
    let names: Vec<_> = order.iter().map(|&i| p.names[i].clone()).collect();
    varies.sort_by(|x, y| uncertainty(x, y).then_with(|| (&names[x.a], &names[x.b]).cmp(&(&names[y.a], &names[y.b]))));
    Prediction {
        runs: p.runs,
        first_seed: p.first_seed,
        stats: order.iter().map(|&i| p.stats[i].clone()).collect(),
        names,
        ordering: Ordering { always_before, varies, skipped: p.ordering.skipped },
    }
}

/// `x` before `y` when its commonest outcome has the smaller share of its
/// runs: compared as fractions, exactly.
fn uncertainty(x: &Varies, y: &Varies) -> Cmp {
    let share = |v: &Varies| (v.before.max(v.same).max(v.after) as u64, (v.before + v.same + v.after).max(1) as u64);
    let ((xn, xd), (yn, yd)) = (share(x), share(y));
    (xn * yd).cmp(&(yn * xd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::Stats;
    use crate::time::SimTime;
    use std::sync::Arc;

    fn stats(p50: u64) -> Stats {
        let t = SimTime::from_millis(p50);
        Stats { reached: 1, runs: 1, min: t, p50: t, p95: t, p99: t, max: t }
    }

    fn prediction() -> Prediction {
        // By name: a, b, c, d; by median: c (1), a (2), d (2), b (3).
        let names: Vec<Arc<str>> = ["a", "b", "c", "d"].into_iter().map(Arc::from).collect();
        let varies = vec![
            // 90 / 10: telling little.
            Varies { a: 0, b: 1, before: 90, same: 0, after: 10 },
            // 50 / 50, named later than the next one.
            Varies { a: 1, b: 3, before: 50, same: 0, after: 50 },
            // 40 / 20 / 40: the most uncertain.
            Varies { a: 2, b: 3, before: 40, same: 20, after: 40 },
            // 30 / 20 / 50: the commonest at 50 % too; ties by names, c (earlier) first.
            Varies { a: 0, b: 2, before: 30, same: 20, after: 50 },
        ];
        Prediction {
            runs: 100,
            first_seed: 1,
            names,
            stats: vec![stats(2), stats(3), stats(1), stats(2)],
            ordering: Ordering { always_before: vec![(0, 1), (2, 0), (2, 3)], varies, skipped: None },
        }
    }

    #[test]
    fn milestones_by_median_then_name_and_edges_in_that_order() {
        let p = in_telling_order(prediction());
        let names: Vec<&str> = p.names.iter().map(|n| &**n).collect();
        assert_eq!(names, ["c", "a", "d", "b"]);
        assert_eq!(p.stats.iter().map(|s| s.p50.as_millis()).collect::<Vec<_>>(), [1, 2, 2, 3]);
        let edges: Vec<(&str, &str)> = p.ordering.always_before.iter().map(|&(a, b)| (names[a], names[b])).collect();
        assert_eq!(edges, [("c", "a"), ("c", "d"), ("a", "b")]);
    }

    #[test]
    fn the_pairs_closest_to_a_coin_toss_first() {
        let p = in_telling_order(prediction());
        let names = &p.names;
        let shown: Vec<(&str, &str, u32, u32, u32)> =
            p.ordering.varies.iter().map(|v| (&*names[v.a], &*names[v.b], v.before, v.same, v.after)).collect();
        assert_eq!(
            shown,
            [
                ("c", "d", 40, 20, 40),
                // a–c as c–a (c's median is earlier): before and after swap.
                ("c", "a", 50, 20, 30),
                ("d", "b", 50, 0, 50),
                ("a", "b", 90, 0, 10),
            ]
        );
    }
}
