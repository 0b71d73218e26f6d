//! The probe results cache (`pkg/kubelet/prober/results`): one value per
//! container instance, with an update only when the value changes.

use crate::kubelet::runtime::InstId;
use foldhash::HashMap;

/// `results.Result`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProbeResult {
    Unknown,
    Success,
    Failure,
}

impl ProbeResult {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeResult::Unknown => "unknown",
            ProbeResult::Success => "success",
            ProbeResult::Failure => "failure",
        }
    }
}

/// One results manager (the kubelet has one per probe kind).
#[derive(Clone, Debug, Default)]
pub struct Results {
    values: HashMap<InstId, ProbeResult>,
}

impl Results {
    pub fn get(&self, id: InstId) -> Option<ProbeResult> {
        self.values.get(&id).copied()
    }

    /// `Set`: returns true when the value changed (an update is sent).
    pub fn set(&mut self, id: InstId, result: ProbeResult) -> bool {
        self.values.insert(id, result) != Some(result)
    }

    pub fn remove(&mut self, id: InstId) {
        self.values.remove(&id);
    }
}
