//! Image pulls the registry refuses (`registry:` in a profile or scenario):
//! the image manager's `pullImage` (pkg/kubelet/images/image_manager.go) —
//! `Failed to pull image …` with the runtime's error, `Error: ErrImagePull`,
//! then within the back-off `Back-off pulling image …` and `Error:
//! ImagePullBackOff` with the last pull's error in the waiting message; the
//! back-off per pod and image starts at 10 s and doubles
//! (`flowcontrol.NewBackOff(backOffPeriod, MaxImageBackOff)`), and a pull
//! is retried on the first sync after it (the pod worker's error requeue).

use super::podsim;
use serde_json::Value;

/// The kubelet's records of one reason, as (time, message).
fn kubelet(jsonl: &str, reason: &str) -> Vec<(f64, String)> {
    (jsonl.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "KUBELET" && v["reason"] == reason)
        .map(|v| (v["t"].as_f64().unwrap_or(-1.0), v["message"].as_str().unwrap_or_default().to_string()))
        .collect()
}

const NOT_FOUND: &str = "rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:1.2x\": failed to resolve reference \"docker.io/library/nginx:1.2x\": docker.io/library/nginx:1.2x: not found";

#[test]
fn a_mistyped_image_backs_off_10_20_40_s_until_the_fixed_manifest_rolls_out() {
    let run = podsim(["run", "models/scenarios/image-typo.yaml", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let pulls: Vec<(f64, String)> =
        kubelet(&run.stdout, "Pulling").into_iter().filter(|(_, m)| m == "Pulling image \"nginx:1.2x\"").collect();
    let failed: Vec<(f64, String)> =
        kubelet(&run.stdout, "Failed").into_iter().filter(|(_, m)| m.starts_with("Failed to pull image")).collect();
    assert!(
        failed.iter().all(|(_, m)| *m == format!("Failed to pull image \"nginx:1.2x\": {NOT_FOUND}")),
        "{failed:?}"
    );
    // Each pull fails; until the fix at 120 s there are four: the back-off
    // after the k-th failure is 10 s × 2^(k-1), and the next pull comes on
    // the first sync after it, within an error requeue (at most 15 s).
    assert_eq!(pulls.len(), 4, "{pulls:?}");
    assert_eq!(failed.len(), 4, "{failed:?}");
    for k in 1..pulls.len() {
        let backoff = 10.0 * 2f64.powi(k as i32 - 1);
        let waited = pulls[k].0 - failed[k - 1].0;
        assert!(
            (backoff..=backoff + 15.0).contains(&waited),
            "pull {k}: {waited:.3} s after the failure, back-off {backoff} s"
        );
    }
    // Between pulls every sync is refused by the back-off, with the last error.
    let backoffs = kubelet(&run.stdout, "BackOff");
    assert!(
        backoffs.len() >= 4 && backoffs.iter().all(|(_, m)| m == "Back-off pulling image \"nginx:1.2x\""),
        "{backoffs:?}"
    );
    let waiting: Vec<String> = (run.stdout.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "CHANGE" && v["change"] == "container web Waiting(ImagePullBackOff)")
        .filter_map(|v| v["why"].as_str().map(str::to_string))
        .collect();
    assert!(!waiting.is_empty());
    assert!(
        waiting.iter().all(|w| *w == format!("Back-off pulling image \"nginx:1.2x\": ErrImagePull: {NOT_FOUND}")),
        "{waiting:?}"
    );
    // kubectl shows both reasons; the fixed image runs, the mistyped pod goes.
    let table = podsim(["run", "models/scenarios/image-typo.yaml", "--types", "kubectl"]);
    for status in ["kubectl ErrImagePull (READY 0/1, RESTARTS 0)", "kubectl ImagePullBackOff (READY 0/1, RESTARTS 0)"] {
        assert!(table.stdout.contains(status), "{}", table.stdout);
    }
    let pods = podsim(["get", "pods", "models/scenarios/image-typo.yaml"]);
    let rows: Vec<&str> = pods.stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{}", pods.stdout);
    assert!(rows[0].contains("1/1     Running"), "{}", pods.stdout);
}

#[test]
fn a_private_image_is_pulled_once_its_pull_secret_exists() {
    let run = podsim(["run", "models/scenarios/private-image.yaml", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    // getPullSecretsForPod warns on every sync while regcred is missing.
    let warned = kubelet(&run.stdout, "FailedToRetrieveImagePullSecret");
    assert!(warned.len() >= 3, "{warned:?}");
    assert!(warned.iter().all(|(t, m)| *t < 30.0
        && m == "Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed."));
    let denied: Vec<(f64, String)> =
        kubelet(&run.stdout, "Failed").into_iter().filter(|(_, m)| m.starts_with("Failed to pull image")).collect();
    assert!(!denied.is_empty());
    assert!(denied.iter().all(|(t, m)| *t < 30.0 && m.ends_with("pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed")), "{denied:?}");
    // The secret applied at 30 s: the first pull after the back-off succeeds.
    let pulled = kubelet(&run.stdout, "Pulled");
    assert_eq!(pulled.len(), 1, "{pulled:?}");
    assert!(
        pulled[0].0 > 30.0 && pulled[0].1.starts_with("Successfully pulled image \"registry.example.com/corp/app:1\"")
    );
    let pods = podsim(["get", "pods", "models/scenarios/private-image.yaml"]);
    assert!(pods.stdout.contains("app    1/1     Running   0"), "{}", pods.stdout);
}

#[test]
fn a_registry_answer_podsim_does_not_know_is_refused() {
    let dir = super::TempDir::new("registry-bad");
    dir.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: nginx}]\n",
    );
    let s = dir.write("s.yaml", "manifests: [pod.yaml]\nregistry:\n  images:\n    nginx: missing\n");
    let run = podsim(["run", &s]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("registry.images"), "{run:?}");
    assert!(
        run.stderr.contains(
            "s.yaml:4:12: registry.images.nginx: unknown answer \"missing\": expected `exists`, `notFound`, `unauthorized` or `{size: 4GB}`"
        ),
        "{run:?}"
    );
}

/// An image the registry gives a size downloads at its bandwidth: 4 GB at
/// 50 MB/s is 80 s, after what a cached pull takes (the default profile's
/// `imagePullCached`, 300 ms to 1 s); the `Pulled` event says its size.
#[test]
fn a_big_image_takes_its_size_over_the_bandwidth() {
    let dir = super::TempDir::new("registry-size");
    dir.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: llm}\nspec:\n  containers: [{name: llm, image: big/model:3}]\n",
    );
    let s = dir.write(
        "s.yaml",
        "manifests: [pod.yaml]\nuntil: 3m\nregistry:\n  bandwidth: 50MB/s\n  images:\n    big/model:3: {size: 4GB}\n",
    );
    let run = podsim(["run", &s, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let pulling = kubelet(&run.stdout, "Pulling");
    let pulled = kubelet(&run.stdout, "Pulled");
    assert_eq!((pulling.len(), pulled.len()), (1, 1), "{pulling:?} {pulled:?}");
    let took = pulled[0].0 - pulling[0].0;
    assert!((80.3..=81.0).contains(&took), "{took}");
    assert!(pulled[0].1.ends_with(". Image size: 4000000000 bytes."), "{}", pulled[0].1);
    // A size with no bandwidth anywhere is an error naming the field.
    let bad = dir.write("b.yaml", "manifests: [pod.yaml]\nregistry:\n  images:\n    big/model:3: {size: 4GB}\n");
    let run = podsim(["run", &bad]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(
            "b.yaml: registry.bandwidth: Required value: an image with a size is pulled at the registry's bandwidth"
        ),
        "{run:?}"
    );
}

/// An init container's image that does not exist: printPod shows the init
/// container's waiting reason as `Init:ErrImagePull`, then
/// `Init:ImagePullBackOff`; the app container is never pulled.
#[test]
fn an_init_containers_missing_image_is_init_err_image_pull() {
    let dir = super::TempDir::new("registry-init");
    dir.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers:\n  - {name: fetch, image: busybox:1.3x, command: [sh, -c, 'true']}\n  containers:\n  - {name: web, image: nginx:1.27}\n",
    );
    let s =
        dir.write("s.yaml", "manifests: [pod.yaml]\nuntil: 40s\nregistry:\n  images:\n    busybox:1.3x: notFound\n");
    let watch = podsim(["get", "pods", &s, "-w"]);
    assert_eq!(watch.code, Some(0), "{watch:?}");
    let statuses: Vec<&str> = watch.stdout.lines().skip(1).filter_map(|l| l.split_whitespace().nth(2)).collect();
    assert_eq!(
        statuses,
        [
            "Pending",
            "Pending",
            "Init:0/1",
            "Init:0/1",
            "Init:ErrImagePull",
            "Init:ImagePullBackOff",
            "Init:ErrImagePull",
            "Init:ImagePullBackOff"
        ],
        "{}",
        watch.stdout
    );
    let run = podsim(["run", &s, "-o", "jsonl"]);
    assert!(
        kubelet(&run.stdout, "Pulling").iter().all(|(_, m)| m == "Pulling image \"busybox:1.3x\""),
        "only the init image is pulled"
    );
}

/// The docs' private-registry pod pasted unchanged (`image:
/// <your-private-image>`): the API server takes any image string, but the
/// kubelet's applyDefaultImageTag cannot parse it — InspectFailed,
/// `Error: InvalidImageName`, and the container waits with that reason,
/// with no pull.
#[test]
fn the_docs_placeholder_image_is_invalid_image_name() {
    let dir = super::TempDir::new("registry-invalid");
    let pod = dir.write(
        "private-reg.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: private-reg\nspec:\n  containers:\n  - name: private-reg-container\n    image: <your-private-image>\n  imagePullSecrets:\n  - name: regcred\n",
    );
    let run = podsim(["run", "-f", &pod, "--until", "30s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let message = "Failed to apply default image tag \"<your-private-image>\": couldn't parse image name \"<your-private-image>\": invalid reference format";
    let inspect = kubelet(&run.stdout, "InspectFailed");
    assert!(!inspect.is_empty() && inspect.iter().all(|(_, m)| m == message), "{inspect:?}");
    assert!(kubelet(&run.stdout, "Pulling").is_empty(), "no pull");
    let pods = podsim(["get", "pods", "-f", &pod, "--until", "30s"]);
    assert!(pods.stdout.contains("private-reg   0/1     InvalidImageName   0"), "{}", pods.stdout);
}

/// Three pods on one node, each with an image of its own the node lacks.
fn three_pulls(dir: &crate::TempDir) -> String {
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: app\n    image: registry.example.com/{name}:1.0\n"
        )
    };
    let text = [pod("a"), pod("b"), pod("c")].join("---\n");
    dir.write("pods.yaml", &text)
}

/// A profile that is the default one with `kubelet` lines added.
fn profile(dir: &crate::TempDir, kubelet: &str) -> String {
    let default = std::fs::read_to_string("models/clusters/default.yaml").unwrap();
    let text = default.replace("kubelet:\n", &format!("kubelet:\n{kubelet}"));
    dir.write("cluster.yaml", &text)
}

/// Go's duration text as the events print it (`7.928s`, `898ms`): seconds.
fn go_seconds(text: &str) -> f64 {
    match text.strip_suffix("ms") {
        Some(ms) => ms.parse::<f64>().unwrap() / 1000.0,
        None => text.strip_suffix('s').unwrap().parse().unwrap(),
    }
}

/// Each pull as (Pulling time, Pulled time, the pull's own time, the time
/// including waiting), in the order the pulls were asked for.
fn pulls(jsonl: &str) -> Vec<(f64, f64, f64, f64)> {
    let asked = kubelet(jsonl, "Pulling");
    let done = kubelet(jsonl, "Pulled");
    let mut out = Vec::new();
    for (at, msg) in asked {
        let image = msg.strip_prefix("Pulling image ").unwrap();
        let (t, m) =
            done.iter().find(|(_, m)| m.starts_with(&format!("Successfully pulled image {image} in "))).unwrap();
        let rest = m.split(" in ").nth(1).unwrap();
        let took = go_seconds(rest.split(' ').next().unwrap());
        let total = go_seconds(rest.split('(').nth(1).unwrap().split(' ').next().unwrap());
        out.push((at, *t, took, total));
    }
    out
}

/// `serializeImagePulls` (the default): the serial puller runs one pull
/// at a time in the order asked, so each pull begins when the one before
/// it returns: Pulled − its own time = the previous Pulled; and the time
/// "including waiting" runs from its `Pulling`.
#[test]
fn serialized_pulls_wait_for_each_other() {
    let dir = crate::TempDir::new("serial-pulls");
    let pods = three_pulls(&dir);
    let run = podsim(["run", "-f", &pods, "--until", "40s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let p = pulls(&run.stdout);
    assert_eq!(p.len(), 3, "{p:?}");
    for (k, (asked, pulled, took, total)) in p.iter().enumerate() {
        // Go truncates both durations to the millisecond.
        assert!((pulled - asked - total).abs() < 0.0015, "pull {k}: {p:?}");
        if k > 0 {
            let began = pulled - took;
            assert!((began - p[k - 1].1).abs() < 0.0015, "pull {k} begins as pull {} returns: {p:?}", k - 1);
            assert!(*total > took + 1.0, "pull {k} waited: {p:?}");
        }
    }
}

/// `serializeImagePulls: false` with `maxParallelImagePulls: 2`: the first
/// two pulls take the two tokens at once (no waiting), the third waits for
/// the first token given back.
#[test]
fn parallel_pulls_take_max_parallel_image_pulls_tokens() {
    let dir = crate::TempDir::new("parallel-pulls");
    let pods = three_pulls(&dir);
    let cluster = profile(&dir, "  serializeImagePulls: false\n  maxParallelImagePulls: 2\n");
    let run = podsim(["run", "-f", &pods, "--cluster", &cluster, "--until", "40s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let p = pulls(&run.stdout);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[..2].iter().all(|(_, _, took, total)| took == total), "{p:?}");
    let (_, pulled, took, _) = p[2];
    let first_back = p[0].1.min(p[1].1);
    assert!((pulled - took - first_back).abs() < 0.0015, "the third begins at the first return: {p:?}");
}

/// ValidateKubeletConfiguration's rules for the two fields, word for word.
#[test]
fn max_parallel_image_pulls_is_validated_as_the_kubelet_does() {
    let dir = crate::TempDir::new("pull-config");
    let pods = three_pulls(&dir);
    let cluster = profile(&dir, "  maxParallelImagePulls: 3\n");
    let run = podsim(["run", "-f", &pods, "--cluster", &cluster]);
    crate::assert_error(
        &run,
        &cluster,
        8,
        "kubelet.maxParallelImagePulls: invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false",
    );
    let cluster = profile(&dir, "  serializeImagePulls: false\n  maxParallelImagePulls: 0\n");
    let run = podsim(["run", "-f", &pods, "--cluster", &cluster]);
    crate::assert_error(
        &run,
        &cluster,
        9,
        "kubelet.maxParallelImagePulls: invalid configuration: maxParallelImagePulls 0 must be a positive number",
    );
}

/// `image_pull_failures` counts the refused pulls in every run of a sweep:
/// four before the fix at 120 s (pulls at about 1, 14.5, 37.5 and 91.5 s:
/// the back-off doubles from 10 s, the next would be after 80 s more).
#[test]
fn verify_counts_refused_pulls() {
    let run = podsim([
        "verify",
        "models/scenarios/image-typo.yaml",
        "--runs",
        "10",
        "-p",
        "always image_pull_failures(pod/*) <= 4",
        "-p",
        "eventually image_pull_failures(pod/*) == 4",
        "-p",
        "eventually image_pull_failures(pod/web@rev1#1/web) == 4",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.matches("HOLDS").count(), 3, "{}", run.stdout);
}
