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
    // -f of files that declare no pod, as a whole (it lists what it read):
    // `error: the manifests declare no Pod: podsim needs one to simulate, …; read: …`
    "the manifests declare no Pod",
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
    // F5: a StatefulSet of 1,000,000,000 replicas: the controller's plan allocates a vector
    // of every ordinal (8 GB) and aborts under the memory limit.
    ("SIGNAL", &["memory allocation of", "statefulset::controller"]),
    // F8: --seed near u64::MAX: the run's seed `first_seed + i` overflows (src/predict/mod.rs,
    // src/verify/mod.rs); a panic in a debug build, seeds wrapping to 0 in a release one.
    ("PANIC", &["attempt to add with overflow", "src/predict/mod.rs"]),
    ("PANIC", &["attempt to add with overflow", "src/verify/mod.rs"]),
    // F9: an object name longer than 65,535 characters (a traffic client's `name:`) makes the
    // table's column width overflow std::fmt's: `panicked at src/trace/table.rs: Formatting
    // argument out of range`.
    ("PANIC", &["Formatting argument out of range"]),
    // F10: a bad readiness-gate condition in a scenario's `gates:` is reported without the
    // scenario's file and line, and with its field twice: `error: gates: gates: condition "…": …`
    ("UNNAMED", &["error: gates: "]),
    // F11: a -m/--milestone pattern no run reached is quoted (Rust-escaped) but the flag is not
    // named: `error: no milestone matches "\u{feff}[*a"; the runs reached these: …`
    ("UNNAMED", &["error: no milestone matches"]),
];

/// F6: a workload of tens of thousands of replicas or more runs for minutes
/// and takes gigabytes whatever `--max-events` says (100,000 replicas: 57 s
/// and 1.2 GB for 20 simulated seconds). A timeout of a case whose input
/// asks for 10,000 replicas or more is this finding.
fn huge_replicas(inputs: &[Vec<u8>]) -> bool {
    inputs.iter().any(|b| {
        let text = String::from_utf8_lossy(b);
        text.match_indices("replicas").any(|(i, _)| {
            let rest = text[i + "replicas".len()..].trim_start_matches(['"', ':', ' ']);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.len() >= 5
        })
    })
}

/// The message is one that is right to name no file or flag.
pub fn legit(stderr: &str) -> bool {
    LEGIT.iter().any(|k| stderr.contains(k))
}

/// The failure `why` (`PANIC: …`) with this stderr, of a case with these
/// input files, is a known finding (and the run is not strict).
pub fn known_finding(why: &str, stderr: &str, inputs: &[Vec<u8>]) -> bool {
    let strict = std::env::var_os("PODSIM_FUZZ_STRICT").is_some_and(|v| v == "1");
    let listed = FINDINGS.iter().any(|(class, all)| why.starts_with(class) && all.iter().all(|k| stderr.contains(k)));
    !strict && (listed || (why.starts_with("TIMEOUT") && huge_replicas(inputs)))
}

#[test]
fn huge_replicas_are_read_in_yaml_and_json() {
    assert!(huge_replicas(&[b"spec:\n  replicas: 1000000000\n".to_vec()]));
    assert!(huge_replicas(&[b"{\"replicas\": 10000}".to_vec()]));
    assert!(!huge_replicas(&[b"replicas: 3\nreadyReplicas: 1000".to_vec()]));
}
