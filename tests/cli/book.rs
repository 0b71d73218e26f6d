//! The book says what the code does: every `podsim …` command it quotes
//! parses with the real flags (`src/cli/args.rs`), and every `$ podsim …`
//! session it shows prints what it shows.
//!
//! Sessions: in a fenced block, a line `$ podsim …` (continued by a trailing
//! `\`) is a command; the lines after it, up to the next `$ ` line or the
//! end of the block, are its output (stdout and stderr), compared line by
//! line with trailing spaces ignored. A line `…` stands for any number of
//! lines; a line ending in `…` for any line that starts with what comes
//! before it. The commands run through `sh` (pipes into grep, awk, jq, sort,
//! uniq, head and sha256sum, which must be installed) in a fresh directory
//! per chapter holding `models`, `tests` and `book` of the repository and
//! the files the chapter asks the reader to write: a YAML block whose first
//! line is `# NAME.yaml` is that file, written when the text reaches it,
//! and so is a line `sed … > NAME` of an `sh` block; files the text only
//! describes are in `tests/book/CHAPTER/`. The
//! chapter's commands run in order, so a file one writes is there for the
//! next.

use crate::{BIN, TempDir};
use clap::Parser;
use clap::error::ErrorKind;
use podsim::cli::Cli;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The book's chapters, and the README.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = fs::read_dir(root().join("book/src"))
        .expect("book/src")
        .map(|e| e.expect("a book entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 20, "the book's chapters: {pages:?}");
    pages.push(root().join("README.md"));
    pages
}

/// A line of a page and whether it is inside a fenced block.
struct Line<'a> {
    number: usize,
    text: &'a str,
    fenced: bool,
}

fn lines(page: &str) -> Vec<Line<'_>> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, text) in page.lines().enumerate() {
        if text.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        out.push(Line { number: i + 1, text, fenced });
    }
    out
}

/// Shell words: quotes and backslashes as `sh` reads them; operators
/// (`|`, `>`, `;`, `&&`, `#` …) as words of their own.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => word.extend(chars.next()),
            c if c.is_whitespace() => {
                if quoted || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                quoted = false;
            }
            // `2>`: the stream number belongs to the redirection.
            '>' if !quoted && !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) => {
                word.clear();
                out.push(">".into());
            }
            '|' | ';' | '>' | '<' | '&' => {
                if quoted || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                quoted = false;
                out.push(c.to_string());
            }
            '#' if word.is_empty() && !quoted => out.push("#".into()),
            c => word.push(c),
        }
    }
    if quoted || !word.is_empty() {
        out.push(word);
    }
    out
}

/// A `podsim` command the book quotes: where, its arguments, and whether
/// it is a fragment (inline prose, or with `…` for elided arguments) that
/// may leave out required arguments.
#[derive(Debug)]
struct Quoted {
    at: String,
    args: Vec<String>,
    fragment: bool,
}

/// The arguments of the `podsim` command `text` begins with (after a
/// `time` prefix), up to the first shell operator.
fn command_in(text: &str) -> Option<(Vec<String>, bool)> {
    let w = words(text);
    let start = w.iter().position(|t| !(t == "time" || t.ends_with("/time") || t.starts_with('-')))?;
    if !(w[start] == "podsim" || w[start].ends_with("/podsim")) {
        return None;
    }
    let mut args = Vec::new();
    let mut fragment = false;
    for t in &w[start + 1..] {
        match t.as_str() {
            "|" | ";" | ">" | "<" | "&" | "#" => break,
            "…" | "..." => {
                // `--kubernetes …`: the value is elided; the flag is not judged.
                if args.last().is_some_and(|a: &String| a.starts_with('-')) {
                    args.pop();
                }
                fragment = true;
            }
            _ => args.push(t.clone()),
        }
    }
    // A bare `podsim` is the program's name, not a command.
    (!args.is_empty()).then_some((args, fragment))
}

/// A synopsis (`[OPTIONS]`, `<FILE>`, `[--seed S]`): usage, not a command line.
fn is_synopsis(args: &[String]) -> bool {
    args.iter().any(|a| a.starts_with('[') || a.starts_with('<') || a.ends_with(']'))
}

fn quoted_commands() -> Vec<Quoted> {
    let mut out = Vec::new();
    for page in pages() {
        let text = fs::read_to_string(&page).expect("a page");
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let all = lines(&text);
        let mut i = 0;
        // Whether the current block has shown a `$ ` session: its other lines are output.
        let mut in_session = false;
        while i < all.len() {
            let l = &all[i];
            let at = format!("{name}:{}", l.number);
            let new_block = i == 0 || !all[i - 1].fenced || all[i - 1].number + 1 != l.number;
            in_session = l.fenced && (l.text.starts_with("$ ") || (in_session && !new_block));
            if in_session && !l.text.starts_with("$ ") {
                // What a session prints (`podsim 0.1.0`), not a command.
            } else if l.fenced {
                // A command line, continued by trailing backslashes.
                let mut joined = l.text.trim_start().trim_start_matches("$ ").trim_start_matches("- ").to_string();
                while joined.ends_with('\\') && i + 1 < all.len() && all[i + 1].fenced {
                    joined.pop();
                    i += 1;
                    joined.push(' ');
                    joined.push_str(all[i].text.trim());
                }
                if let Some((args, fragment)) = command_in(&joined) {
                    out.push(Quoted { at, args, fragment });
                }
            } else {
                // Inline code spans (odd-numbered pieces between backticks)
                // of the paragraph, which may wrap across its lines.
                let mut paragraph = l.text.to_string();
                while i + 1 < all.len() && !all[i + 1].fenced && !all[i + 1].text.trim().is_empty() {
                    i += 1;
                    paragraph.push(' ');
                    paragraph.push_str(all[i].text.trim());
                }
                for span in paragraph.split('`').skip(1).step_by(2) {
                    if let Some((args, _)) = command_in(span) {
                        out.push(Quoted { at: at.clone(), args, fragment: true });
                    }
                }
            }
            i += 1;
        }
    }
    out
}

/// Every command line quoted in the book and the README parses with the real
/// flags: a renamed or mistyped flag, a bad value, an unknown subcommand
/// fails. Prose fragments (`podsim check`, `podsim run … -o json`) may leave
/// out the required arguments; usage synopses are not command lines.
#[test]
fn every_command_the_book_quotes_parses() {
    let quoted = quoted_commands();
    assert!(quoted.len() > 150, "found only {} commands", quoted.len());
    let mut bad = Vec::new();
    for q in quoted.iter().filter(|q| !is_synopsis(&q.args)) {
        let argv = std::iter::once("podsim".to_string()).chain(q.args.iter().cloned());
        let Err(e) = Cli::try_parse_from(argv) else { continue };
        let tolerated = match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => true,
            ErrorKind::MissingRequiredArgument
            | ErrorKind::MissingSubcommand
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => q.fragment,
            _ => false,
        };
        if !tolerated {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            bad.push(format!("{}: podsim {}\n    {first}", q.at, q.args.join(" ")));
        }
    }
    assert!(bad.is_empty(), "commands in the book that do not parse:\n{}", bad.join("\n"));
}

/// A `$ podsim …` session of a page: its command and the lines it shows.
struct Session {
    at: String,
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// What a page gives the reader to do, in its order.
enum Step {
    /// A file to write (a YAML block that begins `# NAME.yaml`).
    Write {
        name: String,
        text: String,
    },
    /// A file to make with `sed … > NAME` (a line of an `sh` block).
    Make(String),
    Run(Session),
}

/// The file a YAML block is, when its first line names it.
fn file_block(first: &str) -> Option<&str> {
    let name = first.strip_prefix("# ")?;
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    (plain && (name.ends_with(".yaml") || name.ends_with(".yml"))).then_some(name)
}

fn steps(page: &Path) -> Vec<Step> {
    let text = fs::read_to_string(page).expect("a page");
    let name = page.file_name().unwrap().to_string_lossy().into_owned();
    // The file blocks, by the line of their opening fence.
    let all: Vec<&str> = text.lines().collect();
    let mut files = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let opens = all[i].trim_start().starts_with("```");
        let end = (i + 1..all.len()).find(|&j| all[j].trim_start().starts_with("```")).unwrap_or(all.len());
        if opens {
            let file = all.get(i + 1).and_then(|f| file_block(f));
            if let (true, Some(file)) = (all[i].trim_start().starts_with("```yaml"), file) {
                let text = all[i + 1..end].join("\n") + "\n";
                files.push((i + 1, Step::Write { name: file.to_string(), text }));
            }
            if all[i].trim_start().starts_with("```sh") {
                let makes = all[i + 1..end].iter().filter(|l| l.starts_with("sed ") && l.contains(" > "));
                files.extend(makes.map(|l| (i + 1, Step::Make(l.to_string()))));
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
    let mut steps = Vec::new();
    let mut files = files.into_iter().peekable();
    for s in sessions(&text, &name) {
        while files.peek().is_some_and(|(at, _)| *at < s.line) {
            steps.extend(files.next().map(|(_, f)| f));
        }
        steps.push(Step::Run(s));
    }
    steps.extend(files.map(|(_, f)| f));
    steps
}

fn sessions(text: &str, name: &str) -> Vec<Session> {
    let all = lines(text);
    let mut out: Vec<Session> = Vec::new();
    let mut current: Option<Session> = None;
    let mut i = 0;
    while i < all.len() {
        let l = &all[i];
        let in_block_after = |j: usize| j < all.len() && all[j].fenced && all[j].number == all[j - 1].number + 1;
        if !l.fenced {
            out.extend(current.take());
            i += 1;
            continue;
        }
        if let Some(cmd) = l.text.strip_prefix("$ ") {
            out.extend(current.take());
            let mut command = cmd.to_string();
            while command.ends_with('\\') && in_block_after(i + 1) {
                i += 1;
                command.push('\n');
                command.push_str(all[i].text);
            }
            if command.starts_with("podsim ") {
                current =
                    Some(Session { at: format!("{name}:{}", l.number), line: l.number, command, shown: Vec::new() });
            }
        } else if let Some(s) = &mut current {
            s.shown.push(l.text.trim_end().to_string());
        }
        // The end of a block ends its session.
        if !in_block_after(i + 1) {
            out.extend(current.take());
        }
        i += 1;
    }
    out.extend(current);
    out
}

/// Whether `actual` is what `shown` shows: `…` alone skips any number of
/// lines, a line ending in `…` matches any line it starts.
fn shows(shown: &[String], actual: &[&str]) -> bool {
    match shown.split_first() {
        None => actual.is_empty(),
        Some((s, rest)) if s.trim() == "…" => (0..=actual.len()).any(|k| shows(rest, &actual[k..])),
        Some((s, rest)) => match actual.split_first() {
            None => false,
            Some((a, more)) => {
                let same = match s.strip_suffix('…') {
                    Some(prefix) => a.trim_end().starts_with(prefix.trim_end()),
                    None => a.trim_end() == s,
                };
                same && shows(rest, more)
            }
        },
    }
}

/// Where `actual` first departs from `shown`, read greedily: the shown
/// line not found, and the printed line found instead.
fn departure(shown: &[String], actual: &[&str]) -> String {
    let mut at = 0;
    let mut skipping = false;
    let same = |s: &str, a: &str| match s.strip_suffix('…') {
        Some(prefix) => a.trim_end().starts_with(prefix.trim_end()),
        None => a.trim_end() == s,
    };
    for s in shown {
        if s.trim() == "…" {
            skipping = true;
            continue;
        }
        let found = match skipping {
            true => actual[at..].iter().position(|a| same(s, a)).map(|k| at + k),
            false => (at < actual.len() && same(s, actual[at])).then_some(at),
        };
        match found {
            Some(k) => at = k + 1,
            None => {
                let instead = actual.get(at).copied().unwrap_or("(the end of the output)");
                let how = if skipping { "not found after" } else { "expected at" };
                return format!("the book's line\n  {s}\nis {how} printed line {}:\n  {instead}", at + 1);
            }
        }
        skipping = false;
    }
    match actual.get(at) {
        Some(extra) if !skipping => format!("the output goes on after the book's last line:\n  {extra}"),
        _ => "?".into(),
    }
}

/// Runs a chapter's steps in order; the mismatches.
fn run_chapter(page: &Path, steps: &[Step]) -> Vec<String> {
    let stem = page.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = TempDir::new(&format!("book-{stem}"));
    let cwd = PathBuf::from(dir.path(""));
    for name in ["models", "tests", "book"] {
        std::os::unix::fs::symlink(root().join(name), cwd.join(name)).expect("link the repository");
    }
    let inputs = root().join("tests/book").join(&stem);
    if let Ok(files) = fs::read_dir(&inputs) {
        for f in files.map(|f| f.expect("an input file").path()) {
            fs::copy(&f, cwd.join(f.file_name().unwrap())).expect("copy an input file");
        }
    }
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut failures = Vec::new();
    for step in steps {
        let s = match step {
            Step::Write { name, text } => {
                fs::write(cwd.join(name), text).expect("write a file of the page");
                continue;
            }
            Step::Make(command) => {
                let made = Command::new("sh").arg("-c").arg(command).current_dir(&cwd).status().expect("run sh");
                assert!(made.success(), "{}: {command}", page.display());
                continue;
            }
            Step::Run(s) => s,
        };
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", s.command))
            .current_dir(&cwd)
            .env("PATH", &path)
            .env_remove("RUST_LOG")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .expect("run sh");
        let text = String::from_utf8_lossy(&out.stdout);
        // A sweep's progress lines depend on the machine's speed (a debug build's sweep runs long enough for them).
        let progress = |l: &&str| l.starts_with("podsim: ") && l.contains(" runs, ") && l.ends_with(" left");
        let actual: Vec<&str> = text.lines().filter(|l| !progress(l)).collect();
        if !shows(&s.shown, &actual) {
            failures.push(format!("{}: $ {}\n{}", s.at, s.command, departure(&s.shown, &actual)));
        }
    }
    failures
}

/// Every `$ podsim …` session of the book prints what the book shows.
#[test]
fn every_session_the_book_shows_prints_what_it_shows() {
    for tool in ["sh", "grep", "awk", "jq", "sort", "uniq", "head", "sha256sum"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().expect("run sh");
        assert!(found.status.success(), "the book's sessions need `{tool}` installed");
    }
    let chapters: Vec<(PathBuf, Vec<Step>)> = pages()
        .into_iter()
        .map(|p| (p.clone(), steps(&p)))
        .filter(|(_, s)| s.iter().any(|s| matches!(s, Step::Run(_))))
        .collect();
    let count = chapters.iter().flat_map(|(_, s)| s).filter(|s| matches!(s, Step::Run(_))).count();
    assert!(count > 60, "found only {count} sessions");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = chapters.iter().map(|(p, s)| scope.spawn(move || run_chapter(p, s))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a chapter's thread")).collect()
    });
    assert!(failures.is_empty(), "{} of {count} sessions differ:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_session_matcher_skips_and_compares() {
    let shown = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(shows(&shown(&["a", "…", "d"]), &["a", "b", "c", "d"]));
    assert!(shows(&shown(&["a", "…", "d"]), &["a", "d"]));
    assert!(!shows(&shown(&["a", "…", "d"]), &["a", "b", "c"]));
    assert!(!shows(&shown(&["a", "d"]), &["a", "b", "d"]));
    assert!(shows(&shown(&["x 1 …"]), &["x 1 and more  "]));
    assert!(!shows(&shown(&["x 1 …"]), &["x 2"]));
    assert_eq!(
        words(r#"podsim run 'a b' "c\"d" e\ f|grep x"#),
        ["podsim", "run", "a b", "c\"d", "e f", "|", "grep", "x"]
    );
}

/// Each file of `tests/book/CHAPTER/` belongs to a chapter that names it.
#[test]
fn every_input_file_of_the_book_is_named_by_its_chapter() {
    let mut files = 0;
    for dir in fs::read_dir(root().join("tests/book")).expect("tests/book").map(|d| d.expect("an entry").path()) {
        let chapter = root().join("book/src").join(dir.file_name().unwrap()).with_extension("md");
        let text = fs::read_to_string(&chapter)
            .unwrap_or_else(|_| panic!("{}: no chapter {}", dir.display(), chapter.display()));
        for f in fs::read_dir(&dir).expect("a chapter's files").map(|f| f.expect("a file").file_name()) {
            let name = f.to_string_lossy();
            assert!(text.contains(&format!("`{name}`")), "{}: `{name}` is not named in it", chapter.display());
            files += 1;
        }
    }
    assert!(files > 0);
}

/// The book's table of output formats (getting-started.md, "Output
/// formats"), and each command's `-o` help: `json` and `jsonl` are one
/// value, and each command prints the shape the table names.
#[test]
fn json_output_has_the_shape_the_book_gives_for_each_command() {
    use crate::podsim;
    let scenario = "models/scenarios/crashloop.yaml";
    let json = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    // run: JSON Lines, the HEADER first; `json` gives the same bytes.
    let run = podsim(["run", scenario, "--until", "30s", "-o", "json"]);
    assert_eq!(run.stdout, podsim(["run", scenario, "--until", "30s", "-o", "jsonl"]).stdout);
    let records: Vec<serde_json::Value> = run.stdout.lines().map(json).collect();
    assert!(records.len() > 10 && records[0]["type"] == "HEADER", "{run:?}");
    // predict: one object on one line.
    let predict = podsim(["predict", scenario, "--runs", "3", "-o", "json"]);
    assert_eq!(predict.stdout.lines().count(), 1, "{predict:?}");
    assert_eq!(json(&predict.stdout)["runs"], 3);
    // verify: one object per property, one per line.
    let verify = podsim([
        "verify",
        scenario,
        "--runs",
        "3",
        "-o",
        "json",
        "-p",
        "never restarts(pod/*) > 5",
        "-p",
        "eventually pod/crashloop:scheduled",
    ]);
    let lines: Vec<serde_json::Value> = verify.stdout.lines().map(json).collect();
    assert_eq!(lines.len(), 2, "{verify:?}");
    assert_eq!(lines[1]["property"], "eventually pod/crashloop:scheduled");
    // check: one indented document.
    let check = podsim(["check", "tests/traces/003-restartnever-exit1-failed/pod.yaml", "-o", "json"]);
    assert!(check.stdout.lines().count() > 10, "{check:?}");
    assert!(json(&check.stdout)["pods"].is_array(), "{check:?}");
    assert!(json(&check.stdout)["controllers"].is_array(), "{check:?}");
    // Each command's help says what it prints.
    for (command, says) in [
        ("run", "JSON Lines"),
        ("predict", "one JSON object on one line"),
        ("verify", "one JSON object per property, one per line"),
        ("check", "one indented JSON document"),
    ] {
        let help = podsim([command, "--help"]).stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains(says), "{command} --help: {help}");
    }
}
