//! The kubelet's HTTP GET, for probes and lifecycle hooks alike: Go's
//! `http.Client.Do` with the redirect policy both clients install,
//! `RedirectChecker(false)` (pkg/probe/http/http.go; the prober's client,
//! and the hooks' `insecureContainerLifecycleHTTPClient` in kubelet.go).
//!
//! A `Location` is followed only to the same host name as the first
//! request's (`req.URL.Hostname() != via[0].URL.Hostname()` returns
//! `http.ErrUseLastResponse`: the 3xx itself is the response), and only
//! while fewer than 10 requests were sent (then `stopped after 10
//! redirects`). The client's timeout covers every request of the chain.
//!
//! A behaviour's `location` may write `{host}` where a real app would write
//! the host it was asked for (the request's `Host`): podsim puts in the
//! request URL's host name, the pod IP for the kubelet's requests, so one
//! behaviour redirects to another port of whatever pod runs it.

use crate::app::{HttpResponse, REDIRECT_STATUSES};
use crate::time::SimDuration;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Go's limit in `RedirectChecker`: `len(via) >= 10` stops the chain.
const MAX_REQUESTS: usize = 10;

/// In a behaviour's `location`: the host the request was sent to.
pub const HOST: &str = "{host}";

/// Where a request goes, as Go's `url.URL` prints and dials it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url<'a> {
    /// `http` or `https`, lower-case as `GetProbeUrl` writes it: the API
    /// allows no other probe scheme, and `check_location` no other redirect.
    pub scheme: &'static str,
    authority: Authority<'a>,
    /// The path with its query, looked up as written in the behaviour's `http`.
    pub path: Cow<'a, str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Authority<'a> {
    /// `net.JoinHostPort(podIP, port)` of the first request.
    HostPort(&'a str, u16),
    /// The `host[:port]` a `Location` wrote, printed as written.
    Written(String),
}

impl<'a> Url<'a> {
    /// `formatURL(scheme, podIP, port, path)` of the probe or hook.
    pub fn new(scheme: &str, host: &'a str, port: u16, path: &'a str) -> Url<'a> {
        Url { scheme: lower(scheme), authority: Authority::HostPort(host, port), path: Cow::Borrowed(path) }
    }

    /// `URL.Hostname()`: the host without port or IPv6 brackets.
    pub fn host(&self) -> &str {
        match &self.authority {
            Authority::HostPort(h, _) => h,
            Authority::Written(a) => split_authority(a).0,
        }
    }

    /// The port dialled: the written one, else the scheme's.
    pub fn port(&self) -> u16 {
        match &self.authority {
            Authority::HostPort(_, p) => *p,
            Authority::Written(a) => match split_authority(a).1 {
                Some(p) => p,
                None if self.scheme == "https" => 443,
                None => 80,
            },
        }
    }

    /// The host as a URL writes it: an IPv6 address in brackets.
    fn host_in_url(&self) -> Cow<'_, str> {
        match self.host() {
            h if h.contains(':') => Cow::Owned(format!("[{h}]")),
            h => Cow::Borrowed(h),
        }
    }

    /// The `Location` the app sends when answering this request: its
    /// `{host}` is the host it was asked for.
    pub fn location(&self, written: &Arc<str>) -> Arc<str> {
        match written.contains(HOST) {
            true => Arc::from(written.replace(HOST, &self.host_in_url())),
            false => written.clone(),
        }
    }

    /// `u.Parse(location)`: the reference resolved against this URL (RFC 3986).
    pub fn resolve(&self, location: &str) -> Url<'a> {
        if let Some((scheme, rest)) = split_scheme(location) {
            let (authority, path) = split_path(rest);
            return Url {
                scheme: lower(scheme),
                authority: Authority::Written(authority.to_string()),
                path: Cow::Owned(remove_dot_segments(path)),
            };
        }
        if let Some(rest) = location.strip_prefix("//") {
            let (authority, path) = split_path(rest);
            return Url {
                scheme: self.scheme,
                authority: Authority::Written(authority.to_string()),
                path: Cow::Owned(remove_dot_segments(path)),
            };
        }
        let base = self.path.split('?').next().unwrap_or("");
        let path = if location.starts_with('/') {
            remove_dot_segments(location)
        } else if let Some(query) = location.strip_prefix('?') {
            format!("{base}?{query}")
        } else {
            let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
            remove_dot_segments(&format!("{dir}{location}"))
        };
        Url { scheme: self.scheme, authority: self.authority.clone(), path: Cow::Owned(path) }
    }
}

impl fmt::Display for Url<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.authority {
            Authority::HostPort(h, p) => write!(f, "{}://{h}:{p}{}", self.scheme, self.path),
            Authority::Written(a) => write!(f, "{}://{a}{}", self.scheme, self.path),
        }
    }
}

/// `http` or `https`, whatever the case written.
fn lower(scheme: &str) -> &'static str {
    if scheme.eq_ignore_ascii_case("https") { "https" } else { "http" }
}

/// `scheme:` at the start of a URL reference (RFC 3986 §3.1), and what follows.
fn split_scheme(s: &str) -> Option<(&str, &str)> {
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then(|| (scheme, s[colon + 1..].strip_prefix("//").unwrap_or(&s[colon + 1..])))
}

/// `host[:port]` and the path (with query) after it.
fn split_path(s: &str) -> (&str, &str) {
    match s.find(['/', '?']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// Host and explicit port of `host[:port]` or `[v6]:port`.
fn split_authority(a: &str) -> (&str, Option<u16>) {
    if let Some(rest) = a.strip_prefix('[') {
        let end = rest.find(']').unwrap_or(rest.len());
        let port = rest[end..].strip_prefix("]:").and_then(|p| p.parse().ok());
        return (&rest[..end], port);
    }
    match a.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().ok()),
        None => (a, None),
    }
}

/// RFC 3986 §5.2.4, as Go's `resolvePath` applies it; the query is kept.
fn remove_dot_segments(path: &str) -> String {
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    };
    if path.is_empty() {
        return query.map_or(String::new(), |q| format!("?{q}"));
    }
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." if last => out.push(""),
            "." => {}
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let mut s = format!("/{}", out.join("/"));
    if let Some(q) = query {
        s.push('?');
        s.push_str(q);
    }
    s
}

/// Checks a behaviour's `location` as `u.Parse` and the transport would take
/// it, with `{host}` standing for a host name: a path, or an `http`/`https`
/// URL. An empty host (`//:9090/x`, `http:///x`) parses in Go and is
/// another host than the pod IP's (`URL.Hostname()` is ""): not followed.
pub fn check_location(written: &str) -> Result<(), String> {
    let location = &written.replace(HOST, "pod-ip");
    if location.is_empty() {
        return Err("an empty `location` is no redirect: leave it out".into());
    }
    if location.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("{written:?}: a `location` has no spaces or control characters"));
    }
    if location.contains('#') {
        return Err(format!("{written:?}: fragments are not sent in requests: leave out the `#…`"));
    }
    let authority = if let Some((scheme, rest)) = split_scheme(location) {
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" || !location[scheme.len() + 1..].starts_with("//") {
            return Err(format!(
                "{written:?}: the kubelet's client follows http and https URLs only (`unsupported protocol scheme`)"
            ));
        }
        split_path(rest).0
    } else if let Some(rest) = location.strip_prefix("//") {
        split_path(rest).0
    } else {
        return Ok(());
    };
    let (host, port) = split_authority(authority);
    let port_written = authority.len() > host.len() + 2 * usize::from(authority.starts_with('['));
    if port_written && port.is_none_or(|p| p == 0) {
        return Err(format!("{written:?}: the port must be a number between 1 and 65535"));
    }
    Ok(())
}

/// What one request got from the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply<S> {
    /// Nothing listens on the port: RST.
    Refused,
    /// `server` (the process that bound the port) answered.
    Answered(S, HttpResponse),
}

/// How `Client.Do` ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Got<'a> {
    /// The last response: a 3xx when the redirect was not followed.
    Response { status: u16 },
    /// The connection to `url` was refused.
    Refused { url: Url<'a> },
    /// The client's timeout passed while awaiting `url`'s headers.
    Timeout { url: Url<'a> },
    /// `RedirectChecker` refused to send an 11th request to `location`.
    TooManyRedirects { location: Arc<str> },
}

impl Got<'_> {
    /// The `*url.Error` text `Do` returns, for the errors.
    pub fn error(&self) -> Option<String> {
        Some(match self {
            Got::Response { .. } => return None,
            Got::Refused { url } => {
                format!(
                    "Get {:?}: dial tcp {}:{}: connect: connection refused",
                    url.to_string(),
                    url.host(),
                    url.port()
                )
            }
            Got::Timeout { url } => format!(
                "Get {:?}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                url.to_string()
            ),
            // `CheckRedirect`'s error carries the raw `Location` (`ue.URL = loc`).
            Got::TooManyRedirects { location } => format!("Get {location:?}: stopped after 10 redirects"),
        })
    }
}

/// One request of a chain that a server answered: who, and from when to when
/// (since the first request was sent); a death then cuts the answer short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop<'u, 'a, S> {
    pub server: S,
    pub from: SimDuration,
    pub to: SimDuration,
    pub url: &'u Url<'a>,
}

/// The outcome of `Do`: how it ended and how long it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched<'a> {
    pub got: Got<'a>,
    pub took: SimDuration,
}

/// `Client.Do(GET url)` with `RedirectChecker(false)` and `timeout` (`None`:
/// no timeout, as for hooks). `send(url, elapsed)` is the network: what the
/// request to `url`, sent `elapsed` after the first, gets; `hop` hears of
/// each answered request.
pub fn get<'a, S>(
    url: Url<'a>,
    timeout: Option<SimDuration>,
    mut send: impl FnMut(&Url<'a>, SimDuration) -> Reply<S>,
    mut hop: impl FnMut(Hop<'_, 'a, S>),
) -> Fetched<'a> {
    let first = url.clone();
    let mut elapsed = SimDuration::ZERO;
    let mut url = url;
    let mut sent = 0;
    loop {
        sent += 1;
        let (server, HttpResponse { status, latency, location }) = match send(&url, elapsed) {
            Reply::Refused => return Fetched { got: Got::Refused { url }, took: elapsed },
            Reply::Answered(server, response) => (server, response),
        };
        if let Some(t) = timeout.filter(|t| elapsed + latency >= *t) {
            hop(Hop { server, from: elapsed, to: t, url: &url });
            return Fetched { got: Got::Timeout { url }, took: t };
        }
        hop(Hop { server, from: elapsed, to: elapsed + latency, url: &url });
        elapsed = elapsed + latency;
        // `redirectBehavior`: Go follows a `Location` on these statuses only.
        let location = location.filter(|_| REDIRECT_STATUSES.contains(&status)).map(|l| url.location(&l));
        let next = location.as_deref().map(|l| url.resolve(l)).filter(|n| n.host() == first.host());
        let (Some(next), Some(location)) = (next, location) else {
            return Fetched { got: Got::Response { status }, took: elapsed };
        };
        if sent >= MAX_REQUESTS {
            return Fetched { got: Got::TooManyRedirects { location }, took: elapsed };
        }
        url = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IP: &str = "10.244.0.2";
    const MS: fn(u64) -> SimDuration = SimDuration::from_millis;

    fn base() -> Url<'static> {
        Url::new("HTTP", IP, 8080, "/a/b?x=1")
    }

    #[test]
    fn locations_resolve_as_go_parses_them() {
        let b = base();
        assert_eq!(b.to_string(), "http://10.244.0.2:8080/a/b?x=1");
        let r = |l: &str| b.resolve(l).to_string();
        assert_eq!(r("/healthz"), "http://10.244.0.2:8080/healthz");
        assert_eq!(r("c"), "http://10.244.0.2:8080/a/c");
        assert_eq!(r("../c/./d"), "http://10.244.0.2:8080/c/d");
        assert_eq!(r("?y=2"), "http://10.244.0.2:8080/a/b?y=2");
        assert_eq!(r("http://10.244.0.2:9090/x"), "http://10.244.0.2:9090/x");
        assert_eq!(r("HTTPS://login.example.com"), "https://login.example.com");
        assert_eq!(r("//10.244.0.2/z/"), "http://10.244.0.2/z/");
        let other = b.resolve("https://login.example.com/sso");
        assert_eq!((other.host(), other.port()), ("login.example.com", 443));
        let same = b.resolve("http://10.244.0.2/z");
        assert_eq!((same.host(), same.port()), (IP, 80));
        assert_eq!(b.resolve("http://[fd00::1]:81/").host(), "fd00::1");
        assert_eq!(b.resolve("http://[fd00::1]:81/").port(), 81);
    }

    #[test]
    fn locations_are_checked() {
        assert!(check_location("/login").is_ok());
        assert!(check_location("next").is_ok());
        assert!(check_location("https://example.com:8443/x").is_ok());
        assert!(check_location("http://[fd00::1]/").is_ok());
        assert!(check_location("").is_err());
        assert!(check_location("/a b").is_err());
        assert!(check_location("/a#top").is_err());
        assert!(check_location("ftp://example.com/").unwrap_err().contains("unsupported protocol scheme"));
        assert!(check_location("mailto:a@example.com").is_err());
        // Go parses an empty host: another host than the pod IP, not followed.
        assert!(check_location("http:///x").is_ok());
        assert!(check_location("//:9090/x").is_ok());
        assert!(check_location("http://{host}:9090/x").is_ok());
        assert!(check_location("//{host}/x").is_ok());
        assert!(check_location("http://{host}:0/x").unwrap_err().contains("between 1 and 65535"));
        assert!(check_location("http://example.com:0/").unwrap_err().contains("between 1 and 65535"));
        assert!(check_location("http://example.com:http/").is_err());
    }

    /// A server where each path answers (status, latency in ms, location).
    fn server<'s>(
        routes: &'s [(&'s str, u16, u64, Option<&'s str>)],
    ) -> impl FnMut(&Url<'static>, SimDuration) -> Reply<&'s str> + 's {
        move |url, _| match routes.iter().find(|r| r.0 == url.path && url.port() == 8080) {
            Some(&(path, status, ms, location)) => {
                Reply::Answered(path, HttpResponse { status, latency: MS(ms), location: location.map(Arc::from) })
            }
            None => Reply::Refused,
        }
    }

    /// `get` with the routes, and the answered requests' (server, from, to).
    fn fetch<'s>(
        url: Url<'static>,
        timeout: Option<SimDuration>,
        routes: &'s [(&'s str, u16, u64, Option<&'s str>)],
    ) -> (Fetched<'static>, Vec<(&'s str, SimDuration, SimDuration)>) {
        let mut hops = Vec::new();
        let f = get(url, timeout, server(routes), |h| hops.push((h.server, h.from, h.to)));
        (f, hops)
    }

    #[test]
    fn same_host_redirects_are_followed_and_the_last_status_decides() {
        let routes = [("/a/b?x=1", 302, 5, Some("/ready")), ("/ready", 200, 7, None)];
        let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
        assert_eq!((f.got, f.took), (Got::Response { status: 200 }, MS(12)));
        assert_eq!(hops, vec![("/a/b?x=1", MS(0), MS(5)), ("/ready", MS(5), MS(12))]);
    }

    #[test]
    fn a_location_on_a_status_go_does_not_follow_is_ignored() {
        for status in [300, 304, 305] {
            let routes = [("/a/b?x=1", status, 3, Some("/ready")), ("/ready", 200, 0, None)];
            let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
            assert_eq!((f.got, f.took, hops.len()), (Got::Response { status }, MS(3), 1));
        }
    }

    #[test]
    fn a_redirect_to_another_host_is_the_response() {
        let routes = [("/a/b?x=1", 301, 3, Some("http://localhost:8080/ready")), ("/ready", 200, 0, None)];
        let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
        assert_eq!((f.got, f.took, hops.len()), (Got::Response { status: 301 }, MS(3), 1));
    }

    #[test]
    fn host_stands_for_the_host_the_request_went_to() {
        let b = base();
        let written: Arc<str> = Arc::from("http://{host}:9090/health");
        assert_eq!(&*b.location(&written), "http://10.244.0.2:9090/health");
        let next = b.resolve(&b.location(&written));
        assert_eq!((next.host(), next.port()), (IP, 9090));
        let v6 = Url::new("http", "fd00::2", 8080, "/");
        assert_eq!(&*v6.location(&written), "http://[fd00::2]:9090/health");
        assert_eq!(v6.resolve(&v6.location(&written)).host(), "fd00::2");
        // An empty host is not the pod IP: `RedirectChecker` stops there.
        let empty = b.resolve("//:9090/x");
        assert_eq!((empty.host(), empty.port()), ("", 9090));
    }

    #[test]
    fn a_host_placeholder_redirect_is_followed_and_an_empty_host_is_not() {
        let routes = [("/a/b?x=1", 302, 5, Some("http://{host}:8080/ready")), ("/ready", 200, 7, None)];
        let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
        assert_eq!((f.got, f.took, hops.len()), (Got::Response { status: 200 }, MS(12), 2));
        let routes = [("/a/b?x=1", 302, 5, Some("//:8080/ready")), ("/ready", 200, 7, None)];
        let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
        assert_eq!((f.got, f.took, hops.len()), (Got::Response { status: 302 }, MS(5), 1));
    }

    #[test]
    fn the_tenth_redirect_is_not_followed() {
        // /r0 → /r1 → … → /r10, each 1 ms; /r10 answers 200.
        let chain: Vec<(String, Option<String>)> =
            (0..11).map(|i| (format!("/r{i}"), (i < 10).then(|| format!("/r{}", i + 1)))).collect();
        let routes: Vec<(&str, u16, u64, Option<&str>)> =
            chain.iter().map(|(p, l)| (p.as_str(), if l.is_some() { 302 } else { 200 }, 1, l.as_deref())).collect();
        // From /r1: nine redirects, ten requests, the last a 200.
        let (f, hops) = fetch(Url::new("http", IP, 8080, "/r1"), Some(MS(1000)), &routes);
        assert_eq!((f.got, hops.len()), (Got::Response { status: 200 }, 10));
        // From /r0: ten requests all redirect; the 11th is not sent.
        let (f, hops) = fetch(Url::new("http", IP, 8080, "/r0"), Some(MS(1000)), &routes);
        assert_eq!(f.got, Got::TooManyRedirects { location: "/r10".into() });
        assert_eq!((f.took, hops.len()), (MS(10), 10));
        assert_eq!(f.got.error().unwrap(), "Get \"/r10\": stopped after 10 redirects");
    }

    #[test]
    fn the_timeout_covers_the_whole_chain() {
        let routes = [("/a/b?x=1", 302, 600, Some("/ready")), ("/ready", 200, 600, None)];
        let (f, hops) = fetch(base(), Some(MS(1000)), &routes);
        let url = Url::new("http", IP, 8080, "/ready");
        assert_eq!((f.got.clone(), f.took), (Got::Timeout { url }, MS(1000)));
        assert_eq!(hops[1], ("/ready", MS(600), MS(1000)));
        assert_eq!(
            f.got.error().unwrap(),
            "Get \"http://10.244.0.2:8080/ready\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
        );
        let (hook, _) = fetch(base(), None, &routes);
        assert_eq!((hook.got, hook.took), (Got::Response { status: 200 }, MS(1200)));
    }

    #[test]
    fn a_refused_hop_names_its_own_url() {
        let routes = [("/a/b?x=1", 307, 4, Some("http://10.244.0.2:9090/other"))];
        let (f, _) = fetch(base(), Some(MS(1000)), &routes);
        assert_eq!(f.took, MS(4));
        assert_eq!(
            f.got.error().unwrap(),
            "Get \"http://10.244.0.2:9090/other\": dial tcp 10.244.0.2:9090: connect: connection refused"
        );
    }
}
