//! The pods a Job creates (`newPod` in job_controller.go and the template
//! helpers of indexed_job_utils.go).

use super::indexes::{FAILURE_COUNT, IGNORED_FAILURE_COUNT, INDEX};
use crate::api::job::ApiJob;
use crate::spec::{JobSpec, PodSpec};
use k8s_openapi::api::core::v1::{EnvVar, EnvVarSource, ObjectFieldSelector};
use std::sync::Arc;

/// `batch.JobTrackingFinalizer`: the Job counts a pod before it may go.
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";
/// `batch.JobCompletionIndexEnvName`.
pub const INDEX_ENV: &str = "JOB_COMPLETION_INDEX";

/// A pod to create: its index (Indexed Jobs) and the failure counts it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewPod {
    pub index: Option<u32>,
    pub failures: (u32, u32),
}

/// The `generateName` of a Job's pod: `<job>-`, or `<job>-<index>-`
/// (`podGenerateNameWithIndex`, the Job's part cut to fit 58 characters).
pub fn generate_name(job: &str, index: Option<u32>) -> String {
    match index {
        None => format!("{job}-"),
        Some(i) => {
            let suffix = format!("-{i}-");
            let keep = 58usize.saturating_sub(suffix.len()).min(job.len());
            format!("{}{suffix}", &job[..keep])
        }
    }
}

/// The template's pod as the Job controller sends it (`GetPodFromTemplate`
/// plus the Job's additions): the generated labels, the tracking
/// finalizer, the controller reference; for an index its annotation and
/// label, `hostname`, the `JOB_COMPLETION_INDEX` variable of each container
/// (the kubelet resolves it from the label), and its failure counts.
pub fn new_pod(job: &ApiJob, new: NewPod) -> Arc<PodSpec> {
    let spec: &JobSpec = &job.spec;
    let t = &spec.template;
    let mut pod = t.pod.clone();
    pod.namespace = spec.namespace.clone();
    pod.labels = t.labels.clone();
    for (k, v) in job.generated_labels() {
        pod.labels.entry(k.to_string()).or_insert(v);
    }
    let mut annotations = t.annotations.clone();
    if let Some(i) = new.index {
        annotations.insert(INDEX.into(), i.to_string());
        pod.labels.insert(INDEX.into(), i.to_string());
        if spec.backoff_limit_per_index.is_some() {
            annotations.insert(FAILURE_COUNT.into(), new.failures.0.to_string());
            if new.failures.1 > 0 {
                annotations.insert(IGNORED_FAILURE_COUNT.into(), new.failures.1.to_string());
            }
        }
        for c in &mut pod.containers {
            if !c.env.iter().any(|(k, _)| k == INDEX_ENV) {
                c.env.push((INDEX_ENV.into(), i.to_string()));
            }
        }
        let object = pod.object.spec.get_or_insert_default();
        object.hostname = Some(format!("{}-{i}", spec.name));
        let containers = object.containers.iter_mut().chain(object.init_containers.iter_mut().flatten());
        for c in containers {
            let env = c.env.get_or_insert_default();
            if !env.iter().any(|e| e.name == INDEX_ENV) {
                env.push(EnvVar {
                    name: INDEX_ENV.into(),
                    value: None,
                    value_from: Some(EnvVarSource {
                        field_ref: Some(ObjectFieldSelector {
                            api_version: Some("v1".into()),
                            field_path: format!("metadata.labels['{INDEX}']"),
                        }),
                        ..Default::default()
                    }),
                });
            }
        }
    }
    pod.owner = Some(job.as_owner());
    let meta = &mut pod.object.metadata;
    meta.labels = Some(pod.labels.clone());
    meta.annotations = (!annotations.is_empty()).then_some(annotations);
    meta.namespace = Some(pod.namespace.clone());
    let finalizers = meta.finalizers.get_or_insert_default();
    if !finalizers.iter().any(|f| f == TRACKING_FINALIZER) {
        finalizers.push(TRACKING_FINALIZER.into());
    }
    Arc::new(pod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_index_and_fit_the_limit() {
        assert_eq!(generate_name("pi", None), "pi-");
        assert_eq!(generate_name("sweep", Some(3)), "sweep-3-");
        let long = "j".repeat(70);
        assert_eq!(generate_name(&long, Some(12)).len(), 58);
        assert!(generate_name(&long, Some(12)).ends_with("j-12-"));
    }
}
