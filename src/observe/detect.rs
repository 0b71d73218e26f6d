//! Which format a recording is in, and reading it record by record.
//!
//! JSON inputs (podsim's JSON Lines, `kubectl get -o json`, watch streams of
//! concatenated objects with or without `--output-watch-events`) are read as a
//! stream, one object at a time, so a recording of any size is read in
//! bounded memory. YAML and text recordings are snapshots and read whole.

use super::{Record, json, text};
use crate::error::{Error, Problem, SourceFile};
use crate::source::parse_documents;
use std::io::{BufRead, BufReader, Read};
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
        // A part of an object (`status:`, `containerStatuses:`): YAML keys are lowerCamelCase, describe's are not.
        Some(text) if field_key(t) && !looks_like_text(text) => Format::Yaml,
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
    let mut reader = BufReader::new(std::fs::File::open(path).map_err(io)?);
    let first = peek_first_line(&mut reader).map_err(io)?;
    Ok(match detect(&first, None) {
        f @ (Format::PodsimJsonl | Format::Json) if !is_command(&first) => f,
        // Command lines, YAML and text are read whole; treat as snapshots.
        _ => Format::Yaml,
    })
}

/// Reads a recording from a file, streaming JSON.
pub fn read_file(path: &Path, sink: &mut dyn FnMut(Record)) -> Result<Vec<Problem>, Error> {
    let io = |source| Error::Io { path: path.display().to_string(), source };
    let name: Arc<str> = Arc::from(path.display().to_string());
    let mut reader = BufReader::new(std::fs::File::open(path).map_err(io)?);
    let first = peek_first_line(&mut reader).map_err(io)?;
    match detect(&first, None) {
        Format::PodsimJsonl | Format::Json if !is_command(&first) => json::read_stream(&name, reader, sink).map_err(io),
        _ => {
            let mut text = String::new();
            reader.read_to_string(&mut text).map_err(io)?;
            Ok(read(&Arc::new(SourceFile { name: name.to_string(), text }), sink))
        }
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

/// Reads a recording already in memory.
pub fn read(file: &Arc<SourceFile>, sink: &mut dyn FnMut(Record)) -> Vec<Problem> {
    let name: Arc<str> = Arc::from(file.name.as_str());
    let first = file.text.lines().find(|l| !l.trim().is_empty() && !is_command(l)).unwrap_or("");
    let mut problems = Vec::new();
    match detect(first, Some(&file.text)) {
        Format::PodsimJsonl | Format::Json => {
            problems = json::read_stream(&name, without_commands(&file.text).as_bytes(), sink).unwrap_or_default();
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
