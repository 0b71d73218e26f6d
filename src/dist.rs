//! Durations that may be random: `2s`, `uniform(1s, 3s)`, `normal(2s, 500ms)`,
//! `lognormal(2s, 1s)`. Every draw is clamped at zero and rounded to the
//! millisecond grid, and uses `libm` so results are identical on every machine.

use crate::rng::{Label, Stream};
use crate::time::{SimDuration, parse_duration};
use std::fmt;

/// A duration distribution, as written in behaviour files and cluster profiles.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Fixed(SimDuration),
    /// Uniform between two bounds, inclusive of the lower.
    Uniform(SimDuration, SimDuration),
    /// Normal with mean and standard deviation, clamped at 0.
    Normal {
        mean: SimDuration,
        sd: SimDuration,
    },
    /// Log-normal with the given mean and standard deviation (moment-matched).
    LogNormal {
        mean: SimDuration,
        sd: SimDuration,
    },
}

impl Dist {
    pub const ZERO: Dist = Dist::Fixed(SimDuration::ZERO);

    pub const fn fixed_ms(ms: u64) -> Dist {
        Dist::Fixed(SimDuration::from_millis(ms))
    }

    /// Parses a duration or one of `uniform(a, b)`, `normal(mean, sd)`, `lognormal(mean, sd)`.
    pub fn parse(text: &str) -> Result<Dist, String> {
        let s = text.trim();
        let Some(open) = s.find('(') else {
            return parse_duration(s).map(Dist::Fixed);
        };
        let name = s[..open].trim();
        let inner = s[open + 1..].strip_suffix(')').ok_or_else(|| {
            format!("{s:?}: missing closing parenthesis (inside {{…}} quote it: \"uniform(1s, 2s)\")")
        })?;
        let args: Vec<&str> = inner.split(',').map(str::trim).collect();
        if args.len() != 2 {
            return Err(format!("{s:?}: {name} takes two durations"));
        }
        let a = parse_duration(args[0])?;
        let b = parse_duration(args[1])?;
        match name {
            "uniform" if a <= b => Ok(Dist::Uniform(a, b)),
            "uniform" => Err(format!("{s:?}: the lower bound is above the upper bound")),
            "normal" => Ok(Dist::Normal { mean: a, sd: b }),
            "lognormal" if a > SimDuration::ZERO => Ok(Dist::LogNormal { mean: a, sd: b }),
            "lognormal" => Err(format!("{s:?}: a log-normal mean must be positive")),
            _ => Err(format!("{s:?}: unknown distribution {name:?} (use uniform, normal or lognormal)")),
        }
    }

    /// The value a shrunk counterexample pins a draw to: the fixed value, the
    /// middle of a uniform range, the mean of a normal or log-normal.
    pub fn nominal(&self) -> SimDuration {
        match *self {
            Dist::Fixed(d) => d,
            Dist::Uniform(lo, hi) => SimDuration::from_millis((lo.as_millis() + hi.as_millis()) / 2),
            Dist::Normal { mean, .. } | Dist::LogNormal { mean, .. } => mean,
        }
    }

    /// Draws one duration. A fixed value draws nothing from the stream.
    /// `label` names the draw for `verify`'s shrinking ([`Label`]); it is
    /// made only then.
    pub fn sample(&self, rng: &mut Stream, label: impl FnOnce() -> Label) -> SimDuration {
        let ms = match *self {
            Dist::Fixed(d) => return d,
            Dist::Uniform(lo, hi) => {
                let (lo, hi) = (lo.as_millis() as f64, hi.as_millis() as f64);
                lo + (hi - lo) * rng.unit()
            }
            Dist::Normal { mean, sd } => mean.as_millis() as f64 + sd.as_millis() as f64 * standard_normal(rng),
            Dist::LogNormal { mean, sd } => {
                let m = mean.as_millis() as f64;
                let v = sd.as_millis() as f64;
                let sigma2 = libm::log1p((v * v) / (m * m));
                let mu = libm::log(m) - sigma2 / 2.0;
                libm::exp(mu + libm::sqrt(sigma2) * standard_normal(rng))
            }
        };
        let drawn = SimDuration::from_millis(if ms.is_finite() && ms > 0.0 { libm::round(ms) as u64 } else { 0 });
        rng.timing(drawn, self.nominal(), || self.to_string(), label)
    }
}

/// Box–Muller with `libm`, one normal per call (the pair's twin is discarded
/// so each draw consumes exactly two words).
fn standard_normal(rng: &mut Stream) -> f64 {
    let u1 = 1.0 - rng.unit(); // (0, 1]
    let u2 = rng.unit();
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Fixed(d) => write!(f, "{d}"),
            Dist::Uniform(a, b) => write!(f, "uniform({a}, {b})"),
            Dist::Normal { mean, sd } => write!(f, "normal({mean}, {sd})"),
            Dist::LogNormal { mean, sd } => write!(f, "lognormal({mean}, {sd})"),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Dist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Dist;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as 2s, 250ms, uniform(1s, 3s), normal(2s, 500ms) or lognormal(2s, 1s)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Dist, E> {
                Dist::parse(v).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Dist, E> {
                if v == 0 {
                    Ok(Dist::ZERO)
                } else {
                    Err(E::custom(format!("{v}: a duration needs a unit (e.g. {v}s)")))
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Dist, E> {
                Err(E::custom(format!("{v}: a duration needs a unit and must not be negative")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Dist, E> {
                Err(E::custom(format!("{v}: a duration needs a unit (e.g. {v}s)")))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::What;

    fn t() -> Label {
        Label::new(What::Listen, "t")
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(Dist::parse("2s"), Ok(Dist::Fixed(SimDuration::from_secs(2))));
        assert_eq!(
            Dist::parse("uniform(1s, 3s)"),
            Ok(Dist::Uniform(SimDuration::from_secs(1), SimDuration::from_secs(3)))
        );
        assert!(Dist::parse("uniform(3s, 1s)").is_err());
        assert!(Dist::parse("gamma(1s, 2s)").is_err());
        assert!(Dist::parse("normal(1s)").is_err());
        assert!(Dist::parse("-2s").is_err());
    }

    #[test]
    fn draws_stay_in_range_and_repeat() {
        let u = Dist::parse("uniform(1s, 3s)").unwrap();
        let n = Dist::parse("normal(100ms, 1s)").unwrap();
        let l = Dist::parse("lognormal(2s, 1s)").unwrap();
        let mut r1 = Stream::new(1, "t");
        let mut r2 = Stream::new(1, "t");
        for _ in 0..1000 {
            let x = u.sample(&mut r1, t);
            assert!(x >= SimDuration::from_secs(1) && x <= SimDuration::from_secs(3));
            let _ = n.sample(&mut r1, t); // clamped, never panics
            let _ = l.sample(&mut r1, t);
        }
        for _ in 0..1000 {
            let _ = u.sample(&mut r2, t);
            let _ = n.sample(&mut r2, t);
            let _ = l.sample(&mut r2, t);
        }
        assert_eq!(u.sample(&mut r1, t), u.sample(&mut r2, t));
    }

    #[test]
    fn lognormal_mean_is_close_to_the_requested_mean() {
        let l = Dist::parse("lognormal(2s, 1s)").unwrap();
        let mut r = Stream::new(3, "t");
        let n = 20_000;
        let total: u64 = (0..n).map(|_| l.sample(&mut r, t).as_millis()).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 2000.0).abs() < 50.0, "mean {mean}");
    }
}
