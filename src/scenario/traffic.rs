//! Client traffic: who sends HTTP requests to what, when, and how long they
//! wait. Written in the scenario file or as `--traffic` flags; names are
//! resolved against the manifests and the profile when the run is prepared.
//!
//! ```yaml
//! traffic:
//!   - name: curl                    # default client-1, client-2, …
//!     from: node/node-1             # or pod/NAME; default: the first node
//!     to: service/web:http          # or service/web (one port), pod/web:8080
//!     path: /ready                  # default /
//!     start: 2s                     # default 0s
//!     every: 2s                     # or rate: 5/s, or at: [1s, 4s]; else one request
//!     count: 15                     # default: until the run ends
//!     timeout: 1s                   # default 1s
//! ```

use crate::dist::Dist;
use crate::time::{SimDuration, SimTime, parse_duration};
use serde::Deserialize;

/// What a client sends to, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum To {
    /// `service/NAME[:PORT]`: PORT is a port name or number.
    Service { name: String, port: Option<String> },
    /// `pod/NAME:PORT`: PORT is a number or a container port name.
    Pod { name: String, port: String },
}

/// Where a client runs, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum From {
    Node(String),
    Pod(String),
}

/// When, unresolved: fixed times, or a start and random gaps.
#[derive(Clone, Debug, PartialEq)]
pub enum When {
    At(Vec<SimTime>),
    Every { start: SimTime, every: Dist, count: Option<u32> },
}

/// One client, as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    pub name: Option<String>,
    pub from: Option<From>,
    pub to: To,
    pub path: String,
    pub when: When,
    pub timeout: SimDuration,
}

/// A client waits this long when the scenario does not say.
pub const DEFAULT_TIMEOUT: SimDuration = SimDuration::from_secs(1);

/// `service/web:80`, `service/web`, `pod/web:8080`.
fn parse_to(s: &str) -> Result<To, String> {
    let bad = || format!("{s:?}: a target is service/NAME[:PORT] or pod/NAME:PORT");
    let (kind, rest) = s.split_once('/').ok_or_else(bad)?;
    let (name, port) = match rest.split_once(':') {
        Some((n, p)) if !p.is_empty() => (n, Some(p.to_string())),
        Some(_) => return Err(bad()),
        None => (rest, None),
    };
    if name.is_empty() || name.contains('/') {
        return Err(bad());
    }
    match (kind, port) {
        ("service" | "services" | "svc", port) => Ok(To::Service { name: name.into(), port }),
        ("pod" | "pods", Some(port)) => Ok(To::Pod { name: name.into(), port }),
        ("pod" | "pods", None) => Err(format!("{s:?}: a pod target needs a port: pod/{name}:PORT")),
        _ => Err(bad()),
    }
}

fn parse_from(s: &str) -> Result<From, String> {
    match s.split_once('/') {
        Some(("node" | "nodes", n)) if !n.is_empty() => Ok(From::Node(n.into())),
        Some(("pod" | "pods", n)) if !n.is_empty() => Ok(From::Pod(n.into())),
        _ => Err(format!("{s:?}: a client runs on node/NAME or in pod/NAME")),
    }
}

/// `5/s`, `30/m`: a fixed gap.
fn parse_rate(s: &str) -> Result<Dist, String> {
    let bad = || format!("{s:?}: a rate is N/s or N/m, e.g. 5/s");
    let (n, unit) = s.split_once('/').ok_or_else(bad)?;
    let n: f64 = n.trim().parse().map_err(|_| bad())?;
    let per_ms = match unit.trim() {
        "s" => 1000.0,
        "m" => 60_000.0,
        _ => return Err(bad()),
    };
    if n.is_nan() || n <= 0.0 {
        return Err(format!("{s:?}: a rate is above zero"));
    }
    if per_ms / n < 1.0 {
        return Err(format!("{s:?}: at most one request per millisecond"));
    }
    Ok(Dist::Fixed(SimDuration::from_millis((per_ms / n).round() as u64)))
}

fn path_ok(p: &str) -> Result<String, String> {
    match p.starts_with('/') {
        true => Ok(p.to_string()),
        false => Err(format!("{p:?}: a path starts with /")),
    }
}

/// One entry of a scenario's `traffic:` list.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficEntry {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    from: Option<String>,
    to: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    start: Option<Dist>,
    #[serde(default)]
    every: Option<Dist>,
    #[serde(default)]
    rate: Option<String>,
    #[serde(default)]
    at: Option<Vec<Dist>>,
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    timeout: Option<Dist>,
}

fn fixed(d: &Dist, field: &'static str) -> Result<SimDuration, (&'static str, String)> {
    match d {
        Dist::Fixed(v) => Ok(*v),
        _ => Err((field, "must be a fixed duration".into())),
    }
}

impl TrafficEntry {
    /// The client, or (field relative to the entry, message).
    pub fn resolve(&self) -> Result<Traffic, (&'static str, String)> {
        let to = parse_to(&self.to).map_err(|e| ("to", e))?;
        let from = self.from.as_deref().map(parse_from).transpose().map_err(|e| ("from", e))?;
        let path = path_ok(self.path.as_deref().unwrap_or("/")).map_err(|e| ("path", e))?;
        let start = SimTime::ZERO + self.start.as_ref().map(|d| fixed(d, "start")).transpose()?.unwrap_or_default();
        let gap = match (&self.every, &self.rate) {
            (Some(_), Some(_)) => return Err(("rate", "give `every` or `rate`, not both".into())),
            (Some(e), None) => Some(e.clone()),
            (None, Some(r)) => Some(parse_rate(r).map_err(|e| ("rate", e))?),
            (None, None) => None,
        };
        let when = match (&self.at, gap) {
            (Some(_), Some(_)) => return Err(("at", "give `at`, or `every`/`rate`, not both".into())),
            (Some(_), None) if self.start.is_some() || self.count.is_some() => {
                return Err(("at", "`at` lists every time: it takes no `start` or `count`".into()));
            }
            (Some(at), None) => {
                let mut times =
                    at.iter().map(|d| fixed(d, "at").map(|t| SimTime::ZERO + t)).collect::<Result<Vec<_>, _>>()?;
                times.sort();
                When::At(times)
            }
            (None, Some(every)) => When::Every { start, every, count: self.count },
            (None, None) if self.count.is_some_and(|c| c != 1) => {
                return Err(("count", "more than one request needs `every` or `rate`".into()));
            }
            (None, None) => When::At(vec![start]),
        };
        let timeout = self.timeout.as_ref().map(|d| fixed(d, "timeout")).transpose()?.unwrap_or(DEFAULT_TIMEOUT);
        if timeout == SimDuration::ZERO {
            return Err(("timeout", "must be more than 0s".into()));
        }
        Ok(Traffic { name: self.name.clone(), from, to, path, when, timeout })
    }
}

/// `--traffic service/web:80/ready@2s,every=2s,count=15,from=node/node-1,timeout=1s,name=curl`:
/// the target, an optional path, the first request's time, then options.
pub fn parse_traffic_flag(s: &str) -> Result<Traffic, String> {
    let mut parts = split_options(s).into_iter();
    let head = parts.next().unwrap_or_default();
    let options: Vec<&str> = parts.collect();
    let (target, start) = match head.rsplit_once('@') {
        Some((t, at)) => (t, parse_duration(at)?),
        None => (head, SimDuration::ZERO),
    };
    // The path starts at the first `/` after `kind/name`.
    let kind_len = target.find('/').map_or(target.len(), |i| i + 1);
    let (to, path) = match target[kind_len..].find('/') {
        Some(i) => (&target[..kind_len + i], &target[kind_len + i..]),
        None => (target, "/"),
    };
    let mut entry = TrafficEntry {
        name: None,
        from: None,
        to: to.to_string(),
        path: Some(path.to_string()),
        start: Some(Dist::Fixed(start)),
        every: None,
        rate: None,
        at: None,
        count: None,
        timeout: None,
    };
    for o in options {
        let (k, v) = o.split_once('=').ok_or_else(|| format!("{o:?}: expected key=value"))?;
        match k {
            "every" => entry.every = Some(Dist::parse(v)?),
            "rate" => entry.rate = Some(v.to_string()),
            "count" => entry.count = Some(v.parse().map_err(|_| format!("{v:?}: count is a whole number"))?),
            "from" => entry.from = Some(v.to_string()),
            "timeout" => entry.timeout = Some(Dist::parse(v)?),
            "name" => entry.name = Some(v.to_string()),
            _ => return Err(format!("unknown option {k:?} (known: every, rate, count, from, timeout, name)")),
        }
    }
    entry.resolve().map_err(|(field, m)| if field.is_empty() { m } else { format!("{field}: {m}") })
}

/// Splits at commas outside parentheses, so `every=uniform(1s, 3s)` stays whole.
fn split_options(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut from) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let t = parse_traffic_flag("service/web:http/ready@2s,every=2s,count=15,from=node/node-2,timeout=3s").unwrap();
        assert_eq!(t.to, To::Service { name: "web".into(), port: Some("http".into()) });
        assert_eq!(t.path, "/ready");
        assert_eq!(t.from, Some(From::Node("node-2".into())));
        assert_eq!(t.timeout, SimDuration::from_secs(3));
        assert_eq!(
            t.when,
            When::Every {
                start: SimTime::ZERO + SimDuration::from_secs(2),
                every: Dist::Fixed(SimDuration::from_secs(2)),
                count: Some(15)
            }
        );
        let one = parse_traffic_flag("pod/web:8080").unwrap();
        assert_eq!((one.path.as_str(), one.when), ("/", When::At(vec![SimTime::ZERO])));
        assert!(parse_traffic_flag("pod/web").unwrap_err().contains("needs a port"));
        assert!(parse_traffic_flag("svc/web,rate=0/s").unwrap_err().contains("above zero"));
        assert!(parse_traffic_flag("svc/web,rate=2000/s").unwrap_err().contains("per millisecond"));
        assert!(parse_traffic_flag("service/web,count=3").unwrap_err().contains("every"));
        assert!(parse_traffic_flag("service/web,speed=3").unwrap_err().contains("unknown option"));
        assert!(parse_traffic_flag("node/web").unwrap_err().contains("service/NAME"));
        let random = parse_traffic_flag("svc/web,every=uniform(1s, 3s),count=2").unwrap();
        let gap = Dist::Uniform(SimDuration::from_secs(1), SimDuration::from_secs(3));
        assert_eq!(random.when, When::Every { start: SimTime::ZERO, every: gap, count: Some(2) });
    }

    #[test]
    fn rates_are_fixed_gaps() {
        assert_eq!(parse_rate("5/s").unwrap(), Dist::Fixed(SimDuration::from_millis(200)));
        assert_eq!(parse_rate("30/m").unwrap(), Dist::Fixed(SimDuration::from_secs(2)));
        assert!(parse_rate("2000/s").is_err());
    }
}
