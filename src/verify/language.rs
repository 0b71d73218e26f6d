//! The property language of `podsim verify`, one property per line:
//!
//! ```text
//! property := kind condition window*
//! kind     := always | never | eventually | sometimes
//! window   := after DURATION | within DURATION
//! condition:= cmp | condition and condition | condition or condition
//!           | not condition | ( condition )
//! cmp      := sum [ (< | <= | > | >= | == | !=) sum ]
//! sum      := term { (+ | -) term }          (+ and - need spaces around them)
//! term     := NUMBER | DURATION | state(SUBJECT) | event(SUBJECT[, ARG])
//!           | SUBJECT:EVENT                  (a milestone's full name)
//! ```
//!
//! A state function (`ready_endpoints(svc/web)`) is a count that changes
//! over the run; a milestone (`first_ok(svc/web)`) is the time it happened,
//! infinitely late if it never did. A bare count holds while it is not
//! zero; a bare milestone holds from the time it happened.

use super::functions::{Ty, WITH_ORDINAL, state_function};
use crate::milestones::events::{self, EventCheck};
use crate::time::{SimDuration, parse_duration};
use std::fmt;

/// One parsed property.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// As written, for reports.
    pub text: String,
    pub kind: Kind,
    pub cond: Cond,
    /// Checked from this time on (default: the start of the run).
    pub after: Option<SimDuration>,
    /// Checked up to this time (default: the end of the run).
    pub within: Option<SimDuration>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// At every instant of the window, in every run.
    Always,
    /// At no instant of the window, in any run.
    Never,
    /// At some instant of the window, in every run.
    Eventually,
    /// At some instant of the window, in at least one run.
    Sometimes,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Always => "always",
            Kind::Never => "never",
            Kind::Eventually => "eventually",
            Kind::Sometimes => "sometimes",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Cmp(Term, Op, Term),
    /// A count that is not zero, or a milestone already reached.
    Holds(Term),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    pub fn apply(self, a: f64, b: f64) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Count(f64),
    Duration(SimDuration),
    /// A count over time: `ready_endpoints(svc/web)`.
    State {
        function: &'static str,
        subject: String,
    },
    /// A milestone's time: `pod/web:ready`; the subject may hold `*`.
    Milestone {
        subject: String,
        event: String,
    },
    Add(Box<Term>, Box<Term>),
    Sub(Box<Term>, Box<Term>),
}

impl Cond {
    /// The state functions and milestones it reads.
    pub fn leaves(&self) -> Vec<&Term> {
        let mut out = Vec::new();
        let mut conds = vec![self];
        while let Some(c) = conds.pop() {
            match c {
                Cond::Cmp(a, _, b) => {
                    a.leaves(&mut out);
                    b.leaves(&mut out);
                }
                Cond::Holds(t) => t.leaves(&mut out),
                Cond::Not(c) => conds.push(c),
                Cond::And(a, b) | Cond::Or(a, b) => {
                    conds.push(b);
                    conds.push(a);
                }
            }
        }
        out
    }
}

impl Term {
    fn leaves<'a>(&'a self, out: &mut Vec<&'a Term>) {
        match self {
            Term::State { .. } | Term::Milestone { .. } => out.push(self),
            Term::Add(a, b) | Term::Sub(a, b) => {
                a.leaves(out);
                b.leaves(out);
            }
            Term::Count(_) | Term::Duration(_) => {}
        }
    }

    /// The subject a state function or milestone is about.
    pub fn subject(&self) -> Option<&str> {
        match self {
            Term::State { subject, .. } | Term::Milestone { subject, .. } => Some(subject),
            _ => None,
        }
    }

    pub fn ty(&self) -> Ty {
        match self {
            Term::Count(_) | Term::State { .. } => Ty::Count,
            Term::Duration(_) | Term::Milestone { .. } => Ty::Time,
            Term::Add(a, _) | Term::Sub(a, _) => a.ty(),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Count(n) => write!(f, "{n}"),
            Term::Duration(d) => write!(f, "{d}"),
            Term::State { function, subject } => write!(f, "{function}({subject})"),
            Term::Milestone { subject, event } => write!(f, "{subject}:{event}"),
            Term::Add(a, b) => write!(f, "{a} + {b}"),
            Term::Sub(a, b) => write!(f, "{a} - {b}"),
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Cmp(a, op, b) => write!(f, "{a} {} {b}", op.as_str()),
            Cond::Holds(t) => write!(f, "{t}"),
            Cond::Not(c) => write!(f, "not ({c})"),
            Cond::And(a, b) => write!(f, "({a}) and ({b})"),
            Cond::Or(a, b) => write!(f, "({a}) or ({b})"),
        }
    }
}

/// A syntax error, at a column (1-based) of the property's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Op(Op),
    Plus,
    Minus,
    Open,
    Close,
}

/// Splits a property into tokens, each with its byte offset. A word runs to
/// the next space or operator; parentheses that follow a word's first
/// character belong to it (`endpoint_ready(svc/web, pod/a)`).
fn tokens(text: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let two = text.get(i..i + 2).unwrap_or("");
        let spaced = |j: usize| bytes.get(j).is_none_or(|b| b.is_ascii_whitespace());
        let (tok, len) = match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ if two == "<=" => (Tok::Op(Op::Le), 2),
            _ if two == ">=" => (Tok::Op(Op::Ge), 2),
            _ if two == "==" => (Tok::Op(Op::Eq), 2),
            _ if two == "!=" => (Tok::Op(Op::Ne), 2),
            b'<' => (Tok::Op(Op::Lt), 1),
            b'>' => (Tok::Op(Op::Gt), 1),
            b'(' => (Tok::Open, 1),
            b')' => (Tok::Close, 1),
            b'+' if spaced(i + 1) => (Tok::Plus, 1),
            b'-' if spaced(i + 1) => (Tok::Minus, 1),
            b'=' | b'!' => return Err(ParseError { column: i + 1, message: format!("unexpected {:?}", c as char) }),
            _ => {
                let mut depth = 0usize;
                let mut j = i;
                while j < bytes.len() {
                    match bytes[j] {
                        b'(' => depth += 1,
                        b')' if depth == 0 => break,
                        b')' => depth -= 1,
                        b if depth == 0 && (b.is_ascii_whitespace() || b"<>=!".contains(&b)) => break,
                        _ => {}
                    }
                    j += 1;
                }
                if depth > 0 {
                    return Err(ParseError { column: i + 1, message: "missing closing parenthesis".into() });
                }
                (Tok::Word(text[i..j].to_string()), j - i)
            }
        };
        out.push((i, tok));
        i += len;
    }
    Ok(out)
}

/// Parses one property.
pub fn parse(text: &str) -> Result<Property, ParseError> {
    let mut p = Parser { toks: tokens(text)?, at: 0, end: text.len() };
    let kind = match p.word() {
        Some("always") => Kind::Always,
        Some("never") => Kind::Never,
        Some("eventually") => Kind::Eventually,
        Some("sometimes") => Kind::Sometimes,
        _ => return Err(p.error("a property starts with always, never, eventually or sometimes")),
    };
    p.at += 1;
    let cond = p.or()?;
    let (mut after, mut within) = (None, None);
    while let Some(w) = p.word().filter(|w| ["after", "within"].contains(w)).map(str::to_string) {
        let column = p.column();
        p.at += 1;
        let d = match p.toks.get(p.at) {
            Some((_, Tok::Word(d))) => parse_duration(d).map_err(|e| ParseError { column: p.column(), message: e })?,
            _ => return Err(p.error(&format!("{w} needs a duration (e.g. {w} 30s)"))),
        };
        p.at += 1;
        let slot = if w == "after" { &mut after } else { &mut within };
        let w = w.as_str();
        if slot.replace(d).is_some() {
            return Err(ParseError { column, message: format!("{w} given twice") });
        }
    }
    if p.at < p.toks.len() {
        return Err(p.error("unexpected text (a window is `after D` or `within D`)"));
    }
    if let (Some(a), Some(w)) = (after, within)
        && a > w
    {
        return Err(ParseError {
            column: 1,
            message: format!("the window is empty: after {a} is later than within {w}"),
        });
    }
    let mut patterns: Vec<&str> =
        cond.leaves().into_iter().filter_map(Term::subject).filter(|s| s.contains('*')).collect();
    patterns.sort_unstable();
    patterns.dedup();
    if let [a, b, ..] = patterns[..] {
        return Err(ParseError {
            column: 1,
            message: format!("one wildcard subject per property (found {a} and {b})"),
        });
    }
    Ok(Property { text: text.trim().to_string(), kind, cond, after, within })
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    at: usize,
    end: usize,
}

impl Parser {
    fn word(&self) -> Option<&str> {
        match self.toks.get(self.at) {
            Some((_, Tok::Word(w))) => Some(w),
            _ => None,
        }
    }

    fn column(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |(i, _)| *i) + 1
    }

    fn error(&self, message: &str) -> ParseError {
        ParseError { column: self.column(), message: message.to_string() }
    }

    fn or(&mut self) -> Result<Cond, ParseError> {
        let mut c = self.and()?;
        while self.word() == Some("or") {
            self.at += 1;
            c = Cond::Or(Box::new(c), Box::new(self.and()?));
        }
        Ok(c)
    }

    fn and(&mut self) -> Result<Cond, ParseError> {
        let mut c = self.not()?;
        while self.word() == Some("and") {
            self.at += 1;
            c = Cond::And(Box::new(c), Box::new(self.not()?));
        }
        Ok(c)
    }

    fn not(&mut self) -> Result<Cond, ParseError> {
        if self.word() == Some("not") {
            self.at += 1;
            return Ok(Cond::Not(Box::new(self.not()?)));
        }
        if let Some((_, Tok::Open)) = self.toks.get(self.at) {
            self.at += 1;
            let c = self.or()?;
            match self.toks.get(self.at) {
                Some((_, Tok::Close)) => self.at += 1,
                _ => return Err(self.error("expected )")),
            }
            return Ok(c);
        }
        self.cmp()
    }

    fn cmp(&mut self) -> Result<Cond, ParseError> {
        let column = self.column();
        let a = self.sum()?;
        let Some((_, Tok::Op(op))) = self.toks.get(self.at).cloned() else {
            return match a {
                Term::State { .. } | Term::Milestone { .. } => Ok(Cond::Holds(a)),
                _ => Err(ParseError { column, message: format!("{a} alone is not a condition") }),
            };
        };
        self.at += 1;
        let b = self.sum()?;
        if a.ty() != b.ty() {
            return Err(ParseError {
                column,
                message: format!("cannot compare {} ({a}) with {} ({b})", a.ty().as_str(), b.ty().as_str()),
            });
        }
        Ok(Cond::Cmp(a, op, b))
    }

    fn sum(&mut self) -> Result<Term, ParseError> {
        let mut t = self.term()?;
        loop {
            let plus = match self.toks.get(self.at) {
                Some((_, Tok::Plus)) => true,
                Some((_, Tok::Minus)) => false,
                _ => return Ok(t),
            };
            let column = self.column();
            self.at += 1;
            let u = self.term()?;
            if t.ty() != u.ty() {
                let message = format!("cannot add or subtract {} ({u}) and {} ({t})", u.ty().as_str(), t.ty().as_str());
                return Err(ParseError { column, message });
            }
            t = if plus { Term::Add(Box::new(t), Box::new(u)) } else { Term::Sub(Box::new(t), Box::new(u)) };
        }
    }

    fn term(&mut self) -> Result<Term, ParseError> {
        let column = self.column();
        let Some(word) = self.word().map(str::to_string) else {
            return Err(self.error("expected a number, a duration, a function or a milestone"));
        };
        self.at += 1;
        term(&word).map_err(|message| ParseError { column, message })
    }
}

const KEYWORDS: [&str; 9] = ["always", "never", "eventually", "sometimes", "and", "or", "not", "after", "within"];

/// One word as a term.
fn term(word: &str) -> Result<Term, String> {
    if KEYWORDS.contains(&word) {
        return Err(format!("{word:?} is a keyword, expected a term here"));
    }
    if word.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        if let Ok(n) = word.parse::<f64>() {
            return Ok(Term::Count(n));
        }
        return parse_duration(word).map(Term::Duration);
    }
    if let Some(open) = word.find('(')
        && !word[..open].contains([':', '/'])
    {
        let name = &word[..open];
        let inner = word[open + 1..]
            .strip_suffix(')')
            .ok_or_else(|| format!("{word:?}: text after the closing parenthesis"))?;
        let args: Vec<&str> = inner.split(',').map(str::trim).collect();
        if let Some((function, kinds)) = state_function(name).filter(|(f, _)| WITH_ORDINAL.contains(f)) {
            let [subject, ordinal] = args[..] else {
                return Err(format!("{name} takes a subject and an ordinal, e.g. {name}({}/NAME, 2)", kinds[0]));
            };
            check_subject(subject, kinds).map_err(|e| format!("{name}: {e}"))?;
            if ordinal.is_empty() || !ordinal.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("{name}: {ordinal:?} is not an ordinal (0, 1, 2, …)"));
            }
            return Ok(Term::State { function, subject: format!("{subject}#{ordinal}") });
        }
        if let Some((function, kinds)) = state_function(name) {
            let [subject] = args[..] else {
                return Err(format!("{name} takes one subject, e.g. {name}({}/NAME)", kinds[0]));
            };
            check_subject(subject, kinds).map_err(|e| format!("{name}: {e}"))?;
            return Ok(Term::State { function, subject: subject.to_string() });
        }
        let (subject, event) = match args[..] {
            [subject] => (subject, name.to_string()),
            [subject, arg] => (subject, format!("{name}({arg})")),
            _ => return Err(format!("{name} takes a subject and at most one argument")),
        };
        return milestone(subject, &event);
    }
    if let Some((subject, event)) = word.split_once(':')
        && subject.contains('/')
    {
        return milestone(subject, event);
    }
    Err(format!(
        "{word:?}: expected a number, a duration (30s), a function such as ready_endpoints(svc/web), or a milestone such as pod/web:ready"
    ))
}

fn milestone(subject: &str, event: &str) -> Result<Term, String> {
    check_subject(subject, &events::SUBJECT_KINDS)?;
    match events::check(subject, event) {
        EventCheck::Known => Ok(Term::Milestone { subject: subject.to_string(), event: event.to_string() }),
        EventCheck::Unknown(known) => Err(format!("{subject}: no milestone {event:?} (its events: {known})")),
    }
}

/// `kind/name`, where the name may hold `*`.
fn check_subject(subject: &str, kinds: &[&str]) -> Result<(), String> {
    match subject.split_once('/') {
        Some((kind, name)) if kinds.contains(&kind) && !name.is_empty() => Ok(()),
        _ => Err(format!(
            "{subject:?}: expected a subject {}",
            kinds.iter().map(|k| format!("{k}/NAME")).collect::<Vec<_>>().join(" or ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> SimDuration {
        SimDuration::from_secs(s)
    }

    #[test]
    fn parses_the_issue_examples() {
        let p = parse("always ready_endpoints(svc/web) >= 1 after 30s").unwrap();
        assert_eq!(p.kind, Kind::Always);
        assert_eq!(p.after, Some(secs(30)));
        let state = Term::State { function: "ready_endpoints", subject: "svc/web".into() };
        assert_eq!(p.cond, Cond::Cmp(state, Op::Ge, Term::Count(1.0)));

        let p = parse("never restarts(pod/*) > 0").unwrap();
        assert_eq!(p.kind, Kind::Never);
        assert_eq!(
            p.cond,
            Cond::Cmp(Term::State { function: "restarts", subject: "pod/*".into() }, Op::Gt, Term::Count(0.0))
        );

        let p = parse("eventually rollout_complete(deploy/web) within 5m").unwrap();
        assert_eq!(p.within, Some(secs(300)));
        assert_eq!(
            p.cond,
            Cond::Holds(Term::Milestone { subject: "deploy/web".into(), event: "rollout_complete".into() })
        );

        let p = parse("sometimes first_ok(svc/web) < 15s").unwrap();
        let first_ok = Term::Milestone { subject: "svc/web".into(), event: "first_ok".into() };
        assert_eq!(p.cond, Cond::Cmp(first_ok, Op::Lt, Term::Duration(secs(15))));
    }

    #[test]
    fn milestones_by_function_or_full_name() {
        let a = parse("always endpoint_ready(svc/web, pod/web@rev1#1) - ready(pod/web@rev1#1) < 1s").unwrap();
        let b = parse("always svc/web:endpoint_ready(pod/web@rev1#1) - pod/web@rev1#1:ready < 1s").unwrap();
        assert_eq!(a.cond, b.cond);
        let Cond::Cmp(Term::Sub(x, _), Op::Lt, _) = &a.cond else { panic!("{:?}", a.cond) };
        assert_eq!(**x, Term::Milestone { subject: "svc/web".into(), event: "endpoint_ready(pod/web@rev1#1)".into() });
    }

    #[test]
    fn precedence_not_and_or() {
        let p = parse("never not ready(pod/a) and restarts(pod/a) > 0 or failed_requests(svc/web) > 3").unwrap();
        let Cond::Or(left, _) = &p.cond else { panic!("or binds loosest: {:?}", p.cond) };
        let Cond::And(not, _) = &**left else { panic!("and binds tighter: {left:?}") };
        assert!(matches!(**not, Cond::Not(_)));
        let q = parse("always (ready(pod/a) or ready(pod/b)) and ready_endpoints(svc/web) > 0").unwrap();
        assert!(matches!(q.cond, Cond::And(..)));
    }

    #[test]
    fn errors_name_the_column_and_the_reason() {
        let e = parse("usually ready(pod/a)").unwrap_err();
        assert_eq!(
            (e.column, e.message.as_str()),
            (1, "a property starts with always, never, eventually or sometimes")
        );
        let e = parse("always ready_endpoints(svc/web) >= 1s").unwrap_err();
        assert_eq!(e.column, 8);
        assert_eq!(e.message, "cannot compare a count (ready_endpoints(svc/web)) with a time (1s)");
        let e = parse("always restarts(svc/web) > 0").unwrap_err();
        assert_eq!(e.message, "restarts: \"svc/web\": expected a subject pod/NAME");
        let e = parse("eventually redy(pod/a)").unwrap_err();
        assert!(e.message.starts_with("pod/a: no milestone \"redy\" (its events: "), "{}", e.message);
        let e = parse("always ready(pod/a) after").unwrap_err();
        assert_eq!(e.message, "after needs a duration (e.g. after 30s)");
        let e = parse("always ready(pod/a) after 10s within 5s").unwrap_err();
        assert_eq!(e.message, "the window is empty: after 10s is later than within 5s");
        let e = parse("always ready_endpoints(svc/web").unwrap_err();
        assert_eq!((e.column, e.message.as_str()), (8, "missing closing parenthesis"));
        let e = parse("always 3").unwrap_err();
        assert_eq!(e.message, "3 alone is not a condition");
        let e = parse("never restarts(pod/*) > 0 and ready_endpoints(svc/*) > 0").unwrap_err();
        assert_eq!(e.message, "one wildcard subject per property (found pod/* and svc/*)");
    }
}
