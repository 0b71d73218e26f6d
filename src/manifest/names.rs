//! The name formats of apimachinery's util/validation: DNS-1123 labels and
//! subdomains, port names and qualified names, each returning the API
//! server's messages in its order.

/// `dns1123LabelErrMsg` through `RegexError` (the double space is the API server's).
const LABEL_FORMAT: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
/// `dns1123SubdomainErrorMsg` through `RegexError`.
const SUBDOMAIN_FORMAT: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
/// `dns1035LabelErrMsg` through `RegexError`.
const DNS1035_FORMAT: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
/// `labelValueErrMsg` through `RegexError`.
const LABEL_VALUE_FORMAT: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
/// `qualifiedNameErrMsg` through `RegexError`.
const QUALIFIED_FORMAT: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// `IsValidPortName`: one message per failed rule, in apimachinery's order.
pub fn port_name_errors(port: &str) -> Vec<&'static str> {
    let charset = port.is_empty() || !port.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    failed([
        (port.len() > 15, "must be no more than 15 characters"),
        (charset, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
        (!port.bytes().any(|b| b.is_ascii_lowercase()), "must contain at least one letter (a-z)"),
        (port.contains("--"), "must not contain consecutive hyphens"),
        (port.starts_with('-') || port.ends_with('-'), "must not begin or end with a hyphen"),
    ])
}

/// `IsDNS1123Label`: length, then dots (when it is a valid subdomain) or the format message.
pub fn dns1123_label_errors(value: &str) -> Vec<&'static str> {
    let format = if is_dns1123_subdomain(value) { "must not contain dots" } else { LABEL_FORMAT };
    failed([(value.len() > 63, "must be no more than 63 characters"), (!is_dns1123_label(value), format)])
}

/// `IsDNS1035Label`: length, then the format message (no special case for dots).
pub fn dns1035_label_errors(value: &str) -> Vec<&'static str> {
    let b = value.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let valid = b.first().is_some_and(u8::is_ascii_lowercase)
        && b.last().is_some_and(alnum)
        && b.iter().all(|c| alnum(c) || *c == b'-');
    failed([(value.len() > 63, "must be no more than 63 characters"), (!valid, DNS1035_FORMAT)])
}

/// `IsValidLabelValue`: length, then the format message (empty is valid).
pub fn label_value_errors(value: &str) -> Vec<&'static str> {
    let valid = value.is_empty() || is_qualified_name_part(value);
    failed([(value.len() > 63, "must be no more than 63 characters"), (!valid, LABEL_VALUE_FORMAT)])
}

/// `IsDNS1123Subdomain`: length, then the format message.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<&'static str> {
    failed([
        (value.len() > 253, "must be no more than 253 characters"),
        (!is_dns1123_subdomain(value), SUBDOMAIN_FORMAT),
    ])
}

/// The messages of the failed checks, in order.
fn failed<const N: usize>(checks: [(bool, &'static str); N]) -> Vec<&'static str> {
    checks.into_iter().filter(|(failed, _)| *failed).map(|(_, msg)| msg).collect()
}

/// `dns1123LabelFmt`: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn is_dns1123_label(s: &str) -> bool {
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let b = s.as_bytes();
    b.first().is_some_and(alnum) && b.last().is_some_and(alnum) && b.iter().all(|c| alnum(c) || *c == b'-')
}

/// `dns1123SubdomainFmt`: labels joined by dots.
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(is_dns1123_label)
}

/// `IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name
/// of at most 63 characters.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let mut errs = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(dns1123_subdomain_errors(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {QUALIFIED_FORMAT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".into());
    }
    if !is_qualified_name_part(name) {
        errs.push(format!("name part {QUALIFIED_FORMAT}"));
    }
    errs
}

/// `qualifiedNameFmt`: `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_alphanumeric();
    b.first().is_some_and(alnum)
        && b.last().is_some_and(alnum)
        && b.iter().all(|c| alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        assert!(qualified_name_errors("example.com/feature-1").is_empty());
        assert!(qualified_name_errors("Ready_2").is_empty());
        assert_eq!(qualified_name_errors("/x"), vec!["prefix part must be non-empty".to_string()]);
        let e = qualified_name_errors("a/b/c");
        assert!(e[0].starts_with("a qualified name must consist of"), "{e:?}");
        let e = qualified_name_errors("example.com/-x");
        assert_eq!(e, vec![format!("name part {QUALIFIED_FORMAT}")]);
        assert_eq!(qualified_name_errors("Bad_Prefix/x")[0], format!("prefix part {SUBDOMAIN_FORMAT}"));
    }
}
