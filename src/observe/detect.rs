//! Which format a recording is in, and reading it record by record.
//!
//! JSON inputs (podsim's JSON Lines, `kubectl get -o json`, watch streams of
//! concatenated objects with or without `--output-watch-events`) are read as a
//! stream, one object at a time, so a recording of any size is read in
//! bounded memory. YAML and text recordings are snapshots and read whole.

use super::{Record, json, text};
use crate::error::{Error, Problem, SourceFile};
use crate::source::parse_documents;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

/// The formats podsim recognises.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// podsim's own trace (first line: the HEADER record).
    PodsimJsonl,
    /// JSON objects: one, a List, or a stream (watch output).
    Json,
    /// YAML documents (`kubectl get -o yaml`, multi-document).
    Yaml,
    /// `kubectl get pods` tables and `kubectl describe` output.
    Text,
}

/// Guesses the format from the first meaningful line.
pub fn detect(first_line: &str, whole: Option<&str>) -> Format {
    let t = first_line.trim_start();
    if t.starts_with('{') && t.contains("\"type\":\"HEADER\"") && t.contains("podsim/trace/") {
        return Format::PodsimJsonl;
    }
    // A JSON array of objects starts `[` then `{` (or is empty); `[sig-node] …` is text.
    let array =
        t.strip_prefix('[').is_some_and(|r| r.trim_start().is_empty() || r.trim_start().starts_with(['{', ']']));
    if t.starts_with('{') || array {
        return Format::Json;
    }
    // A document separator is `---` alone (`--- t=10s ---` is a script's marker).
    let yamlish =
        |l: &str| l.starts_with("apiVersion:") || l.starts_with("kind:") || l == "---" || l.starts_with("items:");
    match whole {
        Some(text) if text.lines().any(|l| yamlish(l.trim_end())) && !looks_like_text(text) => Format::Yaml,
        // A part of an object (`status:`, `containerStatuses:`, a list `- name: app`): YAML keys are
        // lowerCamelCase, describe's are not.
        Some(text) if (field_key(t) || t.strip_prefix("- ").is_some_and(field_key)) && !looks_like_text(text) => {
            Format::Yaml
        }
        _ if yamlish(t.trim_end()) => Format::Yaml,
        _ => Format::Text,
    }
}

/// `status:` or `restartCount: 3` at the left margin: a YAML field.
fn field_key(line: &str) -> bool {
    let Some((key, rest)) = line.split_once(':') else { return false };
    key.starts_with(|c: char| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_alphanumeric())
        && (rest.is_empty() || rest.starts_with(' '))
}

/// A table header or a describe block somewhere in the file.
fn looks_like_text(text: &str) -> bool {
    text.lines().any(|l| {
        let cols: Vec<&str> = l.split_whitespace().collect();
        (cols.first() == Some(&"NAME") && cols.contains(&"READY") && cols.contains(&"STATUS"))
            || l.starts_with("Events:")
    })
}

/// The format of a file, from its first meaningful line.
pub fn detect_file(path: &Path) -> Result<Format, Error> {
    let io = |source| Error::Io { path: path.display().to_string(), source };
    let mut reader = BufReader::new(crate::scenario::open_input(path)?);
    let first = peek_first_line(&mut reader).map_err(io)?;
    Ok(match detect(&first, None) {
        f @ (Format::PodsimJsonl | Format::Json) if !is_command(&first) => f,
        // Command lines, YAML and text are read whole; treat as snapshots.
        _ => Format::Yaml,
    })
}

/// Reads a recording from a file, streaming JSON. A terminal paste that
/// goes on after the JSON (a prompt, then another command's output) is read
/// from that prompt on as text.
pub fn read_file(path: &Path, sink: &mut dyn FnMut(Record)) -> Result<Vec<Problem>, Error> {
    let io = |source| Error::Io { path: path.display().to_string(), source };
    let name: Arc<str> = Arc::from(path.display().to_string());
    let mut reader = BufReader::new(crate::scenario::open_input(path)?);
    let first = peek_first_line(&mut reader).map_err(io)?;
    match detect(&first, None) {
        Format::PodsimJsonl | Format::Json if !is_command(&first) => {
            let (mut problems, rest) = json::read_stream(&name, reader, sink, &is_command).map_err(io)?;
            if let Some((line, rest)) = rest {
                // Blank lines before it keep every line's number.
                let text = "\n".repeat(line as usize - 1) + &rest;
                problems.extend(read(&Arc::new(SourceFile { name: name.to_string(), text }), sink));
            }
            Ok(problems)
        }
        // Read whole, up to the input cap, with UTF-8 errors located.
        _ => Ok(read(&crate::scenario::read_source(reader, name.to_string())?, sink)),
    }
}

/// A shell prompt with a command (`user@host:~$ kubectl …`, `$ …`), pasted above the output.
fn is_command(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("$ ") || t.starts_with("# kubectl ") || text::is_command_line(t)
}

/// The text with command lines blanked, so YAML and JSON parse and every
/// other line keeps its number.
fn without_commands(text: &str) -> String {
    text.lines().map(|l| if is_command(l) { "" } else { l }).collect::<Vec<_>>().join("\n")
}

/// The parts of a terminal paste: from each command line to the next, in
/// the format of what it printed; consecutive text parts are one (the text
/// reader follows its command lines itself). Each is (first line, end
/// line, exclusive; 0-based) and its format.
fn parts(text: &str) -> Vec<(usize, usize, Format)> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| i == 0 || is_command(lines[i])).collect();
    let mut out: Vec<(usize, usize, Format)> = Vec::new();
    // Blank lines and commands without output join the part before them, or the next one.
    let mut pending = None;
    for (k, &from) in starts.iter().enumerate() {
        let to = starts.get(k + 1).copied().unwrap_or(lines.len());
        let body = &lines[from..to];
        let Some(first) = body.iter().find(|l| !l.trim().is_empty() && !is_command(l)) else {
            match out.last_mut() {
                Some(last) => last.1 = to,
                None => pending = pending.or(Some(from)),
            }
            continue;
        };
        let format = match detect(first, Some(&body.join("\n"))) {
            Format::PodsimJsonl => Format::Json,
            f => f,
        };
        let from = pending.take().unwrap_or(from);
        match out.last_mut() {
            Some(last) if last.2 == Format::Text && format == Format::Text => last.1 = to,
            _ => out.push((from, to, format)),
        }
    }
    out
}

/// Reads a recording already in memory: each part of a terminal paste (the
/// output of each command) in its own format.
pub fn read(file: &Arc<SourceFile>, sink: &mut dyn FnMut(Record)) -> Vec<Problem> {
    let parts = parts(&file.text);
    if parts.len() < 2 {
        return read_part(file, sink);
    }
    let lines: Vec<&str> = file.text.lines().collect();
    let mut problems = Vec::new();
    for (from, to, _) in parts {
        // The part alone, every other line blank: its lines keep their numbers.
        let text: Vec<&str> = (0..lines.len()).map(|i| if (from..to).contains(&i) { lines[i] } else { "" }).collect();
        let part = Arc::new(SourceFile { name: file.name.clone(), text: text.join("\n") });
        let mut read_any = false;
        let mut found = read_part(&part, &mut |r| {
            read_any = true;
            sink(r)
        });
        if !read_any {
            // Said once, for the part: what it is, where, and the first thing that failed.
            let command = lines[from..to].iter().find(|l| is_command(l)).map(|c| c.trim());
            let what = command.map_or(String::new(), |c| format!(" (`{c}`)"));
            let why = found.iter().find(|p| p.message != NOTHING_FOUND).map_or(String::new(), |p| {
                let at = p.position.as_ref().map_or(String::new(), |x| format!("line {}: ", x.line));
                format!(" ({at}{})", p.message)
            });
            let message = format!("lines {}–{}{what}: nothing podsim reads{why}", from + 1, to);
            found = vec![Problem::warning(message).at_line(&file.name, from as u64 + 1)];
        }
        problems.extend(found);
    }
    problems
}

/// The text reader's word for a text with nothing it reads.
const NOTHING_FOUND: &str = "no kubectl table or describe output found";

/// Reads one part of a recording, in one format.
fn read_part(file: &Arc<SourceFile>, sink: &mut dyn FnMut(Record)) -> Vec<Problem> {
    let name: Arc<str> = Arc::from(file.name.as_str());
    let first = file.text.lines().find(|l| !l.trim().is_empty() && !is_command(l)).unwrap_or("");
    let mut problems = Vec::new();
    match detect(first, Some(&file.text)) {
        Format::PodsimJsonl | Format::Json => {
            let never = |_: &str| false;
            let text = without_commands(&file.text);
            problems = json::read_stream(&name, text.as_bytes(), sink, &never).map(|r| r.0).unwrap_or_default();
        }
        Format::Yaml => {
            match parse_documents(&Arc::new(SourceFile { name: file.name.clone(), text: without_commands(&file.text) }))
            {
                Ok(docs) => {
                    for doc in &docs {
                        json::read_document(doc, sink, &mut problems);
                    }
                }
                // Not YAML after all: kubectl's text output, if it reads as that.
                Err(e) => {
                    let mut records = Vec::new();
                    let mut text_problems = Vec::new();
                    text::read_text(&name, &file.text, &mut |r| records.push(r), &mut text_problems);
                    if records.is_empty() {
                        match e {
                            Error::Input(mut p) => problems.append(&mut p),
                            e => problems.push(Problem::error(e.to_string())),
                        }
                    } else {
                        records.into_iter().for_each(&mut *sink);
                        problems = text_problems;
                    }
                }
            }
        }
        Format::Text => text::read_text(&name, &file.text, sink, &mut problems),
    }
    if problems.is_empty() && file.text.trim().is_empty() {
        problems.push(Problem::warning("the file is empty").in_file(file, None));
    }
    problems
}

/// The first non-blank line, without consuming the reader's buffer.
fn peek_first_line<R: BufRead>(reader: &mut R) -> std::io::Result<String> {
    let buf = reader.fill_buf()?;
    let text = String::from_utf8_lossy(&buf[..buf.len().min(64 * 1024)]).into_owned();
    Ok(text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_their_lines() {
        // A script's marker is not a YAML document separator.
        let marked = "--- t=10s --- web   1/1   Running   0   10s\n";
        assert_eq!(detect(marked, Some(marked)), Format::Text);
        assert_eq!(detect("---", Some("---\nkind: Pod\n")), Format::Yaml);
        // A part of an object: its lowerCamelCase key; describe's keys are capitalised.
        assert_eq!(detect("status:", Some("status:\n  phase: Running\n")), Format::Yaml);
        assert_eq!(detect("restartCount: 3", Some("restartCount: 3\n")), Format::Yaml);
        // A list of container statuses cut out of `-o yaml`.
        assert_eq!(detect("- name: app", Some("- name: app\n  restartCount: 3\n")), Format::Yaml);
        assert_eq!(detect("Name:   web", Some("Name:   web\nStatus:  Running\n")), Format::Text);
        // describe's Events rule under its column names is not a separator either.
        let events = "Type    Reason   Age   From     Message\n----    ------   ----  ----     -------\n";
        assert_eq!(detect("Type    Reason   Age   From     Message", Some(events)), Format::Text);
    }

    #[test]
    fn prompts_of_any_shell_are_commands() {
        for line in [
            "$ kubectl get pods -o json",
            "controlplane:~$ kubectl get pod web -o yaml",
            "root@node01:~# kubectl get pod web -o json",
            "PS C:\\Users\\me> kubectl get pod web -o json",
        ] {
            assert!(is_command(line), "{line}");
        }
        assert!(!is_command("{\"kind\": \"Pod\"}"));
        assert!(!is_command("  command: [\"kubectl\", \"get\"]"));
    }

    const POD_JSON: &str = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\", \"uid\": \"u1\"},\n  \"status\": {\"phase\": \"Running\"}\n}";
    const ROWS: &str =
        "$ kubectl get pods\nNAME   READY   STATUS    RESTARTS   AGE\nweb    1/1     Running   0          13s\n";

    fn kinds(records: &[Record]) -> Vec<(&'static str, u64)> {
        let kind = |r: &Record| match r.observed {
            super::super::Observed::Pod(_) => "Pod",
            super::super::Observed::Row(_) => "Row",
            _ => "other",
        };
        records.iter().map(|r| (kind(r), r.origin.line)).collect()
    }

    fn read_text(text: &str) -> (Vec<Record>, Vec<Problem>) {
        let file = Arc::new(SourceFile { name: "paste.txt".into(), text: text.into() });
        let mut records = Vec::new();
        let problems = read(&file, &mut |r| records.push(r));
        (records, problems)
    }

    /// A terminal paste of several commands: each output in its own format,
    /// at its own lines.
    #[test]
    fn each_part_of_a_paste_is_read_in_its_format() {
        let yaml = "$ kubectl get pod web -o yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  uid: u1\nstatus:\n  phase: Running\n";
        let (records, problems) = read_text(&format!("{ROWS}{yaml}"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(kinds(&records), [("Row", 3), ("Pod", 5)]);
        let (records, problems) = read_text(&format!("$ kubectl get pod web -o json\n{POD_JSON}\n{ROWS}"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(kinds(&records), [("Pod", 2), ("Row", 10)]);
        // The output of a command podsim does not read is named, once.
        let logs = "$ kubectl logs web\nstarting\nlistening on :8080\n";
        let (records, problems) = read_text(&format!("{POD_JSON}\n{logs}{yaml}"));
        assert_eq!(kinds(&records), [("Pod", 1), ("Pod", 11)]);
        let messages: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(messages, ["paste.txt:7:1: lines 7–9 (`$ kubectl logs web`): nothing podsim reads"]);
        assert!(!problems[0].is_error());
    }

    /// A file that starts as a JSON stream and goes on after a prompt.
    #[test]
    fn a_stream_hands_the_rest_of_a_paste_to_the_text_reader() {
        let dir = std::env::temp_dir().join(format!("podsim-detect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("paste.json");
        std::fs::write(&path, format!("{POD_JSON}\n{ROWS}")).unwrap();
        let mut records = Vec::new();
        let problems = read_file(&path, &mut |r| records.push(r)).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(kinds(&records), [("Pod", 1), ("Row", 9)]);
    }

    /// Text that looked like YAML but is not (a colon in a describe event
    /// message) is read as kubectl text.
    #[test]
    fn text_that_fails_as_yaml_is_read_as_text() {
        let text = "kind: of a note\n  Warning  Unhealthy  35s (x2 over 40s)  kubelet  Liveness probe failed: no\n";
        let file = Arc::new(SourceFile { name: "t.txt".into(), text: text.into() });
        let mut records = Vec::new();
        let problems = read(&file, &mut |r| records.push(r));
        assert_eq!(records.len(), 1, "{problems:?}");
    }
}
