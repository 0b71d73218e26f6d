//! A StatefulSet's or a DaemonSet's lanes: how many of its pods are Ready
//! and how many run the current template, as its controller writes them in
//! its status (`kubectl get sts|ds` columns over time).

use super::model::{Group, Lane, Spans};
use crate::api::daemonset::ApiDaemonSet;
use crate::api::statefulset::ApiStatefulSet;
use crate::plot::palette::Look;

/// One set's lanes, built from its records.
pub struct SetLanes {
    title: String,
    ready: Spans,
    updated: Spans,
}

impl SetLanes {
    pub fn stateful_set(s: &ApiStatefulSet) -> SetLanes {
        let policy = match s.spec.pod_management {
            crate::spec::statefulset::PodManagement::OrderedReady => "OrderedReady",
            crate::spec::statefulset::PodManagement::Parallel => "Parallel",
        };
        SetLanes::titled(format!("sts/{} ({policy})", s.spec.name))
    }

    pub fn daemon_set(d: &ApiDaemonSet) -> SetLanes {
        SetLanes::titled(format!("ds/{}", d.spec.name))
    }

    fn titled(title: String) -> SetLanes {
        SetLanes { title, ready: Spans::default(), updated: Spans::default() }
    }

    /// The StatefulSet as written at `t`: READY of `spec.replicas`, and
    /// the pods at the update revision.
    pub fn see_stateful_set(&mut self, t: f64, s: &ApiStatefulSet) {
        let (st, want) = (&s.status, s.spec.replicas);
        self.counts(t, st.ready_replicas, st.updated_replicas, want);
    }

    /// The DaemonSet as written at `t`: ready and updated of the desired nodes.
    pub fn see_daemon_set(&mut self, t: f64, d: &ApiDaemonSet) {
        let st = &d.status;
        self.counts(t, st.number_ready, st.updated_number_scheduled, st.desired_number_scheduled);
    }

    fn counts(&mut self, t: f64, ready: u32, updated: u32, want: u32) {
        let look = |n: u32| if n >= want { Look::ConditionTrue } else { Look::ConditionFalse };
        self.ready.set(t, Some((look(ready), format!("{ready}/{want} ready"))));
        self.updated.set(t, Some((look(updated), format!("{updated}/{want} updated"))));
    }

    pub fn finish(mut self, end: f64) -> Group {
        self.ready.close(end);
        self.updated.close(end);
        let lanes = vec![
            Lane { bars: self.ready.bars, ..Lane::new("ready") },
            Lane { bars: self.updated.bars, ..Lane::new("updated") },
        ];
        Group { title: self.title, object: None, lanes }
    }
}
