//! Times at their true precision: every time is an interval.
//!
//! A Kubernetes timestamp (metav1.Time) is whole seconds: `09:19:41Z` means
//! some instant in [41 s, 42 s). kubectl's ages are coarser: `10m` means
//! [10 min, 11 min), `2m17s` means [137 s, 138 s).

/// An interval of milliseconds, `lo` included, `hi` excluded.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub lo: i64,
    pub hi: i64,
}

impl Span {
    pub fn exact(ms: i64) -> Span {
        Span { lo: ms, hi: ms + 1 }
    }
    /// A metav1.Time: the whole second it names.
    pub fn second(unix_s: i64) -> Span {
        Span { lo: unix_s * 1000, hi: unix_s * 1000 + 1000 }
    }
    /// Certainly at or after `other` (every point of self ≥ every point of other).
    pub fn surely_after(&self, other: &Span) -> bool {
        self.lo >= other.hi - 1
    }
    /// The smallest and largest possible `self − other`, in ms.
    pub fn minus(&self, other: &Span) -> (i64, i64) {
        (self.lo - (other.hi - 1), (self.hi - 1) - other.lo)
    }
    pub fn shift(&self, by: &Span) -> Span {
        Span { lo: self.lo + by.lo, hi: self.hi + by.hi - 1 }
    }
    /// Every possible `self − other`, as an interval: the instants are real
    /// times in [lo, hi), so the difference lies strictly between
    /// `self.lo − other.hi` and `self.hi − other.lo`, and comes as close to
    /// either as one likes (`09:19:45Z − 09:19:41Z` is any real in (3 s, 5 s)).
    pub fn difference(&self, other: &Span) -> Span {
        Span { lo: self.lo - other.hi, hi: self.hi - other.lo }
    }
    /// The instants both allow, if any.
    pub fn intersect(&self, other: &Span) -> Option<Span> {
        let s = Span { lo: self.lo.max(other.lo), hi: self.hi.min(other.hi) };
        (s.lo < s.hi).then_some(s)
    }
}

/// When something was observed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum When {
    #[default]
    Unknown,
    /// Milliseconds since the Unix epoch.
    At(Span),
}

/// Parses kubectl's human durations (`HumanDuration`): `0s`, `45s`, `2m17s`,
/// `10m`, `3h4m`, `5h`, `3d4h`, `12d`, `2y10d`, `<invalid>` (None). The result
/// is the interval of real durations that print so.
pub fn human_duration(text: &str) -> Option<Span> {
    let t = text.trim();
    if t == "<invalid>" || t.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut last_unit = 0i64;
    let mut num = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            num.push(c);
            continue;
        }
        let unit: i64 = match c {
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            'y' => 365 * 86_400_000,
            _ => return None,
        };
        let n: i64 = num.parse().ok()?;
        num.clear();
        total = total.checked_add(n.checked_mul(unit)?)?;
        last_unit = unit;
    }
    if !num.is_empty() || last_unit == 0 {
        return None;
    }
    // The smallest unit printed is truncated: the real value is up to one unit more.
    Some(Span { lo: total, hi: total + last_unit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_are_intervals() {
        assert_eq!(human_duration("2m17s"), Some(Span { lo: 137_000, hi: 138_000 }));
        assert_eq!(human_duration("10m"), Some(Span { lo: 600_000, hi: 660_000 }));
        assert_eq!(human_duration("0s"), Some(Span { lo: 0, hi: 1000 }));
        assert_eq!(human_duration("<invalid>"), None);
        assert_eq!(human_duration("12"), None);
        assert_eq!(human_duration("3x"), None);
    }

    #[test]
    fn interval_arithmetic() {
        let a = Span::second(10);
        let b = Span::second(20);
        assert_eq!(b.minus(&a), (9_001, 10_999));
        assert_eq!(b.difference(&a), Span { lo: 9_000, hi: 11_000 });
        assert!(b.surely_after(&a));
        assert_eq!(a.intersect(&Span { lo: 10_500, hi: 20_000 }), Some(Span { lo: 10_500, hi: 11_000 }));
        assert_eq!(a.intersect(&b), None);
    }
}
