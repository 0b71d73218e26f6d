//! Tables printed by `kubectl get`: their headers, what resource they show,
//! and the loop over their rows (read by [`super::get_pods`] and
//! [`super::get_events`]).

use super::age::UNKNOWN_EVENT_AGE;
use super::command::{is_prompt, parse_command};
use super::describe::describe_start;
use super::get_events::{EventsLayout, parse_get_event};
use super::get_pods::read_pod_row;
use super::get_workloads::{WorkloadTable, read_workload_row, workload_table};
use super::lines::{is_elision, is_fence, strip_note, tokens};
use super::{Line, Reader};
use crate::observe::Observed;

#[derive(Clone, Debug)]
pub(super) struct Col {
    pub(super) name: String,
    /// Byte offset in the header line.
    pub(super) at: usize,
}

#[derive(Clone, Debug)]
pub(super) struct Header {
    cols: Vec<Col>,
}

/// Column names of two words.
const PAIRS: &[(&str, &str)] = &[
    ("LAST", "SEEN"),
    ("FIRST", "SEEN"),
    ("NOMINATED", "NODE"),
    ("READINESS", "GATES"),
    ("ACCESS", "MODES"),
    ("CREATED", "AT"),
    ("LAST", "SCHEDULE"),
    ("MIN", "AVAILABLE"),
    ("MAX", "UNAVAILABLE"),
    ("ALLOWED", "DISRUPTIONS"),
    ("RECLAIM", "POLICY"),
    ("NODE", "SELECTOR"),
];

/// A kubectl table header: upper-case column names, the first NAME,
/// NAMESPACE, EVENT or LAST (SEEN).
pub(super) fn parse_header(line: &str) -> Option<Header> {
    let toks = tokens(strip_note(line));
    let first = toks.first()?;
    if toks.len() < 2 || !matches!(first.text, "NAME" | "NAMESPACE" | "EVENT" | "LAST" | "LASTSEEN") {
        return None;
    }
    let header_word = |t: &str| {
        t.chars().any(|c| c.is_ascii_uppercase())
            && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "-_().%/:".contains(c))
    };
    if !toks.iter().all(|t| header_word(t.text)) {
        return None;
    }
    let mut cols = Vec::new();
    let mut k = 0;
    while let Some(t) = toks.get(k) {
        let next = toks.get(k + 1);
        if let Some(n) = next.filter(|n| PAIRS.contains(&(t.text, n.text))) {
            cols.push(Col { name: format!("{} {}", t.text, n.text), at: t.start });
            k += 2;
        } else {
            cols.push(Col { name: t.text.to_string(), at: t.start });
            k += 1;
        }
    }
    Some(Header { cols })
}

/// A header glued to the command line (`kubectl get job -wNAME  COMPLETIONS …`).
pub(super) fn glued_header(line: &str) -> Option<Header> {
    let mut from = 0;
    while let Some(p) = line.get(from..).and_then(|s| s.find("NAME")) {
        let at = from + p;
        // Its column positions are those of the rows below, which start at the margin.
        if at > 0
            && let Some(h) = line.get(at..).and_then(parse_header)
        {
            return Some(h);
        }
        from = at + 4;
    }
    None
}

enum Table {
    /// Column names in order.
    Pods(Vec<String>),
    Events(EventsLayout),
    /// ReplicaSets, Deployments, StatefulSets or Jobs.
    Workloads(WorkloadTable),
    /// Another resource; `known` when clearly so (skipped silently).
    Other {
        known: bool,
    },
}

/// Columns that only tables of other resources have.
const OTHER_MARKERS: &[&str] = &[
    "COMPLETIONS",
    "DURATION",
    "ADDRESSTYPE",
    "PORTS",
    "PORT(S)",
    "ENDPOINTS",
    "DESIRED",
    "CURRENT",
    "UP-TO-DATE",
    "AVAILABLE",
    "ROLES",
    "VERSION",
    "TYPE",
    "CLUSTER-IP",
    "EXTERNAL-IP",
    "INTERNAL-IP",
    "DATA",
    "SECRETS",
    "CAPACITY",
    "ACCESS MODES",
    "STORAGECLASS",
    "VOLUME",
    "RECLAIM POLICY",
    "CLAIM",
    "SCHEDULE",
    "SUSPEND",
    "ACTIVE",
    "LAST SCHEDULE",
    "CONTAINERS",
    "IMAGES",
    "SELECTOR",
    "HOSTS",
    "ADDRESS",
    "CLASS",
    "REFERENCE",
    "TARGETS",
    "MINPODS",
    "MAXPODS",
    "REPLICAS",
    "PROVISIONER",
    "HOLDER",
    "MIN AVAILABLE",
    "MAX UNAVAILABLE",
    "ALLOWED DISRUPTIONS",
    "CPU(cores)",
    "MEMORY(bytes)",
    "CPU%",
    "MEMORY%",
    "SHORTNAMES",
    "APIVERSION",
    "NAMESPACED",
    "KIND",
    "CREATED AT",
    "OS-IMAGE",
    "KERNEL-VERSION",
    "CONTAINER-RUNTIME",
    "REVISION",
    "SUCCESSFUL",
    "CONTROLLER",
    "RECLAIMPOLICY",
    "VOLUMEBINDINGMODE",
    "ALLOWVOLUMEEXPANSION",
    "ROLE",
    "SERVICE",
    "DRIVER",
];

/// What a table shows, from its header and the command's resources.
fn classify(h: &Header, kinds: &[String]) -> Table {
    let names: Vec<&str> = h.cols.iter().map(|c| c.name.as_str()).collect();
    let has = |n: &str| names.contains(&n);
    if ["NAME", "READY", "STATUS", "RESTARTS", "AGE"].iter().all(|n| has(n)) {
        return Table::Pods(names.iter().map(|s| s.to_string()).collect());
    }
    if let Some(t) = workload_table(&names, kinds) {
        return Table::Workloads(t);
    }
    if (has("LAST SEEN") || has("LASTSEEN")) && has("REASON") && has("MESSAGE") {
        let plain: Vec<&str> = names.iter().copied().filter(|n| *n != "NAMESPACE").collect();
        if plain == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"] {
            return Table::Events(EventsLayout::Get { namespace: has("NAMESPACE") });
        }
        return Table::Events(EventsLayout::Columns(h.cols.clone()));
    }
    let plain: Vec<&str> = names.iter().copied().filter(|n| *n != "NAMESPACE").collect();
    let known = names.iter().any(|n| OTHER_MARKERS.contains(n))
        || matches!(plain.as_slice(), ["NAME", "READY", "AGE"] | ["NAME", "STATUS", "AGE"] | ["NAME", "AGE"]);
    Table::Other { known }
}

impl Reader<'_> {
    pub(super) fn table(&mut self, lines: &[Line], i: usize, header: Header) -> usize {
        let header_no = lines.get(i).map_or(1, |l| l.no);
        let kinds = self.cmd.as_ref().filter(|c| c.verb == "get").map(|c| c.kinds.clone()).unwrap_or_default();
        let kind = classify(&header, &kinds);
        match &kind {
            Table::Pods(_) | Table::Events(_) | Table::Workloads(_) => self.read_any = true,
            Table::Other { known: true } => {}
            Table::Other { known: false } => {
                let names: Vec<&str> = header.cols.iter().map(|c| c.name.as_str()).collect();
                self.warn(
                    header_no,
                    format!(
                        "a table with header `{}` is neither a pod table (NAME READY STATUS RESTARTS AGE) nor an event \
                         table, nor a table of another known resource: skipped",
                        names.join(" ")
                    ),
                );
            }
        }
        // `kubectl -n NS get pods`: the rows are in NS.
        let cmd_ns =
            self.cmd.as_ref().filter(|c| c.verb == "get" && !c.all_namespaces).and_then(|c| c.namespace.clone());
        let mut j = i + 1;
        while let Some(l) = lines.get(j) {
            let t = l.text;
            let tt = t.trim();
            if tt.is_empty()
                || is_fence(tt)
                || tt.starts_with("---")
                || is_prompt(t)
                || parse_command(t).is_some()
                || parse_header(t).is_some()
                || describe_start(t)
            {
                break;
            }
            j += 1;
            if is_elision(tt) || tt.starts_with('#') {
                continue;
            }
            match &kind {
                Table::Pods(cols) => match read_pod_row(cols, t) {
                    Ok(p) => {
                        for text in &p.unknown {
                            self.warn(l.no, format!("`{text}` cannot be read as a time: the row is kept with any age"));
                        }
                        let mut row = p.row;
                        if row.namespace.is_none() {
                            row.namespace = cmd_ns.clone();
                        }
                        let object = ("pod", row.namespace.clone(), row.name.clone());
                        row.printed = self.printed(object, p.watch.as_deref(), false);
                        self.emit(l.no, p.watch, Observed::Row(row));
                    }
                    Err(e) => self.warn(l.no, format!("cannot read this row of the pod table: {e}")),
                },
                Table::Events(layout) => match parse_get_event(t, layout) {
                    Ok((pod, row, unknown_age)) => {
                        if unknown_age {
                            self.warn(l.no, UNKNOWN_EVENT_AGE);
                        }
                        self.emit(l.no, None, Observed::EventRow { pod, row });
                    }
                    Err(e) => self.warn(l.no, format!("cannot read this row of the event table: {e}")),
                },
                Table::Workloads(w) => match read_workload_row(*w, &header.cols, t) {
                    Ok((watch, mut row)) => {
                        if row.namespace.is_none() {
                            row.namespace = cmd_ns.clone();
                        }
                        let object = (row.shows.kind(), row.namespace.clone(), row.name.clone());
                        row.printed = self.printed(object, watch.as_deref(), false);
                        self.emit(l.no, watch, Observed::Workload(row));
                    }
                    Err(e) => self.warn(l.no, format!("cannot read this row of the {w:?} table: {e}")),
                },
                Table::Other { .. } => {}
            }
        }
        j
    }
}

#[cfg(test)]
mod tests {
    use crate::observe::text::testing::*;

    #[test]
    fn namespace_from_the_command_and_watch_events() {
        let text = "\
PS C:\\> kubectl -n lab-k8s get pods --output-watch-events -w\r
EVENT      NAME   READY   STATUS    RESTARTS   AGE\r
ADDED      web    0/1     Pending   0          0s\r
MODIFIED   web    1/1     Running   0          4s\r
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].watch.as_deref(), Some("MODIFIED"));
        assert!(rows(&records).iter().all(|(_, r)| r.namespace.as_deref() == Some("lab-k8s")));
    }

    #[test]
    fn unknown_and_known_other_tables() {
        let text = "\
NAME      SOMETHING   ELSE
x         1           2

NAME      HOSTS   ADDRESS   PORTS   AGE
web       *       1.2.3.4   80      5m

NAME   READY   STATUS    RESTARTS   AGE
p      1/1     Running   0          1s
";
        let (records, problems) = read(text);
        assert_eq!(records.len(), 1);
        let m = messages(&problems);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].starts_with("test.txt:1:1: a table with header `NAME SOMETHING ELSE`"));
    }

    /// A watch lists each pod once, then prints its changes; a one-shot get
    /// prints snapshots only.
    #[test]
    fn rows_are_changes_or_snapshots() {
        use crate::observe::Printed::{Change, Snapshot};
        let printed = |text: &str| -> Vec<crate::observe::Printed> {
            let (records, problems) = read(text);
            assert!(problems.is_empty(), "{:?}", messages(&problems));
            rows(&records).iter().map(|(_, r)| r.printed).collect()
        };
        let rows = "NAME  READY  STATUS  RESTARTS  AGE\na  0/1  Pending  0  0s\nb  1/1  Running  0  5m\na  1/1  Running  0  3s\n";
        assert_eq!(printed(&format!("$ kubectl get pods -w\n{rows}")), [Snapshot, Snapshot, Change]);
        assert_eq!(printed(&format!("$ kubectl get pods\n{rows}")), [Snapshot, Snapshot, Snapshot]);
        // `--watch-only`: the first row of each pod has no state before it in the output.
        assert_eq!(printed(&format!("$ kubectl get pods --watch-only\n{rows}")), [Snapshot, Snapshot, Change]);
        // Unknown origin: read as a watch.
        assert_eq!(printed(rows), [Snapshot, Snapshot, Change]);
        let events = "$ kubectl get pods -w --output-watch-events\nEVENT  NAME  READY  STATUS  RESTARTS  AGE\n\
                      ADDED  a  1/1  Running  0  5m\nMODIFIED  a  0/1  Error  0  5m\nADDED  b  0/1  Pending  0  0s\n";
        assert_eq!(printed(events), [Snapshot, Change, Snapshot]);
        // A script's one-shot gets, marked by time.
        assert_eq!(printed("--- t=5s --- a 0/1 Pending 0 5s\n--- t=9s --- a 1/1 Running 0 9s\n"), [Snapshot, Snapshot]);
    }

    #[test]
    fn glued_header_is_a_table() {
        let (records, problems) =
            read("kubectl get pods -wNAME   READY   STATUS    RESTARTS   AGE\nweb   1/1   Running   0   3s\n");
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(rows(&records).len(), 1);
    }
}
