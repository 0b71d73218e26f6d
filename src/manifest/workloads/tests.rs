//! Reading Deployments and ReplicaSets end to end: defaults, validation message
//! by message, unknown and unsupported fields, the typed specs. Expected texts
//! are those of the research notes on the API server (issue6-research.md §1)
//! and of validation.go, not podsim's output.

use super::*;
use crate::error::SourceFile;
use crate::source::parse_documents;
use crate::spec::{IntOrPercent, RestartPolicy, Strategy};
use crate::time::SimDuration;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `IsValidLabelValue`'s format message.
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
/// `IsValidPercent`'s message.
const PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
/// `NotSupported` for a strategy type, with the `%#v` of the strategy.
const STRATEGIES: &str = r#"supported values: "Recreate", "RollingUpdate""#;

/// The first document of a file `deploy.yaml` holding `text`.
fn doc(text: &str) -> Doc {
    let file = Arc::new(SourceFile { name: "deploy.yaml".into(), text: text.into() });
    parse_documents(&file).expect("parses").remove(0)
}

/// Reads the Deployment of `text`: the typed spec, and every problem as printed.
fn deployment(text: &str) -> (Option<DeploymentSpec>, Vec<String>) {
    let d = doc(text);
    let mut problems = Vec::new();
    let spec = read_deployment(&d, d.to_json(), "", &mut problems);
    (spec, problems.iter().map(ToString::to_string).collect())
}

/// Reads the ReplicaSet of `text`: the typed spec, and every problem as printed.
fn replica_set(text: &str) -> (Option<ReplicaSetSpec>, Vec<String>) {
    let d = doc(text);
    let mut problems = Vec::new();
    let spec = read_replica_set(&d, d.to_json(), "", &mut problems);
    (spec, problems.iter().map(ToString::to_string).collect())
}

/// The problems of reading `object` (a Deployment or a ReplicaSet), as
/// `<field>: <message>`, without their location.
fn problems(object: Value) -> Vec<String> {
    let d = doc(&object.to_string());
    let mut problems = Vec::new();
    if object["kind"] == "Deployment" {
        read_deployment(&d, d.to_json(), "", &mut problems);
    } else {
        read_replica_set(&d, d.to_json(), "", &mut problems);
    }
    problems.iter().map(|p| format!("{}: {}", p.field.as_deref().unwrap_or("-"), p.message)).collect()
}

fn check(object: Value, want: &[&str]) {
    assert_eq!(problems(object), want);
}

/// `kind` `web` with one nginx container, selecting `app: web`, with `extra` merged into its spec.
fn object(kind: &str, extra: Value) -> Value {
    let mut spec = json!({
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        },
    });
    if let (Some(spec), Value::Object(extra)) = (spec.as_object_mut(), extra) {
        spec.extend(extra);
    }
    json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "web"}, "spec": spec})
}

fn web(extra: Value) -> Value {
    object("Deployment", extra)
}

fn web_rs(extra: Value) -> Value {
    object("ReplicaSet", extra)
}

/// The template of `web` with `extra` merged into its pod spec.
fn template_spec(extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "app", "image": "nginx"}]});
    if let (Some(spec), Value::Object(extra)) = (spec.as_object_mut(), extra) {
        spec.extend(extra);
    }
    json!({"template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}})
}

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx
";

const REPLICA_SET: &str = "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web
  namespace: shop
spec:
  minReadySeconds: 5
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web, tier: fe}
      annotations: {team: a}
    spec:
      containers:
      - name: app
        image: nginx:1.27
";

// §1.1: defaults.

#[test]
fn a_valid_deployment_gets_every_default() {
    let (d, problems) = deployment(DEPLOYMENT);
    assert!(problems.is_empty(), "{problems:?}");
    let d = d.expect("valid");
    assert_eq!((d.name.as_str(), d.namespace.as_str()), ("web", "default"));
    assert_eq!(d.replicas, 1);
    let quarter = IntOrPercent::Percent(25);
    assert_eq!(d.strategy, Strategy::RollingUpdate { max_surge: quarter, max_unavailable: quarter });
    assert_eq!(d.revision_history_limit, 10);
    assert_eq!(d.progress_deadline_seconds, Some(600));
    assert_eq!(d.min_ready_seconds, 0);
    assert!(!d.paused);
    assert_eq!(d.selector, labels(&[("app", "web")]));
    assert_eq!(d.template.labels, labels(&[("app", "web")]));
    assert!(d.template.annotations.is_empty() && d.labels.is_empty() && d.annotations.is_empty());
    // the defaulted object, as the API server stores it
    let spec = serde_json::to_value(&d.object.spec).expect("encodes");
    assert_eq!(spec["replicas"], 1);
    assert_eq!(
        spec["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
    );
    assert_eq!(spec["revisionHistoryLimit"], 10);
    assert_eq!(spec["progressDeadlineSeconds"], 600);
    assert_eq!(spec.get("minReadySeconds"), None);
    assert_eq!(spec.get("paused"), None);
    // the template gets the pod spec's defaults, not what only a pod gets
    let container = json!({
        "name": "app", "image": "nginx", "imagePullPolicy": "Always",
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    });
    let template_spec = json!({
        "containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
        "schedulerName": "default-scheduler", "securityContext": {}, "terminationGracePeriodSeconds": 30,
    });
    assert_eq!(spec["template"], json!({"metadata": {"labels": {"app": "web"}}, "spec": template_spec}));
    assert_eq!(serde_json::to_value(&d.template.object).expect("encodes"), spec["template"]);
    // its pod is built as a manifest Pod, without a name, and admitted
    let pod = &d.template.pod;
    assert_eq!((pod.name.as_str(), pod.namespace.as_str()), ("", "default"));
    assert_eq!(pod.labels, labels(&[("app", "web")]));
    assert_eq!(pod.restart_policy, RestartPolicy::Always);
    assert_eq!(pod.termination_grace, SimDuration::from_secs(30));
    assert_eq!(pod.containers.len(), 1);
    let pod_spec = serde_json::to_value(&pod.object.spec).expect("encodes");
    assert_eq!(pod_spec["serviceAccountName"], "default");
    assert_eq!(pod_spec["enableServiceLinks"], true);
    assert_eq!(pod_spec["tolerations"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_valid_replica_set_gets_every_default() {
    let (rs, problems) = replica_set(REPLICA_SET);
    assert!(problems.is_empty(), "{problems:?}");
    let rs = rs.expect("valid");
    assert_eq!((rs.name.as_str(), rs.namespace.as_str()), ("web", "shop"));
    assert_eq!(rs.replicas, 1);
    assert_eq!(rs.min_ready_seconds, 5);
    assert_eq!(rs.selector, labels(&[("app", "web")]));
    assert_eq!(rs.template.labels, labels(&[("app", "web"), ("tier", "fe")]));
    assert_eq!(rs.template.annotations, labels(&[("team", "a")]));
    let pod = &rs.template.pod;
    assert_eq!((pod.name.as_str(), pod.namespace.as_str()), ("", "shop"));
    assert_eq!(pod.object.metadata.annotations, Some(labels(&[("team", "a")])));
    let spec = serde_json::to_value(&rs.object.spec).expect("encodes");
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["template"]["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Always");
    assert_eq!(serde_json::to_value(&rs.template.object).expect("encodes"), spec["template"]);
}

#[test]
fn pod_only_defaults_stay_off_the_template() {
    let extra = json!({
        "hostNetwork": true,
        "serviceAccountName": "robot",
        "containers": [{
            "name": "app", "image": "nginx",
            "ports": [{"containerPort": 8080}],
            "resources": {"limits": {"cpu": "1"}},
        }],
    });
    let text = web(template_spec(extra)).to_string();
    let (d, problems) = deployment(&text);
    assert!(problems.is_empty(), "{problems:?}");
    let d = d.expect("valid");
    let template = serde_json::to_value(&d.template.object.spec).expect("encodes");
    assert_eq!(template["containers"][0]["ports"], json!([{"containerPort": 8080, "protocol": "TCP"}]));
    assert_eq!(template["containers"][0]["resources"], json!({"limits": {"cpu": "1"}}));
    assert_eq!((&template["serviceAccountName"], &template["serviceAccount"]), (&json!("robot"), &json!("robot")));
    for field in ["enableServiceLinks", "priority", "preemptionPolicy", "tolerations"] {
        assert_eq!(template.get(field), None, "{field}");
    }
    let pod = serde_json::to_value(&d.template.pod.object.spec).expect("encodes");
    assert_eq!(pod["containers"][0]["ports"][0]["hostPort"], 8080);
    assert_eq!(pod["containers"][0]["resources"]["requests"], json!({"cpu": "1"}));
    assert_eq!(pod["priority"], 0);
}

// §1.2: validation, rule by rule.

#[test]
fn the_selector_is_required_and_must_select_the_template() {
    let mut d = web(json!({}));
    d["spec"].as_object_mut().expect("spec").remove("selector");
    check(
        d,
        &[
            "spec.selector: Required value",
            r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`"#,
        ],
    );
    check(
        web(json!({"selector": {}})),
        &[
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment",
        ],
    );
    let mut d = web(json!({"selector": {"matchLabels": {"app": "web", "tier": "fe"}}}));
    d["spec"]["template"]["metadata"]["labels"] = json!({"app": "web", "track": "stable"});
    check(
        d.clone(),
        &[
            r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"web", "track":"stable"}: `selector` does not match template `labels`"#,
        ],
    );
    d["spec"]["template"]["metadata"] = json!({});
    check(
        d,
        &[
            "spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`",
        ],
    );
    // the template's labels may have more than the selector asks
    let mut d = web(json!({}));
    d["spec"]["template"]["metadata"]["labels"] = json!({"app": "web", "track": "stable"});
    check(d, &[]);
}

#[test]
fn a_selector_that_does_not_parse_skips_the_template_check() {
    check(
        web(json!({"selector": {"matchLabels": {"app": "web!"}}})),
        &[
            &format!(r#"spec.selector.matchLabels: Invalid value: "web!": {LABEL_VALUE}"#),
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: web!,},MatchExpressions:[]LabelSelectorRequirement{},}: invalid label selector",
        ],
    );
    let expressions = json!([{"key": "tier", "operator": "Near", "values": ["a"]}, {"key": "track", "operator": "In"}]);
    check(
        web(json!({"selector": {"matchLabels": {"app": "web"}, "matchExpressions": expressions}})),
        &[
            r#"spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator"#,
            "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:Near,Values:[a],},LabelSelectorRequirement{Key:track,Operator:In,Values:[],},},}: invalid label selector",
            "spec.selector.matchExpressions: selector expressions are not simulated: the controllers select pods by matchLabels only",
        ],
    );
}

#[test]
fn selector_expressions_are_matched_then_refused() {
    let selector = json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]}]});
    let unsupported = "spec.selector.matchExpressions: selector expressions are not simulated: the controllers select pods by matchLabels only";
    check(
        web(json!({"selector": selector})),
        &[
            r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`"#,
            unsupported,
        ],
    );
    let mut d = web(json!({"selector": selector}));
    d["spec"]["template"]["metadata"]["labels"]["tier"] = json!("fe");
    check(d, &[unsupported]);
}

#[test]
fn template_labels_are_checked_under_their_odd_path() {
    let mut d = web(json!({}));
    d["spec"]["template"]["metadata"]["labels"]["bad key"] = json!("x");
    let got = problems(d);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with(r#"spec.template.labels: Invalid value: "bad key": name part must consist of"#),
        "{got:?}"
    );
    let mut d = web(json!({}));
    d["spec"]["template"]["metadata"]["annotations"] = json!({"bad key": "x"});
    let got = problems(d);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with(r#"spec.template.annotations: Invalid value: "bad key": name part must consist of"#),
        "{got:?}"
    );
}

#[test]
fn the_template_must_restart_always_and_have_no_deadline() {
    let spec = template_spec(json!({"restartPolicy": "Never", "activeDeadlineSeconds": 30}));
    let want = [
        r#"spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always""#,
        // "ReplicaSet" even for a Deployment
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
    ];
    check(web(spec.clone()), &want);
    check(web_rs(spec), &want);
    check(
        web(template_spec(json!({"activeDeadlineSeconds": 0}))),
        &[
            "spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
        ],
    );
    check(
        web(template_spec(json!({"ephemeralContainers": [{"name": "debug", "image": "busybox"}]}))),
        &["spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"],
    );
}

#[test]
fn counts_are_not_negative() {
    check(
        web(json!({"replicas": -1, "minReadySeconds": -1, "revisionHistoryLimit": -1, "progressDeadlineSeconds": -1})),
        &[
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
            "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
            "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
            "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than minReadySeconds",
        ],
    );
    check(
        web_rs(json!({"replicas": -2, "minReadySeconds": -3})),
        &[
            "spec.replicas: Invalid value: -2: must be greater than or equal to 0",
            "spec.minReadySeconds: Invalid value: -3: must be greater than or equal to 0",
        ],
    );
    // zero replicas and zero history are valid
    check(web(json!({"replicas": 0, "revisionHistoryLimit": 0})), &[]);
}

#[test]
fn the_progress_deadline_must_exceed_min_ready_seconds() {
    check(
        web(json!({"minReadySeconds": 10, "progressDeadlineSeconds": 10})),
        &["spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"],
    );
    // against the default of 600 too
    check(
        web(json!({"minReadySeconds": 600})),
        &["spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"],
    );
    check(web(json!({"minReadySeconds": 10, "progressDeadlineSeconds": 11})), &[]);
}

#[test]
fn strategies() {
    check(
        web(json!({"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}})),
        &["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    );
    check(
        web(json!({"strategy": {"type": "OnDelete"}})),
        &[&format!(
            r#"spec.strategy: Unsupported value: apps.DeploymentStrategy{{Type:"OnDelete", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}}: {STRATEGIES}"#
        )],
    );
    check(web(json!({"strategy": {"type": "Recreate"}})), &[]);
}

#[test]
fn rolling_update_values() {
    let rolling = |max_surge: Value, max_unavailable: Value| {
        web(json!({"strategy": {"rollingUpdate": {"maxSurge": max_surge, "maxUnavailable": max_unavailable}}}))
    };
    let path = "spec.strategy.rollingUpdate";
    check(
        rolling(json!(0), json!(0)),
        &[&format!("{path}.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0")],
    );
    check(
        rolling(json!("0%"), json!("0%")),
        &[&format!("{path}.maxUnavailable: Invalid value: 0%: may not be 0 when `maxSurge` is 0")],
    );
    // only maxUnavailable is bounded by 100%
    check(
        rolling(json!("150%"), json!("150%")),
        &[&format!("{path}.maxUnavailable: Invalid value: 150%: must not be greater than 100%")],
    );
    check(
        rolling(json!("abc"), json!(-1)),
        &[
            &format!("{path}.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"),
            &format!("{path}.maxSurge: Invalid value: abc: {PERCENT}"),
        ],
    );
    // a string that is not a percent counts as its number, or 0
    check(rolling(json!(0), json!("5")), &[&format!("{path}.maxUnavailable: Invalid value: 5: {PERCENT}")]);
    check(
        rolling(json!(0), json!("x%")),
        &[
            &format!("{path}.maxUnavailable: Invalid value: x%: {PERCENT}"),
            &format!("{path}.maxUnavailable: Invalid value: x%: may not be 0 when `maxSurge` is 0"),
        ],
    );
    check(rolling(json!(0), json!("100%")), &[]);
}

#[test]
fn metadata_and_the_name_warning() {
    let mut d = web(json!({}));
    d["metadata"] = json!({"name": "My_App", "namespace": "a.b", "labels": {"app": "web!"}});
    let got = problems(d);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].starts_with(r#"metadata.name: Invalid value: "My_App": a lowercase RFC 1123 subdomain"#), "{got:?}");
    assert_eq!(got[1], r#"metadata.namespace: Invalid value: "a.b": must not contain dots"#);
    assert_eq!(got[2], format!(r#"metadata.labels: Invalid value: "web!": {LABEL_VALUE}"#));
    let mut d = web_rs(json!({}));
    d["metadata"]["name"] = json!("web.v1");
    check(
        d,
        &[
            "-: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
        ],
    );
}

#[test]
fn a_replica_set_says_deployment_for_an_empty_selector() {
    // ValidateReplicaSetSpec copies the text of ValidateDeploymentSpec
    check(
        web_rs(json!({"selector": {"matchLabels": {}}})),
        &[
            "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment",
        ],
    );
}

// Locations, unknown and unsupported fields, the typed values.

#[test]
fn an_invalid_container_is_reported_under_the_template() {
    let text = DEPLOYMENT.replace("        image: nginx\n", "        livenessProbe: {periodSeconds: 5}\n");
    let (d, problems) = deployment(&text);
    assert!(d.is_none());
    assert_eq!(
        problems,
        [
            "deploy.yaml:13:9: spec.template.spec.containers[0].image: Required value",
            "deploy.yaml:14:24: spec.template.spec.containers[0].livenessProbe: Required value: must specify a handler type",
        ]
    );
}

#[test]
fn errors_name_their_line() {
    let text = DEPLOYMENT
        .replace("    matchLabels: {app: web}\n", "    matchLabels: {app: api}\n")
        .replace("spec:\n  selector", "spec:\n  minReadySeconds: 700\n  selector")
        .replace("      labels: {app: web}\n", "      labels: {app: web, \"a b\": c}\n");
    let (_, problems) = deployment(&text);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems[0].starts_with(
        r#"deploy.yaml:11:15: spec.template.metadata.labels: Invalid value: map[string]string{"a b":"c", "app":"web"}: `selector`"#
    ));
    assert!(
        problems[1].starts_with(r#"deploy.yaml:11:15: spec.template.labels: Invalid value: "a b": "#),
        "{problems:?}"
    );
    // the default deadline is not written: the nearest written parent
    assert_eq!(
        problems[2],
        "deploy.yaml:5:1: spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"
    );
}

#[test]
fn objects_in_a_list_are_located_through_their_prefix() {
    let item = DEPLOYMENT.replace("\n", "\n    ").replace("    matchLabels: {app: web}", "    matchLabels: {app: api}");
    let text = format!("apiVersion: v1\nkind: List\nitems:\n  - {}", item.trim_end());
    let d = doc(&text);
    let mut problems = Vec::new();
    let json = d.to_json()["items"][0].clone();
    assert!(read_deployment(&d, json, "items[0]", &mut problems).is_none());
    let got: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            r#"deploy.yaml:13:19: items[0].spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`"#
        ]
    );
}

#[test]
fn unknown_fields_are_errors() {
    let text = DEPLOYMENT
        .replace("spec:\n  selector", "spec:\n  replica: 3\n  selector")
        .replace("        image: nginx\n", "        image: nginx\n        imagePullPolcy: Always\n");
    let (d, problems) = deployment(&text);
    assert!(d.is_none());
    assert_eq!(
        problems,
        [
            r#"deploy.yaml:6:3: strict decoding error: unknown field "spec.replica""#,
            r#"deploy.yaml:16:9: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolcy""#,
        ]
    );
    let (rs, problems) = replica_set(&REPLICA_SET.replace("  minReadySeconds: 5\n", "  paused: true\n"));
    assert!(rs.is_none());
    assert_eq!(problems, [r#"deploy.yaml:7:3: strict decoding error: unknown field "spec.paused""#]);
}

#[test]
fn unsupported_fields() {
    let text = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: \"1\"}]
  finalizers: [example.com/keep]
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: Exists}]
  template:
    metadata:
      labels: {app: web, tier: fe}
      finalizers: [example.com/keep]
    spec:
      nodeSelector: {disk: ssd}
      schedulingGates: [{name: wait}]
      containers:
      - name: app
        image: \"nginx \"
status:
  replicas: 3
";
    let (d, problems) = deployment(text);
    assert!(d.is_none());
    assert_eq!(
        problems,
        [
            "deploy.yaml:5:20: metadata.ownerReferences: owner references are not simulated: the garbage collector would delete this object, whose owners do not exist",
            "deploy.yaml:6:15: metadata.finalizers: nothing in the simulation removes finalizers: once deleted, the object stays",
            "deploy.yaml:21:1: status: ignored: the API server resets status on create",
            "deploy.yaml:10:23: spec.selector.matchExpressions: selector expressions are not simulated: the controllers select pods by matchLabels only",
            "deploy.yaml:14:19: spec.template.metadata.finalizers: nothing in the simulation removes finalizers: once deleted and stopped, the pod object stays",
            "deploy.yaml:17:24: spec.template.spec.schedulingGates: scheduling gates are not simulated: the pod would never be scheduled",
            "deploy.yaml:16:21: spec.template.spec.nodeSelector: scheduling constraints are not modelled: the pod is placed as if it had none",
            r#"deploy.yaml:20:16: spec.template.spec.containers[0].image: every pod created from this template would be refused (Invalid value: "nginx ": must not have leading or trailing whitespace): failed pod creations are not simulated"#,
        ]
    );
    let text = REPLICA_SET.replace("  name: web\n", "  generateName: web-\n");
    let (rs, problems) = replica_set(&text);
    assert!(rs.is_none());
    assert_eq!(
        problems,
        ["deploy.yaml:4:17: metadata.generateName: podsim needs metadata.name; generateName is not supported"]
    );
}

#[test]
fn warnings_leave_the_object_readable() {
    let text = DEPLOYMENT
        .replace("  name: web\n", "  name: web.v1\n")
        .replace("    spec:\n      containers", "    spec:\n      affinity: {}\n      containers");
    let (d, problems) = deployment(&text);
    assert!(d.is_some());
    assert_eq!(
        problems,
        [
            "deploy.yaml:12:17: spec.template.spec.affinity: scheduling constraints are not modelled: the pod is placed as if it had none",
            "deploy.yaml:4:9: metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
        ]
    );
}

#[test]
fn strategy_values_are_typed() {
    let extra = json!({
        "replicas": 3, "paused": true, "minReadySeconds": 5, "revisionHistoryLimit": 0,
        "progressDeadlineSeconds": 2147483647,
        "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": "10%"}},
    });
    let (d, problems) = deployment(&web(extra).to_string());
    assert!(problems.is_empty(), "{problems:?}");
    let d = d.expect("valid");
    let want = Strategy::RollingUpdate { max_surge: IntOrPercent::Int(1), max_unavailable: IntOrPercent::Percent(10) };
    assert_eq!(d.strategy, want);
    assert_eq!((d.replicas, d.min_ready_seconds, d.revision_history_limit), (3, 5, 0));
    // math.MaxInt32: no deadline
    assert_eq!(d.progress_deadline_seconds, None);
    assert!(d.paused);
    let (d, _) = deployment(&web(json!({"strategy": {"type": "Recreate"}, "progressDeadlineSeconds": 30})).to_string());
    let d = d.expect("valid");
    assert_eq!(d.strategy, Strategy::Recreate);
    assert_eq!(d.progress_deadline_seconds, Some(30));
    let spec = serde_json::to_value(&d.object.spec).expect("encodes");
    assert_eq!(spec["strategy"], json!({"type": "Recreate"}));
    let rolling = json!({"strategy": {"rollingUpdate": {"maxSurge": "200%", "maxUnavailable": 0}}});
    let (d, _) = deployment(&web(rolling).to_string());
    let want = Strategy::RollingUpdate { max_surge: IntOrPercent::Percent(200), max_unavailable: IntOrPercent::Int(0) };
    assert_eq!(d.expect("valid").strategy, want);
}
