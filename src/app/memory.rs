//! What a process holds in memory over time (`memory:` in a behaviour file):
//! its resident set, stretch by stretch since the process started, as the
//! container's memory cgroup is charged for it.
//!
//! ```yaml
//! memory: [{until: 30s, rss: 50Mi}, {rss: 300Mi}]
//! ```

use super::process::untils;
use super::schema::{Moment, Stretch};
use crate::api::quantity::Quantity;
use crate::dist::Dist;
use crate::rng::{Label, Stream};
use crate::time::SimDuration;
use serde::Deserialize;
use std::fmt;

/// One stretch of a memory schedule: `{until: 30s, rss: 50Mi}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a stretch such as `{until: 30s, rss: 50Mi}`")]
pub struct MemoryPhase {
    /// End of this stretch, since process start; absent on the last one.
    #[serde(default)]
    pub until: Option<Dist>,
    pub rss: Rss,
}

impl Stretch for MemoryPhase {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
    }
    /// Memory follows time alone: SIGTERM or a preStop hook frees nothing by itself.
    fn moment(&self) -> Moment {
        Moment::Timed
    }
}

/// A resident set size: a Kubernetes quantity (`300Mi`, `1Gi`, `500M`, a
/// number of bytes), read by apimachinery's `ParseQuantity`; not negative.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rss(pub Quantity);

impl Rss {
    fn parse(text: &str) -> Result<Rss, String> {
        match Quantity::parse(text) {
            Ok(q) if q.is_negative() => Err(format!("{text}: a resident set size is not negative")),
            Ok(q) => Ok(Rss(q)),
            Err(e) => Err(format!("{text:?}: {e} (a memory size is a quantity such as 300Mi or 1Gi)")),
        }
    }
}

impl<'de> Deserialize<'de> for Rss {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Rss;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a memory size such as 300Mi, 1Gi or 500M")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Rss, E> {
                Rss::parse(v).map_err(E::custom)
            }
            // A plain number is bytes, as in a manifest's `memory: 268435456`.
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rss, E> {
                Rss::parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rss, E> {
                Rss::parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Rss, E> {
                Rss::parse(&v.to_string()).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A memory schedule with its random boundaries drawn: each stretch's start
/// since process start, with its resident set size, in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryUse(Vec<(SimDuration, Quantity)>);

impl MemoryUse {
    /// `label`: each boundary's draw.
    pub fn draw(phases: &[MemoryPhase], rng: &mut Stream, label: &dyn Fn() -> Label) -> MemoryUse {
        let starts = untils(phases.iter().map(|p| p.until.as_ref()), rng, label);
        let starts = std::iter::once(SimDuration::ZERO).chain(starts);
        MemoryUse(starts.zip(phases.iter().map(|p| p.rss.0)).collect())
    }

    /// Each stretch's start and resident set size.
    pub fn stretches(&self) -> &[(SimDuration, Quantity)] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::What;

    /// Stretches written as JSON, the form behaviour files are read in.
    fn phases(json: &str) -> Result<Vec<MemoryPhase>, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn stretches_start_where_the_previous_ends() {
        let p = phases(r#"[{"until": "20s", "rss": "100Mi"}, {"until": "40s", "rss": "200Mi"}, {"rss": "300Mi"}]"#)
            .unwrap();
        let m = MemoryUse::draw(&p, &mut Stream::new(1, "t"), &|| Label::new(What::MemoryChange, "t"));
        let q = |s: &str| Quantity::parse(s).unwrap();
        let s = SimDuration::from_secs;
        assert_eq!(m.stretches(), &[(s(0), q("100Mi")), (s(20), q("200Mi")), (s(40), q("300Mi"))]);
    }

    #[test]
    fn sizes_are_quantities_and_not_negative() {
        let rss = |v: &str| phases(&format!(r#"[{{"rss": {v}}}]"#)).map(|p| p[0].rss.0.value());
        assert_eq!(rss(r#""256Mi""#), Ok(256 << 20));
        assert_eq!(rss("268435456"), Ok(256 << 20));
        assert_eq!(rss(r#""1G""#), Ok(1_000_000_000));
        let e = rss(r#""300MB""#).unwrap_err();
        assert!(e.starts_with("\"300MB\": quantities must match the regular expression"), "{e}");
        assert!(e.contains("(a memory size is a quantity such as 300Mi or 1Gi)"), "{e}");
        assert!(rss(r#""1K""#).unwrap_err().contains("unable to parse quantity's suffix"));
        assert!(rss(r#""-1Mi""#).unwrap_err().starts_with("-1Mi: a resident set size is not negative"));
        assert!(rss("-5").unwrap_err().starts_with("-5: a resident set size is not negative"));
        let e = phases(r#"[{"rss": "1Mi", "after_sigterm": true}]"#).unwrap_err();
        assert!(e.contains("unknown field `after_sigterm`, expected `until` or `rss`"), "{e}");
    }
}
