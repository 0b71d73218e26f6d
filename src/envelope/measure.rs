//! What each timing is measured from, and where a recorded interval falls
//! against the simulated ones.
//!
//! The first start is measured from the pod's creation; everything after it
//! from the first start (what comes before it, scheduling and image pulls,
//! belongs to the environment, what comes after to the kubelet); a
//! container's end after a deletion from the deletion request. No timing
//! can precede its base: two whole-second timestamps in the same second
//! allow a difference down to −1 s only on paper, so an interval that
//! reaches below 0 starts at 0; one that lies wholly below 0 is a
//! recording that contradicts itself, reported and not compared.
//!
//! Every interval stands for real values: a difference of whole-second
//! timestamps comes as close to its bounds as one likes, so a recorded
//! interval that touches the simulated range is inside it.

use super::Fit;
use super::timings::{AFTER_DELETION, At, DELETION_REQUESTED, PodTimings, Timing};
use crate::observe::{Origin, Span};

/// The suffix of timings measured from the first start.
pub const AFTER_FIRST_START: &str = " (after the first start)";

/// One timing measured from its base.
pub struct Measured {
    pub name: String,
    pub at: Span,
    pub origin: Option<Origin>,
    pub reading: String,
    /// A state a listing showed (compared with when the runs showed it), or a moment.
    pub shown: Option<String>,
}

/// The name of the pod's first start: the earliest container start the
/// recording shows (init containers included), else its first `Running`
/// watch row.
pub fn first_start(t: &PodTimings) -> Option<String> {
    let starts = t.moments.iter().filter(|(n, _)| n.ends_with(" started #0"));
    // Instants order among themselves even when the creation is unknown.
    let key = |v: &Timing| match v.at {
        At::Instant(s) => Some(s.lo),
        At::SinceCreation(_) => None,
    };
    let earliest = starts.filter_map(|(n, v)| Some((key(v)?, n))).min().map(|(_, n)| n.clone());
    earliest.or_else(|| t.moments.contains_key("Running #0").then(|| "Running #0".to_string()))
}

/// Never below 0, never empty; `None` when wholly below 0 (the recording
/// contradicts itself: the timing would precede its base).
fn causal(s: Span) -> Option<Span> {
    if s.hi < 0 {
        return None;
    }
    let lo = s.lo.max(0);
    Some(Span { lo, hi: s.hi.max(lo + 1) })
}

/// A recorded timing that would precede its base.
pub struct Contradiction {
    pub name: String,
    pub at: Span,
    pub origin: Option<Origin>,
    pub reading: String,
}

/// Every timing of `t` measured from its base; `base` names the first start
/// (the recording's choice, used for the simulated runs too). A simulated
/// run without that start measures nothing from it. A state a listing
/// showed is measured from the first start when it was shown after it, else
/// from creation.
pub fn measure(t: &PodTimings, base: Option<&str>) -> (Vec<Measured>, Vec<Contradiction>) {
    let base = base.and_then(|b| t.moments.get(b).map(|v| (b, v)));
    let deletion = t.moments.get(DELETION_REQUESTED);
    let creation = |v: &Timing| match v.at {
        At::Instant(_) => format!("{} − creationTimestamp (whole seconds)", v.basis),
        At::SinceCreation(_) => v.basis.clone(),
    };
    let from_base = |v: &Timing, (b, bt): (&str, &Timing)| format!("{} − the first start ({b}: {})", v.basis, bt.basis);
    let (mut out, mut contradictions) = (Vec::new(), Vec::new());
    let mut push = |name: String, at: Span, origin: &Option<Origin>, reading: String, shown: bool| match causal(at) {
        Some(at) => {
            let shown = shown.then(|| name.clone());
            out.push(Measured { name, at, origin: origin.clone(), reading, shown })
        }
        None => contradictions.push(Contradiction { name, at, origin: origin.clone(), reading }),
    };
    for (name, v) in &t.moments {
        let measured = if base.is_some_and(|(b, _)| b == name) || name == DELETION_REQUESTED {
            t.since_creation(&v.at).map(|at| (name.clone(), at, creation(v)))
        } else if name.ends_with(AFTER_DELETION) {
            let d = deletion.and_then(|d| t.between(&v.at, &d.at));
            d.map(|at| (name.clone(), at, format!("{} − the deletion request (whole seconds)", v.basis)))
        } else if let Some((b, bt)) = base {
            t.between(&v.at, &bt.at).map(|at| (format!("{name}{AFTER_FIRST_START}"), at, from_base(v, (b, bt))))
        } else {
            t.since_creation(&v.at).map(|at| (name.clone(), at, creation(v)))
        };
        if let Some((name, at, reading)) = measured {
            push(name, at, &v.origin, reading, false);
        }
    }
    for (state, v) in &t.shown {
        let Some(age) = t.since_creation(&v.at) else { continue };
        let after = base.filter(|(_, bt)| t.since_creation(&bt.at).is_some_and(|b| age.lo >= b.hi));
        let measured = match after {
            Some(b) => {
                t.between(&v.at, &b.1.at).map(|at| (format!("shows `{state}`{AFTER_FIRST_START}"), at, from_base(v, b)))
            }
            None => Some((format!("shows `{state}`"), age, v.basis.clone())),
        };
        if let Some((name, at, reading)) = measured {
            push(name, at, &v.origin, reading, true);
        }
    }
    (out, contradictions)
}

/// The windows in which a simulated run showed each row state, by the name
/// of the line they answer: `shows `…`` measured from creation and, when
/// the run has the first start, `… (after the first start)` from it.
pub fn windows(t: &PodTimings, base: Option<&str>) -> Vec<(String, i64, Option<i64>)> {
    let base_at = base.and_then(|b| t.moments.get(b)).and_then(|v| t.since_creation(&v.at));
    let mut out = Vec::new();
    for (state, ws) in &t.windows {
        for &(from, to) in ws {
            out.push((format!("shows `{state}`"), from, to));
            // The widest the window can be, given the base's precision.
            if let Some(b) = base_at {
                let (from, to) = (from - b.hi, to.map(|x| x - b.lo));
                out.push((format!("shows `{state}`{AFTER_FIRST_START}"), from.max(0), to.map(|x| x.max(1))));
            }
        }
    }
    out
}

/// Where a moment falls against the smallest and largest simulated value:
/// outside only when a gap separates them (touching is inside).
pub fn fit_moment(at: Span, sim: Option<(i64, i64)>) -> Fit {
    match sim {
        None => Fit::NotSimulated,
        Some((lo, _)) if at.hi < lo => Fit::Early { by_ms: lo - at.hi },
        Some((_, hi)) if at.lo > hi => Fit::Late { by_ms: at.lo - hi },
        Some(_) => Fit::Inside,
    }
}

/// Where a state shown at `at` falls against the windows in which the runs
/// showed it: inside (or touching) one, else before or after the nearest.
pub fn fit_shown(at: Span, windows: &[(i64, Option<i64>)]) -> Fit {
    let mut nearest: Option<Fit> = None;
    for &(from, to) in windows {
        let fit = match to {
            _ if at.hi < from => Fit::Early { by_ms: from - at.hi },
            Some(to) if at.lo > to => Fit::Late { by_ms: at.lo - to },
            _ => return Fit::Inside,
        };
        let by = |f: &Fit| match f {
            Fit::Early { by_ms } | Fit::Late { by_ms } => *by_ms,
            _ => 0,
        };
        if nearest.as_ref().is_none_or(|n| by(&fit) < by(n)) {
            nearest = Some(fit);
        }
    }
    nearest.unwrap_or(Fit::NotSimulated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_inside_any_window_that_holds_it() {
        let at = Span { lo: 13_000, hi: 14_000 };
        assert_eq!(fit_shown(at, &[(10_000, Some(20_000))]), Fit::Inside);
        assert_eq!(fit_shown(at, &[(0, Some(5_000)), (13_999, None)]), Fit::Inside);
        // Before every window: early by the gap to the nearest.
        assert_eq!(fit_shown(at, &[(20_000, None), (15_000, Some(16_000))]), Fit::Early { by_ms: 1_000 });
        // After it ended.
        assert_eq!(fit_shown(at, &[(0, Some(3_000))]), Fit::Late { by_ms: 10_000 });
        assert_eq!(fit_shown(at, &[]), Fit::NotSimulated);
    }

    /// Trace 006's dump: startedAt 21:51:05Z − creationTimestamp 21:51:01Z is
    /// some real in (3 s, 5 s); a run whose whole seconds are 2 apart gives
    /// (1 s, 3 s). Nothing separates them: inside, not "late by 0.0 s".
    #[test]
    fn touching_intervals_are_inside() {
        let recorded = Span::second(5).difference(&Span::second(1));
        assert_eq!(recorded, Span { lo: 3_000, hi: 5_000 });
        let simulated = Span::second(2).difference(&Span::second(0));
        assert_eq!(fit_moment(recorded, Some((simulated.lo, simulated.hi))), Fit::Inside);
        assert_eq!(fit_moment(recorded, Some((0, 2_999))), Fit::Late { by_ms: 1 });
        assert_eq!(fit_moment(recorded, Some((5_000, 9_000))), Fit::Inside);
        assert_eq!(fit_moment(recorded, Some((5_001, 9_000))), Fit::Early { by_ms: 1 });
        // A state shown at AGE 13s ([13 s, 14 s)) in a run that showed it from 14 s on.
        assert_eq!(fit_shown(Span { lo: 13_000, hi: 14_000 }, &[(14_000, None)]), Fit::Inside);
        assert_eq!(fit_shown(Span { lo: 13_000, hi: 14_000 }, &[(0, Some(13_000))]), Fit::Inside);
    }

    #[test]
    fn intervals_never_reach_below_zero() {
        assert_eq!(causal(Span { lo: -999, hi: 1_000 }), Some(Span { lo: 0, hi: 1_000 }));
        assert_eq!(causal(Span { lo: -1_000, hi: 0 }), Some(Span { lo: 0, hi: 1 }));
        assert_eq!(causal(Span { lo: 2_000, hi: 4_000 }), Some(Span { lo: 2_000, hi: 4_000 }));
        // Wholly below 0: the recording contradicts itself.
        assert_eq!(causal(Span { lo: -3_000, hi: -1_000 }), None);
    }
}
