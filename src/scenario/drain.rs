//! `kubectl drain NODE` and the Eviction API as scenario actions: their
//! options, written as a scenario entry or a flag.
//!
//! ```yaml
//! actions:
//!   - {at: 30s, evict: pod/web-*, gracePeriodSeconds: 10}   # POST pods/NAME/eviction
//!   - {at: 30s, drain: node/node-1, gracePeriodSeconds: 10, timeout: 2m, force: true}
//! ```

use crate::time::{SimDuration, SimTime};

/// `kubectl drain`'s options podsim runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrainOptions {
    pub node: String,
    /// `--grace-period` (default −1: the pod's own).
    pub grace_period_seconds: Option<i64>,
    /// `--timeout` (default 0: wait forever).
    pub timeout: Option<SimDuration>,
    /// `--ignore-daemonsets` (podsim has no DaemonSets: it changes nothing).
    pub ignore_daemonsets: bool,
    /// `--force`: pods without a controller are deleted too.
    pub force: bool,
    /// `--delete-emptydir-data`: pods with emptyDir volumes are deleted too.
    pub delete_emptydir_data: bool,
}

impl DrainOptions {
    pub fn new(node: String) -> Self {
        DrainOptions {
            node,
            grace_period_seconds: None,
            timeout: None,
            ignore_daemonsets: false,
            force: false,
            delete_emptydir_data: false,
        }
    }

    /// The command as a user types it, its flags in kubectl's `--help` order.
    pub fn command(&self) -> String {
        let mut words = vec![format!("kubectl drain {}", self.node)];
        if let Some(g) = self.grace_period_seconds {
            words.push(format!("--grace-period={g}"));
        }
        if let Some(t) = self.timeout {
            words.push(format!("--timeout={t}"));
        }
        let flags = [
            (self.ignore_daemonsets, "--ignore-daemonsets"),
            (self.force, "--force"),
            (self.delete_emptydir_data, "--delete-emptydir-data"),
        ];
        words.extend(flags.iter().filter(|(on, _)| *on).map(|(_, f)| f.to_string()));
        words.join(" ")
    }
}

fn flag(v: &str, key: &str) -> Result<bool, String> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{v:?}: {key} is true or false")),
    }
}

/// `--drain node/NAME@TIME[,grace-period=N][,timeout=D][,ignore-daemonsets=true]
/// [,force=true][,delete-emptydir-data=true]`.
pub fn parse_drain_flag(s: &str) -> Result<(SimTime, DrainOptions), String> {
    let (subject, at, options) = super::actions::flag_parts(s)?;
    let mut d = DrainOptions::new(super::actions::node_name(subject)?);
    for (k, v) in options {
        match k {
            "grace-period" => {
                d.grace_period_seconds =
                    Some(v.parse::<i64>().map_err(|_| format!("{v:?}: grace-period is whole seconds"))?)
            }
            "timeout" => d.timeout = Some(crate::time::parse_duration(v)?),
            "ignore-daemonsets" => d.ignore_daemonsets = flag(v, k)?,
            "force" => d.force = flag(v, k)?,
            "delete-emptydir-data" => d.delete_emptydir_data = flag(v, k)?,
            _ => {
                return Err(super::actions::unknown_option(
                    k,
                    "grace-period, timeout, ignore-daemonsets, force, delete-emptydir-data",
                ));
            }
        }
    }
    Ok((at, d))
}

/// `--evict pod/NAME@TIME[,grace-period=N]` (`pod/PREFIX*`: the oldest live pod so named).
pub fn parse_evict_flag(s: &str) -> Result<(SimTime, String, Option<i64>), String> {
    let (subject, at, options) = super::actions::flag_parts(s)?;
    let mut grace = None;
    for (k, v) in options {
        match k {
            "grace-period" => {
                grace = Some(v.parse::<i64>().map_err(|_| format!("{v:?}: grace-period is whole seconds"))?)
            }
            _ => return Err(super::actions::unknown_option(k, "grace-period")),
        }
    }
    Ok((at, super::actions::pod_name(subject)?, grace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drain_flags_and_the_command_they_stand_for() {
        let (at, d) = parse_drain_flag("node/node-1@30s,grace-period=5,timeout=2m,force=true").unwrap();
        assert_eq!(at, SimTime::ZERO + SimDuration::from_secs(30));
        assert_eq!(d.command(), "kubectl drain node-1 --grace-period=5 --timeout=2m0s --force");
        assert!(parse_drain_flag("node/node-1@30s,force=yes").unwrap_err().contains("true or false"));
        assert!(parse_drain_flag("node/node-1@30s,selector=a").unwrap_err().contains("unknown option"));
        let (_, pod, grace) = parse_evict_flag("pod/web-*@40s,grace-period=3").unwrap();
        assert_eq!((pod.as_str(), grace), ("web-*", Some(3)));
    }
}
