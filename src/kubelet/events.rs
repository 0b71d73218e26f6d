//! The kubelet's event recorder with client-go's correlator
//! (tools/record/events_cache.go): identical events are counted on one object,
//! similar ones are combined after 10 distinct messages in 10 minutes, and a
//! token bucket per pod (burst 25, one token per 5 minutes) drops the excess.

use crate::time::{SimDuration, SimTime};
use crate::trace::record::{ApiEvent, EventSource, Involved};
use foldhash::HashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

const AGGREGATE_MAX: usize = 10;
const AGGREGATE_WINDOW: SimDuration = SimDuration::from_secs(600);
const SPAM_BURST: f64 = 25.0;
const SPAM_REFILL_MS: f64 = 300_000.0;

/// What the kubelet reports about one pod.
pub struct Subject<'a> {
    pub pod: &'a Arc<str>,
    pub namespace: &'a Arc<str>,
    pub uid: &'a Arc<str>,
    /// `spec.containers{app}` or `spec.initContainers{fetch}` for container events.
    pub field_path: Option<String>,
}

#[derive(Default)]
struct Aggregate {
    messages: BTreeSet<String>,
    last: SimTime,
}

struct Bucket {
    tokens: f64,
    at: SimTime,
}

/// `EventAggregatorByReasonFunc`'s aggregate key: the object and the kind of event
/// (the source, this kubelet, is the same for every key of a recorder).
#[derive(Clone, PartialEq, Eq, Hash)]
struct AggregateKey {
    uid: Arc<str>,
    pod: Arc<str>,
    warning: bool,
    reason: &'static str,
}

/// `getEventKey`: the fields an identical event repeats; or, once similar
/// events are combined, the aggregate key they all count under. Kept as
/// fields, not joined into a string, so a lookup formats nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
enum EventKey {
    Exact { of: AggregateKey, field_path: Option<String>, message: String },
    Combined(AggregateKey),
}

#[derive(Default)]
pub struct Recorder {
    /// Per event key: the stored event (name, firstTimestamp, count).
    seen: HashMap<EventKey, Arc<ApiEvent>>,
    aggregates: HashMap<AggregateKey, Aggregate>,
    buckets: HashMap<Arc<str>, Bucket>,
    /// Nanoseconds of the run's epoch, for event names (`<pod>.<hex ns>`).
    epoch_ns: u128,
    seq: u32,
}

impl Recorder {
    pub fn new(epoch_ns: u128) -> Self {
        Recorder { epoch_ns, ..Default::default() }
    }

    /// A new process's recorder: its correlator remembers nothing.
    pub fn restarted(&self) -> Self {
        Recorder::new(self.epoch_ns)
    }

    /// `EventCorrelate` then the spam filter: the event as stored, or `None`
    /// when the filter drops it.
    pub fn record(
        &mut self,
        now: SimTime,
        node: &Arc<str>,
        s: &Subject<'_>,
        warning: bool,
        reason: &'static str,
        message: String,
    ) -> Option<Arc<ApiEvent>> {
        let of = AggregateKey { uid: s.uid.clone(), pod: s.pod.clone(), warning, reason };
        let (message, key) = self.aggregate(now, of, message, &s.field_path);
        let event = match self.seen.get(&key) {
            Some(old) => ApiEvent { count: old.count + 1, last: now, message, ..ApiEvent::clone(old) },
            None => {
                self.seq = self.seq.wrapping_add(1);
                let ns = self.epoch_ns + now.as_millis() as u128 * 1_000_000 + (self.seq % 1_000_000) as u128;
                let about = Involved { name: s.pod, namespace: s.namespace, uid: s.uid };
                let source = EventSource::Kubelet { node: node.clone() };
                ApiEvent {
                    field_path: s.field_path.clone(),
                    ..ApiEvent::first_at(about, source, warning, reason, message, now, ns)
                }
            }
        };
        let event = Arc::new(event);
        self.seen.insert(key, event.clone());
        self.spam_allows(s.uid, now).then_some(event)
    }

    /// `EventAggregate`: the 10th distinct message of one (object, type,
    /// reason) within the window becomes a "combined" event, counted under
    /// the aggregate key (so every later combined message updates one Event).
    /// Returns the message and the key the event is counted under.
    fn aggregate(
        &mut self,
        now: SimTime,
        of: AggregateKey,
        message: String,
        field_path: &Option<String>,
    ) -> (String, EventKey) {
        let agg = self.aggregates.entry(of.clone()).or_default();
        if now.since(agg.last) > AGGREGATE_WINDOW {
            agg.messages.clear();
        }
        agg.last = now;
        // Messages are copied only when new: most events repeat.
        if !agg.messages.contains(&message) {
            agg.messages.insert(message.clone());
        }
        if agg.messages.len() < AGGREGATE_MAX {
            let key = EventKey::Exact { of, field_path: field_path.clone(), message: message.clone() };
            return (message, key);
        }
        // PopAny: Go picks an arbitrary member; podsim drops the smallest.
        if let Some(first) = agg.messages.iter().next().cloned() {
            agg.messages.remove(&first);
        }
        (format!("(combined from similar events): {message}"), EventKey::Combined(of))
    }

    /// `EventSourceObjectSpamFilter`: one token bucket per pod.
    fn spam_allows(&mut self, uid: &Arc<str>, now: SimTime) -> bool {
        let b = self.buckets.entry(uid.clone()).or_insert(Bucket { tokens: SPAM_BURST, at: now });
        b.tokens = (b.tokens + now.since(b.at).as_millis() as f64 / SPAM_REFILL_MS).min(SPAM_BURST);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(r: &mut Recorder, t: u64, msg: &str) -> Option<Arc<ApiEvent>> {
        let (pod, ns, uid): (Arc<str>, Arc<str>, Arc<str>) = ("web".into(), "default".into(), "u1".into());
        let s = Subject { pod: &pod, namespace: &ns, uid: &uid, field_path: Some("spec.containers{app}".into()) };
        r.record(SimTime::from_millis(t), &"node-1".into(), &s, true, "Unhealthy", msg.to_string())
    }

    #[test]
    fn repeated_events_count_on_one_object() {
        let mut r = Recorder::new(0);
        let a = rec(&mut r, 1000, "Liveness probe failed: x").unwrap();
        let b = rec(&mut r, 11_000, "Liveness probe failed: x").unwrap();
        assert_eq!(
            (b.name.as_str(), b.count, b.first, b.last),
            (a.name.as_str(), 2, a.first, SimTime::from_millis(11_000))
        );
    }

    #[test]
    fn the_tenth_distinct_message_is_combined_into_one_event() {
        let mut r = Recorder::new(0);
        let mut combined = Vec::new();
        for i in 0..12 {
            let e = rec(&mut r, i * 1000, &format!("m{i:02}")).unwrap();
            if e.message.starts_with("(combined from similar events): ") {
                combined.push(e);
            }
        }
        assert_eq!(combined.len(), 3, "messages 10, 11 and 12 are combined");
        assert!(combined.iter().all(|e| e.name == combined[0].name));
        assert_eq!(combined.iter().map(|e| e.count).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn the_spam_filter_lets_25_through_then_one_per_five_minutes() {
        let mut r = Recorder::new(0);
        let passed = (0..40).filter(|i| rec(&mut r, *i * 1000, "m").is_some()).count();
        assert_eq!(passed, 25);
        assert!(rec(&mut r, 40_000 + 300_000, "m").is_some());
        assert!(rec(&mut r, 40_000 + 301_000, "m").is_none());
    }
}
