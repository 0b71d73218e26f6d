//! Label selectors as kubectl prints and applies them
//! (k8s.io/apimachinery/pkg/labels and metav1's selector helpers).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use std::collections::BTreeMap;

/// One requirement of a selector: its key and how it reads.
struct Requirement {
    key: String,
    text: String,
}

/// `LabelSelectorAsSelector(..).String()`: the requirements by key, joined by
/// commas (`app=web,tier in (a,b),!canary`); empty for no requirement.
pub fn selector_string(s: &LabelSelector) -> String {
    let mut reqs: Vec<Requirement> = s
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| Requirement { key: k.clone(), text: format!("{k}={v}") })
        .collect();
    for e in s.match_expressions.iter().flatten() {
        let mut values = e.values.clone().unwrap_or_default();
        values.sort();
        let text = match e.operator.as_str() {
            "In" => format!("{} in ({})", e.key, values.join(",")),
            "NotIn" => format!("{} notin ({})", e.key, values.join(",")),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            // The API server rejects any other operator; LabelSelectorAsSelector errs.
            other => format!("{} {other}", e.key),
        };
        reqs.push(Requirement { key: e.key.clone(), text });
    }
    // internalSelector.Add sorts by key.
    reqs.sort_by(|a, b| a.key.cmp(&b.key));
    reqs.into_iter().map(|r| r.text).collect::<Vec<_>>().join(",")
}

/// `metav1.FormatLabelSelector`: the selector's string, `<none>` when empty.
pub fn format_label_selector(s: &LabelSelector) -> String {
    let text = selector_string(s);
    if text.is_empty() { "<none>".into() } else { text }
}

/// `labels.FormatLabels`: sorted `k=v` joined by commas, `<none>` when empty.
pub fn format_labels(labels: Option<&BTreeMap<String, String>>) -> String {
    let text = labels.into_iter().flatten().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
    if text.is_empty() { "<none>".into() } else { text }
}

/// Whether `labels` satisfy every requirement of `s` (an empty selector matches everything).
pub fn matches(s: &LabelSelector, labels: Option<&BTreeMap<String, String>>) -> bool {
    let empty = BTreeMap::new();
    let labels = labels.unwrap_or(&empty);
    let by_labels = s.match_labels.iter().flatten().all(|(k, v)| labels.get(k) == Some(v));
    let by_expressions = s.match_expressions.iter().flatten().all(|e| {
        let values = e.values.as_deref().unwrap_or_default();
        match (e.operator.as_str(), labels.get(&e.key)) {
            ("In", Some(v)) => values.contains(v),
            ("NotIn", v) => v.is_none_or(|v| !values.contains(v)),
            ("Exists", v) => v.is_some(),
            ("DoesNotExist", v) => v.is_none(),
            _ => false,
        }
    });
    by_labels && by_expressions
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn expr(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
        }
    }

    /// Requirement.String for each operator, sorted by key; `<none>` for the empty selector.
    #[test]
    fn selectors_read_as_kubectl_prints_them() {
        let s = LabelSelector {
            match_labels: Some(BTreeMap::from([("app".to_string(), "web".to_string())])),
            match_expressions: Some(vec![
                expr("tier", "In", &["b", "a"]),
                expr("canary", "DoesNotExist", &[]),
                expr("zone", "NotIn", &["x"]),
                expr("env", "Exists", &[]),
            ]),
        };
        assert_eq!(format_label_selector(&s), "app=web,!canary,env,tier in (a,b),zone notin (x)");
        assert_eq!(format_label_selector(&LabelSelector::default()), "<none>");
        assert_eq!(format_labels(None), "<none>");
        let labels = BTreeMap::from([
            ("app".to_string(), "web".into()),
            ("tier".into(), "a".into()),
            ("env".into(), "p".into()),
        ]);
        assert!(matches(&s, Some(&labels)));
        assert!(!matches(&s, None));
        assert!(matches(&LabelSelector::default(), None));
    }
}
