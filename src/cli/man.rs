//! `podsim man [COMMAND]…`: the roff man page of podsim or of one of its
//! commands, from the same definitions as `--help`.

use super::args::{ManArgs, version};
use super::problems;
use clap::CommandFactory;
use std::io;
use std::process::ExitCode;

/// Prints podsim(1), or the page of the command named (podsim-run(1), podsim-plot-cdf(1)).
pub fn man(args: ManArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    match page(&args.command) {
        Ok(text) => problems::emit(&text, stderr),
        Err(message) => {
            problems::fail(stderr, message);
            ExitCode::from(2)
        }
    }
}

/// podsim(1)'s DESCRIPTION: what `--help` says in one line, with where the rest is.
const DESCRIPTION: &str = "podsim simulates the Kubernetes pod lifecycle event by event, following the \
    kubelet's and the controllers' code: given manifests, how the application behaves and a cluster's \
    timings, it prints what a real cluster would show.

Each command has its own page: podsim man run prints podsim-run(1), podsim man plot cdf podsim-plot-cdf(1).

Exit status: 0 success; 2 bad input (files, flags, manifests); 1 a finding: a broken invariant \
    (run, check), a timing outside the envelope (check --against), a counterexample (verify), \
    an object not found (get, describe).";

/// The roff text of the page of `path` (podsim's own page when it is empty).
fn page(path: &[String]) -> Result<String, String> {
    let release = env!("CARGO_PKG_VERSION");
    // The .TH line takes the release alone; the VERSION section names the
    // Kubernetes versions too, on one line. No `help` command: `man` is the help.
    let mut command = super::Cli::command()
        .version(release)
        .long_version(version().replace('\n', "; "))
        .long_about(DESCRIPTION)
        .disable_help_subcommand(true);
    command.build();
    let mut found = &command;
    for (i, name) in path.iter().enumerate() {
        found = found.find_subcommand(name).ok_or_else(|| {
            let known: Vec<&str> = found.get_subcommands().map(|c| c.get_name()).collect();
            let within = ["podsim"].into_iter().chain(path[..i].iter().map(String::as_str)).collect::<Vec<_>>();
            format!("`{}` has no command {name:?} (it has: {})", within.join(" "), known.join(", "))
        })?;
    }
    let mut text = Vec::new();
    clap_mangen::Man::new(found.clone())
        .source(format!("podsim {release}"))
        .render(&mut text)
        .map_err(|e| format!("rendering the man page: {e}"))?;
    Ok(String::from_utf8_lossy(&text).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command path, e.g. `["plot", "cdf"]`.
    fn paths(command: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
            let path: Vec<String> = prefix.iter().cloned().chain([sub.get_name().to_string()]).collect();
            paths(sub, path.clone(), out);
            out.push(path);
        }
    }

    #[test]
    fn every_command_has_a_page_titled_by_its_path() {
        let mut all = vec![Vec::new()];
        paths(&super::super::Cli::command(), Vec::new(), &mut all);
        assert!(all.len() > 12, "{all:?}");
        for path in all {
            let text = page(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            let title = ["podsim"].into_iter().chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join("-");
            assert!(text.contains(&format!("\n.TH {title} 1 ")), "{path:?}:\n{text}");
        }
    }

    #[test]
    fn an_unknown_command_is_named_with_the_known_ones() {
        let e = page(&["plot".into(), "pie".into()]).unwrap_err();
        assert_eq!(e, "`podsim plot` has no command \"pie\" (it has: timeline, cdf, graph)");
    }
}
