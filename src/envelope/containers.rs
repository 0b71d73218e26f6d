//! The recorded containers the scenario's app file does not describe. A
//! container without a behaviour runs podsim's default app (it runs until
//! killed): a recording of a crash loop simulated so never exits. When one
//! recorded container and one described container are left unmatched by
//! name, the one is simulated with the other's behaviour; otherwise each
//! runs the default app. Either way a warning names them and the app file.

use super::timings::PodTimings;
use crate::app::Behaviours;
use k8s_openapi::api::core::v1::PodSpec;

/// A recorded container simulated under another name (the app file's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rename {
    pub recorded: String,
    pub described: String,
}

fn names(spec: &PodSpec) -> Vec<&str> {
    let init = spec.init_containers.iter().flatten();
    init.chain(&spec.containers).map(|c| c.name.as_str()).collect()
}

/// The rename, if any, and the warning, for a recorded spec.
pub fn undescribed(spec: &PodSpec, behaviours: &Behaviours) -> (Option<Rename>, Option<String>) {
    // Without an app file every container runs the default app, as the scenario means.
    let Some(app) = behaviours.origin.as_ref().map(|d| d.file.name.clone()) else { return (None, None) };
    let recorded = names(spec);
    let described: Vec<&str> = behaviours.container_names().collect();
    let missing: Vec<&str> = recorded.iter().copied().filter(|n| !described.contains(n)).collect();
    let unused: Vec<&str> = described.iter().copied().filter(|n| !recorded.contains(n)).collect();
    let quote = |list: &[&str]| list.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    match (&missing[..], &unused[..]) {
        ([], _) => (None, None),
        ([one], [other]) => (
            Some(Rename { recorded: one.to_string(), described: other.to_string() }),
            Some(format!(
                "the app file {app} describes no container `{one}`, and `{other}` is the one container it describes \
                 that the recorded spec lacks: `{one}` is simulated with `{other}`'s behaviour"
            )),
        ),
        _ => {
            let (which, run) = match &missing[..] {
                [one] => (format!("no container `{one}`"), "it runs"),
                _ => (format!("none of its containers {}", quote(&missing)), "they run"),
            };
            let described = if described.is_empty() { "none".to_string() } else { quote(&described) };
            let why = format!(
                "the app file {app} describes {which} (it describes {described}): {run} podsim's default app, which \
                 runs until killed"
            );
            (None, Some(why))
        }
    }
}

impl Rename {
    /// The spec with the recorded container under the described name.
    pub fn spec(&self, mut spec: PodSpec) -> PodSpec {
        let init = spec.init_containers.iter_mut().flatten();
        for c in init.chain(spec.containers.iter_mut()).filter(|c| c.name == self.recorded) {
            c.name = self.described.clone();
        }
        spec
    }

    /// A run's timings with the described container's named as the recorded one.
    pub fn timings(&self, t: &PodTimings) -> PodTimings {
        let prefix = format!("{} ", self.described);
        let mut out = t.clone();
        out.moments = t
            .moments
            .iter()
            .map(|(name, v)| match name.strip_prefix(&prefix) {
                Some(rest) => (format!("{} {rest}", self.recorded), v.clone()),
                None => (name.clone(), v.clone()),
            })
            .collect();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;
    use std::sync::Arc;

    fn behaviours(names: &[&str]) -> Behaviours {
        let text: String = names.iter().map(|n| format!("  {n}:\n    exit: {{after: 1s, code: 1}}\n")).collect();
        Behaviours::load(&Arc::new(SourceFile { name: "app.yaml".into(), text: format!("containers:\n{text}") }))
            .unwrap()
    }

    fn spec(names: &[&str]) -> PodSpec {
        let containers: Vec<serde_json::Value> =
            names.iter().map(|n| serde_json::json!({"name": n, "image": "busybox"})).collect();
        serde_json::from_value(serde_json::json!({ "containers": containers })).unwrap()
    }

    /// Trace 001's container `main` against an app file that describes `app`.
    #[test]
    fn one_undescribed_container_takes_the_one_unused_behaviour() {
        let (rename, warning) = undescribed(&spec(&["main"]), &behaviours(&["app"]));
        let rename = rename.unwrap();
        assert_eq!(rename, Rename { recorded: "main".into(), described: "app".into() });
        assert_eq!(
            warning.unwrap(),
            "the app file app.yaml describes no container `main`, and `app` is the one container it describes that \
             the recorded spec lacks: `main` is simulated with `app`'s behaviour"
        );
        assert_eq!(rename.spec(spec(&["main"])).containers[0].name, "app");
    }

    #[test]
    fn several_undescribed_containers_run_the_default_app() {
        let (rename, warning) = undescribed(&spec(&["web", "proxy"]), &behaviours(&["app", "side"]));
        assert_eq!(rename, None);
        assert_eq!(
            warning.unwrap(),
            "the app file app.yaml describes none of its containers `web`, `proxy` (it describes `app`, `side`): they \
             run podsim's default app, which runs until killed"
        );
        let (_, one) = undescribed(&spec(&["app", "main"]), &behaviours(&["app"]));
        assert_eq!(
            one.unwrap(),
            "the app file app.yaml describes no container `main` (it describes `app`): it runs podsim's default app, \
             which runs until killed"
        );
        // Described by name: nothing to say.
        assert_eq!(undescribed(&spec(&["app"]), &behaviours(&["app", "side"])), (None, None));
        assert_eq!(undescribed(&spec(&["main"]), &Behaviours::default()), (None, None));
    }
}
