//! The Service path inside the world: the EndpointSlice controller's writes
//! applied by the API server.

use super::{World, routes};
use crate::control::endpointslice::{Request, Write, slice_prefix};
use crate::engine::{Ctx, Routed};

impl World {
    /// A write of the EndpointSlice controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn slice_write(&mut self, Request { service, write }: Request) {
        let now = self.q.now();
        let (result, deleted) = match write {
            Write::Create(content) => {
                let prefix = slice_prefix(&self.api.service(service).spec.name);
                (self.api.create_slice(service, &prefix, content, now, &mut self.trace), false)
            }
            Write::Update(id, content) => (self.api.update_slice(id, content, now, &mut self.trace), false),
            Write::Delete(id) => (self.api.delete_slice(id, now, &mut self.trace), true),
        };
        if let Some(c) = self.controller.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::slices };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.written(service, Some(result), deleted, &mut ctx);
        }
    }
}
