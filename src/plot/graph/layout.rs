//! Placing the graph: each layer's order (barycentres, to cut crossings)
//! and each item's x (towards its neighbours, never overlapping).

use super::{ITEM_GAP, Item};

/// Each layer's items, left to right: sweeps down and up, each item moved
/// to the mean position of its neighbours in the layer before.
pub fn order(items: &[Item], links: &[(usize, usize)], layers: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); layers];
    for (i, item) in items.iter().enumerate() {
        order[item.layer].push(i);
    }
    for sweep in 0..8 {
        let down = sweep % 2 == 0;
        let mut pos = vec![0.0; items.len()];
        let layer_order: Vec<usize> =
            if down { (1..layers).collect() } else { (0..layers.saturating_sub(1)).rev().collect() };
        for l in layer_order {
            // Relative positions, so layers of different sizes line up.
            for row in &order {
                for (k, i) in row.iter().enumerate() {
                    pos[*i] = (k as f64 + 0.5) / row.len() as f64;
                }
            }
            let neighbours = |i: usize| -> Vec<f64> {
                links
                    .iter()
                    .filter_map(|&(a, b)| match down {
                        true if b == i => Some(pos[a]),
                        false if a == i => Some(pos[b]),
                        _ => None,
                    })
                    .collect()
            };
            let mut keyed: Vec<(f64, usize)> = order[l]
                .iter()
                .map(|&i| {
                    let n = neighbours(i);
                    let centre = if n.is_empty() { pos[i] } else { n.iter().sum::<f64>() / n.len() as f64 };
                    (centre, i)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order[l] = keyed.into_iter().map(|(_, i)| i).collect();
        }
    }
    order
}

/// Sets each item's centre x and returns the picture's width: layers start
/// centred, then each item moves towards the mean x of its neighbours, in
/// its layer's order and never closer than `ITEM_GAP` to the next one.
pub fn place(items: &mut [Item], order: &[Vec<usize>], links: &[(usize, usize)]) -> i32 {
    for row in order {
        let mut left = 0;
        for i in row {
            items[*i].x = left + items[*i].width / 2;
            left += items[*i].width + ITEM_GAP;
        }
        let shift = left / 2;
        row.iter().for_each(|i| items[*i].x -= shift);
    }
    for _ in 0..12 {
        for row in order {
            let want: Vec<f64> = row
                .iter()
                .map(|&i| {
                    let near: Vec<i32> = (links.iter())
                        .filter_map(|&(a, b)| (a == i).then_some(b).or((b == i).then_some(a)))
                        .map(|n| items[n].x)
                        .collect();
                    match near.is_empty() {
                        true => items[i].x as f64,
                        false => near.iter().sum::<i32>() as f64 / near.len() as f64,
                    }
                })
                .collect();
            // Pushed right from the left, pushed left from the right: both keep
            // the gaps, and so does their mean.
            let gap = |k: usize| ((items[row[k - 1]].width + items[row[k]].width) / 2 + ITEM_GAP) as f64;
            let mut right = want.clone();
            for k in 1..row.len() {
                right[k] = right[k].max(right[k - 1] + gap(k));
            }
            let mut left = want.clone();
            for k in (1..row.len()).rev() {
                left[k - 1] = left[k - 1].min(left[k] - gap(k));
            }
            for (k, &i) in row.iter().enumerate() {
                items[i].x = ((right[k] + left[k]) / 2.0).round() as i32;
            }
        }
    }
    let left = items.iter().map(|it| it.x - it.width / 2).min().unwrap_or(0);
    items.iter_mut().for_each(|it| it.x += 40 - left);
    items.iter().map(|it| it.x + it.width / 2).max().unwrap_or(0) + 40
}
