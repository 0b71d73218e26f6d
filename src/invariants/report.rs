//! Verdicts per pod and invariant, and their renderings.

use super::{CATALOGUE, JOB_RULES, SIM_ONLY, STATEFULSET_RULES, WORKLOAD_RULES};
use crate::observe::Origin;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One place where an invariant is broken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The records that break it (`file:line`).
    pub records: Vec<String>,
    pub expected: String,
    pub observed: String,
}

/// The verdict of one invariant for one pod.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Checked `checked` times, never broken.
    Holds {
        checked: u32,
    },
    Violated {
        violations: Vec<Violation>,
    },
    NotApplicable {
        why: String,
    },
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Holds { .. } => "holds",
            Verdict::Violated { .. } => "VIOLATED",
            Verdict::NotApplicable { .. } => "n/a",
        }
    }
}

/// What was found about one pod (or the EndpointSlices).
#[derive(Clone, Debug, Serialize)]
pub struct PodReport {
    pub pod: String,
    /// What the recording holds about it: objects, rows, events.
    pub observed: String,
    pub verdicts: BTreeMap<&'static str, Verdict>,
}

/// What was found about one controller object, from its `kubectl get` rows.
#[derive(Clone, Debug, Serialize)]
pub struct ControllerReport {
    /// `ReplicaSet`, `Deployment`, `StatefulSet` or `Job`.
    pub kind: &'static str,
    pub name: String,
    /// What the recording holds about it: its rows, the first and the last.
    pub observed: String,
    pub verdicts: BTreeMap<&'static str, Verdict>,
}

impl ControllerReport {
    /// How the table names it: `(Job job4)`.
    pub fn entry(&self) -> String {
        format!("({} {})", self.kind, self.name)
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub pods: Vec<PodReport>,
    pub controllers: Vec<ControllerReport>,
}

impl Report {
    pub fn violated(&self) -> bool {
        self.entries().any(|(_, _, verdicts)| verdicts.values().any(|v| matches!(v, Verdict::Violated { .. })))
    }

    /// Every entry as the table names it (`web`, `(EndpointSlices)`, `(Job job4)`), with what was read and the verdicts.
    fn entries(&self) -> impl Iterator<Item = (String, &str, &BTreeMap<&'static str, Verdict>)> {
        let pods = self.pods.iter().map(|p| (p.pod.clone(), p.observed.as_str(), &p.verdicts));
        pods.chain(self.controllers.iter().map(|c| (c.entry(), c.observed.as_str(), &c.verdicts)))
    }

    /// The verdict of `invariant` for the entry named `pod` (a controller: `(Job job4)`).
    pub fn verdict(&self, pod: &str, invariant: &str) -> Option<&Verdict> {
        self.entries().find(|(name, ..)| name == pod)?.2.get(invariant)
    }

    /// Only the broken invariants, in detail.
    pub fn render_violations(&self) -> String {
        let mut s = String::new();
        for (pod, _, verdicts) in self.entries() {
            for (name, v) in verdicts {
                if let Verdict::Violated { violations } = v {
                    for x in violations {
                        let _ = writeln!(
                            s,
                            "  pod {pod} {name} at {}: expected {}, observed {}",
                            x.records.join(", "),
                            x.expected,
                            x.observed
                        );
                    }
                }
            }
        }
        s
    }

    /// One block per pod, one line per invariant, violations in detail.
    pub fn render(&self) -> String {
        self.render_with(&|v| v.word().to_string())
    }

    /// As `render`, each verdict's word written by `word` (the command line colours it).
    pub fn render_with(&self, word: &dyn Fn(&Verdict) -> String) -> String {
        let mut s = String::new();
        for (pod, observed, verdicts) in self.entries() {
            // Entries that are not one pod are named in parentheses: `(EndpointSlices)`, `(ReplicaSet web-1)`.
            let what = if pod.starts_with('(') { "" } else { "pod " };
            let _ = writeln!(s, "{what}{pod} ({observed})");
            for inv in CATALOGUE.iter().chain(SIM_ONLY).chain(JOB_RULES).chain(WORKLOAD_RULES).chain(STATEFULSET_RULES)
            {
                let Some(v) = verdicts.get(inv.name) else { continue };
                let detail = match v {
                    Verdict::Holds { checked } => {
                        format!("checked {checked} time{}", if *checked == 1 { "" } else { "s" })
                    }
                    Verdict::NotApplicable { why } => why.clone(),
                    Verdict::Violated { violations } => {
                        format!("{} violation{}", violations.len(), if violations.len() == 1 { "" } else { "s" })
                    }
                };
                let pad = 9usize.saturating_sub(v.word().len());
                let _ = writeln!(s, "  {}{:pad$} {:<36} {detail}", word(v), "", inv.name);
                if let Verdict::Violated { violations } = v {
                    for x in violations {
                        let _ = writeln!(s, "            at {}", x.records.join(", "));
                        let _ = writeln!(s, "            expected {}", x.expected);
                        let _ = writeln!(s, "            observed {}", x.observed);
                    }
                }
            }
        }
        s
    }
}

/// Per pod and invariant, what the checker saw so far.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub checked: u32,
    pub violations: Vec<Violation>,
    pub not_applicable: Option<String>,
}

/// At most this many violations are kept per pod and invariant.
const KEEP: usize = 20;

impl Tally {
    pub fn hold(&mut self) {
        self.checked += 1;
    }
    pub fn violate(&mut self, origin: &[&Origin], expected: String, observed: String) {
        self.checked += 1;
        if self.violations.len() < KEEP {
            self.violations.push(Violation {
                records: origin.iter().map(|o| o.to_string()).collect(),
                expected,
                observed,
            });
        }
    }
    /// Adds another tally's checks and violations (up to the same limit).
    pub fn absorb(&mut self, other: Tally) {
        self.checked += other.checked;
        let room = KEEP.saturating_sub(self.violations.len());
        self.violations.extend(other.violations.into_iter().take(room));
        if self.not_applicable.is_none() {
            self.not_applicable = other.not_applicable;
        }
    }
    pub fn skip(&mut self, why: &str) {
        if self.not_applicable.is_none() {
            self.not_applicable = Some(why.to_string());
        }
    }
    pub fn verdict(self, default_why: &str) -> Verdict {
        match (self.violations.is_empty(), self.checked) {
            (false, _) => Verdict::Violated { violations: self.violations },
            (true, 0) => Verdict::NotApplicable { why: self.not_applicable.unwrap_or_else(|| default_why.to_string()) },
            (true, n) => Verdict::Holds { checked: n },
        }
    }
}
