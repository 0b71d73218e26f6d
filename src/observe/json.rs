//! JSON and YAML objects: Pods, Events, EndpointSlices, Services, Lists, watch events
//! (`{"type":"MODIFIED","object":{…}}`) and podsim's own trace lines.

use super::fragment::{Fragment, fragment};
use super::{Observed, Origin, Record, Span, When};
use crate::error::Problem;
use crate::source::Doc;
use serde_json::Value;
use std::io::{BufRead, Read};
use std::sync::Arc;

/// The latest `t` a trace line may have: a century, in seconds.
const MAX_TRACE_SECONDS: f64 = 100.0 * 365.25 * 86_400.0;

/// State carried along a stream: podsim's epoch turns `t` into a time.
#[derive(Default)]
struct Stream {
    epoch_ms: Option<i64>,
}

/// What follows a JSON stream in a terminal paste: the line number of the
/// command line it starts with, and the text from there on.
pub type Rest = Option<(u64, String)>;

/// Reads concatenated JSON values (one per line, or pretty-printed over many
/// lines) one at a time. A value that does not parse is reported with its
/// first line and skipped; a value cut off at the end is reported too. A
/// line between values that `stop` takes for a command line ends the
/// stream: it and what follows are returned unread.
pub fn read_stream<R: BufRead>(
    name: &Arc<str>,
    mut reader: R,
    sink: &mut dyn FnMut(Record),
    stop: &dyn Fn(&str) -> bool,
) -> std::io::Result<(Vec<Problem>, Rest)> {
    let mut problems = Vec::new();
    let mut stream = Stream::default();
    let mut buf = String::new();
    let mut scan = Scanner::default();
    let (mut line_no, mut start) = (0u64, 0u64);
    let mut line = String::new();
    // A stream is read in bounded steps: a line, a value, the rest each at
    // most the input cap (/dev/zero has no line end).
    let cap = crate::scenario::MAX_FILE_BYTES;
    let too_long = |what: &str| {
        let message = format!("{what} longer than {} MiB: podsim reads at most that much of one", cap >> 20);
        std::io::Error::new(std::io::ErrorKind::InvalidData, message)
    };
    loop {
        line.clear();
        if (&mut reader).take(cap + 1).read_line(&mut line)? == 0 {
            break;
        }
        if line.len() as u64 > cap {
            return Err(too_long("a line"));
        }
        line_no += 1;
        if scan.depth == 0 && buf.trim().is_empty() {
            if stop(&line) {
                let mut rest = std::mem::take(&mut line);
                (&mut reader).take(cap + 1).read_to_string(&mut rest)?;
                if rest.len() as u64 > cap {
                    return Err(too_long("the text after the JSON"));
                }
                return Ok((problems, Some((line_no, rest))));
            }
            buf.clear();
            start = line_no;
        }
        buf.push_str(&line);
        if buf.len() as u64 > cap {
            return Err(too_long("a JSON value"));
        }
        scan.feed(&line);
        if scan.depth == 0 && !buf.trim().is_empty() {
            let origin = Origin { file: name.clone(), line: start };
            // Several values may share a line (`{…}{…}`): parse them all.
            let mut values = serde_json::Deserializer::from_str(&buf).into_iter::<Value>();
            loop {
                match values.next() {
                    Some(Ok(v)) => dispatch(v, &origin, None, When::Unknown, &mut stream, sink, &mut problems),
                    Some(Err(e)) => {
                        problems.push(problem(&origin, format!("not valid JSON: {e}")));
                        break;
                    }
                    None => break,
                }
            }
            buf.clear();
            scan = Scanner::default();
        }
    }
    if !buf.trim().is_empty() {
        let origin = Origin { file: name.clone(), line: start };
        match salvage(&buf) {
            Some(v) => {
                problems.push(
                    problem(&origin, "the file ends inside this JSON value (truncated): read what was complete".into())
                        .warn(),
                );
                dispatch(v, &origin, None, When::Unknown, &mut stream, sink, &mut problems);
            }
            None => problems.push(problem(&origin, "the file ends inside this JSON value (truncated)".into()).warn()),
        }
    }
    Ok((problems, None))
}

/// Closes a truncated JSON value: drops the element being written when the
/// text stops and closes every open bracket, keeping what was complete.
fn salvage(text: &str) -> Option<Value> {
    let mut cut = text.trim_end().to_string();
    for _ in 0..64 {
        let mut stack = Vec::new();
        let (mut in_string, mut escaped) = (false, false);
        let mut last_comma = None;
        for (i, c) in cut.char_indices() {
            if in_string {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '{' => stack.push('}'),
                '[' => stack.push(']'),
                '}' | ']' => {
                    stack.pop();
                }
                ',' => last_comma = Some(i),
                _ => {}
            }
        }
        if !in_string {
            let closed: String = cut.clone() + &stack.iter().rev().collect::<String>();
            if let Ok(v) = serde_json::from_str::<Value>(&closed) {
                return Some(v);
            }
        }
        cut.truncate(last_comma?);
    }
    None
}

/// Tracks bracket depth outside JSON strings.
#[derive(Default)]
struct Scanner {
    depth: i64,
    in_string: bool,
    escaped: bool,
}

impl Scanner {
    fn feed(&mut self, text: &str) {
        for c in text.chars() {
            if self.in_string {
                match (self.escaped, c) {
                    (true, _) => self.escaped = false,
                    (false, '\\') => self.escaped = true,
                    (false, '"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => self.in_string = true,
                '{' | '[' => self.depth += 1,
                '}' | ']' => self.depth = (self.depth - 1).max(0),
                _ => {}
            }
        }
    }
}

fn problem(origin: &Origin, message: String) -> Problem {
    Problem::error(message).at_line(&origin.file, origin.line)
}

/// Reads the objects of one YAML document (with the line of each List item).
pub fn read_document(doc: &Doc, sink: &mut dyn FnMut(Record), problems: &mut Vec<Problem>) {
    let name: Arc<str> = Arc::from(doc.file.name.as_str());
    let value = doc.to_json();
    let mut stream = Stream::default();
    if let Some(Value::Array(items)) = value.get("items").filter(|_| is_list(&value)) {
        for (i, item) in items.iter().enumerate() {
            let origin = Origin { file: name.clone(), line: doc.locate(&format!("items[{i}]")).line };
            dispatch(item.clone(), &origin, None, When::Unknown, &mut stream, sink, problems);
        }
        return;
    }
    let origin = Origin { file: name, line: doc.locate("").line };
    dispatch(value, &origin, None, When::Unknown, &mut stream, sink, problems);
}

/// The kind of an object whose `kind` was lost (a truncated paste).
fn infer_kind(v: &Value) -> Option<&'static str> {
    if v.get("addressType").is_some() && v.get("endpoints").is_some() {
        Some("EndpointSlice")
    } else if v.get("involvedObject").is_some() {
        Some("Event")
    } else if v.pointer("/spec/containers").is_some() && (v.get("metadata").is_some() || v.get("status").is_some()) {
        // A spec alone is a fragment, not a Pod that lost its kind.
        Some("Pod")
    } else {
        None
    }
}

fn is_list(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
}

/// One JSON value: a podsim line, a watch event, a List or an object.
fn dispatch(
    v: Value,
    origin: &Origin,
    watch: Option<String>,
    seen: When,
    stream: &mut Stream,
    sink: &mut dyn FnMut(Record),
    problems: &mut Vec<Problem>,
) {
    match v.is_array().then(|| fragment(&v)).flatten() {
        Some(Fragment::Pod(pod, message)) => {
            problems.push(problem(origin, message).warn());
            return dispatch(pod, origin, watch, seen, stream, sink, problems);
        }
        Some(Fragment::Skip(message)) => return problems.push(problem(origin, message).warn()),
        None => {}
    }
    if let Value::Array(items) = v {
        for item in items {
            dispatch(item, origin, None, When::Unknown, stream, sink, problems);
        }
        return;
    }
    let kind = v.get("kind").and_then(Value::as_str).map(str::to_string).or_else(|| {
        let inferred = infer_kind(&v)?;
        problems.push(problem(origin, format!("no `kind`: read as a {inferred} from its fields")).warn());
        Some(inferred.to_string())
    });
    let event_type = v.get("type").and_then(Value::as_str).map(str::to_string);
    // podsim's trace: `t` and `type` on every line.
    if let (Some(t), Some(ty)) = (v.get("t").and_then(Value::as_f64), event_type.as_deref()) {
        if ty == "HEADER" {
            let epoch = v
                .pointer("/run/epoch")
                .and_then(Value::as_str)
                .and_then(|e| e.parse::<k8s_openapi::jiff::Timestamp>().ok());
            stream.epoch_ms = epoch.map(|e| e.as_millisecond());
            return;
        }
        // Seconds since the run's start: a trace's are never negative, and a
        // century is past any run (and past overflow once in milliseconds).
        if !(0.0..=MAX_TRACE_SECONDS).contains(&t) {
            let message = format!("t: {t} is not a time of a run (seconds since its start, 0 to {MAX_TRACE_SECONDS})");
            return problems.push(problem(origin, format!("{message}: line skipped")).warn());
        }
        let seen = stream.epoch_ms.map_or(When::Unknown, |e| When::At(Span::exact(e + (t * 1000.0).round() as i64)));
        // Lines about an object (`SCENARIO`'s `"object": "pod/web"`) name it without holding it.
        if let Some(object) = v.get("object").filter(|o| o.is_object() && ty != "CHANGE").cloned() {
            let watch = matches!(ty, "ADDED" | "MODIFIED" | "DELETED").then(|| ty.to_string());
            dispatch(object, origin, watch, seen, stream, sink, problems);
        }
        return;
    }
    // A watch event: {"type": "MODIFIED", "object": {…}}.
    if kind.is_none() {
        if let (Some(ty), Some(object)) = (event_type, v.get("object")) {
            return dispatch(object.clone(), origin, Some(ty), seen, stream, sink, problems);
        }
        match fragment(&v) {
            Some(Fragment::Pod(pod, message)) => {
                problems.push(problem(origin, message).warn());
                dispatch(pod, origin, watch, seen, stream, sink, problems);
            }
            Some(Fragment::Skip(message)) => problems.push(problem(origin, message).warn()),
            None => problems.push(
                problem(
                    origin,
                    "a value with no `kind` that is neither a Kubernetes object, a watch event nor a part of a Pod \
                     podsim knows: nothing read"
                        .into(),
                )
                .warn(),
            ),
        }
        return;
    }
    // `{"items": […]}` without `kind` (a jq or jsonpath cut): read its items.
    if is_list(&v) || (kind.is_none() && v.get("items").is_some_and(|i| i.as_array().is_some_and(|a| !a.is_empty()))) {
        if let Some(Value::Array(items)) = v.get("items") {
            for item in items {
                dispatch(item.clone(), origin, None, seen, stream, sink, problems);
            }
        }
        return;
    }
    let observed = match kind.as_deref() {
        Some("Pod") => {
            let no_status = v.get("status").is_none_or(|s| s.as_object().is_none_or(|m| m.is_empty()));
            let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("(unnamed)").to_string();
            let pod = serde_json::from_value(v).map(|p| Observed::Pod(Box::new(p)));
            if no_status && pod.is_ok() {
                let message = format!(
                    "Pod {name} has no `status` (a manifest, or a paste cut before it): only its spec is read \
                     (what --against simulates)"
                );
                problems.push(problem(origin, message).warn());
            }
            pod
        }
        Some("Event") => serde_json::from_value(v).map(|e| Observed::Event(Box::new(e))),
        Some("EndpointSlice") => serde_json::from_value(v).map(|s| Observed::EndpointSlice(Box::new(s))),
        Some("Service") => serde_json::from_value(v).map(|s| Observed::Service(Box::new(s))),
        Some("StatefulSet") => serde_json::from_value(v).map(|s| Observed::StatefulSet(Box::new(s))),
        Some("Job") => serde_json::from_value(v).map(|j| Observed::Job(Box::new(j))),
        Some(other) => {
            problems.push(
                problem(
                    origin,
                    format!(
                        "skipped a {other}: podsim check reads Pods, Events, EndpointSlices, Services, StatefulSets and Jobs"
                    ),
                )
                .warn(),
            );
            return;
        }
        None => return,
    };
    match observed {
        Ok(observed) => sink(Record { origin: origin.clone(), seen, watch, observed }),
        Err(e) => problems.push(problem(origin, format!("not a valid {}: {e}", kind.unwrap_or_default()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<Record>, Vec<Problem>) {
        let mut out = Vec::new();
        let (p, rest) = read_stream(&Arc::from("t.json"), text.as_bytes(), &mut |r| out.push(r), &|_| false).unwrap();
        assert!(rest.is_none());
        (out, p)
    }

    const POD: &str =
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","uid":"u1"},"status":{"phase":"Running"}}"#;

    #[test]
    fn reads_concatenated_pretty_objects_with_their_lines() {
        let text = format!(
            "{{\n  \"type\": \"ADDED\",\n  \"object\": {POD}\n}}\n{{\"type\":\"MODIFIED\",\"object\":{POD}}}\n{POD}{POD}\n"
        );
        let (records, problems) = read(&text);
        assert!(problems.is_empty(), "{problems:?}");
        let lines: Vec<u64> = records.iter().map(|r| r.origin.line).collect();
        assert_eq!(lines, vec![1, 5, 6, 6]);
        assert_eq!(records[0].watch.as_deref(), Some("ADDED"));
    }

    #[test]
    fn bad_and_truncated_values_are_reported_and_the_rest_is_read() {
        let text = format!("{POD}\n{{\"kind\": \"Pod\", \"metadata\": 7}}\n{POD}\n{{\"kind\": \"Pod\",\n");
        let (records, problems) = read(&text);
        assert_eq!(records.len(), 3, "the truncated Pod is closed and kept");
        // Line 2 is not a Pod; line 4 is cut off, and before its status.
        let lines: Vec<u64> = problems.iter().map(|p| p.position.as_ref().unwrap().line).collect();
        assert_eq!(lines, [2, 4, 4], "{problems:?}");
        assert!(problems[2].message.contains("has no `status` (a manifest, or a paste cut before it)"));
    }

    #[test]
    fn a_truncated_object_keeps_its_complete_parts() {
        let text = "{\"kind\":\"EndpointSlice\",\"endpoints\":[{\"addresses\":[\"10.0.0.1\"]},{\"addresses\":[\"10.0.0.2\"],\"zo";
        let (records, problems) = read(text);
        assert_eq!(records.len(), 1);
        assert!(problems[0].message.contains("read what was complete"));
        let Observed::EndpointSlice(s) = &records[0].observed else { panic!() };
        assert_eq!(s.endpoints.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn lists_give_each_item() {
        let text = format!("{{\"kind\":\"List\",\"items\":[{POD},{POD}]}}");
        assert_eq!(read(&text).0.len(), 2);
    }
}
