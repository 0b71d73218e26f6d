//! The network side of a profile: the Service IP range, kube-proxy's
//! configuration and the EndpointSlice controller's flags.

use crate::dist::Dist;
use crate::time::SimDuration;
use serde::Deserialize;
use std::net::Ipv4Addr;

/// kube-proxy's configuration (iptables mode, the default in 1.34–1.37).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct KubeProxyConfig {
    /// `minSyncPeriod`: the next sync starts no sooner than this after the
    /// previous one finished (`BoundedFrequencyRunner`, 1.34+).
    pub min_sync_period: Dist,
    /// The fixed cost of one sync (compute the rules, fork `iptables-restore`).
    pub sync_time: Dist,
    /// What each endpoint of the cluster adds to a partial sync.
    pub sync_time_per_endpoint: PerEndpoint,
    /// What each endpoint adds to a full sync (hourly; podsim's kube-proxy
    /// has been running before t=0, so its first sync is a partial one).
    pub full_sync_time_per_endpoint: PerEndpoint,
}

impl Default for KubeProxyConfig {
    fn default() -> Self {
        KubeProxyConfig {
            min_sync_period: Dist::Fixed(SimDuration::from_secs(1)),
            sync_time: Dist::Uniform(SimDuration::from_millis(20), SimDuration::from_millis(50)),
            sync_time_per_endpoint: PerEndpoint { nanos: 20_000 },
            full_sync_time_per_endpoint: PerEndpoint { nanos: 80_000 },
        }
    }
}

/// A cost per endpoint, written with a unit: `20us`, `0.5ms`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PerEndpoint {
    pub nanos: u64,
}

impl PerEndpoint {
    /// The cost of `n` endpoints, to the millisecond.
    pub fn times(self, n: usize) -> SimDuration {
        SimDuration::from_millis((self.nanos as u128 * n as u128).div_ceil(1_000_000) as u64)
    }
}

impl<'de> Deserialize<'de> for PerEndpoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        parse_per_endpoint(&text).map_err(serde::de::Error::custom)
    }
}

fn parse_per_endpoint(text: &str) -> Result<PerEndpoint, String> {
    let s = text.trim();
    let (number, factor) = [("µs", 1_000.0), ("us", 1_000.0), ("ms", 1_000_000.0), ("ns", 1.0)]
        .iter()
        .find_map(|(unit, f)| s.strip_suffix(unit).map(|n| (n, *f)))
        .ok_or_else(|| format!("{s:?}: a time per endpoint needs a unit: ns, us or ms"))?;
    let value: f64 = number.trim().parse().map_err(|_| format!("{s:?}: bad number"))?;
    if !(0.0..=1e9).contains(&value) {
        return Err(format!("{s:?}: must be between 0 and 1s"));
    }
    Ok(PerEndpoint { nanos: (value * factor).round() as u64 })
}

/// The EndpointSlice controller's kube-controller-manager flags.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct EndpointSliceConfig {
    /// `--endpointslice-updates-batch-period` (default 0: no batching).
    pub endpoint_updates_batch_period: Dist,
    /// `--max-endpoints-per-slice` (1–1000, default 100).
    pub max_endpoints_per_slice: usize,
    /// `--concurrent-service-endpoint-syncs` (1–50, default 5).
    pub concurrent_service_endpoint_syncs: usize,
}

impl Default for EndpointSliceConfig {
    fn default() -> Self {
        EndpointSliceConfig {
            endpoint_updates_batch_period: Dist::Fixed(SimDuration::ZERO),
            max_endpoints_per_slice: 100,
            concurrent_service_endpoint_syncs: 5,
        }
    }
}

/// An IPv4 CIDR such as the Service range `10.96.0.0/12`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cidr {
    pub network: Ipv4Addr,
    pub prefix: u8,
}

impl Cidr {
    /// kubeadm's and minikube's `--service-cluster-ip-range`.
    pub const SERVICES: Cidr = Cidr { network: Ipv4Addr::new(10, 96, 0, 0), prefix: 12 };

    pub fn parse(text: &str) -> Result<Cidr, String> {
        let bad = || format!("{text:?}: must be an IPv4 CIDR such as 10.96.0.0/12");
        let (ip, prefix) = text.trim().split_once('/').ok_or_else(bad)?;
        let ip: Ipv4Addr = ip.parse().map_err(|_| bad())?;
        let prefix: u8 = prefix.parse().map_err(|_| bad())?;
        if !(8..=30).contains(&prefix) {
            return Err(format!("{text:?}: the prefix must be between /8 and /30"));
        }
        let mask = u32::MAX << (32 - prefix);
        if u32::from(ip) & !mask != 0 {
            return Err(format!(
                "{text:?}: host bits are set (the network is {}/{prefix})",
                Ipv4Addr::from(u32::from(ip) & mask)
            ));
        }
        Ok(Cidr { network: ip, prefix })
    }

    pub fn contains(self, ip: Ipv4Addr) -> bool {
        let mask = u32::MAX << (32 - self.prefix);
        u32::from(ip) & mask == u32::from(self.network)
    }

    /// The usable addresses: network + 1 to broadcast − 1.
    pub fn usable(self) -> (u32, u32) {
        let first = u32::from(self.network) + 1;
        let last = u32::from(self.network) + (1u32 << (32 - self.prefix)) - 2;
        (first, last)
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_endpoint_costs_round_up_to_the_millisecond() {
        let p = parse_per_endpoint("20us").unwrap();
        assert_eq!(p.times(0), SimDuration::ZERO);
        assert_eq!(p.times(1), SimDuration::from_millis(1));
        assert_eq!(p.times(1000), SimDuration::from_millis(20));
        assert!(parse_per_endpoint("20").is_err());
    }

    #[test]
    fn service_ranges() {
        let c = Cidr::parse("10.96.0.0/12").unwrap();
        assert_eq!(c, Cidr::SERVICES);
        assert_eq!(c.usable(), (u32::from(Ipv4Addr::new(10, 96, 0, 1)), u32::from(Ipv4Addr::new(10, 111, 255, 254))));
        assert!(c.contains(Ipv4Addr::new(10, 100, 3, 4)));
        assert!(!c.contains(Ipv4Addr::new(10, 112, 0, 1)));
        assert!(Cidr::parse("10.96.0.1/12").unwrap_err().contains("host bits"));
    }
}
