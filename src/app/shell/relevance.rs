//! Which variables can change what the loop detector must compare.
//!
//! The docs' counter, `i=0; while true; do echo "$i: $(date)"; i=$((i+1));
//! sleep 1; done`, never repeats a state exactly: `i` grows. But `i` only
//! reaches the container's log, which podsim does not model, so two
//! iterations that differ only in `i` have the same future in everything
//! podsim predicts (files, exit, signals). A variable is *output-only* when
//! every read of it is
//! * an argument of `echo` with no redirection, outside `$(…)` and outside
//!   any redirected compound command (so it reaches only the log), or
//! * in the value assigned to an output-only variable;
//!
//! and, when it is read inside `$((…))`, every value assigned to it is an
//! integer or a `$((…))` without `/` or `%`, so that arithmetic never fails
//! whatever the count. Every other variable is *relevant* and compared.
//! Scripts that run text podsim cannot see ahead (`eval`, `exec`, a nested
//! `sh`, `read`, a trap action that is not a literal) make all relevant.

use super::parse::{self, Cmd, Part, Simple, Word};
use std::collections::{BTreeMap, BTreeSet};

/// The output-only variables of `script` (empty when it cannot tell).
pub(crate) fn output_only(script: &Cmd) -> BTreeSet<String> {
    let mut w = Walk::default();
    w.cmd(script, true);
    if w.opaque {
        return BTreeSet::new();
    }
    let mut relevant = w.relevant;
    // Arithmetic on a variable that may hold anything could fail.
    for (name, integer) in &w.assigned {
        if !integer && w.arith_reads.contains(name) {
            relevant.insert(name.clone());
        }
    }
    loop {
        let before = relevant.len();
        for (target, sources) in &w.flows {
            if relevant.contains(target) {
                relevant.extend(sources.iter().cloned());
            }
        }
        if relevant.len() == before {
            break;
        }
    }
    w.all.into_iter().filter(|v| !relevant.contains(v)).collect()
}

#[derive(Default)]
struct Walk {
    all: BTreeSet<String>,
    relevant: BTreeSet<String>,
    /// Assigned variable → variables read in its values.
    flows: Vec<(String, BTreeSet<String>)>,
    /// Variable → every value assigned is an integer or plain arithmetic.
    assigned: BTreeMap<String, bool>,
    arith_reads: BTreeSet<String>,
    opaque: bool,
}

fn arith_names(expr: &str) -> (BTreeSet<String>, bool) {
    let mut names = BTreeSet::new();
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' || b[i].is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            names.insert(expr[start..i].to_string());
        } else {
            i += 1;
        }
    }
    (names, expr.contains(['/', '%']))
}

impl Walk {
    /// The variables `w` reads; `$(…)` inside it is walked as a command.
    fn reads(&mut self, w: &Word) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for part in &w.0 {
            match part {
                Part::Lit(_) | Part::Quoted(_) => {}
                Part::Param { name, .. } => {
                    out.insert(name.clone());
                }
                Part::Arith { expr, .. } => {
                    let (names, divides) = arith_names(expr);
                    if divides {
                        self.relevant.extend(names.iter().cloned());
                    }
                    self.arith_reads.extend(names.iter().cloned());
                    out.extend(names);
                }
                Part::Subst { cmd, .. } => self.cmd(cmd, false),
            }
        }
        self.all.extend(out.iter().cloned());
        out
    }

    fn relevant_reads(&mut self, w: &Word) {
        let r = self.reads(w);
        self.relevant.extend(r);
    }

    fn assign(&mut self, name: &str, value: Option<&Word>) {
        self.all.insert(name.to_string());
        let integer = match value {
            Some(w) => match w.0.as_slice() {
                [] => true,
                [Part::Lit(s)] => s.parse::<i64>().is_ok(),
                [Part::Arith { expr, .. }] => !expr.contains(['/', '%']),
                _ => false,
            },
            None => false,
        };
        let e = self.assigned.entry(name.to_string()).or_insert(true);
        *e &= integer;
        if let Some(w) = value {
            let r = self.reads(w);
            self.flows.push((name.to_string(), r));
        }
    }

    /// `to_log`: a plain `echo` here writes only to the container's log.
    fn cmd(&mut self, c: &Cmd, to_log: bool) {
        match c {
            Cmd::Simple(s) => self.simple(s, to_log),
            Cmd::List(items) => items.iter().for_each(|c| self.cmd(c, to_log)),
            Cmd::AndOr(first, rest) => {
                self.cmd(first, to_log);
                rest.iter().for_each(|(_, c)| self.cmd(c, to_log));
            }
            Cmd::Not(c) | Cmd::Background(c) => self.cmd(c, to_log),
            Cmd::Group(c, rs) | Cmd::Subshell(c, rs) => {
                rs.iter().for_each(|r| self.relevant_reads(&r.target));
                self.cmd(c, to_log && rs.is_empty());
            }
            Cmd::If(arms, otherwise, rs) => {
                rs.iter().for_each(|r| self.relevant_reads(&r.target));
                let to_log = to_log && rs.is_empty();
                for (cond, body) in arms {
                    self.cmd(cond, to_log);
                    self.cmd(body, to_log);
                }
                if let Some(o) = otherwise {
                    self.cmd(o, to_log);
                }
            }
            Cmd::Loop { cond, body, redirs, .. } => {
                redirs.iter().for_each(|r| self.relevant_reads(&r.target));
                self.cmd(cond, to_log && redirs.is_empty());
                self.cmd(body, to_log && redirs.is_empty());
            }
            Cmd::For { var, items, body, redirs } => {
                redirs.iter().for_each(|r| self.relevant_reads(&r.target));
                for w in items.iter().flatten() {
                    self.relevant_reads(w);
                }
                self.assign(var, None);
                self.relevant.insert(var.clone());
                self.cmd(body, to_log && redirs.is_empty());
            }
        }
    }

    fn simple(&mut self, s: &Simple, to_log: bool) {
        for (name, w) in &s.assigns {
            self.assign(name, Some(w));
        }
        for r in &s.redirs {
            self.relevant_reads(&r.target);
        }
        let Some(first) = s.words.first() else { return };
        let Some(name) = first.literal() else {
            self.opaque = true;
            return;
        };
        let name = name.rsplit('/').next().unwrap_or(name);
        match name {
            "eval" | "exec" | "read" | "sh" | "bash" | "ash" | "dash" | "." | "source" | "set" | "export"
            | "readonly" => self.opaque = true,
            "echo" if to_log && s.redirs.is_empty() => {
                for w in &s.words[1..] {
                    self.reads(w);
                }
            }
            "trap" => {
                for w in &s.words[1..] {
                    match w.0.as_slice() {
                        [Part::Lit(t) | Part::Quoted(t)] => match parse::parse(t) {
                            Ok(c) => self.cmd(&c, to_log),
                            Err(_) => self.opaque = true,
                        },
                        _ => self.opaque = true,
                    }
                }
            }
            _ => {
                for w in &s.words {
                    self.relevant_reads(w);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(script: &str) -> Vec<String> {
        output_only(&parse::parse(script).unwrap()).into_iter().collect()
    }

    #[test]
    fn counters_that_only_reach_the_log() {
        assert_eq!(only("i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done"), ["i"]);
        assert_eq!(only("i=0; while true; do j=$((i*2)); echo $j; i=$((i+1)); done"), ["i", "j"]);
        // Read by a test, a sleep, a redirection, an exit: relevant.
        assert!(only("i=0; while [ $i -lt 9 ]; do i=$((i+1)); done").is_empty());
        assert!(only("i=1; while true; do i=$((i+1)); sleep $i; done").is_empty());
        assert!(only("i=0; while true; do echo $i > /tmp/n; i=$((i+1)); done").is_empty());
        assert!(only("i=0; while true; do echo $i; i=$((i+1)); done > /tmp/log").is_empty());
        assert!(only("i=0; trap 'exit $i' TERM; while true; do i=$((i+1)); done").is_empty());
        // Arithmetic that could fail on what the variable holds.
        assert!(only("i=x; while true; do i=$((i+1)); echo $i; done").is_empty());
        assert!(only("i=1; while true; do i=$((10/i)); done").is_empty());
        // Text podsim cannot see ahead.
        assert!(only("i=0; while true; do i=$((i+1)); eval echo $i; done").is_empty());
    }
}
