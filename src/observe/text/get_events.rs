//! Rows of `kubectl get events` tables, and event tables read by column
//! positions (`-o wide`, kubectl < 1.14, old `kubectl describe`).

use super::age::{UNKNOWN_AGE, parse_age, read_event_age};
use super::describe::events::parse_describe_event;
use super::lines::tokens;
use super::table::Col;
use crate::observe::{EventRow, Span};

pub(super) enum EventsLayout {
    /// `kubectl describe`: `Type Reason Age From Message`, with the byte
    /// offsets of From and Message in the header when it was seen.
    Describe { from: Option<usize>, message: Option<usize> },
    /// `kubectl get events` and `kubectl events`: `[NAMESPACE] LAST SEEN TYPE
    /// REASON OBJECT MESSAGE`, LAST SEEN possibly `5s (x3 over 2m)`.
    Get { namespace: bool },
    /// Any other layout, read by column positions (`-o wide`, kubectl < 1.14:
    /// `LASTSEEN FIRSTSEEN COUNT NAME KIND …`, old describe
    /// `FirstSeen LastSeen Count From SubObjectPath Type Reason Message`).
    Columns(Vec<Col>),
}

/// Drops the kubectl ≥ 1.35 field-path prefix: `spec.containers{nginx}: Started`.
pub(super) fn strip_field_path(message: &str) -> &str {
    if message.starts_with("spec.")
        && let Some(p) = message.find("}: ")
        && message.get(..p).is_some_and(|h| h.contains('{') && !h.contains(' '))
    {
        return message.get(p + 3..).unwrap_or(message).trim_start();
    }
    message
}

/// The pod an OBJECT cell names: `pod/web` (`kubectl get events`) or
/// `Pod/web` (`kubectl events`, which prints the involved object's Kind).
fn pod_of(object: &str) -> Option<String> {
    let (kind, name) = object.split_once('/')?;
    (kind.eq_ignore_ascii_case("pod") && !name.is_empty()).then(|| name.to_string())
}

/// Cuts a row into the columns of `cols` by position; None when the row is
/// not aligned with the header.
pub(super) fn split_columns<'t>(t: &'t str, cols: &[Col]) -> Option<Vec<&'t str>> {
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

/// A `kubectl get events` row: the pod (when OBJECT is a pod), the row and
/// whether an age is unknown.
pub(super) fn parse_get_event(t: &str, layout: &EventsLayout) -> Result<(Option<String>, EventRow, bool), String> {
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
    Ok((pod_of(object.text), row, unknown))
}

/// An event row read by column positions.
pub(super) fn parse_event_columns(t: &str, cols: &[Col]) -> Result<(Option<String>, EventRow, bool), String> {
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
        (Some(o), _, _) => pod_of(o),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::text::testing::*;

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
    fn kubectl_events_names_the_kind() {
        // kubectl events (event_printer.go printOneEvent): OBJECT is `Kind/name`,
        // LAST SEEN carries the series.
        let text = "\
$ kubectl events -w
LAST SEEN          TYPE      REASON      OBJECT            MESSAGE
2m                 Normal    Scheduled   Pod/web           Successfully assigned default/web to node-1
5s (x10 over 2m)   Warning   BackOff     Pod/web           Back-off restarting failed container app in pod web_default(0b1c)
30s                Normal    Killing     Pod/other-pod     Stopping container app
3m                 Normal    ScalingReplicaSet   Deployment/web    Scaled up replica set web-7f9 to 1
";
        let (records, problems) = read(text);
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        let evs = events(&records);
        assert_eq!(evs.iter().map(|e| e.1).collect::<Vec<_>>(), [Some("web"), Some("web"), Some("other-pod"), None]);
        let e = evs[1].2;
        assert_eq!(
            (e.reason.as_str(), e.count, e.last_seen, e.first_seen),
            ("BackOff", 10, secs(5), Span { lo: 120_000, hi: 180_000 })
        );
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
}
