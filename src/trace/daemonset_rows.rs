//! Timeline rows for DaemonSets: created (with its update strategy), a new
//! template applied, and the columns of `kubectl get ds` when they change.

use crate::api::daemonset::{ApiDaemonSet, DaemonSetStatus};
use crate::spec::IntOrPercent;
use crate::spec::daemonset::DaemonStrategy;

/// The rows of a DaemonSet written, against how it was last seen (`None`:
/// new); each is (what, why), a `kubectl get ds` one saying so in its why.
pub fn daemon_set_rows(old: Option<&ApiDaemonSet>, d: &ApiDaemonSet, push: &mut dyn FnMut(String, String)) {
    let Some(old) = old else {
        push("created".into(), strategy(d.spec.strategy));
        push(kubectl_columns(&d.status), "kubectl get ds".into());
        return;
    };
    if let Some((what, why)) = super::workload_rows::deleting(&old.meta, &d.meta) {
        push(what, why);
    }
    if d.template_generation != old.template_generation {
        push(format!("template generation {}", d.template_generation), strategy(d.spec.strategy));
    }
    let (before, now) = (kubectl_columns(&old.status), kubectl_columns(&d.status));
    if before != now {
        push(now, "kubectl get ds".into());
    }
}

fn strategy(s: DaemonStrategy) -> String {
    let shown = |v: IntOrPercent| match v {
        IntOrPercent::Int(n) => n.to_string(),
        IntOrPercent::Percent(p) => format!("{p}%"),
    };
    match s {
        DaemonStrategy::OnDelete => "updateStrategy OnDelete".into(),
        DaemonStrategy::RollingUpdate { max_unavailable, max_surge } => format!(
            "updateStrategy RollingUpdate, maxUnavailable {}, maxSurge {}",
            shown(max_unavailable),
            shown(max_surge)
        ),
    }
}

/// The columns of `kubectl get ds` that change with the status
/// (`printDaemonSet`), with the misscheduled count it leaves out.
fn kubectl_columns(s: &DaemonSetStatus) -> String {
    format!(
        "DESIRED {}, CURRENT {}, READY {}, UP-TO-DATE {}, AVAILABLE {}, misscheduled {}",
        s.desired_number_scheduled,
        s.current_number_scheduled,
        s.number_ready,
        s.updated_number_scheduled,
        s.number_available,
        s.number_misscheduled
    )
}
