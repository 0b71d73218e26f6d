//! `kubectl patch pod NAME -p '{"spec":{…}}'`: a strategic merge patch of the
//! fields of a running pod's spec that podsim simulates changing —
//! `activeDeadlineSeconds` and a container's `image` (containers merge by
//! `name`). The API server validates the patched pod (`ValidatePodUpdate`),
//! stores it with the next `metadata.generation` (`updatePodGeneration`), and
//! the kubelet learns it through its watch.

use super::ApiServer;
use super::store::{Change, Precondition};
use crate::ids::PodId;
use crate::manifest::field::FieldError;
use crate::manifest::validate_pod_update;
use crate::spec::PodSpec;
use crate::time::SimTime;
use crate::trace::Trace;
use serde_json::{Value, json};
use std::sync::Arc;

/// The fields a pod patch sets, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodPatch {
    /// `activeDeadlineSeconds`: `Some(None)` is `null` (remove it).
    pub active_deadline_seconds: Option<Option<i64>>,
    /// Each container's new image, in the patch's order.
    pub images: Vec<ImagePatch>,
}

/// `{"name": C, "image": I}` in `containers` (or `initContainers` when `init`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImagePatch {
    pub init: bool,
    pub container: String,
    pub image: String,
}

/// What podsim's patch changes; other fields are refused when the patch is read.
const SUPPORTED: &str = "podsim's patch changes spec.activeDeadlineSeconds and the image of spec.containers[*] \
     or spec.initContainers[*] (the API server allows few other changes to a pod: \
     \"pod updates may not change fields other than …\")";

/// A pod's labels and annotations may change (ValidatePodUpdate checks only
/// the spec), but what follows is not simulated.
const METADATA: &str = "podsim's patch changes only the pod's spec: a cluster accepts new labels and annotations, \
     and a ReplicaSet whose selector no longer matches releases the pod and creates a replacement (ClaimPods), \
     which podsim does not simulate";

impl PodPatch {
    /// Reads the value of the patch's `spec`; an error is (path under `spec`, message).
    pub fn from_spec(spec: &Value) -> Result<PodPatch, (String, String)> {
        let Value::Object(fields) = spec else {
            return Err((String::new(), "a pod patch's spec is a mapping, e.g. {activeDeadlineSeconds: 30}".into()));
        };
        let mut patch = PodPatch::default();
        for (key, value) in fields {
            match key.as_str() {
                "activeDeadlineSeconds" => {
                    let seconds = match value {
                        Value::Null => None,
                        Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
                        _ => {
                            let message = "activeDeadlineSeconds is whole seconds (an integer), or null to remove it";
                            return Err((key.clone(), message.into()));
                        }
                    };
                    patch.active_deadline_seconds = Some(seconds);
                }
                "containers" | "initContainers" => {
                    let Value::Array(items) = value else {
                        return Err((key.clone(), format!("{key} is a list of {{name, image}}")));
                    };
                    for (i, item) in items.iter().enumerate() {
                        patch.images.push(image_patch(key == "initContainers", item, &format!("{key}[{i}]"))?);
                    }
                }
                _ => return Err((key.clone(), SUPPORTED.into())),
            }
        }
        // An empty patch is sent and answered as any other: kubectl prints "(no change)".
        Ok(patch)
    }

    /// Reads `{"spec": {…}}`, as `kubectl patch -p` takes it.
    pub fn from_json(text: &str) -> Result<PodPatch, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("{text}: not JSON ({e})"))?;
        let Value::Object(top) = &value else { return Err(format!("{text}: a patch is a JSON object")) };
        if top.contains_key("metadata") {
            return Err(format!("\"metadata\": {METADATA}"));
        }
        if let Some(key) = top.keys().find(|k| *k != "spec") {
            return Err(format!("{key:?}: {SUPPORTED}"));
        }
        let spec = top.get("spec").ok_or_else(|| format!("{text}: expected {{\"spec\":{{…}}}}"))?;
        PodPatch::from_spec(spec).map_err(|(path, message)| match path.is_empty() {
            true => message,
            false => format!("spec.{path}: {message}"),
        })
    }

    /// The patch as `kubectl patch -p` would be given it: the deadline, then
    /// the containers and init containers, each entry's name first.
    pub fn to_json(&self) -> String {
        let mut fields = Vec::new();
        if let Some(d) = self.active_deadline_seconds {
            fields.push(format!("\"activeDeadlineSeconds\":{}", json!(d)));
        }
        for (key, init) in [("containers", false), ("initContainers", true)] {
            let list: Vec<String> = self
                .images
                .iter()
                .filter(|p| p.init == init)
                .map(|p| format!("{{\"name\":{},\"image\":{}}}", json!(p.container), json!(p.image)))
                .collect();
            if !list.is_empty() {
                fields.push(format!("\"{key}\":[{}]", list.join(",")));
            }
        }
        format!("{{\"spec\":{{{}}}}}", fields.join(","))
    }

    /// The pod's spec with the patch applied (names the patch gives exist:
    /// the run's setup checked them).
    pub fn apply(&self, old: &PodSpec) -> PodSpec {
        let mut new = old.clone();
        let object = new.object.spec.get_or_insert_with(Default::default);
        if let Some(d) = self.active_deadline_seconds {
            new.active_deadline_seconds = d;
            object.active_deadline_seconds = d;
        }
        for p in &self.images {
            let list =
                if p.init { object.init_containers.get_or_insert_with(Vec::new) } else { &mut object.containers };
            if let Some(c) = list.iter_mut().find(|c| c.name == p.container) {
                c.image = Some(p.image.clone());
            }
            if let Some(c) = new.containers.iter_mut().find(|c| *c.name == *p.container && c.role.is_init() == p.init) {
                c.image = p.image.clone();
            }
        }
        new
    }

    /// The entries naming a container `spec` lacks.
    fn missing<'a>(&'a self, spec: &'a PodSpec) -> impl Iterator<Item = &'a ImagePatch> {
        self.images
            .iter()
            .filter(|p| !spec.containers.iter().any(|c| c.role.is_init() == p.init && *c.name == *p.container))
    }

    /// The list that lacks a container an entry names, in `ValidatePodUpdate`'s
    /// order (`spec.containers`, then `spec.initContainers`).
    fn lacking_list(&self, spec: &PodSpec) -> Option<&'static str> {
        let init = self.missing(spec).map(|p| p.init).min()?;
        Some(if init { "spec.initContainers" } else { "spec.containers" })
    }

    /// The container a patch entry names is missing from `spec`: the message
    /// for the run's setup.
    pub fn unknown_container(&self, spec: &PodSpec) -> Option<String> {
        let p = self.missing(spec).next()?;
        let list: Vec<&str> = spec.containers.iter().filter(|c| c.role.is_init() == p.init).map(|c| &*c.name).collect();
        let (what, field) = if p.init { ("init container", "initContainers") } else { ("container", "containers") };
        let known = match list.is_empty() {
            true => format!("it has no spec.{field}"),
            false => format!("spec.{field}: {}", list.join(", ")),
        };
        Some(format!(
            "pod {:?} has no {what} {:?} ({known}): the merged list would gain a container, which the API server refuses (\"pod updates may not add or remove containers\")",
            spec.name, p.container,
        ))
    }
}

fn image_patch(init: bool, item: &Value, path: &str) -> Result<ImagePatch, (String, String)> {
    let Value::Object(fields) = item else {
        return Err((path.into(), "a container entry is {name: NAME, image: IMAGE}".into()));
    };
    let text = |key: &str| match fields.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err((format!("{path}.{key}"), format!("{key} is a string"))),
        // Strategic merge finds list entries by their merge key.
        None if key == "name" => Err((path.into(), "the entry has no name: containers merge by name".into())),
        None => Err((path.into(), "the entry has no image: podsim's patch changes a container's image".into())),
    };
    if let Some(key) = fields.keys().find(|k| *k != "name" && *k != "image") {
        return Err((format!("{path}.{key}"), SUPPORTED.into()));
    }
    Ok(ImagePatch { init, container: text("name")?, image: text("image")? })
}

/// A patch the API server refused: kubectl's `The Pod "NAME" is invalid: …`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub pod: String,
    pub errors: Vec<FieldError>,
}

impl std::fmt::Display for Invalid {
    /// The API server's Status message (`NewInvalid`: `%s %q is invalid: %v`
    /// of the aggregate, whose `Error()` drops repeated messages and writes
    /// one as it is and several as `[a, b]`); kubectl's MultilineError
    /// prints several one per line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut causes: Vec<String> = Vec::new();
        for e in &self.errors {
            let message = e.to_string();
            if !causes.contains(&message) {
                causes.push(message);
            }
        }
        match causes.as_slice() {
            [one] => write!(f, "The Pod {:?} is invalid: {one}", self.pod),
            _ => write!(f, "The Pod {:?} is invalid: [{}]", self.pod, causes.join(", ")),
        }
    }
}

impl ApiServer {
    /// `PATCH`'s checks: the spec the patch gives, `None` when it changes
    /// nothing (kubectl: "patched (no change)"), or the validation errors.
    pub fn patched_spec(&self, id: PodId, patch: &PodPatch) -> Result<Option<PodSpec>, Invalid> {
        let old = &self.pods.get(id).spec;
        // An entry for a container the pod lacks adds one to the merged list
        // (`ValidateContainerUpdates` stops there).
        if let Some(field) = patch.lacking_list(old) {
            let errors = vec![FieldError::forbidden(field, "pod updates may not add or remove containers")];
            return Err(Invalid { pod: old.name.clone(), errors });
        }
        let new = patch.apply(old);
        if new.object == old.object {
            return Ok(None);
        }
        let errors = validate_pod_update(&old.object, &new.object);
        if !errors.is_empty() {
            return Err(Invalid { pod: old.name.clone(), errors });
        }
        Ok(Some(new))
    }

    /// Stores a patched spec: the next generation, a MODIFIED event.
    pub fn store_spec(&mut self, id: PodId, spec: PodSpec, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.pods.write(id, Precondition::None, c, |p| {
            p.spec = Arc::new(spec);
            Change::NewGeneration
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kubectls_patch() {
        let p = PodPatch::from_json(r#"{"spec":{"activeDeadlineSeconds":30}}"#).unwrap();
        assert_eq!(p.active_deadline_seconds, Some(Some(30)));
        let p = PodPatch::from_json(r#"{"spec":{"activeDeadlineSeconds":null}}"#).unwrap();
        assert_eq!(p.active_deadline_seconds, Some(None));
        let p = PodPatch::from_json(r#"{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}"#).unwrap();
        assert_eq!(p.images, vec![ImagePatch { init: false, container: "app".into(), image: "busybox:1.37".into() }]);
        assert_eq!(p.to_json(), r#"{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}"#);
        let text = r#"{"spec":{"activeDeadlineSeconds":null,"containers":[{"name":"a","image":"x"}],"initContainers":[{"name":"b","image":"y"}]}}"#;
        assert_eq!(PodPatch::from_json(text).unwrap().to_json(), text);
    }

    /// `aggregate.Error()`: repeated messages once; one left, no brackets.
    #[test]
    fn invalid_is_written_as_the_aggregate_writes_it() {
        let e = |detail: &str| FieldError::invalid("spec.activeDeadlineSeconds", -5, detail);
        let invalid = |errors| Invalid { pod: "web".into(), errors }.to_string();
        let one = r#"The Pod "web" is invalid: spec.activeDeadlineSeconds: Invalid value: -5: a"#;
        assert_eq!(invalid(vec![e("a"), e("a")]), one);
        assert_eq!(
            invalid(vec![e("a"), e("b"), e("a")]),
            r#"The Pod "web" is invalid: [spec.activeDeadlineSeconds: Invalid value: -5: a, spec.activeDeadlineSeconds: Invalid value: -5: b]"#
        );
    }

    #[test]
    fn refuses_what_it_does_not_simulate() {
        let e = PodPatch::from_json(r#"{"spec":{"restartPolicy":"Never"}}"#).unwrap_err();
        assert!(e.starts_with("spec.restartPolicy: podsim's patch changes"), "{e}");
        let e = PodPatch::from_json(r#"{"metadata":{"labels":{"a":"b"}}}"#).unwrap_err();
        assert!(e.starts_with("\"metadata\": podsim's patch changes only the pod's spec"), "{e}");
        assert!(e.contains("releases the pod and creates a replacement (ClaimPods)"), "{e}");
        let e = PodPatch::from_json(r#"{"spec":{"containers":[{"image":"x"}]}}"#).unwrap_err();
        assert!(e.contains("merge by name"), "{e}");
        let e = PodPatch::from_json(r#"{"spec":{"containers":[{"name":"app","ports":[]}]}}"#).unwrap_err();
        assert!(e.starts_with("spec.containers[0].ports"), "{e}");
        let e = PodPatch::from_json(r#"{"spec":{"activeDeadlineSeconds":"30s"}}"#).unwrap_err();
        assert!(e.contains("whole seconds"), "{e}");
        assert_eq!(PodPatch::from_json(r#"{"spec":{}}"#), Ok(PodPatch::default()));
        assert!(PodPatch::from_json("{spec").unwrap_err().contains("not JSON"));
    }
}
