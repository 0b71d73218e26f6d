//! Which milestones the graph shows, and the orderings among them.

use crate::plot::key;
use crate::predict::Prediction;
use std::collections::{BTreeMap, BTreeSet};

/// Past this many boxes the graph shows only the key milestones.
const MAX_BOXES: usize = 40;

/// The milestones to draw, and a note when some were left out: those
/// `asked`; else every ordered one, or past `MAX_BOXES` the key ones.
pub fn choose(p: &Prediction, asked: &[String]) -> Result<(Vec<usize>, Option<String>), String> {
    if !asked.is_empty() {
        return Ok((key::find(&p.names, asked)?, None));
    }
    let ordered: BTreeSet<usize> = p.ordering.always_before.iter().flat_map(|&(a, b)| [a, b]).collect();
    if ordered.len() <= MAX_BOXES {
        return Ok((ordered.into_iter().collect(), None));
    }
    let key = key::key(&p.names);
    let note =
        format!("the {} key milestones of {} ordered ones; choose others with -m PATTERN", key.len(), ordered.len());
    Ok((key, Some(note)))
}

/// The reduced "always before" edges among `shown`. The relation is
/// transitive, so it is reachability over all the reduced edges,
/// restricted to `shown`, then reduced again.
pub fn edges(all: &[(usize, usize)], shown: &[usize]) -> Vec<(usize, usize)> {
    let mut next: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(a, b) in all {
        next.entry(a).or_default().push(b);
    }
    let keep: BTreeSet<usize> = shown.iter().copied().collect();
    let later: BTreeMap<usize, BTreeSet<usize>> = (keep.iter())
        .map(|&a| {
            let (mut seen, mut stack) = (BTreeSet::new(), vec![a]);
            while let Some(n) = stack.pop() {
                for &m in next.get(&n).into_iter().flatten() {
                    if seen.insert(m) {
                        stack.push(m);
                    }
                }
            }
            (a, seen.intersection(&keep).copied().collect())
        })
        .collect();
    let mut out = Vec::new();
    for (&a, after) in &later {
        for &b in after {
            if !after.iter().any(|c| *c != b && later[c].contains(&b)) {
                out.push((a, b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::edges;

    #[test]
    fn a_subset_keeps_the_orderings_through_the_milestones_left_out() {
        // 0 → 1 → 2 → 3 and 1 → 4: without 1 and 2, 0 → 3 and 0 → 4 remain.
        let all = [(0, 1), (1, 2), (2, 3), (1, 4)];
        assert_eq!(edges(&all, &[0, 3, 4]), vec![(0, 3), (0, 4)]);
        assert_eq!(edges(&all, &[0, 2, 3]), vec![(0, 2), (2, 3)]);
    }
}
