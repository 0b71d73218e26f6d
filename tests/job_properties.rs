//! Property test of the Job controller: random Jobs (NonIndexed or
//! Indexed, parallelism, completions, restartPolicy, backoffLimit) whose
//! pods all succeed or all fail after a random time. Whatever the draws:
//!
//! - the run keeps every invariant, among them `job-parallelism` (never
//!   more active pods than parallelism) and `job-replacement-backoff`;
//! - a Job whose pods succeed ends Complete after SuccessCriteriaMet
//!   (reason CompletionsReached), with `completionTime` equal to the
//!   Complete condition's time, `succeeded` at least its completions (an
//!   Indexed Job: exactly, every index listed in `completedIndexes`) and
//!   nothing failed (`syncJob`, `trackJobStatusAndRemoveFinalizers`);
//! - a Job whose pods fail ends Failed after FailureTarget, both
//!   BackoffLimitExceeded, with no `completionTime`; under Never it counted
//!   more failures than backoffLimit and created at most backoffLimit +
//!   parallelism pods (`failed > backoffLimit` stops it; pods already
//!   running when it stops are the only extra ones).
//!
//! `PROPTEST_CASES=256 cargo test --release --test job_properties` runs a deeper search.

use podsim::api::job::{ApiJob, JobConditionType};
use podsim::app::Behaviours;
use podsim::cluster::Cluster;
use podsim::error::SourceFile;
use podsim::invariants::check_run;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::time::SimTime;
use podsim::trace::Record;
use podsim::trace::render::Clock;
use proptest::prelude::*;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Case {
    indexed: bool,
    parallelism: u32,
    /// `None`: a work queue (NonIndexed only).
    completions: Option<u32>,
    never: bool,
    backoff_limit: u32,
    /// Whether every pod's container exits 0 (else 1), and after how long.
    succeed: bool,
    runs_for: u32,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (any::<bool>(), 1u32..4, prop::option::of(1u32..5), any::<bool>(), 0u32..4, any::<bool>(), 1u32..8, any::<u64>())
        .prop_map(|(indexed, parallelism, completions, never, backoff_limit, succeed, runs_for, seed)| Case {
            indexed,
            parallelism,
            completions: if indexed { Some(completions.unwrap_or(2)) } else { completions },
            never,
            backoff_limit,
            succeed,
            runs_for,
            seed,
        })
}

impl Case {
    fn manifest(&self) -> String {
        let mode = if self.indexed { "  completionMode: Indexed\n" } else { "" };
        let completions = self.completions.map(|c| format!("  completions: {c}\n")).unwrap_or_default();
        let policy = if self.never { "Never" } else { "OnFailure" };
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: batch}}\nspec:\n  parallelism: {}\n{completions}{mode}  backoffLimit: {}\n  template:\n    spec:\n      restartPolicy: {policy}\n      containers:\n      - {{name: main, image: registry.example/batch:1}}\n",
            self.parallelism, self.backoff_limit
        )
    }

    fn app(&self) -> String {
        let code = if self.succeed { 0 } else { 1 };
        format!("containers:\n  main: {{exit: {{after: {}s, code: {code}}}}}\n", self.runs_for)
    }
}

fn file(name: &str, text: String) -> Arc<SourceFile> {
    Arc::new(SourceFile { name: name.into(), text })
}

/// The Job as last written, and how many pods it created.
fn run(c: &Case) -> Result<(Arc<ApiJob>, usize), String> {
    let text = c.manifest();
    let manifests = Manifests::load(&[file("job.yaml", text.clone())]).map_err(|e| format!("{e:?}\n{text}"))?;
    let behaviours = Behaviours::load(&file("app.yaml", c.app())).map_err(|e| format!("{e:?}"))?;
    let cluster = Cluster::load(&file("cluster.yaml", "nodes: [{name: node-1}, {name: node-2}]\n".into())).unwrap();
    let epoch = DEFAULT_EPOCH.parse().unwrap();
    let (setup, _) =
        setup(manifests, behaviours, cluster, epoch, ScenarioParts::default()).map_err(|e| format!("{e:?}\n{text}"))?;
    let until = SimTime::from_millis(600_000);
    let trace = simulate(&setup, c.seed, until);
    let report = check_run(&trace, &Clock { epoch }, &setup, until);
    if report.violated() {
        return Err(format!("{}\n{text}", report.render_violations()));
    }
    let mut job = None;
    let mut pods = 0;
    for e in &trace.entries {
        match &e.record {
            Record::Job { job: j, .. } => job = Some(j.clone()),
            Record::Pod { kind, .. } if *kind == podsim::trace::record::WatchKind::Added => pods += 1,
            _ => {}
        }
    }
    Ok((job.ok_or("no Job record")?, pods))
}

fn holds(c: &Case) -> Result<(), String> {
    let (job, pods) = run(c)?;
    let s = &job.status;
    let kinds: Vec<JobConditionType> = s.conditions.iter().filter(|x| x.status).map(|x| x.kind).collect();
    let fail = |why: &str| Err(format!("{why}: {s:#?}\n{}", c.manifest()));
    if c.succeed {
        if kinds != [JobConditionType::SuccessCriteriaMet, JobConditionType::Complete] {
            return fail("SuccessCriteriaMet then Complete");
        }
        if s.conditions.iter().any(|x| x.reason != "CompletionsReached") {
            return fail("reason CompletionsReached");
        }
        let complete = s.condition(JobConditionType::Complete).map(|x| x.last_transition);
        if s.completion_time.is_none() || s.completion_time != complete {
            return fail("completionTime is Complete's time");
        }
        if s.succeeded < c.completions.unwrap_or(1) || s.failed != 0 || s.active != 0 {
            return fail("succeeded ≥ completions, nothing failed or active");
        }
        if c.indexed {
            let n = c.completions.unwrap_or(0);
            let all = podsim::spec::job::Intervals::of(0..n);
            if s.succeeded != n || s.completed_indexes.as_ref() != Some(&all) {
                return fail("every index completed once");
            }
        }
    } else {
        if kinds != [JobConditionType::FailureTarget, JobConditionType::Failed] {
            return fail("FailureTarget then Failed");
        }
        if s.conditions.iter().any(|x| x.reason != "BackoffLimitExceeded") {
            return fail("reason BackoffLimitExceeded");
        }
        if s.completion_time.is_some() {
            return fail("a failed Job has no completionTime");
        }
        if c.never && (s.failed <= c.backoff_limit || pods as u32 > c.backoff_limit + c.parallelism) {
            return fail(&format!("failed > backoffLimit, at most backoffLimit + parallelism pods ({pods})"));
        }
    }
    Ok(())
}

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn a_job_ends_as_the_controller_rules_say(c in case()) {
        let r = holds(&c);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// The property is not vacuous: a failing Job under Never with backoffLimit
/// 2 makes three pods, one after the other.
#[test]
fn a_failing_job_makes_backoff_limit_plus_one_pods() {
    let c = Case {
        indexed: false,
        parallelism: 1,
        completions: Some(1),
        never: true,
        backoff_limit: 2,
        succeed: false,
        runs_for: 2,
        seed: 1,
    };
    let (job, pods) = run(&c).unwrap();
    assert_eq!((pods, job.status.failed), (3, 3));
    assert!(holds(&c).is_ok());
}
