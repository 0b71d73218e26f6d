//! Reading YAML and JSON documents while remembering where every value came
//! from, so that a type error or a validation error can name its line.
//!
//! A document is parsed once into a tree of located nodes; that tree is turned
//! into `serde_json::Value` for typed decoding (Kubernetes types deserialize
//! from JSON), and answers "which line is `spec.containers[0].image` on?".

use crate::error::{Error, Position, Problem, SourceFile};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};
use std::fmt;
use std::sync::Arc;

/// A YAML/JSON value with the location of each part.
#[derive(Clone, Debug)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
                i64::try_from(v).map(Node::Int).map_err(|_| E::custom("integer too large"))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = s.next_element()? {
                    items.push(x);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(k) = m.next_key::<Spanned<Key>>()? {
                    let value = m.next_value()?;
                    entries.push((Spanned::new(k.value.0, k.referenced, k.defined), value));
                }
                Ok(Node::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping key; scalars of any type are accepted and kept as text.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Node::deserialize(d)? {
            Node::Str(s) => Ok(Key(s)),
            Node::Int(i) => Ok(Key(i.to_string())),
            Node::Float(f) => Ok(Key(f.to_string())),
            Node::Bool(b) => Ok(Key(b.to_string())),
            Node::Null => Ok(Key("null".into())),
            _ => Err(de::Error::custom("a mapping key must be a scalar")),
        }
    }
}

/// One document of a file.
#[derive(Clone, Debug)]
pub struct Doc {
    pub file: Arc<SourceFile>,
    pub root: Spanned<Node>,
}

/// Parses every non-empty document of a YAML or JSON file.
pub fn parse_documents(file: &Arc<SourceFile>) -> Result<Vec<Doc>, Error> {
    let docs: Vec<Spanned<Node>> =
        serde_saphyr::from_str_multiple(&file.text).map_err(|e| Error::input(yaml_problem(file, &e)))?;
    Ok(docs
        .into_iter()
        .filter(|d| !matches!(d.value, Node::Null))
        .map(|root| Doc { file: file.clone(), root })
        .collect())
}

/// Parses a file that must hold exactly one document.
pub fn parse_single(file: &Arc<SourceFile>) -> Result<Doc, Error> {
    let mut docs = parse_documents(file)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => Err(Error::input(Problem::error("the file is empty").in_file(file, None))),
        n => Err(Error::input(Problem::error(format!("expected one YAML document, found {n}")).in_file(file, None))),
    }
}

fn yaml_problem(file: &Arc<SourceFile>, e: &serde_saphyr::Error) -> Problem {
    // serde-saphyr's Display carries a snippet; keep only its first line.
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("invalid YAML").trim_start_matches("error: ");
    let message = match first.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") => rest.to_string(),
        _ => first.to_string(),
    };
    Problem::error(message).in_file(file, e.location().map(|l| position(&l)))
}

pub fn position(l: &Location) -> Position {
    let span = l.span();
    Position { line: l.line(), column: l.column(), offset: span.offset() as usize, len: span.len() as usize }
}

impl Doc {
    /// The document as JSON, for decoding into API types.
    pub fn to_json(&self) -> serde_json::Value {
        to_json(&self.root.value)
    }

    /// Where the value at `path` (`spec.containers[0].image`) is; for a path
    /// that does not exist, the nearest existing parent.
    pub fn locate(&self, path: &str) -> Position {
        let mut node = &self.root;
        let mut best = position(&node.referenced);
        for seg in path_segments(path) {
            let next = match (&node.value, seg) {
                (Node::Map(entries), Segment::Key(k)) => {
                    entries.iter().find(|(key, _)| key.value == k).map(|(key, v)| {
                        best = position(&key.referenced);
                        v
                    })
                }
                (Node::Seq(items), Segment::Index(i)) => items.get(i),
                _ => None,
            };
            match next {
                Some(n) => {
                    node = n;
                    if !matches!(n.value, Node::Map(_) | Node::Seq(_)) || n.referenced.line() > 0 {
                        best = position(&n.referenced);
                    }
                }
                None => break,
            }
        }
        best
    }

    /// The location of the key `path` itself (for "unknown field" errors).
    pub fn locate_key(&self, path: &str) -> Position {
        let (parent, last) = match path.rsplit_once('.') {
            Some((p, l)) => (p, l),
            None => ("", path),
        };
        let mut node = &self.root;
        for seg in path_segments(parent) {
            let next = match (&node.value, seg) {
                (Node::Map(entries), Segment::Key(k)) => entries.iter().find(|(key, _)| key.value == k).map(|(_, v)| v),
                (Node::Seq(items), Segment::Index(i)) => items.get(i),
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => return self.locate(path),
            }
        }
        if let Node::Map(entries) = &node.value
            && let Some((key, _)) = entries.iter().find(|(key, _)| key.value == last)
        {
            return position(&key.referenced);
        }
        self.locate(path)
    }

    /// A problem located at `path` in this document.
    pub fn problem(&self, path: &str, message: impl Into<String>) -> Problem {
        Problem::error(message).in_file(&self.file, Some(self.locate(path))).field(path)
    }

    /// Decodes the whole document into `T`, reporting a type error with the
    /// path and line of the offending field.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, Problem> {
        decode_value(self, self.to_json(), "")
    }
}

/// Decodes `value` (found at `prefix` in `doc`) into `T` with located errors.
pub fn decode_value<T: DeserializeOwned>(doc: &Doc, value: serde_json::Value, prefix: &str) -> Result<T, Problem> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (prefix.is_empty(), inner == ".") {
            (true, _) => inner,
            (false, true) => prefix.to_string(),
            (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
            (false, false) => format!("{prefix}.{inner}"),
        };
        let message = e.into_inner().to_string();
        let path = if path == "." { String::new() } else { path };
        let mut p = Problem::error(message).in_file(&doc.file, Some(doc.locate(&path)));
        if !path.is_empty() {
            p = p.field(path);
        }
        p
    })
}

fn to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value;
    match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Int(i) => Value::from(*i),
        Node::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Value::from(*f as i64),
        Node::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null),
        Node::Str(s) => Value::String(s.clone()),
        Node::Seq(items) => Value::Array(items.iter().map(|n| to_json(&n.value)).collect()),
        Node::Map(entries) => {
            Value::Object(entries.iter().map(|(k, v)| (k.value.clone(), to_json(&v.value))).collect())
        }
    }
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Splits `a.b[0].c` into keys and indices.
fn path_segments(path: &str) -> impl Iterator<Item = Segment<'_>> {
    path.split('.').filter(|s| !s.is_empty()).flat_map(|part| {
        let mut out = Vec::new();
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Segment::Key(key));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(i) = rest[1..close].parse() {
                out.push(Segment::Index(i));
            }
            rest = &rest[close + 1..];
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Arc<SourceFile> {
        Arc::new(SourceFile { name: "t.yaml".into(), text: text.into() })
    }

    #[test]
    fn locates_nested_fields() {
        let f = file("kind: Pod\nspec:\n  containers:\n  - name: app\n    image: nginx\n");
        let docs = parse_documents(&f).unwrap();
        assert_eq!(docs[0].locate("spec.containers[0].image").line, 5);
        assert_eq!(docs[0].locate("spec.containers[0].missing").line, 4);
        assert_eq!(docs[0].locate_key("spec.containers").line, 3);
    }

    #[test]
    fn splits_multiple_documents_and_skips_empty_ones() {
        let f = file("a: 1\n---\n---\nb: 2\n");
        assert_eq!(parse_documents(&f).unwrap().len(), 2);
    }

    #[test]
    fn reports_yaml_syntax_errors_with_a_line() {
        let f = file("a: 1\nb: [1, 2\nc: 3\n");
        let Err(Error::Input(p)) = parse_documents(&f) else { panic!() };
        assert_eq!(p[0].position.as_ref().unwrap().line, 3);
    }

    #[test]
    fn type_errors_name_the_field_and_line() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            spec: S,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct S {
            items: Vec<u32>,
        }
        let f = file("spec:\n  items:\n  - 1\n  - two\n");
        let doc = parse_single(&f).unwrap();
        let e = doc.decode::<T>().unwrap_err();
        assert_eq!(e.field.as_deref(), Some("spec.items[1]"));
        assert_eq!(e.position.unwrap().line, 4);
    }
}
