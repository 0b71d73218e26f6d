//! `podsim plot`: the pictures exist, say what a user looks for (container
//! names, milestones, legend entries), are the same bytes for the same
//! inputs, and bad input is refused before anything runs.

use crate::{TempDir, assert_bad_input, assert_no_panic, podsim};
use std::fs;

const C28: &str = "models/scenarios/c28-service.yaml";

/// Runs `podsim plot …` expecting success and returns the picture's bytes.
fn picture(args: &[&str], out: &str) -> Vec<u8> {
    let mut all = vec!["plot"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", out]);
    let run = podsim(&all);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.is_empty(), "a picture goes to its file, not stdout: {run:?}");
    fs::read(out).unwrap_or_else(|e| panic!("{out}: {e}"))
}

fn svg(args: &[&str], dir: &TempDir) -> String {
    let out = dir.path("out.svg");
    String::from_utf8(picture(args, &out)).expect("SVG is UTF-8")
}

/// The `<text>` contents of an SVG, trimmed.
fn texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
        .map(|(t, _)| t.trim())
        .collect()
}

fn assert_has(texts: &[&str], wanted: &[&str]) {
    for w in wanted {
        assert!(texts.iter().any(|t| t.contains(w)), "no text {w:?} in the picture; texts: {texts:?}");
    }
}

/// Width and height from a PNG's IHDR.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

fn svg_size(svg: &str) -> (u32, u32) {
    let attr = |name: &str| -> u32 {
        let rest = svg.split_once(&format!("{name}=\"")).expect("size attribute").1;
        rest.split_once('"').unwrap().0.parse().unwrap()
    };
    (attr("width"), attr("height"))
}

#[test]
fn the_c28_timeline_shows_every_layer_with_a_legend_and_the_milestones() {
    let dir = TempDir::new("plot-timeline");
    let svg = svg(&["timeline", C28], &dir);
    let t = texts(&svg);
    assert_has(&t, &["models/scenarios/c28-service.yaml: seed 1, 40s simulated"]);
    // The pod's lanes: containers (the init container marked), probes, conditions.
    assert_has(&t, &["pod/c28-probe on kind-worker", "init-sleep (init)", "probe-app", "probe-app readiness probe"]);
    assert_has(&t, &["PodScheduled", "Initialized", "ContainersReady", "Ready", "Completed (0)", "Running, ready"]);
    // The Service path: the endpoint, each node's kube-proxy, each client.
    assert_has(&t, &["svc/c28-probe: endpoints", "node/kind-worker", "node/kind-control-plane"]);
    assert_has(&t, &["curl → service/c28-probe:http", "direct → pod/c28-probe:18080"]);
    // The legend names what the colours mean; the key names the milestones.
    assert_has(&t, &["waiting", "running, ready", "success", "failure", "True", "False", "ready", "rules synced"]);
    assert_has(&t, &["HTTP 2xx", "connection refused", "timed out", "seconds since the start of the run"]);
    assert_has(&t, &["pod/c28-probe:scheduled", "pod/c28-probe:ready", "svc/c28-probe:first_ok"]);
}

#[test]
fn a_crashloop_timeline_names_the_back_off_and_the_exit_code() {
    let dir = TempDir::new("plot-crashloop");
    let t = svg(&["timeline", "models/scenarios/crashloop.yaml", "--until", "3m"], &dir);
    let t = texts(&t);
    assert_has(&t, &["waiting: CrashLoopBackOff", "terminated: error", "Error (1)", "3m0s simulated"]);
    assert_has(&t, &["pod/crashloop/app:restart#1", "pod/crashloop:crashloop"]);
}

#[test]
fn a_rollout_timeline_marks_the_actions_and_names_pods_by_revision() {
    let dir = TempDir::new("plot-rollout");
    let t = svg(&["timeline", "models/scenarios/c28-bad-rollout.yaml"], &dir);
    let t = texts(&t);
    assert_has(&t, &["pod/c28-probe@rev1#1", "pod/c28-probe@rev2#1", "deployment/c28-probe: kubectl apply -f"]);
    assert_has(&t, &["deploy/c28-probe@rev2:progress_deadline_exceeded", "terminating, not serving"]);
}

/// A Job's block: its active count, then its conditions with their
/// reasons, above its pods named by alias (`pod/JOB-INDEX#n`).
#[test]
fn a_job_timeline_shows_the_jobs_counts_and_conditions() {
    let dir = TempDir::new("plot-job");
    let t = svg(&["timeline", "models/scenarios/job-indexed-disruption.yaml"], &dir);
    let t = texts(&t);
    assert_has(&t, &["job/sweep (4 completions, parallelism 2)", "FailureTarget", "Failed", "FailedIndexes"]);
    assert_has(
        &t,
        &[
            "succeeded 3, failed 1",
            "pod/sweep-0#1 (sweep-0-dnvdg) on node-1",
            "pod/sweep-0#2 (sweep-0-chvd2) on node-1",
        ],
    );
}

/// A StatefulSet's and a DaemonSet's lanes: READY and updated of the
/// replicas (the desired nodes) as their controllers write them; the
/// StatefulSet's partitioned rollout leaves 2/3 updated until the partition
/// is lowered.
#[test]
fn a_set_timeline_shows_its_ready_and_updated_pods() {
    let dir = TempDir::new("plot-sets");
    let sts = svg(&["timeline", "models/scenarios/statefulset-rollout.yaml"], &dir);
    assert_has(
        &texts(&sts),
        &["sts/web (OrderedReady)", "ready", "updated", "3/3 ready", "2/3 updated", "3/3 updated"],
    );
    let ds = svg(&["timeline", "models/scenarios/ds-rolling-update.yaml"], &dir);
    assert_has(&texts(&ds), &["ds/agent", "3/3 ready", "1/3 updated", "3/3 updated"]);
}

#[test]
fn png_pictures_are_the_size_of_the_svg_ones_with_text_drawn_from_the_embedded_font() {
    let dir = TempDir::new("plot-png");
    let svg = svg(&["timeline", C28], &dir);
    let png = picture(&["timeline", C28], &dir.path("out.png"));
    assert_eq!(png_size(&png), svg_size(&svg));
    // The title is dark text on white: some pixels of its row are dark.
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let mut reader = decoder.read_info().expect("a valid PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let row = |y: usize| &buf[y * info.line_size..(y + 1) * info.line_size];
    let dark = (10..30).flat_map(|y| row(y).chunks(3).map(|p| p.to_vec()).collect::<Vec<_>>());
    assert!(dark.filter(|p| p.iter().all(|c| *c < 100)).count() > 50, "the title is drawn");
}

#[test]
fn the_same_inputs_give_the_same_bytes_whatever_the_threads() {
    let dir = TempDir::new("plot-determinism");
    let a = picture(&["timeline", C28], &dir.path("a.svg"));
    let b = picture(&["timeline", C28], &dir.path("b.svg"));
    assert!(a == b, "two timelines of the same run differ");
    let one = picture(&["cdf", C28, "--runs", "30", "--jobs", "1"], &dir.path("c.svg"));
    let two = picture(&["cdf", C28, "--runs", "30", "--jobs", "2"], &dir.path("d.svg"));
    assert!(one == two, "the CDF depends on the thread count");
}

#[test]
fn the_cdf_draws_the_key_milestones_or_the_chosen_ones_with_their_medians() {
    let dir = TempDir::new("plot-cdf");
    let t = svg(&["cdf", C28, "--runs", "20"], &dir);
    let t = texts(&t);
    assert_has(&t, &["milestone times over 20 runs (seeds 1–20)", "share of runs that reached it"]);
    assert_has(&t, &["pod/c28-probe:scheduled", "pod/c28-probe:ready   (p50 ", "svc/c28-probe:first_ok"]);
    let chosen = svg(&["cdf", C28, "--runs", "20", "-m", "client/direct:first_ok"], &dir);
    let chosen = texts(&chosen);
    assert_has(&chosen, &["client/direct:first_ok   (p50 "]);
    assert!(!chosen.iter().any(|t| t.contains("pod/c28-probe:ready")), "only the chosen milestone: {chosen:?}");
}

#[test]
fn the_graph_boxes_milestones_with_their_medians_and_lists_the_races() {
    let dir = TempDir::new("plot-graph");
    let t = svg(&["graph", C28, "--runs", "20"], &dir);
    let t = texts(&t);
    assert_has(&t, &["what always happens before what, over 20 runs", "endpoint_ready(pod/c28-probe)", "p50 "]);
    // Each race names first the milestone with the earlier median.
    assert_has(&t, &["Orders that vary between runs:", "pod/c28-probe:ready before client/direct:first_ok"]);
}

#[test]
fn a_graph_of_chosen_milestones_keeps_the_orderings_through_the_others() {
    let dir = TempDir::new("plot-graph-chosen");
    let chosen = ["pod/c28-probe:scheduled", "pod/c28-probe:ready", "svc/c28-probe:first_ok"];
    let mut args = vec!["graph", C28, "--runs", "20"];
    args.extend(chosen.iter().flat_map(|m| ["-m", m]));
    let svg = svg(&args, &dir);
    let t = texts(&svg);
    assert_has(&t, &["scheduled", "ready", "first_ok"]);
    assert!(!t.iter().any(|t| t.contains("initialized")), "only the chosen boxes: {t:?}");
    // Two arrows: scheduled → ready → first_ok, each a path and an arrowhead.
    assert_eq!(svg.matches("<polygon").count(), 2, "{svg}");
}

#[test]
fn an_unknown_milestone_is_refused_with_the_names_the_runs_reached() {
    let dir = TempDir::new("plot-unknown");
    let out = dir.path("out.svg");
    let run = podsim(["plot", "cdf", C28, "--runs", "3", "-m", "pod/c28-probe:redy", "-o", &out]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("--milestone \"pod/c28-probe:redy\": no milestone matches it"), "{run:?}");
    assert!(run.stderr.contains("  pod/c28-probe:ready\n"), "the known names are listed: {run:?}");
    assert!(fs::metadata(&out).is_err(), "no picture for bad input");
    let run = podsim(["plot", "graph", C28, "--runs", "3", "-m", "nope", "-o", &out]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("--milestone \"nope\": no milestone matches it"), "{run:?}");
}

#[test]
fn an_unknown_extension_is_refused_before_anything_runs() {
    let dir = TempDir::new("plot-ext");
    for (picture, out) in [("timeline", "out.jpg"), ("graph", "out")] {
        let out = dir.path(out);
        let run = podsim(["plot", picture, C28, "-o", &out]);
        assert_bad_input(&run);
        assert!(run.stderr.contains("the file name must end in .svg or .png"), "{run:?}");
    }
    let run = podsim(["plot", "timeline", "models/scenarios/nope.yaml", "-o", &dir.path("x.svg")]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("nope.yaml"), "{run:?}");
}
