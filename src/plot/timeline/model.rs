//! What the timeline shows, independent of drawing: groups of lanes, each
//! lane a row of bars (spans of a state) and instants (ticks, dots), and the
//! annotated milestones.

use crate::plot::palette::Look;

/// Everything drawn, in seconds since the start of the run.
pub struct Timeline {
    pub title: String,
    pub until: f64,
    pub groups: Vec<Group>,
    pub marks: Vec<Mark>,
}

/// A titled block of lanes: one pod, one Service's endpoints, the nodes, the clients.
pub struct Group {
    pub title: String,
    /// The API object the lanes show, for views that can show it whole.
    pub object: Option<ObjectKey>,
    pub lanes: Vec<Lane>,
}

/// The object behind a group of lanes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKey {
    /// A pod, by UID.
    Pod(std::sync::Arc<str>),
    /// A Service, whose EndpointSlices the lanes show.
    Service(crate::ids::ServiceId),
}

#[derive(Default)]
pub struct Lane {
    pub label: String,
    pub bars: Vec<Bar>,
    pub instants: Vec<(f64, Look)>,
}

impl Lane {
    pub fn new(label: impl Into<String>) -> Lane {
        Lane { label: label.into(), ..Lane::default() }
    }
}

/// A state held from `from` to `to`, with a word to print on it.
pub struct Bar {
    pub from: f64,
    pub to: f64,
    pub look: Look,
    pub text: String,
}

/// A milestone or a scenario action, annotated with a vertical line.
pub struct Mark {
    pub at: f64,
    pub label: String,
    pub action: bool,
}

/// A lane's state over time, built one observation at a time.
#[derive(Default)]
pub struct Spans {
    open: Option<(f64, Look, String)>,
    pub bars: Vec<Bar>,
}

impl Spans {
    /// The state from `t` on (`None`: nothing to show).
    pub fn set(&mut self, t: f64, state: Option<(Look, String)>) {
        if self.open.as_ref().map(|(_, l, s)| (*l, s)) == state.as_ref().map(|(l, s)| (*l, s)) {
            return;
        }
        self.close(t);
        self.open = state.map(|(look, text)| (t, look, text));
    }

    /// Ends the open span at `t`.
    pub fn close(&mut self, t: f64) {
        if let Some((from, look, text)) = self.open.take()
            && t > from
        {
            self.bars.push(Bar { from, to: t, look, text });
        }
    }
}

/// Seconds, from the trace's milliseconds.
pub fn secs(t: crate::time::SimTime) -> f64 {
    t.as_millis() as f64 / 1000.0
}
