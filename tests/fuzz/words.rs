//! Mutations of a short grammar string (a property, a flag's value): its
//! tokens replaced by other tokens of the grammars, by extreme numbers and
//! durations, by unicode, deleted, duplicated or swapped; then byte edits,
//! which may leave it invalid UTF-8 (passed as an `OsString`).

use super::text::{self, TextOp};
use proptest::prelude::*;

/// Tokens of podsim's small grammars: properties, durations, action flags.
const VOCABULARY: &[&str] = &[
    "always",
    "never",
    "eventually",
    "sometimes",
    "after",
    "within",
    "and",
    "or",
    "not",
    "(",
    ")",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "+",
    "-",
    ",",
    ":",
    "/",
    "@",
    "=",
    "*",
    "#",
    "0",
    "1",
    "-1",
    "2",
    "4294967296",
    "9223372036854775807",
    "18446744073709551616",
    "1e308",
    "NaN",
    "inf",
    "0.0001",
    "0s",
    "1s",
    "15s",
    "-5s",
    "500ms",
    "1d",
    "99999999d",
    "1e308s",
    "1m30s",
    "0.5s",
    "1us",
    "ns",
    "s",
    "ms",
    "m",
    "h",
    "d",
    "restarts",
    "ready_endpoints",
    "endpoints",
    "requests",
    "failed_requests",
    "image_pull_failures",
    "scheduling_failures",
    "replicas",
    "ready_replicas",
    "active",
    "ready",
    "first_ok",
    "deleted",
    "evicted",
    "created",
    "scheduled",
    "endpoint_ready",
    "ordinal_ready",
    "pod",
    "pod/web",
    "pod/*",
    "pod/web/app",
    "pod/nope",
    "svc/web",
    "svc/*",
    "deploy/web",
    "deploy/web@rev2",
    "deploy/web@rev0",
    "job/sweep",
    "sts/web",
    "ds/agent",
    "node/node-1",
    "node/node-9",
    "node/*",
    "client/curl",
    "service/web:80",
    "pod/web:8080",
    "grace-period",
    "cascade",
    "orphan",
    "foreground",
    "signal",
    "SIGTERM",
    "SIGKILL",
    "for",
    "down",
    "timeout",
    "force",
    "true",
    "every",
    "rate",
    "count",
    "from",
    "name",
    "True",
    "False",
    "Maybe",
    "example.com/lb",
    "Ready",
    "\u{202e}",
    "🦀",
    "e\u{301}",
    "\u{0}",
    "\u{feff}",
    "'",
    "\"",
    "\\",
    " ",
    "",
    "{",
    "}",
    "[",
    "]",
];

/// One edit of the token list.
#[derive(Clone, Debug)]
pub enum WordOp {
    Replace(u32, u32),
    Insert(u32, u32),
    Delete(u32),
    Duplicate(u32),
    Swap(u32),
    /// A token repeated many times.
    Repeat(u32, u16),
}

fn word_op() -> impl Strategy<Value = WordOp> {
    let i = any::<u32>;
    prop_oneof![
        4 => (i(), i()).prop_map(|(a, b)| WordOp::Replace(a, b)),
        3 => (i(), i()).prop_map(|(a, b)| WordOp::Insert(a, b)),
        2 => i().prop_map(WordOp::Delete),
        1 => i().prop_map(WordOp::Duplicate),
        1 => i().prop_map(WordOp::Swap),
        1 => (i(), prop_oneof![2..50u16, Just(5_000u16)]).prop_map(|(a, n)| WordOp::Repeat(a, n)),
    ]
}

/// How a string is mutated: token edits, then byte edits.
#[derive(Clone, Debug)]
pub struct WordEdit {
    pub words: Vec<WordOp>,
    pub bytes: Vec<TextOp>,
}

pub fn edit() -> impl Strategy<Value = WordEdit> {
    prop_oneof![
        4 => (proptest::collection::vec(word_op(), 0..4), text::ops(1)),
        1 => (proptest::collection::vec(word_op(), 0..2), proptest::collection::vec(text::op(), 1..4)),
    ]
    .prop_map(|(words, bytes)| WordEdit { words, bytes })
}

/// Splits into tokens: runs of letters, digits and `_.`, single other characters.
fn tokens(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = false;
    for c in s.chars() {
        let w = c.is_alphanumeric() || c == '_' || c == '.';
        if w && word {
            out.last_mut().expect("a token").push(c);
        } else {
            out.push(c.to_string());
        }
        word = w;
    }
    out
}

pub fn apply(s: &str, e: &WordEdit) -> Vec<u8> {
    let mut t = tokens(s);
    for op in &e.words {
        let at = |i: &u32, len: usize| *i as usize % len.max(1);
        let word = |i: &u32| VOCABULARY[*i as usize % VOCABULARY.len()].to_string();
        match op {
            WordOp::Replace(i, w) if !t.is_empty() => {
                let i = at(i, t.len());
                t[i] = word(w);
            }
            WordOp::Insert(i, w) => {
                let i = *i as usize % (t.len() + 1);
                t.insert(i, word(w));
            }
            WordOp::Delete(i) if !t.is_empty() => {
                t.remove(at(i, t.len()));
            }
            WordOp::Duplicate(i) if !t.is_empty() => {
                let i = at(i, t.len());
                t.insert(i, t[i].clone());
            }
            WordOp::Swap(i) if t.len() > 1 => {
                let i = at(i, t.len() - 1);
                t.swap(i, i + 1);
            }
            WordOp::Repeat(i, n) if !t.is_empty() => {
                // Repeats of repeats stay under the limit of one argument (a
                // 5,000-fold repeat of one once asked the harness for 1.25 TB).
                let i = at(i, t.len());
                let n = (*n as usize).min(MAX_LEN / t[i].len().max(1));
                t[i] = t[i].repeat(n);
            }
            _ => {}
        }
    }
    let mut out = text::apply(t.concat().into_bytes(), &e.bytes);
    // One argument may not pass 128 KiB (the kernel's MAX_ARG_STRLEN).
    out.truncate(MAX_LEN);
    out
}

/// The longest mutated string: room under the kernel's limit of one argument.
const MAX_LEN: usize = 100_000;

#[test]
fn repeats_stay_under_the_argument_limit() {
    let e = WordEdit { words: vec![WordOp::Repeat(0, 5_000); 3], bytes: Vec::new() };
    assert!(apply("0123456789", &e).len() <= MAX_LEN);
}

#[test]
fn tokens_rejoin_to_the_string() {
    let s = "always ready_endpoints(svc/web) >= 1 after 30s";
    assert_eq!(tokens(s).concat(), s);
    assert_eq!(tokens("pod/web@10s,grace-period=5")[..4], ["pod", "/", "web", "@"]);
}
