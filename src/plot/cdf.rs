//! Empirical CDFs of milestone times over many runs: for each milestone, the
//! share of runs that had reached it by each time, one line per milestone.

use super::{Drawn, Picture, font, key, text};
use crate::predict::Runs;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use std::sync::Arc;

const WIDTH: u32 = 1200;
const CHART_H: u32 = 560;
const ROW: u32 = 22;
/// At most this many lines by default: more would not be told apart.
const DEFAULT_MAX: usize = 10;
/// Tableau 10: distinguishable, and fine for the common colour blindnesses.
const COLOURS: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Indexes into `names` of the milestones to draw: those `asked`, or the
/// key steps the runs reached.
pub fn choose(names: &[Arc<str>], asked: &[String]) -> Result<Vec<usize>, String> {
    if !asked.is_empty() {
        return key::find(names, asked);
    }
    let mut chosen = key::key(names);
    if chosen.is_empty() {
        let list = key::list(names);
        return Err(format!("the runs reached none of the key milestones; choose some with --milestone:\n{list}"));
    }
    chosen.truncate(DEFAULT_MAX);
    Ok(chosen)
}

/// One milestone's line: its times in the runs that reached it, sorted.
struct Line {
    name: String,
    times: Vec<f64>,
}

pub struct Cdf {
    title: String,
    runs: usize,
    lines: Vec<Line>,
}

impl Cdf {
    pub fn new(runs: &Runs, chosen: &[usize], title: String) -> Cdf {
        let lines = chosen
            .iter()
            .map(|&m| {
                let mut times: Vec<f64> =
                    runs.times.iter().filter_map(|r| r[m]).map(|t| t.as_millis() as f64 / 1000.0).collect();
                times.sort_by(f64::total_cmp);
                Line { name: runs.names[m].to_string(), times }
            })
            .collect();
        Cdf { title, runs: runs.times.len(), lines }
    }

    /// The legend entry: the name, its median, and how many runs got there.
    fn label(&self, line: &Line) -> String {
        let Some(p50) = line.times.get(line.times.len().div_ceil(2).max(1) - 1) else {
            return format!("{}: never reached", line.name);
        };
        let reached = match line.times.len() == self.runs {
            true => String::new(),
            false => format!(", reached in {} of {} runs", line.times.len(), self.runs),
        };
        format!("{}   (p50 {p50:.3} s{reached})", line.name)
    }
}

impl Picture for Cdf {
    fn size(&self) -> (u32, u32) {
        (WIDTH, CHART_H + 30 + ROW * self.lines.len() as u32)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Drawn
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let (top, bottom) = area.split_vertically(CHART_H);
        let last = self.lines.iter().filter_map(|l| l.times.last()).fold(0.0f64, |a, b| a.max(*b));
        let x_max = (last * 1.05).max(0.1);
        let mut chart = ChartBuilder::on(&top)
            .caption(&self.title, (font::FAMILY, 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..x_max, 0f64..1.02f64)?;
        chart
            .configure_mesh()
            .x_desc("seconds since the start of the run")
            .y_desc("share of runs that reached it")
            .axis_desc_style((font::FAMILY, 14))
            .label_style((font::FAMILY, 12))
            .y_label_formatter(&|v| format!("{:.0} %", v * 100.0))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .light_line_style(RGBColor(0xf4, 0xf4, 0xf4))
            .draw()?;
        let n = self.runs.max(1) as f64;
        for (i, line) in self.lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let mut points = vec![(0.0, 0.0)];
            for (k, t) in line.times.iter().enumerate() {
                points.push((*t, k as f64 / n));
                points.push((*t, (k + 1) as f64 / n));
            }
            points.push((x_max, line.times.len() as f64 / n));
            chart.draw_series(LineSeries::new(points, colour.stroke_width(2)))?;
        }
        for (i, line) in self.lines.iter().enumerate() {
            let cy = 10 + ROW as i32 * i as i32 + ROW as i32 / 2;
            let colour = COLOURS[i % COLOURS.len()];
            bottom.draw(&Rectangle::new([(90, cy - 2), (120, cy + 2)], colour.filled()))?;
            text(&bottom, &self.label(line), (130, cy), 13.0, BLACK, HPos::Left)?;
        }
        Ok(())
    }
}
