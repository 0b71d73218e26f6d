//! One mutation of one input file: structural edits of its value tree,
//! written back as block YAML, JSON or JSON Lines, then text edits of the
//! bytes. A file that is not a tree (a `kubectl get` table) gets text edits.

use super::corpus::Doc;
use super::emit::{self, Style};
use super::text::{self, TextOp};
use super::tree::{self, Mutation};
use proptest::prelude::*;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Edit {
    pub tree: Vec<Mutation>,
    /// Written as JSON rather than block YAML (JSON Lines stay lines).
    pub json: bool,
    pub text: Vec<TextOp>,
}

pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        5 => (tree::mutations(4), any::<bool>(), text::ops(1)),
        2 => (Just(Vec::new()), any::<bool>(), proptest::collection::vec(text::op(), 1..5)),
    ]
    .prop_map(|(tree, json, text)| Edit { tree, json, text })
}

/// The mutated bytes of `doc`; `lines` for a JSON Lines file.
pub fn render(doc: &Doc, e: &Edit, names: &[String], lines: bool) -> Vec<u8> {
    let bytes = match &doc.docs {
        Some(docs) if !e.tree.is_empty() => {
            let multi = docs.len() > 1;
            let mut root = if multi { Value::Array(docs.clone()) } else { docs[0].clone() };
            tree::apply(&mut root, &e.tree, names);
            let docs = match root {
                Value::Array(a) if multi => a,
                other => vec![other],
            };
            let style = if lines {
                Style::Lines
            } else if e.json {
                Style::Json
            } else {
                Style::Block
            };
            emit::write(&docs, style).into_bytes()
        }
        _ => doc.bytes.clone(),
    };
    text::apply(bytes, &e.text)
}
