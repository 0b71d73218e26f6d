//! `ValidatePodUpdate` (pkg/apis/core/validation/validation.go), for the
//! fields a podsim patch changes: the new pod is validated as a pod
//! (`validatePodMetadataAndSpec`), then `ValidateContainerUpdates` checks each
//! container list's images and the update rule of `activeDeadlineSeconds`:
//! it may be set when absent, or lowered, never raised or removed.

use super::field::FieldError;
use super::validation::{dedup, validate_pod};
use k8s_openapi::api::core::v1::{Container, Pod};

/// The errors of updating `old` to `new`, deduplicated as `ToAggregate` does.
pub fn validate_pod_update(old: &Pod, new: &Pod) -> Vec<FieldError> {
    let mut errs = validate_pod(new);
    let (Some(old), Some(new)) = (old.spec.as_ref(), new.spec.as_ref()) else { return errs };
    let lists = [
        ("spec.containers", &old.containers[..], &new.containers[..]),
        (
            "spec.initContainers",
            old.init_containers.as_deref().unwrap_or(&[]),
            new.init_containers.as_deref().unwrap_or(&[]),
        ),
    ];
    for (path, old, new) in lists {
        if container_updates(path, old, new, &mut errs) {
            return dedup(errs);
        }
    }
    let path = "spec.activeDeadlineSeconds";
    match (old.active_deadline_seconds, new.active_deadline_seconds) {
        (_, Some(d)) if !(0..=i64::from(i32::MAX)).contains(&d) => {
            errs.push(FieldError::invalid(path, d, "must be between 0 and 2147483647, inclusive"));
        }
        (Some(o), Some(d)) if o < d => {
            errs.push(FieldError::invalid(path, d, "must be less than or equal to previous value"))
        }
        // ErrorBody turns a nil pointer into the string "null", and prints strings with %q.
        (Some(_), None) => {
            errs.push(FieldError::invalid(path, "\"null\"", "must not update from a positive integer to nil value"))
        }
        _ => {}
    }
    dedup(errs)
}

/// `ValidateContainerUpdates`: the same number of containers, each with an
/// image without surrounding whitespace. Returns true when validation stops.
fn container_updates(path: &str, old: &[Container], new: &[Container], errs: &mut Vec<FieldError>) -> bool {
    if old.len() != new.len() {
        errs.push(FieldError::forbidden(path, "pod updates may not add or remove containers"));
        return true;
    }
    for (i, c) in new.iter().enumerate() {
        let image = c.image.as_deref().unwrap_or("");
        if image.is_empty() {
            errs.push(FieldError::required(format!("{path}[{i}].image"), ""));
        }
        if image.trim() != image {
            let detail = "must not have leading or trailing whitespace";
            errs.push(FieldError::invalid(format!("{path}[{i}].image"), format!("{image:?}"), detail));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(deadline: Option<i64>, image: &str) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "activeDeadlineSeconds": deadline,
                "terminationGracePeriodSeconds": 30,
                "restartPolicy": "Always",
                "dnsPolicy": "ClusterFirst",
                "containers": [{"name": "app", "image": image, "imagePullPolicy": "IfNotPresent",
                                "terminationMessagePolicy": "File"}]
            }
        }))
        .unwrap()
    }

    fn errors(old: &Pod, new: &Pod) -> Vec<String> {
        validate_pod_update(old, new).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_deadline_may_be_set_or_lowered_only() {
        assert!(errors(&pod(None, "a"), &pod(Some(30), "a")).is_empty());
        assert!(errors(&pod(Some(30), "a"), &pod(Some(10), "a")).is_empty());
        assert_eq!(
            errors(&pod(Some(10), "a"), &pod(Some(20), "a")),
            ["spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"]
        );
        assert_eq!(
            errors(&pod(Some(10), "a"), &pod(None, "a")),
            [
                "spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive integer to nil value"
            ]
        );
        // 0 passes the update rule but not the pod's own validation; a negative value fails both.
        assert_eq!(
            errors(&pod(Some(10), "a"), &pod(Some(0), "a")),
            ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]
        );
        assert_eq!(
            errors(&pod(Some(10), "a"), &pod(Some(-5), "a")),
            [
                "spec.activeDeadlineSeconds: Invalid value: -5: must be between 1 and 2147483647, inclusive",
                "spec.activeDeadlineSeconds: Invalid value: -5: must be between 0 and 2147483647, inclusive",
            ]
        );
    }

    #[test]
    fn an_image_must_be_set_and_trimmed() {
        assert!(errors(&pod(None, "a"), &pod(None, "b")).is_empty());
        assert_eq!(errors(&pod(None, "a"), &pod(None, "")), ["spec.containers[0].image: Required value"]);
        assert_eq!(
            errors(&pod(None, "a"), &pod(None, " b")),
            ["spec.containers[0].image: Invalid value: \" b\": must not have leading or trailing whitespace"]
        );
    }
}
