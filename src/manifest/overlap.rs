//! Controllers whose selectors overlap. The API server accepts them; the
//! Deployment docs warn that "if multiple controllers have overlapping
//! selectors those controllers might conflict and behave unexpectedly".
//! Since controller references (controller_ref_manager.go `ClaimObject`)
//! each controller keeps what names it as controller and ignores the rest,
//! so two controllers no longer take each other's pods; what is left is a
//! race for every orphan both select, won by whichever syncs first, and
//! pods that `kubectl get -l` and Services see as one set. podsim warns at
//! load, naming both objects and where they are written.
//!
//! Two controllers overlap when one's selector matches the labels of the
//! pods the other creates (its template's), or both select a bare Pod of the
//! manifests. A Deployment whose selector matches a bare ReplicaSet's labels
//! is not warned about: it adopts that ReplicaSet (`ClaimReplicaSets`), whose
//! pods become its own.

use super::Manifests;
use crate::control::controller_ref::selects;
use crate::error::Problem;
use std::collections::BTreeMap;

type Labels = BTreeMap<String, String>;

/// A Deployment or ReplicaSet, with where it is written.
struct Controller<'a> {
    kind: &'static str,
    name: &'a str,
    namespace: &'a str,
    selector: &'a Labels,
    /// The object's own labels (what a Deployment's selector adopts by).
    labels: &'a Labels,
    /// Its pod template's labels.
    template: &'a Labels,
    manifests: &'a Manifests,
    index: usize,
}

impl Controller<'_> {
    fn id(&self) -> String {
        format!("{}/{}", self.kind.to_lowercase(), self.name)
    }

    fn problem(&self, message: String) -> Problem {
        match self.kind {
            "Deployment" => self.manifests.deployment_problem(self.index, "spec.selector", message),
            _ => self.manifests.replica_set_problem(self.index, "spec.selector", message),
        }
    }

    /// `file:line` of its selector.
    fn at(&self) -> String {
        let p = self.problem(String::new());
        let file = p.file.as_ref().map_or("", |f| f.name.as_str());
        let line = p.position.map_or(0, |p| p.line);
        format!("{file}:{line}")
    }

    /// The other is a bare ReplicaSet this Deployment adopts.
    fn adopts(&self, other: &Controller<'_>) -> bool {
        self.kind == "Deployment" && other.kind == "ReplicaSet" && selects(self.selector, other.labels)
    }
}

/// `app=web,tier=front`, as kubectl prints a selector.
fn shown(selector: &Labels) -> String {
    selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// Every overlap between the controllers of `sets` (the manifests, then each
/// `apply` file), one warning per pair, located at the first one's selector.
/// A Deployment written again under the same name (an `apply` of a new
/// spec) is the same object.
pub fn overlap_warnings(sets: &[&Manifests]) -> Vec<Problem> {
    let mut controllers: Vec<Controller<'_>> = Vec::new();
    for m in sets {
        for (index, d) in m.deployments.iter().enumerate() {
            let same = |c: &Controller<'_>| c.kind == "Deployment" && c.name == d.name && c.namespace == d.namespace;
            if !controllers.iter().any(same) {
                controllers.push(Controller {
                    kind: "Deployment",
                    name: &d.name,
                    namespace: &d.namespace,
                    selector: &d.selector,
                    labels: &d.labels,
                    template: &d.template.labels,
                    manifests: m,
                    index,
                });
            }
        }
        for (index, r) in m.replica_sets.iter().enumerate() {
            controllers.push(Controller {
                kind: "ReplicaSet",
                name: &r.name,
                namespace: &r.namespace,
                selector: &r.selector,
                labels: &r.labels,
                template: &r.template.labels,
                manifests: m,
                index,
            });
        }
    }
    let pods: Vec<(&str, &str, &Labels)> =
        sets.iter().flat_map(|m| m.pods.iter()).map(|p| (p.name.as_str(), p.namespace.as_str(), &p.labels)).collect();
    let mut out = Vec::new();
    for (i, a) in controllers.iter().enumerate() {
        for b in &controllers[i + 1..] {
            if a.namespace != b.namespace || a.adopts(b) || b.adopts(a) {
                continue;
            }
            let why = if selects(a.selector, b.template) {
                format!("its selector {} matches the pod template labels of {}", shown(a.selector), b.id())
            } else if selects(b.selector, a.template) {
                format!("the selector {} of {} matches its pod template labels", shown(b.selector), b.id())
            } else if let Some((pod, _, _)) =
                pods.iter().find(|(_, ns, l)| *ns == a.namespace && selects(a.selector, l) && selects(b.selector, l))
            {
                format!("both select pod/{pod}, and whichever syncs first adopts it")
            } else {
                continue;
            };
            let why = match (a.kind, b.kind) {
                ("Deployment", "ReplicaSet") => {
                    format!("{why}; {} does not adopt {}, whose own labels its selector does not match", a.id(), b.id())
                }
                ("ReplicaSet", "Deployment") => {
                    format!("{why}; {} does not adopt {}, whose own labels its selector does not match", b.id(), a.id())
                }
                _ => why,
            };
            let message = format!(
                "{} overlaps {} ({}): {why}. Kubernetes accepts overlapping selectors; each controller keeps \
                 the objects whose controller reference names it and ignores the other's, and an orphan both \
                 select goes to whichever syncs first",
                a.id(),
                b.id(),
                b.at()
            );
            out.push(a.problem(message).warn());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;
    use std::sync::Arc;

    fn load(name: &str, text: &str) -> Manifests {
        Manifests::load(&[Arc::new(SourceFile { name: name.into(), text: text.into() })]).unwrap()
    }

    fn deployment(name: &str, selector: &str, labels: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  selector: {{matchLabels: {selector}}}\n  template:\n    metadata: {{labels: {labels}}}\n    spec: {{containers: [{{name: web, image: nginx}}]}}\n"
        )
    }

    fn replica_set(name: &str, selector: &str, labels: &str) -> String {
        deployment(name, selector, labels).replace("kind: Deployment", "kind: ReplicaSet")
    }

    #[test]
    fn two_deployments_selecting_each_others_pods_are_named_with_their_lines() {
        let text = [deployment("a", "{app: web}", "{app: web}"), deployment("b", "{app: web}", "{app: web, v: '2'}")]
            .join("---\n");
        let warnings = overlap_warnings(&[&load("web.yaml", &text)]);
        assert_eq!(warnings.len(), 1);
        let w = warnings[0].to_string();
        // a's selector is on line 5, b's on line 14 (8 lines a document, then `---`).
        assert!(w.starts_with("web.yaml:5:"), "{w}");
        assert!(
            w.contains("deployment/a overlaps deployment/b (web.yaml:14): its selector app=web matches the pod template labels of deployment/b"),
            "{w}"
        );
    }

    #[test]
    fn disjoint_selectors_and_an_adopted_replica_set_are_no_overlap() {
        let disjoint = [deployment("a", "{app: web}", "{app: web}"), deployment("b", "{app: api}", "{app: api}")];
        assert!(overlap_warnings(&[&load("x.yaml", &disjoint.join("---\n"))]).is_empty());
        // The Deployment adopts a bare ReplicaSet whose labels its selector
        // matches: no warning, whichever file brings it.
        let labelled =
            replica_set("web", "{app: web}", "{app: web}").replace("{name: web}", "{name: web, labels: {app: web}}");
        let d = deployment("web", "{app: web}", "{app: web}");
        assert!(overlap_warnings(&[&load("rs.yaml", &labelled), &load("d.yaml", &d)]).is_empty());
        // Without labels (apps/v1 does not default them from the template)
        // it is not adopted, and both create pods the other's selector matches.
        let bare = replica_set("web", "{app: web}", "{app: web}");
        let w = overlap_warnings(&[&load("rs.yaml", &bare), &load("d.yaml", &d)]);
        assert_eq!(w.len(), 1);
        let w = w[0].to_string();
        assert!(w.starts_with("rs.yaml:5:13: spec.selector: replicaset/web overlaps deployment/web (d.yaml:5)"), "{w}");
        assert!(
            w.contains("deployment/web does not adopt replicaset/web, whose own labels its selector does not match")
        );
        // The same Deployment applied again is one object.
        let again = deployment("a", "{app: web}", "{app: web, v: '2'}");
        assert!(overlap_warnings(&[&load("a.yaml", &disjoint[0]), &load("a2.yaml", &again)]).is_empty());
    }

    #[test]
    fn two_replica_sets_race_for_a_bare_pod() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: solo, labels: {app: web, tier: a, v: b}}\nspec: {containers: [{name: web, image: nginx}]}\n";
        let text = [replica_set("a", "{tier: a}", "{tier: a}"), replica_set("b", "{v: b}", "{v: b}"), pod.into()]
            .join("---\n");
        let warnings = overlap_warnings(&[&load("x.yaml", &text)]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].to_string().contains("replicaset/a overlaps replicaset/b (x.yaml:14): both select pod/solo")
        );
    }
}
