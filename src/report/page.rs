//! The page: its header, one section per run shown, the prediction, and the
//! inline style and script that make the marks answer a hover or a click.

use super::escape::html;
use super::objects::{self, Objects};
use super::seeds::Ranking;
use super::{sweep, swimlanes, tables};
use crate::plot::timeline::{self, ObjectKey};
use crate::predict::{Prediction, Runs};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::render::Clock;
use std::collections::BTreeSet;
use std::fmt::Write;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// One run on the page.
pub struct RunPart<'a> {
    pub seed: u64,
    /// What the section says the run is (`the first run`, `slowest: …`).
    pub heading: String,
    pub trace: &'a Trace,
    pub clock: &'a Clock,
    pub until: SimTime,
}

/// The many runs the prediction comes from.
pub struct SweepPart<'a> {
    pub runs: &'a Runs,
    pub prediction: &'a Prediction,
    pub ranking: Option<&'a Ranking>,
}

pub struct Page<'a> {
    pub title: String,
    /// What the header lists: scenario, Kubernetes version, duration, podsim.
    pub facts: Vec<(&'static str, String)>,
    /// The first run, then any the prediction links to.
    pub runs: Vec<RunPart<'a>>,
    pub sweep: Option<SweepPart<'a>>,
}

impl Page<'_> {
    pub fn html(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"podsim {}\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>",
            env!("CARGO_PKG_VERSION"),
            html(&self.title)
        );
        let _ = writeln!(out, "<header><h1>{}</h1><dl class=\"facts\">", html(&self.title));
        for (k, v) in &self.facts {
            let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", html(v));
        }
        out.push_str("</dl>\n<nav>");
        for r in &self.runs {
            let _ = write!(out, "<a href=\"#seed-{}\">{}</a>", r.seed, html(&r.heading));
        }
        if self.sweep.is_some() {
            out.push_str("<a href=\"#prediction\">over the runs</a>");
        }
        out.push_str("</nav></header>\n<main>\n");
        // The prediction first when there is one: it is what the page answers.
        if let Some(s) = &self.sweep {
            let linked: Vec<u64> = self.runs.iter().map(|r| r.seed).collect();
            out.push_str(&sweep::section(s.runs, s.prediction, s.ranking, &linked));
        }
        for r in &self.runs {
            out.push_str(&run_section(r));
        }
        let _ = writeln!(
            out,
            "</main>\n<div id=\"tip\" role=\"tooltip\" hidden></div>\n<aside id=\"detail\" hidden><button type=\"button\" id=\"close\" aria-label=\"close\">×</button><h3></h3><pre></pre></aside>\n<script>\n{SCRIPT}</script>\n</body>\n</html>"
        );
        out
    }
}

/// A run's section: swimlanes, the marks' key, events, probe results and
/// the objects the marks refer to.
fn run_section(r: &RunPart) -> String {
    let mut out = String::new();
    let until = r.until.as_millis() as f64 / 1000.0;
    let t = timeline::build(r.trace, String::new(), r.until);
    let (groups, left_out, lanes_out) = swimlanes::shown(&t);
    let drawn: BTreeSet<ObjectKey> = groups.iter().filter_map(|g| g.group.object.clone()).collect();
    let objects = Objects::collect(r.trace, r.clock, &|k| drawn.contains(k));
    let id = format!("seed-{}", r.seed);
    let pods = groups.iter().filter(|g| matches!(g.group.object, Some(ObjectKey::Pod(_)))).count() + left_out;
    let _ = writeln!(
        out,
        "<section class=\"run\" id=\"{id}\"><h2>{}: seed {}, {until} s simulated</h2>",
        html(&r.heading),
        r.seed
    );
    let _ = writeln!(
        out,
        "<p class=\"hint\">{pods} pods. Hover a mark for what it is and the object as it was at that instant; click for the whole object.</p>"
    );
    out.push_str(&swimlanes::legend(&groups));
    let marks = swimlanes::marks(&t, &groups);
    let svg = swimlanes::svg(&t, &groups, &marks, &format!("objects-{id}"));
    let _ = writeln!(out, "<div class=\"lanes\">{svg}</div>");
    if left_out > 0 {
        let _ = writeln!(
            out,
            "<p class=\"kept\">{left_out} more pods are not drawn (the page draws the first {}); `podsim get pods` lists them all.</p>",
            swimlanes::MAX_PODS
        );
    }
    if lanes_out > 0 {
        let _ = writeln!(
            out,
            "<p class=\"kept\">{lanes_out} more lanes of the Services' endpoints and the nodes are not drawn (the page draws a group's first {}).</p>",
            swimlanes::MAX_PODS
        );
    }
    if objects.dropped > 0 {
        let _ = writeln!(
            out,
            "<p class=\"kept\">{} later object versions are not kept (over {} MiB of JSON).</p>",
            objects.dropped,
            objects::BUDGET >> 20
        );
    }
    if marks.len() < t.marks.len() {
        let _ = writeln!(
            out,
            "<p class=\"kept\">{} of the run's {} milestones and actions are marked: those about what is drawn, at most {}.</p>",
            marks.len(),
            t.marks.len(),
            swimlanes::MAX_MARKS
        );
    }
    if !marks.is_empty() {
        out.push_str("<ol class=\"key\">");
        for m in &marks {
            let class = if m.action { " class=\"action\"" } else { "" };
            let _ = write!(out, "<li{class}><span>{:.3}s</span> {}</li>", m.at, html(&m.label));
        }
        out.push_str("</ol>\n");
    }
    let _ = writeln!(out, "<details open><summary>Events</summary>{}</details>", tables::events(r.trace));
    let _ = writeln!(out, "<details><summary>Probe results</summary>{}</details>", tables::probes(r.trace));
    out.push_str(&objects.script(&format!("objects-{id}")));
    out.push_str("</section>\n");
    out
}
