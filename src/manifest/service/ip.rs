//! IP addresses and CIDRs as the API server reads a Service's legacy fields
//! (`clusterIP(s)`, `externalIPs`, `loadBalancerIP`, `loadBalancerSourceRanges`):
//! k8s.io/utils/net `ParseIPSloppy`/`ParseCIDRSloppy` and apimachinery's
//! util/validation/ip.go with `StrictIPCIDRValidation` off (its default in 1.34–1.35).

use crate::manifest::field::FieldError;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `parseIP`'s message for a value `ParseIPSloppy` rejects.
const NOT_AN_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
/// `parseCIDR`'s message for a value `ParseCIDRSloppy` rejects.
const NOT_A_CIDR: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/// `netutils.ParseIPSloppy` (Go 1.16's `net.ParseIP`): IPv4 octets may have leading
/// zeros. An IPv4-mapped IPv6 address comes back as IPv4, as Go's `To4()` sees it
/// (so `IsIPv6String` is false for it and its family is IPv4).
pub fn parse_ip_sloppy(value: &str) -> Option<IpAddr> {
    if let Some(v4) = parse_ipv4_sloppy(value) {
        return Some(IpAddr::V4(v4));
    }
    let v6: Ipv6Addr = value.parse().ok().filter(|_| value.contains(':'))?;
    Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4))
}

/// Go 1.16 `parseIPv4`: four decimal fields, each at most 255, leading zeros allowed.
fn parse_ipv4_sloppy(value: &str) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut fields = value.split('.');
    for octet in &mut octets {
        let field = fields.next().filter(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))?;
        // dtoi gives up at 0xFFFFFF
        let n = field.bytes().try_fold(0u32, |n, b| Some(n * 10 + u32::from(b - b'0')).filter(|n| *n < 0xFF_FFFF))?;
        *octet = u8::try_from(n).ok()?;
    }
    fields.next().is_none().then_some(Ipv4Addr::from(octets))
}

/// `IsValidIPForLegacyField` (strict validation off): the one message for an unparsable IP.
pub fn legacy_ip_error(path: &str, value: &str) -> Option<FieldError> {
    parse_ip_sloppy(value).is_none().then(|| FieldError::invalid(path, format!("{value:?}"), NOT_AN_IP))
}

/// `IsValidCIDRForLegacyField` (strict validation off) through `ParseCIDRSloppy`:
/// a sloppy IP, `/`, and a decimal prefix length no longer than the address.
pub fn legacy_cidr_error(path: &str, value: &str) -> Option<FieldError> {
    let valid = value.split_once('/').is_some_and(|(ip, prefix)| {
        let bits = if parse_ipv4_sloppy(ip).is_some() {
            32
        } else if ip.contains(':') && ip.parse::<Ipv6Addr>().is_ok() {
            128
        } else {
            return false;
        };
        !prefix.is_empty()
            && prefix.bytes().all(|b| b.is_ascii_digit())
            && prefix.parse::<u32>().is_ok_and(|n| n <= bits)
    });
    (!valid).then(|| FieldError::invalid(path, format!("{value:?}"), NOT_A_CIDR))
}

/// `ValidateEndpointIP`, for a value that parses: the special ranges a Service's
/// external IP may not be in.
pub fn endpoint_ip_errors(path: &str, value: &str) -> Vec<FieldError> {
    let Some(ip) = parse_ip_sloppy(value) else { return Vec::new() };
    let (unspecified, loopback, link_local, link_local_multicast) = match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            (v4.is_unspecified(), v4.is_loopback(), v4.is_link_local(), o[0] == 224 && o[1] == 0 && o[2] == 0)
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let link_local_multicast = s[0] >> 8 == 0xff && (s[0] & 0x0f) == 0x02;
            (v6.is_unspecified(), v6.is_loopback(), s[0] & 0xffc0 == 0xfe80, link_local_multicast)
        }
    };
    let unspecified_msg = format!("may not be unspecified ({value})");
    [
        (unspecified, unspecified_msg.as_str()),
        (loopback, "may not be in the loopback range (127.0.0.0/8, ::1/128)"),
        (link_local, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"),
        (link_local_multicast, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"),
    ]
    .into_iter()
    .filter(|(failed, _)| *failed)
    .map(|(_, msg)| FieldError::invalid(path, format!("{value:?}"), msg))
    .collect()
}

/// `GetWarningsForIP`: the warning for a valid IP written in a non-standard form
/// (leading zeros, IPv4-mapped IPv6, non-canonical IPv6), with its field path.
pub fn ip_warning(path: &str, value: &str) -> Option<String> {
    let ip = parse_ip_sloppy(value)?;
    // netip.ParseAddr: no leading zeros; an IPv4-mapped address stays IPv6 (Is4In6)
    let strict: Option<IpAddr> = value.parse().ok();
    match strict {
        None | Some(IpAddr::V6(_)) if matches!(ip, IpAddr::V4(_)) => Some(format!(
            "{path}: non-standard IP address {value:?} will be considered invalid in a future Kubernetes release: use {:?}",
            ip.to_string()
        )),
        Some(IpAddr::V6(v6)) if v6.to_string() != value => Some(format!(
            "{path}: IPv6 address {value:?} should be in RFC 5952 canonical format ({:?})",
            v6.to_string()
        )),
        _ => None,
    }
}

/// `netutils.IsIPv6String`.
pub fn is_ipv6(value: &str) -> bool {
    matches!(parse_ip_sloppy(value), Some(IpAddr::V6(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sloppy_parsing_accepts_leading_zeros_and_maps_ipv4_in_ipv6() {
        assert_eq!(parse_ip_sloppy("010.096.000.005"), Some(IpAddr::V4(Ipv4Addr::new(10, 96, 0, 5))));
        assert_eq!(parse_ip_sloppy("::ffff:10.96.0.5"), Some(IpAddr::V4(Ipv4Addr::new(10, 96, 0, 5))));
        assert!(matches!(parse_ip_sloppy("fd00::1"), Some(IpAddr::V6(_))));
        for bad in ["10.96.0.300", "10.96.0", "10.96.0.1.2", "", "a.b.c.d", "10.96.0.-1", "fe80::1%eth0", "None"] {
            assert_eq!(parse_ip_sloppy(bad), None, "{bad}");
        }
    }

    #[test]
    fn cidrs() {
        for good in ["10.0.0.0/8", "10.0.0.1/32", "010.0.0.0/08", "2001:db8::/64", "10.0.0.5/24"] {
            assert_eq!(legacy_cidr_error("p", good), None, "{good}");
        }
        for bad in ["10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "2001:db8::/129", "x/8", "10.0.0.0/-1"] {
            let want =
                format!("p: Invalid value: {bad:?}: must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
            assert_eq!(legacy_cidr_error("p", bad).map(|e| e.to_string()), Some(want), "{bad}");
        }
    }

    #[test]
    fn special_endpoint_ips() {
        let msgs = |v: &str| -> Vec<String> { endpoint_ip_errors("p", v).iter().map(|e| e.body.clone()).collect() };
        assert_eq!(msgs("0.0.0.0"), [r#"Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)"#]);
        assert_eq!(msgs("::"), [r#"Invalid value: "::": may not be unspecified (::)"#]);
        assert_eq!(
            msgs("127.0.0.2"),
            [r#"Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)"#]
        );
        assert_eq!(
            msgs("fe80::1"),
            [r#"Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)"#]
        );
        assert_eq!(
            msgs("224.0.0.251"),
            [r#"Invalid value: "224.0.0.251": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"#]
        );
        assert!(msgs("192.168.1.10").is_empty());
    }

    #[test]
    fn warnings_for_non_standard_forms() {
        assert_eq!(
            ip_warning("spec.clusterIPs[0]", "010.96.0.5").as_deref(),
            Some(
                r#"spec.clusterIPs[0]: non-standard IP address "010.96.0.5" will be considered invalid in a future Kubernetes release: use "10.96.0.5""#
            )
        );
        assert_eq!(
            ip_warning("spec.externalIPs[0]", "::ffff:1.2.3.4").as_deref(),
            Some(
                r#"spec.externalIPs[0]: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future Kubernetes release: use "1.2.3.4""#
            )
        );
        assert_eq!(
            ip_warning("spec.externalIPs[0]", "2001:DB8:0:0:0:0:0:1").as_deref(),
            Some(
                r#"spec.externalIPs[0]: IPv6 address "2001:DB8:0:0:0:0:0:1" should be in RFC 5952 canonical format ("2001:db8::1")"#
            )
        );
        assert_eq!(ip_warning("p", "10.96.0.5"), None);
        assert_eq!(ip_warning("p", "2001:db8::1"), None);
    }
}
