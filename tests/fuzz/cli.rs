//! The CLI grammar cases: a command of the table in `flags.rs`, a real base
//! scenario, and up to four of the command's flags (now and then another
//! command's), each with a real value that may be mutated.

use super::corpus::{self, Scenario};
use super::flags::{COMMANDS, Cmd, INPUT_FLAGS, SWITCHES, values};
use super::harness::{BUDGET, Case};
use super::made;
use super::words::{self, WordEdit};
use proptest::prelude::*;
use proptest::sample::Index;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// Scenarios whose objects the table's values name (pod/web, node/node-1, …).
const BASES: &[&str] = &[
    "c28-service",
    "drain",
    "rollout-10",
    "job-indexed-disruption",
    "reboot",
    "statefulset-rollout",
    "ds-rolling-update",
    "cordon",
    "evict",
];

#[derive(Clone, Debug)]
pub struct FlagCase {
    cmd: Index,
    base: Index,
    positional: (Index, Option<WordEdit>),
    /// (a flag of the command, or of any command; its value; a mutation of it)
    flags: Vec<(bool, Index, Index, Option<WordEdit>)>,
}

pub fn case() -> impl Strategy<Value = FlagCase> {
    let value_edit = || prop_oneof![1 => Just(None), 2 => words::edit().prop_map(Some)];
    let flag = (prop::bool::weighted(0.05), any::<Index>(), any::<Index>(), value_edit());
    (any::<Index>(), any::<Index>(), (any::<Index>(), value_edit()), proptest::collection::vec(flag, 0..=4))
        .prop_map(|(cmd, base, positional, flags)| FlagCase { cmd, base, positional, flags })
}

fn base(c: &FlagCase) -> &'static Scenario {
    let name = BASES[c.base.index(BASES.len())];
    corpus::scenarios().iter().find(|s| s.doc.name() == format!("{name}.yaml")).expect("a base scenario")
}

/// A `{…}` placeholder of the table as a real file.
fn resolve(case: &mut Case, value: &str, s: &Scenario) -> OsString {
    let real = |p: std::path::PathBuf| p.into_os_string();
    match value {
        "{manifest}" => real(s.manifests[0].clone()),
        "{app}" => real(s.app.clone().unwrap_or_else(|| corpus::path("models/apps/c28-probe.yaml"))),
        "{cluster}" => real(s.cluster.clone().unwrap_or_else(|| corpus::path("models/clusters/default.yaml"))),
        "{scenario}" => real(s.doc.path.clone()),
        "{dir}" => real(corpus::path("models/manifests")),
        "{trace}" => {
            let all = corpus::recordings();
            real(all[s.doc.bytes.len() % all.len()].path.clone())
        }
        "{partial}" => real(case.write("partial-0.jsonl", &made::partials()[0][0].bytes)),
        "{props}" => real(case.write("properties.txt", b"never restarts(pod/*) > 0\n")),
        other => other.into(),
    }
}

/// A value, mutated or not; `--runs` kept small when it is a valid count
/// (a million runs is a long job, not a bug).
fn value(case: &mut Case, flag: &str, pick: &Index, edit: &Option<WordEdit>, s: &Scenario, check: bool) -> OsString {
    let vals = values(flag);
    let v = resolve(case, vals[pick.index(vals.len())], s);
    let v = match edit {
        // NUL as the case passes it (an argument cannot hold one).
        Some(e) => OsString::from_vec(
            words::apply(&v.to_string_lossy(), e).iter().map(|&b| if b == 0 { b'0' } else { b }).collect(),
        ),
        None => v,
    };
    // check's --runs stops at 100,000; the others take any u32.
    let most = if check { 100_000 } else { u32::MAX as u64 };
    if flag == "--runs" && v.to_str().and_then(|t| t.trim().parse::<u64>().ok()).is_some_and(|n| n > 8 && n <= most) {
        return "3".into();
    }
    v
}

pub fn build(c: &FlagCase) -> Case {
    let cmd: &Cmd = &COMMANDS[c.cmd.index(COMMANDS.len())];
    let s = base(c);
    let mut case = Case::new("flags");
    case.args(cmd.words.iter().copied());
    if !cmd.positional.is_empty() {
        let (pick, edit) = &c.positional;
        let v = resolve(&mut case, cmd.positional[pick.index(cmd.positional.len())], s);
        let v = match edit {
            Some(e) => OsString::from_vec(words::apply(&v.to_string_lossy(), e)),
            None => v,
        };
        case.arg(v);
    }
    if cmd.inputs {
        case.real(&s.doc.path);
        case.reads.extend(s.reads.iter().cloned());
    }
    let mut given = Vec::new();
    for (any_cmd, f, v, edit) in &c.flags {
        let pool: Vec<&str> = if *any_cmd {
            COMMANDS.iter().flat_map(|c| c.flags.iter().copied()).chain(INPUT_FLAGS.iter().copied()).collect()
        } else {
            cmd.flags.iter().copied().chain(if cmd.inputs { INPUT_FLAGS } else { &[] }.iter().copied()).collect()
        };
        let flag = pool[f.index(pool.len())];
        given.push(flag);
        case.arg(flag);
        if !SWITCHES.contains(&flag) {
            let v = value(&mut case, flag, v, edit, s, cmd.words == ["check"]);
            case.arg(v);
        }
    }
    // What the command needs and the case did not give: a short run, few
    // runs on one thread, an output file, a property.
    let name = cmd.words.join(" ");
    let missing = |f: &str| !given.contains(&f);
    if cmd.inputs && missing("--until") {
        case.args(["--until", "20s"]);
    }
    if cmd.inputs && missing("--max-events") {
        case.args(BUDGET);
    }
    if matches!(name.as_str(), "verify" | "predict" | "plot cdf" | "plot graph") && missing("--runs") {
        case.args(["--runs", "2"]);
    }
    if (cmd.inputs && name != "run") && missing("--jobs") && cmd.flags.contains(&"--jobs") {
        case.args(["--jobs", "1"]);
    }
    if name == "check" && !missing("--against") && missing("--runs") {
        case.args(["--runs", "3"]);
    }
    if missing("--output") {
        match name.as_str() {
            "report" => case.args(["-o", "out.html"]),
            "plot timeline" | "plot cdf" | "plot graph" => case.args(["-o", "out.svg"]),
            _ => &mut case,
        };
    }
    if name == "verify" && missing("--property") && missing("--properties") {
        case.args(["-p", "never restarts(pod/*) > 0"]);
    }
    case
}
