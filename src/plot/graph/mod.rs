//! The happens-before graph drawn in layers (Sugiyama-style): each
//! milestone in the layer of its longest chain of predecessors, long edges
//! routed through dummy points, layers ordered by barycentres to cut
//! crossings; the orderings that vary are listed underneath.

mod layout;
mod subset;

use super::{Drawn, Picture, fit, font, text};
use crate::predict::{Prediction, Varies};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use std::collections::BTreeMap;
pub use subset::choose;

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
    /// What was left out, if anything.
    note: Option<String>,
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
    /// The graph of `shown` (indexes into `p.names`), with `note` saying
    /// what was left out.
    pub fn new(p: &Prediction, shown: &[usize], note: Option<String>, title: String) -> Graph {
        let edges = &subset::edges(&p.ordering.always_before, shown);
        let labels: BTreeMap<usize, [String; 3]> = shown.iter().map(|&m| (m, box_lines(p, m))).collect();
        // Longest-path layering: "always before" is acyclic, so relaxing
        // every edge until nothing changes ends, after at most its depth rounds.
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
        let order = layout::order(&items, &links, layers);
        let width = layout::place(&mut items, &order, &links);
        let races: Vec<&Varies> =
            p.ordering.varies.iter().filter(|v| labels.contains_key(&v.a) && labels.contains_key(&v.b)).collect();
        let mut varies: Vec<String> = races
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
        if races.len() > VARIES_MAX {
            let more = races.len() - VARIES_MAX;
            varies.push(format!("… and {more} more (podsim predict lists them all)"));
        }
        Graph { title, note, labels, items, edges: chains, layers, varies, width: width.max(900) }
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
        let ink = super::palette::INK;
        let grey = RGBColor(0x77, 0x77, 0x77);
        area.fill(&WHITE)?;
        text(area, &self.title, (16, 22), 18.0, ink, HPos::Left)?;
        let mut note =
            "an arrow A → B: in every run that reached B, A happened strictly earlier (transitively reduced)"
                .to_string();
        if let Some(left_out) = &self.note {
            note = format!("{note}; showing {left_out}");
        }
        text(area, &note, (16, 46), SIZE, grey, HPos::Left)?;
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
