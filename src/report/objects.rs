//! The objects behind the swimlanes, version by version, for the page to
//! show the one in force at the instant hovered or clicked.

use super::escape;
use crate::api::endpointslice::ApiSlice;
use crate::api::service::ApiService;
use crate::ids::{ServiceId, SliceId};
use crate::plot::timeline::ObjectKey;
use crate::trace::record::{Record, WatchKind};
use crate::trace::render::{self, Clock};
use crate::trace::{Trace, render_network};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// Bytes of object JSON kept per timeline; later versions are counted, not kept.
pub const BUDGET: usize = 4 << 20;

/// Each object's versions as (seconds, JSON text), in time order.
pub struct Objects {
    versions: BTreeMap<String, Vec<(f64, String)>>,
    bytes: usize,
    /// Versions left out once the budget was spent.
    pub dropped: usize,
}

/// The key the page's script looks an object up by.
pub fn key(k: &ObjectKey) -> String {
    match k {
        ObjectKey::Pod(uid) => format!("pod:{uid}"),
        ObjectKey::Service(ServiceId(n)) => format!("svc:{n}"),
    }
}

impl Objects {
    /// Every version of the pods, and of each Service's EndpointSlices
    /// together, as the API server returned them then.
    pub fn collect(trace: &Trace, clock: &Clock, keep: &dyn Fn(&ObjectKey) -> bool) -> Objects {
        let mut out = Objects { versions: BTreeMap::new(), bytes: 0, dropped: 0 };
        let mut services: BTreeMap<ServiceId, Arc<ApiService>> = BTreeMap::new();
        let mut slices: BTreeMap<SliceId, Arc<ApiSlice>> = BTreeMap::new();
        for e in &trace.entries {
            let t = e.t.as_millis() as f64 / 1000.0;
            match &e.record {
                Record::Pod { pod, .. } => {
                    let k = ObjectKey::Pod(pod.meta.uid.clone());
                    if keep(&k) {
                        out.push(&k, t, || serde_json::to_value(render::pod(pod, clock)).unwrap_or(Value::Null));
                    }
                }
                Record::Service { svc, .. } => {
                    services.insert(svc.id, svc.clone());
                }
                Record::Slice { kind, slice } => {
                    match *kind == WatchKind::Deleted || slice.meta.removed {
                        true => slices.remove(&slice.id),
                        false => slices.insert(slice.id, slice.clone()),
                    };
                    let (k, Some(svc)) = (ObjectKey::Service(slice.service), services.get(&slice.service)) else {
                        continue;
                    };
                    if keep(&k) {
                        let of_service = slices.values().filter(|s| s.service == slice.service);
                        let list: Vec<Value> = of_service
                            .filter_map(|s| serde_json::to_value(render_network::endpoint_slice(s, svc, clock)).ok())
                            .collect();
                        out.push(&k, t, || Value::Array(list));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn push(&mut self, k: &ObjectKey, t: f64, value: impl FnOnce() -> Value) {
        if self.bytes >= BUDGET {
            self.dropped += 1;
            return;
        }
        let text = value().to_string();
        self.bytes += text.len();
        self.versions.entry(key(k)).or_default().push((t, text));
    }

    /// The versions as a JSON script element the page reads lazily:
    /// `{"pod:UID": [[seconds, object], …], "svc:N": [[seconds, [slice, …]], …]}`.
    pub fn script(&self, id: &str) -> String {
        let mut json = String::from("{");
        for (i, (k, versions)) in self.versions.iter().enumerate() {
            let _ = write!(json, "{}{}:[", if i > 0 { "," } else { "" }, Value::from(k.as_str()));
            for (j, (t, text)) in versions.iter().enumerate() {
                let _ = write!(json, "{}[{t},{text}]", if j > 0 { "," } else { "" });
            }
            json.push(']');
        }
        json.push('}');
        format!("<script type=\"application/json\" id=\"{id}\">{}</script>\n", escape::script(&json))
    }
}
