//! Text recordings: `kubectl get pods [-w]` tables, `kubectl describe pod`
//! output and `kubectl get events` tables, found among command lines, prose,
//! logs and the output of other commands.
//!
//! What is read:
//! - pod tables (header `NAME READY STATUS RESTARTS AGE`, also with `-w`,
//!   `-o wide`, `-A` and `--output-watch-events`): one [`PodRow`](super::PodRow) per row;
//! - rows without a header that have exactly the default pod columns
//!   (`thing  0/1  Completed  1 (10s ago)  2m4s`, optionally after a
//!   `--- t=10s ---` marker): people paste `-w` output without its header;
//! - `kubectl describe pod` blocks: one Pod object per block, then one
//!   [`EventRow`] per line of its Events section. A block may be an excerpt
//!   (`| grep -A 10 Events:`, `(...)` elisions); the pod is then named from the
//!   `kubectl describe pod NAME` command line above it or, failing that, from
//!   its `Scheduled` event (`Successfully assigned NS/NAME to NODE`);
//! - `kubectl get events` and `kubectl events` tables, and describe's Events
//!   section without its `Events:` line, or without its column names too
//!   (`kubectl describe pod X | grep Unhealthy`): named by the command line,
//!   else by a `Scheduled` or kubelet event's message;
//! - `kubectl get rs|deploy|sts|job [-w]` tables: one
//!   [`WorkloadRow`](super::WorkloadRow) per row; also their rows without
//!   a header, when the columns (or the command line, or the other rows
//!   printed with them) say which controller printed them.
//!
//! Each table row is a change or a snapshot ([`Printed`](super::Printed)): a
//! watch lists each object once, then prints its changes.
//!
//! Everything else is ignored: tables of other resources, describe output of
//! other resources, logs, prose. A table whose header is neither a pod or
//! event table nor clearly another resource is reported, as is every line
//! inside a recognised block that cannot be read.
//!
//! One file per kind of output: [`get_pods`], [`get_events`] and
//! [`get_workloads`] read the rows of the tables [`table`] finds,
//! [`describe`] reads describe blocks; this file walks the lines and hands
//! each block to its reader.

mod age;
mod command;
mod describe;
mod get_events;
mod get_pods;
mod get_workloads;
mod lines;
mod table;
#[cfg(test)]
mod testing;

use super::{EventRow, Observed, Origin, Printed, Record, When};
use crate::error::Problem;
use command::{Command, Watch, parse_command};
use describe::events::parse_describe_event;
use describe::{describe_start, is_events_header, is_fragment_key};
use get_events::EventsLayout;
use get_pods::headerless_pod_row;
use get_workloads::headerless_workload_row;
use lines::{indent, split_key, starts_upper};
use std::collections::HashSet;
use std::sync::Arc;
use table::{glued_header, parse_header};

/// A line holding a shell prompt or a `kubectl` command.
pub(super) fn is_command_line(line: &str) -> bool {
    command::is_prompt(line) || parse_command(line).is_some()
}

/// Reads every table and describe block of a text recording.
pub fn read_text(file: &Arc<str>, text: &str, sink: &mut dyn FnMut(Record), problems: &mut Vec<Problem>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<Line> = text
        .split('\n')
        .enumerate()
        .map(|(i, t)| Line { no: i as u64 + 1, text: t.strip_suffix('\r').unwrap_or(t) })
        .collect();
    let mut r = Reader { file, sink, problems, read_any: false, cmd: None, fragment: false, listed: HashSet::new() };
    let mut i = 0;
    while i < lines.len() {
        i = r.step(&lines, i).max(i + 1);
    }
    if !r.read_any && !text.trim().is_empty() {
        r.warn(1, "no kubectl table or describe output found");
    }
}

#[derive(Clone, Copy, Debug)]
struct Line<'t> {
    no: u64,
    text: &'t str,
}

struct Reader<'a> {
    file: &'a Arc<str>,
    sink: &'a mut dyn FnMut(Record),
    problems: &'a mut Vec<Problem>,
    /// A pod table, pod describe output or event table was found.
    read_any: bool,
    /// The last `kubectl` command line.
    cmd: Option<Command>,
    /// Inside an excerpt of describe container fields (reported once).
    fragment: bool,
    /// The objects (kind, namespace, name) printed since the last command line.
    listed: HashSet<(&'static str, Option<String>, String)>,
}

impl Reader<'_> {
    fn emit(&mut self, line: u64, watch: Option<String>, observed: Observed) {
        self.read_any = true;
        (self.sink)(Record { origin: Origin { file: self.file.clone(), line }, seen: When::Unknown, watch, observed });
    }

    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.problems.push(Problem::warning(message).at_line(self.file, line));
    }

    /// Reads what starts at line `i`; returns the index of the next line to read.
    fn step(&mut self, lines: &[Line], i: usize) -> usize {
        let Some(line) = lines.get(i) else { return i + 1 };
        let text = line.text;
        if text.trim().is_empty() {
            return i + 1;
        }
        let fragment = std::mem::take(&mut self.fragment);
        if let Some(cmd) = parse_command(text) {
            self.cmd = Some(cmd);
            self.listed.clear();
            // `kubectl get job -wNAME   COMPLETIONS …`: the header glued to the command.
            if let Some(header) = glued_header(text) {
                return self.table(lines, i, header);
            }
            return i + 1;
        }
        if let Some(header) = parse_header(text) {
            return self.table(lines, i, header);
        }
        if describe_start(text) {
            return self.describe(lines, i);
        }
        if let Some((mut row, marked)) = headerless_pod_row(text) {
            row.printed = self.printed(("pod", row.namespace.clone(), row.name.clone()), None, marked);
            self.emit(line.no, None, Observed::Row(row));
            return i + 1;
        }
        if headerless_workload_row(text).is_some() {
            return self.headerless_workloads(lines, i);
        }
        if is_events_header(text) || self.headerless_event_row(line).is_some() {
            return self.events_block(lines, i);
        }
        if indent(text) >= 2 && split_key(text.trim()).is_some_and(|(k, _)| starts_upper(k)) {
            if !fragment && is_fragment_key(text) {
                self.warn(
                    line.no,
                    "an excerpt of `kubectl describe` container fields without the `Containers:` section above it \
                     cannot be tied to a pod and container: ignored",
                );
                self.fragment = true;
            } else {
                self.fragment = fragment;
            }
        }
        i + 1
    }

    /// Whether a table row of an object is a change or a snapshot. A one-shot
    /// `kubectl get` (or a script's `--- t=10s ---` marker) prints snapshots; a
    /// watch lists each object once, then prints each change as it happens
    /// (`--output-watch-events`: ADDED is the listing). Rows of unknown origin
    /// are read as a watch: the first row of each object a snapshot, the next
    /// ones changes. So a change always follows a row of its object in the
    /// same output, the state it changed from; the first row of an object
    /// under `--watch-only` has none, and is the state at its AGE.
    fn printed(
        &mut self,
        object: (&'static str, Option<String>, String),
        event: Option<&str>,
        marked: bool,
    ) -> Printed {
        let first = self.listed.insert(object);
        let watch = self.cmd.as_ref().filter(|c| c.verb == "get").map(|c| c.watch);
        match (watch, event) {
            (_, Some("ADDED")) => Printed::Snapshot,
            (Some(Watch::No), None) => Printed::Snapshot,
            _ if marked || first => Printed::Snapshot,
            _ => Printed::Change,
        }
    }

    /// A describe event line without the section above it (`  Warning
    /// Unhealthy  10s (x6 over 35s)  kubelet  …`).
    fn headerless_event_row(&self, line: &Line) -> Option<EventRow> {
        let first = line.text.split_whitespace().next()?;
        if !matches!(first, "Normal" | "Warning") {
            return None;
        }
        // Not about a pod: `kubectl describe deploy x | grep …`.
        if self.cmd.as_ref().is_some_and(|c| c.verb == "describe" && c.kinds.first().is_some_and(|k| k != "pod")) {
            return None;
        }
        match parse_describe_event(line.text, &EventsLayout::Describe { from: None, message: None }) {
            Ok((row, false)) if !row.from.is_empty() && row.reason.starts_with(|c: char| c.is_ascii_uppercase()) => {
                Some(row)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::observe::text::testing::*;

    #[test]
    fn trace_023_liveness_snapshots_and_grepped_events() {
        let (records, problems) =
            read(trace!("023-lifecycle-lab-crashloop-probes-startup-termination-v137/08-liveness.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!((rows(&records).len(), events(&records).len()), (4, 5));
        let evs = events(&records);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("lifecycle-liveness")));
        assert_eq!((evs[0].2.count, evs[0].2.first_seen), (2, secs(40)));
        assert_eq!(rows(&records)[3].1.last_restart_ago, Some(secs(5)));
    }

    #[test]
    fn trace_010_console() {
        let (records, problems) = read(trace!("010-native-sidecar-readiness-never-ready-main-starts/console.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(rows(&records).len(), 1);
        assert_eq!(rows(&records)[0].1.ready, (1, 2));
        assert!(pods(&records).is_empty(), "the describe is elided down to its name: no Pod");
        let evs = events(&records);
        assert_eq!(evs.len(), 10);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("myapp-db5474f45-htgw5")));
        assert_eq!((evs[9].2.count, evs[9].2.message.as_str()), (6, "Readiness probe failed:"));
    }

    #[test]
    fn other_resources_are_skipped() {
        for text in [
            trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/b-stuck-rollout-describe.txt"),
            trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/a-successful-rollout-describe.txt"),
            trace!("007-terminating-endpointslice-prestop-grace120/endpointslice-list.txt"),
            trace!("016-native-sidecar-e2e-log-timelines/spec-a-from-e2e-test-source.go.txt"),
            trace!("035-endpointslice-terminating-not-serving-same-ip-v128/curl-and-iptables.txt"),
        ] {
            let (records, problems) = read(text);
            assert!(records.is_empty());
            assert_eq!(messages(&problems), ["test.txt:1:1: no kubectl table or describe output found"]);
        }
        let (records, problems) =
            read(trace!("020-cascading-delete-pod-termination-diff-kind/foreground-get-after-delete.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(rows(&records).len(), 3);
        assert_eq!(rows(&records)[0].1.name, "nginx-deployment-6b474476c4-nbtkw", "`pod/` dropped");
    }

    /// The text recordings tests/traces held when this was written (more may come).
    const TEXT_RECORDINGS: usize = 70;

    #[test]
    fn every_recording_reads_without_errors() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/traces");
        let mut read_files = 0;
        for d in std::fs::read_dir(dir).expect("tests/traces").flatten().map(|d| d.path()).filter(|d| d.is_dir()) {
            for f in std::fs::read_dir(d).expect("a recording folder").flatten().map(|f| f.path()) {
                if f.extension().is_some_and(|e| e == "txt") {
                    read_files += 1;
                    let (_, problems) = read(&std::fs::read_to_string(&f).expect("a text recording"));
                    assert!(problems.iter().all(|p| !p.is_error()), "{}: {:?}", f.display(), messages(&problems));
                }
            }
        }
        assert!(read_files >= TEXT_RECORDINGS, "{read_files} .txt files under tests/traces");
    }

    #[test]
    fn empty_and_garbage_never_panic() {
        let (records, problems) = read("");
        assert!(records.is_empty() && problems.is_empty(), "an empty file is reported by the caller");
        let (records, problems) = read("\u{feff}\r\n\t \n");
        assert!(records.is_empty() && problems.is_empty());
        for text in [
            "Name:",
            "Name: x\nContainers:\n  :\n    State: Running\n      Started:",
            "Events:\n  Normal\n  Warning x\n  Normal R 5s (x\n  Normal R 5s (x3 over\n  Normal R 5s (xx over 3s) k m",
            "NAME READY STATUS RESTARTS AGE\np 1/ Running 0 1s\np 1/1 Running 1 (\np 1/1 Running 1 (3s ago 2s\n",
            "LAST SEEN TYPE REASON OBJECT MESSAGE\n5s\n5s Normal\n",
            "NAME      LASTSEEN REASON MESSAGE\n  ab",
            "Status: Running\nContainers:\n  c:\n    Liveness: http-get http://[::1 delay=1s\n    Ports: x/TCP\n",
            "--- t=1s ---\n--- t=1s --- a 1/1 X 0\n---",
            "Conditions:\n  Ready\n",
            "\u{0}\u{1}ÿ€\u{202e}Name:\tétoile\nÉvénements:\n  Normal  R  5s  ké  méssage",
            "  Normal  Pulled  5s  kubelet  ok\n  Warning  BackOff  <invalid>  kubelet  x",
            "kubectl\nk\n$\n$ kubectl -n\n$ kubectl get\n$ kubectl describe pod/\n",
            "Events:\n  FirstSeen LastSeen\n  é ü\n",
        ] {
            let _ = read(text);
        }
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        const PIECES: &[&str] = &[
            "NAME   READY   STATUS    RESTARTS   AGE",
            "NAMESPACE NAME READY STATUS RESTARTS AGE IP NODE",
            "web-0  1/1  Running  2 (5s ago)  3m",
            "web-0  0/1  <invalid>  x  ",
            "LAST SEEN   TYPE   REASON   OBJECT   MESSAGE",
            "5s   Normal   Pulled   pod/web-0   ok",
            "Name:         web-0",
            "Status:       Running",
            "Containers:",
            "Init Containers:",
            "  web:",
            "    State:          Terminated",
            "      Exit Code:    137",
            "      Started:      Thu, 17 Feb 2022 16:51:01 -0500",
            "    Last State:     Running",
            "    Ready:          True",
            "    Liveness:       http-get http://:8080/ delay=1s",
            "Conditions:",
            "  Type  Status",
            "Events:",
            "  Type    Reason   Age   From   Message",
            "  ----    ------   ----  ----   -------",
            "  Normal  Started  3s (x2 over 9s)  kubelet  spec.containers{web}: Started",
            "$ kubectl describe pod web-0",
            "$ kubectl get pods -w",
            "(...)",
            "",
            "\t",
            "# comment",
            "```",
        ];

        proptest! {
            #[test]
            fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
                let _ = read(&s);
            }

            #[test]
            fn shuffled_pieces_never_panic(
                parts in prop::collection::vec((0..PIECES.len(), "[ \t]{0,3}", "\\PC{0,6}"), 0..40)
            ) {
                let text: String = parts
                    .iter()
                    .map(|(i, pre, post)| format!("{pre}{}{post}\n", PIECES[*i]))
                    .collect();
                let _ = read(&text);
            }
        }
    }
}
