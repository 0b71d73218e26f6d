//! Ages as kubectl prints them: `5m`, `<invalid>`, and the age columns of
//! events (`60s (x3 over 30s)`).

use super::lines::Tok;
use crate::observe::{Span, human_duration};

/// An age kubectl could not print (`<invalid>`: in the future by more than a
/// second, i.e. clock skew; `<unknown>`: no timestamp): any age from 0 to a
/// century. Wide, but small enough for interval arithmetic not to overflow.
pub(super) const UNKNOWN_AGE: Span = Span { lo: 0, hi: 100 * 365 * 86_400_000 };

pub(super) const UNKNOWN_EVENT_AGE: &str =
    "an event age cannot be read as a time (`<invalid>`/`<unknown>`): kept with any age";

/// An age column: a human duration, or `<invalid>`/`<unknown>` (any age).
pub(super) fn parse_age(t: &str) -> Result<(Span, bool), String> {
    match t {
        "<invalid>" | "<unknown>" => Ok((UNKNOWN_AGE, true)),
        _ => human_duration(t).map(|s| (s, false)).ok_or_else(|| format!("`{t}` is not an age")),
    }
}

/// `(x36 over 8m4s)` → (36, 8m4s).
fn parse_series(t: &str) -> Result<(u32, Span, bool), String> {
    let bad = || format!("`{t}` is not `(xN over AGE)`");
    let inner = t.trim().strip_prefix("(x").and_then(|s| s.strip_suffix(')')).ok_or_else(bad)?;
    let (n, first) = inner.split_once(" over ").ok_or_else(bad)?;
    let n = n.trim().parse().map_err(|_| bad())?;
    let (first, unknown) = parse_age(first.trim())?;
    Ok((n, first, unknown))
}

/// Reads the age column (`60s` or `60s (x3 over 30s)`) from token `k` on;
/// returns the last, the count, the first, whether an age is unknown and the
/// index of the next token.
pub(super) fn read_event_age(toks: &[Tok], k: usize) -> Result<(Span, u32, Span, bool, usize), String> {
    let age = toks.get(k).ok_or("no age column")?;
    let (last, mut unknown) = parse_age(age.text)?;
    let mut next = k + 1;
    if toks.get(next).is_some_and(|t| t.text.starts_with("(x")) {
        let mut parts = Vec::new();
        while let Some(t) = toks.get(next) {
            parts.push(t.text);
            next += 1;
            if t.text.ends_with(')') {
                break;
            }
        }
        let (count, first, u) = parse_series(&parts.join(" "))?;
        unknown |= u;
        return Ok((last, count, first, unknown, next));
    }
    Ok((last, 1, last, unknown, next))
}
