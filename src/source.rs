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
    /// An integer above i64::MAX, kept so typed decoding can name the field.
    UInt(u64),
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
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(i64::try_from(v).map_or(Node::UInt(v), Node::Int))
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
            Node::UInt(i) => Ok(Key(i.to_string())),
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
    let docs: Vec<Spanned<Node>> = serde_saphyr::from_str_multiple_with_options(&file.text, yaml_options())
        .map_err(|e| Error::input(yaml_problem(file, &e)))?;
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
        n => {
            // Where the second begins: what to take out, or move to a file of its own.
            let second = docs[1].locate("");
            let message = format!("expected one YAML document, found {n}: the second begins here");
            Err(Error::input(Problem::error(message).in_file(file, Some(second))))
        }
    }
}

/// What podsim reads of one YAML or JSON file: generous for the largest
/// real inputs (a monitoring stack's rendered chart is about 2,000
/// documents), and bounded so that a document storm or an alias bomb ends
/// in milliseconds. The book's Limits section lists them.
pub const MAX_DOCUMENTS: usize = 20_000;
pub const MAX_NODES: usize = 5_000_000;
pub const MAX_DEPTH: usize = 64;

fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_documents = MAX_DOCUMENTS;
    budget.max_nodes = MAX_NODES;
    budget.max_depth = MAX_DEPTH;
    // Each node is a few parser events: room for the nodes above.
    budget.max_events = 4 * MAX_NODES;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// A budget the file broke, in words: which limit, its value, what to do.
fn budget_message(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    let split = "split it into several files (each may be given with -f)";
    match breach {
        B::Documents { .. } => format!("more than {MAX_DOCUMENTS} YAML documents in one file: {split}"),
        B::Nodes { .. } | B::Events { .. } => format!("more than {MAX_NODES} YAML values in one file: {split}"),
        B::Depth { .. } => format!("nested more than {MAX_DEPTH} levels deep: no Kubernetes object or podsim file is"),
        B::Aliases { .. } | B::Anchors { .. } | B::AliasAnchorRatio { .. } => {
            "too many YAML aliases (*name) for its anchors: an alias bomb, or a file that repeats one anchor thousands of times"
                .to_string()
        }
        other => format!("the file is beyond what podsim reads of one YAML file ({other:?})"),
    }
}

fn yaml_problem(file: &Arc<SourceFile>, e: &serde_saphyr::Error) -> Problem {
    // The breach itself, under the snippet and alias wrappers.
    let mut inner = e;
    while let serde_saphyr::Error::WithSnippet { error, .. } | serde_saphyr::Error::AliasError { error, .. } = inner {
        inner = error;
    }
    if let serde_saphyr::Error::Budget { breach, location } = inner {
        return Problem::error(budget_message(breach)).in_file(file, Some(position(location)));
    }
    // serde-saphyr's Display carries a snippet; keep only its first line.
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("invalid YAML").trim_start_matches("error: ");
    let message = match first.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") => rest.to_string(),
        _ => first.to_string(),
    };
    // serde-saphyr's words for an anchor used inside its own value.
    let message = match message.contains("recursive references require weak recursion types") {
        true => "a YAML alias (*name) inside the value of its own anchor (&name): a cycle, which no Kubernetes object has; write the value out".to_string(),
        false => message,
    };
    let at = e.location().map(|l| position(&l));
    let hint = at.as_ref().and_then(|p| unclosed_bracket(&file.text, p.line));
    let message = match hint {
        Some((line, col, c)) if !message.contains("unclosed") => {
            format!("{message} (the '{c}' opened at {line}:{col} is not closed)")
        }
        _ => message,
    };
    Problem::error(message).in_file(file, at)
}

/// The innermost `[` or `{` still open before line `upto`, skipping quoted
/// text and comments: the usual cause of a confusing YAML error further down.
fn unclosed_bracket(text: &str, upto: u64) -> Option<(usize, usize, char)> {
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    for (n, line) in text.lines().enumerate().take(upto.saturating_sub(1) as usize) {
        let mut quote: Option<char> = None;
        for (col, c) in line.chars().enumerate() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') => break,
                (None, '[' | '{') => open.push((n + 1, col + 1, c)),
                (None, ']' | '}') => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    open.pop()
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

    /// Where the field at `path` (`spec.containers[0].image`) is written:
    /// its key's line, or the value itself when it is a scalar or a flow
    /// collection on the key's line, or a list item's `-`. For a path that
    /// does not exist, the nearest existing parent.
    pub fn locate(&self, path: &str) -> Position {
        let mut node = &self.root;
        let mut best = position(&node.referenced);
        for seg in path_segments(path) {
            match step(node, &seg) {
                Some((key, n)) => {
                    best = match key {
                        Some(k)
                            if k.line() != n.referenced.line() && matches!(n.value, Node::Map(_) | Node::Seq(_)) =>
                        {
                            position(k)
                        }
                        _ => position(&n.referenced),
                    };
                    node = n;
                }
                None => break,
            }
        }
        best
    }

    /// The location of the key that ends `path` (for "unknown field" errors).
    pub fn locate_key(&self, path: &str) -> Position {
        let mut node = &self.root;
        let mut best = position(&node.referenced);
        for seg in path_segments(path) {
            match step(node, &seg) {
                Some((key, n)) => {
                    best = key.map_or_else(|| position(&n.referenced), position);
                    node = n;
                }
                None => break,
            }
        }
        best
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
        let path = e.path().iter().fold(prefix.to_string(), |acc, seg| match seg {
            serde_path_to_error::Segment::Seq { index } => format!("{acc}[{index}]"),
            serde_path_to_error::Segment::Map { key } => key_path(&acc, key),
            serde_path_to_error::Segment::Enum { variant } => key_path(&acc, variant),
            serde_path_to_error::Segment::Unknown => acc,
        });
        let message = e.into_inner().to_string();
        // serde names an unknown key's path: point at the key, not its value.
        let at = if message.starts_with("unknown field") { doc.locate_key(&path) } else { doc.locate(&path) };
        // `{latency: uniform(1s, 2s)}` splits at the comma in YAML flow style.
        let message = if message.starts_with("unknown field") && message.contains(")`") {
            format!("{message} (a distribution inside {{…}} must be quoted: \"uniform(1s, 2s)\")")
        } else {
            message
        };
        let mut p = Problem::error(message).in_file(&doc.file, Some(at));
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
        Node::UInt(i) => Value::from(*i),
        Node::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Value::from(*f as i64),
        Node::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null),
        Node::Str(s) => Value::String(s.clone()),
        Node::Seq(items) => Value::Array(items.iter().map(|n| to_json(&n.value)).collect()),
        Node::Map(entries) => {
            Value::Object(entries.iter().map(|(k, v)| (k.value.clone(), to_json(&v.value))).collect())
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// One step down the tree: the key's location (for a mapping) and the child.
fn step<'a>(node: &'a Spanned<Node>, seg: &Segment) -> Option<(Option<&'a Location>, &'a Spanned<Node>)> {
    match (&node.value, seg) {
        (Node::Map(entries), Segment::Key(k)) => {
            entries.iter().find(|(key, _)| &key.value == k).map(|(key, v)| (Some(&key.referenced), v))
        }
        (Node::Seq(items), Segment::Index(i)) => items.get(*i).map(|v| (None, v)),
        _ => None,
    }
}

/// A field path segment for `key`: `.key` for a name, or `["key"]` for
/// anything else (an HTTP path, a command line, the empty gRPC service).
pub fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match (plain, parent.is_empty()) {
        (true, true) => key.to_string(),
        (true, false) => format!("{parent}.{key}"),
        (false, _) => format!("{parent}[{key:?}]"),
    }
}

/// Splits `a.b[0]["x.y"].c` into keys and indices.
fn path_segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut key = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !key.is_empty() {
                    out.push(Segment::Key(std::mem::take(&mut key)));
                }
            }
            '[' => {
                if !key.is_empty() {
                    out.push(Segment::Key(std::mem::take(&mut key)));
                }
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut quoted = String::new();
                    while let Some(q) = chars.next() {
                        match q {
                            '\\' => quoted.extend(chars.next()),
                            '"' => break,
                            _ => quoted.push(q),
                        }
                    }
                    out.push(Segment::Key(quoted));
                    let _ = chars.next(); // the closing bracket
                } else {
                    let digits: String = chars.by_ref().take_while(|c| *c != ']').collect();
                    if let Ok(i) = digits.parse() {
                        out.push(Segment::Index(i));
                    }
                }
            }
            _ => key.push(c),
        }
    }
    if !key.is_empty() {
        out.push(Segment::Key(key));
    }
    out
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
    fn block_fields_point_at_their_key() {
        let f = file("spec:\n  probe:\n    period: 5\n  flow: {a: 1}\n  list:\n  - x: 1\n");
        let d = &parse_documents(&f).unwrap()[0];
        assert_eq!(d.locate("spec.probe").line, 2);
        assert_eq!(d.locate("spec.probe.period").line, 3);
        assert_eq!(d.locate("spec.flow").line, 4);
        assert_eq!(d.locate("spec.list").line, 5);
        assert_eq!(d.locate("spec.list[0]").line, 6);
    }

    #[test]
    fn quoted_keys_keep_their_dots() {
        let f = file("exec:\n  \"test -f a.flag\":\n  - {exit: 0}\n  - {exit: 300}\n");
        let d = &parse_documents(&f).unwrap()[0];
        let path = format!("{}[1].exit", key_path("exec", "test -f a.flag"));
        assert_eq!(path, "exec[\"test -f a.flag\"][1].exit");
        assert_eq!(d.locate(&path).line, 4);
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
    fn an_unclosed_bracket_is_named() {
        let f = file("a:\n  command: [sleep, \"3600\"\n  ports:\n  - 1\n");
        let Err(Error::Input(p)) = parse_documents(&f) else { panic!() };
        assert!(p[0].message.contains("the '[' opened at 2:12 is not closed"), "{}", p[0].message);
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
