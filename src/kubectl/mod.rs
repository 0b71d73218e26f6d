//! What `kubectl` prints: the `get` rows of each kind (`printPod` and its
//! siblings), laid out by its tabwriter, and its human durations, computed
//! from the objects exactly as kubectl does, so a simulated pod and a
//! recorded one read the same.

pub mod describe;
pub mod describe_daemonset;
pub mod describe_job;
pub mod describe_network;
pub mod describe_statefulset;
pub mod describe_workloads;
mod duration;
mod get_pods;
pub mod printers;
pub mod rollout_statefulset;
pub mod rollout_status;
pub mod rollout_status_daemonset;
pub mod rollout_watch;
pub mod selector;
pub mod tabwriter;

pub use duration::human_duration;
pub use get_pods::{PodLine, print_pod};
