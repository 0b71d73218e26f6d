//! Running one probe against a process: the handler's verdict, its output as
//! the kubelet prints it, and how long the probe took (`pkg/probe/{http,tcp,grpc,exec}`).

use crate::app::{ExecAnswer, GrpcAnswer, GrpcStatus};
use crate::kubelet::http_client::{Fetched, Got};
use crate::time::SimDuration;

/// `probe.Result` of a handler that returned no error.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HandlerResult {
    Success,
    /// A success the kubelet reports with a `ProbeWarning` event: an HTTP
    /// probe whose last response was a 3xx.
    Warning,
    Failure,
}

/// The outcome of one probe run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: HandlerResult,
    /// The handler's output (the text after "X probe failed: " or "X probe warning: ").
    pub output: String,
    /// Time from the start of the probe to its result.
    pub took: SimDuration,
}

impl Outcome {
    /// The results cache counts a Warning as a Success (`prober.probe`).
    pub fn succeeded(&self) -> bool {
        self.result != HandlerResult::Failure
    }
}

/// What a TCP or gRPC probe targets, for the Go-style error texts.
pub struct Target<'a> {
    pub ip: &'a str,
    pub port: u16,
}

fn fail(output: String, took: SimDuration) -> Outcome {
    Outcome { result: HandlerResult::Failure, output, took }
}
fn ok(output: String, took: SimDuration) -> Outcome {
    Outcome { result: HandlerResult::Success, output, took }
}

/// `DoHTTPProbe` on what `Client.Do` returned: 200–299 succeed, 300–399
/// succeed with a warning (redirects the client did not follow), other
/// statuses fail, and so does every client error (refused, timeout, too
/// many redirects), with the error's text. podsim's responses have no body.
pub fn http(fetched: &Fetched<'_>) -> Outcome {
    let took = fetched.took;
    match fetched.got {
        Got::Response { status } if (200..300).contains(&status) => ok(String::new(), took),
        Got::Response { status } if (300..400).contains(&status) => Outcome {
            result: HandlerResult::Warning,
            output: "Probe terminated redirects, Response body: ".into(),
            took,
        },
        Got::Response { status } => fail(format!("HTTP probe failed with statuscode: {status}"), took),
        _ => fail(fetched.got.error().unwrap_or_default(), took),
    }
}

/// `DoTCPProbe`: a connection succeeds, a refused one fails.
pub fn tcp(connected: bool, t: &Target<'_>) -> Outcome {
    match connected {
        true => ok(String::new(), SimDuration::ZERO),
        false => fail(format!("dial tcp {}:{}: connect: connection refused", t.ip, t.port), SimDuration::ZERO),
    }
}

/// `grpc.Probe`: SERVING succeeds; through 1.37 a refused connection
/// (`None`) is retried until the deadline (`grpc.WithBlock`).
pub fn grpc(answer: Option<GrpcAnswer>, t: &Target<'_>, timeout: SimDuration) -> Outcome {
    let Some(answer) = answer else {
        let addr = format!("{}:{}", t.ip, t.port);
        return fail(
            format!("timeout: failed to connect service {addr:?} within {timeout}: context deadline exceeded"),
            timeout,
        );
    };
    match answer {
        GrpcAnswer::Unimplemented => fail(
            "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health".into(),
            SimDuration::ZERO,
        ),
        GrpcAnswer::NotFound => {
            fail("error: health rpc probe failed: rpc error: code = NotFound desc = unknown service".into(), SimDuration::ZERO)
        }
        GrpcAnswer::Status { latency, .. } if latency >= timeout => {
            fail(format!("timeout: health rpc did not complete within {timeout}"), timeout)
        }
        GrpcAnswer::Status { status: GrpcStatus::Serving, latency } => ok("service healthy".into(), latency),
        GrpcAnswer::Status { status, latency } => {
            fail(format!("service unhealthy (responded with {:?})", status.as_str()), latency)
        }
    }
}

/// Exec probe: exit 0 succeeds; with ExecProbeTimeout a command still running
/// at the timeout fails with `command "…" timed out`.
/// The output is the command's stdout and stderr, as it printed them.
pub fn exec(answer: ExecAnswer, command: &str, overhead: SimDuration, timeout: Option<SimDuration>) -> Outcome {
    let ExecAnswer { code, latency, output } = answer;
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
    use crate::app::HttpResponse;
    use crate::kubelet::http_client::{Reply, Url, get};

    const T: Target<'static> = Target { ip: "10.244.0.7", port: 8080 };
    const MS: fn(u64) -> SimDuration = SimDuration::from_millis;

    /// An HTTP probe of /healthz whose single request gets `reply`.
    fn probe(reply: Option<(u16, u64, Option<&str>)>) -> Outcome {
        let url = Url::new("HTTP", T.ip, T.port, "/healthz");
        let send = |u: &Url<'_>, _| match reply {
            Some((status, ms, location)) if u.path == "/healthz" && u.port() == T.port => {
                Reply::Answered((), HttpResponse { status, latency: MS(ms), location: location.map(Into::into) })
            }
            _ => Reply::Refused,
        };
        let f = get(url, Some(MS(1000)), send, |_| {});
        http(&f)
    }

    #[test]
    fn http_texts_match_the_kubelet() {
        let refused = probe(None);
        assert_eq!(
            refused.output,
            "Get \"http://10.244.0.7:8080/healthz\": dial tcp 10.244.0.7:8080: connect: connection refused"
        );
        let s503 = probe(Some((503, 5, None)));
        assert_eq!(
            (s503.result, s503.output.as_str(), s503.took),
            (HandlerResult::Failure, "HTTP probe failed with statuscode: 503", MS(5))
        );
        let slow = probe(Some((200, 1500, None)));
        assert_eq!((slow.result, slow.took), (HandlerResult::Failure, MS(1000)));
        assert_eq!(probe(Some((204, 0, None))).result, HandlerResult::Success);
        assert_eq!(probe(Some((199, 0, None))).result, HandlerResult::Failure);
    }

    #[test]
    fn a_3xx_that_ends_the_chain_is_a_warning() {
        for last in [
            probe(Some((302, 0, None))),
            probe(Some((302, 0, Some("https://sso.example.com/")))),
            probe(Some((304, 0, None))),
        ] {
            assert_eq!(
                (last.result, last.output.as_str()),
                (HandlerResult::Warning, "Probe terminated redirects, Response body: ")
            );
            assert!(last.succeeded());
        }
        // A same-host redirect is followed: here to a path that is refused.
        let followed = probe(Some((302, 0, Some("http://10.244.0.7:9090/healthz"))));
        assert_eq!(followed.result, HandlerResult::Failure);
        assert!(followed.output.contains("dial tcp 10.244.0.7:9090"), "{}", followed.output);
    }

    #[test]
    fn grpc_refused_waits_for_the_deadline() {
        let o = grpc(None, &T, MS(1000));
        assert_eq!(o.took, MS(1000));
        assert_eq!(
            o.output,
            "timeout: failed to connect service \"10.244.0.7:8080\" within 1s: context deadline exceeded"
        );
        let ns = grpc(Some(GrpcAnswer::Status { status: GrpcStatus::NotServing, latency: MS(0) }), &T, MS(1000));
        assert_eq!(ns.output, "service unhealthy (responded with \"NOT_SERVING\")");
    }

    #[test]
    fn exec_times_out_only_when_enforced() {
        let slow = ExecAnswer { code: 0, latency: MS(3000), output: None };
        let o = exec(slow.clone(), "sleep 3", MS(0), Some(MS(1000)));
        assert_eq!(
            (o.result, o.output.as_str(), o.took),
            (HandlerResult::Failure, "command \"sleep 3\" timed out", MS(1000))
        );
        assert_eq!(exec(slow, "sleep 3", MS(0), None).result, HandlerResult::Success);
        let printed = ExecAnswer { code: 1, latency: MS(0), output: Some("cat: can't open '/tmp/healthy'\n".into()) };
        assert_eq!(exec(printed, "cat /tmp/healthy", MS(0), None).output, "cat: can't open '/tmp/healthy'\n");
    }
}
