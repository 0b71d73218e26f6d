//! Rows of `kubectl get rs|deploy|sts|job [-w]` (also `-o wide`, `-A`,
//! `--output-watch-events`, and `kind.group/name` names of multi-kind gets),
//! as `printReplicaSet`, `printDeployment`, `printStatefulSet` and
//! `printJob` print them (pkg/printers/internalversion/printers.go).

use super::age::parse_age;
use super::get_events::split_columns;
use super::lines::strip_note;
use super::table::Col;
use crate::observe::{Printed, Workload, WorkloadRow};

/// Which controller a table shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum WorkloadTable {
    ReplicaSet,
    Deployment,
    StatefulSet,
    Job,
}

/// The table of a header (`NAMESPACE` and `EVENT` aside, `-o wide`'s extra
/// columns after AGE allowed); `kinds` are the command's resources, if known.
pub(super) fn workload_table(names: &[&str], kinds: &[String]) -> Option<WorkloadTable> {
    let plain: Vec<&str> = names.iter().copied().filter(|n| !matches!(*n, "NAMESPACE" | "EVENT")).collect();
    let upto_age = plain.iter().position(|n| *n == "AGE").map(|p| &plain[..=p])?;
    let table = match upto_age {
        ["NAME", "DESIRED", "CURRENT", "READY", "AGE"] => WorkloadTable::ReplicaSet,
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"] => WorkloadTable::Deployment,
        ["NAME", "COMPLETIONS", "DURATION", "AGE"] | ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"] => {
            WorkloadTable::Job
        }
        // Only StatefulSets print exactly these, unless the command names another kind
        // (`kubectl get all` lists StatefulSets among its kinds).
        ["NAME", "READY", "AGE"] if kinds.is_empty() || kinds.iter().any(|k| k == "statefulset" || k == "all") => {
            WorkloadTable::StatefulSet
        }
        _ => return None,
    };
    Some(table)
}

fn count(t: &str, col: &str) -> Result<u32, String> {
    t.parse().map_err(|_| format!("{col} `{t}` is not a count"))
}

/// `3/5` → (3, 5).
fn fraction(t: &str, col: &str) -> Result<(u32, u32), String> {
    let (a, b) = t.split_once('/').ok_or_else(|| format!("{col} `{t}` is not `n/m`"))?;
    Ok((count(a, col)?, count(b, col)?))
}

/// One row: its watch event (`--output-watch-events`) and the row, or why
/// it cannot be read. The cells are cut by the header's column positions
/// when the row is aligned with it (a Job's DURATION is empty before it
/// starts), else by whitespace.
pub(super) fn read_workload_row(
    table: WorkloadTable,
    cols: &[Col],
    text: &str,
) -> Result<(Option<String>, WorkloadRow), String> {
    let text = strip_note(text);
    // Aligned: no cell but COMPLETIONS (`1/1 of 3`) and the last holds a space.
    let aligned = |cells: &Vec<&str>| {
        cells.iter().zip(cols).all(|(c, col)| col.name == "COMPLETIONS" || !c.contains(char::is_whitespace))
    };
    let cells: Vec<&str> = match split_columns(text, cols).filter(aligned) {
        Some(cells) => cells,
        None => {
            let mut tokens: Vec<&str> = text.split_whitespace().collect();
            // A Job not started yet has no DURATION: one cell short.
            let duration = cols.iter().position(|c| c.name == "DURATION");
            if let Some(d) = duration.filter(|_| tokens.len() + 1 == cols.len() && table == WorkloadTable::Job) {
                tokens.insert(d.min(tokens.len()), "");
            }
            tokens
        }
    };
    let cell = |name: &str| {
        cols.iter().position(|c| c.name == name).and_then(|i| cells.get(i).copied()).filter(|c| !c.is_empty())
    };
    let need = |name: &str| cell(name).ok_or_else(|| format!("no {name} column"));
    let full = need("NAME")?;
    // `replicaset.apps/web-5d8` in `kubectl get deploy,rs`.
    let name = full.split_once('/').map_or(full, |(_, n)| n).to_string();
    let (age, _) = parse_age(need("AGE")?)?;
    let shows = match table {
        WorkloadTable::ReplicaSet => Workload::ReplicaSet {
            desired: count(need("DESIRED")?, "DESIRED")?,
            current: count(need("CURRENT")?, "CURRENT")?,
            ready: count(need("READY")?, "READY")?,
        },
        WorkloadTable::Deployment => {
            let (ready, desired) = fraction(need("READY")?, "READY")?;
            let updated = count(need("UP-TO-DATE")?, "UP-TO-DATE")?;
            Workload::Deployment { ready, desired, updated, available: count(need("AVAILABLE")?, "AVAILABLE")? }
        }
        WorkloadTable::StatefulSet => {
            let (ready, desired) = fraction(need("READY")?, "READY")?;
            Workload::StatefulSet { ready, desired }
        }
        WorkloadTable::Job => {
            // `2/3`, or `1/1 of 3` for a Job without completions.
            let c = need("COMPLETIONS")?;
            let (succeeded, completions) = match c.split_once('/') {
                Some((s, rest)) if rest.contains(" of ") => (count(s, "COMPLETIONS")?, None),
                _ => {
                    let (s, of) = fraction(c, "COMPLETIONS")?;
                    (s, Some(of))
                }
            };
            let duration = match cell("DURATION") {
                Some(d) => Some(parse_age(d)?.0),
                None => None,
            };
            Workload::Job { succeeded, completions, duration, status: cell("STATUS").map(str::to_string) }
        }
    };
    let watch = cell("EVENT").map(str::to_string);
    let namespace = cell("NAMESPACE").map(str::to_string);
    Ok((watch, WorkloadRow { namespace, name, shows, age, printed: Printed::Snapshot }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::text::testing::*;
    use crate::observe::{Observed, Span};

    fn workloads(records: &[crate::observe::Record]) -> Vec<(u64, &WorkloadRow)> {
        records
            .iter()
            .filter_map(|r| match &r.observed {
                Observed::Workload(w) => Some((r.origin.line, w)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn trace_021_replicasets() {
        let (records, problems) =
            read(trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/b-stuck-rollout-get-rs.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].1.name, "nginx-deployment-3066724191");
        assert_eq!(rows[2].1.shows, Workload::ReplicaSet { desired: 1, current: 1, ready: 0 });
        assert_eq!((rows[2].1.age, rows[2].1.printed), (secs(6), Printed::Snapshot));
    }

    #[test]
    fn trace_018_job_watch_with_an_empty_duration() {
        let (records, problems) =
            read(trace!("018-job-completions-sequential-and-cronjob-watch/watch-cronjob1-jobs.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.len(), 8);
        let job = |i: usize| match &rows[i].1.shows {
            Workload::Job { succeeded, completions, duration, .. } => (*succeeded, *completions, *duration),
            other => panic!("{other:?}"),
        };
        assert_eq!(job(0), (0, Some(1), Some(secs(2))));
        // `cronjob1-1578572400   0/1                      0s`: not started, no DURATION.
        assert_eq!(job(2), (0, Some(1), None));
        assert_eq!(rows[2].1.age, secs(0));
        // A watch: the first row of each Job lists it, the next ones are its changes.
        let printed: Vec<Printed> = rows.iter().map(|(_, r)| r.printed).collect();
        use Printed::*;
        assert_eq!(printed, [Snapshot, Change, Snapshot, Change, Change, Snapshot, Change, Change]);
    }

    #[test]
    fn deployments_statefulsets_and_jobs_with_status() {
        let text = "\
$ kubectl get deploy,sts -A
NAMESPACE   NAME                    READY   UP-TO-DATE   AVAILABLE   AGE
shop        deployment.apps/web     2/3     3            2           5m

NAMESPACE   NAME                    READY   AGE
shop        statefulset.apps/db     1/3     40s
$ kubectl get jobs
NAME             STATUS     COMPLETIONS   DURATION   AGE
fail-never       Failed     0/1           4m23s      4m23s     ← same
pi               Running    1/1 of 3      9s         9s
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.len(), 4);
        assert_eq!(
            (rows[0].1.namespace.as_deref(), rows[0].1.name.as_str()),
            (Some("shop"), "web"),
            "`deployment.apps/` dropped"
        );
        assert_eq!(rows[0].1.shows, Workload::Deployment { ready: 2, desired: 3, updated: 3, available: 2 });
        assert_eq!(rows[1].1.shows, Workload::StatefulSet { ready: 1, desired: 3 });
        let Workload::Job { status, duration, .. } = &rows[2].1.shows else { panic!() };
        assert_eq!((status.as_deref(), *duration), (Some("Failed"), Some(Span { lo: 263_000, hi: 264_000 })));
        let Workload::Job { succeeded, completions, .. } = &rows[3].1.shows else { panic!() };
        assert_eq!((*succeeded, *completions), (1, None));
        assert!(rows.iter().all(|(_, r)| r.printed == Printed::Snapshot), "one-shot gets list snapshots");
    }

    /// `kubectl get all` prints a StatefulSet table (`NAME READY AGE`,
    /// `statefulset.apps/db`) among the others: read after its prompt too.
    #[test]
    fn kubectl_get_all_lists_statefulsets() {
        let text = "\
$ kubectl get all
NAME                         READY   STATUS    RESTARTS   AGE
pod/web-5d8f7c9b4-abcde      1/1     Running   0          2m

NAME                 TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)   AGE
service/web          ClusterIP   10.96.100.200   <none>        80/TCP    2m

NAME                   READY   AGE
statefulset.apps/db    1/1     5m
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].1.name.as_str(), &rows[0].1.shows),
            ("db", &Workload::StatefulSet { ready: 1, desired: 1 })
        );
    }

    #[test]
    fn a_bad_row_is_reported() {
        let (records, problems) = read("NAME  DESIRED  CURRENT  READY  AGE\nweb-1  3  x  1  5s\n");
        assert!(records.is_empty());
        assert_eq!(
            messages(&problems),
            ["test.txt:2:1: cannot read this row of the ReplicaSet table: CURRENT `x` is not a count"]
        );
    }
}
