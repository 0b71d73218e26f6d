//! `maxSurge` and `maxUnavailable` resolved against the replica count
//! (deployment/util/deployment_util.go).

use crate::spec::{IntOrPercent, Strategy};

/// intstr.GetScaledValueFromIntOrPercent: a count as is; a percent of `total`, rounded up or down.
pub fn scaled_value(value: IntOrPercent, total: u32, round_up: bool) -> u32 {
    match value {
        IntOrPercent::Int(n) => n,
        IntOrPercent::Percent(p) => {
            // ceil/floor(p * total / 100), exact in integers.
            let product = p as u64 * total as u64;
            let v = if round_up { product.div_ceil(100) } else { product / 100 };
            v.min(u32::MAX as u64) as u32
        }
    }
}

/// deploymentutil.ResolveFenceposts: (surge rounded up, unavailable rounded down); both 0 → unavailable 1.
pub fn resolve_fenceposts(max_surge: IntOrPercent, max_unavailable: IntOrPercent, desired: u32) -> (u32, u32) {
    let surge = scaled_value(max_surge, desired, true);
    let unavailable = scaled_value(max_unavailable, desired, false);
    if surge == 0 && unavailable == 0 { (0, 1) } else { (surge, unavailable) }
}

/// deploymentutil.MaxSurge: 0 unless RollingUpdate.
pub fn max_surge(strategy: Strategy, replicas: u32) -> u32 {
    match strategy {
        Strategy::Recreate => 0,
        Strategy::RollingUpdate { max_surge, max_unavailable } => {
            resolve_fenceposts(max_surge, max_unavailable, replicas).0
        }
    }
}

/// deploymentutil.MaxUnavailable: 0 unless RollingUpdate or when replicas is 0; at most replicas.
pub fn max_unavailable(strategy: Strategy, replicas: u32) -> u32 {
    match strategy {
        Strategy::RollingUpdate { max_surge, max_unavailable } if replicas > 0 => {
            resolve_fenceposts(max_surge, max_unavailable, replicas).1.min(replicas)
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntOrPercent::{Int, Percent};

    fn rolling(s: IntOrPercent, u: IntOrPercent) -> Strategy {
        Strategy::RollingUpdate { max_surge: s, max_unavailable: u }
    }

    #[test]
    fn percentages_round_surge_up_and_unavailable_down() {
        // Defaults 25%/25% of 10: surge ceil(2.5) = 3, unavailable floor(2.5) = 2 (§7.1).
        assert_eq!(resolve_fenceposts(Percent(25), Percent(25), 10), (3, 2));
        // Of 1 replica: ceil(0.25) = 1, floor(0.25) = 0 (§7.2).
        assert_eq!(resolve_fenceposts(Percent(25), Percent(25), 1), (1, 0));
        // Exact percentages are not rounded: 50% of 4 = 2 both ways.
        assert_eq!(resolve_fenceposts(Percent(50), Percent(50), 4), (2, 2));
        // maxSurge may exceed 100%: ceil(1.5 * 3) = ceil(4.5) = 5.
        assert_eq!(resolve_fenceposts(Percent(150), Int(0), 3), (5, 0));
        // Counts are taken as they are, even above the replica count.
        assert_eq!(resolve_fenceposts(Int(7), Int(9), 3), (7, 9));
    }

    #[test]
    fn both_zero_forces_one_unavailable() {
        // 0 / 10% of 3: floor(0.3) = 0, so both resolve to 0 → unavailable 1 (§7.3).
        assert_eq!(resolve_fenceposts(Int(0), Percent(10), 3), (0, 1));
        assert_eq!(resolve_fenceposts(Int(0), Int(0), 5), (0, 1));
        // 25% of 0 replicas: both 0 → (0, 1).
        assert_eq!(resolve_fenceposts(Percent(25), Percent(25), 0), (0, 1));
    }

    #[test]
    fn wrappers() {
        // MaxSurge is the resolved surge for RollingUpdate, 0 for Recreate, not capped.
        assert_eq!(max_surge(rolling(Percent(25), Percent(25)), 10), 3);
        assert_eq!(max_surge(rolling(Int(5), Int(0)), 3), 5);
        assert_eq!(max_surge(Strategy::Recreate, 10), 0);
        // MaxUnavailable: 0 for Recreate, 0 for 0 replicas, else min(resolved, replicas).
        assert_eq!(max_unavailable(rolling(Percent(25), Percent(25)), 10), 2);
        assert_eq!(max_unavailable(Strategy::Recreate, 10), 0);
        assert_eq!(max_unavailable(rolling(Int(0), Int(0)), 0), 0);
        assert_eq!(max_unavailable(rolling(Int(1), Int(5)), 3), 3);
        // The forced 1 of ResolveFenceposts survives the cap (1 ≤ 3).
        assert_eq!(max_unavailable(rolling(Int(0), Percent(10)), 3), 1);
        // 100% unavailable of 4 → 4.
        assert_eq!(max_unavailable(rolling(Int(0), Percent(100)), 4), 4);
    }
}
