//! The order in which a Service port's endpoints come out of the merge of
//! its EndpointSlices. kube-proxy deduplicates them by `IP:port` across the
//! slices (`addEndpoints`) and sorts them by that key
//! (`endpointsMapFromEndpointInfo`); the model visits them in key order,
//! equal keys in slice order, and deduplicates as it goes
//! (`SliceCache::service_port_endpoints`). Every node merges the same slice
//! versions into the same order — only which of two equal keys a node keeps
//! depends on the node — so the order is worked out (sorted) by the first
//! kube-proxy that needs it and reused by the others.

use super::ProxyEndpoint;
use crate::ids::SliceId;

use foldhash::HashMap;
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::sync::Arc;

/// The lists merged: per slice, its id, its version and the index of the
/// port's list among the slice's converted ports.
pub type MergeKey = Vec<(SliceId, u64, u32)>;

/// One endpoint of the merge.
#[derive(Copy, Clone, Debug)]
pub struct Merged {
    pub list: u32,
    /// Its position in that list.
    pub at: u32,
    /// Its key is the previous endpoint's: a duplicate across slices.
    pub same_key: bool,
}

pub type MergeOrder = Arc<[Merged]>;

/// Merge orders shared by the kube-proxies of one run. It holds the most
/// recent orders only: nodes lag each other by their watch delays, not by
/// hundreds of slice versions, and an order dropped is worked out again.
#[derive(Debug, Default)]
pub struct MergeOrders {
    orders: HashMap<MergeKey, MergeOrder>,
    oldest: VecDeque<MergeKey>,
}

const KEPT: usize = 256;

impl MergeOrders {
    /// The merge order of `lists`, whose versions are `key`.
    pub fn order(&mut self, key: MergeKey, lists: &[&[Arc<ProxyEndpoint>]]) -> MergeOrder {
        if let Some(order) = self.orders.get(&key) {
            return order.clone();
        }
        let order: MergeOrder = merge(lists).into();
        if self.oldest.len() == KEPT
            && let Some(old) = self.oldest.pop_front()
        {
            self.orders.remove(&old);
        }
        self.oldest.push_back(key.clone());
        self.orders.insert(key, order.clone());
        order
    }
}

/// The lists' endpoints sorted by key, stably: equal keys in list (slice)
/// order, then in each list's order.
fn merge(lists: &[&[Arc<ProxyEndpoint>]]) -> Vec<Merged> {
    let ep = |&(list, at): &(u32, u32)| &lists[list as usize][at as usize];
    let mut all: Vec<(u32, u32)> = lists
        .iter()
        .enumerate()
        .flat_map(|(list, eps)| (0..eps.len() as u32).map(move |at| (list as u32, at)))
        .collect();
    all.sort_by(|a, b| ep(a).key_cmp(ep(b)));
    let same = |i: usize| i > 0 && ep(&all[i - 1]).key_cmp(ep(&all[i])) == Ordering::Equal;
    (0..all.len()).map(|i| Merged { list: all[i].0, at: all[i].1, same_key: same(i) }).collect()
}
