//! Pieces of text lines shared by the readers: indentation, author's
//! elisions and notes, Markdown fences, tokens with their positions and
//! describe's `Key:  value` lines.

/// Leading whitespace width (a tab advances to the next multiple of 8).
pub(super) fn indent(s: &str) -> usize {
    let mut n = 0;
    for c in s.chars() {
        match c {
            ' ' => n += 1,
            '\t' => n = (n / 8 + 1) * 8,
            _ => break,
        }
    }
    n
}

pub(super) fn starts_upper(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
}

/// An author's elision: `...`, `…`, `(...)`, `[...]`.
pub(super) fn is_elision(t: &str) -> bool {
    let inner = t.trim().trim_start_matches(['(', '[', '<']).trim_end_matches([')', ']', '>']).trim();
    !inner.is_empty() && (inner.chars().all(|c| c == '.' || c == '…') || inner == "snip")
}

/// A Markdown code fence.
pub(super) fn is_fence(t: &str) -> bool {
    let t = t.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Cuts an author's annotation off a table row: `# …`, `<-- …`, `← …`.
pub(super) fn strip_note(s: &str) -> &str {
    let mut cut = s.len();
    for pat in ["<--", "<-", "<==", "←", "⬅"] {
        if let Some(p) = s.find(pat) {
            cut = cut.min(p);
        }
    }
    for (p, c) in s.char_indices() {
        if p >= cut {
            break;
        }
        if c == '#' && s.get(..p).is_some_and(|b| b.is_empty() || b.ends_with(char::is_whitespace)) {
            cut = p;
            break;
        }
    }
    s.get(..cut).unwrap_or(s)
}

/// A headerless row without its annotation, and whether it follows a
/// `--- t=10s ---` marker written by a script (its one-shot gets); None for a
/// marker without a closing `---`.
pub(super) fn strip_time_marker(text: &str) -> Option<(&str, bool)> {
    let s = strip_note(text).trim();
    match s.strip_prefix("---") {
        Some(rest) => Some((rest.get(rest.find("---")?..)?.trim_start_matches('-').trim(), true)),
        None => Some((s, false)),
    }
}

/// Whitespace-separated tokens with their byte ranges.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok<'t> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: &'t str,
}

pub(super) fn tokens(s: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (p, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push(Tok { start: b, end: p, text: &s[b..p] });
                start = None;
            }
            (false, None) => start = Some(p),
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push(Tok { start: b, end: s.len(), text: &s[b..] });
    }
    out
}

/// `Key:   value` → (`Key`, `value`); the colon must be followed by
/// whitespace or end the line (`Started:  Thu, 17 Feb 2022 16:51:05 -0500`).
pub(super) fn split_key(t: &str) -> Option<(&str, &str)> {
    let bytes = t.as_bytes();
    let p = (0..bytes.len()).find(|&p| bytes[p] == b':' && bytes.get(p + 1).is_none_or(|b| b.is_ascii_whitespace()))?;
    let key = t.get(..p)?.trim_end();
    let value = t.get(p + 1..)?.trim();
    let ok = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.len() <= 64
        && key.chars().all(|c| c.is_ascii_alphanumeric() || " -_./()".contains(c));
    ok.then_some((key, value))
}

/// A describe value: empty and `<none>` mean absent.
pub(super) fn value(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty() && v != "<none>" && v != "<unset>").then(|| v.to_string())
}
