//! The `generateName` prefix of a ReplicaSet's pods (controller_utils.go
//! `getPodsPrefix`); the API server appends the random suffix.

/// `validation.DNS1123SubdomainMaxLength`.
const MAX_SUBDOMAIN_LENGTH: usize = 253;

/// getPodsPrefix: `<rs>-`, or the bare name when `<rs>-` is not a valid prefix (for a valid
/// ReplicaSet name, only when it is 253 characters long).
pub fn pod_name_prefix(rs_name: &str) -> String {
    if rs_name.len() < MAX_SUBDOMAIN_LENGTH { format!("{rs_name}-") } else { rs_name.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert_eq!(pod_name_prefix("web-66b6c48dd5"), "web-66b6c48dd5-");
        // 252 + "-" = 253 is still valid; 253 + "-" is not.
        assert_eq!(pod_name_prefix(&"a".repeat(252)).len(), 253);
        assert_eq!(pod_name_prefix(&"a".repeat(253)), "a".repeat(253));
    }
}
