//! A Service object in the API server, and how its cluster IP is chosen.

use super::meta::Meta;
use super::store::{Object, stored_fields};
use crate::cluster::Cidr;
use crate::ids::ServiceId;
use crate::rng::Stream;
use crate::spec::ServiceSpec;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct ApiService {
    pub id: ServiceId,
    pub meta: Meta,
    pub spec: Arc<ServiceSpec>,
    /// `spec.clusterIP`, allocated on create.
    pub cluster_ip: Ipv4Addr,
}

impl Object for ApiService {
    type Id = ServiceId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn watch_record(kind: WatchKind, svc: Arc<Self>) -> Record {
        Record::Service { kind, svc }
    }
}

/// The next free cluster IP (`Allocator.allocateNextService`, ipallocator.go):
/// a random start in the upper band of the range, then a linear scan with
/// wrap-around; the lowest `min(max(16, size/16), 256)` addresses are kept
/// for static IPs (`calculateRangeOffset`) and used only when the rest is full.
pub fn allocate_cluster_ip(range: Cidr, used: &BTreeSet<Ipv4Addr>, rng: &mut Stream) -> Option<Ipv4Addr> {
    let (first, last) = range.usable();
    let size = (last - first + 1) as u64;
    let offset = if size <= 16 { 0 } else { (size / 16).clamp(16, 256) };
    let scan = |lo: u64, len: u64, start: u64| {
        (0..len).map(|i| Ipv4Addr::from(first + (lo + (start + i) % len) as u32)).find(|ip| !used.contains(ip))
    };
    let upper = size - offset;
    scan(offset, upper, rng.below(upper)).or_else(|| scan(0, offset, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_ips_come_from_the_upper_band() {
        let range = Cidr::parse("10.96.0.0/16").unwrap();
        let mut rng = Stream::new(1, "t");
        for _ in 0..100 {
            let ip = allocate_cluster_ip(range, &BTreeSet::new(), &mut rng).unwrap();
            assert!(ip >= Ipv4Addr::new(10, 96, 1, 1) && ip <= Ipv4Addr::new(10, 96, 255, 254), "{ip}");
        }
    }

    #[test]
    fn a_full_upper_band_falls_back_to_the_static_band() {
        // /27: 30 usable addresses, offset 16: upper band .17–.30.
        let range = Cidr::parse("10.0.0.0/27").unwrap();
        let used: BTreeSet<Ipv4Addr> = (17..=30).map(|i| Ipv4Addr::new(10, 0, 0, i)).collect();
        let ip = allocate_cluster_ip(range, &used, &mut Stream::new(1, "t")).unwrap();
        assert_eq!(ip, Ipv4Addr::new(10, 0, 0, 1));
        let all: BTreeSet<Ipv4Addr> = (1..=30).map(|i| Ipv4Addr::new(10, 0, 0, i)).collect();
        assert_eq!(allocate_cluster_ip(range, &all, &mut Stream::new(1, "t")), None);
    }
}
