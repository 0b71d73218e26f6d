//! `podsim verify`: properties over many seeded runs, the first
//! counterexample with its seed, and its shrunk timeline.

use super::args::{Output, VerifyArgs};
use super::color::{self, Paint, Style};
use super::predict::jobs;
use super::problems;
use super::run::inputs;
use super::sweeping::{Progress, STOPPED, check_seeds, say_stopped, stoppable};
use super::words::{self, quote};
use crate::error::Severity;
use crate::rng::draws::{Draw, Drawn};
use crate::run::add_rollout_status;
use crate::sweep::Control;
use crate::time::{SimDuration, SimTime};
use crate::trace::render::Clock;
use crate::trace::table;
use crate::verify::eval::Instant;
use crate::verify::language::{Property, parse};
use crate::verify::words::words;
use crate::verify::{Outcome, Unjudged, parse_file, verify as check_all};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;

pub fn verify(args: VerifyArgs) -> ExitCode {
    // Not locked: a sweep's progress is written from its threads.
    let stderr = &mut io::stderr();
    let (properties, origins) = match properties(&args) {
        Ok(p) => p,
        Err(lines) => {
            let _ = write!(stderr, "{lines}");
            return ExitCode::from(2);
        }
    };
    let Some(inputs) = inputs(&args.inputs, stderr) else { return ExitCode::from(2) };
    let Some(prepared) = problems::prepared(&inputs, stderr) else { return ExitCode::from(2) };
    if let Some(message) = beyond_the_run(&properties, prepared.until) {
        problems::fail(stderr, message);
        return ExitCode::from(2);
    }
    let runs = args.runs.unwrap_or(if args.inputs.seed.is_some() { 1 } else { 1000 });
    if let Err(e) = check_seeds(prepared.seed, runs) {
        problems::fail(stderr, e);
        return ExitCode::from(2);
    }
    let jobs = jobs(args.jobs, stderr);
    // Runs are judged a block at a time and not kept: no limit on their number.
    let progress = Progress::new(runs as u64, args.progress);
    let tick = || progress.inc();
    let control = Control { progress: &tick, stop: stoppable() };
    let until = SimTime::ZERO + prepared.until;
    let outcomes = check_all(&prepared.setup, &properties, prepared.seed, runs, until, jobs, control);
    progress.finish();
    let (mut outcomes, stopped) = match outcomes {
        Ok(o) => o,
        Err(Unjudged::Unknown(e)) => {
            let naming =
                properties.iter().position(|p| p.cond.leaves().iter().any(|t| t.subject() == Some(&e.subject)));
            let origin = naming.map(|i| format!("{}: ", origins[i])).unwrap_or_default();
            problems::fail(stderr, format_args!("{origin}{e}"));
            return ExitCode::from(2);
        }
        Err(Unjudged::Exhausted(e)) => return problems::exhausted(stderr, &e, prepared.until),
    };
    // The shrunk timeline shows what `kubectl rollout status` printed, as `run` would.
    if let Some(timeout) = prepared.rollout_timeout {
        for o in &mut outcomes {
            if let Outcome::Counterexample { shrunk: Some(s), .. } = o {
                add_rollout_status(&mut s.trace, &prepared.setup, timeout);
            }
        }
    }
    let scenario = words::inputs(&args.inputs);
    let text = match args.output {
        Output::Table => {
            let ctx = Context {
                scenario: &scenario,
                first_seed: prepared.seed,
                clock: &prepared.clock,
                paint: color::stdout(),
            };
            properties.iter().zip(&outcomes).map(|(p, o)| ctx.report(p, o)).collect::<Vec<_>>().join("\n")
        }
        Output::Jsonl => properties.iter().zip(&outcomes).map(|(p, o)| format!("{}\n", to_json(p, o))).collect(),
    };
    let stdout = &mut io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush())
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        problems::fail(stderr, format_args!("writing the output: {e}"));
        return ExitCode::from(2);
    }
    if let Some(done) = stopped {
        let what = "the verdicts above are over these runs (a counterexample is not shrunk)";
        say_stopped(done, runs, prepared.seed, what, stderr);
        return ExitCode::from(STOPPED);
    }
    match outcomes.iter().all(Outcome::holds) {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}

/// Every property from the flags and files, or every error, with the text
/// and a caret under the column.
fn properties(args: &VerifyArgs) -> Result<(Vec<Property>, Vec<String>), String> {
    let mut out = Vec::new();
    // Where each property was written: `--property '…'` or FILE:LINE.
    let mut origins = Vec::new();
    let mut errors = String::new();
    let error = problems::label(Severity::Error);
    let caret = |errors: &mut String, text: &str, column: usize| {
        // Spaces by repeat: a format width past u16::MAX panics, and a property may be that long.
        let pad = " ".repeat(column.saturating_sub(1));
        let _ = writeln!(errors, "  | {text}\n  | {pad}^");
    };
    for text in &args.properties {
        match parse(text) {
            Ok(p) => {
                out.push(p);
                origins.push(format!("--property {}", super::words::quote(text)));
            }
            Err(e) => {
                let _ = writeln!(errors, "{error} --property: column {}: {}", e.column, e.message);
                caret(&mut errors, text, e.column);
            }
        }
    }
    for path in &args.files {
        let text = match crate::scenario::read_file(path) {
            Ok(source) => source.text.clone(),
            Err(crate::error::Error::Io { source, .. }) => {
                let _ = writeln!(errors, "{error} {}: {source}", path.display());
                continue;
            }
            Err(crate::error::Error::Input(problems)) => {
                for p in problems {
                    let _ = writeln!(errors, "{error} {}", p.message);
                }
                continue;
            }
        };
        match parse_file(&text) {
            Ok(ps) if ps.is_empty() => {
                let _ = writeln!(errors, "{error} {}: no property in the file", path.display());
            }
            Ok(ps) => {
                out.extend(ps);
                let written =
                    text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
                origins.extend(written.map(|(i, _)| format!("{}:{}", path.display(), i + 1)));
            }
            Err((line, e)) => {
                let _ = writeln!(errors, "{error} {}:{line}:{}: {}", path.display(), e.column, e.message);
                caret(&mut errors, text.lines().nth(line - 1).unwrap_or_default(), e.column);
            }
        }
    }
    if out.is_empty() && errors.is_empty() {
        let _ = writeln!(errors, "{error} no property to verify (give --property TEXT or --properties FILE)");
    }
    match errors.is_empty() {
        true => Ok((out, origins)),
        false => Err(errors),
    }
}

/// A window the runs never reach would be decided by the end of the run,
/// not by the cluster: refuse it.
fn beyond_the_run(properties: &[Property], until: SimDuration) -> Option<String> {
    properties.iter().find_map(|p| {
        let (word, d) = match (p.after, p.within) {
            (Some(a), _) if a > until => ("after", a),
            (_, Some(w)) if w > until => ("within", w),
            _ => return None,
        };
        Some(format!("{:?}: {word} {d} is beyond the end of each run ({until}); raise --until", p.text))
    })
}

struct Context<'a> {
    scenario: &'a str,
    first_seed: u64,
    clock: &'a Clock,
    /// Colours the verdicts when stdout is coloured.
    paint: Paint,
}

impl Context<'_> {
    /// The verdict's word in its colour, padded so the properties line up.
    fn verdict(&self, style: Style, word: &str) -> String {
        format!("{}{:pad$}", self.paint.paint(style, word), "", pad = 11 - word.len())
    }

    fn report(&self, p: &Property, o: &Outcome) -> String {
        let mut out = String::new();
        let seeds = |runs: u32| format!("seeds {}", crate::sweep::seed_range(self.first_seed, runs.into()));
        match o {
            Outcome::Holds { runs, witness } => {
                let _ = writeln!(out, "{}{}", self.verdict(Style::Pass, "HOLDS"), p.text);
                let _ = writeln!(out, "  in {runs} runs ({})", seeds(*runs));
                if let Some((seed, w)) = witness {
                    let first =
                        if p.kind == crate::verify::language::Kind::Sometimes { "seen" } else { "first run, seen" };
                    let _ = writeln!(out, "  {first} in seed {seed} at {}{}", w.at, instant(w));
                }
            }
            Outcome::NotSeen { runs } => {
                let _ = writeln!(out, "{}{}", self.verdict(Style::Unsure, "NOT SEEN"), p.text);
                let _ = writeln!(out, "  in none of {runs} runs ({})", seeds(*runs));
            }
            Outcome::Counterexample { seed, run, instant: i, shrunk } => {
                let _ = writeln!(out, "{}{}", self.verdict(Style::Fail, "BROKEN"), p.text);
                let _ = writeln!(out, "  counterexample: seed {seed} (run {run}), at {}{}", i.at, instant(i));
                match shrunk {
                    Some(s) => {
                        let (random, why) = match (s.random.len(), s.minimal) {
                            (0, _) => (
                                String::from("with every timing draw at its nominal value"),
                                "the configuration breaks it, not an unlucky timing",
                            ),
                            (n, minimal) => (
                                format!(
                                    "with {n} timing draw{} left random, every other at its nominal value",
                                    if n == 1 { "" } else { "s" }
                                ),
                                match (minimal, n) {
                                    (true, 1) => "it cannot be pinned",
                                    (true, _) => "none of them can be pinned",
                                    (false, _) => "shrinking budget spent",
                                },
                            ),
                        };
                        let _ = writeln!(
                            out,
                            "  shrunk ({} runs, {} timing draws): it breaks {random} ({why}); at {}{}",
                            s.runs,
                            s.candidates,
                            s.instant.at,
                            instant(&s.instant)
                        );
                        for d in &s.random {
                            let _ = writeln!(out, "    {}", words(d));
                            let _ = writeln!(out, "      {}", draw(d));
                        }
                        let rows: Vec<_> =
                            table::rows(&s.trace, self.clock).into_iter().filter(|r| r.t <= s.instant.at).collect();
                        let skip = rows.len().saturating_sub(TIMELINE_ROWS);
                        let _ = writeln!(out, "  timeline of the shrunk run, to {}:", s.instant.at);
                        if skip > 0 {
                            let _ = writeln!(out, "    … {skip} earlier rows");
                        }
                        for line in table::render(&rows[skip..]).lines() {
                            let _ = writeln!(out, "    {line}");
                        }
                    }
                    None => {
                        let _ =
                            writeln!(out, "  (the re-run to shrink it did not break it: report this as a podsim bug)");
                    }
                }
                let _ = writeln!(
                    out,
                    "  re-run: podsim verify {} --seed {seed} --property {}",
                    self.scenario,
                    quote(&p.text)
                );
                let _ = writeln!(out, "  its full timeline: podsim run {} --seed {seed}", self.scenario);
            }
        }
        out
    }
}

/// The shrunk timeline shows the rows that lead to the violation.
const TIMELINE_ROWS: usize = 60;

/// `, for pod/x: restarts(pod/x) = 1`.
fn instant(i: &Instant) -> String {
    let mut s = String::new();
    if let Some(subject) = &i.subject {
        let _ = write!(s, ", for {subject}");
    }
    if !i.values.is_empty() {
        let _ = write!(s, ": {}", i.values);
    }
    s
}

/// The draw's key and distribution, for `--seed` re-runs and tools:
/// `kubelet/kind-worker/loop:phase(node/kind-worker, PLEG relist)#1, from uniform(0s, 1s)`.
fn draw(d: &Draw) -> String {
    match &d.value {
        Drawn::Millis { dist, .. } => format!("{}, from {dist}", d.key),
        Drawn::Fraction { .. } => format!("{}, a fraction of the jitter range", d.key),
    }
}

fn to_json(p: &Property, o: &Outcome) -> Value {
    let secs = |t: SimTime| t.as_millis() as f64 / 1000.0;
    let instant = |i: &Instant| json!({"at": secs(i.at), "subject": i.subject, "values": i.values});
    let mut v = json!({"property": p.text, "kind": p.kind.as_str()});
    let extra = match o {
        Outcome::Holds { runs, witness } => json!({
            "verdict": "holds", "runs": runs,
            "witness": witness.as_ref().map(|(seed, w)| json!({"seed": seed, "instant": instant(w)})),
        }),
        Outcome::NotSeen { runs } => json!({"verdict": "not_seen", "runs": runs}),
        Outcome::Counterexample { seed, run, instant: i, shrunk } => json!({
            "verdict": "counterexample", "seed": seed, "run": run, "instant": instant(i),
            "shrunk": shrunk.as_ref().map(|s| json!({
                "runs": s.runs, "candidates": s.candidates, "minimal": s.minimal, "instant": instant(&s.instant),
                "random": s.random.iter().map(|d| match &d.value {
                    Drawn::Millis { drawn, nominal, dist } => json!({
                        "draw": d.key.to_string(), "value": secs(SimTime::ZERO + SimDuration::from_millis(*drawn)),
                        "nominal": secs(SimTime::ZERO + SimDuration::from_millis(*nominal)), "dist": dist,
                        "words": words(d),
                    }),
                    Drawn::Fraction { drawn, nominal } => json!({
                        "draw": d.key.to_string(), "fraction": drawn, "nominal": nominal, "words": words(d),
                    }),
                }).collect::<Vec<_>>(),
            })),
        }),
    };
    if let (Some(v), Value::Object(extra)) = (v.as_object_mut(), extra) {
        v.extend(extra);
    }
    v
}
