//! `request-follows-proxy-rules`: a new connection to a cluster IP meets the
//! rules the node's last `iptables-restore` committed (pkg/proxy/iptables/
//! proxier.go `syncProxyRules`): DNAT to one of the endpoints they list,
//! REJECT, DROP, or no rule at all.

use super::origin;
use crate::client::{Outcome, Refusal, RequestRecord, Silence};
use crate::invariants::report::Tally;
use crate::proxy::{Action, Rules};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::Record;
use foldhash::{HashMap, HashMapExt, HashSet};
use std::net::Ipv4Addr;
use std::sync::Arc;

/// One node's commits: time, trace line, rules.
type Commits = Vec<(SimTime, usize, Arc<Rules>)>;

pub fn judge(trace: &Trace) -> Tally {
    let mut t = Tally::default();
    // `service/NAME:PORT` (a port's name, else its number) → cluster IP and port.
    let mut targets: HashMap<String, (Ipv4Addr, u16)> = HashMap::new();
    let mut commits: HashMap<Arc<str>, Commits> = HashMap::new();
    let empty = Arc::new(Rules::new());
    let mut listed = Listed::default();
    for (i, e) in trace.entries.iter().enumerate() {
        match &e.record {
            Record::Service { svc, .. } => {
                for p in &svc.spec.ports {
                    let label = if p.name.is_empty() { p.port.to_string() } else { p.name.clone() };
                    targets.entry(format!("service/{}:{label}", svc.spec.name)).or_insert((svc.cluster_ip, p.port));
                }
            }
            Record::ProxySync(s) => commits.entry(s.node.clone()).or_default().push((e.t, i, s.rules.clone())),
            Record::Request(r) => {
                let (Some(node), Some(key)) = (&r.node, targets.get(&*r.target)) else { continue };
                if matches!(r.outcome, Outcome::NotSent { .. }) {
                    continue;
                }
                // The rules in force at the send: the last commit before it,
                // or one at the same instant (their order is not recorded).
                let mine = commits.get(node).map(Vec::as_slice).unwrap_or_default();
                let before = mine.partition_point(|(at, ..)| *at < r.sent);
                let same = mine[before..].iter().take_while(|(at, ..)| *at == r.sent);
                let last = before.checked_sub(1).map(|j| (mine[j].1, &mine[j].2));
                let in_force = last.map_or(&empty, |(_, rules)| rules);
                if std::iter::once(in_force).chain(same.map(|c| &c.2)).any(|rules| allows(rules, *key, r, &mut listed))
                {
                    t.hold();
                    continue;
                }
                let mut at = vec![origin(i)];
                at.extend(last.map(|(line, _)| origin(line)));
                let rule = last.map_or("no rules yet".to_string(), |(_, rules)| describe(rules, *key));
                t.violate(
                    &at.iter().collect::<Vec<_>>(),
                    format!(
                        "{} {} from {node} at {} routed as its kube-proxy's last committed rules say: {rule}",
                        r.client, r.n, r.sent
                    ),
                    format!("{} to {}", r.outcome.as_str(), r.endpoint.as_deref().unwrap_or("no endpoint")),
                );
            }
            _ => {}
        }
    }
    t
}

/// Whether `rules` give the request's route.
fn allows(rules: &Arc<Rules>, key: (Ipv4Addr, u16), r: &RequestRecord, listed: &mut Listed) -> bool {
    let rule = rules.get(&key);
    match (&r.outcome, rule.map(|x| &x.action)) {
        (Outcome::Timeout(Silence::NotProgrammed), None) => true,
        (Outcome::Timeout(Silence::NoLocalEndpoints { .. }), Some(Action::Drop)) => true,
        (Outcome::Refused(Refusal::NoEndpoints { .. }), Some(Action::Reject)) => true,
        (
            Outcome::Timeout(Silence::NotProgrammed | Silence::NoLocalEndpoints { .. })
            | Outcome::Refused(Refusal::NoEndpoints { .. }),
            _,
        ) => false,
        (_, Some(Action::Forward(_))) => {
            let listed = r.endpoint.as_ref().is_some_and(|ep| listed.keys(rules, key).contains(&**ep));
            listed && (!r.sticky || rule.is_some_and(|x| x.affinity.is_some()))
        }
        _ => false,
    }
}

/// The endpoint keys a commit's rule forwards to, as a set, made once per
/// (commit, Service port): every request of a run is checked against the
/// rules in force, which list every endpoint (1,000 on rollout-1000).
#[derive(Default)]
struct Listed {
    sets: HashMap<(*const Rules, (Ipv4Addr, u16)), HashSet<String>>,
}

impl Listed {
    /// The commits hold every `rules` for the whole judgement, so an address names one.
    fn keys(&mut self, rules: &Arc<Rules>, key: (Ipv4Addr, u16)) -> &HashSet<String> {
        self.sets.entry((Arc::as_ptr(rules), key)).or_insert_with(|| match rules.get(&key).map(|x| &x.action) {
            Some(Action::Forward(eps)) => eps.iter().map(|e| e.key()).collect(),
            _ => HashSet::default(),
        })
    }
}

fn describe(rules: &Rules, key: (Ipv4Addr, u16)) -> String {
    match rules.get(&key).map(|r| &r.action) {
        None => "no rule for the cluster IP".into(),
        Some(Action::Reject) => "REJECT".into(),
        Some(Action::Drop) => "DROP".into(),
        Some(Action::Forward(eps)) => {
            format!("DNAT to one of {}", eps.iter().map(|e| e.key()).collect::<Vec<_>>().join(", "))
        }
    }
}
