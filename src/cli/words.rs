//! The run inputs said back as command-line words: what a sweep's header
//! names and what a re-run line repeats, so the line a user copies runs the
//! same runs whether they came from a scenario file or from flags.

use super::args::RunInputs;

/// The inputs as `podsim run` would take them, but the seed (a sweep's
/// header gives its seeds; a re-run line names the one to re-run): the
/// scenario, then every flag given, each quoted for `sh` where it needs it.
pub fn inputs(args: &RunInputs) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut flag = |name: &str, value: &str| {
        words.push(name.to_string());
        words.push(quote(value));
    };
    for m in &args.manifests {
        flag("-f", &m.display().to_string());
    }
    let optional = [
        ("-n", args.namespace.clone()),
        ("--app", args.app.as_ref().map(|p| p.display().to_string())),
        ("--cluster", args.cluster.as_ref().map(|p| p.display().to_string())),
        ("--kubernetes", args.kubernetes.clone()),
        ("--until", args.until.map(|d| d.to_string())),
        ("--rollout-timeout", args.rollout_timeout.map(|d| d.to_string())),
        ("--max-events", args.max_events.map(|n| n.to_string())),
        ("--max-pods", args.max_pods.map(|n| n.to_string())),
    ];
    for (name, value) in &optional {
        if let Some(v) = value {
            flag(name, v);
        }
    }
    let repeated = args.action_flags().into_iter().chain([("--traffic", &args.traffic)]);
    for (name, values) in repeated {
        for v in values {
            flag(name, v);
        }
    }
    let mut out: Vec<String> = args.scenario.iter().map(|s| quote(&s.display().to_string())).collect();
    if args.recursive {
        out.push("-R".into());
    }
    out.extend(words);
    out.join(" ")
}

/// `s` as one `sh` word: as it is when every character is plain, else in
/// single quotes (a quote inside as `'\''`).
pub fn quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:@=,+%^".contains(c);
    match !s.is_empty() && s.chars().all(plain) {
        true => s.to_string(),
        false => format!("'{}'", s.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    fn said(argv: &[&str]) -> String {
        let cli = Cli::try_parse_from(["podsim", "run"].iter().chain(argv)).expect("parses");
        match cli.command {
            crate::cli::Command::Run(a) => inputs(&a.inputs),
            _ => unreachable!("a run"),
        }
    }

    #[test]
    fn a_scenario_alone_is_its_path() {
        assert_eq!(said(&["models/scenarios/c28-service.yaml", "--seed", "7"]), "models/scenarios/c28-service.yaml");
    }

    #[test]
    fn flags_are_repeated_in_a_fixed_order_and_quoted_where_sh_needs_it() {
        let words = said(&[
            "--traffic",
            "service/web:80@5s,every=1s",
            "-f",
            "web.yaml",
            "--app",
            "my app.yaml",
            "-f",
            "-",
            "--until",
            "90s",
            "-R",
            "--patch",
            r#"pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s"#,
        ]);
        assert_eq!(
            words,
            r#"-R -f web.yaml -f - --app 'my app.yaml' --until 1m30s --patch 'pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s' --traffic service/web:80@5s,every=1s"#
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
