//! The part of the page about many runs: each milestone's distribution and
//! CDF, the happens-before graph, the orderings that vary, and the slowest
//! and fastest seeds linked to their timelines.

use super::escape::html;
use super::seeds::Ranking;
use crate::plot::{cdf, graph, svg};
use crate::predict::{Prediction, Runs};
use crate::time::SimTime;
use std::fmt::Write;

fn secs(t: SimTime) -> String {
    let ms = t.as_millis();
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

/// The section's HTML; `linked` holds the seeds whose timelines are on the page.
pub fn section(runs: &Runs, p: &Prediction, ranking: Option<&Ranking>, linked: &[u64]) -> String {
    let mut out = String::new();
    let seeds_run = crate::sweep::seed_range(p.first_seed, p.runs.into());
    let _ = writeln!(out, "<section id=\"prediction\"><h2>Over {} runs (seeds {seeds_run})</h2>", p.runs);
    seeds(&mut out, ranking, linked);
    out.push_str("<h3 id=\"cdf\">When the key steps happen</h3>\n");
    match cdf::choose(&runs.names, &[]) {
        Ok(chosen) => picture(&mut out, svg(&cdf::Cdf::new(runs, &chosen, "Milestone times over the runs".into()))),
        Err(why) => {
            let _ = writeln!(out, "<p class=\"none\">{}</p>", html(&why));
        }
    }
    out.push_str("<h3 id=\"ordering\">What always happens before what</h3>\n");
    match (p.ordering.skipped, graph::choose(p, &[])) {
        (Some(n), _) => {
            let _ = writeln!(
                out,
                "<p class=\"none\">{n} milestones: more than the {} podsim orders pairwise.</p>",
                crate::predict::MAX_ORDERED
            );
        }
        (None, Ok((shown, note))) => picture(
            &mut out,
            svg(&graph::Graph::new(p, &shown, note, "Happens-before over the runs (transitively reduced)".into())),
        ),
        (None, Err(why)) => {
            let _ = writeln!(out, "<p class=\"none\">{}</p>", html(&why));
        }
    }
    varies(&mut out, p);
    out.push_str("<details id=\"milestones\"><summary>Every milestone</summary>\n<table class=\"milestones\"><thead><tr><th>MILESTONE</th><th>REACHED</th><th>MIN</th><th>P50</th><th>P95</th><th>P99</th><th>MAX</th></tr></thead><tbody>\n");
    for (name, s) in p.names.iter().zip(&p.stats) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html(name),
            s.reached,
            s.runs,
            secs(s.min),
            secs(s.p50),
            secs(s.p95),
            secs(s.p99),
            secs(s.max)
        );
    }
    out.push_str("</tbody></table></details>\n");
    out.push_str("</section>\n");
    out
}

fn picture(out: &mut String, drawn: Result<String, Box<dyn std::error::Error>>) {
    match drawn {
        Ok(svg) => {
            let _ = writeln!(out, "<div class=\"picture\">{}</div>", strip_prolog(&svg));
        }
        Err(e) => {
            let _ = writeln!(out, "<p class=\"none\">not drawn: {}</p>", html(&e.to_string()));
        }
    }
}

/// An SVG document's text without its XML declaration, to sit inside HTML.
fn strip_prolog(svg: &str) -> &str {
    match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map_or(svg, |(_, r)| r.trim_start()),
        None => svg,
    }
}

fn seeds(out: &mut String, ranking: Option<&Ranking>, linked: &[u64]) {
    let Some(r) = ranking else {
        out.push_str(
            "<p class=\"none\">No milestone every run reaches varies in time: the runs cannot be ranked.</p>\n",
        );
        return;
    };
    let _ = writeln!(
        out,
        "<h3 id=\"seeds\">Slowest and fastest seeds</h3>\n<p>Ranked by <code>{}</code>, the latest step every run reaches whose time varies.</p>\n<div class=\"seeds\">",
        html(&r.milestone)
    );
    for (title, list) in [("slowest", &r.slowest), ("fastest", &r.fastest)] {
        let _ = write!(out, "<div><h4>{title}</h4><ol>");
        for (seed, t) in list {
            let name = match linked.contains(seed) {
                true => format!("<a href=\"#seed-{seed}\">seed {seed}</a>"),
                false => format!("seed {seed}"),
            };
            let _ = write!(out, "<li>{name}: {}</li>", secs(*t));
        }
        out.push_str("</ol></div>");
    }
    out.push_str("</div>\n");
}

fn varies(out: &mut String, p: &Prediction) {
    out.push_str("<h3 id=\"varies\">Orderings that vary</h3>\n");
    if p.ordering.varies.is_empty() {
        out.push_str(
            "<p class=\"none\">None: every pair of milestones reached together is always in the same order.</p>\n",
        );
        return;
    }
    out.push_str("<table class=\"varies\"><thead><tr><th>FIRST</th><th>SECOND</th><th>FIRST BEFORE</th><th>SAME INSTANT</th><th>SECOND BEFORE</th></tr></thead><tbody>\n");
    for v in &p.ordering.varies {
        let both = (v.before + v.same + v.after).max(1) as f64;
        let cell = |n: u32| format!("{n} ({:.1} %)", 100.0 * n as f64 / both);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html(&p.names[v.a]),
            html(&p.names[v.b]),
            cell(v.before),
            cell(v.same),
            cell(v.after)
        );
    }
    out.push_str("</tbody></table>\n");
}
