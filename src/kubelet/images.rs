//! The image manager (pkg/kubelet/images/image_manager.go): whether a start
//! pulls, and the events it reports.

use crate::cluster::Version;
use crate::cluster::registry::Answer;
use crate::rng::fnv1a;
use crate::spec::PullPolicy;
use crate::time::SimDuration;
use foldhash::HashMap;
use std::sync::Arc;

/// What `EnsureImageExists` does for one container start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ImageAction {
    /// No pull: `Container image "x" already present on machine`.
    Present,
    /// A pull; `cached` when the layers are already on the node.
    Pull { cached: bool },
    /// Pull policy Never and the image is missing: `ErrImageNeverPull`.
    NeverPullMissing,
}

pub fn ensure(policy: PullPolicy, present: bool) -> ImageAction {
    match (policy, present) {
        (PullPolicy::Always, cached) => ImageAction::Pull { cached },
        (_, true) => ImageAction::Present,
        (PullPolicy::IfNotPresent, false) => ImageAction::Pull { cached: false },
        (PullPolicy::Never, false) => ImageAction::NeverPullMissing,
    }
}

/// The `Pulled` message when no pull was needed; from 1.35
/// (KubeletEnsureSecretPulledImages on) it says the pod may use it.
pub fn already_present(image: &str, version: Version) -> String {
    if version >= Version::V1_35 {
        format!("Container image {image:?} already present on machine and can be accessed by the pod")
    } else {
        format!("Container image {image:?} already present on machine")
    }
}

/// `applyDefaultImageTag`'s check (`parsers.ParseImageName`, which calls
/// distribution/reference's `ParseNormalizedNamed`): the error of a
/// reference that does not parse, as the kubelet words it (`InvalidImageName`).
pub fn invalid_reference(image: &str) -> Option<String> {
    let why = reference_error(image)?;
    Some(format!("Failed to apply default image tag {image:?}: couldn't parse image name {image:?}: {why}"))
}

/// distribution/reference's grammar: `[domain/]path[:tag][@digest]`, path
/// components lowercase alphanumerics joined by `.`, `_`, `__` or dashes.
fn reference_error(image: &str) -> Option<String> {
    const INVALID: &str = "invalid reference format";
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let ok = d.split_once(':').is_some_and(|(algo, hex)| {
            !algo.is_empty()
                && algo.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+._-".contains(c))
                && hex.len() >= 32
                && hex.chars().all(|c| c.is_ascii_hexdigit())
        });
        if !ok {
            return Some(INVALID.into());
        }
    }
    let slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match name[slash..].rfind(':') {
        Some(i) => (&name[..slash + i], Some(&name[slash + i + 1..])),
        None => (name, None),
    };
    if let Some(t) = tag {
        let mut chars = t.chars();
        let first = chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !first || t.len() > 128 || !chars.all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) {
            return Some(INVALID.into());
        }
    }
    let mut parts: Vec<&str> = repo.split('/').collect();
    let first = parts[0];
    if parts.len() > 1 && (first.contains('.') || first.contains(':') || first == "localhost") {
        let (host, port) = first.split_once(':').unwrap_or((first, ""));
        let host_ok = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || ".-".contains(c));
        if !host_ok || !port.chars().all(|c| c.is_ascii_digit()) || (first.contains(':') && port.is_empty()) {
            return Some(INVALID.into());
        }
        parts.remove(0);
    }
    let component = |p: &str| {
        let b = p.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && p.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            && !p.contains("..")
            && !p.contains("___")
            && !p.contains("._")
            && !p.contains("_.")
    };
    if !parts.iter().all(|p| component(p)) {
        return Some(INVALID.into());
    }
    let path = parts.join("/");
    if path.chars().any(|c| c.is_ascii_uppercase()) {
        return Some(format!("{INVALID}: repository name ({path}) must be lowercase"));
    }
    None
}

/// The image back-off's bounds (`flowcontrol.NewBackOff(backOffPeriod,
/// MaxImageBackOff)` in NewMainKubelet): 10 s doubling to 300 s, per pod and image.
pub const BACKOFF_INITIAL: SimDuration = SimDuration::from_secs(10);
pub const BACKOFF_MAX: SimDuration = SimDuration::from_secs(300);

/// `backOffKey` of `pullImage`: the pod's UID and the image as requested.
pub fn backoff_key(pod_uid: &str, image: &str) -> String {
    format!("{pod_uid}_{image}")
}

/// The Secrets a pod's `imagePullSecrets` names (empty names skipped, as
/// `getPullSecretsForPod` does).
pub fn pull_secret_names(pod: &crate::spec::PodSpec) -> Vec<String> {
    (pod.object.spec.iter())
        .flat_map(|s| s.image_pull_secrets.iter().flatten())
        .map(|r| r.name.clone())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The runtime's error for a pull the registry refuses (containerd's CRI
/// `PullImage`, as `kubectl describe` shows it; the wording after `failed to
/// resolve reference` is the registry's, Docker Hub's here), or `None` for a
/// pull that succeeds: a private image needs a pull secret the kubelet could read.
pub fn pull_error(answer: Answer, image: &str, has_credentials: bool) -> Option<String> {
    let n = normalize(image);
    match answer {
        Answer::Exists => None,
        Answer::Unauthorized if has_credentials => None,
        Answer::NotFound => Some(format!(
            "rpc error: code = NotFound desc = failed to pull and unpack image {n:?}: failed to resolve reference {n:?}: {n}: not found"
        )),
        Answer::Unauthorized => Some(format!(
            "rpc error: code = Unknown desc = failed to pull and unpack image {n:?}: failed to resolve reference {n:?}: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"
        )),
    }
}

/// The runtime's normalized image name (`docker.io/library/nginx:latest`).
pub fn normalize(image: &str) -> String {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let has_tag = name[last_slash..].contains(':');
    let first = name.split('/').next().unwrap_or("");
    let has_registry = name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut out = match (has_registry, name.contains('/')) {
        (true, _) => name.to_string(),
        (false, true) => format!("docker.io/{name}"),
        (false, false) => format!("docker.io/library/{name}"),
    };
    match digest {
        Some(d) => {
            out.push('@');
            out.push_str(d);
        }
        None if !has_tag => out.push_str(":latest"),
        None => {}
    }
    out
}

/// An image as the runtime names it: its normalized reference and its ID.
#[derive(Clone)]
pub struct Resolved {
    pub image: Arc<str>,
    pub id: Arc<str>,
}

/// The images a node's runtime has resolved, by the spec's reference: a
/// container start resolves its image once, not at every restart.
#[derive(Default)]
pub struct Images {
    resolved: HashMap<Box<str>, Resolved>,
}

impl Images {
    /// `image` (as the spec writes it) normalized, with the ID podsim gives
    /// it: a digest made from its names, so an image keeps its ID.
    pub fn resolve(&mut self, image: &str) -> Resolved {
        if let Some(r) = self.resolved.get(image) {
            return r.clone();
        }
        let normalized = normalize(image);
        let digest = format!(
            "{:016x}{:016x}{:016x}{:016x}",
            fnv1a(normalized.as_bytes()),
            fnv1a(b"a"),
            fnv1a(image.as_bytes()),
            fnv1a(b"b")
        );
        let r = Resolved { id: Arc::from(image_id(&normalized, &digest)), image: Arc::from(normalized) };
        self.resolved.insert(image.into(), r.clone());
        r
    }
}

/// The image ID the runtime reports: the repository with a digest.
pub fn image_id(normalized: &str, digest_hex: &str) -> String {
    let repo = normalized.split('@').next().unwrap_or(normalized);
    let last_slash = repo.rfind('/').map_or(0, |i| i + 1);
    let repo = match repo[last_slash..].find(':') {
        Some(i) => &repo[..last_slash + i],
        None => repo,
    };
    format!("{repo}@sha256:{digest_hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_containerd() {
        assert_eq!(normalize("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(normalize("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(normalize("bitnami/redis"), "docker.io/bitnami/redis:latest");
        assert_eq!(normalize("registry.example.com/voice/asr:0.1.0"), "registry.example.com/voice/asr:0.1.0");
        assert_eq!(normalize("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(image_id("docker.io/library/nginx:1.27", "ab"), "docker.io/library/nginx@sha256:ab");
        assert_eq!(image_id("localhost:5000/app:latest", "ab"), "localhost:5000/app@sha256:ab");
    }

    #[test]
    fn references_parse_as_distribution_reference_does() {
        for ok in [
            "nginx",
            "nginx:1.27",
            "registry.k8s.io/e2e-test-images/agnhost:2.40",
            "localhost:5000/app",
            "ghcr.io/acme/app_x:2.1-rc.1",
            "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(invalid_reference(ok), None, "{ok}");
        }
        assert_eq!(
            invalid_reference("<your-private-image>").as_deref(),
            Some(
                "Failed to apply default image tag \"<your-private-image>\": couldn't parse image name \"<your-private-image>\": invalid reference format"
            )
        );
        assert_eq!(
            reference_error("Nginx:1.27").as_deref(),
            Some("invalid reference format: repository name (Nginx) must be lowercase")
        );
        for bad in ["nginx:", "nginx:-1", "a//b", "app:1:2", "nginx@sha256:xyz", "-app"] {
            assert_eq!(reference_error(bad).as_deref(), Some("invalid reference format"), "{bad}");
        }
    }

    #[test]
    fn a_refused_pull_is_containerds_error() {
        assert_eq!(pull_error(Answer::Exists, "nginx:1.2x", false), None);
        assert_eq!(
            pull_error(Answer::NotFound, "nginx:1.2x", false).as_deref(),
            Some(
                "rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:1.2x\": failed to resolve reference \"docker.io/library/nginx:1.2x\": docker.io/library/nginx:1.2x: not found"
            )
        );
        assert_eq!(pull_error(Answer::Unauthorized, "corp/app:1", true), None);
        assert!(
            pull_error(Answer::Unauthorized, "corp/app:1", false).is_some_and(|e| e.contains("pull access denied"))
        );
        assert_eq!(backoff_key("uid-1", "nginx:1.2x"), "uid-1_nginx:1.2x");
    }

    #[test]
    fn pull_policy_decides_the_pull() {
        assert_eq!(ensure(PullPolicy::IfNotPresent, true), ImageAction::Present);
        assert_eq!(ensure(PullPolicy::IfNotPresent, false), ImageAction::Pull { cached: false });
        assert_eq!(ensure(PullPolicy::Always, true), ImageAction::Pull { cached: true });
        assert_eq!(ensure(PullPolicy::Never, false), ImageAction::NeverPullMissing);
    }
}
