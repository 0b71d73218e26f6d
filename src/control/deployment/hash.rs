//! `pod-template-hash` and the new ReplicaSet's name (controller_utils.go
//! `ComputeHash`, apimachinery `rand.SafeEncodeString`, sync.go
//! `generateReplicaSetName`).
//!
//! Kubernetes hashes a go-spew dump of the Go template struct; podsim hashes
//! its own canonical bytes of the template instead, so hashes look like real
//! ones (1–10 characters of `45679bcdf`…) but do not equal a cluster's.

use crate::api::names::ALPHANUMS;

/// `validation.DNS1123SubdomainMaxLength`: the longest ReplicaSet name.
pub const MAX_NAME_LENGTH: usize = 253;

/// FNV-1a, 32 bit (`hash/fnv.New32a`).
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// rand.SafeEncodeString: each character c becomes alphanums[c % 27] (so digits 0→4 … 9→f).
pub fn safe_encode_string(s: &str) -> String {
    s.chars().map(|c| ALPHANUMS[c as usize % ALPHANUMS.len()] as char).collect()
}

/// The label the controller adds to a new ReplicaSet's template and selector.
pub const HASH_LABEL: &str = "pod-template-hash";

/// `EqualIgnoreHash`: two templates are equal once `pod-template-hash` is dropped.
pub fn equal_ignore_hash(a: &crate::spec::PodTemplate, b: &crate::spec::PodTemplate) -> bool {
    // Only the metadata holds the label: compare the pod specs in place, clone the metadata.
    let strip = |t: &crate::spec::PodTemplate| {
        let mut m = t.object.metadata.clone();
        if let Some(labels) = m.as_mut().and_then(|m| m.labels.as_mut()) {
            labels.remove(HASH_LABEL);
        }
        m
    };
    a.object.spec == b.object.spec && strip(a) == strip(b)
}

/// controller.ComputeHash: FNV-1a 32 of the template, then the collision count (uint32 LE in
/// 8 bytes) when set, printed in decimal and SafeEncodeString'd.
pub fn pod_template_hash(template_canonical_bytes: &[u8], collision_count: Option<u32>) -> String {
    let mut bytes = template_canonical_bytes.to_vec();
    if let Some(n) = collision_count {
        bytes.extend_from_slice(&n.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
    }
    safe_encode_string(&fnv1a_32(&bytes).to_string())
}

/// generateReplicaSetName (1.34+, PR #132560): `<deploy>-<hash>`, the Deployment name cut so the
/// whole fits in 253 characters.
pub fn replica_set_name(deploy: &str, hash: &str) -> String {
    let max = MAX_NAME_LENGTH.saturating_sub(hash.len() + 1);
    let mut cut = deploy.len().min(max);
    while !deploy.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{hash}", &deploy[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_vectors() {
        // The FNV-1a 32 offset basis and the published test vectors.
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn digits_map_through_the_alphabet() {
        // alphanums = "bcdfghjklmnpqrstvwxz2456789"; '0' = 48, 48 % 27 = 21 → '4';
        // '5' = 53 → 26 → '9'; '6' = 54 → 0 → 'b'; '9' = 57 → 3 → 'f'.
        assert_eq!(safe_encode_string("0123456789"), "456789bcdf");
    }

    #[test]
    fn template_hash() {
        // fnv1a("") = 2166136261 → 2→6 1→5 6→b 6→b 1→5 3→7 6→b 2→6 6→b 1→5.
        assert_eq!(pod_template_hash(b"", None), "65bb57b6b5");
        // fnv1a("a") = 3826002220 → 7d6b446664.
        assert_eq!(pod_template_hash(b"a", None), "7d6b446664");
        // With a collision count the hash covers 8 more bytes: 1 → 01 00 00 00 00 00 00 00.
        // fnv1a("a" + those) = 3689284045 (reference FNV-1a over the 9 bytes) → 7bdf6d8489.
        assert_eq!(pod_template_hash(b"a", Some(1)), "7bdf6d8489");
        // A count of 0 still appends 8 zero bytes (nil and 0 differ): 2122621612 → 6566b65b56.
        assert_eq!(pod_template_hash(b"a", Some(0)), "6566b65b56");
        // 12345 = 0x3039 → 39 30 00 … little-endian: 3938878917 → 7f7ddcdf5c.
        assert_eq!(pod_template_hash(b"a", Some(12345)), "7f7ddcdf5c");
    }

    #[test]
    fn replica_set_names() {
        assert_eq!(replica_set_name("web", "66b6c48dd5"), "web-66b6c48dd5");
        // 250 characters with a 10-character hash: cut to 253 − 1 − 10 = 242 (the PR's test).
        let long = "d".repeat(250);
        let name = replica_set_name(&long, "66b6c48dd5");
        assert_eq!(name.len(), 253);
        assert_eq!(&name[..243], format!("{}-", "d".repeat(242)));
        // 242 characters fit as they are.
        assert_eq!(replica_set_name(&"d".repeat(242), "66b6c48dd5").len(), 253);
    }
}
