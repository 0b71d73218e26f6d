//! Exit-2 messages that name neither an input file nor a `--flag`, and are
//! right not to: each is about a positional argument that is neither
//! (`get`'s and `describe`'s RESOURCE) or about the set of files given
//! rather than one of them. (The findings the suite made, F1–F11, are fixed;
//! their regression tests are in tests/cli/robustness.rs and beside the
//! code they touched.)

const LEGIT: &[&str] = &[
    // get/describe RESOURCE: `error: resource "pod/": podsim describes one object, as KIND/NAME`
    "error: resource \"",
    // describe RESOURCE of an unknown kind: `error: the server doesn't have a resource type "namespace"`
    "error: the server doesn't have a resource type",
    // man COMMAND: `error: `podsim` has no command "" (it has: run, …)`
    "has no command",
    // merge, seeds no file holds: `error: seed 1 is in none of the 1 partial result(s) given: a shard is missing`
    "partial result(s) given",
    // check, files that hold nothing to judge, as a whole: `podsim: nothing to check: no pod, event, …`
    "podsim: nothing to check",
    // -f of files that declare no pod, as a whole (it lists what it read):
    // `error: the manifests declare no Pod: podsim needs one to simulate, …; read: …`
    "the manifests declare no Pod",
];

/// The message is one that is right to name no file or flag.
pub fn legit(stderr: &str) -> bool {
    LEGIT.iter().any(|k| stderr.contains(k))
}

/// Open findings: messages that should name where the bad input is and do
/// not. They are tolerated so that a deep run goes on past them;
/// `PODSIM_FUZZ_STRICT=1` makes them fail.
const FINDINGS: &[&str] = &[
    // None open: the last (F3, a scenario's `app` or `cluster` naming a directory) is
    // located at its field since the issue-22 stop of 2026-12-05.
];

/// The message is an open finding (and the run is not strict).
pub fn known_finding(stderr: &str) -> bool {
    let strict = std::env::var_os("PODSIM_FUZZ_STRICT").is_some_and(|v| v == "1");
    !strict && FINDINGS.iter().any(|k| stderr.contains(k))
}
