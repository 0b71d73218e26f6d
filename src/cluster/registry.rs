//! What the image registry answers for each image: a profile's (or a
//! scenario's) `registry:` section. An image it does not name exists.

use crate::kubelet::images::normalize;
use crate::time::SimDuration;
use serde::Deserialize;
use std::collections::BTreeMap;

/// What a pull of an image gets from its registry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Exists,
    /// No such repository or tag.
    NotFound,
    /// A private image: pulled only with credentials, an `imagePullSecrets`
    /// entry naming a Secret that exists.
    Unauthorized,
}

/// One image's entry: an answer (`notFound`), or an image that exists
/// with its size (`{size: 4GB}`: what its pull downloads).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub enum ImageEntry {
    Answer(Answer),
    Sized { size: String },
}

impl TryFrom<serde_json::Value> for ImageEntry {
    type Error = String;

    fn try_from(v: serde_json::Value) -> Result<ImageEntry, String> {
        use serde_json::Value;
        let expected = "expected `exists`, `notFound`, `unauthorized` or `{size: 4GB}`";
        match v {
            Value::String(s) => match s.as_str() {
                "exists" => Ok(ImageEntry::Answer(Answer::Exists)),
                "notFound" => Ok(ImageEntry::Answer(Answer::NotFound)),
                "unauthorized" => Ok(ImageEntry::Answer(Answer::Unauthorized)),
                other => Err(format!("unknown answer {other:?}: {expected}")),
            },
            Value::Object(m) => match (m.get("size").and_then(Value::as_str), m.keys().find(|k| *k != "size")) {
                (_, Some(k)) => Err(format!("unknown field `{k}`: {expected}")),
                (Some(size), None) => Ok(ImageEntry::Sized { size: size.to_string() }),
                (None, None) => Err(format!("size: Required value: {expected}")),
            },
            other => Err(format!("{other}: {expected}")),
        }
    }
}

/// `registry:` as written: `{images: {"nginx:1.2x": notFound, "big/model:3":
/// {size: 4GB}}, bandwidth: 50MB/s}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryFile {
    #[serde(default)]
    pub images: BTreeMap<String, ImageEntry>,
    /// What one pull downloads per second: `50MB/s`.
    #[serde(default)]
    pub bandwidth: Option<String>,
}

/// The registry's answers, by the runtime's normalized image name.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    answers: BTreeMap<String, Answer>,
    /// Sizes in bytes of the images given one.
    sizes: BTreeMap<String, u64>,
    /// Bytes per second.
    bandwidth: Option<u64>,
}

/// `4GB` (10^9), `4GiB` or `4Gi` (2^30), `512MB`, `100kB`, `10B`: bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| format!("{text:?}: expected a number and a unit, e.g. 4GB"))?;
    let factor: f64 = match unit.trim() {
        "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" | "Ki" => 1024.0,
        "MiB" | "Mi" => 1024.0 * 1024.0,
        "GiB" | "Gi" => 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("{text:?}: unknown unit {other:?} (use B, kB, MB, GB, KiB, MiB or GiB)")),
    };
    Ok((value * factor).round() as u64)
}

impl Registry {
    /// The registry a file describes, or the problems of its fields.
    pub fn new(file: &RegistryFile) -> Result<Registry, Vec<(String, String)>> {
        let mut r = Registry::default();
        r.apply(file)?;
        Ok(r)
    }

    fn apply(&mut self, file: &RegistryFile) -> Result<(), Vec<(String, String)>> {
        let mut problems = Vec::new();
        if let Some(b) = &file.bandwidth {
            match b.strip_suffix("/s").map(parse_bytes) {
                Some(Ok(n)) if n > 0 => self.bandwidth = Some(n),
                Some(Ok(_)) => problems.push(("registry.bandwidth".into(), "must be more than 0".into())),
                Some(Err(e)) => problems.push(("registry.bandwidth".into(), e)),
                None => problems.push(("registry.bandwidth".into(), format!("{b:?}: a rate, e.g. 50MB/s"))),
            }
        }
        for (image, entry) in &file.images {
            let name = normalize(image);
            match entry {
                ImageEntry::Answer(a) => {
                    self.answers.insert(name.clone(), *a);
                    self.sizes.remove(&name);
                }
                ImageEntry::Sized { size } => match parse_bytes(size) {
                    Ok(n) => {
                        self.answers.insert(name.clone(), Answer::Exists);
                        self.sizes.insert(name, n);
                    }
                    Err(e) => problems.push((format!("registry.images[{image:?}].size"), e)),
                },
            }
        }
        if !self.sizes.is_empty() && self.bandwidth.is_none() {
            problems.push((
                "registry.bandwidth".into(),
                "Required value: an image with a size is pulled at the registry's bandwidth".into(),
            ));
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(problems),
        }
    }

    /// The answer for `image` as a container names it (`nginx` and
    /// `docker.io/library/nginx:latest` are the same image).
    pub fn answer(&self, image: &str) -> Answer {
        self.answers.get(&normalize(image)).copied().unwrap_or(Answer::Exists)
    }

    /// An image with a size: its size in bytes and how long downloading it takes.
    pub fn download(&self, image: &str) -> Option<(u64, SimDuration)> {
        let size = *self.sizes.get(&normalize(image))?;
        let bandwidth = self.bandwidth?;
        Some((size, SimDuration::from_millis((size as u128 * 1000 / bandwidth as u128) as u64)))
    }

    /// The image's size in bytes: the registry's, else one made from its
    /// name (20–200 MB), as the runtime reports it in `Pulled` and the node's
    /// `status.images`.
    pub fn image_size(&self, image: &str) -> u64 {
        match self.sizes.get(&normalize(image)) {
            Some(&size) => size,
            None => 20_000_000 + crate::rng::fnv1a(image.as_bytes()) % 180_000_000,
        }
    }

    /// `other`'s answers over these (a scenario's over its profile's).
    pub fn overridden_by(&self, other: &RegistryFile) -> Result<Registry, Vec<(String, String)>> {
        let mut r = self.clone();
        r.apply(other)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(v: serde_json::Value) -> RegistryFile {
        serde_json::from_value(v).expect("a registry")
    }

    #[test]
    fn images_are_matched_as_the_runtime_names_them() {
        let r = Registry::new(&file(
            serde_json::json!({"images": {"nginx:1.2x": "notFound", "corp.example.com/app:1": "unauthorized"}}),
        ))
        .expect("valid");
        assert_eq!(r.answer("docker.io/library/nginx:1.2x"), Answer::NotFound);
        assert_eq!(r.answer("nginx:1.2x"), Answer::NotFound);
        assert_eq!(r.answer("nginx:1.27"), Answer::Exists);
        assert_eq!(r.answer("corp.example.com/app:1"), Answer::Unauthorized);
        let r = r.overridden_by(&file(serde_json::json!({"images": {"nginx:1.2x": "exists"}}))).expect("valid");
        assert_eq!(r.answer("nginx:1.2x"), Answer::Exists);
    }

    #[test]
    fn a_sized_image_downloads_at_the_bandwidth() {
        let r = Registry::new(&file(
            serde_json::json!({"images": {"big/model:3": {"size": "4GB"}}, "bandwidth": "50MB/s"}),
        ))
        .expect("valid");
        assert_eq!(r.download("big/model:3"), Some((4_000_000_000, SimDuration::from_secs(80))));
        assert_eq!(r.download("nginx"), None);
        assert_eq!(parse_bytes("1.5GiB"), Ok(1_610_612_736));
        assert_eq!(parse_bytes("750Mi"), Ok(786_432_000));
        let no_bandwidth = Registry::new(&file(serde_json::json!({"images": {"big/model:3": {"size": "4GB"}}})));
        assert_eq!(
            no_bandwidth.map(|_| ()),
            Err(vec![(
                "registry.bandwidth".to_string(),
                "Required value: an image with a size is pulled at the registry's bandwidth".to_string()
            )])
        );
        assert!(parse_bytes("4 parsecs").is_err());
    }
}
