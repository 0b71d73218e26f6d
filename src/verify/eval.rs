//! One property against one run: the instants it holds at, the first that
//! breaks it (always, never) or satisfies it (eventually, sometimes).

use super::language::{Cond, Kind, Property, Term};
use super::view::RunView;
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeSet;

/// What one run says about one property.
#[derive(Clone, Debug, PartialEq)]
pub enum RunResult {
    /// always/never held; eventually/sometimes was seen (when, for which subject).
    Held { seen: Option<Instant> },
    /// always/never broke, or eventually/sometimes was not seen in the window.
    Broken(Instant),
}

/// An instant of a run and what the property's terms read there.
#[derive(Clone, Debug, PartialEq)]
pub struct Instant {
    pub at: SimTime,
    /// The subject a wildcard stood for.
    pub subject: Option<String>,
    /// `ready_endpoints(svc/web) = 0, …`.
    pub values: String,
}

/// Checks `p` against one run. A wildcard subject stands for each subject it
/// matches in the run, and the property must hold for every one.
pub fn check(p: &Property, view: &RunView) -> RunResult {
    let (from, to) = window(p, view.end);
    let leaves = p.cond.leaves();
    let pattern = leaves.iter().filter_map(|t| t.subject()).find(|s| s.contains('*'));
    let bindings: Vec<Option<String>> = match pattern {
        None => vec![None],
        Some(pattern) => {
            let mut subjects = BTreeSet::new();
            for t in leaves.iter().filter(|t| t.subject() == Some(pattern)) {
                let function = match t {
                    Term::State { function, .. } => Some(*function),
                    _ => None,
                };
                subjects.extend(view.subjects(pattern, function));
            }
            subjects.into_iter().map(Some).collect()
        }
    };
    if bindings.is_empty() {
        let values = format!("no subject matches {}", pattern.unwrap_or_default());
        return match p.kind {
            Kind::Always | Kind::Never => RunResult::Held { seen: None },
            Kind::Eventually | Kind::Sometimes => RunResult::Broken(Instant { at: to, subject: None, values }),
        };
    }
    let timeless = bare_milestones(&p.cond).is_empty() && !leaves.iter().any(|t| matches!(t, Term::State { .. }));
    let mut seen: Option<Instant> = None;
    for binding in bindings {
        let b = Bound { view, pattern, subject: binding.as_deref() };
        let instant = |at: SimTime| {
            // A condition on milestone times alone has one value for the whole
            // run: it is decided once its last milestone is reached.
            let at = if timeless { b.decided(&leaves, to) } else { at };
            Instant { at, subject: binding.clone(), values: b.values(&leaves, at) }
        };
        let points = b.points(&leaves, &p.cond, from, to);
        let first = |want: bool| points.iter().copied().find(|&t| b.holds(&p.cond, t) == want);
        match p.kind {
            Kind::Always | Kind::Never => {
                if let Some(t) = first(p.kind == Kind::Never) {
                    return RunResult::Broken(instant(t));
                }
            }
            Kind::Eventually | Kind::Sometimes => match first(true) {
                Some(t) => {
                    // Seen for every subject only once the last one is.
                    if seen.as_ref().is_none_or(|s| s.at <= t) {
                        seen = Some(instant(t));
                    }
                }
                None => return RunResult::Broken(instant(to)),
            },
        }
    }
    RunResult::Held { seen }
}

/// The instants the property is checked over: `[after, within]`, within the run.
pub fn window(p: &Property, end: SimTime) -> (SimTime, SimTime) {
    let from = SimTime::ZERO + p.after.unwrap_or(SimDuration::ZERO);
    let to = p.within.map_or(end, |w| (SimTime::ZERO + w).min(end));
    (from, to)
}

/// A run with the wildcard bound to one subject.
struct Bound<'a> {
    view: &'a RunView,
    pattern: Option<&'a str>,
    subject: Option<&'a str>,
}

impl Bound<'_> {
    fn subject<'s>(&'s self, s: &'s str) -> &'s str {
        match (self.pattern, self.subject) {
            (Some(p), Some(bound)) if p == s => bound,
            _ => s,
        }
    }

    /// The instants a value may change at, in the window: its start, and
    /// every change of a state function or reached bare milestone.
    fn points(&self, leaves: &[&Term], cond: &Cond, from: SimTime, to: SimTime) -> Vec<SimTime> {
        let mut points = BTreeSet::from([from]);
        for t in leaves {
            if let Term::State { function, subject } = t {
                points.extend(self.view.changes(function, self.subject(subject)));
            }
        }
        for m in bare_milestones(cond) {
            if let Term::Milestone { subject, event } = m {
                points.extend(self.view.milestone(self.subject(subject), event));
            }
        }
        points.range(from..=to).copied().collect()
    }

    fn holds(&self, cond: &Cond, t: SimTime) -> bool {
        match cond {
            Cond::Cmp(a, op, b) => op.apply(self.value(a, t), self.value(b, t)),
            Cond::Holds(m @ Term::Milestone { .. }) => self.value(m, t) <= t.as_millis() as f64,
            Cond::Holds(term) => self.value(term, t) != 0.0,
            Cond::Not(c) => !self.holds(c, t),
            Cond::And(a, b) => self.holds(a, t) && self.holds(b, t),
            Cond::Or(a, b) => self.holds(a, t) || self.holds(b, t),
        }
    }

    /// A count, or a time in milliseconds (infinite: the milestone never happened).
    fn value(&self, term: &Term, t: SimTime) -> f64 {
        match term {
            Term::Count(n) => *n,
            Term::Duration(d) => d.as_millis() as f64,
            Term::State { function, subject } => self.view.value(function, self.subject(subject), t),
            Term::Milestone { subject, event } => {
                self.view.milestone(self.subject(subject), event).map_or(f64::INFINITY, |m| m.as_millis() as f64)
            }
            Term::Add(a, b) => self.value(a, t) + self.value(b, t),
            Term::Sub(a, b) => self.value(a, t) - self.value(b, t),
        }
    }

    /// When the milestones in `leaves` are all known: the last one reached,
    /// or the end of the window if one never is.
    fn decided(&self, leaves: &[&Term], to: SimTime) -> SimTime {
        let mut at = SimTime::ZERO;
        for t in leaves {
            if let Term::Milestone { subject, event } = t {
                match self.view.milestone(self.subject(subject), event) {
                    Some(m) => at = at.max(m),
                    None => return to,
                }
            }
        }
        at
    }

    /// What each state function and milestone read at `t`.
    fn values(&self, leaves: &[&Term], t: SimTime) -> String {
        let mut out: Vec<String> = Vec::new();
        for term in leaves {
            let text = match term {
                Term::State { function, subject } => {
                    format!(
                        "{function}({}) = {}",
                        self.subject(subject),
                        self.view.value(function, self.subject(subject), t)
                    )
                }
                Term::Milestone { subject, event } => match self.view.milestone(self.subject(subject), event) {
                    Some(at) => format!("{}:{event} at {at}", self.subject(subject)),
                    None => format!("{}:{event} never happened", self.subject(subject)),
                },
                _ => continue,
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out.join(", ")
    }
}

/// The milestones used as conditions on their own (reached or not).
fn bare_milestones(cond: &Cond) -> Vec<&Term> {
    match cond {
        Cond::Holds(m @ Term::Milestone { .. }) => vec![m],
        Cond::Cmp(..) | Cond::Holds(_) => Vec::new(),
        Cond::Not(c) => bare_milestones(c),
        Cond::And(a, b) | Cond::Or(a, b) => [bare_milestones(a), bare_milestones(b)].concat(),
    }
}
