//! The scheduler's decisions stored: the binding, or the pod's
//! PodScheduled=False condition with the `FailedScheduling` event.

use super::{PodId, World};
use crate::control::scheduler::Decision;
use crate::time::SimTime;

impl World {
    /// A scheduling attempt is due: its decision reaches the API server as
    /// it ends (the profile's scheduling latency holds the write).
    pub(super) fn schedule(&mut self, pod: PodId, now: SimTime) {
        match self.scheduler.schedule(pod) {
            Some(Decision::Bind(node)) => self.bind(pod, node, now),
            Some(Decision::BindAfterProvisioning(node, claims)) => {
                self.bind_after_provisioning(pod, node, &claims, now)
            }
            Some(Decision::Unschedulable(message)) => {
                self.scheduler_event(pod, "FailedScheduling", message.clone(), true, now);
                self.api.unschedulable(pod, message, now, &mut self.trace);
            }
            None => {}
        }
    }
}
