//! Readiness gates and sidecar readiness (seeds/004), checked against
//! GeneratePodReadyCondition and NeedToReconcilePodReadiness.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::ConditionType;

const GATE: &str = "example.com/network-ready";

/// Until the gate's condition exists, Ready is False with reason
/// ReadinessGatesNotReady while ContainersReady is True (the only way the two
/// differ on a running pod). The condition set at 30 s reaches the kubelet
/// as a RECONCILE; Ready no longer matches the gates, so the pod is synced:
/// the PLEG cache is already newer than the last sync, so Ready turns True
/// within a watch delivery, a sync and a PATCH (< 100 ms).
#[test]
fn an_unmet_gate_keeps_ready_false_while_containers_are_ready() {
    for seed in SEEDS {
        let trace = run("readiness-gate", seed, None);
        let cr = first_condition(&trace, &ConditionType::ContainersReady, true).unwrap();
        assert!(cr < t(30.0), "seed {seed}");
        let ready = condition_at(&trace, cr, &ConditionType::Ready).unwrap();
        assert!(!ready.status);
        assert_eq!(ready.reason.as_deref(), Some("ReadinessGatesNotReady"));
        assert_eq!(
            ready.message.as_deref(),
            Some(format!("corresponding condition of pod readiness gate {GATE:?} does not exist.").as_str())
        );
        let became = ready_transitions(&trace, true);
        assert_eq!(became.len(), 1, "seed {seed}");
        within("Ready after the gate", became[0], t(30.0), t(30.1));
        // kubectl counts container readiness: READY 1/1 already while Ready is False.
        assert!(kubectl_lines(&trace).iter().any(|(at, r, _)| *r == (1, 1) && *at < t(30.0)), "seed {seed}");
    }
}

/// The same gate set by a modelled controller 2–8 s after it sees
/// ContainersReady (plus its watch delivery and PATCH: ≤ 45 ms).
#[test]
fn a_gate_controller_follows_containers_ready() {
    for seed in SEEDS {
        let trace = run("readiness-gate-controller", seed, None);
        let cr = first_condition(&trace, &ConditionType::ContainersReady, true).unwrap();
        let gate = first_condition(&trace, &ConditionType::Other(GATE.into()), true).unwrap();
        within("gate", gate, cr + secs(2.0), cr + secs(8.05));
        let ready = ready_transitions(&trace, true);
        within("Ready", ready[0], gate, gate + secs(0.1));
    }
}

/// A native sidecar's readiness counts in ContainersReady: envoy's /ready
/// fails from 60 s to 90 s of its life; with period 5 and failureThreshold
/// 2, the pod leaves Ready 5–10 s after the failures begin (plus a PATCH)
/// and comes back within one period after they end, while web stays ready.
#[test]
fn a_failing_sidecar_takes_the_pod_out_of_ready() {
    for seed in SEEDS {
        let trace = run("sidecar-readiness", seed, None);
        let envoy = lives(&trace, "envoy")[0].started;
        let unready: Vec<_> =
            ready_transitions(&trace, false).into_iter().filter(|u| *u > envoy + secs(60.0)).collect();
        within("unready", unready[0], envoy + secs(65.0), envoy + secs(70.1));
        let c = condition_at(&trace, unready[0], &ConditionType::ContainersReady).unwrap();
        assert_eq!(c.message.as_deref(), Some("containers with unready status: [envoy]"), "seed {seed}");
        assert!(pod_at(&trace, unready[0]).status.container("web").unwrap().ready, "seed {seed}");
        let back: Vec<_> = ready_transitions(&trace, true).into_iter().filter(|r| *r > unready[0]).collect();
        within("ready again", back[0], envoy + secs(90.0), envoy + secs(95.1));
    }
}
