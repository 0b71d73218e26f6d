//! A CronJob's schedule as the controller parses it (`cron.ParseStandard`
//! of github.com/robfig/cron/v3): five fields (minute, hour, day of month,
//! month, day of week) with `*`, `?`, lists, ranges, steps and month and
//! day names, or a descriptor (`@hourly`, `@every 90s`…). Times are Unix
//! seconds in UTC: podsim models no other time zone.

/// A parsed schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// `SpecSchedule`: a bit set per field; `dom_star`/`dow_star` say the
    /// field was `*` or `?`, which changes how the two day fields combine.
    Spec { minute: u64, hour: u64, dom: u64, month: u64, dow: u64, dom_star: bool, dow_star: bool },
    /// `ConstantDelaySchedule` (`@every D`): every D seconds, at least 1.
    Every(u64),
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl Schedule {
    /// `ParseStandard`; the error in the library's words.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty spec string".into());
        }
        if let Some(descriptor) = text.strip_prefix('@') {
            return descriptor_schedule(descriptor);
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
        }
        let (minute, _) = field(fields[0], 0, 59, &[])?;
        let (hour, _) = field(fields[1], 0, 23, &[])?;
        let (dom, dom_star) = field(fields[2], 1, 31, &[])?;
        let (month, _) = field(fields[3], 1, 12, &MONTHS)?;
        let (dow, dow_star) = field(fields[4], 0, 6, &DAYS)?;
        Ok(Schedule::Spec { minute, hour, dom, month, dow, dom_star, dow_star })
    }

    /// `Next`: the first activation strictly after `t` (Unix seconds);
    /// `None` when none comes within five years (an impossible date).
    pub fn next(&self, t: i64) -> Option<i64> {
        match *self {
            Schedule::Every(d) => Some(t + d as i64),
            Schedule::Spec { minute, hour, dom, month, dow, dom_star, dow_star } => {
                let start = t.div_euclid(60) * 60 + 60;
                let first_day = start.div_euclid(86_400);
                for day in first_day..first_day + 5 * 366 {
                    let (_, m, d) = civil_from_days(day);
                    let weekday = (day + 4).rem_euclid(7) as u32;
                    let dom_ok = dom & (1 << d) != 0;
                    let dow_ok = dow & (1 << weekday) != 0;
                    // `dayMatches`: either field a star, both must match; else either.
                    let day_ok = if dom_star || dow_star { dom_ok && dow_ok } else { dom_ok || dow_ok };
                    if month & (1 << m) == 0 || !day_ok {
                        continue;
                    }
                    let from = if day == first_day { start - day * 86_400 } else { 0 };
                    for minute_of_day in (from / 60)..1440 {
                        let (h, mi) = (minute_of_day / 60, minute_of_day % 60);
                        if hour & (1 << h) != 0 && minute & (1 << mi) != 0 {
                            return Some(day * 86_400 + minute_of_day * 60);
                        }
                    }
                }
                None
            }
        }
    }
}

fn descriptor_schedule(d: &str) -> Result<Schedule, String> {
    let spec = match d {
        "yearly" | "annually" => "0 0 1 1 *",
        "monthly" => "0 0 1 * *",
        "weekly" => "0 0 * * 0",
        "daily" | "midnight" => "0 0 * * *",
        "hourly" => "0 * * * *",
        _ => {
            let Some(every) = d.strip_prefix("every ") else {
                return Err(format!("unrecognized descriptor: @{d}"));
            };
            let secs = go_duration_secs(every.trim()).ok_or_else(|| format!("failed to parse duration @{d}"))?;
            // `Every`: below a second it is rounded up to one.
            return Ok(Schedule::Every(secs.max(1)));
        }
    };
    Schedule::parse(spec)
}

/// A Go duration (`90s`, `1h30m`, `2m`) in whole seconds, truncated.
fn go_duration_secs(s: &str) -> Option<u64> {
    let mut total = 0f64;
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let value: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit_end..];
    }
    Some(total as u64)
}

/// One field (`getField`): comma-separated ranges; the bits set, and
/// whether it was `*` or `?`.
fn field(text: &str, min: u32, max: u32, names: &[&str]) -> Result<(u64, bool), String> {
    let mut bits = 0u64;
    let mut star = false;
    for expr in text.split(',') {
        let (b, s) = range(expr, min, max, names)?;
        bits |= b;
        star |= s;
    }
    Ok((bits, star))
}

/// `getRange`: `*`, `?`, `N`, `N-M`, each with an optional `/STEP`.
fn range(expr: &str, min: u32, max: u32, names: &[&str]) -> Result<(u64, bool), String> {
    let (range, step) = match expr.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (expr, None),
    };
    let (mut start, mut end, star) = match range {
        "*" | "?" => (min, max, true),
        _ => match range.split_once('-') {
            Some((a, b)) => (value(a, names)?, value(b, names)?, false),
            None => {
                let v = value(range, names)?;
                (v, v, false)
            }
        },
    };
    let step = match step {
        None => 1,
        Some(s) => {
            let n = s
                .parse::<u32>()
                .map_err(|_| format!("failed to parse int from {s}: strconv.Atoi: parsing {s:?}: invalid syntax"))?;
            // `N/STEP` runs from N to the field's maximum.
            if !star && !range.contains('-') {
                end = max;
            }
            n
        }
    };
    if star && step == 1 {
        start = min;
        end = max;
    }
    if start < min {
        return Err(format!("beginning of range ({start}) below minimum ({min}): {expr}"));
    }
    if end > max {
        return Err(format!("end of range ({end}) above maximum ({max}): {expr}"));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    let bits = (start..=end).step_by(step as usize).fold(0u64, |b, i| b | 1 << i);
    Ok((bits, star && step == 1))
}

/// A field value: a number, or a name (case-insensitive).
fn value(text: &str, names: &[&str]) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    if let Some(i) = names.iter().position(|n| *n == lower) {
        // Months count from 1, days of the week from 0.
        return Ok(i as u32 + u32::from(names.len() == 12));
    }
    text.parse::<u32>()
        .map_err(|_| format!("failed to parse int from {text}: strconv.Atoi: parsing {text:?}: invalid syntax"))
}

/// Howard Hinnant's `civil_from_days`: the (year, month 1–12, day 1–31)
/// of a day counted from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-01-01T00:00:00Z, a Thursday.
    const NEW_YEAR: i64 = 1_767_225_600;

    #[test]
    fn the_next_activation_follows_each_field() {
        let every_minute = Schedule::parse("*/1 * * * *").unwrap();
        assert_eq!(every_minute.next(NEW_YEAR), Some(NEW_YEAR + 60));
        assert_eq!(every_minute.next(NEW_YEAR + 59), Some(NEW_YEAR + 60));
        let quarter = Schedule::parse("15,45 * * * *").unwrap();
        assert_eq!(quarter.next(NEW_YEAR), Some(NEW_YEAR + 15 * 60));
        assert_eq!(quarter.next(NEW_YEAR + 15 * 60), Some(NEW_YEAR + 45 * 60));
        // Mondays at 09:30: 2026-01-05.
        let monday = Schedule::parse("30 9 * * MON").unwrap();
        assert_eq!(monday.next(NEW_YEAR), Some(NEW_YEAR + 4 * 86_400 + 9 * 3600 + 30 * 60));
        // Both day fields restricted: either matches (the 2nd, or a Saturday: the 3rd).
        let either = Schedule::parse("0 0 2 * 6").unwrap();
        assert_eq!(either.next(NEW_YEAR), Some(NEW_YEAR + 86_400));
        assert_eq!(either.next(NEW_YEAR + 86_400), Some(NEW_YEAR + 2 * 86_400));
        assert_eq!(Schedule::parse("@hourly").unwrap().next(NEW_YEAR + 1), Some(NEW_YEAR + 3600));
        assert_eq!(Schedule::parse("@every 90s").unwrap(), Schedule::Every(90));
        assert_eq!(Schedule::parse("0 0 30 2 *").unwrap().next(NEW_YEAR), None, "February 30th never comes");
    }

    #[test]
    fn bad_schedules_are_refused_in_the_librarys_words() {
        assert_eq!(Schedule::parse("* * * *").unwrap_err(), "expected exactly 5 fields, found 4: [* * * *]");
        assert_eq!(Schedule::parse("61 * * * *").unwrap_err(), "end of range (61) above maximum (59): 61");
        assert_eq!(Schedule::parse("@often").unwrap_err(), "unrecognized descriptor: @often");
        assert!(Schedule::parse("x * * * *").unwrap_err().starts_with("failed to parse int from x"));
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(NEW_YEAR / 86_400), (2026, 1, 1));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(NEW_YEAR / 86_400 + 59), (2026, 3, 1));
    }
}
