//! Choosing milestones by name: what `predict -m` and `plot cdf|graph -m`
//! take, matched one way everywhere.
//!
//! Names are long and regular (`pod/web@rev2#3/app:ready`), so a user
//! rarely types one whole: a plain pattern is the name itself or a prefix
//! that ends where a part of the name ends (`pod/web` is pod web's
//! milestones and its containers', not pod web-2's; `pod/web@rev1#1` is not
//! `pod/web@rev1#10`), and a pattern with `*` is a glob whose `*` stands for
//! any run of characters, `/` and `:` included (`*:ready`).

/// The characters that end a part of a milestone name: the subject's
/// separators (`/`, `@`, `#`), the event's (`:`) and its arguments' (`(`).
const ENDS: [char; 5] = [':', '/', '@', '#', '('];

/// Whether the milestone `name` is one `pattern` chooses.
pub fn matches(pattern: &str, name: &str) -> bool {
    if pattern.contains('*') {
        return glob(pattern, name);
    }
    let Some(rest) = name.strip_prefix(pattern) else { return false };
    rest.is_empty() || pattern.ends_with(ENDS) || rest.starts_with(ENDS)
}

/// `*` matches any run of characters; everything else itself. Linear:
/// each part between stars is found once, left to right.
pub fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for p in middle {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The indexes of `names` some pattern chooses, in `names` order, and the
/// patterns that chose none (for a warning). No patterns: every name.
pub fn choose<'p, N: AsRef<str>>(names: &[N], patterns: &'p [String]) -> (Vec<usize>, Vec<&'p str>) {
    if patterns.is_empty() {
        return ((0..names.len()).collect(), Vec::new());
    }
    let chosen = (0..names.len()).filter(|&i| patterns.iter().any(|p| matches(p, names[i].as_ref()))).collect();
    let unmatched =
        patterns.iter().filter(|p| !names.iter().any(|n| matches(p, n.as_ref()))).map(String::as_str).collect();
    (chosen, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_pattern_is_the_name_or_a_prefix_ending_a_part() {
        assert!(matches("pod/web:ready", "pod/web:ready"));
        assert!(matches("pod/web", "pod/web:ready"));
        assert!(matches("pod/web", "pod/web/app:ready"));
        assert!(matches("pod/web", "pod/web@rev2#1:ready"));
        assert!(matches("svc/web:programmed", "svc/web:programmed(node/kind-worker)"));
        // A pattern ending in a separator may be followed by anything.
        assert!(matches("pod/web:", "pod/web:ready"));
        assert!(matches("pod/", "pod/web:ready"));
        // Not another object whose name merely starts the same.
        assert!(!matches("pod/web", "pod/web-2:ready"));
        assert!(!matches("pod/web@rev1#1", "pod/web@rev1#10:ready"));
        assert!(!matches("pod/web:read", "pod/web:ready"));
        assert!(!matches("pod/web:ready", "pod/web"));
    }

    #[test]
    fn a_star_is_any_run_of_characters() {
        assert!(matches("*:ready", "pod/web:ready"));
        assert!(matches("*:ready", "pod/web/app:ready"));
        assert!(!matches("*:ready", "pod/web:ready_to_start_containers"));
        assert!(matches("pod/web@rev2#*:ready", "pod/web@rev2#10:ready"));
        assert!(!matches("pod/web@rev2#*:ready", "pod/web@rev1#10:ready"));
        assert!(matches("svc/*:first_ok", "svc/c28-probe:first_ok"));
        assert!(matches("*", "anything:at_all"));
        assert!(matches("*ready*", "pod/web:ready_to_start_containers"));
        assert!(matches("a*b*c", "abc"));
        assert!(!matches("a*b*c", "acb"));
        // The last part must not reuse what the middle one matched.
        assert!(!matches("*ab*ab", "xab"));
    }

    #[test]
    fn choosing_keeps_name_order_and_reports_unmatched_patterns() {
        let names = ["a:x", "b:y", "c:x"];
        let patterns = vec!["*:x".to_string(), "nope".to_string()];
        assert_eq!(choose(&names, &patterns), (vec![0, 2], vec!["nope"]));
        assert_eq!(choose(&names, &[]), (vec![0, 1, 2], vec![]));
    }
}
