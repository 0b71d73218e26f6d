//! Simulated time: integer milliseconds since the start of a run.
//!
//! Kubernetes itself works in whole seconds at the API (metav1.Time) and in
//! nanoseconds inside the kubelet; a millisecond grid is fine enough for every
//! delay podsim models and keeps arithmetic exact and portable.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An instant of simulated time, in milliseconds since the run started.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time, in milliseconds. Never negative.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms)
    }
    pub const fn as_millis(self) -> u64 {
        self.0
    }
    /// Whole seconds since start, truncated, as Kubernetes timestamps are.
    pub const fn whole_seconds(self) -> u64 {
        self.0 / 1000
    }
    /// Truncated to the second, as an API server stores a time.
    pub const fn floor_second(self) -> SimTime {
        SimTime(self.0 / 1000 * 1000)
    }
    /// Time elapsed since `earlier`, or zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1000)
    }
    pub const fn as_millis(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
    /// Whole seconds, truncated (as `int32(time.Since(x).Seconds())` in Go).
    pub const fn whole_seconds(self) -> u64 {
        self.0 / 1000
    }
    pub fn saturating_sub(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(other.0))
    }
    pub fn min(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.min(other.0))
    }
    pub fn max(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.max(other.0))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

/// Scaling, saturating (backoff doubling, thresholds × periods).
impl Mul<u64> for SimDuration {
    type Output = SimDuration;
    fn mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

/// An earlier instant, saturating at the start of the run.
impl Sub<SimDuration> for SimTime {
    type Output = SimTime;
    fn sub(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl Sub for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        self.since(earlier)
    }
}

/// `12.000s`: seconds with millisecond precision, as the timeline prints.
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}s", self.0 / 1000, self.0 % 1000)
    }
}

/// Go-style duration text: `10s`, `1m20s`, `250ms`, `5m0s`, as kubelet messages print it.
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", go_duration(self.0))
    }
}

/// Formats milliseconds the way Go's `time.Duration.String` does.
fn go_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let total_s = ms / 1000;
    let frac = ms % 1000;
    let secs = total_s % 60;
    let mins = (total_s / 60) % 60;
    let hours = total_s / 3600;
    let sec_text = if frac == 0 {
        format!("{secs}s")
    } else {
        let f = format!("{frac:03}");
        format!("{secs}.{}s", f.trim_end_matches('0'))
    };
    if hours > 0 {
        format!("{hours}h{mins}m{sec_text}")
    } else if mins > 0 {
        format!("{mins}m{sec_text}")
    } else {
        sec_text
    }
}

/// Parses `90s`, `5m`, `250ms`, `1m30s`, `1.5s`, `2h`, `1d2h`; a bare `0` is
/// zero. `d` is 24 h: Go's `time.ParseDuration` stops at `h`, but a sweep
/// over days of simulated time reads better as `3d` than as `72h` (durations
/// still print as Go does, hours the biggest unit: `25h0m0s`).
pub fn parse_duration(text: &str) -> Result<SimDuration, String> {
    let s = text.trim();
    if s == "0" {
        return Ok(SimDuration::ZERO);
    }
    if s.starts_with('-') {
        return Err(format!("{s:?}: must not be negative"));
    }
    if s.is_empty() {
        return Err("empty duration".to_string());
    }
    let mut total_ms: f64 = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("{s:?}: missing unit (use ms, s, m, h or d)"))?;
        if num_len == 0 {
            return Err(format!("{s:?}: expected a number before the unit"));
        }
        let value: f64 = rest[..num_len].parse().map_err(|_| format!("{s:?}: bad number {:?}", &rest[..num_len]))?;
        rest = &rest[num_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "d" => 86_400_000.0,
            // `1e30s`: an exponent is not a duration's (Go's ParseDuration refuses it too).
            other if other.starts_with(['e', 'E']) => {
                return Err(format!(
                    "{s:?}: a duration is written in plain digits with units (90s, 1m30s, 1.5h), not with an exponent"
                ));
            }
            other => return Err(format!("{s:?}: unknown unit {other:?} (use ms, s, m, h or d)")),
        };
        total_ms += value * factor;
        rest = &rest[unit_len..];
    }
    if !total_ms.is_finite() || total_ms > 1e15 {
        return Err(format!("{s:?}: too large (at most 1e15 ms, about 31,700 years)"));
    }
    Ok(SimDuration::from_millis(total_ms.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exponent_is_said_to_be_no_duration_form() {
        let e = parse_duration("1e30s").unwrap_err();
        assert!(e.contains("plain digits with units") && e.contains("not with an exponent"), "{e}");
        assert!(parse_duration("2x").unwrap_err().contains("unknown unit \"x\""));
    }

    #[test]
    fn parses_the_forms_users_write() {
        assert_eq!(parse_duration("90s"), Ok(SimDuration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Ok(SimDuration::from_secs(300)));
        assert_eq!(parse_duration("250ms"), Ok(SimDuration::from_millis(250)));
        assert_eq!(parse_duration("1m30s"), Ok(SimDuration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(SimDuration::from_millis(1500)));
        assert_eq!(parse_duration("0"), Ok(SimDuration::ZERO));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn days_are_24_hours() {
        assert_eq!(parse_duration("1d"), Ok(SimDuration::from_secs(86_400)));
        assert_eq!(parse_duration("1d2h"), Ok(SimDuration::from_secs(93_600)));
        assert_eq!(parse_duration("0.5d"), Ok(SimDuration::from_secs(43_200)));
        assert_eq!(parse_duration("2d30m"), Ok(SimDuration::from_secs(2 * 86_400 + 1800)));
        // Units may come in any order and repeat, as in Go; `d` is one more.
        assert_eq!(parse_duration("1h1d"), parse_duration("25h"));
        let unknown = parse_duration("1w").unwrap_err();
        assert!(unknown.contains("(use ms, s, m, h or d)"), "{unknown}");
        assert!(parse_duration("1").unwrap_err().contains("missing unit (use ms, s, m, h or d)"));
        assert!(parse_duration("1dd").is_err());
    }

    #[test]
    fn prints_like_go() {
        assert_eq!(SimDuration::from_secs(10).to_string(), "10s");
        assert_eq!(SimDuration::from_secs(80).to_string(), "1m20s");
        assert_eq!(SimDuration::from_secs(300).to_string(), "5m0s");
        assert_eq!(SimDuration::from_millis(1500).to_string(), "1.5s");
        assert_eq!(SimDuration::from_millis(250).to_string(), "250ms");
        assert_eq!(SimTime::from_millis(12_000).to_string(), "12.000s");
        // Days are read, never printed: Go's biggest unit is the hour.
        assert_eq!(SimDuration::from_secs(90_000).to_string(), "25h0m0s");
        assert_eq!(parse_duration("1d").map(|d| d.to_string()), Ok("24h0m0s".to_string()));
    }
}
