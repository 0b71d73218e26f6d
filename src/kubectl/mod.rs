//! What `kubectl` prints: the `get pods` row (`printPod`) and its human
//! durations, computed from the Pod object exactly as kubectl does, so a
//! simulated pod and a recorded one read the same.

mod duration;
mod get_pods;
pub mod rollout_status;
pub mod rollout_watch;

pub use duration::human_duration;
pub use get_pods::{PodLine, print_pod};
