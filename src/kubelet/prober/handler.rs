//! Running one probe against a process: the handler's verdict, its output as
//! the kubelet prints it, and how long the probe took (`pkg/probe/{http,tcp,grpc,exec}`).

use super::results::ProbeResult;
use crate::app::{Answer, GrpcStatus};
use crate::time::SimDuration;

/// The outcome of one probe run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: ProbeResult,
    /// The handler's output (the text after "X probe failed: ").
    pub output: String,
    /// Time from the start of the probe to its result.
    pub took: SimDuration,
}

/// What the probe targets, for the Go-style error texts.
pub struct Target<'a> {
    pub ip: &'a str,
    pub port: u16,
    pub path: &'a str,
    pub scheme: &'a str,
}

fn fail(output: String, took: SimDuration) -> Outcome {
    Outcome { result: ProbeResult::Failure, output, took }
}
fn ok(output: String, took: SimDuration) -> Outcome {
    Outcome { result: ProbeResult::Success, output, took }
}

/// `DoHTTPProbe`: 200–399 succeed; other statuses, refusals and timeouts fail.
pub fn http(answer: Answer, t: &Target<'_>, timeout: SimDuration) -> Outcome {
    // Only failures print the URL: a closure keeps successful probes from formatting it.
    let url = || format!("{}://{}:{}{}", t.scheme.to_ascii_lowercase(), t.ip, t.port, t.path);
    match answer {
        Answer::Http { latency, .. } if latency >= timeout => fail(
            format!("Get {:?}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", url()),
            timeout,
        ),
        Answer::Http { status, latency } if (200..400).contains(&status) => ok(String::new(), latency),
        Answer::Http { status, latency } => fail(format!("HTTP probe failed with statuscode: {status}"), latency),
        _ => fail(
            format!("Get {:?}: dial tcp {}:{}: connect: connection refused", url(), t.ip, t.port),
            SimDuration::ZERO,
        ),
    }
}

/// `DoTCPProbe`: a connection succeeds, anything else fails.
pub fn tcp(answer: Answer, t: &Target<'_>) -> Outcome {
    match answer {
        Answer::Refused => {
            fail(format!("dial tcp {}:{}: connect: connection refused", t.ip, t.port), SimDuration::ZERO)
        }
        _ => ok(String::new(), SimDuration::ZERO),
    }
}

/// `grpc.Probe`: SERVING succeeds; through 1.37 a refused connection is
/// retried until the deadline (`grpc.WithBlock`).
pub fn grpc(answer: Answer, t: &Target<'_>, timeout: SimDuration) -> Outcome {
    let addr = format!("{}:{}", t.ip, t.port);
    match answer {
        Answer::Refused | Answer::Accepted | Answer::Http { .. } | Answer::Exit { .. } => fail(
            format!("timeout: failed to connect service {addr:?} within {timeout}: context deadline exceeded"),
            timeout,
        ),
        Answer::GrpcUnimplemented => fail(
            "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health".into(),
            SimDuration::ZERO,
        ),
        Answer::GrpcNotFound => {
            fail("error: health rpc probe failed: rpc error: code = NotFound desc = unknown service".into(), SimDuration::ZERO)
        }
        Answer::Grpc { latency, .. } if latency >= timeout => {
            fail(format!("timeout: health rpc did not complete within {timeout}"), timeout)
        }
        Answer::Grpc { status: GrpcStatus::Serving, latency } => ok("service healthy".into(), latency),
        Answer::Grpc { status, latency } => fail(format!("service unhealthy (responded with {:?})", status.as_str()), latency),
    }
}

/// Exec probe: exit 0 succeeds; with ExecProbeTimeout a command still running
/// at the timeout fails with `command "…" timed out`.
/// The output is the command's stdout and stderr, as it printed them.
pub fn exec(answer: Answer, command: &str, overhead: SimDuration, timeout: Option<SimDuration>) -> Outcome {
    let Answer::Exit { code, latency, output } = answer else {
        return fail(String::new(), overhead);
    };
    let took = overhead + latency;
    let output = output.map(|o| o.to_string()).unwrap_or_default();
    match timeout {
        Some(t) if took >= t => fail(format!("command {command:?} timed out"), t),
        _ if code == 0 => ok(output, took),
        _ => fail(output, took),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Target<'static> = Target { ip: "10.244.0.7", port: 8080, path: "/healthz", scheme: "HTTP" };
    const MS: fn(u64) -> SimDuration = SimDuration::from_millis;

    #[test]
    fn http_texts_match_the_kubelet() {
        let refused = http(Answer::Refused, &T, MS(1000));
        assert_eq!(
            refused.output,
            "Get \"http://10.244.0.7:8080/healthz\": dial tcp 10.244.0.7:8080: connect: connection refused"
        );
        let s503 = http(Answer::Http { status: 503, latency: MS(5) }, &T, MS(1000));
        assert_eq!(
            (s503.result, s503.output.as_str(), s503.took),
            (ProbeResult::Failure, "HTTP probe failed with statuscode: 503", MS(5))
        );
        let slow = http(Answer::Http { status: 200, latency: MS(1500) }, &T, MS(1000));
        assert_eq!((slow.result, slow.took), (ProbeResult::Failure, MS(1000)));
        assert_eq!(http(Answer::Http { status: 302, latency: MS(0) }, &T, MS(1000)).result, ProbeResult::Success);
        assert_eq!(http(Answer::Http { status: 199, latency: MS(0) }, &T, MS(1000)).result, ProbeResult::Failure);
    }

    #[test]
    fn grpc_refused_waits_for_the_deadline() {
        let o = grpc(Answer::Refused, &T, MS(1000));
        assert_eq!(o.took, MS(1000));
        assert_eq!(
            o.output,
            "timeout: failed to connect service \"10.244.0.7:8080\" within 1s: context deadline exceeded"
        );
        let ns = grpc(Answer::Grpc { status: GrpcStatus::NotServing, latency: MS(0) }, &T, MS(1000));
        assert_eq!(ns.output, "service unhealthy (responded with \"NOT_SERVING\")");
    }

    #[test]
    fn exec_times_out_only_when_enforced() {
        let slow = Answer::Exit { code: 0, latency: MS(3000), output: None };
        let o = exec(slow.clone(), "sleep 3", MS(0), Some(MS(1000)));
        assert_eq!(
            (o.result, o.output.as_str(), o.took),
            (ProbeResult::Failure, "command \"sleep 3\" timed out", MS(1000))
        );
        assert_eq!(exec(slow, "sleep 3", MS(0), None).result, ProbeResult::Success);
        let printed = Answer::Exit { code: 1, latency: MS(0), output: Some("cat: can't open '/tmp/healthy'\n".into()) };
        assert_eq!(exec(printed, "cat /tmp/healthy", MS(0), None).output, "cat: can't open '/tmp/healthy'\n");
    }
}
