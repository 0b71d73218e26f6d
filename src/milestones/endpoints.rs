//! Service milestones from the EndpointSlices (`Record::Slice`): each pod's
//! endpoint conditions, merged over all of the Service's slices, and the
//! windows in which the Service had no ready endpoint.

use super::found::Found;
use super::names::Names;
use crate::api::endpointslice::ApiSlice;
use crate::ids::{ServiceId, SliceId};

use crate::time::SimTime;
use crate::trace::record::WatchKind;
use foldhash::HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One pod's endpoint conditions: each is true if any endpoint of the pod,
/// in any slice of the Service, has it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
}

/// Pod subject → its endpoint's conditions.
pub type View = BTreeMap<Arc<str>, Conditions>;

/// The slices the API server holds now, read from the trace's watch events.
#[derive(Default)]
pub struct Slices(BTreeMap<SliceId, Arc<ApiSlice>>);

impl Slices {
    /// Applies one watch event and returns the slice's Service (with its
    /// subject) and that Service's pods merged over all its slices.
    pub fn see<'n>(
        &mut self,
        kind: WatchKind,
        slice: &Arc<ApiSlice>,
        names: &'n Names,
    ) -> Option<(ServiceId, &'n str, View)> {
        match kind == WatchKind::Deleted || slice.meta.removed {
            true => self.0.remove(&slice.id),
            false => self.0.insert(slice.id, slice.clone()),
        };
        let service = slice.service;
        let subject = names.service(service)?;
        let mut view = View::new();
        for s in self.0.values().filter(|s| s.service == service) {
            for e in &s.content.endpoints {
                let c = view.entry(names.pod(&e.target.uid, &e.target.name)).or_default();
                c.ready |= e.ready;
                c.serving |= e.serving;
                c.terminating |= e.terminating;
            }
        }
        Some((service, subject, view))
    }
}

#[derive(Default)]
pub struct Endpoints {
    slices: Slices,
    views: HashMap<ServiceId, View>,
    /// The Service had a ready endpoint once; the windows opened since.
    ever_ready: HashMap<ServiceId, bool>,
    windows: HashMap<ServiceId, u32>,
}

impl Endpoints {
    pub fn see(&mut self, t: SimTime, kind: WatchKind, slice: &Arc<ApiSlice>, names: &Names, found: &mut Found) {
        let Some((service, subject, view)) = self.slices.see(kind, slice, names) else { return };
        let old = self.views.remove(&service).unwrap_or_default();
        for (pod, c) in &view {
            let before = old.get(pod);
            if before.is_none() {
                found.first(subject, format_args!("endpoint_added({pod})"), t);
            }
            // A condition already on in the last view was offered then: offering it again is a no-op.
            let was = before.copied().unwrap_or_default();
            for (on, event) in [
                (c.ready && !was.ready, "ready"),
                (c.serving && !was.serving, "serving"),
                (c.terminating && !was.terminating, "terminating"),
            ] {
                if on {
                    found.first(subject, format_args!("endpoint_{event}({pod})"), t);
                }
            }
            if before.is_some_and(|b| b.ready) && !c.ready {
                found.first(subject, format_args!("endpoint_not_ready({pod})"), t);
            }
        }
        for pod in old.keys().filter(|p| !view.contains_key(*p)) {
            found.first(subject, format_args!("endpoint_removed({pod})"), t);
        }
        let (was, is) = (old.values().any(|c| c.ready), view.values().any(|c| c.ready));
        let ever = self.ever_ready.entry(service).or_default();
        let windows = self.windows.entry(service).or_default();
        if !was && is && !*ever {
            *ever = true;
            found.first(subject, "first_ready_endpoint", t);
        } else if !was && is {
            found.first(subject, format_args!("no_ready_endpoint_end#{windows}"), t);
        } else if was && !is {
            *windows += 1;
            found.first(subject, format_args!("no_ready_endpoint_start#{windows}"), t);
        }
        self.views.insert(service, view);
    }
}
