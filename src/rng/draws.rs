//! Timing draws, tracked for shrinking counterexamples.
//!
//! `podsim verify` shrinks a failing run to the smallest set of timing draws
//! that still breaks a property: every other draw takes its distribution's
//! nominal value (a fixed value, the middle of a uniform range, the mean of a
//! normal or log-normal). A draw is named by its stream and its ordinal among
//! that stream's timing draws. The random word is consumed either way, so
//! pinning one draw never shifts any other.
//!
//! The policy is per thread and set only around one run ([`with_policy`]):
//! a run is simulated on one thread from start to end, and ordinary runs have
//! no policy, so they pay nothing.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};

/// Which draw of which stream.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DrawKey {
    pub stream: Arc<str>,
    /// 1 for the stream's first timing draw.
    pub index: u32,
}

impl fmt::Display for DrawKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.stream, self.index)
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
    random: Option<BTreeSet<DrawKey>>,
    log: Mutex<Vec<Draw>>,
}

impl Policy {
    /// Records every draw and changes none.
    pub fn record() -> Arc<Policy> {
        Arc::new(Policy::default())
    }

    /// Keeps the draws in `random` and pins every other to its nominal value.
    pub fn keep(random: BTreeSet<DrawKey>) -> Arc<Policy> {
        Arc::new(Policy { random: Some(random), log: Mutex::default() })
    }

    /// Every draw made so far, in the order made.
    pub fn draws(&self) -> Vec<Draw> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn pinned(&self, key: &DrawKey) -> bool {
        self.random.as_ref().is_some_and(|r| !r.contains(key))
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
    pub count: u32,
}

impl Tracked {
    /// Notes one draw and says whether to pin it.
    pub fn draw(&mut self, value: Drawn) -> bool {
        self.count += 1;
        let key = DrawKey { stream: self.stream.clone(), index: self.count };
        let pinned = self.policy.pinned(&key);
        self.policy.note(Draw { key, value });
        pinned
    }
}
