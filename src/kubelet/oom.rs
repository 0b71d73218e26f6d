//! The kernel's OOM killer in a container's memory cgroup. Not the
//! kubelet's doing: the kubelet sets the cgroup's `memory.max` from the
//! memory limit when it creates the container, and learns of the kill by
//! its next relist, as of any exit; containerd's `TaskOOM` event makes the
//! reason `OOMKilled`. No event is recorded for it.
//!
//! Not modelled: a limit too small for the runtime's own init (runc's
//! `container init was OOM-killed (memory limit too low?)`, a StartError
//! 128), node memory (a container without a limit is never OOM-killed here),
//! and cgroup v1 or `singleProcessOOMKill: true`, where the kernel kills one
//! process and the container may live on.

use super::runtime::{InstId, SIGKILL_EXIT};
use super::{Kubelet, Out};
use crate::api::quantity::Quantity;
use crate::app::MemoryUse;
use crate::engine::{Ctx, Outbox};
use crate::time::SimDuration;
use crate::trace::record::ProcessFact;

/// When the kernel OOM-kills the container, and the resident set that did it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OomKill {
    /// Since process start: the start of the first stretch above the limit.
    pub at: SimDuration,
    pub rss: Quantity,
}

/// The first stretch of `memory` whose resident set is above `limit`, in
/// bytes as the cgroup has them (`calculateLinuxResources`: `memory.max` is
/// the limit's `Value()`, rounded up). Usage may reach `memory.max` but not
/// pass it: the charge that would is the OOM kill.
pub fn oom_at(memory: &MemoryUse, limit: Quantity) -> Option<OomKill> {
    let max = limit.value();
    let (at, rss) = memory.stretches().iter().find(|(_, rss)| rss.value() > max)?;
    Some(OomKill { at: *at, rss: *rss })
}

impl Kubelet {
    /// The OOM kill is due: a process still running is killed with its
    /// whole cgroup (`memory.oom.group`, set on cgroup v2 unless
    /// `singleProcessOOMKill`), so its PID 1 dies of SIGKILL, whatever it
    /// was doing — an OOM during a graceful stop ends it too.
    pub(super) fn oom_kill(
        &mut self,
        inst: InstId,
        rss: Quantity,
        limit: Quantity,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        if !self.runtime.inst(inst).is_running() {
            return;
        }
        self.process_fact(inst, ProcessFact::OomKilled { rss, limit }, ctx);
        if self.runtime.oom_kill(inst, ctx.q.now(), rss, limit) {
            self.process_ended(inst, SIGKILL_EXIT, ctx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::MemoryPhase;
    use crate::rng::{Label, Stream, What};

    fn memory(json: &str) -> MemoryUse {
        let phases: Vec<MemoryPhase> = serde_json::from_str(json).unwrap();
        MemoryUse::draw(&phases, &mut Stream::new(1, "t"), &|| Label::new(What::MemoryChange, "t"))
    }

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    const LEAK: &str = r#"[{"until": "20s", "rss": "100Mi"}, {"until": "40s", "rss": "200Mi"}, {"rss": "300Mi"}]"#;

    #[test]
    fn the_kill_comes_at_the_start_of_the_first_stretch_above_the_limit() {
        let m = memory(LEAK);
        // 300Mi > 256Mi from 40 s; 200Mi and 100Mi fit.
        assert_eq!(oom_at(&m, q("256Mi")), Some(OomKill { at: SimDuration::from_secs(40), rss: q("300Mi") }));
        assert_eq!(oom_at(&m, q("150Mi")), Some(OomKill { at: SimDuration::from_secs(20), rss: q("200Mi") }));
        // Above the limit from the start: killed as it starts.
        assert_eq!(oom_at(&m, q("64Mi")), Some(OomKill { at: SimDuration::ZERO, rss: q("100Mi") }));
        assert_eq!(oom_at(&m, q("1Gi")), None);
    }

    #[test]
    fn reaching_the_limit_is_not_passing_it() {
        let m = memory(LEAK);
        assert_eq!(oom_at(&m, q("300Mi")), None);
        // Compared in bytes: 300Mi is 314572800, above 314M.
        assert_eq!(oom_at(&m, q("314M")).map(|k| k.at), Some(SimDuration::from_secs(40)));
        assert_eq!(oom_at(&m, q("314572800")), None);
    }

    #[test]
    fn a_limit_is_its_value_in_whole_bytes() {
        // 128m bytes rounds up to 1 byte: everything is above it.
        assert_eq!(oom_at(&memory(LEAK), q("128m")).map(|k| k.at), Some(SimDuration::ZERO));
    }

    #[test]
    fn no_schedule_no_kill() {
        assert_eq!(oom_at(&MemoryUse::default(), q("1Mi")), None);
    }

    #[test]
    fn a_memory_that_falls_again_is_still_killed_at_its_peak() {
        let m = memory(r#"[{"until": "5s", "rss": "10Mi"}, {"until": "6s", "rss": "2Gi"}, {"rss": "10Mi"}]"#);
        assert_eq!(oom_at(&m, q("1Gi")), Some(OomKill { at: SimDuration::from_secs(5), rss: q("2Gi") }));
    }
}
