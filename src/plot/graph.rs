//! The happens-before graph drawn in layers (Sugiyama-style): each
//! milestone in the layer of its longest chain of predecessors, long edges
//! routed through dummy points, layers ordered by barycentres to cut
//! crossings; the orderings that vary are listed underneath.

use super::{Drawn, Picture, fit, font, text};
use crate::predict::Prediction;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use std::collections::BTreeMap;

const BOX_H: i32 = 50;
const LAYER_GAP: i32 = 44;
const ITEM_GAP: i32 = 22;
const DUMMY_W: i32 = 10;
const TOP: i32 = 70;
const ROW: i32 = 20;
const SIZE: f64 = 12.0;
/// Orderings that vary listed at most; `podsim predict` lists them all.
const VARIES_MAX: usize = 20;

/// A box or a dummy point of a long edge.
struct Item {
    /// The milestone, for a box.
    node: Option<usize>,
    layer: usize,
    width: i32,
    x: i32,
}

pub struct Graph {
    title: String,
    /// Each box's lines: subject, event, timing.
    labels: BTreeMap<usize, [String; 3]>,
    items: Vec<Item>,
    /// Each edge as the chain of items it passes through.
    edges: Vec<Vec<usize>>,
    layers: usize,
    varies: Vec<String>,
    width: i32,
}

impl Graph {
    pub fn new(p: &Prediction, title: String) -> Graph {
        let edges = &p.ordering.always_before;
        let mut labels = BTreeMap::new();
        for &(a, b) in edges {
            for m in [a, b] {
                labels.entry(m).or_insert_with(|| box_lines(p, m));
            }
        }
        // Longest-path layering: edges go from lower to higher index in a
        // topological order, so relaxing them until nothing changes ends.
        let mut layer: BTreeMap<usize, usize> = labels.keys().map(|m| (*m, 0)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b) in edges {
                if layer[&b] < layer[&a] + 1 {
                    layer.insert(b, layer[&a] + 1);
                    changed = true;
                }
            }
        }
        let mut items: Vec<Item> = Vec::new();
        let mut item_of = BTreeMap::new();
        for (m, lines) in &labels {
            let width = lines.iter().map(|l| font::width(l, SIZE)).max().unwrap_or(0) + 16;
            item_of.insert(*m, items.len());
            items.push(Item { node: Some(*m), layer: layer[m], width, x: 0 });
        }
        let mut chains = Vec::new();
        for &(a, b) in edges {
            let mut chain = vec![item_of[&a]];
            for l in layer[&a] + 1..layer[&b] {
                chain.push(items.len());
                items.push(Item { node: None, layer: l, width: DUMMY_W, x: 0 });
            }
            chain.push(item_of[&b]);
            chains.push(chain);
        }
        let layers = layer.values().max().map_or(0, |l| l + 1);
        let links: Vec<(usize, usize)> = chains.iter().flat_map(|c| c.windows(2).map(|w| (w[0], w[1]))).collect();
        let order = order(&items, &links, layers);
        let width = place(&mut items, &order, &links);
        let mut varies: Vec<String> = p
            .ordering
            .varies
            .iter()
            .take(VARIES_MAX)
            .map(|v| {
                let both = (v.before + v.same + v.after).max(1) as f64;
                let pc = |n: u32| 100.0 * n as f64 / both;
                format!(
                    "{} before {}: {:.1} % of the runs that reached both, same instant {:.1} %, after {:.1} %",
                    p.names[v.a],
                    p.names[v.b],
                    pc(v.before),
                    pc(v.same),
                    pc(v.after)
                )
            })
            .collect();
        if p.ordering.varies.len() > VARIES_MAX {
            let more = p.ordering.varies.len() - VARIES_MAX;
            varies.push(format!("… and {more} more (podsim predict lists them all)"));
        }
        Graph { title, labels, items, edges: chains, layers, varies, width: width.max(900) }
    }

    fn y(&self, layer: usize) -> i32 {
        TOP + layer as i32 * (BOX_H + LAYER_GAP)
    }
}

/// A box's three lines: the subject, the event, the median time.
fn box_lines(p: &Prediction, m: usize) -> [String; 3] {
    let name = &*p.names[m];
    let (subject, event) = name.split_once(':').unwrap_or((name, ""));
    let s = &p.stats[m];
    let p50 = s.p50.as_millis() as f64 / 1000.0;
    let timing = match s.reached == s.runs {
        true => format!("p50 {p50:.3} s"),
        false => format!("p50 {p50:.3} s, in {}/{} runs", s.reached, s.runs),
    };
    [subject.to_string(), event.to_string(), timing]
}

/// Each layer's items, left to right: sweeps down and up, each item moved
/// to the mean position of its neighbours in the layer before.
fn order(items: &[Item], links: &[(usize, usize)], layers: usize) -> Vec<Vec<usize>> {
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
fn place(items: &mut [Item], order: &[Vec<usize>], links: &[(usize, usize)]) -> i32 {
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

/// A box's fill by its subject's kind.
fn fill(subject: &str) -> RGBColor {
    match subject.split('/').next() {
        Some("pod") if subject.matches('/').count() > 1 => RGBColor(0xdf, 0xf0, 0xd8),
        Some("pod") => RGBColor(0xd8, 0xe6, 0xf3),
        Some("svc") => RGBColor(0xfd, 0xe4, 0xc8),
        Some("client") => RGBColor(0xe8, 0xdc, 0xf0),
        _ => RGBColor(0xe6, 0xe6, 0xe6),
    }
}

impl Picture for Graph {
    fn size(&self) -> (u32, u32) {
        let height = self.y(self.layers) + 30 + ROW * (self.varies.len() as i32 + 1) + 20;
        (self.width as u32, height as u32)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Drawn
    where
        DB::ErrorType: 'static,
    {
        let ink = RGBColor(0x22, 0x22, 0x22);
        let grey = RGBColor(0x77, 0x77, 0x77);
        area.fill(&WHITE)?;
        text(area, &self.title, (16, 22), 18.0, ink, HPos::Left)?;
        let note = "an arrow A → B: in every run that reached B, A happened strictly earlier (transitively reduced)";
        text(area, note, (16, 46), SIZE, grey, HPos::Left)?;
        for chain in &self.edges {
            let mut points = Vec::new();
            for (k, &i) in chain.iter().enumerate() {
                let (it, y) = (&self.items[i], self.y(self.items[i].layer));
                match (it.node.is_some(), k) {
                    (true, 0) => points.push((it.x, y + BOX_H)),
                    (true, _) => points.push((it.x, y)),
                    (false, _) => points.extend([(it.x, y), (it.x, y + BOX_H)]),
                }
            }
            let end = points[points.len() - 1];
            area.draw(&PathElement::new(points, grey.stroke_width(1)))?;
            area.draw(&Polygon::new(vec![end, (end.0 - 4, end.1 - 8), (end.0 + 4, end.1 - 8)], grey.filled()))?;
        }
        for it in &self.items {
            let Some(lines) = it.node.and_then(|m| self.labels.get(&m)) else { continue };
            let (x0, y0) = (it.x - it.width / 2, self.y(it.layer));
            let corners = [(x0, y0), (x0 + it.width, y0 + BOX_H)];
            area.draw(&Rectangle::new(corners, fill(&lines[0]).filled()))?;
            area.draw(&Rectangle::new(corners, grey.stroke_width(1)))?;
            for (k, line) in lines.iter().enumerate() {
                let colour = if k == 2 { grey } else { ink };
                text(area, line, (it.x, y0 + 9 + 16 * k as i32), SIZE, colour, HPos::Center)?;
            }
        }
        let top = self.y(self.layers) + 10;
        let heading = match self.varies.is_empty() {
            true => "Orders that vary between runs: none",
            false => "Orders that vary between runs:",
        };
        text(area, heading, (16, top + ROW / 2), 13.0, ink, HPos::Left)?;
        for (k, line) in self.varies.iter().enumerate() {
            let words = fit(line, SIZE, self.width - 40);
            text(area, &words, (28, top + ROW * (k as i32 + 1) + ROW / 2), SIZE, ink, HPos::Left)?;
        }
        Ok(())
    }
}
