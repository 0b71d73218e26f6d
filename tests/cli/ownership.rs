//! Controller ownership at load: overlapping selectors are a warning naming
//! both objects and where they are written; an `apply` file creates
//! ReplicaSets and Deployments, and may not change a Deployment's selector
//! (immutable in apps/v1: the API server refuses the update).

use crate::{TempDir, assert_error, assert_no_panic, assert_problem, line_of, nth_line_of, podsim};

fn deployment(name: &str, selector: &str, labels: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {selector}\n  template:\n    metadata:\n      labels: {labels}\n    spec:\n      containers:\n      - {{name: web, image: nginx}}\n"
    )
}

#[test]
fn overlapping_selectors_are_a_warning_naming_both_objects() {
    let dir = TempDir::new("overlap");
    let text =
        [deployment("a", "{app: web}", "{app: web}"), deployment("b", "{app: web}", "{app: web, track: canary}")]
            .join("---\n");
    let file = dir.write("web.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "5s"]);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "a warning does not stop the run: {run:?}");
    // Located at each selector's `selector:` key.
    let (a_line, b_line) = (nth_line_of(&text, "selector:", 0, 2), nth_line_of(&text, "selector:", 1, 2));
    let expected = format!(
        "spec.selector: deployment/a overlaps deployment/b ({file}:{b_line}): its selector app=web matches the pod template labels of deployment/b. Kubernetes accepts overlapping selectors"
    );
    assert_problem(&run, "warning", &file, a_line, &expected);
}

#[test]
fn an_apply_file_may_not_change_a_deployments_selector() {
    let dir = TempDir::new("apply-selector");
    dir.write("web.yaml", &deployment("web", "{app: web}", "{app: web}"));
    let changed = deployment("web", "{app: web2}", "{app: web2}");
    let v2 = dir.write("web-v2.yaml", &changed);
    let scenario = dir.write("s.yaml", "manifests: [web.yaml]\nactions:\n- {at: 10s, apply: web-v2.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &v2,
        line_of(&changed, "selector:"),
        r#"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"#,
    );
}

#[test]
fn an_apply_file_creates_replica_sets_but_updates_none() {
    let dir = TempDir::new("apply-rs");
    let rs = deployment("web", "{app: web}", "{app: web}").replace("kind: Deployment", "kind: ReplicaSet");
    dir.write("rs.yaml", &rs);
    let again = dir.write("rs-again.yaml", &rs);
    let scenario = dir.write("s.yaml", "manifests: [rs.yaml]\nactions:\n- {at: 10s, apply: rs-again.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &again,
        line_of(&rs, "  name: web"),
        r#"metadata.name: replicasets.apps "web" already exists: an apply file's ReplicaSets are created; updating one is not simulated"#,
    );
    // A Pod is created too; one that exists already is refused the same way.
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: web, image: nginx}]}\n";
    dir.write("pod.yaml", pod);
    let scenario = dir.write("p.yaml", "manifests: [rs.yaml]\nuntil: 12s\nactions:\n- {at: 10s, apply: pod.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("10.000s  pod/solo"), "{run:?}");
    let again = dir.write("pod-again.yaml", pod);
    let scenario = dir.write("q.yaml", "manifests: [pod.yaml]\nactions:\n- {at: 10s, apply: pod-again.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_error(
        &run,
        &again,
        line_of(pod, "metadata:"),
        r#"metadata.name: pods "solo" already exists: an apply file's Pods are created; updating one is not simulated (a `patch` action changes a pod)"#,
    );
    dir.write("empty.yaml", "# nothing\n---\n");
    let scenario = dir.write("e.yaml", "manifests: [rs.yaml]\nactions:\n- {at: 10s, apply: empty.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, 3, "actions[0].apply: ");
    assert!(run.stderr.contains("empty.yaml: the file holds no object"), "{run:?}");
}
