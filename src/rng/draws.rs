//! Timing draws, tracked for shrinking counterexamples.
//!
//! `podsim verify` shrinks a failing run to the smallest set of timing draws
//! that still breaks a property: every other draw takes its distribution's
//! nominal value (a fixed value, the middle of a uniform range, the mean of a
//! normal or log-normal). A draw is named by its stream, its [`Label`] (the
//! step it times and the object it is about, by seed-independent names) and
//! its ordinal among that stream's draws of that label: pinning one draw
//! may move the events after it, and so which pod's draw comes next in a
//! shared stream, but not which draw a key names. A draw kept random takes
//! the value it had in the run being shrunk (recorded, then replayed by
//! key), not the stream's next word, which timing changes can give to
//! another draw. The random word is consumed either way, so the choices
//! that are not timings (generated names, endpoint picks) stay as drawn.
//!
//! The policy is per thread and set only around one run ([`with_policy`]):
//! a run is simulated on one thread from start to end, and ordinary runs have
//! no policy, so they pay nothing.

use super::label::Label;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

/// Which draw: of which stream, of which step for which object, and which
/// of those.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DrawKey {
    pub stream: Arc<str>,
    pub label: Label,
    /// 1 for the stream's first draw of this label.
    pub index: u32,
}

/// `kubelet/kind-worker/loop:container_start(pod/web@rev2#3/app)#1`.
impl fmt::Display for DrawKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}#{}", self.stream, self.label, self.index)
    }
}

/// A value drawn, and what it would be pinned to.
#[derive(Clone, Debug, PartialEq)]
pub enum Drawn {
    /// A duration in milliseconds, with its distribution as written.
    Millis { drawn: u64, nominal: u64, dist: String },
    /// A fraction of an interval (the kubelet's resync jitter).
    Fraction { drawn: f64, nominal: f64 },
}

impl Drawn {
    /// Pinning it would change nothing.
    pub fn is_nominal(&self) -> bool {
        match self {
            Drawn::Millis { drawn, nominal, .. } => drawn == nominal,
            Drawn::Fraction { drawn, nominal } => drawn == nominal,
        }
    }

    /// This draw with the value `other` took (a replayed draw), when both
    /// are of one kind.
    fn replaying(self, other: &Drawn) -> Drawn {
        match (self, other) {
            (Drawn::Millis { nominal, dist, .. }, Drawn::Millis { drawn, .. }) => {
                Drawn::Millis { drawn: *drawn, nominal, dist }
            }
            (Drawn::Fraction { nominal, .. }, Drawn::Fraction { drawn, .. }) => {
                Drawn::Fraction { drawn: *drawn, nominal }
            }
            (this, _) => this,
        }
    }

    /// This draw pinned to its nominal value.
    fn pinned(self) -> Drawn {
        match self {
            Drawn::Millis { nominal, dist, .. } => Drawn::Millis { drawn: nominal, nominal, dist },
            Drawn::Fraction { nominal, .. } => Drawn::Fraction { drawn: nominal, nominal },
        }
    }
}

/// One timing draw of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    pub key: DrawKey,
    pub value: Drawn,
}

/// Which draws stay random in a run, and the log of every draw made.
#[derive(Debug, Default)]
pub struct Policy {
    /// `None`: every draw is random (the run as its seed gives it).
    /// `Some`: these draws take these values, every other its nominal one.
    random: Option<BTreeMap<DrawKey, Drawn>>,
    log: Mutex<Vec<Draw>>,
}

impl Policy {
    /// Records every draw and changes none.
    pub fn record() -> Arc<Policy> {
        Arc::new(Policy::default())
    }

    /// Keeps the draws in `random` at the values given (those of the run
    /// being shrunk) and pins every other to its nominal value.
    pub fn keep(random: BTreeMap<DrawKey, Drawn>) -> Arc<Policy> {
        Arc::new(Policy { random: Some(random), log: Mutex::default() })
    }

    /// Every draw made so far, in the order made, with the value it took.
    pub fn draws(&self) -> Vec<Draw> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The value the draw `key` takes, given what the stream drew.
    fn decide(&self, key: &DrawKey, drawn: Drawn) -> Drawn {
        match &self.random {
            None => drawn,
            Some(random) => match random.get(key) {
                Some(kept) => drawn.replaying(kept),
                None => drawn.pinned(),
            },
        }
    }

    fn note(&self, draw: Draw) {
        if let Ok(mut log) = self.log.lock() {
            log.push(draw);
        }
    }
}

thread_local! {
    static POLICY: RefCell<Option<Arc<Policy>>> = const { RefCell::new(None) };
}

/// Runs `f` with `policy` governing every stream created inside it.
pub fn with_policy<R>(policy: Arc<Policy>, f: impl FnOnce() -> R) -> R {
    /// Restores the previous policy even if `f` unwinds.
    struct Restore(Option<Arc<Policy>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            POLICY.with(|p| *p.borrow_mut() = old);
        }
    }
    let _restore = Restore(POLICY.with(|p| p.borrow_mut().replace(policy)));
    f()
}

/// The policy a new stream falls under, if any.
pub(super) fn current() -> Option<Arc<Policy>> {
    POLICY.with(|p| p.borrow().clone())
}

/// A stream's link to the policy of its run.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    pub policy: Arc<Policy>,
    pub stream: Arc<str>,
    /// Draws so far, by label.
    pub counts: HashMap<Label, u32>,
}

impl Tracked {
    pub fn new(policy: Arc<Policy>, stream: &str) -> Tracked {
        Tracked { policy, stream: stream.into(), counts: HashMap::new() }
    }

    /// Notes one draw of `label` and gives the value it takes.
    pub fn draw(&mut self, label: Label, value: Drawn) -> Drawn {
        let count = self.counts.entry(label.clone()).or_default();
        *count += 1;
        let key = DrawKey { stream: self.stream.clone(), label, index: *count };
        let value = self.policy.decide(&key, value);
        self.policy.note(Draw { key, value: value.clone() });
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Stream, What};
    use crate::time::SimDuration;

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }

    /// A stream that draws for pods a, b, a (a shared kubelet loop).
    fn three(stream: &mut Stream, values: [u64; 3]) -> Vec<SimDuration> {
        let draw = |s: &mut Stream, pod: &str, v: u64| {
            s.timing(ms(v), ms(50), || "uniform(0s, 100ms)".into(), || Label::new(What::PodSync, pod))
        };
        vec![draw(stream, "pod/a", values[0]), draw(stream, "pod/b", values[1]), draw(stream, "pod/a", values[2])]
    }

    #[test]
    fn a_draw_is_counted_among_its_labels_draws_not_the_streams() {
        let recorder = Policy::record();
        with_policy(recorder.clone(), || three(&mut Stream::new(1, "kubelet/n/loop"), [10, 20, 30]));
        let keys: Vec<String> = recorder.draws().iter().map(|d| d.key.to_string()).collect();
        assert_eq!(
            keys,
            [
                "kubelet/n/loop:pod_sync(pod/a)#1",
                "kubelet/n/loop:pod_sync(pod/b)#1",
                "kubelet/n/loop:pod_sync(pod/a)#2"
            ]
        );
    }

    /// Pod b's draw comes first in the next run (its timing changed): the
    /// keys still name the same draws, and a kept draw replays its value.
    #[test]
    fn kept_draws_replay_their_values_and_the_others_are_nominal() {
        let recorder = Policy::record();
        with_policy(recorder.clone(), || three(&mut Stream::new(1, "s"), [10, 20, 30]));
        let second_of_a = recorder.draws().into_iter().nth(2).unwrap();
        let policy = Policy::keep(BTreeMap::from([(second_of_a.key.clone(), second_of_a.value.clone())]));
        let got = with_policy(policy, || {
            let mut s = Stream::new(1, "s");
            let draw = |s: &mut Stream, pod: &str| {
                s.timing(ms(99), ms(50), || "uniform(0s, 100ms)".into(), || Label::new(What::PodSync, pod))
            };
            [draw(&mut s, "pod/b"), draw(&mut s, "pod/a"), draw(&mut s, "pod/a")]
        });
        assert_eq!(got, [ms(50), ms(50), ms(30)]);
        // Without a policy, the drawn values pass through untouched.
        assert_eq!(three(&mut Stream::new(1, "s"), [10, 20, 30]), [ms(10), ms(20), ms(30)]);
    }
}
