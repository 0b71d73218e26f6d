//! Regressions from the fuzz suite (`tests/fuzz.rs`): inputs that panicked
//! or were reported without saying where.

use super::{TempDir, podsim};

/// Seeds past 2^64 − 1 overflowed (a debug build's panic, a release build's
/// wrap to seed 0): the first seed and the run count are checked together.
#[test]
fn seeds_past_sixty_four_bits_are_refused() {
    for command in [["predict"].as_slice(), &["verify", "-p", "never restarts(pod/crashloop) > 100"]] {
        let mut args: Vec<&str> = command.to_vec();
        args.extend(["models/scenarios/crashloop.yaml", "--seed", "18446744073709551615", "--runs", "2"]);
        let run = podsim(&args);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(
            run.stderr.contains("--seed 18446744073709551615: the runs' seeds are 18446744073709551615, 18446744073709551615 + 1, …, and 2 of them go past 18446744073709551615 (2^64 − 1); start at 18446744073709551614 at most"),
            "{run:?}"
        );
    }
    let run = podsim([
        "predict",
        "models/scenarios/crashloop.yaml",
        "--seed",
        "18446744073709551615",
        "--runs",
        "1",
        "--until",
        "5s",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
}

/// A name longer than 65,535 characters panicked the timeline table (a
/// format width past u16::MAX); the column is as wide as the name.
#[test]
fn an_object_name_past_sixty_five_thousand_characters_is_printed() {
    let dir = TempDir::new("long-name");
    let name = "x".repeat(70_000);
    let root = env!("CARGO_MANIFEST_DIR");
    let scenario = format!(
        "manifests: [{root}/models/manifests/probe-actions.yaml, {root}/models/manifests/probe-actions-service.yaml]\n\
         app: {root}/models/apps/probe-actions.yaml\ncluster: {root}/models/clusters/kind-2.yaml\nuntil: 12s\n\
         traffic:\n- {{name: {name}, from: node/kind-control-plane, to: service/web:80, path: /live, every: 5s}}\n"
    );
    let run = podsim(["run", &dir.write("long.yaml", &scenario)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let header = run.stdout.lines().next().unwrap_or_default();
    // The OBJECT column is as wide as `client/` and the name.
    assert_eq!(header.find("CHANGE"), Some(13 + "client/".len() + 70_000 + 2), "{}", &header[..40]);
}

/// A scenario's gate condition that is no qualified name is located at its
/// field, as every other scenario field is.
#[test]
fn a_bad_gate_condition_is_located() {
    let dir = TempDir::new("bad-gate");
    let root = env!("CARGO_MANIFEST_DIR");
    let s = dir.write(
        "gate.yaml",
        &format!("manifests: [{root}/models/manifests/readiness-gate.yaml]\ngates:\n- condition: 50m/example.com/lb\n"),
    );
    let run = podsim(["run", &s]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "error: {s}:3:14: gates[0].condition: \"50m/example.com/lb\": a qualified name must consist of"
        )),
        "{run:?}"
    );
}

/// A recorded pod whose grace is as large as an int64 holds overflowed the
/// readiness-gate rule's lag (`2 + grace`: a debug build's panic).
#[test]
fn a_recorded_grace_of_int64_max_is_checked() {
    let dir = TempDir::new("huge-grace");
    let pod = std::fs::read_to_string("tests/traces/006-happy-path-nginx-containerd-describe-and-yaml/pod.yaml")
        .expect("the recording");
    let huge =
        pod.replacen("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 9223372036854775807", 1);
    assert_ne!(huge, pod);
    let run = podsim(["check", &dir.write("pod.yaml", &huge)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("holds     phase-consistent"), "{run:?}");
}

/// `-f DIR -R` walks like Go's `filepath.Walk`: a link to a directory is not
/// entered, so a link back up (as `/proc/self/root` is) does not loop; a
/// directory it cannot read is named with the flag (fuzz: `-f / -R` ran
/// until killed).
#[test]
fn a_recursive_walk_does_not_follow_directory_links() {
    let dir = TempDir::new("walk-links");
    let root = env!("CARGO_MANIFEST_DIR");
    let pod = std::fs::read_to_string(format!("{root}/models/manifests/c28-probe.yaml")).expect("the c28 pod");
    dir.write("k8s/apps/pod.yaml", &pod);
    std::os::unix::fs::symlink(dir.path("k8s"), dir.path("k8s/apps/up")).expect("a link up");
    let run = podsim(["run", "-f", &dir.path("k8s"), "-R", "--until", "5s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.matches("Successfully assigned").count(), 1, "{run:?}");

    let locked = dir.path("k8s/locked");
    std::fs::create_dir(&locked).expect("a directory");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).expect("chmod");
    // root reads any directory: the refusal is checked where it holds.
    if std::fs::read_dir(&locked).is_err() {
        let run = podsim(["run", "-f", &dir.path("k8s"), "-R", "--until", "5s"]);
        assert_eq!(run.code, Some(2), "{run:?}");
        let said = format!("error: --filename: cannot read {locked:?} in the directory {:?}: ", dir.path("k8s"));
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
    }
}
