//! What the image registry answers for each image: a profile's (or a
//! scenario's) `registry:` section. An image it does not name exists.

use crate::kubelet::images::normalize;
use serde::Deserialize;
use std::collections::BTreeMap;

/// What a pull of an image gets from its registry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Answer {
    Exists,
    /// No such repository or tag.
    NotFound,
    /// A private image: pulled only with credentials, an `imagePullSecrets`
    /// entry naming a Secret that exists.
    Unauthorized,
}

/// `registry:` as written: `{images: {"nginx:1.2x": notFound, "corp/app:1": unauthorized}}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryFile {
    #[serde(default)]
    pub images: BTreeMap<String, Answer>,
}

/// The registry's answers, by the runtime's normalized image name.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    answers: BTreeMap<String, Answer>,
}

impl Registry {
    pub fn new(file: &RegistryFile) -> Registry {
        Registry { answers: file.images.iter().map(|(image, a)| (normalize(image), *a)).collect() }
    }

    /// The answer for `image` as a container names it (`nginx` and
    /// `docker.io/library/nginx:latest` are the same image).
    pub fn answer(&self, image: &str) -> Answer {
        self.answers.get(&normalize(image)).copied().unwrap_or(Answer::Exists)
    }

    /// `other`'s answers over these (a scenario's over its profile's).
    pub fn overridden_by(&self, other: &RegistryFile) -> Registry {
        let mut answers = self.answers.clone();
        answers.extend(Registry::new(other).answers);
        Registry { answers }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_matched_as_the_runtime_names_them() {
        let file: RegistryFile = serde_json::from_value(
            serde_json::json!({"images": {"nginx:1.2x": "notFound", "corp.example.com/app:1": "unauthorized"}}),
        )
        .expect("a registry");
        let r = Registry::new(&file);
        assert_eq!(r.answer("docker.io/library/nginx:1.2x"), Answer::NotFound);
        assert_eq!(r.answer("nginx:1.2x"), Answer::NotFound);
        assert_eq!(r.answer("nginx:1.27"), Answer::Exists);
        assert_eq!(r.answer("corp.example.com/app:1"), Answer::Unauthorized);
        let scenario: RegistryFile =
            serde_json::from_value(serde_json::json!({"images": {"nginx:1.2x": "exists"}})).expect("a registry");
        assert_eq!(r.overridden_by(&scenario).answer("nginx:1.2x"), Answer::Exists);
    }
}
