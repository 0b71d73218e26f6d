//! Behaviours read from the containers no behaviour file describes
//! (`app::infer`), and what the run says about them: which containers podsim
//! read from themselves, which run its default app and why, and where a
//! command it cannot interpret is written.

use crate::api::config::ConfigObject;
use crate::app::infer::Source;
use crate::app::{Behaviours, JOB_COMPLETION_INDEX};
use crate::error::Problem;
use crate::manifest::Manifests;
use crate::spec::{ConfigKind, ContainerSpec, PodSpec};
use std::collections::BTreeMap;

/// How many indexes of an Indexed Job whose script reads its index are read
/// (each one runs the interpreter once; later indexes run the default app).
const MAX_INDEXES_READ: u32 = 10_000;

/// Why an exec command of a container has no inferred answer, by
/// (container name, command).
pub(super) type Unanswered = BTreeMap<(String, String), String>;

/// Infers every container of every pod spec the run can have; returns the
/// notes and warnings to print, and the exec commands left unanswered.
pub(super) fn infer_all(all: &[&Manifests], behaviours: &mut Behaviours) -> (Vec<Problem>, Unanswered) {
    let mut read = Vec::new();
    let mut defaulted = Vec::new();
    let mut problems = Vec::new();
    let mut unanswered = Unanswered::new();
    // The Jobs (and CronJobs) a container of which runs the default app, which never exits.
    let mut never_finish: Vec<String> = Vec::new();
    let config: Vec<&ConfigObject> = all.iter().flat_map(|m| &m.config).collect();
    for m in all {
        for (k, pod) in m.all_pod_specs().enumerate() {
            for (c, container) in pod.containers.iter().enumerate() {
                let files = mounted(container, pod, &config);
                let Some(inferred) = behaviours.infer(container, &files) else { continue };
                let owner = m.pod_spec_owner(k);
                let who = format!("container {} of {owner}", container.name);
                // A sidecar stops with its pod's other containers: it does not keep a Job's pod
                // running; a script that reads its index is read per index below.
                let per_index =
                    container.command.iter().chain(&container.args).any(|a| a.contains(JOB_COMPLETION_INDEX));
                let keeps_pod = container.role != crate::spec::Role::Sidecar && !per_index;
                if inferred.is_err() && keeps_pod && owner.contains("job/") && !never_finish.contains(&owner) {
                    never_finish.push(owner.clone());
                }
                match inferred {
                    Ok(i) => {
                        let from = match i.source {
                            Source::Image => format!("image {}", container.image),
                            Source::Script => "its shell script".to_string(),
                        };
                        read.push(format!("{who} ({from})"));
                        for (command, why) in i.unanswered {
                            unanswered.insert((container.name.to_string(), command), why);
                        }
                    }
                    Err(why) if !container.command.is_empty() => {
                        let message = format!(
                            "container {}: {why}, so podsim runs its default app (binds its declared ports at once, \
                             answers every probe with success, runs until stopped, exits 0 on SIGTERM); a behaviour \
                             file entry says otherwise",
                            container.name
                        );
                        let path = format!("{}.command", pod.api_path(c));
                        problems.push(m.pod_spec_problem(k, &path, message).warn());
                    }
                    Err(why) => defaulted.push(format!("{who} ({why})")),
                }
            }
        }
    }
    // An Indexed Job's script that reads its JOB_COMPLETION_INDEX runs
    // differently per index: each index's pods are read with their value.
    for m in all {
        for job in m.jobs.iter().filter(|j| j.mode == crate::spec::job::CompletionMode::Indexed) {
            let pod = &job.template.pod;
            for container in &pod.containers {
                if !container.command.iter().chain(&container.args).any(|a| a.contains(JOB_COMPLETION_INDEX)) {
                    continue;
                }
                let files = mounted(container, pod, &config);
                for i in 0..job.completions.unwrap_or(0).min(MAX_INDEXES_READ) {
                    let mut c = container.clone();
                    c.env.push((JOB_COMPLETION_INDEX.to_string(), i.to_string()));
                    let _ = behaviours.infer(&c, &files);
                }
            }
        }
    }
    for owner in never_finish {
        problems.push(Problem::warning(format!(
            "{owner}: a container of its pods runs podsim's default app, which never exits, so its pods never \
             finish and the Job never completes; a behaviour file entry with `exit: {{after: 10s, code: 0}}` for \
             that container says when it ends"
        )));
    }
    dedup(&mut read);
    dedup(&mut defaulted);
    if !read.is_empty() {
        problems.push(Problem::note(format!(
            "no behaviour file describes these containers, so podsim reads them from themselves: {}",
            read.join("; ")
        )));
    }
    if !defaulted.is_empty() {
        problems.push(Problem::note(format!(
            "podsim's default app runs these containers (binds their declared ports at once, answers every probe \
             with success, runs until stopped, exits 0 on SIGTERM; a behaviour file entry says otherwise): {}",
            defaulted.join("; ")
        )));
    }
    (problems, unanswered)
}

/// The directories and files a container's volumes put in its file system:
/// every mount path, and in a configMap or secret volume a file per key (or
/// per `items` path) holding the text the manifest gives it, if any.
fn mounted(c: &ContainerSpec, pod: &PodSpec, config: &[&ConfigObject]) -> Vec<(String, Option<String>)> {
    let volumes = pod.object.spec.as_ref().and_then(|s| s.volumes.as_deref()).unwrap_or(&[]);
    let mut out = Vec::new();
    for (path, name) in &c.mounts {
        out.push((path.clone(), None));
        let Some(v) = volumes.iter().find(|v| &v.name == name) else { continue };
        let (kind, object, items) = match (&v.config_map, &v.secret) {
            (Some(cm), _) => (ConfigKind::ConfigMap, cm.name.as_str(), &cm.items),
            (_, Some(s)) => (ConfigKind::Secret, s.secret_name.as_deref().unwrap_or(""), &s.items),
            _ => continue,
        };
        let Some(o) = config.iter().find(|o| o.is(kind, &pod.namespace, object)) else { continue };
        let text = |key: &str| Some(o.values.get(key).cloned().unwrap_or_default());
        match items {
            Some(items) => out.extend(
                items.iter().filter(|i| o.keys.contains(&i.key)).map(|i| (format!("{path}/{}", i.path), text(&i.key))),
            ),
            None => out.extend(o.keys.iter().map(|k| (format!("{path}/{k}"), text(k)))),
        }
    }
    out
}

/// Removes repeats, keeping the first of each.
fn dedup(lines: &mut Vec<String>) {
    let mut seen = std::collections::BTreeSet::new();
    lines.retain(|l| seen.insert(l.clone()));
}
