//! Strict decoding: fields the API type (Pod, Service) does not have are errors, as
//! with the API server's `fieldValidation=Strict` (kubectl's default since 1.27).

use serde::Serialize;
use serde_json::Value;

/// Paths present in `input` that the decoded object does not carry.
pub fn unknown_fields<T: Serialize>(input: &Value, object: &T) -> Vec<String> {
    let decoded = serde_json::to_value(object).unwrap_or(Value::Null);
    let mut out = Vec::new();
    walk(input, &decoded, "", &mut out);
    out
}

fn walk(input: &Value, decoded: &Value, path: &str, out: &mut Vec<String>) {
    match (input, decoded) {
        (Value::Object(i), Value::Object(d)) => {
            for (key, value) in i {
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                match d.get(key) {
                    Some(dv) => walk(value, dv, &child, out),
                    None if value.is_null() => {}
                    // Free-form maps (labels, annotations, resources) keep every key.
                    None => out.push(child),
                }
            }
        }
        (Value::Array(i), Value::Array(d)) => {
            for (idx, (iv, dv)) in i.iter().zip(d).enumerate() {
                walk(iv, dv, &format!("{path}[{idx}]"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    #[test]
    fn finds_misspelled_fields_and_keeps_free_form_maps() {
        let input = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "labels": {"app": "web"}, "creationTimestamp": null},
            "spec": {"containers": [{"name": "app", "image": "nginx", "lisenessProbe": {}}]}
        });
        let pod: Pod = serde_json::from_value(input.clone()).unwrap();
        assert_eq!(unknown_fields(&input, &pod), vec!["spec.containers[0].lisenessProbe".to_string()]);
    }
}
