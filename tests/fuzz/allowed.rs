//! Exit-2 messages that name neither an input file nor a `--flag`.
//!
//! [`LEGIT`] are right not to: each is about a positional argument that is
//! neither (`get`'s and `describe`'s RESOURCE) or about the set of files
//! given rather than one of them. [`FINDINGS`] are messages that should name
//! where the bad input is and do not; they are listed in
//! `/work/notes/fuzz-findings.md` and tolerated so that a deep run goes on
//! past them; `PODSIM_FUZZ_STRICT=1` makes them fail again.

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
];

/// Each finding: the failure it tolerates (`UNNAMED`, `PANIC`, …) and the
/// substrings that must all be in stderr.
const FINDINGS: &[(&str, &[&str])] = &[
    // F1: a property naming an object no run has, from -p or --properties FILE:
    // `error: pod/nope: no such object in any of the first 2 runs (they have: …)`
    ("UNNAMED", &[": no such object in any of the first"]),
    // F2: merge, a partial whose seeds are outside the sweep, without naming that file:
    // `error: seed 2 is outside the sweep (seeds 5627–5630): a partial result of another sweep`
    ("UNNAMED", &["a partial result of another sweep"]),
    // F3: a scenario's `manifests`, `app` or `cluster` path that does not resolve, without the
    // scenario's file and line (an `actions[].apply` path has them):
    // `error: the path "/tmp/../manifests/nope.yaml" does not exist`, `error: cannot read /tmp/status: …`
    ("UNNAMED", &["error: the path \""]),
    ("UNNAMED", &["error: cannot read "]),
    // F4: check of a podsim trace whose `t` is huge (i64::MAX): the epoch plus t overflows
    // (src/observe/json.rs, then src/observe/when.rs Span::exact); a panic in a debug build.
    ("PANIC", &["attempt to add with overflow", "src/observe/"]),
];

/// The message is one that is right to name no file or flag.
pub fn legit(stderr: &str) -> bool {
    LEGIT.iter().any(|k| stderr.contains(k))
}

/// The failure `why` (`PANIC: …`) with this stderr is a known finding (and
/// the run is not strict).
pub fn known_finding(why: &str, stderr: &str) -> bool {
    let strict = std::env::var_os("PODSIM_FUZZ_STRICT").is_some_and(|v| v == "1");
    !strict && FINDINGS.iter().any(|(class, all)| why.starts_with(class) && all.iter().all(|k| stderr.contains(k)))
}
