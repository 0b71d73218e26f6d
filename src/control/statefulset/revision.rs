//! ControllerRevisions of a StatefulSet (pkg/controller/history and
//! `newRevision`): only `spec.template` defines a revision; its name is
//! `<set>-<hash>`, the hash FNV-1 32 of the revision's data and the
//! collision count (`HashControllerRevision`), safe-encoded.

use crate::api::controllerrevision::template_patch;
use crate::spec::PodTemplate;

/// `rand.SafeEncodeString`'s alphabet: no vowels, no 0, 1 or 3.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `getPatch`'s bytes, keys sorted as Go's `json.Marshal` of a map sorts them.
pub fn patch(template: &PodTemplate) -> Vec<u8> {
    serde_json::to_vec(&template_patch(template)).unwrap_or_default()
}

/// FNV-1 (32 bits, `hash/fnv.New32`): multiply, then xor.
fn fnv1_32(bytes: impl IntoIterator<Item = u8>) -> u32 {
    bytes.into_iter().fold(0x811c_9dc5_u32, |h, b| h.wrapping_mul(0x0100_0193) ^ u32::from(b))
}

/// `rand.SafeEncodeString`: each byte to a letter of the alphabet.
pub fn safe_encode(s: &str) -> String {
    s.bytes().map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char).collect()
}

/// `HashControllerRevision(revision, &collisionCount)`.
pub fn hash(data: &[u8], collision_count: u32) -> String {
    let probe = collision_count.to_string();
    safe_encode(&fnv1_32(data.iter().copied().chain(probe.bytes())).to_string())
}

/// `ControllerRevisionName`: the prefix cut to 223 bytes, a dash, the hash.
pub fn name(set: &str, hash: &str) -> String {
    let prefix = if set.len() > 223 { &set[..223] } else { set };
    format!("{prefix}-{hash}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_decimal_digits_safe_encoded() {
        // '0'..'9' are bytes 48..57: 48 % 27 = 21 → '4', …, 54 % 27 = 0 → 'b'.
        assert_eq!(safe_encode("0123456789"), "456789bcdf");
        assert_eq!(fnv1_32(*b""), 0x811c_9dc5);
        // FNV-1 of "a": (offset × prime) ^ 'a'.
        assert_eq!(fnv1_32(*b"a"), 0x050c_5d7e);
        let h = hash(b"{}", 0);
        assert!(h.len() <= 10 && h.chars().all(|c| "456789bcdf".contains(c)), "{h}");
        assert_ne!(hash(b"{}", 0), hash(b"{}", 1), "a collision changes the name");
        assert_eq!(name("web", &h), format!("web-{h}"));
    }
}
