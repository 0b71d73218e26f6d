//! Sweeps take the run inputs `podsim run` takes (a scenario, or manifests
//! and flags), and `predict` prints the milestones and orderings asked for,
//! the most telling first.

use crate::{assert_bad_input, assert_no_panic, podsim};
use serde_json::Value;

const C28: &str = "models/scenarios/c28-service.yaml";

/// What `models/scenarios/c28-service.yaml` says, as flags.
const C28_FLAGS: [&str; 14] = [
    "-f",
    "models/manifests/c28-probe.yaml",
    "--app",
    "models/apps/c28-probe.yaml",
    "--cluster",
    "models/clusters/kind-2.yaml",
    "--until",
    "40s",
    "--traffic",
    "service/c28-probe:http/identity,every=2s,count=15,from=node/kind-worker,timeout=1s,name=curl",
    "--traffic",
    "pod/c28-probe:18080/ready,every=2s,count=15,from=node/kind-worker,timeout=1s,name=direct",
    "--seed",
    "1",
];

fn with_flags<'a>(head: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    head.iter().chain(C28_FLAGS.iter()).chain(tail).copied().collect()
}

/// The scenario's seed is 1, as `--seed 1` says.
#[test]
fn predict_from_manifests_and_flags_is_the_scenarios_prediction() {
    let scenario = podsim(["predict", C28, "--runs", "20"]);
    let flags = podsim(with_flags(&["predict"], &["--runs", "20"]));
    assert_eq!(scenario.code, Some(0), "{scenario:?}");
    assert_eq!(flags.code, Some(0), "{flags:?}");
    // The header names the inputs as given; the rest is the same.
    let (head, rest) = flags.stdout.split_once('\n').unwrap();
    assert_eq!(
        head,
        "-f models/manifests/c28-probe.yaml --app models/apps/c28-probe.yaml --cluster models/clusters/kind-2.yaml \
         --until 40s --traffic service/c28-probe:http/identity,every=2s,count=15,from=node/kind-worker,timeout=1s,name=curl \
         --traffic pod/c28-probe:18080/ready,every=2s,count=15,from=node/kind-worker,timeout=1s,name=direct: \
         20 runs, seeds 1–20"
    );
    assert_eq!(Some(rest), scenario.stdout.split_once('\n').map(|(_, r)| r));
    let json = podsim(with_flags(&["predict"], &["--runs", "20", "-o", "json"]));
    assert_eq!(json.stdout, podsim(["predict", C28, "--runs", "20", "-o", "json"]).stdout);
}

#[test]
fn a_sweep_with_neither_a_scenario_nor_manifests_is_refused() {
    for args in [&["predict", "--runs", "2"][..], &["verify", "-p", "never restarts(pod/*) > 0"]] {
        let run = podsim(args);
        assert_bad_input(&run);
        assert!(run.stderr.contains("no manifests: give a scenario file or -f MANIFEST"), "{run:?}");
    }
}

/// The milestone rows of a table: (name, p50 in ms).
fn rows(table: &str) -> Vec<(String, u64)> {
    let body = table.split("\n\n").nth(1).unwrap_or_default();
    (body.lines().skip(1))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            let ms = cells[3].trim_end_matches('s').replace('.', "").parse().unwrap();
            (cells[0].to_string(), ms)
        })
        .collect()
}

#[test]
fn milestones_print_by_median_then_name() {
    let run = podsim(["predict", C28, "--runs", "30"]);
    let rows = rows(&run.stdout);
    assert!(rows.len() > 20, "{run:?}");
    assert!(rows.windows(2).all(|w| (w[0].1, &w[0].0) <= (w[1].1, &w[1].0)), "{rows:?}");
    assert_eq!(rows[0].0, "pod/c28-probe:created", "{rows:?}");
    // The order varies section: the commonest order's share never falls.
    let varies: Vec<f64> = (run.stdout.split("ORDER VARIES (closest to a coin toss first)\n").nth(1).unwrap().lines())
        .map(|l| {
            let shares: Vec<f64> = (l.split(": ").skip(1).flat_map(|p| p.split(", ")))
                .filter_map(|p| p.split_whitespace().rev().nth(2)?.parse().ok())
                .collect();
            shares.iter().copied().fold(0.0, f64::max)
        })
        .collect();
    assert!(varies.len() > 3, "{}", run.stdout);
    assert!(varies.windows(2).all(|w| w[0] <= w[1]), "{varies:?}");
}

#[test]
fn milestone_patterns_choose_the_rows_edges_and_json_alike() {
    let args = ["predict", C28, "--runs", "20", "-m", "pod/c28-probe", "-m", "*:first_ok", "-m", "pod/nope"];
    let run = podsim(args);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stderr, "warning: --milestone pod/nope: no milestone of the runs matches it\n");
    let names: Vec<String> = rows(&run.stdout).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"pod/c28-probe:ready".to_string()), "{names:?}");
    assert!(names.contains(&"pod/c28-probe/probe-app:ready".to_string()), "{names:?}");
    assert!(names.contains(&"svc/c28-probe:first_ok".to_string()), "{names:?}");
    let chosen =
        |n: &str| n.starts_with("pod/c28-probe:") || n.starts_with("pod/c28-probe/") || n.ends_with(":first_ok");
    assert!(names.iter().all(|n| chosen(n)), "{names:?}");
    // Every edge and varying pair is between chosen milestones.
    let json: Value = serde_json::from_str(&podsim([&args[..], &["-o", "json"][..]].concat()).stdout).unwrap();
    let listed: Vec<&str> =
        json["milestones"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(listed, names);
    for e in json["alwaysBefore"].as_array().unwrap() {
        assert!(chosen(e[0].as_str().unwrap()) && chosen(e[1].as_str().unwrap()), "{e}");
    }
    for v in json["varies"].as_array().unwrap() {
        assert!(chosen(v["a"].as_str().unwrap()) && chosen(v["b"].as_str().unwrap()), "{v}");
    }
    let dot = podsim([&args[..], &["--dot"][..]].concat()).stdout;
    assert!(dot.contains("\"pod/c28-probe:ready\" -> \"svc/c28-probe:first_ok\""), "{dot}");
    assert!(!dot.contains("endpoint_ready"), "a milestone not chosen is in no edge: {dot}");
}

#[test]
fn orderings_choose_the_sections() {
    let table = |which: &str| podsim(["predict", C28, "--runs", "10", "--orderings", which]).stdout;
    let always = table("always");
    assert!(always.contains("\nALWAYS BEFORE") && !always.contains("ORDER VARIES"), "{always}");
    let varies = table("varies");
    assert!(!varies.contains("ALWAYS BEFORE") && varies.contains("\nORDER VARIES"), "{varies}");
    let none = table("none");
    assert!(!none.contains("ALWAYS BEFORE") && !none.contains("ORDER VARIES"), "{none}");
    assert!(table("both").contains("ALWAYS BEFORE") && table("both").contains("ORDER VARIES"));
    let json: Value =
        serde_json::from_str(&podsim(["predict", C28, "--runs", "10", "--orderings", "varies", "-o", "json"]).stdout)
            .unwrap();
    assert!(json.get("alwaysBefore").is_none() && json["varies"].is_array(), "{json}");
}

/// verify reads manifests and flags as run does: `-f` is a manifest, and a
/// file of properties is `--properties`; the re-run lines repeat the flags.
#[test]
fn verify_from_manifests_and_flags_finds_the_scenarios_counterexample() {
    let property = "always pod/c28-probe:ready < 15s";
    let scenario = podsim(["verify", C28, "--runs", "100", "-p", property, "-o", "json"]);
    let flags = podsim(with_flags(&["verify"], &["--runs", "100", "-p", property, "-o", "json"]));
    assert_eq!(flags.code, Some(1), "{flags:?}");
    assert_eq!(flags.stdout, scenario.stdout);
    let table = podsim(with_flags(&["verify"], &["--runs", "100", "-p", property])).stdout;
    let inputs = C28_FLAGS[..12].iter().map(|w| if w.contains(' ') { format!("'{w}'") } else { w.to_string() });
    let inputs = inputs.collect::<Vec<_>>().join(" ");
    assert!(
        table.contains(&format!("\n  re-run: podsim verify {inputs} --seed 23 --property '{property}'\n")),
        "{table}"
    );
    assert!(table.contains(&format!("\n  its full timeline: podsim run {inputs} --seed 23\n")), "{table}");

    let dir = crate::TempDir::new("verify-properties");
    let file = dir.write("c28.props", &format!("# planted\n{property}\n"));
    let run = podsim(with_flags(&["verify"], &["--runs", "100", "--properties", &file, "-o", "json"]));
    assert_eq!(run.stdout, scenario.stdout);
    // A file of properties given to -f is read as a manifest.
    let run = podsim(["verify", "-f", &file, "-p", property]);
    assert_bad_input(&run);
}
