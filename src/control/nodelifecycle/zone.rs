//! `ComputeZoneState` (pkg/controller/nodelifecycle/node_lifecycle_controller.go):
//! how disrupted a zone is, which sets how fast its nodes are tainted.
//! podsim's nodes carry no zone labels, so they all share one zone.

/// A zone's state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ZoneState {
    Normal,
    /// More than 2 nodes and at least 55 % of the zone not Ready.
    PartialDisruption,
    /// No node Ready.
    FullDisruption,
}

/// `--unhealthy-zone-threshold`.
const UNHEALTHY_ZONE_THRESHOLD: f64 = 0.55;
/// `--large-cluster-size-threshold`: above it a partly disrupted zone is
/// still tainted, at the secondary rate.
pub const LARGE_CLUSTER_SIZE_THRESHOLD: usize = 50;

/// `ComputeZoneState` of a zone with `ready` nodes Ready and `not_ready` not.
pub fn compute_zone_state(ready: usize, not_ready: usize) -> ZoneState {
    if ready == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2 && not_ready as f64 / (ready + not_ready) as f64 >= UNHEALTHY_ZONE_THRESHOLD {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_states_follow_the_controller_thresholds() {
        // One node of one lost: nothing Ready left.
        assert_eq!(compute_zone_state(0, 1), ZoneState::FullDisruption);
        // Two of three lost: 67 % but only 2 nodes, not "more than 2".
        assert_eq!(compute_zone_state(1, 2), ZoneState::Normal);
        assert_eq!(compute_zone_state(2, 3), ZoneState::PartialDisruption);
        // 3 of 6 is 50 %, under 55 %.
        assert_eq!(compute_zone_state(3, 3), ZoneState::Normal);
        assert_eq!(compute_zone_state(3, 0), ZoneState::Normal);
    }
}
