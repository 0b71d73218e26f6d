//! Colour: whether stdout and stderr are coloured (each by its own terminal
//! check, `--color`, `NO_COLOR`, `CLICOLOR_FORCE` and `TERM`, as cargo
//! decides), and the few ANSI styles podsim paints its words with.

use clap::ValueEnum;
use std::ffi::{OsStr, OsString};
use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color WHEN`, as cargo and ripgrep take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum When {
    /// Colour a stream that is a terminal, unless NO_COLOR is set (CLICOLOR_FORCE: any stream).
    #[default]
    Auto,
    /// Colour every stream, whatever NO_COLOR says.
    Always,
    /// Never colour.
    Never,
}

/// What the environment says about colour; read once, given by tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Env {
    /// `NO_COLOR` is set and not empty (no-color.org).
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set and not empty: colour even a pipe.
    pub force: bool,
    /// `TERM` is `dumb` (or unset, outside Windows): the terminal shows no colour.
    pub dumb: bool,
}

impl Env {
    /// The process's environment.
    pub fn read() -> Env {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        let dumb = match std::env::var_os("TERM") {
            Some(term) => term == "dumb",
            None => !cfg!(windows),
        };
        Env { no_color: set("NO_COLOR"), force: set("CLICOLOR_FORCE"), dumb }
    }
}

/// Whether to colour one stream: `always` and `never` decide alone (the flag
/// beats the environment); `auto` colours unless `NO_COLOR`, then always
/// with `CLICOLOR_FORCE`, else a terminal whose `TERM` is not `dumb`.
pub fn decide(when: When, terminal: bool, env: Env) -> bool {
    match when {
        When::Always => true,
        When::Never => false,
        When::Auto => !env.no_color && (env.force || (terminal && !env.dumb)),
    }
}

/// What a painted word means, and so its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `error:` — bold red.
    Error,
    /// `warning:` — bold yellow.
    Warning,
    /// `note:` — bold cyan.
    Note,
    /// A verdict that passes (`HOLDS`, `holds`, `inside`) — green.
    Pass,
    /// A verdict that neither passes nor fails (`NOT SEEN`, `not simulated`) — yellow.
    Unsure,
    /// A verdict that fails (`BROKEN`, `VIOLATED`, `LATE by 2.0s`) — bold red.
    Fail,
}

impl Style {
    /// The SGR parameters of the style.
    fn sgr(self) -> &'static str {
        match self {
            Style::Error | Style::Fail => "1;31",
            Style::Warning => "1;33",
            Style::Note => "1;36",
            Style::Pass => "32",
            Style::Unsure => "33",
        }
    }
}

/// Paints words for one stream: with ANSI codes when that stream is coloured, as they are otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paint {
    pub on: bool,
}

impl Paint {
    /// `text` in `style`, or `text` unchanged when colour is off.
    pub fn paint(self, style: Style, text: &str) -> String {
        match self.on && !text.is_empty() {
            true => format!("\x1b[{}m{text}\x1b[0m", style.sgr()),
            false => text.to_string(),
        }
    }
}

/// The decision for stdout and stderr, made once by `init`.
static CHOSEN: OnceLock<(Paint, Paint)> = OnceLock::new();

/// Decides, once, whether stdout and stderr are coloured.
pub fn init(when: When) {
    let env = Env::read();
    let stdout = Paint { on: decide(when, std::io::stdout().is_terminal(), env) };
    let stderr = Paint { on: decide(when, std::io::stderr().is_terminal(), env) };
    let _ = CHOSEN.set((stdout, stderr));
}

/// How to paint what goes to stdout (no colour before `init`).
pub fn stdout() -> Paint {
    CHOSEN.get().map_or_else(Paint::default, |c| c.0)
}

/// How to paint what goes to stderr (no colour before `init`).
pub fn stderr() -> Paint {
    CHOSEN.get().map_or_else(Paint::default, |c| c.1)
}

/// `--color` as the arguments give it, read before clap parses them so that
/// clap's own help and errors follow it too (`auto` when absent or unknown).
pub fn scan(args: &[OsString]) -> When {
    let mut when = When::Auto;
    let mut args = args.iter().skip(1).map(OsString::as_os_str);
    while let Some(arg) = args.next() {
        let value = match arg.to_str() {
            Some("--") => break,
            Some("--color") => args.next().and_then(OsStr::to_str),
            Some(a) => a.strip_prefix("--color="),
            None => None,
        };
        if let Some(w) = value.and_then(|v| When::from_str(v, false).ok()) {
            when = w;
        }
    }
    when
}

/// The same choice for clap's help and errors.
pub fn for_clap(when: When) -> clap::ColorChoice {
    match when {
        When::Auto => clap::ColorChoice::Auto,
        When::Always => clap::ColorChoice::Always,
        When::Never => clap::ColorChoice::Never,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Env = Env { no_color: false, force: false, dumb: false };

    #[test]
    fn auto_colours_a_terminal_only() {
        assert!(decide(When::Auto, true, PLAIN));
        assert!(!decide(When::Auto, false, PLAIN));
    }

    #[test]
    fn no_color_turns_auto_off_but_not_always() {
        let env = Env { no_color: true, ..PLAIN };
        assert!(!decide(When::Auto, true, env));
        assert!(!decide(When::Auto, false, env));
        assert!(decide(When::Always, true, env));
        assert!(decide(When::Always, false, env));
    }

    #[test]
    fn clicolor_force_colours_a_pipe_unless_no_color() {
        let env = Env { force: true, ..PLAIN };
        assert!(decide(When::Auto, false, env));
        assert!(!decide(When::Auto, false, Env { no_color: true, ..env }));
        assert!(!decide(When::Never, true, env));
    }

    #[test]
    fn a_dumb_terminal_is_not_coloured_unless_asked() {
        let env = Env { dumb: true, ..PLAIN };
        assert!(!decide(When::Auto, true, env));
        assert!(decide(When::Always, true, env));
        assert!(decide(When::Auto, true, Env { force: true, ..env }));
    }

    #[test]
    fn never_is_never() {
        for no_color in [false, true] {
            for force in [false, true] {
                for dumb in [false, true] {
                    for terminal in [false, true] {
                        assert!(!decide(When::Never, terminal, Env { no_color, force, dumb }));
                    }
                }
            }
        }
    }

    #[test]
    fn paint_wraps_only_when_on() {
        assert_eq!(Paint { on: true }.paint(Style::Error, "error:"), "\x1b[1;31merror:\x1b[0m");
        assert_eq!(Paint { on: false }.paint(Style::Error, "error:"), "error:");
        assert_eq!(Paint { on: true }.paint(Style::Pass, ""), "");
    }

    #[test]
    fn scan_finds_the_last_color_flag_before_a_double_dash() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(scan(&args(&["podsim", "run", "x.yaml"])), When::Auto);
        assert_eq!(scan(&args(&["podsim", "--color", "never", "run"])), When::Never);
        assert_eq!(scan(&args(&["podsim", "run", "--color=always"])), When::Always);
        assert_eq!(scan(&args(&["podsim", "--color=never", "--color", "always"])), When::Always);
        assert_eq!(scan(&args(&["podsim", "--color", "sometimes"])), When::Auto);
        assert_eq!(scan(&args(&["podsim", "--", "--color", "never"])), When::Auto);
        assert_eq!(scan(&args(&["podsim", "--color"])), When::Auto);
    }
}
