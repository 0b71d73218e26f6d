//! Writing a mutated value tree back as text: YAML block style, JSON (which
//! is YAML too) or JSON Lines, with two markers a `serde_json::Value` cannot
//! hold otherwise:
//!
//! - a string starting with [`RAW`] is written verbatim, unquoted: a plain
//!   YAML scalar (`.nan`, `0x10`, `yes`), a tag (`!!binary …`), an alias
//!   (`*a`), an anchored flow collection, deep nesting in flow style;
//! - a map key starting with [`DUP`] is written without its marker and
//!   number, so a map can hold the same key twice (or a raw key such as `<<`).

use serde_json::{Map, Value};

/// A string value (or map key) written as is.
pub const RAW: &str = "\u{1}raw\u{1}";
/// A map key `DUP<n>\u{1}KEY` written as `KEY`.
pub const DUP: &str = "\u{1}dup";

pub fn raw(text: impl Into<String>) -> Value {
    Value::String(format!("{RAW}{}", text.into()))
}

pub fn dup_key(n: usize, key: &str) -> String {
    format!("{DUP}{n}\u{1}{key}")
}

/// How a tree is written.
#[derive(Clone, Copy, Debug)]
pub enum Style {
    /// Block YAML, documents separated by `---`.
    Block,
    /// Indented JSON per document, separated by `---` (valid YAML).
    Json,
    /// One compact JSON value per line (JSON Lines): the documents are lines.
    Lines,
}

/// Writes `docs` as one file.
pub fn write(docs: &[Value], style: Style) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        match style {
            Style::Block => {
                if i > 0 {
                    out.push_str("---\n");
                }
                block(doc, 0, &mut out);
            }
            Style::Json => {
                if i > 0 {
                    out.push_str("---\n");
                }
                flow(doc, Some(0), &mut out);
                out.push('\n');
            }
            Style::Lines => {
                flow(doc, None, &mut out);
                out.push('\n');
            }
        }
    }
    out
}

/// The text of a scalar, or `None` for a non-empty collection.
fn scalar(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        _ => return None,
    })
}

fn string(s: &str) -> String {
    match s.strip_prefix(RAW) {
        Some(raw) => raw.to_string(),
        None => serde_json::to_string(s).expect("a string serializes"),
    }
}

fn key(k: &str) -> String {
    match k.strip_prefix(DUP) {
        Some(rest) => key(rest.split_once('\u{1}').map_or(rest, |(_, k)| k)),
        None => string(k),
    }
}

fn indent(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Block YAML at `ind` spaces; the caller has written nothing of the line yet.
fn block(v: &Value, ind: usize, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => block_map(m, ind, false, out),
        Value::Array(a) if !a.is_empty() => {
            for item in a {
                indent(ind, out);
                out.push('-');
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        out.push(' ');
                        block_map(m, ind + 2, true, out);
                    }
                    Value::Array(a) if !a.is_empty() => {
                        out.push('\n');
                        block(item, ind + 2, out);
                    }
                    _ => {
                        out.push(' ');
                        out.push_str(&scalar(item).expect("a scalar"));
                        out.push('\n');
                    }
                }
            }
        }
        _ => {
            indent(ind, out);
            out.push_str(&scalar(v).expect("a scalar"));
            out.push('\n');
        }
    }
}

/// A map's entries at `ind`; with `inline`, the first entry goes on the
/// current line (after `- `).
fn block_map(m: &Map<String, Value>, ind: usize, inline: bool, out: &mut String) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !inline {
            indent(ind, out);
        }
        out.push_str(&key(k));
        out.push(':');
        match scalar(v) {
            Some(s) => {
                out.push(' ');
                out.push_str(&s);
                out.push('\n');
            }
            None => {
                out.push('\n');
                block(v, ind + 2, out);
            }
        }
    }
}

/// JSON: indented by `ind` levels, or compact with `None`.
fn flow(v: &Value, ind: Option<usize>, out: &mut String) {
    let newline = |level: usize, out: &mut String| {
        if ind.is_some() {
            out.push('\n');
            indent(level * 2, out);
        }
    };
    let level = ind.unwrap_or(0);
    let next = ind.map(|i| i + 1);
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(level + 1, out);
                out.push_str(&key(k));
                out.push_str(": ");
                flow(item, next, out);
            }
            newline(level, out);
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(level + 1, out);
                flow(item, next, out);
            }
            newline(level, out);
            out.push(']');
        }
        _ => out.push_str(&scalar(v).expect("a scalar")),
    }
}

#[test]
fn markers_are_written_as_yaml() {
    let v: Value = serde_json::json!({"a": [1, {"b": "x"}], "c": {}, "d": raw("*x")});
    let mut v2 = v.clone();
    v2.as_object_mut().unwrap().insert(dup_key(1, "a"), Value::Bool(true));
    assert_eq!(write(&[v], Style::Block), "\"a\":\n  - 1\n  - \"b\": \"x\"\n\"c\": {}\n\"d\": *x\n");
    // serde_json's map is sorted: the marked key (\u{1}…) comes first.
    assert_eq!(write(&[v2], Style::Lines), "{\"a\": true,\"a\": [1,{\"b\": \"x\"}],\"c\": {},\"d\": *x}\n");
}
