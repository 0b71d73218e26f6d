//! Rows of `kubectl get rs|deploy|sts|job [-w]` (also `-o wide`, `-A`,
//! `--output-watch-events`, and `kind.group/name` names of multi-kind gets),
//! as `printReplicaSet`, `printDeployment`, `printStatefulSet` and
//! `printJob` print them (pkg/printers/internalversion/printers.go).

use super::age::parse_age;
use super::command::normalize_kind;
use super::get_events::split_columns;
use super::get_pods::is_pod_name;
use super::lines::{strip_note, strip_time_marker};
use super::table::Col;
use super::{Line, Reader};
use crate::observe::{Observed, Printed, Span, Workload, WorkloadRow, human_duration};

/// Which controller a table shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum WorkloadTable {
    ReplicaSet,
    Deployment,
    StatefulSet,
    Job,
    DaemonSet,
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
        ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"] => {
            WorkloadTable::DaemonSet
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
        WorkloadTable::DaemonSet => Workload::DaemonSet {
            desired: count(need("DESIRED")?, "DESIRED")?,
            current: count(need("CURRENT")?, "CURRENT")?,
            ready: count(need("READY")?, "READY")?,
            updated: count(need("UP-TO-DATE")?, "UP-TO-DATE")?,
            available: count(need("AVAILABLE")?, "AVAILABLE")?,
        },
    };
    let watch = cell("EVENT").map(str::to_string);
    let namespace = cell("NAMESPACE").map(str::to_string);
    Ok((watch, WorkloadRow { namespace, name, shows, age, printed: Printed::Snapshot }))
}

/// The STATUS values `printJob` prints.
const JOB_STATUSES: &[&str] = &["Complete", "Failed", "Terminating", "Suspended", "FailureTarget", "Running"];

/// A row of `kubectl get rs|deploy|sts|job` pasted without its header: each
/// controller it can be read as (one, or two for `name 0/1 0s`), and whether
/// it follows a `--- t=10s ---` marker. None when no controller prints it.
///
/// The default columns, as the printers print them:
/// - `printReplicaSet`: NAME DESIRED CURRENT READY AGE, `web-5d8f7c9b4 3 3 2 10s`
///   (`printReplicationController` prints the same: read as a ReplicaSet, as
///   under the header);
/// - `printDeployment`: NAME READY UP-TO-DATE AVAILABLE AGE, `web 2/3 3 2 5m`;
/// - `printStatefulSet`: NAME READY AGE, `db 1/3 40s`;
/// - `printJob`: NAME [STATUS] COMPLETIONS DURATION AGE, `pi Running 1/1 9s 9s`,
///   `pi 0/1 of 3 9s 9s`; DURATION is empty before the Job starts, so
///   `pi 0/1 0s` is a Job's row as much as a StatefulSet's.
pub(super) fn headerless_workload_row(text: &str) -> Option<(Vec<WorkloadRow>, bool)> {
    let (s, marked) = strip_time_marker(text)?;
    let toks: Vec<&str> = s.split_whitespace().collect();
    let (&full, cells) = toks.split_first()?;
    // `job.batch/pi` in a multi-kind get names its kind.
    let (prefix, name) = match full.split_once('/') {
        Some((k, n)) => (Some(normalize_kind(k)), n),
        None => (None, full),
    };
    if !is_pod_name(name) {
        return None;
    }
    let int = |t: &str| t.bytes().all(|b| b.is_ascii_digit()).then(|| t.parse::<u32>().ok()).flatten();
    let frac = |t: &str| t.split_once('/').and_then(|(a, b)| Some((int(a)?, int(b)?)));
    let age = human_duration;
    let job_status = |t: &str| JOB_STATUSES.contains(&t).then(|| t.to_string());
    // A Job's cells after STATUS: COMPLETIONS (`2/3`, `1/1 of 3`), DURATION (or none), AGE.
    let job = |status: Option<String>, cells: &[&str]| -> Option<(Workload, Span)> {
        let (succeeded, completions, rest) = match cells {
            [c, "of", p, rest @ ..] if int(p).is_some() => (frac(c).filter(|(_, one)| *one == 1)?.0, None, rest),
            [c, rest @ ..] => {
                let (s, of) = frac(c)?;
                (s, Some(of), rest)
            }
            [] => return None,
        };
        let (duration, a) = match rest {
            [d, a] => (Some(age(d)?), age(a)?),
            [a] => (None, age(a)?),
            _ => return None,
        };
        Some((Workload::Job { succeeded, completions, duration, status }, a))
    };
    let mut shows: Vec<(Workload, Span)> = Vec::new();
    match cells {
        [d, c, r, a] if int(d).is_some() => {
            if let (Some(desired), Some(current), Some(ready), Some(a)) = (int(d), int(c), int(r), age(a)) {
                shows.push((Workload::ReplicaSet { desired, current, ready }, a));
            }
        }
        [r, u, v, a] if frac(r).is_some() && int(u).is_some() => {
            if let (Some((ready, desired)), Some(updated), Some(available), Some(a)) = (frac(r), int(u), int(v), age(a))
            {
                shows.push((Workload::Deployment { ready, desired, updated, available }, a));
            }
        }
        [r, a] => {
            if let (Some((ready, desired)), Some(a)) = (frac(r), age(a)) {
                shows.push((Workload::StatefulSet { ready, desired }, a));
            }
        }
        _ => {}
    }
    shows.extend(match cells.split_first() {
        Some((st, rest)) if job_status(st).is_some() => job(job_status(st), rest),
        _ => job(None, cells),
    });
    let rows: Vec<WorkloadRow> = shows
        .into_iter()
        .filter(|(w, _)| prefix.as_deref().is_none_or(|k| k.eq_ignore_ascii_case(w.kind())))
        .map(|(shows, age)| WorkloadRow {
            namespace: None,
            name: name.to_string(),
            shows,
            age,
            printed: Printed::Snapshot,
        })
        .collect();
    (!rows.is_empty()).then_some((rows, marked))
}

impl Reader<'_> {
    /// Headerless controller rows from line `i` on: one `kubectl get` of one
    /// resource printed them all (several resources print `kind.group/name`),
    /// so a row that two controllers print alike (`pi 0/1 0s`) is read as
    /// the kind the command line names, else as the kind the other rows of
    /// the block show by their columns; failing both it is reported, not
    /// guessed. Returns the index of the line after the block.
    pub(super) fn headerless_workloads(&mut self, lines: &[Line], i: usize) -> usize {
        let mut block = Vec::new();
        for l in lines.iter().skip(i) {
            match headerless_workload_row(l.text) {
                Some(row) => block.push((l.no, row)),
                None => break,
            }
        }
        let commanded: Vec<String> =
            self.cmd.iter().filter(|c| c.verb == "get").flat_map(|c| c.kinds.iter().cloned()).collect();
        let mut shown: Vec<&'static str> = block
            .iter()
            .filter_map(|(_, (rows, _))| match rows.as_slice() {
                [one] => Some(one.shows.kind()),
                _ => None,
            })
            .collect();
        shown.dedup();
        let next = i + block.len();
        self.read_any = true;
        let mut skipped = Vec::new();
        for (no, (rows, marked)) in block {
            let named = |kind: &str| commanded.iter().any(|k| k.eq_ignore_ascii_case(kind));
            let by_command: Vec<WorkloadRow> = rows.iter().filter(|r| named(r.shows.kind())).cloned().collect();
            let by_block: Vec<WorkloadRow> = rows.iter().filter(|r| shown == [r.shows.kind()]).cloned().collect();
            let mut row = match (rows.as_slice(), by_command.as_slice(), by_block.as_slice()) {
                ([one], _, _) | (_, [one], _) | (_, _, [one]) => one.clone(),
                _ => {
                    skipped.push(no);
                    continue;
                }
            };
            row.printed = self.printed((row.shows.kind(), None, row.name.clone()), None, marked);
            self.emit(no, None, Observed::Workload(row));
        }
        if let Some(&first) = skipped.first() {
            // Only `NAME n/m AGE` is printed alike by two controllers.
            self.warn(
                first,
                format!(
                    "{} row(s) without a header (line(s) {}) that a StatefulSet (NAME READY AGE) and a Job not yet \
                     started (NAME COMPLETIONS AGE, DURATION empty) print alike: skipped; keep the header or the \
                     `kubectl get` line above them",
                    skipped.len(),
                    skipped.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        next
    }
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

    fn job(row: &WorkloadRow) -> (u32, Option<u32>, Option<Span>, Option<&str>) {
        match &row.shows {
            Workload::Job { succeeded, completions, duration, status } => {
                (*succeeded, *completions, *duration, status.as_deref())
            }
            other => panic!("{other:?}"),
        }
    }

    /// Trace 018's second CronJob watch, pasted without `kubectl get job -w`
    /// and its header. Rows 1 and 3 (`0/1`, no DURATION: the Job has no
    /// startTime yet) are printed alike by printStatefulSet; rows 2, 4 and 5
    /// have printJob's three columns, so the whole block is a Job watch.
    #[test]
    fn trace_018_headerless_job_watch() {
        let (records, problems) =
            read(trace!("018-job-completions-sequential-and-cronjob-watch/watch-cronjob2-jobs.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        assert_eq!(rows[0].1.name, "cronjob2-1578573480");
        assert_eq!((job(rows[0].1), rows[0].1.age), ((0, Some(1), None, None), secs(0)));
        assert_eq!(job(rows[1].1), (0, Some(1), Some(secs(0)), None));
        // `1/1  95s  95s`: complete after 95 s.
        assert_eq!((job(rows[4].1), rows[4].1.age), ((1, Some(1), Some(secs(95)), None), secs(95)));
        // Unknown origin, read as a watch: each Job's first row lists it.
        use Printed::*;
        let printed: Vec<Printed> = rows.iter().map(|(_, r)| r.printed).collect();
        assert_eq!(printed, [Snapshot, Change, Snapshot, Change, Change]);
    }

    /// Each controller's default columns, without the header.
    #[test]
    fn headerless_rows_by_their_columns() {
        let text = "\
web-5d8f7c9b4   3   3   2   10s

web   2/3   3   2   5m

pi   Running   1/1 of 3   9s   9s
pi   Complete   3/3   40s   2m
--- t=30s --- web-5d8f7c9b4   3   3   3   30s
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = workloads(&records);
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0].1.shows, Workload::ReplicaSet { desired: 3, current: 3, ready: 2 });
        assert_eq!(rows[0].1.age, secs(10));
        assert_eq!(rows[1].1.shows, Workload::Deployment { ready: 2, desired: 3, updated: 3, available: 2 });
        assert_eq!(rows[1].1.age, Span { lo: 300_000, hi: 360_000 });
        assert_eq!(job(rows[2].1), (1, None, Some(secs(9)), Some("Running")));
        assert_eq!(job(rows[3].1), (3, Some(3), Some(secs(40)), Some("Complete")));
        // A script's marker: a one-shot get, a snapshot.
        assert_eq!(
            (rows[4].1.printed, &rows[4].1.shows),
            (Printed::Snapshot, &Workload::ReplicaSet { desired: 3, current: 3, ready: 3 })
        );
    }

    /// `db 1/3 40s` is a StatefulSet's row or a Job's before it starts: the
    /// `kind.group/` prefix or the command line decides, else it is reported.
    #[test]
    fn a_row_two_controllers_print_alike() {
        let (records, problems) = read("db   1/3   40s\ndb   2/3   45s\n");
        assert!(records.is_empty());
        assert_eq!(
            messages(&problems),
            ["test.txt:1:1: 2 row(s) without a header (line(s) 1, 2) that a StatefulSet (NAME READY AGE) and a Job \
              not yet started (NAME COMPLETIONS AGE, DURATION empty) print alike: skipped; keep the header or the \
              `kubectl get` line above them"]
        );
        for (text, kind) in [
            ("$ kubectl get sts -w\ndb   1/3   40s\n", "StatefulSet"),
            ("$ kubectl get jobs\ndb   1/3   40s\n", "Job"),
            ("statefulset.apps/db   1/3   40s\n", "StatefulSet"),
            ("job.batch/db   1/3   40s\n", "Job"),
        ] {
            let (records, problems) = read(text);
            assert!(problems.is_empty(), "{text}: {:?}", messages(&problems));
            let rows = workloads(&records);
            assert_eq!(rows.iter().map(|(_, r)| (r.name.as_str(), r.shows.kind())).collect::<Vec<_>>(), [("db", kind)]);
        }
        // The block's other rows are all a Job's: so is `web 1/1 9s`.
        let (records, problems) = read("pi   0/1   2s   2s\nweb   1/1   9s\n");
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(workloads(&records).iter().map(|(_, r)| r.shows.kind()).collect::<Vec<_>>(), ["Job", "Job"]);
        // Rows of two kinds in one block: no single kind decides.
        let (records, problems) = read("db   1/3   40s\nweb   2/3   3   2   5m\npi   0/1   2s   2s\n");
        let kinds: Vec<&str> = workloads(&records).iter().map(|(_, r)| r.shows.kind()).collect();
        assert_eq!(kinds, ["Deployment", "Job"]);
        assert_eq!(messages(&problems).len(), 1, "{:?}", messages(&problems));
    }

    /// Other resources' rows are not controllers' rows.
    #[test]
    fn other_headerless_rows_are_not_read() {
        for text in [
            "default   Active   5m\n",          // printNamespace
            "kube-root-ca.crt   1   5m\n",      // printConfigMap
            "web   1   N/A   0   5m\n",         // printPodDisruptionBudget
            "web-0   1/1   Running   0   5m\n", // printPod: a pod row
            "step 1 of the lab took 3 minutes\n",
        ] {
            let (records, _) = read(text);
            assert!(workloads(&records).is_empty(), "{text}");
        }
    }
}
