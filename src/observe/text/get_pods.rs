//! Rows of `kubectl get pods [-w]` tables (also `-o wide`, `-A`,
//! `--output-watch-events`), and rows with the default pod columns pasted
//! without their header.

use super::age::parse_age;
use super::lines::{starts_upper, strip_note, strip_time_marker};
use crate::observe::{PodRow, Printed, Span, human_duration};

pub(super) struct RowRead {
    pub(super) watch: Option<String>,
    pub(super) row: PodRow,
    /// Ages printed as `<invalid>`/`<unknown>`, kept as [`UNKNOWN_AGE`](super::age::UNKNOWN_AGE).
    pub(super) unknown: Vec<String>,
}

fn parse_ready(t: &str) -> Option<(u32, u32)> {
    let (a, b) = t.split_once('/')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// `(20s ago)` → the age.
fn parse_ago(t: &str) -> Option<(Span, bool)> {
    let inner = t.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    parse_age(inner.strip_suffix("ago")?.trim()).ok()
}

pub(super) fn read_pod_row(cols: &[String], text: &str) -> Result<RowRead, String> {
    let toks: Vec<&str> = strip_note(text).split_whitespace().collect();
    let needed = cols
        .iter()
        .rposition(|c| matches!(c.as_str(), "EVENT" | "NAMESPACE" | "NAME" | "READY" | "STATUS" | "RESTARTS" | "AGE"))
        .unwrap_or(0);
    let mut it = 0;
    let (mut watch, mut namespace, mut name, mut ready, mut status) = (None, None, None, None, None);
    let (mut restarts, mut last_restart_ago, mut age) = (None, None, None);
    let mut unknown = Vec::new();
    for col in cols.iter().take(needed + 1) {
        let Some(tok) = toks.get(it).copied() else {
            return Err(format!("no {col} column"));
        };
        it += 1;
        match col.as_str() {
            "EVENT" => watch = Some(tok.to_string()),
            "NAMESPACE" => namespace = Some(tok.to_string()),
            "NAME" => name = Some(tok.strip_prefix("pod/").unwrap_or(tok).to_string()),
            "READY" => ready = Some(parse_ready(tok).ok_or_else(|| format!("READY `{tok}` is not `ready/total`"))?),
            "STATUS" => status = Some(tok.to_string()),
            "RESTARTS" => {
                restarts = Some(tok.parse::<u32>().map_err(|_| format!("RESTARTS `{tok}` is not a count"))?);
                if toks.get(it).is_some_and(|t| t.starts_with('(')) {
                    let mut parts = Vec::new();
                    while let Some(t) = toks.get(it) {
                        parts.push(*t);
                        it += 1;
                        if t.ends_with(')') {
                            break;
                        }
                    }
                    let ago = parts.join(" ");
                    let (span, unknown_ago) =
                        parse_ago(&ago).ok_or_else(|| format!("RESTARTS `{tok} {ago}` cannot be read"))?;
                    if unknown_ago {
                        unknown.push(format!("{tok} {ago}"));
                    }
                    last_restart_ago = Some(span);
                }
            }
            "AGE" => age = Some(tok),
            _ => {}
        }
    }
    let (Some(name), Some(ready), Some(status), Some(restarts), Some(age_text)) = (name, ready, status, restarts, age)
    else {
        return Err("a column is missing".into());
    };
    let (age, unknown_age) = parse_age(age_text).map_err(|e| format!("AGE: {e}"))?;
    if unknown_age {
        unknown.push(age_text.to_string());
    }
    // The table decides whether the row is a change or a snapshot.
    let printed = Printed::Snapshot;
    let row = PodRow { namespace, name, ready, status, restarts, last_restart_ago, age, printed };
    Ok(RowRead { watch, row, unknown })
}

/// A pod name as kubectl prints it (DNS subdomain).
pub(super) fn is_pod_name(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 253
        && t.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

/// A row with exactly the default columns and no header above it, and
/// whether it follows a `--- t=10s ---` marker (a script's one-shot get).
pub(super) fn headerless_pod_row(text: &str) -> Option<(PodRow, bool)> {
    let (s, marked) = strip_time_marker(text)?;
    let toks: Vec<&str> = s.split_whitespace().collect();
    let (name, ready, status, restarts, ago, age) = match toks.as_slice() {
        [n, r, st, re, a] => (*n, *r, *st, *re, None, *a),
        [n, r, st, re, x, y, a] => (*n, *r, *st, *re, Some(format!("{x} {y}")), *a),
        _ => return None,
    };
    let name = name.strip_prefix("pod/").unwrap_or(name);
    if !is_pod_name(name) || !starts_upper(status) {
        return None;
    }
    let ready = parse_ready(ready)?;
    let restarts = restarts.parse().ok()?;
    let last_restart_ago = match ago {
        Some(a) => Some(parse_ago(&a).filter(|(_, unknown)| !unknown)?.0),
        None => None,
    };
    let age = human_duration(age)?;
    let row = PodRow {
        namespace: None,
        name: name.to_string(),
        ready,
        status: status.to_string(),
        restarts,
        last_restart_ago,
        age,
        printed: Printed::Snapshot,
    };
    Some((row, marked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::When;
    use crate::observe::text::age::UNKNOWN_AGE;
    use crate::observe::text::testing::*;

    #[test]
    fn trace_006_get_pods() {
        let (records, problems) = read(trace!("006-happy-path-nginx-containerd-describe-and-yaml/get-pods.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 2);
        let rows = rows(&records);
        let (line, r) = rows[0];
        assert_eq!(line, 2);
        assert_eq!(r.name, "nginx-deployment-67d4bdd6f5-cx2nz");
        assert_eq!((r.ready, r.status.as_str(), r.restarts), ((1, 1), "Running", 0));
        assert_eq!((r.last_restart_ago, r.age, r.namespace.as_deref()), (None, secs(13), None));
        assert_eq!(rows[1].1.name, "nginx-deployment-67d4bdd6f5-w6kd7");
        assert!(records.iter().all(|r| r.seen == When::Unknown && r.watch.is_none()));
    }

    #[test]
    fn trace_023_crashloop_watch() {
        let (records, problems) =
            read(trace!("023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = rows(&records);
        assert_eq!((records.len(), rows.len()), (11, 11));
        assert!(rows.iter().all(|(_, r)| r.name == "lifecycle-crashloop"));
        let (line, r) = rows[4];
        assert_eq!(line, 7);
        assert_eq!((r.ready, r.status.as_str(), r.restarts), ((0, 1), "Error", 1));
        assert_eq!(r.last_restart_ago, Some(secs(5)));
        assert_eq!(r.age, secs(8));
        let (_, first) = rows[0];
        assert_eq!((first.status.as_str(), first.restarts, first.last_restart_ago), ("ContainerCreating", 0, None));
        let (_, last) = rows[10];
        assert_eq!((last.restarts, last.last_restart_ago, last.age), (3, Some(secs(33)), secs(55)));
        // `1 (12s ago)  19s`: a single space before AGE.
        assert_eq!((rows[5].1.last_restart_ago, rows[5].1.age), (Some(secs(12)), secs(19)));
    }

    #[test]
    fn trace_009_statefulset_watch() {
        let (records, problems) =
            read(trace!("009-statefulset-ordered-create-scale-rollingupdate-watch/watch-1-ordered-create.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = rows(&records);
        assert_eq!((records.len(), rows.len()), (8, 8));
        let got: Vec<(&str, (u32, u32), &str, Span)> =
            rows.iter().map(|(_, r)| (r.name.as_str(), r.ready, r.status.as_str(), r.age)).collect();
        assert_eq!(got[3], ("web-0", (1, 1), "Running", secs(19)));
        assert_eq!(got[4], ("web-1", (0, 1), "Pending", secs(0)));
        assert_eq!(got[7], ("web-1", (1, 1), "Running", secs(18)));
        assert_eq!(rows[0].0, 3, "line 1 is the command, line 2 the header");
    }

    #[test]
    fn trace_009_repeated_headers() {
        let (records, problems) =
            read(trace!("009-statefulset-ordered-create-scale-rollingupdate-watch/watch-4-scale-down-to-3.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(rows(&records).len(), 10);
        assert_eq!(rows(&records)[0].1.age, Span { lo: 3 * 3_600_000, hi: 4 * 3_600_000 });
    }

    #[test]
    fn trace_017_job_watch() {
        let (records, problems) = read(trace!("017-job-onfailure-backofflimit2-watch/watch-pods.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = rows(&records);
        assert_eq!((records.len(), rows.len()), (10, 10));
        let statuses: Vec<(&str, u32)> = rows.iter().map(|(_, r)| (r.status.as_str(), r.restarts)).collect();
        assert_eq!(
            statuses,
            [
                ("ContainerCreating", 0),
                ("Running", 0),
                ("Error", 0),
                ("Running", 1),
                ("Error", 1),
                ("CrashLoopBackOff", 1),
                ("Running", 2),
                ("Terminating", 2),
                ("Terminating", 2),
                ("Terminating", 2)
            ]
        );
        assert!(rows.iter().all(|(_, r)| r.name == "job3-qgv4b" && r.last_restart_ago.is_none()));
        assert_eq!(rows[9].1.age, secs(51));
    }

    #[test]
    fn trace_027_headerless_annotated_watch() {
        let (records, problems) = read(trace!("027-crashloop-free-first-restart-kep4603-watch/watch.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = rows(&records);
        assert_eq!(rows.len(), 13);
        let (line, r) = rows[7];
        assert_eq!(line, 9);
        assert_eq!((r.status.as_str(), r.restarts, r.last_restart_ago), ("CrashLoopBackOff", 1, Some(secs(17))));
        assert_eq!(r.age, secs(139), "2m19s");
    }

    #[test]
    fn wide_all_namespaces_table() {
        let text = "\
$ kubectl get pods -A -o wide
NAMESPACE     NAME                     READY   STATUS             RESTARTS        AGE   IP           NODE     NOMINATED NODE   READINESS GATES
kube-system   coredns-5d78c9869d-abcde 1/1     Running            0               3d    10.244.0.2   node-1   <none>           <none>
default       web-0                    0/1     CrashLoopBackOff   5 (2m30s ago)   10m   10.244.1.7   node-2   <none>           1/1
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let rows = rows(&records);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].1.namespace.as_deref(), Some("kube-system"));
        let r = rows[1].1;
        assert_eq!((r.namespace.as_deref(), r.name.as_str(), r.restarts), (Some("default"), "web-0", 5));
        assert_eq!(r.last_restart_ago, Some(Span { lo: 150_000, hi: 151_000 }));
        assert_eq!(r.age, Span { lo: 600_000, hi: 660_000 });
    }

    #[test]
    fn tabs_annotations_and_elisions() {
        let text = "NAME\tREADY\tSTATUS\tRESTARTS\tAGE\n\
                    a\t1/1\tRunning\t0\t5s   # <-- note\n\
                    ...\n\
                    …\n\
                    a\t0/1\tRunning\t1 (3s ago)\t9s ← restarted\n\
                    b  1/1  Running  x  5s\n\
                    c  1/1  Running  0  <invalid>\n\
                    d  1/1  Running  2 (<invalid> ago)  5s\n";
        let (records, problems) = read(text);
        let rows = rows(&records);
        assert_eq!(rows.len(), 4);
        assert_eq!((rows[1].1.restarts, rows[1].1.last_restart_ago), (1, Some(secs(3))));
        assert_eq!((rows[2].0, rows[2].1.age), (7, UNKNOWN_AGE), "`<invalid>` kept with any age");
        assert_eq!((rows[3].1.last_restart_ago, rows[3].1.age), (Some(UNKNOWN_AGE), secs(5)));
        let m = messages(&problems);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(m[2].starts_with("test.txt:8:1: `2 (<invalid> ago)` cannot be read as a time"));
        assert!(m[0].starts_with("test.txt:6:1: cannot read this row of the pod table: RESTARTS `x`"));
        assert!(m[1].starts_with("test.txt:7:1: `<invalid>` cannot be read as a time"));
    }
}
