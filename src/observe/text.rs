//! Text recordings: `kubectl get pods [-w]` tables, `kubectl describe pod`
//! output and `kubectl get events` tables, found among command lines, prose,
//! logs and the output of other commands.
//!
//! What is read:
//! - pod tables (header `NAME READY STATUS RESTARTS AGE`, also with `-w`,
//!   `-o wide`, `-A` and `--output-watch-events`): one [`PodRow`] per row;
//! - rows without a header that have exactly the default pod columns
//!   (`thing  0/1  Completed  1 (10s ago)  2m4s`, optionally after a
//!   `--- t=10s ---` marker): people paste `-w` output without its header;
//! - `kubectl describe pod` blocks: one Pod object per block, then one
//!   [`EventRow`] per line of its Events section. A block may be an excerpt
//!   (`| grep -A 10 Events:`, `(...)` elisions); the pod is then named from the
//!   `kubectl describe pod NAME` command line above it or, failing that, from
//!   its `Scheduled` event (`Successfully assigned NS/NAME to NODE`);
//! - `kubectl get events` tables, and describe event lines without their
//!   header (`kubectl describe pod X | grep Unhealthy`).
//!
//! Everything else is ignored: tables of other resources, describe output of
//! other resources, logs, prose. A table whose header is neither a pod or
//! event table nor clearly another resource is reported, as is every line
//! inside a recognised block that cannot be read.

use super::{EventRow, Observed, Origin, PodRow, Record, Span, When, human_duration};
use crate::error::Problem;
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting,
    ContainerStatus, ExecAction, GRPCAction, HTTPGetAction, HostIP, Pod, PodCondition, PodIP, PodReadinessGate,
    PodSpec, PodStatus, Probe, ResourceRequirements, TCPSocketAction,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An age kubectl could not print (`<invalid>`: in the future by more than a
/// second, i.e. clock skew; `<unknown>`: no timestamp): any age from 0 to a
/// century. Wide, but small enough for interval arithmetic not to overflow.
const UNKNOWN_AGE: Span = Span { lo: 0, hi: 100 * 365 * 86_400_000 };

const UNKNOWN_EVENT_AGE: &str = "an event age cannot be read as a time (`<invalid>`/`<unknown>`): kept with any age";

/// Reads every table and describe block of a text recording.
pub fn read_text(file: &Arc<str>, text: &str, sink: &mut dyn FnMut(Record), problems: &mut Vec<Problem>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<Line> = text
        .split('\n')
        .enumerate()
        .map(|(i, t)| Line { no: i as u64 + 1, text: t.strip_suffix('\r').unwrap_or(t) })
        .collect();
    let mut r = Reader { file, sink, problems, read_any: false, cmd: None, fragment: false };
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
        if let Some(row) = headerless_pod_row(text) {
            self.emit(line.no, None, Observed::Row(row));
            return i + 1;
        }
        if let Some(row) = self.headerless_event_row(line) {
            let pod = self.cmd.as_ref().and_then(Command::described_pod).map(|(name, _)| name);
            self.emit(line.no, None, Observed::EventRow { pod, row });
            return i + 1;
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

    /// A headerless describe event line (`  Warning  Unhealthy  10s (x6 over 35s)  kubelet  …`).
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

    // ---------------------------------------------------------------- tables

    fn table(&mut self, lines: &[Line], i: usize, header: Header) -> usize {
        let header_no = lines.get(i).map_or(1, |l| l.no);
        let kind = classify(&header);
        match &kind {
            Table::Pods(_) | Table::Events(_) => self.read_any = true,
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
                Table::Other { .. } => {}
            }
        }
        j
    }

    // -------------------------------------------------------------- describe

    fn describe(&mut self, lines: &[Line], start: usize) -> usize {
        let end = describe_end(lines, start).clamp(start + 1, lines.len());
        let Some(block) = lines.get(start..end) else { return start + 1 };
        let Some(first) = block.first() else { return end };
        let base = indent(first.text);
        let tops: Vec<&str> = block
            .iter()
            .filter(|l| indent(l.text) <= base)
            .filter_map(|l| split_key(l.text.trim()).map(|(k, _)| k))
            .collect();
        let pod_keys = tops.iter().any(|k| POD_ONLY_KEYS.contains(k));
        let cmd_other =
            self.cmd.as_ref().is_some_and(|c| c.verb == "describe" && c.kinds.first().is_some_and(|k| k != "pod"));
        if tops.iter().any(|k| OTHER_RESOURCE_KEYS.contains(k)) || (cmd_other && !pod_keys) {
            return end; // describe output of another resource
        }
        self.read_any = true;
        let mut d = Describe::default();
        d.read(block, base);
        for (line, message) in std::mem::take(&mut d.warnings) {
            self.warn(line, message);
        }
        self.finish_describe(d, first.no);
        end
    }

    fn finish_describe(&mut self, mut d: Describe, first_line: u64) {
        // The pod's name: its `Name:` line, else the command, else its Scheduled event.
        let mut named_by = "";
        if d.name.is_none() {
            if let Some((name, ns)) = self.cmd.as_ref().and_then(Command::described_pod) {
                d.name = Some(name);
                d.namespace = d.namespace.or(ns);
            } else if let Some((ns, name)) = d.events.iter().find_map(|(_, e)| scheduled_pod(e)) {
                d.name = Some(name);
                d.namespace = d.namespace.or(Some(ns));
                named_by = "its Scheduled event";
            }
        }
        let pod = d.build();
        for (line, message) in std::mem::take(&mut d.warnings) {
            self.warn(line, message);
        }
        // An excerpt without `Name:` is an observation only when it shows some status.
        let has_content = pod.status.is_some() || (d.name_line.is_some() && pod.spec.is_some());
        if !has_content && d.events.is_empty() {
            self.warn(first_line, "this `kubectl describe` excerpt shows no pod status and no events: ignored");
            return;
        }
        match (&d.name, has_content || !d.events.is_empty()) {
            (None, true) => self.warn(
                first_line,
                "`kubectl describe` output without its `Name:` line (an excerpt?) and no `kubectl describe pod NAME` \
                 command above it: the pod is unnamed",
            ),
            (Some(name), true) if !named_by.is_empty() => self.warn(
                first_line,
                format!(
                    "`kubectl describe` output without its `Name:` line: the pod is taken to be `{name}` from \
                     {named_by}"
                ),
            ),
            _ => {}
        }
        if has_content {
            self.emit(d.name_line.unwrap_or(first_line), None, Observed::Pod(Box::new(pod)));
        }
        for (line, row) in std::mem::take(&mut d.events) {
            self.emit(line, None, Observed::EventRow { pod: d.name.clone(), row });
        }
    }
}

// ------------------------------------------------------------------ lines

/// Leading whitespace width (a tab advances to the next multiple of 8).
fn indent(s: &str) -> usize {
    let mut n = 0;
    for c in s.chars() {
        match c {
            ' ' => n += 1,
            '\t' => n = (n / 8 + 1) * 8,
            _ => break,
        }
    }
    n
}

fn starts_upper(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
}

/// An author's elision: `...`, `…`, `(...)`, `[...]`.
fn is_elision(t: &str) -> bool {
    let inner = t.trim().trim_start_matches(['(', '[', '<']).trim_end_matches([')', ']', '>']).trim();
    !inner.is_empty() && (inner.chars().all(|c| c == '.' || c == '…') || inner == "snip")
}

/// A Markdown code fence.
fn is_fence(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A shell prompt (`$ cmd`, `[root@x:~]$ cmd`, `root@node:/# cmd`, `controlplane $ cmd`).
fn is_prompt(t: &str) -> bool {
    let mut toks = t.split_whitespace();
    let Some(a) = toks.next() else { return false };
    if matches!(a, "$" | "%" | ">") {
        return true;
    }
    if a.chars().count() > 1 && a.chars().count() <= 80 && (a.ends_with('$') || a.ends_with('>')) {
        return true;
    }
    if a.chars().count() > 1 && a.ends_with('#') && (a.contains('@') || a.contains(':')) {
        return true;
    }
    toks.next() == Some("$") && !a.contains(['<', '(', ')'])
}

/// Cuts an author's annotation off a table row: `# …`, `<-- …`, `← …`.
fn strip_note(s: &str) -> &str {
    let mut cut = s.len();
    for pat in ["<--", "<-", "<==", "←", "⬅"] {
        if let Some(p) = s.find(pat) {
            cut = cut.min(p);
        }
    }
    for (p, c) in s.char_indices() {
        if p >= cut {
            break;
        }
        if c == '#' && s.get(..p).is_some_and(|b| b.is_empty() || b.ends_with(char::is_whitespace)) {
            cut = p;
            break;
        }
    }
    s.get(..cut).unwrap_or(s)
}

/// Whitespace-separated tokens with their byte ranges.
#[derive(Clone, Copy, Debug)]
struct Tok<'t> {
    start: usize,
    end: usize,
    text: &'t str,
}

fn tokens(s: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (p, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push(Tok { start: b, end: p, text: &s[b..p] });
                start = None;
            }
            (false, None) => start = Some(p),
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push(Tok { start: b, end: s.len(), text: &s[b..] });
    }
    out
}

/// `Key:   value` → (`Key`, `value`); the colon must be followed by
/// whitespace or end the line (`Started:  Thu, 17 Feb 2022 16:51:05 -0500`).
fn split_key(t: &str) -> Option<(&str, &str)> {
    let bytes = t.as_bytes();
    let p = (0..bytes.len()).find(|&p| bytes[p] == b':' && bytes.get(p + 1).is_none_or(|b| b.is_ascii_whitespace()))?;
    let key = t.get(..p)?.trim_end();
    let value = t.get(p + 1..)?.trim();
    let ok = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.len() <= 64
        && key.chars().all(|c| c.is_ascii_alphanumeric() || " -_./()".contains(c));
    ok.then_some((key, value))
}

/// A describe value: empty and `<none>` mean absent.
fn value(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty() && v != "<none>" && v != "<unset>").then(|| v.to_string())
}

// --------------------------------------------------------------- commands

/// What a `kubectl` command line says about the output below it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Command {
    verb: String,
    /// Resource kinds, `pod` for any spelling of pods.
    kinds: Vec<String>,
    names: Vec<String>,
    namespace: Option<String>,
    all_namespaces: bool,
}

impl Command {
    /// `kubectl describe pod NAME` (one pod): its name and namespace.
    fn described_pod(&self) -> Option<(String, Option<String>)> {
        (self.verb == "describe" && self.kinds == ["pod"] && self.names.len() == 1)
            .then(|| (self.names.first().cloned().unwrap_or_default(), self.namespace.clone()))
    }
}

const VERBS: &[&str] = &[
    "get",
    "describe",
    "logs",
    "apply",
    "delete",
    "create",
    "edit",
    "scale",
    "rollout",
    "exec",
    "run",
    "patch",
    "label",
    "annotate",
    "top",
    "explain",
    "wait",
    "set",
    "expose",
    "debug",
    "cp",
    "port-forward",
    "events",
    "drain",
    "cordon",
    "uncordon",
    "taint",
    "auth",
    "config",
    "replace",
    "attach",
    "proxy",
    "diff",
    "version",
    "cluster-info",
    "autoscale",
];

/// Flags that take a value as the next argument.
const VALUE_FLAGS: &[&str] = &[
    "--namespace",
    "--selector",
    "--output",
    "--container",
    "--filename",
    "--context",
    "--kubeconfig",
    "--field-selector",
    "--label-columns",
    "--sort-by",
    "--cluster",
    "--user",
    "--server",
    "--since",
    "--tail",
    "--template",
    "--chunk-size",
    "--for",
    "--timeout",
    "--type",
    "--image",
    "--replicas",
    "--as",
    "--request-timeout",
];

fn normalize_kind(k: &str) -> String {
    let k = k.to_ascii_lowercase();
    match k.as_str() {
        "po" | "pod" | "pods" => "pod".into(),
        _ => k,
    }
}

/// Parses a line holding a `kubectl` command, after an optional prompt.
fn parse_command(line: &str) -> Option<Command> {
    let line = line.split('|').next().unwrap_or("");
    let line = match line.find(" #") {
        Some(p) => line.get(..p).unwrap_or(line),
        None => line,
    };
    let toks: Vec<&str> = line.split_whitespace().collect();
    let at = toks.iter().take(5).enumerate().position(|(i, t)| {
        let prev_ok = i == 0
            || toks.get(i - 1).is_some_and(|p| {
                p.ends_with(['$', '#', '>', '%']) || matches!(*p, "time" | "sudo" | "watch" | "minikube" | "microk8s")
            });
        let next_verb = toks.get(i + 1).is_some_and(|n| VERBS.contains(n) || n.starts_with('-'));
        let kubectl = *t == "kubectl" || t.ends_with("/kubectl") || *t == "kubectl.exe";
        prev_ok && ((kubectl && (next_verb || toks.len() == i + 1)) || (matches!(*t, "k" | "oc") && next_verb))
    })?;
    let args = toks.get(at + 1..).unwrap_or(&[]);
    let mut cmd = Command::default();
    let mut positional = Vec::new();
    let mut j = 0;
    while let Some(a) = args.get(j).copied() {
        j += 1;
        if a == "--" {
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let flag = format!("--{name}");
            let val = match val {
                Some(v) => Some(v.to_string()),
                None if VALUE_FLAGS.contains(&flag.as_str()) => {
                    j += 1;
                    args.get(j - 1).map(|s| s.to_string())
                }
                None => None,
            };
            match name {
                "namespace" => cmd.namespace = val,
                "all-namespaces" => cmd.all_namespaces = true,
                _ => {}
            }
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            let mut chars = short.chars();
            let c = chars.next().unwrap_or('-');
            let rest = chars.as_str().trim_start_matches('=');
            if matches!(c, 'n' | 'l' | 'o' | 'c' | 'f' | 'L' | 's') {
                let val = if rest.is_empty() {
                    j += 1;
                    args.get(j - 1).map(|s| s.to_string())
                } else {
                    Some(rest.to_string())
                };
                if c == 'n' {
                    cmd.namespace = val;
                }
            } else if short.contains('A') && short.chars().all(|c| c.is_ascii_alphabetic()) {
                cmd.all_namespaces = true;
            }
        } else {
            positional.push(a);
        }
    }
    cmd.verb = positional.first().map(|s| s.to_string()).unwrap_or_default();
    if matches!(cmd.verb.as_str(), "get" | "describe")
        && let Some(res) = positional.get(1)
    {
        if res.contains('/') {
            for r in positional.iter().skip(1) {
                if let Some((k, n)) = r.split_once('/') {
                    cmd.kinds.push(normalize_kind(k));
                    cmd.names.push(n.to_string());
                }
            }
        } else {
            cmd.kinds = res.split(',').filter(|k| !k.is_empty()).map(normalize_kind).collect();
            cmd.names = positional.iter().skip(2).map(|s| s.to_string()).collect();
        }
    }
    Some(cmd)
}

// ---------------------------------------------------------- table headers

#[derive(Clone, Debug)]
struct Col {
    name: String,
    /// Byte offset in the header line.
    at: usize,
}

#[derive(Clone, Debug)]
struct Header {
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
];

/// A kubectl table header: upper-case column names, the first NAME,
/// NAMESPACE, EVENT or LAST (SEEN).
fn parse_header(line: &str) -> Option<Header> {
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
fn glued_header(line: &str) -> Option<Header> {
    let mut from = 0;
    while let Some(p) = line.get(from..).and_then(|s| s.find("NAME")) {
        let at = from + p;
        if at > 0
            && let Some(mut h) = line.get(at..).and_then(parse_header)
        {
            for c in &mut h.cols {
                c.at += at;
            }
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

fn classify(h: &Header) -> Table {
    let names: Vec<&str> = h.cols.iter().map(|c| c.name.as_str()).collect();
    let has = |n: &str| names.contains(&n);
    if ["NAME", "READY", "STATUS", "RESTARTS", "AGE"].iter().all(|n| has(n)) {
        return Table::Pods(names.iter().map(|s| s.to_string()).collect());
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

// -------------------------------------------------------------- pod rows

struct RowRead {
    watch: Option<String>,
    row: PodRow,
    /// Ages printed as `<invalid>`/`<unknown>`, kept as [`UNKNOWN_AGE`].
    unknown: Vec<String>,
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

/// An age column: a human duration, or `<invalid>`/`<unknown>` (any age).
fn parse_age(t: &str) -> Result<(Span, bool), String> {
    match t {
        "<invalid>" | "<unknown>" => Ok((UNKNOWN_AGE, true)),
        _ => human_duration(t).map(|s| (s, false)).ok_or_else(|| format!("`{t}` is not an age")),
    }
}

fn read_pod_row(cols: &[String], text: &str) -> Result<RowRead, String> {
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
    Ok(RowRead { watch, row: PodRow { namespace, name, ready, status, restarts, last_restart_ago, age }, unknown })
}

/// A pod name as kubectl prints it (DNS subdomain).
fn is_pod_name(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 253
        && t.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

/// A row with exactly the default columns and no header above it.
fn headerless_pod_row(text: &str) -> Option<PodRow> {
    let mut s = strip_note(text).trim();
    // `--- t=10s --- name 0/1 Running 0 10s`: a marker written by a script.
    if let Some(rest) = s.strip_prefix("---") {
        let p = rest.find("---")?;
        s = rest.get(p..)?.trim_start_matches('-').trim();
    }
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
    Some(PodRow {
        namespace: None,
        name: name.to_string(),
        ready,
        status: status.to_string(),
        restarts,
        last_restart_ago,
        age,
    })
}

// ----------------------------------------------------------------- events

enum EventsLayout {
    /// `kubectl describe`: `Type Reason Age From Message`, with the byte
    /// offsets of From and Message in the header when it was seen.
    Describe { from: Option<usize>, message: Option<usize> },
    /// `kubectl get events`: `[NAMESPACE] LAST SEEN TYPE REASON OBJECT MESSAGE`.
    Get { namespace: bool },
    /// Any other layout, read by column positions (`-o wide`, kubectl < 1.14:
    /// `LASTSEEN FIRSTSEEN COUNT NAME KIND …`, old describe
    /// `FirstSeen LastSeen Count From SubObjectPath Type Reason Message`).
    Columns(Vec<Col>),
}

/// Drops the kubectl ≥ 1.35 field-path prefix: `spec.containers{nginx}: Started`.
fn strip_field_path(message: &str) -> &str {
    if message.starts_with("spec.")
        && let Some(p) = message.find("}: ")
        && message.get(..p).is_some_and(|h| h.contains('{') && !h.contains(' '))
    {
        return message.get(p + 3..).unwrap_or(message).trim_start();
    }
    message
}

/// `(x36 over 8m4s)` → (36, 8m4s).
fn parse_series(t: &str) -> Result<(u32, Span, bool), String> {
    let bad = || format!("`{t}` is not `(xN over AGE)`");
    let inner = t.trim().strip_prefix("(x").and_then(|s| s.strip_suffix(')')).ok_or_else(bad)?;
    let (n, first) = inner.split_once(" over ").ok_or_else(bad)?;
    let n = n.trim().parse().map_err(|_| bad())?;
    let (first, unknown) = parse_age(first.trim())?;
    Ok((n, first, unknown))
}

/// Reads the age column (`60s` or `60s (x3 over 30s)`) from token `k` on;
/// returns the last, the count, the first, whether an age is unknown and the
/// index of the next token.
fn read_event_age(toks: &[Tok], k: usize) -> Result<(Span, u32, Span, bool, usize), String> {
    let age = toks.get(k).ok_or("no age column")?;
    let (last, mut unknown) = parse_age(age.text)?;
    let mut next = k + 1;
    if toks.get(next).is_some_and(|t| t.text.starts_with("(x")) {
        let mut parts = Vec::new();
        while let Some(t) = toks.get(next) {
            parts.push(t.text);
            next += 1;
            if t.text.ends_with(')') {
                break;
            }
        }
        let (count, first, u) = parse_series(&parts.join(" "))?;
        unknown |= u;
        return Ok((last, count, first, unknown, next));
    }
    Ok((last, 1, last, unknown, next))
}

/// True when `at` starts a column of `t`: a token starts there after whitespace.
fn column_starts(t: &str, at: usize) -> bool {
    at > 0
        && t.is_char_boundary(at)
        && t.get(..at).is_some_and(|b| b.ends_with(' '))
        && t.get(at..).is_some_and(|r| r.starts_with(|c: char| !c.is_whitespace()))
}

/// Cuts a row into the columns of `cols` by position; None when the row is
/// not aligned with the header.
fn split_columns<'t>(t: &'t str, cols: &[Col]) -> Option<Vec<&'t str>> {
    let mut out = Vec::with_capacity(cols.len());
    let first = cols.first()?;
    if !t.get(..first.at)?.trim().is_empty() {
        return None;
    }
    for (i, c) in cols.iter().enumerate() {
        let end = cols.get(i + 1).map_or(t.len(), |n| n.at).min(t.len());
        if c.at >= t.len() {
            out.push("");
            continue;
        }
        if i > 0 && !t.get(c.at - 1..c.at)?.chars().all(char::is_whitespace) {
            return None;
        }
        out.push(t.get(c.at..end)?.trim());
    }
    Some(out)
}

/// A describe event line: the row and whether an age is unknown.
fn parse_describe_event(t: &str, layout: &EventsLayout) -> Result<(EventRow, bool), String> {
    if let EventsLayout::Columns(cols) = layout {
        return parse_event_columns(t, cols).map(|(_, row, unknown)| (row, unknown));
    }
    let (from_at, message_at) = match layout {
        EventsLayout::Describe { from, message } => (*from, *message),
        _ => (None, None),
    };
    let toks = tokens(t);
    let (Some(ty), Some(reason)) = (toks.first(), toks.get(1)) else {
        return Err("too few columns".into());
    };
    if !ty.text.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("`{}` is not an event type", ty.text));
    }
    let (last_seen, count, first_seen, unknown, k) = read_event_age(&toks, 2)?;
    let age_end = toks.get(k.wrapping_sub(1)).map_or(t.len(), |a| a.end);
    // From and Message by the header's positions when the row is aligned with
    // it (From may hold spaces: `kubelet, node01`), else by tokens.
    // Aligned: the first token after the age starts the From column, or the
    // Message column when From is empty.
    let aligned = |f: usize, m: usize| {
        m > age_end && column_starts(t, m) && toks.get(k).is_some_and(|x| x.start == f || x.start == m)
    };
    let by_position = match (from_at, message_at) {
        (Some(f), Some(m)) if aligned(f, m) => {
            t.get(f.max(age_end)..m).map(|from| (from.trim().to_string(), t.get(m..).unwrap_or("").trim()))
        }
        _ => None,
    };
    let (from, message) = match by_position {
        Some(fm) => fm,
        None => {
            let fr = toks.get(k).ok_or("no From column")?;
            let mut end = fr.end;
            if fr.text.ends_with(',')
                && let Some(n) = toks.get(k + 1)
            {
                end = n.end;
            }
            (t.get(fr.start..end).unwrap_or("").to_string(), t.get(end..).unwrap_or("").trim())
        }
    };
    let row = EventRow {
        warning: ty.text == "Warning",
        reason: reason.text.to_string(),
        last_seen,
        count,
        first_seen,
        from,
        message: strip_field_path(message).to_string(),
    };
    Ok((row, unknown))
}

/// A `kubectl get events` row: the pod (when OBJECT is a pod), the row and
/// whether an age is unknown.
fn parse_get_event(t: &str, layout: &EventsLayout) -> Result<(Option<String>, EventRow, bool), String> {
    let EventsLayout::Get { namespace } = layout else {
        return match layout {
            EventsLayout::Columns(cols) => parse_event_columns(t, cols),
            _ => parse_describe_event(t, layout).map(|(row, unknown)| (None, row, unknown)),
        };
    };
    let toks = tokens(t);
    let k = usize::from(*namespace);
    let (last_seen, count, first_seen, unknown, k) = read_event_age(&toks, k)?;
    let (Some(ty), Some(reason), Some(object)) = (toks.get(k), toks.get(k + 1), toks.get(k + 2)) else {
        return Err("too few columns".into());
    };
    // Without `-o wide` the table has no COUNT/FIRST SEEN: at least one
    // occurrence, the first at least as old as the last.
    let first_seen = if k == usize::from(*namespace) + 1 {
        Span { lo: last_seen.lo, hi: UNKNOWN_AGE.hi.max(last_seen.hi) }
    } else {
        first_seen
    };
    let message = t.get(object.end..).unwrap_or("").trim();
    let row = EventRow {
        warning: ty.text == "Warning",
        reason: reason.text.to_string(),
        last_seen,
        count,
        first_seen,
        from: String::new(),
        message: strip_field_path(message).to_string(),
    };
    Ok((object.text.strip_prefix("pod/").map(str::to_string), row, unknown))
}

/// An event row read by column positions.
fn parse_event_columns(t: &str, cols: &[Col]) -> Result<(Option<String>, EventRow, bool), String> {
    let cells = split_columns(t, cols).ok_or("the row is not aligned with the header")?;
    let get = |names: &[&str]| {
        cols.iter()
            .position(|c| names.iter().any(|n| c.name.eq_ignore_ascii_case(n)))
            .and_then(|i| cells.get(i).copied())
    };
    let last = get(&["LAST SEEN", "LASTSEEN"]).ok_or("no LAST SEEN column")?;
    let (last_seen, mut unknown) = parse_age(last)?;
    let count = match get(&["COUNT"]) {
        Some(c) => c.parse().map_err(|_| format!("COUNT `{c}` is not a number"))?,
        None => 1,
    };
    let first_seen = match get(&["FIRST SEEN", "FIRSTSEEN"]) {
        Some(f) => {
            let (s, u) = parse_age(f)?;
            unknown |= u;
            s
        }
        None => Span { lo: last_seen.lo, hi: UNKNOWN_AGE.hi.max(last_seen.hi) },
    };
    let ty = get(&["TYPE"]).unwrap_or("");
    let reason = get(&["REASON"]).ok_or("no REASON column")?;
    let pod = match (get(&["OBJECT"]), get(&["KIND"]), get(&["NAME"])) {
        (Some(o), _, _) => o.strip_prefix("pod/").map(str::to_string),
        (None, Some(kind), Some(name)) if kind.eq_ignore_ascii_case("pod") => Some(name.to_string()),
        _ => None,
    };
    let row = EventRow {
        warning: ty == "Warning",
        reason: reason.to_string(),
        last_seen,
        count,
        first_seen,
        from: get(&["SOURCE", "FROM"]).unwrap_or("").to_string(),
        message: strip_field_path(get(&["MESSAGE"]).unwrap_or("")).to_string(),
    };
    Ok((pod, row, unknown))
}

/// `Successfully assigned NS/NAME to NODE` → (NS, NAME).
fn scheduled_pod(e: &EventRow) -> Option<(String, String)> {
    if e.reason != "Scheduled" {
        return None;
    }
    let rest = e.message.strip_prefix("Successfully assigned ")?;
    let target = rest.split_whitespace().next()?;
    let (ns, name) = target.split_once('/')?;
    (is_pod_name(name) && !ns.is_empty()).then(|| (ns.to_string(), name.to_string()))
}

// --------------------------------------------------------------- describe

/// Top-level describe keys only other resources print.
const OTHER_RESOURCE_KEYS: &[&str] = &[
    "CreationTimestamp",
    "Replicas",
    "Selector",
    "Pod Template",
    "StrategyType",
    "Completions",
    "Parallelism",
    "Schedule",
    "Roles",
    "Capacity",
    "StorageClass",
    "Type",
    "Endpoints",
    "TargetPort",
    "Taints",
    "Unschedulable",
    "Addresses",
    "AddressType",
    "Update Strategy",
    "Pods Status",
    "Data",
    "Reclaim Policy",
    "Access Modes",
];

/// Top-level describe keys only pods print.
const POD_ONLY_KEYS: &[&str] =
    &["Start Time", "Node", "IP", "IPs", "Containers", "Init Containers", "QoS Class", "Status", "Conditions"];

/// The first line of a `kubectl describe` block.
fn describe_start(t: &str) -> bool {
    let Some((k, v)) = split_key(t.trim()) else { return false };
    if k == "Name" {
        return !v.is_empty() && !v.contains(char::is_whitespace) && indent(t) <= 8;
    }
    indent(t) == 0
        && (matches!(
            k,
            "Namespace" | "Start Time" | "Init Containers" | "Containers" | "Conditions" | "Events" | "QoS Class"
        ) || (k == "Status" && (PHASES.contains(&v) || v.starts_with("Terminating"))))
}

const PHASES: &[&str] = &["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/// A key of a container's describe fields, when met outside a describe block.
fn is_fragment_key(t: &str) -> bool {
    split_key(t.trim()).is_some_and(|(k, _)| {
        matches!(
            k,
            "State"
                | "Last State"
                | "Ready"
                | "Restart Count"
                | "Exit Code"
                | "Liveness"
                | "Readiness"
                | "Startup"
                | "Container ID"
                | "Image ID"
        )
    })
}

/// A top-level describe key line (`Status:   Running`).
fn top_key(t: &str) -> Option<(&str, &str)> {
    split_key(t.trim()).filter(|(k, _)| starts_upper(k))
}

/// The index after the last line of the describe block starting at `start`.
fn describe_end(lines: &[Line], start: usize) -> usize {
    let Some(first) = lines.get(start) else { return start + 1 };
    let base = indent(first.text);
    let events_open = |t: &str| top_key(t).is_some_and(|(k, v)| k == "Events" && value(v).is_none());
    let mut in_events = events_open(first.text);
    let mut j = start + 1;
    while let Some(l) = lines.get(j) {
        let t = l.text;
        let tt = t.trim();
        if tt.is_empty() {
            if in_events {
                return j;
            }
            // Blank lines inside the block: only when it goes on indented.
            let next = (j + 1..lines.len()).find(|&k| lines.get(k).is_some_and(|l| !l.text.trim().is_empty()));
            match next.and_then(|k| lines.get(k).map(|l| (k, l))) {
                Some((k, l)) if indent(l.text) > base && !is_prompt(l.text) && parse_command(l.text).is_none() => {
                    j = k;
                    continue;
                }
                _ => return j,
            }
        }
        if is_fence(tt) {
            return j;
        }
        // Deeper lines belong to the block, even `kubectl …` as a container's argument.
        if indent(t) > base || is_elision(tt) {
            j += 1;
            continue;
        }
        if is_prompt(t) || parse_command(t).is_some() || parse_header(t).is_some() {
            return j;
        }
        let key = top_key(t).map(|(k, _)| k);
        if in_events {
            // Events come last; an event message with a line break goes on at
            // the left margin (even `Error: …`).
            if key == Some("Name") || tt.starts_with("---") {
                return j;
            }
            j += 1;
            continue;
        }
        match key {
            Some("Name") | None => return j,
            Some(_) => {
                in_events = events_open(t);
                j += 1;
            }
        }
    }
    j
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Section {
    Top,
    Skip,
    Labels,
    IPs,
    Containers { init: bool },
    Conditions,
    Gates,
    Events,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    Other,
    Command,
    Args,
    State,
    LastState,
    Limits,
    Requests,
}

#[derive(Default)]
struct Ctr {
    line: u64,
    spec: Container,
    status: ContainerStatus,
    has_status: bool,
    ready_seen: bool,
    restarts_seen: bool,
    ports: Vec<(i32, String)>,
    host_ports: Vec<i32>,
    limits: BTreeMap<String, Quantity>,
    requests: BTreeMap<String, Quantity>,
}

#[derive(Default)]
struct Describe {
    name: Option<String>,
    name_line: Option<u64>,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    deletion_grace: Option<i64>,
    spec: PodSpec,
    status: PodStatus,
    init: Vec<Ctr>,
    containers: Vec<Ctr>,
    gates: Vec<PodReadinessGate>,
    events: Vec<(u64, EventRow)>,
    warnings: Vec<(u64, String)>,
}

/// A describe time (`Thu, 17 Feb 2022 16:51:01 -0500`, RFC 1123 with a
/// numeric zone) as the UTC instant; zone names other than UTC/GMT are
/// refused (`IST`, `CST` are ambiguous).
fn parse_time(s: &str) -> Option<Time> {
    let s = s.trim();
    let zone = s.rsplit(' ').next()?;
    let numeric = zone.len() == 5 && zone.starts_with(['+', '-']) && zone.chars().skip(1).all(|c| c.is_ascii_digit());
    if !numeric && !matches!(zone, "UTC" | "GMT" | "UT" | "Z") {
        return None;
    }
    let parser = jiff::fmt::rfc2822::DateTimeParser::new().relaxed_weekday(true);
    parser.parse_timestamp(s).ok().map(Time)
}

/// `80/TCP, 443/TCP` → (port, protocol) pairs.
fn parse_ports(v: &str) -> Option<Vec<(i32, String)>> {
    value(v)
        .map(|v| {
            v.split(',')
                .map(|p| {
                    let p = p.trim();
                    let (n, proto) = p.split_once('/').unwrap_or((p, "TCP"));
                    let proto = proto.split_whitespace().next().unwrap_or("TCP");
                    Some((n.trim().parse().ok()?, proto.to_string()))
                })
                .collect()
        })
        .unwrap_or(Some(Vec::new()))
}

fn int_or_string(p: &str) -> Option<IntOrString> {
    if p.is_empty() {
        return None;
    }
    Some(p.parse::<i32>().map(IntOrString::Int).unwrap_or_else(|_| IntOrString::String(p.to_string())))
}

/// `host:port` or `[v6]:port`.
fn split_host_port(hp: &str) -> Option<(Option<String>, IntOrString)> {
    let (host, port) = match hp.strip_prefix('[') {
        Some(rest) => {
            let (h, p) = rest.split_once("]:")?;
            (h, p)
        }
        None => hp.rsplit_once(':')?,
    };
    Some((value(host), int_or_string(port)?))
}

/// A describe probe: `http-get http://:8080/healthz delay=30s timeout=1s
/// period=10s #success=1 #failure=3` (newer kubectl: `successThreshold=1
/// failureThreshold=3`), `tcp-socket :8080 …`, `exec [sh -c test -f /x] …`,
/// `grpc <pod>:9090 service …`. The exec command is split on spaces.
fn parse_probe(v: &str) -> Option<Probe> {
    let v = v.trim();
    let (head, attrs) = match v.find(" delay=") {
        Some(p) => (v.get(..p)?, v.get(p + 1..)?),
        None => (v, ""),
    };
    let mut probe = Probe::default();
    for a in attrs.split_whitespace() {
        let Some((k, val)) = a.split_once('=') else { continue };
        let n = val.trim_end_matches('s').parse::<i32>().ok();
        match k {
            "delay" => probe.initial_delay_seconds = n,
            "timeout" => probe.timeout_seconds = n,
            "period" => probe.period_seconds = n,
            "#success" | "successThreshold" => probe.success_threshold = n,
            "#failure" | "failureThreshold" => probe.failure_threshold = n,
            _ => {}
        }
    }
    let (kind, target) = head.split_once(' ').unwrap_or((head, ""));
    let target = target.trim();
    match kind {
        "http-get" => {
            let (scheme, rest) = target.split_once("://")?;
            let (hostport, path) = match rest.find('/') {
                Some(p) => (rest.get(..p)?, rest.get(p..)?),
                None => (rest, ""),
            };
            let (host, port) = split_host_port(hostport)?;
            probe.http_get = Some(HTTPGetAction {
                host,
                path: value(path),
                port,
                scheme: Some(scheme.to_ascii_uppercase()),
                ..Default::default()
            });
        }
        "tcp-socket" => {
            let (host, port) = split_host_port(target)?;
            probe.tcp_socket = Some(TCPSocketAction { host, port });
        }
        "exec" => {
            let inner = target.strip_prefix('[')?.strip_suffix(']')?;
            let mut words: Vec<String> = inner.split_whitespace().map(str::to_string).collect();
            // Go prints `[sh -c test -f /x]` for ["sh", "-c", "test -f /x"]: a shell's
            // script is one argument.
            if words.len() > 3
                && words.first().is_some_and(|w| w.ends_with("sh"))
                && words.get(1).is_some_and(|w| w == "-c")
            {
                let script = words.split_off(2).join(" ");
                words.push(script);
            }
            probe.exec = Some(ExecAction { command: Some(words) });
        }
        "grpc" => {
            let (addr, service) = target.split_once(' ').unwrap_or((target, ""));
            let port = addr.rsplit_once(':')?.1.parse().ok()?;
            probe.grpc = Some(GRPCAction { port, service: value(service), ..Default::default() });
        }
        "unknown" => {}
        _ => return None,
    }
    Some(probe)
}

fn new_state(v: &str) -> Option<ContainerState> {
    let mut s = ContainerState::default();
    match v.split_whitespace().next()? {
        "Running" => s.running = Some(ContainerStateRunning::default()),
        "Waiting" => s.waiting = Some(ContainerStateWaiting::default()),
        "Terminated" => s.terminated = Some(ContainerStateTerminated::default()),
        _ => return None,
    }
    Some(s)
}

impl Describe {
    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.warnings.push((line, message.into()));
    }

    fn time(&mut self, line: u64, what: &str, v: &str) -> Option<Time> {
        let t = parse_time(v);
        if t.is_none() && value(v).is_some() {
            self.warn(line, format!("{what} `{v}` is not a time like `Thu, 17 Feb 2022 16:51:01 -0500`: left out"));
        }
        t
    }

    /// Reads the lines of one describe block, `base` the indent of its keys.
    fn read(&mut self, block: &[Line], base: usize) {
        let mut section = Section::Top;
        let (mut ctr_indent, mut field_indent): (Option<usize>, Option<usize>) = (None, None);
        let mut field = Field::Other;
        let mut layout = EventsLayout::Describe { from: None, message: None };
        for l in block {
            let (t, tt, ind) = (l.text, l.text.trim(), indent(l.text));
            if tt.is_empty() || is_elision(tt) {
                continue;
            }
            if ind <= base && section != Section::Events {
                let Some((k, v)) = top_key(t) else {
                    self.warn(l.no, format!("cannot read this line of `kubectl describe` output: `{tt}`"));
                    section = Section::Skip;
                    continue;
                };
                section = self.top(l.no, k, v);
                (ctr_indent, field_indent, field) = (None, None, Field::Other);
                if section == Section::Events {
                    layout = EventsLayout::Describe { from: None, message: None };
                }
                continue;
            }
            match section {
                Section::Top | Section::Skip => {}
                Section::Labels => {
                    if let Some((k, v)) = tt.split_once('=') {
                        self.labels.insert(k.to_string(), v.to_string());
                    }
                }
                Section::IPs => {
                    if let Some(ip) = split_key(tt).filter(|(k, _)| *k == "IP").and_then(|(_, v)| value(v)) {
                        self.status.pod_ips.get_or_insert_with(Vec::new).push(PodIP { ip });
                    }
                }
                Section::Conditions | Section::Gates => {
                    let toks: Vec<&str> = tt.split_whitespace().collect();
                    match toks.as_slice() {
                        ["Type", ..] => {}
                        [dash, ..] if dash.starts_with("--") => {}
                        [ty, status, ..] if section == Section::Conditions => {
                            self.status.conditions.get_or_insert_with(Vec::new).push(PodCondition {
                                type_: ty.to_string(),
                                status: status.to_string(),
                                ..Default::default()
                            });
                        }
                        [ty, ..] if section == Section::Gates => {
                            self.gates.push(PodReadinessGate { condition_type: ty.to_string() })
                        }
                        _ => self.warn(l.no, format!("cannot read this condition line: `{tt}`")),
                    }
                }
                Section::Containers { init } => {
                    if ctr_indent.is_none_or(|c| ind <= c) {
                        match tt.strip_suffix(':').filter(|n| !n.is_empty() && !n.contains(char::is_whitespace)) {
                            Some(name) => {
                                let mut c = Ctr { line: l.no, ..Default::default() };
                                c.spec.name = name.to_string();
                                c.status.name = name.to_string();
                                if init {
                                    self.init.push(c)
                                } else {
                                    self.containers.push(c)
                                }
                                (ctr_indent, field_indent, field) = (Some(ind), None, Field::Other);
                            }
                            None => self.warn(l.no, format!("expected a container name (`name:`), found `{tt}`")),
                        }
                        continue;
                    }
                    let ctr = if init { self.init.last_mut() } else { self.containers.last_mut() };
                    let Some(ctr) = ctr else { continue };
                    let mut warnings = Vec::new();
                    if field_indent.is_none_or(|f| ind <= f) {
                        field_indent = Some(ind);
                        field = container_field(ctr, l.no, tt, &mut warnings);
                    } else {
                        container_sub(ctr, field, l.no, tt, &mut warnings);
                    }
                    self.warnings.append(&mut warnings);
                }
                Section::Events => self.event_line(l, &mut layout),
            }
        }
    }

    /// A top-level key: sets a field and returns the section it opens.
    fn top(&mut self, line: u64, k: &str, v: &str) -> Section {
        match k {
            "Name" => {
                self.name = value(v);
                self.name_line = Some(line);
            }
            "Namespace" => self.namespace = value(v),
            "Priority" => self.spec.priority = v.parse().ok(),
            "Priority Class Name" => self.spec.priority_class_name = value(v),
            "Runtime Class Name" => self.spec.runtime_class_name = value(v),
            "Service Account" => self.spec.service_account_name = value(v),
            "Node" => {
                if let Some(v) = value(v) {
                    let (node, host_ip) = v.split_once('/').unwrap_or((&v, ""));
                    self.spec.node_name = value(node);
                    if let Some(ip) = value(host_ip) {
                        self.status.host_ips = Some(vec![HostIP { ip: ip.clone() }]);
                        self.status.host_ip = Some(ip);
                    }
                }
            }
            "Start Time" => self.status.start_time = self.time(line, "Start Time", v),
            "Labels" => {
                if let Some((k, v)) = value(v).as_deref().and_then(|v| v.split_once('=')) {
                    self.labels.insert(k.to_string(), v.to_string());
                }
                return Section::Labels;
            }
            "Status" => {
                if PHASES.contains(&v) {
                    self.status.phase = Some(v.to_string());
                } else if !v.starts_with("Terminating") {
                    // `Terminating (lasts 3m)`: the phase is not shown.
                    self.warn(line, format!("`{v}` is not a pod phase: left out"));
                }
            }
            "Termination Grace Period" => self.deletion_grace = v.trim_end_matches('s').parse().ok(),
            "Reason" => self.status.reason = value(v),
            "Message" => self.status.message = value(v),
            "IP" => self.status.pod_ip = value(v),
            "IPs" => {
                if let Some(ip) = split_key(v).and_then(|(_, ip)| value(ip)) {
                    self.status.pod_ips.get_or_insert_with(Vec::new).push(PodIP { ip });
                }
                return Section::IPs;
            }
            "NominatedNodeName" => self.status.nominated_node_name = value(v),
            "QoS Class" => self.status.qos_class = value(v),
            "Init Containers" => return Section::Containers { init: true },
            "Containers" => return Section::Containers { init: false },
            "Conditions" => return Section::Conditions,
            "Readiness Gates" => return Section::Gates,
            "Events" => return if value(v).is_some() { Section::Skip } else { Section::Events },
            _ => return Section::Skip,
        }
        Section::Top
    }

    fn event_line(&mut self, l: &Line, layout: &mut EventsLayout) {
        let t = l.text;
        let tt = t.trim();
        let toks = tokens(t);
        let word = |w: &str| toks.iter().find(|x| x.text == w).map(|x| x.start);
        if tt.starts_with("Type") && word("Reason").is_some() && word("Message").is_some() {
            *layout = EventsLayout::Describe { from: word("From"), message: word("Message") };
            return;
        }
        if tt.starts_with("FirstSeen") || tt.starts_with("LastSeen") {
            let cols = toks.iter().map(|x| Col { name: x.text.to_string(), at: x.start }).collect();
            *layout = EventsLayout::Columns(cols);
            return;
        }
        if tt.chars().all(|c| c == '-' || c.is_whitespace()) {
            return;
        }
        match parse_describe_event(t, layout) {
            Ok((row, unknown)) => {
                if unknown {
                    self.warn(l.no, UNKNOWN_EVENT_AGE);
                }
                self.events.push((l.no, row));
            }
            Err(e) => {
                let row_like = toks.first().is_some_and(|x| matches!(x.text, "Normal" | "Warning"));
                match self.events.last_mut() {
                    // A message broken over lines.
                    Some((_, last)) if !row_like => {
                        last.message.push('\n');
                        last.message.push_str(tt);
                    }
                    _ => self.warn(l.no, format!("cannot read this event line: {e}")),
                }
            }
        }
    }

    /// The Pod object; spec and status only when the block showed any.
    fn build(&mut self) -> Pod {
        let mut pod = Pod::default();
        pod.metadata.name = self.name.clone();
        pod.metadata.namespace = self.namespace.clone();
        pod.metadata.deletion_grace_period_seconds = self.deletion_grace;
        if !self.labels.is_empty() {
            pod.metadata.labels = Some(std::mem::take(&mut self.labels));
        }
        let mut spec = std::mem::take(&mut self.spec);
        let mut status = std::mem::take(&mut self.status);
        if !self.gates.is_empty() {
            spec.readiness_gates = Some(std::mem::take(&mut self.gates));
        }
        let split = |ctrs: Vec<Ctr>, warnings: &mut Vec<(u64, String)>| {
            let mut specs = Vec::new();
            let mut statuses = Vec::new();
            for mut c in ctrs {
                for (i, (port, protocol)) in c.ports.iter().enumerate() {
                    let host_port = c.host_ports.get(i).copied().filter(|p| *p > 0);
                    c.spec.ports.get_or_insert_with(Vec::new).push(ContainerPort {
                        container_port: *port,
                        host_port,
                        protocol: Some(protocol.clone()),
                        ..Default::default()
                    });
                }
                if !c.limits.is_empty() || !c.requests.is_empty() {
                    c.spec.resources = Some(ResourceRequirements {
                        limits: (!c.limits.is_empty()).then_some(c.limits),
                        requests: (!c.requests.is_empty()).then_some(c.requests),
                        ..Default::default()
                    });
                }
                if c.has_status {
                    if !c.ready_seen || !c.restarts_seen {
                        warnings.push((
                            c.line,
                            format!(
                                "container `{}`: `Ready:` or `Restart Count:` is not shown (an excerpt?): taken as \
                                 not ready and 0 restarts",
                                c.spec.name
                            ),
                        ));
                    }
                    c.status.image = c.spec.image.clone().unwrap_or_default();
                    statuses.push(c.status);
                }
                specs.push(c.spec);
            }
            (specs, statuses)
        };
        let mut warnings = Vec::new();
        let (init_specs, init_statuses) = split(std::mem::take(&mut self.init), &mut warnings);
        let (specs, statuses) = split(std::mem::take(&mut self.containers), &mut warnings);
        self.warnings.append(&mut warnings);
        let any_containers = !init_specs.is_empty() || !specs.is_empty();
        if !init_specs.is_empty() {
            spec.init_containers = Some(init_specs);
        }
        spec.containers = specs;
        if !init_statuses.is_empty() {
            status.init_container_statuses = Some(init_statuses);
        }
        if !statuses.is_empty() {
            status.container_statuses = Some(statuses);
        }
        if any_containers || spec != PodSpec::default() {
            pod.spec = Some(spec);
        }
        if status != PodStatus::default() {
            pod.status = Some(status);
        }
        pod
    }
}

/// A container's field line; returns the field its deeper lines belong to.
fn container_field(c: &mut Ctr, line: u64, tt: &str, warnings: &mut Vec<(u64, String)>) -> Field {
    let Some((k, v)) = split_key(tt) else { return Field::Other };
    let mut warn = |m: String| warnings.push((line, m));
    match k {
        "Container ID" => c.status.container_id = value(v),
        "Image" => c.spec.image = value(v),
        "Image ID" => c.status.image_id = value(v).unwrap_or_default(),
        "Port" | "Ports" => match parse_ports(v) {
            Some(p) => c.ports = p,
            None => warn(format!("cannot read the ports `{v}`")),
        },
        "Host Port" | "Host Ports" => {
            c.host_ports = parse_ports(v).unwrap_or_default().into_iter().map(|(p, _)| p).collect();
        }
        "Command" => return Field::Command,
        "Args" => return Field::Args,
        "State" | "Last State" => {
            c.has_status |= k == "State";
            let state = new_state(v);
            if state.is_none() && value(v).is_some() {
                warn(format!("`{v}` is not a container state (Running, Waiting, Terminated)"));
            }
            if k == "State" {
                c.status.state = state;
                return Field::State;
            }
            c.status.last_state = state;
            return Field::LastState;
        }
        "Ready" => match v {
            "True" | "true" => (c.status.ready, c.ready_seen, c.has_status) = (true, true, true),
            "False" | "false" => (c.status.ready, c.ready_seen, c.has_status) = (false, true, true),
            _ => warn(format!("Ready `{v}` is not True or False")),
        },
        "Restart Count" => match v.parse() {
            Ok(n) => (c.status.restart_count, c.restarts_seen, c.has_status) = (n, true, true),
            Err(_) => warn(format!("Restart Count `{v}` is not a number")),
        },
        "Limits" => return Field::Limits,
        "Requests" => return Field::Requests,
        "Liveness" | "Readiness" | "Startup" => match parse_probe(v) {
            Some(p) => match k {
                "Liveness" => c.spec.liveness_probe = Some(p),
                "Readiness" => c.spec.readiness_probe = Some(p),
                _ => c.spec.startup_probe = Some(p),
            },
            None => warn(format!("cannot read the {k} probe `{v}`: left out")),
        },
        _ => {}
    }
    Field::Other
}

/// A line below a container field (command words, resources, state details).
fn container_sub(c: &mut Ctr, field: Field, line: u64, tt: &str, warnings: &mut Vec<(u64, String)>) {
    match field {
        Field::Command => c.spec.command.get_or_insert_with(Vec::new).push(tt.to_string()),
        Field::Args => c.spec.args.get_or_insert_with(Vec::new).push(tt.to_string()),
        Field::Limits | Field::Requests => {
            if let Some((k, v)) = split_key(tt) {
                let map = if field == Field::Limits { &mut c.limits } else { &mut c.requests };
                map.insert(k.to_string(), Quantity(v.to_string()));
            }
        }
        Field::State | Field::LastState => {
            let Some((k, v)) = split_key(tt) else { return };
            let state = if field == Field::State { &mut c.status.state } else { &mut c.status.last_state };
            let Some(state) = state.as_mut() else { return };
            let time = |warnings: &mut Vec<(u64, String)>| {
                let t = parse_time(v);
                if t.is_none() {
                    warnings.push((
                        line,
                        format!("{k} `{v}` is not a time like `Thu, 17 Feb 2022 16:51:01 -0500`: left out"),
                    ));
                }
                t
            };
            if let Some(r) = state.running.as_mut() {
                if k == "Started" {
                    r.started_at = time(warnings);
                }
            } else if let Some(w) = state.waiting.as_mut() {
                match k {
                    "Reason" => w.reason = value(v),
                    "Message" => w.message = value(v),
                    _ => {}
                }
            } else if let Some(x) = state.terminated.as_mut() {
                match k {
                    "Reason" => x.reason = value(v),
                    "Message" => x.message = value(v),
                    "Exit Code" => match v.parse() {
                        Ok(n) => x.exit_code = n,
                        Err(_) => warnings.push((line, format!("Exit Code `{v}` is not a number"))),
                    },
                    "Signal" => x.signal = v.parse().ok(),
                    "Started" => x.started_at = time(warnings),
                    "Finished" => x.finished_at = time(warnings),
                    _ => {}
                }
            }
        }
        Field::Other => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Severity;

    /// A recording of tests/traces.
    macro_rules! trace {
        ($path:literal) => {
            include_str!(concat!("../../tests/traces/", $path))
        };
    }

    fn read(text: &str) -> (Vec<Record>, Vec<Problem>) {
        let file: Arc<str> = Arc::from("test.txt");
        let mut records = Vec::new();
        let mut problems = Vec::new();
        read_text(&file, text, &mut |r| records.push(r), &mut problems);
        (records, problems)
    }

    fn rows(records: &[Record]) -> Vec<(u64, &PodRow)> {
        records
            .iter()
            .filter_map(|r| match &r.observed {
                Observed::Row(p) => Some((r.origin.line, p)),
                _ => None,
            })
            .collect()
    }

    fn events(records: &[Record]) -> Vec<(u64, Option<&str>, &EventRow)> {
        records
            .iter()
            .filter_map(|r| match &r.observed {
                Observed::EventRow { pod, row } => Some((r.origin.line, pod.as_deref(), row)),
                _ => None,
            })
            .collect()
    }

    fn pods(records: &[Record]) -> Vec<(u64, &Pod)> {
        records
            .iter()
            .filter_map(|r| match &r.observed {
                Observed::Pod(p) => Some((r.origin.line, p.as_ref())),
                _ => None,
            })
            .collect()
    }

    /// The interval an age of `s` seconds printed as `Ns` stands for.
    fn secs(s: i64) -> Span {
        Span { lo: s * 1000, hi: s * 1000 + 1000 }
    }

    fn time(t: &Option<Time>) -> String {
        t.as_ref().map(|t| t.0.to_string()).unwrap_or_default()
    }

    fn messages(problems: &[Problem]) -> Vec<String> {
        problems.iter().map(|p| p.to_string()).collect()
    }

    fn status(p: &Pod) -> &PodStatus {
        p.status.as_ref().expect("status")
    }

    fn spec(p: &Pod) -> &PodSpec {
        p.spec.as_ref().expect("spec")
    }

    // ------------------------------------------------------- recordings

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
    fn trace_006_describe() {
        let (records, problems) = read(trace!("006-happy-path-nginx-containerd-describe-and-yaml/describe.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 6, "one Pod and five events");
        let pods = pods(&records);
        let (line, pod) = pods[0];
        assert_eq!(line, 1, "the Name: line");
        assert_eq!(pod.metadata.name.as_deref(), Some("nginx-deployment-67d4bdd6f5-w6kd7"));
        assert_eq!(pod.metadata.namespace.as_deref(), Some("default"));
        assert_eq!(pod.metadata.labels.as_ref().map(|l| l.len()), Some(2));
        assert_eq!(spec(pod).node_name.as_deref(), Some("kube-worker-1"));
        let st = status(pod);
        assert_eq!(st.phase.as_deref(), Some("Running"));
        assert_eq!(st.host_ip.as_deref(), Some("192.168.0.113"));
        assert_eq!(st.pod_ip.as_deref(), Some("10.88.0.3"));
        assert_eq!(st.pod_ips.as_ref().map(|v| v.len()), Some(2));
        assert_eq!(time(&st.start_time), "2022-02-17T21:51:01Z", "16:51:01 -0500 in UTC");
        assert_eq!(st.qos_class.as_deref(), Some("Guaranteed"));
        let conds: Vec<(&str, &str)> =
            st.conditions.iter().flatten().map(|c| (c.type_.as_str(), c.status.as_str())).collect();
        assert_eq!(
            conds,
            [("Initialized", "True"), ("Ready", "True"), ("ContainersReady", "True"), ("PodScheduled", "True")]
        );
        assert!(st.conditions.iter().flatten().all(|c| c.last_transition_time.is_none()));
        let c = &spec(pod).containers[0];
        assert_eq!((c.name.as_str(), c.image.as_deref()), ("nginx", Some("nginx")));
        let port = &c.ports.as_ref().unwrap()[0];
        assert_eq!((port.container_port, port.protocol.as_deref(), port.host_port), (80, Some("TCP"), None));
        let limits = c.resources.as_ref().and_then(|r| r.limits.as_ref()).unwrap();
        assert_eq!(limits.get("memory").map(|q| q.0.as_str()), Some("128Mi"));
        assert!(c.liveness_probe.is_none() && c.readiness_probe.is_none());
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!(cs.name, "nginx");
        assert_eq!(
            cs.container_id.as_deref(),
            Some("containerd://5403af59a2b46ee5a23fb0ae4b1e077f7ca5c5fb7af16e1ab21c00e0e616462a")
        );
        assert!(cs.image_id.starts_with("docker.io/library/nginx@sha256:2834dc"));
        assert_eq!((cs.ready, cs.restart_count), (true, 0));
        let running = cs.state.as_ref().and_then(|s| s.running.as_ref()).unwrap();
        assert_eq!(time(&running.started_at), "2022-02-17T21:51:05Z");
        assert!(cs.last_state.is_none());

        let evs = events(&records);
        assert_eq!(evs.len(), 5);
        let reasons: Vec<&str> = evs.iter().map(|(_, _, e)| e.reason.as_str()).collect();
        assert_eq!(reasons, ["Scheduled", "Pulling", "Pulled", "Created", "Started"]);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("nginx-deployment-67d4bdd6f5-w6kd7")));
        let (line, _, e) = evs[0];
        assert_eq!(line, 55);
        assert_eq!((e.warning, e.count, e.last_seen, e.first_seen), (false, 1, secs(34), secs(34)));
        assert_eq!(e.from, "default-scheduler");
        assert_eq!(e.message, "Successfully assigned default/nginx-deployment-67d4bdd6f5-w6kd7 to kube-worker-1");
        assert_eq!(evs[2].2.message, "Successfully pulled image \"nginx\" in 1.146417389s");
        assert_eq!(evs[2].2.last_seen, secs(30));
        // The Pod comes before its events.
        assert!(matches!(records[0].observed, Observed::Pod(_)));
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
    fn trace_011_describe_events_aggregation() {
        let (records, problems) =
            read(trace!("011-readiness-http-wrong-port-never-ready-kodekloud/describe-events.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let evs = events(&records);
        assert_eq!((records.len(), evs.len()), (6, 6), "no Pod: the excerpt shows only events");
        // Named by `k describe po nginx1401 -n dev1401`.
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("nginx1401")));
        let (line, _, e) = evs[5];
        assert_eq!(line, 10);
        assert!(e.warning);
        assert_eq!(e.reason, "Unhealthy");
        assert_eq!(e.count, 36);
        assert_eq!(e.last_seen, Span { lo: 183_000, hi: 184_000 }, "3m3s");
        assert_eq!(e.first_seen, Span { lo: 484_000, hi: 485_000 }, "8m4s");
        assert_eq!(e.from, "kubelet");
        assert_eq!(
            e.message,
            "Readiness probe failed: Get \"http://10.244.192.1:8080/\": dial tcp 10.244.192.1:8080: connect: \
             connection refused"
        );
        assert_eq!(evs[0].2.last_seen, Span { lo: 493_000, hi: 494_000 }, "8m13s");
        assert_eq!(
            evs[2].2.message,
            "Successfully pulled image \"kodekloud/nginx\" in 288ms (5.362s including waiting)"
        );
    }

    #[test]
    fn trace_014_describe_init_containers() {
        let (records, problems) = read(trace!("014-init-container-sleep5-then-main-kodekloud/describe-blue.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 9, "one Pod and eight events");
        let (_, pod) = pods(&records)[0];
        assert_eq!(pod.metadata.name.as_deref(), Some("blue"));
        let sp = spec(pod);
        assert_eq!(sp.service_account_name.as_deref(), Some("default"));
        let init = &sp.init_containers.as_ref().unwrap()[0];
        assert_eq!((init.name.as_str(), init.image.as_deref()), ("init-myservice", Some("busybox")));
        assert_eq!(init.command.as_deref(), Some(&["sh".to_string(), "-c".into(), "sleep 5".into()][..]));
        assert_eq!(sp.containers.len(), 1);
        assert_eq!(sp.containers[0].name, "green-container-1");
        let st = status(pod);
        assert_eq!(time(&st.start_time), "2025-08-23T20:08:39Z");
        let ics = &st.init_container_statuses.as_ref().unwrap()[0];
        assert_eq!((ics.name.as_str(), ics.ready, ics.restart_count), ("init-myservice", true, 0));
        let term = ics.state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((term.reason.as_deref(), term.exit_code), (Some("Completed"), 0));
        assert_eq!(time(&term.started_at), "2025-08-23T20:08:40Z");
        assert_eq!(time(&term.finished_at), "2025-08-23T20:08:45Z");
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!((cs.name.as_str(), cs.ready), ("green-container-1", true));
        let run = cs.state.as_ref().and_then(|s| s.running.as_ref()).unwrap();
        assert_eq!(time(&run.started_at), "2025-08-23T20:08:46Z");
        assert_eq!(st.conditions.as_ref().map(|c| c.len()), Some(5));
        let evs = events(&records);
        assert_eq!(evs.len(), 8);
        assert_eq!(evs[3].2.message, "Created container: init-myservice");
        assert!(
            evs.iter().all(|(_, pod, e)| *pod == Some("blue") && e.last_seen == Span { lo: 1_140_000, hi: 1_200_000 })
        );
    }

    #[test]
    fn trace_014_describe_purple_waiting() {
        let (records, problems) = read(trace!("014-init-container-sleep5-then-main-kodekloud/describe-purple.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 5);
        let (line, pod) = pods(&records)[0];
        assert_eq!(line, 2, "after the `k describe pod purple` line");
        let st = status(pod);
        assert_eq!(st.phase.as_deref(), Some("Pending"));
        let ics = st.init_container_statuses.as_ref().unwrap();
        assert_eq!(ics.len(), 2);
        assert_eq!(ics[1].container_id, None, "`Container ID:` printed empty");
        let waiting = ics[1].state.as_ref().and_then(|s| s.waiting.as_ref()).unwrap();
        assert_eq!(waiting.reason.as_deref(), Some("PodInitializing"));
    }

    #[test]
    fn trace_029_describe_excerpt_oom() {
        let (records, problems) = read(trace!("029-oomkilled-stress-describe-snippets/b2-describe-oom-demo.txt"));
        assert_eq!(records.len(), 2, "one (unnamed) Pod and one event");
        let (line, pod) = pods(&records)[0];
        assert_eq!(line, 1);
        assert_eq!(pod.metadata.name, None, "the excerpt has no Name: line");
        let st = status(pod);
        assert_eq!((st.phase.as_deref(), st.qos_class.as_deref()), (Some("Failed"), Some("Burstable")));
        let c = &spec(pod).containers[0];
        assert_eq!((c.name.as_str(), c.image.as_deref()), ("stress", Some("polinux/stress")));
        let res = c.resources.as_ref().unwrap();
        assert_eq!(res.limits.as_ref().and_then(|l| l.get("memory")).map(|q| q.0.as_str()), Some("100Mi"));
        assert_eq!(res.requests.as_ref().and_then(|l| l.get("memory")).map(|q| q.0.as_str()), Some("50Mi"));
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        let term = cs.state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((term.reason.as_deref(), term.exit_code), (Some("OOMKilled"), 137));
        assert_eq!(time(&term.started_at), "2026-10-07T22:28:20Z", "18:28:20 -0400");
        assert_eq!(time(&term.finished_at), "2026-10-07T22:28:20Z");
        let evs = events(&records);
        let (line, pod_name, e) = evs[0];
        assert_eq!((line, pod_name), (16, None));
        assert_eq!((e.reason.as_str(), e.last_seen, e.from.as_str()), ("Started", secs(62), "kubelet"));
        assert_eq!(e.message, "Container started", "the field-path prefix is dropped");
        let m = messages(&problems);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m.iter().any(|m| m.contains("the pod is unnamed")));
        assert!(m.iter().any(|m| m.contains("`Ready:` or `Restart Count:` is not shown")));
        assert!(problems.iter().all(|p| p.severity == Severity::Warning));
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
    fn trace_030_events_named_by_scheduled() {
        let (records, problems) = read(trace!("030-poststart-hook-failure-killed-backoff-docs/events.txt"));
        let evs = events(&records);
        assert_eq!(evs.len(), 9);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("lifecycle-demo")));
        assert!(evs[5].2.message.ends_with("executable file not found in $PATH: unknown\\r\\n\""));
        assert_eq!(messages(&problems).len(), 1);
    }

    #[test]
    fn other_resources_are_skipped() {
        for text in [
            trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/b-stuck-rollout-describe.txt"),
            trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/a-successful-rollout-describe.txt"),
            trace!("021-deployment-rollingupdate-events-and-stuck-rollout-docs/b-stuck-rollout-get-rs.txt"),
            trace!("018-job-completions-sequential-and-cronjob-watch/watch-cronjob1-jobs.txt"),
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

    #[test]
    fn every_recording_reads_without_errors() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/traces");
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for d in entries.flatten().map(|d| d.path()).filter(|d| d.is_dir()) {
            for f in std::fs::read_dir(d).into_iter().flatten().flatten().map(|f| f.path()) {
                if f.extension().is_some_and(|e| e == "txt") {
                    let (_, problems) = read(&std::fs::read_to_string(&f).unwrap_or_default());
                    assert!(problems.iter().all(|p| !p.is_error()), "{}: {:?}", f.display(), messages(&problems));
                }
            }
        }
    }

    // ------------------------------------------------------ pod tables

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

    #[test]
    fn unknown_and_known_other_tables() {
        let text = "\
NAME      SOMETHING   ELSE
x         1           2

NAME      READY   AGE
web       2/2     5m

NAME   READY   STATUS    RESTARTS   AGE
p      1/1     Running   0          1s
";
        let (records, problems) = read(text);
        assert_eq!(records.len(), 1);
        let m = messages(&problems);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].starts_with("test.txt:1:1: a table with header `NAME SOMETHING ELSE`"));
    }

    #[test]
    fn glued_header_is_a_table() {
        let (records, problems) =
            read("kubectl get pods -wNAME   READY   STATUS    RESTARTS   AGE\nweb   1/1   Running   0   3s\n");
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(rows(&records).len(), 1);
    }

    // -------------------------------------------------------- events

    #[test]
    fn get_events_table() {
        let text = "\
$ kubectl get events -A
NAMESPACE   LAST SEEN   TYPE      REASON              OBJECT                   MESSAGE
default     2m          Normal    Scheduled           pod/web-0                Successfully assigned default/web-0 to node-1
default     10s         Warning   BackOff             pod/web-0                Back-off restarting failed container nginx in pod web-0_default(uid)
default     5m          Normal    ScalingReplicaSet   deployment/web           Scaled up replica set web-7f9 to 1
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let evs = events(&records);
        assert_eq!(evs.len(), 3);
        assert_eq!((evs[0].1, evs[2].1), (Some("web-0"), None));
        let e = evs[1].2;
        assert!(e.warning);
        assert_eq!((e.reason.as_str(), e.last_seen, e.count), ("BackOff", secs(10), 1));
        assert_eq!(e.first_seen.lo, 10_000, "the first occurrence is at least as old as the last");
        assert!(e.first_seen.hi > 86_400_000);
        assert_eq!(e.message, "Back-off restarting failed container nginx in pod web-0_default(uid)");
    }

    #[test]
    fn get_events_wide_by_columns() {
        let row = |cells: [&str; 10]| {
            format!(
                "{:<12}{:<10}{:<11}{:<11}{:<25}{:<17}{:<28}{:<12}{:<7}{}\n",
                cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8], cells[9]
            )
        };
        let mut text = row([
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST SEEN",
            "COUNT",
            "NAME",
        ]);
        text += &row([
            "3m3s",
            "Warning",
            "Unhealthy",
            "pod/web",
            "spec.containers{nginx}",
            "kubelet, node01",
            "Readiness probe failed",
            "8m4s",
            "36",
            "web.17a",
        ]);
        text += &row(["5s", "Normal", "Pulled", "pod/web", "", "kubelet, node01", "Pulled it", "5s", "1", "web.17b"]);
        let (records, problems) = read(&text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let evs = events(&records);
        assert_eq!(evs.len(), 2);
        let e = evs[0].2;
        assert_eq!((evs[0].1, e.count, e.first_seen), (Some("web"), 36, Span { lo: 484_000, hi: 485_000 }));
        assert_eq!((e.from.as_str(), e.message.as_str()), ("kubelet, node01", "Readiness probe failed"));
    }

    #[test]
    fn describe_event_variants() {
        let text = "\
Events:
  Type     Reason     Age                 From                Message
  ----     ------     ----                ----                -------
  Normal   Scheduled  <unknown>           default-scheduler   Successfully assigned ns1/p to n1
  Warning  Unhealthy  1s (x6 over 15s)    kubelet, node01     Readiness probe failed: line one
line two of the probe output
Error: exit status 1
  Warning  Failed     2s                                      no source
";
        let (records, problems) = read(text);
        let evs = events(&records);
        assert_eq!(evs.len(), 3);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("p")), "named by the Scheduled event");
        assert_eq!(evs[0].2.last_seen, UNKNOWN_AGE);
        assert_eq!(evs[1].2.from, "kubelet, node01");
        assert_eq!(
            evs[1].2.message,
            "Readiness probe failed: line one\nline two of the probe output\nError: exit status 1"
        );
        assert_eq!((evs[2].2.from.as_str(), evs[2].2.message.as_str()), ("", "no source"));
        let m = messages(&problems);
        assert!(m.iter().any(|m| m.starts_with("test.txt:4:1: an event age cannot be read")), "{m:?}");
    }

    #[test]
    fn describe_old_event_layout() {
        let line = |c: [&str; 8]| {
            format!("  {:<12}{:<12}{:<8}{:<24}{:<24}{:<10}{:<12}{}\n", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
        };
        let mut text = String::from("Name:\tweb-0\nNamespace:\tdefault\nStatus:\tRunning\nEvents:\n");
        text += &line(["FirstSeen", "LastSeen", "Count", "From", "SubObjectPath", "Type", "Reason", "Message"]);
        text += &line(["---------", "--------", "-----", "----", "-------------", "----", "------", "-------"]);
        text += &line(["1m", "1m", "1", "{default-scheduler }", "", "Normal", "Scheduled", "assigned web-0"]);
        text +=
            &line(["50s", "10s", "4", "{kubelet node1}", "spec.containers{nginx}", "Warning", "BackOff", "back-off"]);
        let (records, problems) = read(&text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let evs = events(&records);
        assert_eq!(evs.len(), 2);
        let e = evs[1].2;
        assert_eq!((e.last_seen, e.first_seen, e.count), (secs(10), secs(50), 4));
        assert_eq!((e.from.as_str(), e.reason.as_str(), e.warning), ("{kubelet node1}", "BackOff", true));
        assert_eq!(evs[0].2.from, "{default-scheduler }");
    }

    // ------------------------------------------------------ describe

    #[test]
    fn describe_probes_last_state_and_two_pods() {
        let text = "\
$ kubectl describe pods -n shop
Name:         api-0
Namespace:    shop
Node:         <none>
Start Time:   Mon, 01 Jan 2024 00:00:00 UTC
Status:       Terminating (lasts 3m)
Termination Grace Period:  30s
IP:
Containers:
  api:
    Container ID:   containerd://abc
    Image:          api:1
    Image ID:       registry/api@sha256:1
    Ports:          8080/TCP, 9090/TCP
    Host Ports:     0/TCP, 9090/TCP
    Args:
      --port=8080
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Signal:       9
      Started:      Mon, 01 Jan 2024 01:00:00 +0530
      Finished:     Sun, 31 Dec 2023 19:31:00 +0000
    Ready:          False
    Restart Count:  3
    Liveness:       http-get https://[::1]:http/healthz delay=30s timeout=1s period=10s #success=1 #failure=3
    Readiness:      tcp-socket :8080 delay=0s timeout=1s period=5s successThreshold=1 failureThreshold=3
    Startup:        exec [sh -c test -f /tmp/started] delay=0s timeout=1s period=5s #success=1 #failure=10
Conditions:
  Type              Status
  Ready             False
Events:                      <none>

Name:         api-1
Namespace:    shop
Status:       Pending
Containers:
  api:
    Image:        api:1
    Liveness:     grpc <pod>:9090  delay=0s timeout=1s period=10s #success=1 #failure=3
    Readiness:    bogus probe
Events:  <none>
";
        let (records, problems) = read(text);
        let pods = pods(&records);
        assert_eq!((records.len(), pods.len()), (2, 2));
        let (line, p) = pods[0];
        assert_eq!(line, 2);
        assert_eq!(p.metadata.deletion_grace_period_seconds, Some(30));
        assert_eq!(spec(p).node_name, None);
        let st = status(p);
        assert_eq!((st.phase.as_deref(), st.pod_ip.as_deref()), (None, None), "Terminating hides the phase");
        assert_eq!(time(&st.start_time), "2024-01-01T00:00:00Z");
        let c = &spec(p).containers[0];
        let ports: Vec<(i32, Option<i32>)> =
            c.ports.iter().flatten().map(|p| (p.container_port, p.host_port)).collect();
        assert_eq!(ports, [(8080, None), (9090, Some(9090))]);
        assert_eq!(c.args.as_deref(), Some(&["--port=8080".to_string()][..]));
        let live = c.liveness_probe.as_ref().unwrap();
        let get = live.http_get.as_ref().unwrap();
        assert_eq!(get.host.as_deref(), Some("::1"));
        assert_eq!(get.port, IntOrString::String("http".into()));
        assert_eq!((get.path.as_deref(), get.scheme.as_deref()), (Some("/healthz"), Some("HTTPS")));
        assert_eq!(
            (live.initial_delay_seconds, live.period_seconds, live.failure_threshold),
            (Some(30), Some(10), Some(3))
        );
        let ready = c.readiness_probe.as_ref().unwrap();
        assert_eq!(ready.tcp_socket.as_ref().map(|t| (&t.host, &t.port)), Some((&None, &IntOrString::Int(8080))));
        assert_eq!(ready.success_threshold, Some(1));
        let startup = c.startup_probe.as_ref().unwrap();
        let words = startup.exec.as_ref().and_then(|e| e.command.clone()).unwrap_or_default();
        assert_eq!(words, ["sh", "-c", "test -f /tmp/started"]);
        assert_eq!(startup.failure_threshold, Some(10));
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!((cs.ready, cs.restart_count), (false, 3));
        assert_eq!(
            cs.state.as_ref().and_then(|s| s.waiting.as_ref()).and_then(|w| w.reason.as_deref()),
            Some("CrashLoopBackOff")
        );
        let last = cs.last_state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((last.exit_code, last.signal, last.reason.as_deref()), (1, Some(9), Some("Error")));
        assert_eq!(time(&last.started_at), "2023-12-31T19:30:00Z");
        assert_eq!(time(&last.finished_at), "2023-12-31T19:31:00Z");

        let (line, p) = pods[1];
        assert_eq!((line, p.metadata.name.as_deref()), (36, Some("api-1")));
        let c = &spec(p).containers[0];
        assert_eq!(
            c.liveness_probe.as_ref().and_then(|p| p.grpc.as_ref()).map(|g| (g.port, g.service.clone())),
            Some((9090, None))
        );
        assert!(c.readiness_probe.is_none());
        assert_eq!(status(p).container_statuses, None, "no status lines for this container");
        let m = messages(&problems);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].starts_with("test.txt:43:1: cannot read the Readiness probe `bogus probe`"));
    }

    #[test]
    fn describe_bad_times_and_lines() {
        let text = "\
Name:         p
Status:       Running
Start Time:   Mon, 01 Jan 2024 00:00:00 CEST
Containers:
  c:
    State:          Running
      Started:      yesterday
    Ready:          maybe
    Restart Count:  2
this line is prose
";
        let (records, problems) = read(text);
        let (_, p) = pods(&records)[0];
        assert_eq!(status(p).start_time, None);
        let cs = &status(p).container_statuses.as_ref().unwrap()[0];
        assert_eq!(cs.state.as_ref().and_then(|s| s.running.as_ref()).map(|r| r.started_at.is_none()), Some(true));
        let m = messages(&problems);
        assert!(m.iter().any(|m| m.starts_with("test.txt:3:1: Start Time `Mon, 01 Jan 2024 00:00:00 CEST`")), "{m:?}");
        assert!(m.iter().any(|m| m.starts_with("test.txt:7:1: Started `yesterday`")), "{m:?}");
        assert!(m.iter().any(|m| m.starts_with("test.txt:8:1: Ready `maybe`")), "{m:?}");
    }

    #[test]
    fn times() {
        let t = |s: &str| parse_time(s).map(|t| t.0.to_string());
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 -0500").as_deref(), Some("2022-02-17T21:51:01Z"));
        assert_eq!(t("Fri, 17 Feb 2022 16:51:01 -0500").as_deref(), Some("2022-02-17T21:51:01Z"), "wrong weekday");
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 GMT").as_deref(), Some("2022-02-17T16:51:01Z"));
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 IST"), None);
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01"), None);
        assert_eq!(t(""), None);
    }

    #[test]
    fn commands() {
        let c = parse_command("controlplane $ kubectl describe po/web-0 -n shop | grep -A 10 Events:").unwrap();
        assert_eq!(c.described_pod(), Some(("web-0".to_string(), Some("shop".to_string()))));
        let c = parse_command("[root@x:~]$ k -n=ns describe pods a b").unwrap();
        assert_eq!(
            (c.kinds.as_slice(), c.names.len(), c.namespace.as_deref()),
            (&["pod".to_string()][..], 2, Some("ns"))
        );
        let c = parse_command("$ kubectl get pod,deploy,rs --all-namespaces -owide").unwrap();
        assert!(c.all_namespaces);
        assert_eq!(c.kinds, ["pod", "deploy", "rs"]);
        assert!(parse_command("kubectl is a tool").is_none());
        assert!(parse_command("the k value").is_none());
    }

    // ------------------------------------------------------ robustness

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
