//! A GET reaching a pod's network namespace, answered by whichever process
//! bound the port — and, when that process relays it (a behaviour's
//! `forward`), by the answer its own request gets. A service mesh's agent
//! answers the probes it rewrote so: istio's pilot-agent,
//! `handleAppProbeHTTPGet` (pilot/cmd/pilot-agent/status/server.go), sends
//! the app's original GET to the pod IP with the kubelet's redirect policy
//! and the probe's timeout, and answers with the status it got; 200 for a
//! 3xx it did not follow; 500 when the request failed (refused, timed out,
//! too many redirects).
//!
//! A relay that reaches a process and path already relaying this request
//! (itself, or a cycle through other containers) recurses without end on a
//! real pod: no answer ever comes back, and only a client's timeout ends
//! the wait. podsim stops at the repeat and answers `NEVER`.

use super::http_client::{self, Got, Reply, Url};
use super::netns::NetnsId;
use super::runtime::{InstId, Runtime};
use crate::app::{HttpAnswer, HttpResponse};
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};

/// The latency of an answer that never comes (saturating time arithmetic
/// puts it past any run's end; a client's timeout comes first).
pub const NEVER: SimDuration = SimDuration::from_millis(u64::MAX);

/// A GET of `path` on `host:port`, sent `at` into the namespace `ns` (none:
/// the pod has no sandbox): the process that bound the port answers, a
/// relay with what its own request got; nothing bound: refused.
pub fn serve(
    runtime: &Runtime,
    ns: Option<NetnsId>,
    host: &str,
    port: u16,
    path: &str,
    at: SimTime,
    rng: &mut Stream,
) -> Reply<InstId> {
    answer(runtime, ns, host, port, path, at, rng, &mut Vec::new())
}

/// `serve`, with the relays the request already went through.
#[allow(clippy::too_many_arguments)]
fn answer(
    runtime: &Runtime,
    ns: Option<NetnsId>,
    host: &str,
    port: u16,
    path: &str,
    at: SimTime,
    rng: &mut Stream,
    relays: &mut Vec<(InstId, String)>,
) -> Reply<InstId> {
    let Some(server) = ns.and_then(|ns| runtime.server(ns, port)) else { return Reply::Refused };
    let i = runtime.inst(server);
    let (to, relayed, timeout, latency) = match i.plan.http(path, i.age(at), i.moments, rng) {
        HttpAnswer::Response(r) => return Reply::Answered(server, r),
        HttpAnswer::Relay { port, path, timeout, latency } => (port, path, timeout, latency),
    };
    if relays.iter().any(|(s, p)| *s == server && p == path) {
        return Reply::Answered(server, HttpResponse { status: 500, latency: NEVER, location: None });
    }
    relays.push((server, path.to_string()));
    let url = Url::new("http", host, to, &relayed);
    let send = |u: &Url<'_>, elapsed| answer(runtime, ns, host, u.port(), &u.path, at + elapsed, rng, relays);
    let fetched = http_client::get(url, timeout, send, |_| {});
    relays.pop();
    Reply::Answered(
        server,
        HttpResponse { status: relayed_status(&fetched.got), latency: fetched.took + latency, location: None },
    )
}

/// The status a relay answers with (`handleAppProbeHTTPGet`): the relayed
/// response's, 200 for a 3xx (a redirect not followed), 500 for an error.
pub fn relayed_status(got: &Got<'_>) -> u16 {
    match got {
        Got::Response { status } if (300..400).contains(status) => 200,
        Got::Response { status } => *status,
        _ => 500,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_answers_as_pilot_agent() {
        let url = Url::new("http", "10.244.0.2", 9080, "/health");
        assert_eq!(relayed_status(&Got::Response { status: 204 }), 204);
        assert_eq!(relayed_status(&Got::Response { status: 503 }), 503);
        // `isRedirect`: a 3xx the client did not follow is answered 200.
        assert_eq!(relayed_status(&Got::Response { status: 302 }), 200);
        assert_eq!(relayed_status(&Got::Response { status: 304 }), 200);
        assert_eq!(relayed_status(&Got::Refused { url: url.clone() }), 500);
        assert_eq!(relayed_status(&Got::Timeout { url }), 500);
        assert_eq!(relayed_status(&Got::TooManyRedirects { location: "/r".into() }), 500);
    }
}
