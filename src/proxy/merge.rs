//! The order in which a Service port's endpoints come out of the merge of
//! its EndpointSlices. kube-proxy deduplicates them by `IP:port` across the
//! slices (`addEndpoints`) and sorts them by that key
//! (`endpointsMapFromEndpointInfo`); the model visits them in key order,
//! equal keys in slice order, and deduplicates as it goes
//! (`SliceCache::service_port_endpoints`). Every node merges the same slice
//! versions into the same order — only which of two equal keys a node keeps
//! depends on the node — so the order is worked out by the first
//! kube-proxy that needs it and reused by the others.

use super::ProxyEndpoint;
use crate::api::endpointslice::SliceId;
use foldhash::HashMap;
use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};
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
    /// The merge order of `lists` (each sorted by key), whose versions are `key`.
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

/// The stable sort of the lists' concatenation by key, done as a merge:
/// each list is sorted already.
fn merge(lists: &[&[Arc<ProxyEndpoint>]]) -> Vec<Merged> {
    let mut heads: BinaryHeap<Head> = lists
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(list, &rest)| Head { list: list as u32, at: 0, rest })
        .collect();
    let mut order: Vec<Merged> = Vec::with_capacity(lists.iter().map(|l| l.len()).sum());
    let mut last: Option<&Arc<ProxyEndpoint>> = None;
    while let Some(mut head) = heads.peek_mut() {
        let ep = &head.rest[0];
        let same_key = last.is_some_and(|l| l.key_cmp(ep) == Ordering::Equal);
        order.push(Merged { list: head.list, at: head.at, same_key });
        last = Some(ep);
        head.at += 1;
        head.rest = &head.rest[1..];
        if head.rest.is_empty() {
            PeekMut::pop(head);
        }
    }
    order
}

/// The next endpoint of one list: ordered so that the max-heap yields the
/// smallest key first, and of equal keys the one from the earlier list.
struct Head<'a> {
    list: u32,
    at: u32,
    rest: &'a [Arc<ProxyEndpoint>],
}

impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.rest[0].key_cmp(&self.rest[0]).then(other.list.cmp(&self.list))
    }
}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head<'_> {}
