//! podsim's own trace as observations: every Pod version rendered as the API
//! object a recording would hold, seen at its simulated time.

use super::{Observed, Origin, Record, Span, When};
use crate::trace::Trace;
use crate::trace::record::Record as TraceRecord;
use crate::trace::render::{self, Clock};
use std::sync::Arc;

pub fn simulated_records(trace: &Trace, clock: &Clock) -> Vec<Record> {
    let file: Arc<str> = Arc::from("trace");
    let epoch = clock.epoch.as_millisecond();
    let mut out = Vec::new();
    for (i, e) in trace.entries.iter().enumerate() {
        let observed = match &e.record {
            TraceRecord::Pod { pod, .. } => Observed::Pod(Box::new(render::pod(pod, clock))),
            TraceRecord::Event(ev) => Observed::Event(Box::new(render::event(ev, clock))),
            _ => continue,
        };
        let watch = match &e.record {
            TraceRecord::Pod { kind, .. } => Some(kind.as_str().to_string()),
            _ => None,
        };
        out.push(Record {
            origin: Origin { file: file.clone(), line: i as u64 + 1 },
            seen: When::At(Span::exact(epoch + e.t.as_millis() as i64)),
            watch,
            observed,
        });
    }
    out
}
