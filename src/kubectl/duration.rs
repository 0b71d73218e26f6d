//! `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration): kubectl's
//! AGE and "(… ago)" text, with about two significant figures.

/// `HumanDuration` of `ms` milliseconds.
pub fn human_duration(ms: i64) -> String {
    let seconds = ms / 1000;
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn matches_apimachinery() {
        let s = |secs: i64| human_duration(secs * 1000);
        assert_eq!(human_duration(-1500), "0s");
        assert_eq!(human_duration(-2500), "<invalid>");
        assert_eq!(s(0), "0s");
        assert_eq!(s(119), "119s");
        assert_eq!(s(120), "2m");
        assert_eq!(s(137), "2m17s");
        assert_eq!(s(599), "9m59s");
        assert_eq!(s(600), "10m");
        assert_eq!(s(3 * 3600 - 1), "179m");
        assert_eq!(s(3 * 3600 + 60), "3h1m");
        assert_eq!(s(8 * 3600), "8h");
        assert_eq!(s(50 * 3600), "2d2h");
        assert_eq!(s(10 * 86400), "10d");
        assert_eq!(s(3 * 365 * 86400 + 5 * 86400), "3y5d");
    }
}
