//! Mutations of a parsed input's value tree: a node, picked by its index in
//! a pre-order walk, is replaced (type swaps, extreme numbers, odd strings,
//! YAML-only scalars), deleted, given unknown keys or duplicated keys and
//! items, nested deeply, renamed to a dangling reference, or replaced by a
//! copy of another node.

use super::emit::{DUP, RAW, dup_key, raw};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// One edit of the tree.
#[derive(Clone, Debug)]
pub enum Op {
    /// Replace the node with a value.
    Replace(Value),
    /// Nudge a number (or the digits of a string such as `10s`), negate a
    /// bool: the commonest edit that still parses, so that runs simulate.
    Tweak(u8),
    /// Swap the node's type, keeping what can be kept.
    Swap(u8),
    /// Remove the node from its map or list (the root becomes null).
    Delete,
    /// A map gets a key no schema has; a list gets one more item; a scalar becomes a map.
    AddKey(String, Value),
    /// A map's key written twice (the second with this value); a list's item twice.
    Duplicate(Value),
    /// The node wrapped in `depth` lists or maps (written in flow style).
    Nest(u32, bool),
    /// A string (or a map key) replaced by a name: another input's, or this one mangled.
    Rename(u32, u8),
    /// The node replaced by a copy of the node with this index.
    CopyFrom(u32),
    /// An anchor on the node and an alias to it in its place elsewhere.
    Alias(u32),
    /// The node replaced by the exponential alias tree ("billion laughs").
    Laughs(u8, u8),
}

#[derive(Clone, Debug)]
pub struct Mutation {
    pub at: u32,
    pub op: Op,
}

/// Extreme, odd and YAML-specific scalars.
pub fn scalar() -> impl Strategy<Value = Value> {
    let fixed = vec![
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(1u64 << 32),
        json!((1u64 << 31) + 1),
        json!(-1),
        json!(0),
        json!(1e308),
        json!(-1e308),
        json!(5e-324),
        json!(0.5),
        json!(-0.0),
        json!(true),
        json!(false),
        Value::Null,
        json!(""),
        json!("0"),
        json!("-1"),
        json!("NaN"),
        json!("Infinity"),
        json!("1e400"),
        json!("-1s"),
        json!("0s"),
        json!("1e308s"),
        json!("99999999999999999999d"),
        json!("18446744073709551616ms"),
        json!("1.5.5s"),
        json!("1h-5m"),
        json!("uniform(5s, 1s)"),
        json!("normal(-1s, 1e308s)"),
        json!("\u{202e}evil\u{202c}"),
        json!("🦀💥👩‍👩‍👧"),
        json!("a\u{0}b"),
        json!("e\u{301}\u{301}\u{301}\u{20dd}"),
        json!("\u{feff}x\u{200b}"),
        json!("line\nbreak\r\n"),
        json!("*"),
        json!("pod/*"),
        json!("../../../../etc/passwd"),
        json!("/dev/zero"),
        json!("/"),
        raw(".nan"),
        raw(".inf"),
        raw("-.inf"),
        raw("1e400"),
        raw("-1e400"),
        raw("0x7fffffffffffffff"),
        raw("0o777"),
        raw("1_000_000"),
        raw("18446744073709551616"),
        raw("-9223372036854775809"),
        raw("~"),
        raw("yes"),
        raw("off"),
        raw("!!binary aGVsbG8="),
        raw("!!str 12"),
        raw("!!int \"x\""),
        raw("!!float 1"),
        raw("!!timestamp 2001-12-14"),
        raw("!custom {a: 1}"),
        raw("*undefined"),
        raw("2001-12-14t21:59:43.10-05:00"),
        raw("|\n  literal\n"),
    ];
    prop_oneof![
        6 => proptest::sample::select(fixed),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        1 => "\\PC{0,24}".prop_map(Value::String),
        1 => (1usize..200_000, proptest::sample::select(vec!["a", "é", "🦀", "\u{202e}", "\u{0}"]))
            .prop_map(|(n, s)| Value::String(s.repeat(n))),
    ]
}

/// A small value of any type.
pub fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::vec(("[a-z]{1,6}", inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Keys that no input declares, or that collide with real ones in odd spellings.
pub fn unknown_key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec![
            "bogus",
            "Kind",
            "apiversion",
            "metadata ",
            "",
            "<<",
            "?",
            "- x",
            "🦀",
            "\u{0}",
            "a.b/c",
            "spec.x",
        ])
        .prop_map(String::from),
        "[a-zA-Z]{1,12}",
        Just(format!("{RAW}<<")),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => any::<u8>().prop_map(Op::Tweak),
        5 => scalar().prop_map(Op::Replace),
        2 => value().prop_map(Op::Replace),
        4 => any::<u8>().prop_map(Op::Swap),
        4 => Just(Op::Delete),
        3 => (unknown_key(), value()).prop_map(|(k, v)| Op::AddKey(k, v)),
        2 => value().prop_map(Op::Duplicate),
        1 => (prop_oneof![4 => 1u32..64, 1 => Just(1_000), 1 => Just(10_000), 1 => Just(200_000)], any::<bool>())
            .prop_map(|(d, m)| Op::Nest(d, m)),
        4 => (any::<u32>(), any::<u8>()).prop_map(|(n, how)| Op::Rename(n, how)),
        2 => any::<u32>().prop_map(Op::CopyFrom),
        1 => any::<u32>().prop_map(Op::Alias),
        1 => (1u8..12, 2u8..10).prop_map(|(depth, width)| Op::Laughs(depth, width)),
    ]
}

/// A few mutations (shrinking drops them one by one).
pub fn mutations(max: usize) -> impl Strategy<Value = Vec<Mutation>> {
    let one = || (any::<u32>(), op()).prop_map(|(at, op)| Mutation { at, op });
    prop_oneof![
        3 => proptest::collection::vec(one(), 1..=1),
        1 => proptest::collection::vec(one(), 1..=max),
    ]
}

/// A step from a node to a child.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every node's path, in pre-order.
fn paths(v: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(here.clone());
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    here.push(Step::Key(k.clone()));
                    walk(c, here, out);
                    here.pop();
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    here.push(Step::Index(i));
                    walk(c, here, out);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn node_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Step::Key(k) => v.get_mut(k.as_str()).expect("the path exists"),
        Step::Index(i) => v.get_mut(*i).expect("the path exists"),
    })
}

fn node<'a>(v: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(v, |v, step| match step {
        Step::Key(k) => &v[k.as_str()],
        Step::Index(i) => &v[*i],
    })
}

/// Applies `mutations` in turn to `root` (documents as a list when there are
/// several). `names` are names and paths from every input of the kind, for
/// dangling references.
pub fn apply(root: &mut Value, mutations: &[Mutation], names: &[String]) {
    for (n, m) in mutations.iter().enumerate() {
        apply_one(root, m, names, n);
    }
}

fn apply_one(root: &mut Value, m: &Mutation, names: &[String], n: usize) {
    let all = paths(root);
    let path = all[m.at as usize % all.len()].clone();
    let (parent, last) = match path.split_last() {
        Some((last, parent)) => (Some(parent.to_vec()), Some(last.clone())),
        None => (None, None),
    };
    match &m.op {
        Op::Replace(v) => *node_mut(root, &path) = v.clone(),
        Op::Tweak(k) => {
            let n = node_mut(root, &path);
            *n = tweak(n.take(), *k);
        }
        Op::Swap(k) => {
            let n = node_mut(root, &path);
            *n = swap(n.take(), *k);
        }
        Op::Delete => match (parent, last) {
            (Some(p), Some(Step::Key(k))) => {
                node_mut(root, &p).as_object_mut().expect("a map").remove(&k);
            }
            (Some(p), Some(Step::Index(i))) => {
                node_mut(root, &p).as_array_mut().expect("a list").remove(i);
            }
            _ => *root = Value::Null,
        },
        Op::AddKey(k, v) => match node_mut(root, &path) {
            Value::Object(map) => {
                map.insert(k.clone(), v.clone());
            }
            Value::Array(a) => a.push(v.clone()),
            other => *other = Value::Object(Map::from_iter([(k.clone(), v.clone())])),
        },
        Op::Duplicate(v) => match (parent, last) {
            (Some(p), Some(Step::Key(k))) => {
                let map = node_mut(root, &p).as_object_mut().expect("a map");
                let value = if n.is_multiple_of(2) { map[&k].clone() } else { v.clone() };
                map.insert(dup_key(n, strip_dup(&k)), value);
            }
            (Some(p), Some(Step::Index(i))) => {
                let list = node_mut(root, &p).as_array_mut().expect("a list");
                let item = list[i].clone();
                list.insert(i, item);
            }
            _ => *root = Value::Array(vec![root.clone(), root.clone()]),
        },
        Op::Nest(depth, maps) => {
            let n = node_mut(root, &path);
            let inner = super::emit::write(&[n.take()], super::emit::Style::Lines);
            let (open, close) = if *maps { ("{\"a\": ", "}") } else { ("[", "]") };
            let d = *depth as usize;
            *n = raw(format!("{}{}{}", open.repeat(d), inner.trim_end(), close.repeat(d)));
        }
        Op::Rename(pick, how) => {
            let name = rename(node(root, &path), names, *pick, *how);
            match (parent, last) {
                // A key renamed when the node is a collection (a map's key, e.g. a
                // container name under `containers:` of a behaviour file).
                (Some(p), Some(Step::Key(k))) if !node(root, &path).is_string() => {
                    let map = node_mut(root, &p).as_object_mut().expect("a map");
                    if let Some(v) = map.remove(&k) {
                        map.insert(name, v);
                    }
                }
                _ => *node_mut(root, &path) = Value::String(name),
            }
        }
        Op::CopyFrom(other) => {
            let from = all[*other as usize % all.len()].clone();
            let copy = node(root, &from).clone();
            *node_mut(root, &path) = copy;
        }
        Op::Alias(other) => {
            // The anchor goes on a node written before the alias (a key's
            // value written earlier in pre-order), else the alias dangles.
            let from = all[*other as usize % all.len()].clone();
            if from.is_empty() || path.is_empty() {
                *node_mut(root, &path) = raw("*a");
                return;
            }
            let anchored = node_mut(root, &from);
            let text = super::emit::write(&[anchored.take()], super::emit::Style::Lines);
            *anchored = raw(format!("&a{n} {}", text.trim_end()));
            if let Some(target) = paths(root).get(m.at as usize % all.len()) {
                let target = target.clone();
                if !is_prefix(&from, &target) {
                    *node_mut(root, &target) = raw(format!("*a{n}"));
                }
            }
        }
        Op::Laughs(depth, width) => {
            let mut text = String::from("[&l0 [\"lol\"");
            for d in 1..=*depth {
                let refs = vec![format!("*l{}", d - 1); *width as usize].join(", ");
                text.push_str(&format!(", &l{d} [{refs}]"));
            }
            text.push(']');
            *node_mut(root, &path) = raw(text);
        }
    }
}

fn is_prefix(a: &[Step], b: &[Step]) -> bool {
    a.len() <= b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Step::Key(x), Step::Key(y)) => x == y,
            (Step::Index(x), Step::Index(y)) => x == y,
            _ => false,
        })
}

fn strip_dup(k: &str) -> &str {
    match k.strip_prefix(DUP) {
        Some(rest) => rest.split_once('\u{1}').map_or(rest, |(_, k)| k),
        None => k,
    }
}

fn tweak(v: Value, k: u8) -> Value {
    let k = k as usize;
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(1.0);
            let i = n.as_i64().unwrap_or(f as i64);
            let choices = [
                json!(i.saturating_add(1)),
                json!(i.saturating_sub(1)),
                json!(i.saturating_mul(2)),
                json!(0),
                json!(i.saturating_neg()),
                json!(i.saturating_mul(1000)),
                json!(i64::MAX),
                json!(1u64 << 32),
                json!(f / 3.0),
                json!(1_000_000_000),
            ];
            choices[k % choices.len()].clone()
        }
        Value::String(s) if s.bytes().any(|b| b.is_ascii_digit()) => {
            let start = s.find(|c: char| c.is_ascii_digit()).expect("a digit");
            let end = s[start..].find(|c: char| !c.is_ascii_digit()).map_or(s.len(), |e| start + e);
            let digits = ["0", "1", "2", "999999", "-1", "4294967296", "0.5", "18446744073709551616", "00"];
            format!("{}{}{}", &s[..start], digits[k % digits.len()], &s[end..]).into()
        }
        Value::Bool(b) => Value::Bool(!b),
        other => other,
    }
}

/// The node as another type: a string as a number or bool, a number as a
/// string, a map as a list of its values, a list as a map, anything as null.
fn swap(v: Value, k: u8) -> Value {
    let text = match &v {
        Value::String(s) if !s.starts_with(RAW) => s.clone(),
        other => super::emit::write(std::slice::from_ref(other), super::emit::Style::Lines).trim_end().to_string(),
    };
    match k % 7 {
        0 => Value::String(text),
        1 => {
            text.parse::<i64>().map(|n| json!(n)).or_else(|_| text.parse::<f64>().map(|f| json!(f))).unwrap_or(json!(1))
        }
        2 => Value::Bool(text.len() % 2 == 0),
        3 => match v {
            Value::Array(a) => Value::Object(a.into_iter().enumerate().map(|(i, x)| (i.to_string(), x)).collect()),
            other => Value::Object(Map::from_iter([(text.clone(), other)])),
        },
        4 => match v {
            Value::Object(m) => Value::Array(m.into_iter().map(|(_, x)| x).collect()),
            other => Value::Array(vec![other]),
        },
        5 => Value::Null,
        _ => raw(text.split(['\n', '#']).next().unwrap_or("").to_string()),
    }
}

/// A name to put where a name was: another input's name or path (dangling
/// here, or the wrong kind), or this one with a suffix, truncated, upper-case,
/// with a wildcard or unicode.
fn rename(v: &Value, names: &[String], pick: u32, how: u8) -> String {
    let here = v.as_str().filter(|s| !s.starts_with(RAW)).unwrap_or("web").to_string();
    let other = if names.is_empty() { "nope".to_string() } else { names[pick as usize % names.len()].clone() };
    match how % 10 {
        0..=3 => other,
        4 => format!("{here}-missing"),
        5 => here.chars().take(here.chars().count() / 2).collect(),
        6 => here.to_uppercase(),
        7 => format!("{here}*"),
        8 => format!("{here}\u{301}"),
        _ => format!("{other}/{here}"),
    }
}

/// Every string of a tree, deduplicated: the names it declares and refers to.
pub fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.len() < 200 => out.push(s.clone()),
        Value::Object(m) => {
            for (k, x) in m {
                if k.len() < 200 {
                    out.push(k.clone());
                }
                strings(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}
