//! Drawing the timeline: lane labels on the left, time running right, the
//! marks' numbers above the lanes and their key below, with the legend.

use super::model::{Lane, Timeline};
use crate::plot::palette::{INK, Look, Shape};
use crate::plot::{Drawn, Picture, axis, fit, font, text};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

const WIDTH: i32 = 1500;
const TITLE_H: i32 = 40;
const AXIS_H: i32 = 22;
const MARK_ROW: i32 = 18;
const HEADER_H: i32 = 24;
const LANE_H: i32 = 20;
const BAR_H: i32 = 14;
const GROUP_GAP: i32 = 6;
const ROW: i32 = 22;
const LABEL: f64 = 12.0;
const SMALL: f64 = 11.0;
/// The legend's sections, in this order, each with the looks it shows.
const SECTIONS: [&str; 7] =
    ["containers", "processes", "probe results", "pod conditions", "endpoints", "kube-proxy", "requests"];

const MUTED: RGBColor = RGBColor(0x66, 0x66, 0x66);
const GRID: RGBColor = RGBColor(0xe3, 0xe3, 0xe3);
const STRIPE: RGBColor = RGBColor(0xf6, 0xf6, 0xf6);
const HEADER: RGBColor = RGBColor(0xe4, 0xec, 0xf5);
const MILESTONE: RGBColor = RGBColor(0x44, 0x44, 0x44);
const ACTION: RGBColor = RGBColor(0xc2, 0x18, 0x5b);

/// Where everything goes, computed before drawing so the size is known.
struct Layout {
    x0: i32,
    x1: i32,
    /// The row of each mark's number above the lanes.
    mark_rows: Vec<i32>,
    marks_top: i32,
    lanes_top: i32,
    lanes_bottom: i32,
    legend: Vec<(&'static str, Vec<Look>)>,
    legend_top: i32,
    key_top: i32,
    key_rows: i32,
    height: i32,
}

impl Timeline {
    fn layout(&self) -> Layout {
        let lanes = self.groups.iter().flat_map(|g| &g.lanes);
        let widest = lanes.map(|l| font::width(&l.label, LABEL)).max().unwrap_or(0);
        let x0 = (widest + 34).clamp(140, 460);
        let x1 = WIDTH - 30;
        let mut ends: Vec<i32> = Vec::new();
        let mut mark_rows = Vec::new();
        for (i, m) in self.marks.iter().enumerate() {
            let w = font::width(&(i + 1).to_string(), SMALL) + 8;
            let left = x(m.at, self.until, x0, x1) - w / 2;
            let row = ends.iter().position(|end| *end + 2 < left).unwrap_or(ends.len());
            if row == ends.len() {
                ends.push(0);
            }
            ends[row] = left + w;
            mark_rows.push(row as i32);
        }
        let marks_top = TITLE_H + AXIS_H;
        let lanes_top = marks_top + ends.len() as i32 * MARK_ROW + 4;
        let lanes: i32 = self.groups.iter().map(|g| HEADER_H + g.lanes.len() as i32 * LANE_H + GROUP_GAP).sum();
        let lanes_bottom = lanes_top + lanes;
        let mut legend: Vec<(&'static str, Vec<Look>)> = SECTIONS.iter().map(|s| (*s, Vec::new())).collect();
        for lane in self.groups.iter().flat_map(|g| &g.lanes) {
            for look in lane.bars.iter().map(|b| b.look).chain(lane.instants.iter().map(|(_, l)| *l)) {
                if let Some((_, looks)) = legend.iter_mut().find(|(s, _)| *s == look.section())
                    && !looks.contains(&look)
                {
                    looks.push(look);
                }
            }
        }
        legend.retain(|(_, looks)| !looks.is_empty());
        for (_, looks) in &mut legend {
            looks.sort();
        }
        let legend_top = lanes_bottom + 2 * AXIS_H + 10;
        let key_top = legend_top + legend.len() as i32 * ROW + 14;
        let key_rows = (self.marks.len() as i32 + 1) / 2;
        let height = key_top + ROW + key_rows * ROW + 10;
        Layout { x0, x1, mark_rows, marks_top, lanes_top, lanes_bottom, legend, legend_top, key_top, key_rows, height }
    }
}

/// The x pixel of time `t`.
fn x(t: f64, until: f64, x0: i32, x1: i32) -> i32 {
    x0 + ((t / until.max(1e-3)).clamp(0.0, 1.0) * (x1 - x0) as f64).round() as i32
}

impl Picture for Timeline {
    fn size(&self) -> (u32, u32) {
        (WIDTH as u32, self.layout().height as u32)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Drawn
    where
        DB::ErrorType: 'static,
    {
        let l = self.layout();
        let at = |t: f64| x(t, self.until, l.x0, l.x1);
        area.fill(&WHITE)?;
        text(area, &self.title, (12, TITLE_H / 2), 18.0, INK, HPos::Left)?;
        // Lanes first, so grid and marks draw over their backgrounds.
        let mut y = l.lanes_top;
        let mut stripe = false;
        let mut rows = Vec::new();
        let mut headers = Vec::new();
        for g in &self.groups {
            area.draw(&Rectangle::new([(0, y), (WIDTH, y + HEADER_H)], HEADER.filled()))?;
            headers.push((y, &g.title));
            y += HEADER_H;
            for lane in &g.lanes {
                if stripe {
                    area.draw(&Rectangle::new([(0, y), (WIDTH, y + LANE_H)], STRIPE.filled()))?;
                }
                stripe = !stripe;
                text(area, &lane.label, (20, y + LANE_H / 2), LABEL, INK, HPos::Left)?;
                rows.push((y, lane));
                y += LANE_H;
            }
            y += GROUP_GAP;
        }
        let (ticks, step) = axis::ticks(self.until, 15.0);
        for t in &ticks {
            let px = at(*t);
            area.draw(&PathElement::new(vec![(px, l.lanes_top), (px, l.lanes_bottom)], GRID))?;
            let word = axis::label(*t, step);
            text(area, &word, (px, TITLE_H + AXIS_H / 2), SMALL, MUTED, HPos::Center)?;
            text(area, &word, (px, l.lanes_bottom + AXIS_H / 2), SMALL, MUTED, HPos::Center)?;
        }
        let axis_title = "seconds since the start of the run";
        text(area, axis_title, ((l.x0 + l.x1) / 2, l.lanes_bottom + AXIS_H * 3 / 2), LABEL, INK, HPos::Center)?;
        for (top, lane) in rows {
            draw_lane(area, lane, top, &at)?;
        }
        for (i, m) in self.marks.iter().enumerate() {
            let colour = if m.action { ACTION } else { MILESTONE };
            let top = l.marks_top + l.mark_rows[i] * MARK_ROW;
            dashed(area, at(m.at), top + MARK_ROW, l.lanes_bottom, colour)?;
            number(area, i + 1, (at(m.at), top + MARK_ROW / 2), colour)?;
        }
        // Titles last, on their own background, so no mark line crosses them.
        for (top, title) in headers {
            let right = 16 + font::width(title, 13.0);
            area.draw(&Rectangle::new([(0, top), (right, top + HEADER_H)], HEADER.filled()))?;
            text(area, title, (8, top + HEADER_H / 2), 13.0, INK, HPos::Left)?;
        }
        self.legend(area, &l)?;
        self.key(area, &l)
    }
}

impl Timeline {
    fn legend<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, l: &Layout) -> Drawn
    where
        DB::ErrorType: 'static,
    {
        for (row, (section, looks)) in l.legend.iter().enumerate() {
            let cy = l.legend_top + row as i32 * ROW + ROW / 2;
            text(area, &format!("{section}:"), (20, cy), LABEL, INK, HPos::Left)?;
            let mut cx = 150;
            for look in looks {
                swatch(area, *look, (cx, cy))?;
                text(area, look.legend(), (cx + 24, cy), LABEL, INK, HPos::Left)?;
                cx += 24 + font::width(look.legend(), LABEL) + 22;
            }
        }
        Ok(())
    }

    /// The numbered marks, in two columns.
    fn key<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, l: &Layout) -> Drawn
    where
        DB::ErrorType: 'static,
    {
        let title = "numbered lines: milestones (grey, dashed) and scenario actions (magenta)";
        text(area, title, (20, l.key_top + ROW / 2), LABEL, INK, HPos::Left)?;
        let column = (WIDTH - 40) / 2;
        for (i, m) in self.marks.iter().enumerate() {
            let (col, row) = (i as i32 / l.key_rows.max(1), i as i32 % l.key_rows.max(1));
            let (left, cy) = (20 + col * column, l.key_top + ROW + row * ROW + ROW / 2);
            number(area, i + 1, (left + 12, cy), if m.action { ACTION } else { MILESTONE })?;
            let words = format!("{:>8.3} s   {}", m.at, m.label);
            text(area, &fit(&words, LABEL, column - 50), (left + 30, cy), LABEL, INK, HPos::Left)?;
        }
        Ok(())
    }
}

fn draw_lane<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, lane: &Lane, top: i32, at: &dyn Fn(f64) -> i32) -> Drawn
where
    DB::ErrorType: 'static,
{
    let (y0, y1) = (top + (LANE_H - BAR_H) / 2, top + (LANE_H + BAR_H) / 2);
    for b in &lane.bars {
        let (a, z) = (at(b.from), at(b.to).max(at(b.from) + 1));
        area.draw(&Rectangle::new([(a, y0), (z, y1)], b.look.colour().filled()))?;
        if !b.text.is_empty() && font::width(&b.text, SMALL) + 8 < z - a {
            text(area, &b.text, (a + 4, top + LANE_H / 2), SMALL, on(b.look.colour()), HPos::Left)?;
        }
    }
    for (t, look) in &lane.instants {
        let px = at(*t);
        match look.shape() {
            Shape::Dot => area.draw(&Circle::new((px, top + LANE_H / 2), 4, look.colour().filled()))?,
            _ => area.draw(&Rectangle::new([(px, y0), (px + 2, y1)], look.colour().filled()))?,
        }
    }
    Ok(())
}

/// A legend swatch centred on `c`, shaped like the mark.
fn swatch<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, look: Look, c: (i32, i32)) -> Drawn
where
    DB::ErrorType: 'static,
{
    let style = look.colour().filled();
    match look.shape() {
        Shape::Bar => area.draw(&Rectangle::new([(c.0, c.1 - 6), (c.0 + 18, c.1 + 6)], style))?,
        Shape::Tick => area.draw(&Rectangle::new([(c.0 + 8, c.1 - 7), (c.0 + 10, c.1 + 7)], style))?,
        Shape::Dot => area.draw(&Circle::new((c.0 + 9, c.1), 5, style))?,
    }
    Ok(())
}

/// A mark's number in a filled box centred on `c`.
fn number<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, n: usize, c: (i32, i32), colour: RGBColor) -> Drawn
where
    DB::ErrorType: 'static,
{
    let word = n.to_string();
    let half = (font::width(&word, SMALL) + 8) / 2;
    area.draw(&Rectangle::new([(c.0 - half, c.1 - 7), (c.0 + half, c.1 + 7)], colour.filled()))?;
    text(area, &word, c, SMALL, WHITE, HPos::Center)
}

/// A vertical dashed line at `x` from `y0` to `y1`.
fn dashed<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, x: i32, y0: i32, y1: i32, colour: RGBColor) -> Drawn
where
    DB::ErrorType: 'static,
{
    // Dashes on a fixed 7-pixel grid, so lines at the same x coincide.
    for y in (y0 - y0 % 7 + 7..y1).step_by(7) {
        area.draw(&PathElement::new(vec![(x, y), (x, (y + 4).min(y1))], colour))?;
    }
    Ok(())
}

/// Text colour readable on `fill`.
fn on(fill: RGBColor) -> RGBColor {
    let RGBColor(r, g, b) = fill;
    let luma = 299 * r as u32 + 587 * g as u32 + 114 * b as u32;
    if luma < 140_000 { WHITE } else { INK }
}
