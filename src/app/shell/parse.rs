//! Tokenizer and recursive-descent parser for the POSIX `sh` subset podsim
//! interprets (busybox ash grammar): lists, `&&`/`||`, `!`, `{ }`, `( )`,
//! `if`, `while`, `until`, `for`, quoting, `$x`/`${x}`/`$(…)`/`` `…` ``/`$((…))`
//! and the redirections `>`, `>>`, `N>`, `N>&M`. Everything else (pipes,
//! `case`, functions, here-documents, `<`) is [`Unsupported`].
//!
//! Bounded: a script longer than [`MAX_SCRIPT`] bytes or nested deeper than
//! [`MAX_DEPTH`] is refused before any work, and `&&`/`||` chains and lists are
//! flat vectors, so nothing recurses with the script's length.

use super::Unsupported;

/// The longest script read (Kubernetes `args` are a few hundred bytes).
pub(crate) const MAX_SCRIPT: usize = 64 * 1024;
/// The deepest nesting of compound commands and substitutions.
pub(crate) const MAX_DEPTH: usize = 48;

#[derive(Clone, Debug)]
pub(crate) enum Cmd {
    Simple(Simple),
    List(Vec<Cmd>),
    /// The first command, then each `&&` (true) or `||` (false) one.
    AndOr(Box<Cmd>, Vec<(bool, Cmd)>),
    Not(Box<Cmd>),
    Background(Box<Cmd>),
    Group(Box<Cmd>, Vec<Redir>),
    Subshell(Box<Cmd>, Vec<Redir>),
    If(Vec<(Cmd, Cmd)>, Option<Box<Cmd>>, Vec<Redir>),
    Loop {
        until: bool,
        cond: Box<Cmd>,
        body: Box<Cmd>,
        redirs: Vec<Redir>,
    },
    For {
        var: String,
        items: Option<Vec<Word>>,
        body: Box<Cmd>,
        redirs: Vec<Redir>,
    },
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Simple {
    pub assigns: Vec<(String, Word)>,
    pub words: Vec<Word>,
    pub redirs: Vec<Redir>,
}

#[derive(Clone, Debug)]
pub(crate) struct Redir {
    pub fd: u32,
    pub op: RedirOp,
    pub target: Word,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RedirOp {
    Write,
    Append,
    /// `N>&M`
    Dup,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Word(pub Vec<Part>);

#[derive(Clone, Debug)]
pub(crate) enum Part {
    /// Unquoted text.
    Lit(String),
    /// Quoted text (never split).
    Quoted(String),
    Param {
        name: String,
        quoted: bool,
    },
    /// `$((…))`: the expression's text.
    Arith {
        expr: String,
        quoted: bool,
    },
    Subst {
        cmd: Box<Cmd>,
        quoted: bool,
    },
}

impl Word {
    /// The word's text when it is plain unquoted literal text.
    pub(crate) fn literal(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Part::Lit(s)] => Some(s),
            _ => None,
        }
    }
}

/// Parses a whole script.
pub(crate) fn parse(script: &str) -> Result<Cmd, Unsupported> {
    if script.len() > MAX_SCRIPT {
        return Err(Unsupported::new(format!(
            "the script is too long to interpret ({} bytes, at most {MAX_SCRIPT})",
            script.len()
        )));
    }
    let mut p = Parser { s: script.as_bytes(), i: 0, depth: 0 };
    let list = p.list()?;
    p.skip_linebreaks();
    if p.i < p.s.len() {
        return Err(p.unexpected());
    }
    Ok(list)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

const RESERVED_ENDS: [&str; 7] = ["then", "do", "done", "fi", "elif", "else", "}"];

fn is_delim(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c == b'_' || c.is_ascii_alphabetic()) && b.all(|c| c == b'_' || c.is_ascii_alphanumeric())
}

fn syntax(msg: impl std::fmt::Display) -> Unsupported {
    Unsupported::new(format!("a syntax error: {msg}"))
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    fn rest_starts(&self, t: &str) -> bool {
        self.s[self.i..].starts_with(t.as_bytes())
    }

    fn unexpected(&self) -> Unsupported {
        match self.peek() {
            None => syntax("unexpected end of file"),
            Some(_) => {
                let end = (self.i..self.s.len()).find(|&j| self.s[j] == b'\n').unwrap_or(self.s.len()).min(self.i + 20);
                syntax(format!("unexpected `{}`", String::from_utf8_lossy(&self.s[self.i..end]).trim()))
            }
        }
    }

    /// Blanks, line continuations and a comment (up to the newline).
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.i += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.i += 2,
                Some(b'#') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.i += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn skip_linebreaks(&mut self) {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.i += 1;
            } else {
                return;
            }
        }
    }

    /// True when the next token is the reserved word `w`.
    fn at_word(&self, w: &str) -> bool {
        self.rest_starts(w) && self.s.get(self.i + w.len()).is_none_or(|&b| is_delim(b))
    }

    fn expect(&mut self, w: &str) -> Result<(), Unsupported> {
        self.skip_linebreaks();
        if self.at_word(w) {
            self.i += w.len();
            Ok(())
        } else {
            Err(match self.peek() {
                None => syntax(format!("unexpected end of file (expecting \"{w}\")")),
                Some(_) => self.unexpected(),
            })
        }
    }

    fn enter(&mut self) -> Result<(), Unsupported> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported::new(format!("the script nests deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    /// A compound list, up to a reserved word that ends it, a `)` or the end.
    fn list(&mut self) -> Result<Cmd, Unsupported> {
        let mut items = Vec::new();
        loop {
            self.skip_linebreaks();
            if self.peek().is_none_or(|b| b == b')') || RESERVED_ENDS.iter().any(|w| self.at_word(w)) {
                break;
            }
            let mut c = self.and_or()?;
            self.skip_blanks();
            match self.peek() {
                Some(b';') if self.peek_at(1) == Some(b';') => return Err(Unsupported::new("`case` (`;;`)")),
                Some(b';' | b'\n') => self.i += 1,
                Some(b'&') => {
                    self.i += 1;
                    c = Cmd::Background(Box::new(c));
                }
                None | Some(b')') => {}
                Some(_) if RESERVED_ENDS.iter().any(|w| self.at_word(w)) => {}
                Some(_) => return Err(self.unexpected()),
            }
            items.push(c);
        }
        Ok(if items.len() == 1 { items.pop().unwrap() } else { Cmd::List(items) })
    }

    /// A list that must hold at least one command.
    fn body(&mut self) -> Result<Cmd, Unsupported> {
        let c = self.list()?;
        if matches!(&c, Cmd::List(v) if v.is_empty()) {
            return Err(self.unexpected());
        }
        Ok(c)
    }

    fn and_or(&mut self) -> Result<Cmd, Unsupported> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.skip_blanks();
            let and = if self.rest_starts("&&") {
                true
            } else if self.rest_starts("||") {
                false
            } else {
                break;
            };
            self.i += 2;
            self.skip_linebreaks();
            rest.push((and, self.pipeline()?));
        }
        Ok(if rest.is_empty() { first } else { Cmd::AndOr(Box::new(first), rest) })
    }

    fn pipeline(&mut self) -> Result<Cmd, Unsupported> {
        self.skip_blanks();
        let not = self.at_word("!");
        if not {
            self.i += 1;
            self.skip_blanks();
        }
        let c = self.command()?;
        self.skip_blanks();
        if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
            return Err(Unsupported::new("pipelines (`|`)"));
        }
        Ok(if not { Cmd::Not(Box::new(c)) } else { c })
    }

    fn command(&mut self) -> Result<Cmd, Unsupported> {
        self.enter()?;
        let c = self.command_inner()?;
        self.depth -= 1;
        Ok(c)
    }

    fn command_inner(&mut self) -> Result<Cmd, Unsupported> {
        self.skip_blanks();
        for w in ["case", "function", "select"] {
            if self.at_word(w) {
                return Err(Unsupported::new(format!("`{w}`")));
            }
        }
        if self.rest_starts("((") {
            return Err(Unsupported::new("the arithmetic command `(( ))`"));
        }
        let c = if self.at_word("if") {
            self.i += 2;
            let mut arms = Vec::new();
            let cond = self.body()?;
            self.expect("then")?;
            arms.push((cond, self.body()?));
            let mut otherwise = None;
            loop {
                self.skip_linebreaks();
                if self.at_word("elif") {
                    self.i += 4;
                    let cond = self.body()?;
                    self.expect("then")?;
                    arms.push((cond, self.body()?));
                } else if self.at_word("else") {
                    self.i += 4;
                    otherwise = Some(Box::new(self.body()?));
                } else {
                    break;
                }
            }
            self.expect("fi")?;
            Cmd::If(arms, otherwise, Vec::new())
        } else if self.at_word("while") || self.at_word("until") {
            let until = self.at_word("until");
            self.i += 5;
            let cond = Box::new(self.body()?);
            self.expect("do")?;
            let body = Box::new(self.body()?);
            self.expect("done")?;
            Cmd::Loop { until, cond, body, redirs: Vec::new() }
        } else if self.at_word("for") {
            self.i += 3;
            self.skip_blanks();
            let var = match self.word()? {
                Some(w) => w.literal().filter(|s| is_name(s)).map(str::to_string).ok_or_else(|| self.unexpected())?,
                None => return Err(self.unexpected()),
            };
            self.skip_linebreaks();
            let mut items = None;
            if self.at_word("in") {
                self.i += 2;
                let mut words = Vec::new();
                loop {
                    self.skip_blanks();
                    match self.peek() {
                        Some(b';' | b'\n') => {
                            self.i += 1;
                            break;
                        }
                        _ => match self.word()? {
                            Some(w) => words.push(w),
                            None => return Err(self.unexpected()),
                        },
                    }
                }
                items = Some(words);
            } else if self.peek() == Some(b';') {
                self.i += 1;
            }
            self.expect("do")?;
            let body = Box::new(self.body()?);
            self.expect("done")?;
            Cmd::For { var, items, body, redirs: Vec::new() }
        } else if self.at_word("{") {
            self.i += 1;
            let body = self.body()?;
            self.expect("}")?;
            Cmd::Group(Box::new(body), Vec::new())
        } else if self.peek() == Some(b'(') {
            self.i += 1;
            let body = self.body()?;
            self.skip_linebreaks();
            if self.peek() != Some(b')') {
                return Err(self.unexpected());
            }
            self.i += 1;
            Cmd::Subshell(Box::new(body), Vec::new())
        } else {
            return self.simple();
        };
        // Redirections after a compound command.
        let mut c = c;
        loop {
            self.skip_blanks();
            match self.redirection()? {
                Some(r) => match &mut c {
                    Cmd::If(_, _, rs) | Cmd::Group(_, rs) | Cmd::Subshell(_, rs) => rs.push(r),
                    Cmd::Loop { redirs, .. } | Cmd::For { redirs, .. } => redirs.push(r),
                    _ => unreachable!(),
                },
                None => break,
            }
        }
        Ok(c)
    }

    /// A redirection at the cursor (with its optional fd number), if any.
    fn redirection(&mut self) -> Result<Option<Redir>, Unsupported> {
        let start = self.i;
        let mut j = self.i;
        while self.s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        let op_at = self.s.get(j).copied();
        if !matches!(op_at, Some(b'<' | b'>')) {
            return Ok(None);
        }
        let fd = if j > start {
            std::str::from_utf8(&self.s[start..j]).unwrap().parse::<u32>().unwrap_or(u32::MAX)
        } else {
            1
        };
        self.i = j;
        if op_at == Some(b'<') {
            return Err(Unsupported::new(if self.peek_at(1) == Some(b'<') {
                "here-documents (`<<`)"
            } else {
                "input redirections (`<`)"
            }));
        }
        self.i += 1;
        let op = match self.peek() {
            Some(b'>') => {
                self.i += 1;
                RedirOp::Append
            }
            Some(b'&') => {
                self.i += 1;
                RedirOp::Dup
            }
            Some(b'|') => {
                self.i += 1;
                RedirOp::Write
            }
            _ => RedirOp::Write,
        };
        self.skip_blanks();
        match self.word()? {
            Some(target) => Ok(Some(Redir { fd, op, target })),
            None => Err(self.unexpected()),
        }
    }

    fn simple(&mut self) -> Result<Cmd, Unsupported> {
        let mut s = Simple::default();
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(b';' | b'&' | b'|' | b'\n' | b')') => break,
                Some(b'(') => {
                    return Err(if s.words.len() == 1 {
                        Unsupported::new("function definitions")
                    } else {
                        self.unexpected()
                    });
                }
                _ => {}
            }
            if let Some(r) = self.redirection()? {
                s.redirs.push(r);
                continue;
            }
            let Some(w) = self.word()? else { return Err(self.unexpected()) };
            if s.words.is_empty()
                && let Some(Part::Lit(first)) = w.0.first()
                && let Some(eq) = first.find('=')
                && is_name(&first[..eq])
            {
                let name = first[..eq].to_string();
                let rest = first[eq + 1..].to_string();
                let mut parts = w.0;
                if rest.is_empty() {
                    parts.remove(0);
                } else {
                    parts[0] = Part::Lit(rest);
                }
                s.assigns.push((name, Word(parts)));
                continue;
            }
            s.words.push(w);
        }
        if s.words.is_empty() && s.assigns.is_empty() && s.redirs.is_empty() {
            return Err(self.unexpected());
        }
        Ok(Cmd::Simple(s))
    }

    /// One word (unquoted text, quotes, expansions), or `None` at a delimiter.
    fn word(&mut self) -> Result<Option<Word>, Unsupported> {
        let mut parts = Vec::new();
        let mut lit = Vec::new();
        let mut any = false;
        fn flush(lit: &mut Vec<u8>, parts: &mut Vec<Part>, quoted: bool) {
            if !lit.is_empty() {
                let s = String::from_utf8_lossy(lit).into_owned();
                parts.push(if quoted { Part::Quoted(s) } else { Part::Lit(s) });
                lit.clear();
            }
        }
        while let Some(b) = self.peek() {
            if is_delim(b) {
                break;
            }
            any = true;
            match b {
                b'\'' => {
                    flush(&mut lit, &mut parts, false);
                    let start = self.i + 1;
                    let end = (start..self.s.len())
                        .find(|&j| self.s[j] == b'\'')
                        .ok_or_else(|| syntax("unterminated quoted string"))?;
                    parts.push(Part::Quoted(String::from_utf8_lossy(&self.s[start..end]).into_owned()));
                    self.i = end + 1;
                }
                b'"' => {
                    flush(&mut lit, &mut parts, false);
                    self.i += 1;
                    self.double_quoted(&mut parts)?;
                }
                b'\\' => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'\n') => self.i += 1,
                        Some(c) => {
                            flush(&mut lit, &mut parts, false);
                            let len = match c {
                                0xF0.. => 4,
                                0xE0.. => 3,
                                0xC0.. => 2,
                                _ => 1,
                            };
                            let end = (self.i + len).min(self.s.len());
                            parts.push(Part::Quoted(String::from_utf8_lossy(&self.s[self.i..end]).into_owned()));
                            self.i = end;
                        }
                        None => {}
                    }
                }
                b'$' => {
                    flush(&mut lit, &mut parts, false);
                    self.dollar(&mut parts, false)?;
                }
                b'`' => {
                    flush(&mut lit, &mut parts, false);
                    self.backquote(&mut parts, false)?;
                }
                _ => {
                    lit.push(b);
                    self.i += 1;
                }
            }
        }
        flush(&mut lit, &mut parts, false);
        Ok(any.then_some(Word(parts)))
    }

    fn double_quoted(&mut self, parts: &mut Vec<Part>) -> Result<(), Unsupported> {
        let mut lit = Vec::new();
        let flush = |lit: &mut Vec<u8>, parts: &mut Vec<Part>| {
            parts.push(Part::Quoted(String::from_utf8_lossy(lit).into_owned()));
            lit.clear();
        };
        loop {
            match self.peek() {
                None => return Err(syntax("unterminated quoted string")),
                Some(b'"') => {
                    self.i += 1;
                    flush(&mut lit, parts);
                    return Ok(());
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'\n') => self.i += 2,
                    Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                        lit.push(c);
                        self.i += 2;
                    }
                    _ => {
                        lit.push(b'\\');
                        self.i += 1;
                    }
                },
                Some(b'$') => {
                    flush(&mut lit, parts);
                    self.dollar(parts, true)?;
                }
                Some(b'`') => {
                    flush(&mut lit, parts);
                    self.backquote(parts, true)?;
                }
                Some(c) => {
                    lit.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn dollar(&mut self, parts: &mut Vec<Part>, quoted: bool) -> Result<(), Unsupported> {
        self.i += 1; // the `$`
        match self.peek() {
            Some(b'(') if self.peek_at(1) == Some(b'(') => {
                let start = self.i + 2;
                let mut depth = 0usize;
                let mut j = start;
                loop {
                    match self.s.get(j) {
                        None => return Err(syntax("unterminated `$((`")),
                        Some(b'(') => depth += 1,
                        Some(b')') if depth == 0 => {
                            if self.s.get(j + 1) != Some(&b')') {
                                return Err(syntax("`$((` without `))`"));
                            }
                            break;
                        }
                        Some(b')') => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let expr = String::from_utf8_lossy(&self.s[start..j]).into_owned();
                self.i = j + 2;
                parts.push(Part::Arith { expr, quoted });
            }
            Some(b'(') => {
                self.i += 1;
                self.enter()?;
                let cmd = self.list()?;
                self.depth -= 1;
                self.skip_linebreaks();
                if self.peek() != Some(b')') {
                    return Err(self.unexpected());
                }
                self.i += 1;
                parts.push(Part::Subst { cmd: Box::new(cmd), quoted });
            }
            Some(b'{') => {
                let start = self.i + 1;
                let end = (start..self.s.len()).find(|&j| self.s[j] == b'}').ok_or_else(|| syntax("missing `}`"))?;
                let name = String::from_utf8_lossy(&self.s[start..end]).into_owned();
                let special = name.len() == 1 && name.bytes().all(|b| b.is_ascii_digit() || b"?#@*$!-".contains(&b));
                if !is_name(&name) && !special && !name.bytes().all(|b| b.is_ascii_digit()) || name.is_empty() {
                    return Err(Unsupported::new(format!("the parameter expansion `${{{name}}}`")));
                }
                self.i = end + 1;
                parts.push(Part::Param { name, quoted });
            }
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => {
                let start = self.i;
                while self.peek().is_some_and(|c| c == b'_' || c.is_ascii_alphanumeric()) {
                    self.i += 1;
                }
                let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                parts.push(Part::Param { name, quoted });
            }
            Some(c) if c.is_ascii_digit() || b"?#@*$!-".contains(&c) => {
                self.i += 1;
                parts.push(Part::Param { name: (c as char).to_string(), quoted });
            }
            _ => parts.push(if quoted { Part::Quoted("$".into()) } else { Part::Lit("$".into()) }),
        }
        Ok(())
    }

    /// `` `cmd` ``: the text up to the closing backquote (with `\`` etc.
    /// unescaped) is parsed as a script.
    fn backquote(&mut self, parts: &mut Vec<Part>, quoted: bool) -> Result<(), Unsupported> {
        self.i += 1;
        let mut text = Vec::new();
        loop {
            match self.peek() {
                None => return Err(syntax("unterminated backquote")),
                Some(b'`') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') if matches!(self.peek_at(1), Some(b'`' | b'\\' | b'$')) => {
                    text.push(self.peek_at(1).unwrap());
                    self.i += 2;
                }
                Some(c) => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        self.enter()?;
        let inner = String::from_utf8_lossy(&text).into_owned();
        let mut p = Parser { s: inner.as_bytes(), i: 0, depth: self.depth };
        let cmd = p.list()?;
        p.skip_linebreaks();
        if p.i < p.s.len() {
            return Err(p.unexpected());
        }
        self.depth -= 1;
        parts.push(Part::Subst { cmd: Box::new(cmd), quoted });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simple_words(c: &Cmd) -> Vec<String> {
        match c {
            Cmd::Simple(s) => s.words.iter().map(|w| w.literal().unwrap_or("?").to_string()).collect(),
            other => panic!("not simple: {other:?}"),
        }
    }

    #[test]
    fn lists_and_words() {
        let c = parse("touch /tmp/healthy; sleep 30\n# comment\nrm -f /tmp/healthy # end").unwrap();
        let Cmd::List(items) = c else { panic!() };
        assert_eq!(items.len(), 3);
        assert_eq!(simple_words(&items[0]), ["touch", "/tmp/healthy"]);
        assert_eq!(simple_words(&items[2]), ["rm", "-f", "/tmp/healthy"]);
    }

    #[test]
    fn compounds_parse() {
        for s in [
            "while true; do sleep 1; done",
            "until false\ndo\n  :\ndone",
            "if [ -f /x ]; then echo a; elif true; then :; else echo b; fi",
            "for i in 1 2 3; do echo $i; done > /tmp/out",
            "{ echo a; echo b; } 2>&1",
            "( exit 3 ) || echo $?",
            "! false && echo \"a $x ${y}\" 'b' c\\ d",
            "trap 'exit 0' TERM; sleep 600 & wait",
            "x=$(echo hi) y=`echo $x`; echo $((x + 1))",
        ] {
            parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
    }

    #[test]
    fn unsupported_grammar_is_named() {
        assert!(parse("echo a | cat").unwrap_err().what.contains("pipelines"));
        assert!(parse("case x in a) :;; esac").unwrap_err().what.contains("case"));
        assert!(parse("f() { :; }").unwrap_err().what.contains("function"));
        assert!(parse("cat <<EOF\nx\nEOF").unwrap_err().what.contains("here-documents"));
        assert!(parse("echo ${x:-y}").unwrap_err().what.contains("${x:-y}"));
        assert!(parse("if true; then").unwrap_err().what.contains("syntax error"));
        assert!(parse("echo 'open").unwrap_err().what.contains("syntax error"));
    }

    #[test]
    fn depth_and_length_are_bounded() {
        let deep = format!("{}:{}", "( ".repeat(1000), " )".repeat(1000));
        assert!(parse(&deep).unwrap_err().what.contains("nests deeper"));
        let long = "echo x; ".repeat(200_000);
        assert!(parse(&long).unwrap_err().what.contains("too long"));
        let chain = format!("true{}", " && true".repeat(5000));
        parse(&chain).unwrap();
    }
}
