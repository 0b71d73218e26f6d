//! The real properties: every `podsim verify` session of the book, split
//! into its inputs (the scenario or manifests and flags) and its `-p`
//! properties.

use super::harness::ROOT;
use std::path::Path;
use std::sync::OnceLock;

/// One book command: the arguments after `verify` that are not properties
/// (model paths absolute, no `--runs`, `-o`), and its properties.
pub struct Verify {
    pub inputs: Vec<String>,
    pub properties: Vec<String>,
}

pub fn commands() -> &'static [Verify] {
    static C: OnceLock<Vec<Verify>> = OnceLock::new();
    C.get_or_init(|| {
        let mut out = Vec::new();
        let mut files: Vec<_> = std::fs::read_dir(Path::new(ROOT).join("book/src"))
            .expect("book/src")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a chapter");
            let mut lines = text.lines();
            while let Some(line) = lines.next() {
                let Some(cmd) = line.strip_prefix("$ podsim verify ") else { continue };
                let mut cmd = cmd.to_string();
                while cmd.ends_with('\\') {
                    cmd.pop();
                    cmd.push_str(lines.next().unwrap_or(""));
                }
                if let Some(v) = parse(&cmd) {
                    out.push(v);
                }
            }
        }
        assert!(out.len() >= 5, "the book's verify sessions: {}", out.len());
        out
    })
}

fn parse(cmd: &str) -> Option<Verify> {
    let words = split(cmd);
    let mut inputs = Vec::new();
    let mut properties = Vec::new();
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "|" | "2>/dev/null" | ">" => break,
            "-p" | "--property" => properties.push(it.next()?),
            "--runs" | "-o" | "--jobs" => {
                it.next();
            }
            _ if w.starts_with("models/") => inputs.push(Path::new(ROOT).join(&w).to_string_lossy().into_owned()),
            _ => inputs.push(w),
        }
    }
    (!properties.is_empty()).then_some(Verify { inputs, properties })
}

/// Words of a shell command line: single and double quotes, no escapes.
fn split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    let mut quote = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => out.extend(cur.take()),
            (None, c) => cur.get_or_insert_default().push(c),
        }
    }
    out.extend(cur);
    out
}

#[test]
fn the_book_commands_split_into_inputs_and_properties() {
    let v = parse("models/scenarios/c28-service.yaml --seed 23 -p 'always pod/c28-probe:ready < 15s' -o json")
        .expect("a command");
    assert_eq!(v.properties, ["always pod/c28-probe:ready < 15s"]);
    assert!(v.inputs[0].ends_with("models/scenarios/c28-service.yaml") && v.inputs[1..] == ["--seed", "23"]);
}
