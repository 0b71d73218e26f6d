//! The resource quantities of a pod's containers (`resources.limits` and
//! `resources.requests`): decoded with the object, so one that
//! `ParseQuantity` refuses fails the create before validation
//! (`Quantity.UnmarshalJSON`: `Pod in version "v1" cannot be handled as a
//! Pod: unable to parse quantity's suffix`); then none may be negative
//! (`ValidateResourceQuantityValue`'s `ValidateNonnegativeQuantity`).

use super::field::FieldError;
use crate::api::quantity::Quantity;
use crate::source::key_path;
use k8s_openapi::api::core::v1::PodSpec;

/// One quantity: where the manifest writes it (`….limits.memory`), the
/// path validation prints (`….limits[memory]`), and its text.
struct Written<'a> {
    at: String,
    api_path: String,
    text: &'a str,
}

/// Every quantity of the containers and init containers of `spec`, found at `path`.
fn quantities<'a>(spec: &'a PodSpec, path: &str) -> Vec<Written<'a>> {
    let lists = [("containers", Some(&spec.containers)), ("initContainers", spec.init_containers.as_ref())];
    let mut out = Vec::new();
    for (list, containers) in lists {
        for (i, c) in containers.into_iter().flatten().enumerate() {
            let Some(r) = &c.resources else { continue };
            for (field, map) in [("limits", &r.limits), ("requests", &r.requests)] {
                for (name, q) in map.iter().flatten() {
                    let parent = format!("{path}.{list}[{i}].resources.{field}");
                    let (at, api_path) = (key_path(&parent, name), format!("{parent}[{name}]"));
                    out.push(Written { at, api_path, text: &q.0 });
                }
            }
        }
    }
    out
}

/// The quantities of `spec` (at `path`) that do not decode, as (where the
/// manifest writes it, the API server's message for an object of `kind`).
pub fn undecodable(spec: &PodSpec, path: &str, kind: &str) -> Vec<(String, String)> {
    let bad = quantities(spec, path).into_iter().filter_map(|w| Some((w.at, Quantity::parse(w.text).err()?)));
    bad.map(|(at, e)| (at, format!("{kind} in version \"v1\" cannot be handled as a {kind}: {e}"))).collect()
}

/// `ValidateNonnegativeQuantity` of every quantity of `spec` (at `path`),
/// each with where the manifest writes it. Run on decoded quantities.
pub fn negative(spec: &PodSpec, path: &str) -> Vec<(String, FieldError)> {
    let parsed = quantities(spec, path).into_iter().filter_map(|w| Some((Quantity::parse(w.text).ok()?, w)));
    parsed
        .filter(|(q, _)| q.is_negative())
        .map(|(q, w)| (w.at, FieldError::invalid(w.api_path, format!("{:?}", q.to_string()), NEGATIVE)))
        .collect()
}

/// apimachinery's `IsNegativeErrorMsg`.
const NEGATIVE: &str = "must be greater than or equal to 0";

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(resources: serde_json::Value) -> PodSpec {
        let c = serde_json::json!({"name": "app", "image": "nginx", "resources": resources});
        serde_json::from_value(serde_json::json!({"containers": [c]})).unwrap()
    }

    #[test]
    fn a_quantity_that_does_not_parse_fails_the_decoding() {
        let s = spec(serde_json::json!({"limits": {"memory": "256MB", "cpu": "1"}, "requests": {"memory": "1K"}}));
        let bad = undecodable(&s, "spec", "Pod");
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert_eq!(bad[0].0, "spec.containers[0].resources.limits.memory");
        assert!(bad[0].1.starts_with("Pod in version \"v1\" cannot be handled as a Pod: quantities must match"));
        assert_eq!(
            bad[1],
            (
                "spec.containers[0].resources.requests.memory".to_string(),
                "Pod in version \"v1\" cannot be handled as a Pod: unable to parse quantity's suffix".to_string()
            )
        );
        assert!(negative(&s, "spec").is_empty());
    }

    #[test]
    fn a_negative_quantity_is_invalid_with_its_canonical_value() {
        let s = spec(serde_json::json!({"limits": {"memory": "-1024Mi"}}));
        let bad = negative(&s, "spec.template.spec");
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].0, "spec.template.spec.containers[0].resources.limits.memory");
        assert_eq!(
            bad[0].1.to_string(),
            "spec.template.spec.containers[0].resources.limits[memory]: Invalid value: \"-1Gi\": must be greater than or equal to 0"
        );
    }
}
