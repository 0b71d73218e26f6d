//! The swimlanes of one run as inline SVG, every mark carrying what the page
//! shows on hover (`data-tip`, after its lane's `data-lane`) and each group
//! the object it shows (`data-obj`).

use super::escape::html;
use super::objects;
use crate::plot::axis;
use crate::plot::palette::{Look, Shape};
use crate::plot::timeline::{Group, Lane, Mark, ObjectKey, Timeline};
use plotters::style::RGBColor;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Pods drawn per timeline; the rest are counted under the picture.
pub const MAX_PODS: usize = 60;

const WIDTH: f64 = 1400.0;
const X0: f64 = 330.0;
const X1: f64 = 1380.0;
const AXIS_H: f64 = 22.0;
const MARK_ROW: f64 = 16.0;
const HEADER_H: f64 = 22.0;
const LANE_H: f64 = 18.0;
const BAR_H: f64 = 12.0;
const GAP: f64 = 4.0;
/// Pixels per character of the 11px labels, to decide what fits.
const CHAR_W: f64 = 6.2;

/// A group as drawn: its first lanes only, where it has more than [`MAX_PODS`].
pub struct Shown<'a> {
    pub group: &'a Group,
    pub lanes: &'a [Lane],
}

/// The groups drawn: every group but the pods past [`MAX_PODS`], and no
/// more than that many lanes in any other group (a Service's endpoints, one
/// lane per pod); with how many pods and lanes were left out.
pub fn shown(t: &Timeline) -> (Vec<Shown<'_>>, usize, usize) {
    let (mut pods, mut pods_out, mut lanes_out) = (0, 0, 0);
    let mut out = Vec::new();
    for g in &t.groups {
        if matches!(g.object, Some(ObjectKey::Pod(_))) {
            pods += 1;
            if pods > MAX_PODS {
                pods_out += 1;
                continue;
            }
            out.push(Shown { group: g, lanes: &g.lanes });
            continue;
        }
        let n = g.lanes.len().min(MAX_PODS);
        lanes_out += g.lanes.len() - n;
        out.push(Shown { group: g, lanes: &g.lanes[..n] });
    }
    (out, pods_out, lanes_out)
}

fn x(t: f64, until: f64) -> f64 {
    X0 + (t / until.max(1e-3)).clamp(0.0, 1.0) * (X1 - X0)
}

fn hex(RGBColor(r, g, b): RGBColor) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn secs(t: f64) -> String {
    format!("{t:.3}s")
}

/// Marks drawn at most: each is a line across every lane.
pub const MAX_MARKS: usize = 120;

/// The marks about what is drawn: the scenario's actions, and the milestones
/// of drawn pods and of everything else, the first [`MAX_MARKS`] in time.
pub fn marks<'a>(t: &'a Timeline, groups: &[Shown]) -> Vec<&'a Mark> {
    let pods: Vec<&str> = (groups.iter())
        .filter(|g| matches!(g.group.object, Some(ObjectKey::Pod(_))))
        .map(|g| g.group.title.split(' ').next().unwrap_or_default())
        .collect();
    let about_drawn = |m: &Mark| {
        let subject = m.label.split(':').next().unwrap_or_default();
        // A container's milestone (pod/NAME/CONTAINER) is about its pod.
        let pod = subject.strip_prefix("pod/").map(|rest| rest.split('/').next().unwrap_or_default());
        m.action || pod.is_none_or(|p| pods.iter().any(|d| d.strip_prefix("pod/") == Some(p)))
    };
    t.marks.iter().filter(|m| about_drawn(m)).take(MAX_MARKS).collect()
}

/// The rows the marks' numbers take above the lanes, packed left to right.
fn mark_rows(t: &Timeline, marks: &[&Mark]) -> (Vec<usize>, usize) {
    let mut ends: Vec<f64> = Vec::new();
    let rows = (marks.iter().enumerate())
        .map(|(i, m)| {
            let w = (i + 1).to_string().len() as f64 * CHAR_W + 8.0;
            let left = x(m.at, t.until) - w / 2.0;
            let row = ends.iter().position(|end| *end + 2.0 < left).unwrap_or(ends.len());
            if row == ends.len() {
                ends.push(0.0);
            }
            ends[row] = left + w;
            row
        })
        .collect();
    (rows, ends.len())
}

/// The SVG of `t`, with `id` naming its objects' script element.
pub fn svg(t: &Timeline, groups: &[Shown], marks: &[&Mark], objects_id: &str) -> String {
    let (rows, n_rows) = mark_rows(t, marks);
    let marks_top = AXIS_H;
    let lanes_top = marks_top + n_rows as f64 * MARK_ROW + 4.0;
    let lanes: f64 = groups.iter().map(|g| HEADER_H + g.lanes.len() as f64 * LANE_H + GAP).sum();
    let bottom = lanes_top + lanes;
    let height = bottom + AXIS_H;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg class="swimlanes" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" data-x0="{X0}" data-x1="{X1}" data-until="{}" data-objects="{objects_id}">"#,
        t.until
    );
    // Axis and grid.
    let (ticks, step) = axis::ticks(t.until, 15.0);
    for v in &ticks {
        let px = x(*v, t.until);
        let word = axis::label(*v, step);
        let _ = writeln!(
            s,
            r#"<line class="grid" x1="{px:.1}" y1="{lanes_top}" x2="{px:.1}" y2="{bottom}"/><text class="tick" x="{px:.1}" y="{}">{word}</text><text class="tick" x="{px:.1}" y="{}">{word}</text>"#,
            AXIS_H - 7.0,
            bottom + AXIS_H - 7.0
        );
    }
    let mut y = lanes_top;
    for Shown { group: g, lanes } in groups {
        let kind = match &g.object {
            Some(ObjectKey::Pod(_)) => "pod",
            Some(ObjectKey::Service(_)) => "service",
            None => "network",
        };
        let obj = g.object.as_ref().map(|k| format!(r#" data-obj="{}""#, html(&objects::key(k)))).unwrap_or_default();
        let _ = writeln!(s, r#"<g class="group" data-kind="{kind}"{obj} data-title="{}">"#, html(&g.title));
        let _ = writeln!(
            s,
            r#"<rect class="header" x="0" y="{y}" width="{WIDTH}" height="{HEADER_H}"/><text class="title" x="8" y="{}">{}</text>"#,
            y + 15.0,
            html(&g.title)
        );
        y += HEADER_H;
        for (i, lane) in lanes.iter().enumerate() {
            lane_svg(&mut s, lane, y, i % 2 == 1, t.until);
            y += LANE_H;
        }
        y += GAP;
        s.push_str("</g>\n");
    }
    for (i, m) in marks.iter().enumerate() {
        let px = x(m.at, t.until);
        let top = marks_top + rows[i] as f64 * MARK_ROW;
        let class = if m.action { "mark action" } else { "mark" };
        let what = if m.action { "scenario action" } else { "milestone" };
        let tip = format!("{}. {what} at {}: {}", i + 1, secs(m.at), m.label);
        let w = (i + 1).to_string().len() as f64 * CHAR_W + 8.0;
        let _ = writeln!(
            s,
            r#"<g class="{class}" data-tip="{}"><line x1="{px:.1}" y1="{}" x2="{px:.1}" y2="{bottom}"/><rect x="{:.1}" y="{}" width="{w:.1}" height="13" rx="2"/><text x="{px:.1}" y="{}">{}</text></g>"#,
            html(&tip),
            top + MARK_ROW,
            px - w / 2.0,
            top + 1.0,
            top + 11.0,
            i + 1
        );
    }
    s.push_str("</svg>\n");
    s
}

/// One lane: its label, its bars, and its instants merged per pixel column.
fn lane_svg(s: &mut String, lane: &Lane, top: f64, stripe: bool, until: f64) {
    let label = html(&lane.label);
    let _ = write!(s, r#"<g class="lane" data-lane="{label}">"#);
    if stripe {
        let _ = write!(s, r#"<rect class="stripe" x="0" y="{top}" width="{WIDTH}" height="{LANE_H}"/>"#);
    }
    let shown: String = match lane.label.chars().count() as f64 * CHAR_W > X0 - 30.0 {
        true => lane.label.chars().take(((X0 - 30.0) / CHAR_W) as usize - 1).chain(['…']).collect(),
        false => lane.label.clone(),
    };
    let _ = write!(s, r#"<text class="label" x="20" y="{}">{}</text>"#, top + 13.0, html(&shown));
    let (y0, mid) = (top + (LANE_H - BAR_H) / 2.0, top + LANE_H / 2.0);
    for b in &lane.bars {
        let (a, z) = (x(b.from, until), x(b.to, until).max(x(b.from, until) + 1.0));
        let tip = format!("{} · {} → {}", b.text, secs(b.from), secs(b.to));
        let _ = write!(
            s,
            r#"<rect class="bar" x="{a:.1}" y="{y0}" width="{:.1}" height="{BAR_H}" fill="{}" data-tip="{}"/>"#,
            z - a,
            hex(b.look.colour()),
            html(&tip)
        );
        if !b.text.is_empty() && b.text.chars().count() as f64 * CHAR_W + 8.0 < z - a {
            let ink = if dark(b.look.colour()) { "light" } else { "dark" };
            let _ =
                write!(s, r#"<text class="on {ink}" x="{:.1}" y="{}">{}</text>"#, a + 4.0, top + 13.0, html(&b.text));
        }
    }
    // Instants at the same pixel and of the same look are one mark, with their count.
    let mut merged: BTreeMap<(i64, Look), (f64, f64, u32)> = BTreeMap::new();
    for (t, look) in &lane.instants {
        let e = merged.entry((x(*t, until).round() as i64, *look)).or_insert((*t, *t, 0));
        e.0 = e.0.min(*t);
        e.1 = e.1.max(*t);
        e.2 += 1;
    }
    for ((px, look), (first, last, n)) in merged {
        let tip = match n {
            1 => format!("{} at {}", look.legend(), secs(first)),
            n => format!("{n} × {} from {} to {}", look.legend(), secs(first), secs(last)),
        };
        let (fill, tip) = (hex(look.colour()), html(&tip));
        let _ = match look.shape() {
            Shape::Dot => {
                write!(s, r#"<circle class="dot" cx="{px}" cy="{mid}" r="4" fill="{fill}" data-tip="{tip}"/>"#)
            }
            _ => write!(
                s,
                r#"<rect class="tick" x="{}" y="{y0}" width="2" height="{BAR_H}" fill="{fill}" data-tip="{tip}"/>"#,
                px - 1
            ),
        };
    }
    s.push_str("</g>\n");
}

fn dark(RGBColor(r, g, b): RGBColor) -> bool {
    (299 * r as u32 + 587 * g as u32 + 114 * b as u32) < 140_000
}

/// The legend of the looks `groups` use, as HTML.
pub fn legend(groups: &[Shown]) -> String {
    let mut looks: Vec<Look> = Vec::new();
    for lane in groups.iter().flat_map(|g| g.lanes) {
        for look in lane.bars.iter().map(|b| b.look).chain(lane.instants.iter().map(|(_, l)| *l)) {
            if !looks.contains(&look) {
                looks.push(look);
            }
        }
    }
    looks.sort();
    let mut sections: Vec<(&str, Vec<Look>)> = Vec::new();
    for look in looks {
        match sections.iter_mut().find(|(s, _)| *s == look.section()) {
            Some((_, v)) => v.push(look),
            None => sections.push((look.section(), vec![look])),
        }
    }
    let mut out = String::from("<dl class=\"legend\">");
    for (section, looks) in sections {
        let _ = write!(out, "<dt>{section}</dt><dd>");
        for look in looks {
            let shape = match look.shape() {
                Shape::Bar => "bar",
                Shape::Tick => "tick",
                Shape::Dot => "dot",
            };
            let _ = write!(
                out,
                r#"<span class="swatch {shape}" style="background:{}"></span>{} "#,
                hex(look.colour()),
                html(look.legend())
            );
        }
        out.push_str("</dd>");
    }
    out.push_str("</dl>\n");
    out
}
