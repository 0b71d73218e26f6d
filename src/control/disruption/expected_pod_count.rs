//! `getExpectedPodCount` (pkg/controller/disruption/disruption.go): how many
//! pods the budget expects and how many of them must be healthy.

use crate::control::deployment::fenceposts::scaled_value;
use crate::spec::{Budget, IntOrPercent};

/// The pods a budget selects, as `getExpectedScale` needs them: the total
/// scale of their controllers (`None` when a pod's controller is not found,
/// `found no controllers for pod`), and how many pods match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selected {
    pub pods: i32,
    pub scale: Result<i32, String>,
}

/// `(expectedCount, desiredHealthy)`, or the sync error.
/// - `maxUnavailable` (count or percent): expected = the controllers'
///   scale; desired = expected − maxUnavailable scaled rounding up, at least 0;
/// - `minAvailable` count: expected = the pods selected; desired = the count;
/// - `minAvailable` percent: expected = the controllers' scale; desired =
///   the percent of it rounding up (`GetScaledValueFromIntOrPercent(…, true)`);
/// - neither: both 0.
pub fn get_expected_pod_count(budget: Option<Budget>, selected: &Selected) -> Result<(i32, i32), String> {
    match budget {
        Some(Budget::MaxUnavailable(v)) => {
            let expected = selected.scale.clone()?;
            let max_unavailable = scaled_value(v, expected.max(0) as u32, true) as i32;
            Ok((expected, (expected - max_unavailable).max(0)))
        }
        Some(Budget::MinAvailable(IntOrPercent::Int(n))) => Ok((selected.pods, n as i32)),
        Some(Budget::MinAvailable(v @ IntOrPercent::Percent(_))) => {
            let expected = selected.scale.clone()?;
            Ok((expected, scaled_value(v, expected.max(0) as u32, true) as i32))
        }
        None => Ok((0, 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selected(pods: i32, scale: i32) -> Selected {
        Selected { pods, scale: Ok(scale) }
    }

    /// minAvailable 2 of a 3-replica Deployment: 3 expected (the pods), 2 desired,
    /// whatever the Deployment's scale says.
    #[test]
    fn an_integer_min_available_counts_the_pods() {
        let b = Some(Budget::MinAvailable(IntOrPercent::Int(2)));
        assert_eq!(get_expected_pod_count(b, &selected(3, 5)), Ok((3, 2)));
        // A missing controller does not matter to an integer minAvailable.
        assert_eq!(get_expected_pod_count(b, &Selected { pods: 4, scale: Err("x".into()) }), Ok((4, 2)));
    }

    /// Percentages round up: 50 % of 3 is 2 (1.5 ↑), 10 % of 3 is 1 (0.3 ↑).
    #[test]
    fn percentages_round_up() {
        let min = |p| Some(Budget::MinAvailable(IntOrPercent::Percent(p)));
        assert_eq!(get_expected_pod_count(min(50), &selected(3, 3)), Ok((3, 2)));
        assert_eq!(get_expected_pod_count(min(10), &selected(2, 3)), Ok((3, 1)));
        assert_eq!(get_expected_pod_count(min(100), &selected(3, 3)), Ok((3, 3)));
        let max = |p| Some(Budget::MaxUnavailable(IntOrPercent::Percent(p)));
        // maxUnavailable 10 % of 3 is 1 (rounded up): 2 desired.
        assert_eq!(get_expected_pod_count(max(10), &selected(3, 3)), Ok((3, 2)));
        assert_eq!(get_expected_pod_count(max(50), &selected(3, 3)), Ok((3, 1)));
    }

    /// maxUnavailable larger than the scale: desired clamps at 0.
    #[test]
    fn max_unavailable_clamps_desired_at_zero() {
        let b = Some(Budget::MaxUnavailable(IntOrPercent::Int(5)));
        assert_eq!(get_expected_pod_count(b, &selected(3, 3)), Ok((3, 0)));
        let err = Selected { pods: 1, scale: Err("found no controllers for pod \"bare\"".into()) };
        assert!(get_expected_pod_count(b, &err).is_err());
        assert_eq!(get_expected_pod_count(None, &selected(3, 3)), Ok((0, 0)));
    }
}
