//! The Events section of `kubectl describe pod`, and describe event lines
//! without it (`kubectl describe pod X | grep Unhealthy`).

use super::Describe;
use crate::observe::EventRow;
use crate::observe::text::Line;
use crate::observe::text::age::{UNKNOWN_EVENT_AGE, read_event_age};
use crate::observe::text::get_events::{EventsLayout, parse_event_columns, strip_field_path};
use crate::observe::text::get_pods::is_pod_name;
use crate::observe::text::lines::tokens;
use crate::observe::text::table::Col;

/// True when `at` starts a column of `t`: a token starts there after whitespace.
fn column_starts(t: &str, at: usize) -> bool {
    at > 0
        && t.is_char_boundary(at)
        && t.get(..at).is_some_and(|b| b.ends_with(' '))
        && t.get(at..).is_some_and(|r| r.starts_with(|c: char| !c.is_whitespace()))
}

/// A describe event line: the row and whether an age is unknown.
pub(in crate::observe::text) fn parse_describe_event(
    t: &str,
    layout: &EventsLayout,
) -> Result<(EventRow, bool), String> {
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

/// The pod an event names, and which event says so: the scheduler's
/// `Successfully assigned NS/NAME to NODE`, or the kubelet's
/// `… in pod NAME_NS(UID)` (its BackOff message, `format.Pod`).
pub(super) fn named_pod(e: &EventRow) -> Option<(String, String, &'static str)> {
    if e.reason == "Scheduled" {
        let rest = e.message.strip_prefix("Successfully assigned ")?;
        let target = rest.split_whitespace().next()?;
        let (ns, name) = target.split_once('/')?;
        return (is_pod_name(name) && !ns.is_empty())
            .then(|| (ns.to_string(), name.to_string(), "its Scheduled event"));
    }
    let p = e.message.find(" in pod ")?;
    let target = e.message.get(p + 8..)?.split(['(', ' ']).next()?;
    let (name, ns) = target.split_once('_')?;
    (is_pod_name(name) && is_pod_name(ns))
        .then(|| (ns.to_string(), name.to_string(), "a kubelet event's `in pod NAME_NAMESPACE`"))
}

impl Describe {
    pub(super) fn event_line(&mut self, l: &Line, layout: &mut EventsLayout) {
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
}

#[cfg(test)]
mod tests {
    use crate::observe::Span;
    use crate::observe::text::age::UNKNOWN_AGE;
    use crate::observe::text::testing::*;

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
    fn trace_030_events_named_by_scheduled() {
        let (records, problems) = read(trace!("030-poststart-hook-failure-killed-backoff-docs/events.txt"));
        let evs = events(&records);
        assert_eq!(evs.len(), 9);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("lifecycle-demo")));
        assert!(evs[5].2.message.ends_with("executable file not found in $PATH: unknown\\r\\n\""));
        assert_eq!(messages(&problems).len(), 1);
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
}
