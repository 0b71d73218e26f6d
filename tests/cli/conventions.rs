//! The conventions of a command-line tool: `podsim completions SHELL`,
//! `podsim man [COMMAND]…`, `--color WHEN` with NO_COLOR and CLICOLOR_FORCE,
//! and `--version` naming the Kubernetes versions modelled.

use crate::{BIN, Run, TempDir, assert_bad_input, assert_no_panic, pod_with, podsim};
use clap::CommandFactory;
use podsim::cli::Cli;
use podsim::cluster::Version;
use std::process::Command;

/// `podsim ARGS` with these environment variables set (and the colour ones not given removed).
fn podsim_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).env("RUST_BACKTRACE", "1");
    for name in ["NO_COLOR", "CLICOLOR_FORCE", "RUST_LOG"] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run podsim");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The names of podsim's commands, from the same definition as the binary's.
fn commands() -> Vec<String> {
    Cli::command().get_subcommands().map(|c| c.get_name().to_string()).filter(|n| n != "help").collect()
}

#[test]
fn each_shell_gets_a_completion_script_naming_the_commands_in_its_syntax() {
    let commands = commands();
    assert!(commands.len() >= 10 && commands.iter().any(|c| c == "predict"), "{commands:?}");
    for (shell, opening, predict) in [
        ("bash", "_podsim() {", "podsim,predict)"),
        ("zsh", "#compdef podsim", "(predict)"),
        ("fish", "complete -c podsim", "-a \"predict\""),
        ("powershell", "Register-ArgumentCompleter -Native -CommandName 'podsim'", "[CompletionResult]::new('predict'"),
        ("elvish", "set edit:completion:arg-completer[podsim]", "&'podsim;predict'="),
    ] {
        let run = podsim(["completions", shell]);
        assert_no_panic(&run);
        assert_eq!(run.code, Some(0), "{shell}: {run:?}");
        assert!(run.stderr.is_empty(), "{shell}: {run:?}");
        assert!(run.stdout.contains(opening), "{shell}: no {opening:?} in {run:?}");
        assert!(run.stdout.contains(predict), "{shell}: no {predict:?} in {run:?}");
        for c in &commands {
            assert!(run.stdout.contains(c.as_str()), "{shell}: the command {c} is not completed: {run:?}");
        }
    }
}

#[test]
fn bash_completes_a_command_a_flag_and_a_color_value() {
    let dir = TempDir::new("bash-completion");
    let script = dir.write("podsim.bash", &podsim(["completions", "bash"]).stdout);
    let complete = |words: &[&str]| {
        let line = words.join(" ");
        let session = format!(
            "source {script}; COMP_WORDS=({line}); COMP_CWORD={}; _podsim podsim {} {}; echo \"${{COMPREPLY[@]}}\"",
            words.len() - 1,
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let out = Command::new("bash").arg("-c").arg(session).output().expect("run bash");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(complete(&["podsim", "pre"]), "predict");
    assert_eq!(complete(&["podsim", "predict", "--ru"]), "--runs");
    assert_eq!(complete(&["podsim", "--color", "a"]), "auto always");
}

#[test]
fn an_unknown_shell_is_bad_input() {
    let run = podsim(["completions", "tcsh"]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("bash, elvish, fish, powershell, zsh"), "{run:?}");
}

/// The macro lines of a page, after the preamble that defines `\*(Aq`.
fn macros(page: &str) -> Vec<&str> {
    page.lines().filter(|l| l.starts_with('.') && !l.starts_with(".ie ") && !l.starts_with(".el ")).collect()
}

/// The `.TH` line of a page: its name, section 1, and podsim's release as its source.
fn title(page: &str) -> String {
    format!(".TH {page} 1  \"podsim {}\" ", env!("CARGO_PKG_VERSION"))
}

#[test]
fn the_man_page_is_roff_titled_podsim_listing_every_command() {
    let run = podsim(["man"]);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.is_empty(), "{run:?}");
    assert_eq!(macros(&run.stdout).first().copied(), Some(title("podsim").as_str()), "{run:?}");
    assert!(run.stdout.contains("\n.SH SUBCOMMANDS\n"), "{run:?}");
    for c in commands() {
        assert!(run.stdout.contains(&format!("\n.TP\npodsim\\-{c}(1)\n")), "{c} is not listed: {run:?}");
    }
    let version = format!(".SH VERSION\nv{}; {}\n", env!("CARGO_PKG_VERSION"), Version::modelled());
    assert!(run.stdout.contains(&version), "{run:?}");
}

#[test]
fn a_command_has_its_own_page() {
    let run = podsim(["man", "plot", "cdf"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(macros(&run.stdout).first().copied(), Some(title("podsim-plot-cdf").as_str()), "{run:?}");
    assert!(run.stdout.contains("\\-\\-milestone"), "the page has the command's flags: {run:?}");
    let unknown = podsim(["man", "plot", "pie"]);
    assert_bad_input(&unknown);
    assert!(unknown.stderr.contains("timeline, cdf, graph"), "{unknown:?}");
}

/// A manifest with an unknown field: an `error:` on stderr.
fn bad_manifest(dir: &TempDir) -> String {
    dir.write("pod.yaml", &pod_with("    bogus: 1\n"))
}

const RED_ERROR: &str = "\x1b[1;31merror:\x1b[0m ";

#[test]
fn color_always_paints_the_error_prefix_even_in_a_pipe() {
    let dir = TempDir::new("color-always");
    let file = bad_manifest(&dir);
    let run = podsim_env(&["run", "-f", &file, "--color", "always"], &[]);
    assert_bad_input(&run);
    assert!(run.stderr.starts_with(RED_ERROR), "{run:?}");
    // The flag beats NO_COLOR, as cargo's does.
    let run = podsim_env(&["--color=always", "run", "-f", &file], &[("NO_COLOR", "1")]);
    assert!(run.stderr.starts_with(RED_ERROR), "{run:?}");
}

#[test]
fn never_and_a_pipe_print_no_escape() {
    let dir = TempDir::new("color-never");
    let file = bad_manifest(&dir);
    let plain = podsim_env(&["run", "-f", &file], &[]);
    assert_bad_input(&plain);
    assert!(plain.stderr.starts_with("error: "), "{plain:?}");
    for (args, env) in [
        (vec!["run", "-f", &file, "--color", "never"], vec![]),
        (vec!["run", "-f", &file, "--color", "never"], vec![("CLICOLOR_FORCE", "1")]),
        (vec!["run", "-f", &file, "--color", "auto"], vec![("NO_COLOR", "1")]),
        (vec!["run", "-f", &file], vec![("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
    ] {
        let run = podsim_env(&args, &env);
        assert_eq!(run.stderr, plain.stderr, "{args:?} {env:?}");
    }
}

#[test]
fn clicolor_force_colours_a_pipe_in_auto() {
    let dir = TempDir::new("clicolor-force");
    let file = bad_manifest(&dir);
    let run = podsim_env(&["run", "-f", &file], &[("CLICOLOR_FORCE", "1")]);
    assert!(run.stderr.starts_with(RED_ERROR), "{run:?}");
    // Empty is unset, as for NO_COLOR.
    let run = podsim_env(&["run", "-f", &file], &[("CLICOLOR_FORCE", "")]);
    assert!(run.stderr.starts_with("error: "), "{run:?}");
}

#[test]
fn verdicts_are_coloured_on_stdout_with_always() {
    let scenario = "models/scenarios/crashloop.yaml";
    let properties = ["-p", "eventually pod/crashloop:scheduled", "-p", "sometimes restarts(pod/*) > 50"];
    let args = |color: &'static str| {
        let mut a = vec!["verify", scenario, "--runs", "2", "--color", color];
        a.extend(properties);
        a
    };
    let coloured = podsim_env(&args("always"), &[]);
    assert!(coloured.stdout.contains("\x1b[32mHOLDS\x1b[0m      eventually"), "{coloured:?}");
    assert!(coloured.stdout.contains("\x1b[33mNOT SEEN\x1b[0m   sometimes"), "{coloured:?}");
    let plain = podsim_env(&args("never"), &[]);
    assert!(plain.stdout.contains("\nNOT SEEN   sometimes"), "{plain:?}");
    assert_eq!(coloured.stdout.replace("\x1b[32m", "").replace("\x1b[33m", "").replace("\x1b[0m", ""), plain.stdout);

    let trace = "tests/traces/003-restartnever-exit1-failed/pod.yaml";
    let check = podsim_env(&["check", trace, "--color", "always"], &[]);
    assert!(check.stdout.contains("  \x1b[32mholds\x1b[0m     ready-implies"), "{check:?}");
    assert!(!podsim_env(&["check", trace], &[]).stdout.contains('\x1b'));
}

#[test]
fn clap_help_follows_the_color_flag() {
    assert!(podsim_env(&["--color=always", "--help"], &[]).stdout.contains("\x1b["));
    assert!(!podsim_env(&["--color", "never", "run", "--help"], &[("CLICOLOR_FORCE", "1")]).stdout.contains('\x1b'));
    assert!(!podsim_env(&["--help"], &[]).stdout.contains('\x1b'));
}

#[test]
fn version_names_the_kubernetes_versions_modelled() {
    let expected = format!("podsim {}\n{}\n", env!("CARGO_PKG_VERSION"), Version::modelled());
    for flag in ["--version", "-V"] {
        let run = podsim([flag]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(run.stdout, expected, "{flag}");
    }
    for v in Version::ALL {
        assert!(expected.contains(&format!(" {v}")), "{v} in {expected:?}");
    }
    assert!(expected.contains(&format!("(default {})", podsim::cluster::Cluster::default().version)), "{expected}");
}
