//! podsim's own trace as observations: every Pod, Service and EndpointSlice
//! version rendered as the API object a recording would hold, seen at its
//! simulated time.

use super::{Observed, Origin, Record, Span, When};
use crate::trace::Trace;
use crate::trace::record::Record as TraceRecord;
use crate::trace::render::{self, Clock};
use crate::trace::{render_jobs, render_network};
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

pub fn simulated_records(trace: &Trace, clock: &Clock) -> Vec<Record> {
    let file: Arc<str> = Arc::from("trace");
    let epoch = clock.epoch.as_millisecond();
    let mut services = HashMap::new();
    let mut out = Vec::new();
    for (i, e) in trace.entries.iter().enumerate() {
        let (observed, watch) = match &e.record {
            TraceRecord::Pod { pod, kind } => (Observed::Pod(Box::new(render::pod(pod, clock))), Some(*kind)),
            TraceRecord::Event(ev) => (Observed::Event(Box::new(render::event(ev, clock))), None),
            TraceRecord::Job { job, kind } => (Observed::Job(Box::new(render_jobs::job(job, clock))), Some(*kind)),
            TraceRecord::Service { svc, kind } => {
                services.insert(svc.id, svc.clone());
                (Observed::Service(Box::new(render_network::service(svc, clock))), Some(*kind))
            }
            // A slice is written only for a Service the API server holds.
            TraceRecord::Slice { slice, kind } => match services.get(&slice.service) {
                Some(svc) => {
                    (Observed::EndpointSlice(Box::new(render_network::endpoint_slice(slice, svc, clock))), Some(*kind))
                }
                None => continue,
            },
            _ => continue,
        };
        out.push(Record {
            origin: Origin { file: file.clone(), line: i as u64 + 1 },
            seen: When::At(Span::exact(epoch + e.t.as_millis() as i64)),
            watch: watch.map(|k| k.as_str().to_string()),
            observed,
        });
    }
    out
}
