//! Structure-aware fuzzing of every input podsim reads, on the stable
//! toolchain: real files (manifests, behaviours, cluster profiles,
//! scenarios, recordings, predict partials, properties, flag values) are
//! parsed to value trees, mutated (type swaps, deletions, unknown and
//! duplicated keys, extreme numbers, unicode, deep nesting, dangling
//! references, anchors and aliases) and as text (truncation, flipped bytes,
//! invalid UTF-8, extra documents), and the `podsim` binary is run on them.
//!
//! Every case must end with exit 0, 1 or 2: no panic, no signal (an abort
//! under `ulimit -v` included), no timeout; an exit 2 must name a file or a
//! flag. Each input kind is its own test, with `PROPTEST_CASES` cases (48 by
//! default); a deep run: `PROPTEST_CASES=100000 cargo test --release --test fuzz`.
//! A failure prints the command that reproduces it and keeps its inputs in
//! `$CARGO_TARGET_TMPDIR/fuzz-failures/KIND/`.

#[path = "fuzz/allowed.rs"]
mod allowed;
#[path = "fuzz/cli.rs"]
mod cli;
#[path = "fuzz/corpus.rs"]
mod corpus;
#[path = "fuzz/edit.rs"]
mod edit;
#[path = "fuzz/emit.rs"]
mod emit;
#[path = "fuzz/flags.rs"]
mod flags;
#[path = "fuzz/harness.rs"]
mod harness;
#[path = "fuzz/made.rs"]
mod made;
#[path = "fuzz/props.rs"]
mod props;
#[path = "fuzz/simulate.rs"]
mod simulate;
#[path = "fuzz/stats.rs"]
mod stats;
#[path = "fuzz/text.rs"]
mod text;
#[path = "fuzz/tree.rs"]
mod tree;
#[path = "fuzz/words.rs"]
mod words;

use corpus::{Doc, Scenario};
use edit::{Edit, edit, render};
use harness::{BUDGET, Case, cases};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use simulate::{Sub, command, sub};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(48), max_shrink_time: 120_000, ..ProptestConfig::default() }
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    case.check().map(drop).map_err(TestCaseError::fail)
}

fn names(cell: &'static OnceLock<Vec<String>>, docs: impl FnOnce() -> Vec<&'static Doc>) -> &'static [String] {
    cell.get_or_init(|| corpus::names(docs()))
}

fn manifest_names() -> &'static [String] {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    names(&C, || corpus::manifests().iter().collect())
}

/// `KIND/NAME` of a manifest's first object, for `describe`.
fn first_object(doc: &Doc) -> String {
    let first = doc.docs.as_ref().and_then(|d| d.first());
    let field = |k: &str| first.and_then(|v| v.get(k)).and_then(|v| v.as_str()).map(str::to_lowercase);
    let name = first.and_then(|v| v["metadata"]["name"].as_str()).unwrap_or("web");
    format!("{}/{name}", field("kind").unwrap_or_else(|| "pod".into()))
}

fn same(a: &Path, b: &Path) -> bool {
    a.canonicalize().ok() == b.canonicalize().ok()
}

/// The run inputs of `scenario` (or the c28 lab's), with `mutated` given for
/// the file `replaced` (a manifest, `--app` or `--cluster`).
fn inputs(case: &mut Case, scenario: Option<&Scenario>, replaced: &Path, mutated: &Path, flag: &str) {
    let c28 = |f: &str| corpus::path(&format!("models/{f}"));
    let manifests = scenario.map_or(vec![c28("manifests/c28-probe.yaml")], |s| s.manifests.clone());
    let app = scenario.map_or(Some(c28("apps/c28-probe.yaml")), |s| s.app.clone());
    let cluster = scenario.map_or(Some(c28("clusters/kind-2.yaml")), |s| s.cluster.clone());
    if flag == "-f" {
        case.arg("-f").arg(mutated);
    }
    for m in manifests.iter().filter(|m| !same(m, replaced)) {
        case.arg("-f").real(m);
    }
    for (f, file) in [("--app", app), ("--cluster", cluster)] {
        if f == flag {
            case.arg(f).arg(mutated);
        } else if let Some(file) = file {
            case.arg(f).real(&file);
        }
    }
}

/// A mutated model file run with its scenario's other inputs.
fn model_case(kind: &'static str, doc: &Doc, flag: &str, e: &Edit, names: &[String], sub: Sub) -> Case {
    let mut case = Case::new(kind);
    let mutated = case.write(&doc.name(), &render(doc, e, names, false));
    let scenario = corpus::scenario_using(&doc.path);
    let target = if flag == "-f" { first_object(doc) } else { "pod/web".into() };
    command(&mut case, sub, true, &target, |c| inputs(c, scenario, &doc.path, &mutated, flag));
    case
}

proptest! {
    #![proptest_config(config())]

    /// 1. Manifests (`models/manifests`, multi-document files too), given with `-f`.
    #[test]
    fn manifests(i in 0..corpus::manifests().len(), e in edit(), sub in sub()) {
        check(&model_case("manifests", &corpus::manifests()[i], "-f", &e, manifest_names(), sub))?;
    }

    /// 2. Behaviour files (`models/apps`), given with `--app`.
    #[test]
    fn behaviours(i in 0..corpus::apps().len(), e in edit(), sub in sub()) {
        static C: OnceLock<Vec<String>> = OnceLock::new();
        let names = names(&C, || corpus::apps().iter().chain(corpus::manifests()).collect());
        check(&model_case("behaviours", &corpus::apps()[i], "--app", &e, names, sub))?;
    }

    /// 3. Cluster profiles (`models/clusters`), given with `--cluster`.
    #[test]
    fn clusters(i in 0..corpus::clusters().len(), e in edit(), sub in sub()) {
        static C: OnceLock<Vec<String>> = OnceLock::new();
        let names = names(&C, || corpus::clusters().iter().chain(corpus::manifests()).collect());
        check(&model_case("clusters", &corpus::clusters()[i], "--cluster", &e, names, sub))?;
    }

    /// 4. Scenarios (`models/scenarios`), their paths made absolute first.
    #[test]
    fn scenarios(i in 0..corpus::scenarios().len(), e in edit(), sub in sub(), until in prop::bool::weighted(0.75)) {
        static C: OnceLock<Vec<String>> = OnceLock::new();
        let names = names(&C, || corpus::scenarios().iter().map(|s| &s.abs).chain(corpus::manifests()).collect());
        let s = &corpus::scenarios()[i];
        let mut case = Case::new("scenarios");
        let path = case.write(&s.doc.name(), &render(&s.abs, &e, names, false));
        case.reads.extend(s.reads.iter().cloned());
        command(&mut case, sub, until, "pod/web", |c| { c.arg(&path); });
        check(&case)?;
    }

    /// 5. Recordings for `podsim check` (`tests/traces/*/`, and podsim's own JSON Lines traces).
    #[test]
    fn recordings(i in any::<prop::sample::Index>(), e in edit(), extra in any::<Option<prop::sample::Index>>(), flag in 0u8..6, s in any::<prop::sample::Index>()) {
        static C: OnceLock<Vec<String>> = OnceLock::new();
        let all: Vec<&Doc> = corpus::recordings().iter().chain(made::traces()).collect();
        let names = names(&C, || corpus::recordings().iter().chain(made::traces()).collect());
        let doc = all[i.index(all.len())];
        let mut case = Case::new("recordings");
        let lines = doc.name().ends_with(".jsonl");
        let path = case.write(&doc.name(), &render(doc, &e, names, lines));
        case.arg("check").arg(&path);
        if let Some(x) = extra {
            case.real(&all[x.index(all.len())].path.clone());
        }
        let scenario = &corpus::scenarios()[s.index(corpus::scenarios().len())];
        match flag {
            1 => { case.args(["--kubernetes", "1.34"]); }
            2 => { case.arg("--cluster").real(&corpus::path("models/clusters/kind.yaml")); }
            3 => { case.args(["-o", "json"]); }
            4 => { case.arg("--against").real(&scenario.doc.path.clone()).args(["--runs", "3"]); }
            _ => {}
        }
        check(&case)?;
    }

    /// 6. Predict partial results for `podsim merge`.
    #[test]
    fn partials(set in any::<prop::sample::Index>(), k in 0usize..2, e in edit(), arrange in 0u8..5, flag in 0u8..5) {
        static C: OnceLock<Vec<String>> = OnceLock::new();
        let names = names(&C, || made::partials().iter().flatten().collect());
        let sets = made::partials();
        let pair = &sets[set.index(sets.len())];
        let mut case = Case::new("partials");
        let mutated = case.write("mutated.jsonl", &render(&pair[k], &e, names, true));
        let other = case.write("other.jsonl", &pair[1 - k].bytes);
        let foreign = case.write("foreign.jsonl", &sets[(set.index(sets.len()) + 1) % sets.len()][1 - k].bytes);
        case.arg("merge");
        let files: Vec<&PathBuf> = match arrange {
            0 => vec![&mutated, &other],
            1 => vec![&mutated],
            2 => vec![&mutated, &mutated],
            3 => vec![&other, &mutated],
            _ => vec![&mutated, &foreign],
        };
        for f in files {
            case.arg(f);
        }
        match flag {
            1 => { case.args(["-o", "json"]); }
            2 => { case.arg("--dot"); }
            3 => { case.args(["-m", "*:ready"]); }
            4 => { case.args(["--orderings", "varies"]); }
            _ => {}
        }
        check(&case)?;
    }

    /// 7. Properties for `podsim verify`: `-p` strings and `--properties` files.
    #[test]
    fn properties(c in any::<prop::sample::Index>(), p in any::<prop::sample::Index>(), w in words::edit(), file in any::<bool>()) {
        let cmd = &props::commands()[c.index(props::commands().len())];
        let which = p.index(cmd.properties.len());
        let mutated = words::apply(&cmd.properties[which], &w);
        let mut case = Case::new("properties");
        case.arg("verify").args(cmd.inputs.iter()).args(["--runs", "2", "--jobs", "1"]).args(BUDGET);
        if file {
            let mut text = b"# properties, one a line\n\n".to_vec();
            for (n, prop) in cmd.properties.iter().enumerate() {
                text.extend_from_slice(if n == which { &mutated } else { prop.as_bytes() });
                text.push(b'\n');
            }
            let path = case.write("properties.txt", &text);
            case.arg("--properties").arg(path);
        } else {
            use std::os::unix::ffi::OsStringExt;
            case.arg("-p").arg(std::ffi::OsString::from_vec(mutated));
        }
        check(&case)?;
    }

    /// 8. Every flag of every command, with mutated real values.
    #[test]
    fn flags(c in cli::case()) {
        check(&cli::build(&c))?;
    }
}
