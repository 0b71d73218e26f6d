//! Behaviour derived from POSIX sh and busybox semantics, with exact values.

use super::*;
use std::time::Instant;

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

fn sh(script: &str) -> Script {
    interpret(&argv(&["/bin/sh", "-c", script])).unwrap_or_else(|e| panic!("{script}: {e}"))
}

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

fn secs(n: u64) -> SimDuration {
    SimDuration::from_secs(n)
}

fn run(s: &Script, cmd: &[&str], age: SimDuration) -> Outcome {
    s.exec(&argv(cmd), age).unwrap()
}

fn unsupported(script: &str) -> String {
    match interpret(&argv(&["sh", "-c", script])) {
        Err(e) => e.what,
        Ok(s) => panic!("{script}: interpreted, exit {:?}", s.exit()),
    }
}

const DOCS: &str = "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600";

#[test]
fn the_documentation_liveness_script() {
    let s = sh(DOCS);
    assert_eq!(s.exit(), Some((secs(630), 0)));
    assert_eq!(s.changes(), vec![SimDuration::ZERO, secs(30)]);
    assert!(s.exists("/tmp/healthy", SimDuration::ZERO));
    assert!(s.exists("/tmp/healthy", ms(29_999)));
    assert!(!s.exists("/tmp/healthy", secs(30)));
    let ok = run(&s, &["cat", "/tmp/healthy"], secs(10));
    assert_eq!(ok, Outcome { code: 0, output: String::new(), duration: SimDuration::ZERO });
    let gone = run(&s, &["cat", "/tmp/healthy"], secs(31));
    assert_eq!(gone.code, 1);
    assert_eq!(gone.output, "cat: can't open '/tmp/healthy': No such file or directory\n");
    assert_eq!(s.sigterm(secs(5)), Sigterm::Ignore);
    assert_eq!(s.sigterm(secs(100)), Sigterm::Ignore);
    assert_eq!(s.sigterm(secs(700)), Sigterm::Exit { after: SimDuration::ZERO, code: 0 });
    // The same argv split as `command` + `args`, and with `bash`.
    let b = interpret(&argv(&["bash", "-c", DOCS])).unwrap();
    assert_eq!(b.exit(), Some((secs(630), 0)));
}

#[test]
fn exec_probe_forms() {
    let s = sh(DOCS);
    for cmd in [
        &["sh", "-c", "test -f /tmp/healthy"][..],
        &["/bin/sh", "-c", "[ -e /tmp/healthy ] && exit 0 || exit 7"],
        &["test", "-f", "/tmp/healthy"],
        &["/usr/bin/test", "-s", "/tmp"],
        &["/bin/true"],
        &["ls", "/tmp/healthy"],
    ] {
        assert_eq!(run(&s, cmd, secs(1)).code, 0, "{cmd:?}");
    }
    assert_eq!(run(&s, &["/bin/sh", "-c", "[ -e /tmp/healthy ] && exit 0 || exit 7"], secs(40)).code, 7);
    assert_eq!(run(&s, &["test", "-f", "/tmp/healthy"], secs(40)).code, 1);
    assert_eq!(run(&s, &["/bin/false"], secs(1)), Outcome { code: 1, output: String::new(), duration: ms(0) });
    assert_eq!(run(&s, &["ls", "/tmp"], secs(1)).output, "healthy\n");
    assert_eq!(run(&s, &["ls", "/tmp"], secs(40)).output, "");
    let missing = run(&s, &["ls", "/tmp/healthy"], secs(40));
    assert_eq!((missing.code, missing.output.as_str()), (1, "ls: /tmp/healthy: No such file or directory\n"));
    let slow = run(&s, &["sh", "-c", "sleep 5; echo done"], secs(1));
    assert_eq!((slow.code, slow.output.as_str(), slow.duration), (0, "done\n", secs(5)));
    // A probe's writes are not kept.
    assert_eq!(run(&s, &["rm", "/tmp/healthy"], secs(1)).code, 0);
    assert!(s.exists("/tmp/healthy", secs(1)));
    let e = s.exec(&argv(&["pg_isready", "-h", "localhost"]), secs(1)).unwrap_err();
    assert_eq!(e.to_string(), "command \"pg_isready\" is not one podsim can interpret");
}

#[test]
fn exit_codes_follow_the_last_command() {
    assert_eq!(interpret(&argv(&["sleep", "3600"])).unwrap().exit(), Some((secs(3600), 0)));
    assert_eq!(sh("exit 3").exit(), Some((ms(0), 3)));
    assert_eq!(sh("false; echo x").exit(), Some((ms(0), 0)));
    assert_eq!(sh("false && echo x").exit(), Some((ms(0), 1)));
    assert_eq!(sh("true || exit 4; ! true").exit(), Some((ms(0), 1)));
    assert_eq!(sh("(exit 5); echo $? > /tmp/s; exit $(cat /tmp/s)").exit(), Some((ms(0), 5)));
    assert_eq!(sh("( exit 2 ); sleep 1").exit(), Some((secs(1), 0)));
    assert_eq!(sh("exit 256").exit(), Some((ms(0), 0)));
    assert_eq!(sh("set -e; true; false; exit 9").exit(), Some((ms(0), 1)));
    assert_eq!(sh("set -e; false || true; if false; then :; fi; exit 9").exit(), Some((ms(0), 9)));
    assert_eq!(interpret(&argv(&["sh", "-ec", "false; exit 9"])).unwrap().exit(), Some((ms(0), 1)));
    assert_eq!(interpret(&argv(&["/bin/sh"])).unwrap().exit(), Some((ms(0), 0)));
    assert_eq!(interpret(&argv(&["true"])).unwrap().exit(), Some((ms(0), 0)));
    assert_eq!(interpret(&argv(&["/bin/false"])).unwrap().exit(), Some((ms(0), 1)));
    assert_eq!(interpret(&argv(&["sh", "-c"])).unwrap().exit(), Some((ms(0), 2)));
    assert_eq!(sh("cat /nope").exit(), Some((ms(0), 1)));
    assert_eq!(sh("trap 'exit 7' EXIT; sleep 2").exit(), Some((secs(2), 7)));
    assert_eq!(sh("trap 'echo bye' EXIT; exit 4").exit(), Some((ms(0), 4)));
}

#[test]
fn sleep_durations() {
    let at = |a: &[&str]| interpret(&argv(a)).unwrap().exit().map(|(t, _)| t);
    assert_eq!(at(&["sleep", "1m"]), Some(secs(60)));
    assert_eq!(at(&["sleep", "1.5"]), Some(ms(1500)));
    assert_eq!(at(&["sleep", "0.1"]), Some(ms(100)));
    assert_eq!(at(&["sleep", "1h", "30", "2s"]), Some(secs(3632)));
    assert_eq!(at(&["/bin/sleep", "1d"]), Some(secs(86_400)));
    assert_eq!(at(&["sleep", ".5m"]), Some(secs(30)));
    assert_eq!(at(&["sleep", "infinity"]), None);
    assert_eq!(at(&["sleep", "365d"]), None, "past the 100-day horizon");
    let bad = interpret(&argv(&["sleep", "abc"])).unwrap();
    assert_eq!(bad.exit(), Some((ms(0), 1)));
    let out = bad.exec(&argv(&["sleep", "x"]), ms(0)).unwrap();
    assert_eq!((out.code, out.output.as_str()), (1, "sleep: invalid number 'x'\n"));
    assert_eq!(interpret(&argv(&["sleep", "3600"])).unwrap().sigterm(secs(5)), Sigterm::Ignore);
}

#[test]
fn loops_that_run_forever_are_bounded() {
    let s = sh("while true; do sleep 1; done");
    assert_eq!(s.exit(), None);
    assert_eq!(s.sigterm(ms(2300)), Sigterm::Ignore);
    assert_eq!(s.changes(), vec![SimDuration::ZERO]);

    let t = Instant::now();
    let busy = sh("while true; do :; done");
    assert_eq!(busy.exit(), None);
    assert_eq!(busy.sigterm(secs(5)), Sigterm::Ignore);
    assert!(t.elapsed().as_secs() < 2);

    let s = sh("until false; do touch /tmp/a; sleep 5; rm /tmp/a; sleep 5; done");
    assert_eq!(s.exit(), None);
    assert_eq!(s.repeats(), Some((ms(0), secs(10))));
    assert_eq!(s.changes(), vec![ms(0), secs(5)]);
    assert!(s.exists("/tmp/a", secs(1_000_002)));
    assert!(!s.exists("/tmp/a", secs(1_000_007)));

    // A file that keeps growing: capped at 4 KiB, then the loop repeats.
    let t = Instant::now();
    let s = sh("while true; do echo x >> /tmp/log; sleep 5; done");
    assert_eq!(s.exit(), None);
    assert!(t.elapsed().as_secs() < 10);
    assert_eq!(run(&s, &["cat", "/tmp/log"], secs(11)).output, "x\nx\nx\n");
    assert_eq!(run(&s, &["cat", "/tmp/log"], secs(1_000_000)).output.len(), fs::FILE_CAP);

    // A toggling loop repeats every two iterations.
    let s = sh("while :; do if [ -f /tmp/x ]; then rm /tmp/x; else touch /tmp/x; fi; sleep 1; done");
    assert_eq!(s.exit(), None);
    assert!(s.exists("/tmp/x", ms(500)) && !s.exists("/tmp/x", ms(1500)) && s.exists("/tmp/x", ms(100_500)));

    // Finite loops run to their end.
    let s = sh("i=0; while [ $i -lt 3 ]; do i=$((i+1)); sleep 1; done; exit $i");
    assert_eq!(s.exit(), Some((secs(3), 3)));
    let s = sh("for f in a b c; do touch /tmp/$f; sleep 1; done; ls /tmp > /tmp/list");
    assert_eq!(s.exit(), Some((secs(3), 0)));
    // The redirection creates /tmp/list before ls runs.
    assert_eq!(run(&s, &["cat", "/tmp/list"], secs(3)).output, "a\nb\nc\nlist\n");
    assert_eq!(sh("while true; do break; done; echo $?").exit(), Some((ms(0), 0)));
    let s = sh("for i in 1 2 3; do for j in 1 2; do continue 2; done; exit 9; done");
    assert_eq!(s.exit(), Some((ms(0), 0)));
}

#[test]
fn huge_or_endless_work_is_refused_quickly() {
    let t = Instant::now();
    let big = "echo x; ".repeat(1 << 17);
    assert!(unsupported(&big).contains("too long"));
    // A counter a test reads never repeats a state: the step cap ends it.
    assert!(unsupported("i=0; while [ $i -ge 0 ]; do i=$((i+1)); done").contains("too long"));
    // One nothing reads is left out of the comparison: a busy loop.
    assert_eq!(sh("i=0; while true; do i=$((i+1)); done").exit(), None);
    let deep = format!("{}true{}", "{ ".repeat(500), "; }".repeat(500));
    assert!(unsupported(&deep).contains("nests deeper"));
    assert!(unsupported("x='eval \"$x\"'; eval \"$x\"").contains("nested deeper"));
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
}

#[test]
fn sigterm_with_traps() {
    // During a foreground sleep the trap waits for the sleep to end.
    let s = sh("trap 'exit 0' TERM; while true; do sleep 1; done");
    assert_eq!(s.exit(), None);
    assert_eq!(s.sigterm(ms(2300)), Sigterm::Exit { after: ms(700), code: 0 });
    assert_eq!(s.sigterm(secs(86_400 * 50) + ms(1)), Sigterm::Exit { after: ms(999), code: 0 });
    // `wait` is interrupted at once.
    let s = sh("trap 'exit 0' TERM; sleep 600 & wait");
    assert_eq!(s.exit(), Some((secs(600), 0)));
    assert_eq!(s.sigterm(secs(10)), Sigterm::Exit { after: ms(0), code: 0 });
    // A bare `exit` in the trap: the status of the interrupted wait.
    let s = sh("trap 'exit' TERM; sleep 600 & wait");
    assert_eq!(s.sigterm(secs(10)), Sigterm::Exit { after: ms(0), code: 143 });
    let s = sh("trap 'echo bye; exit' SIGTERM; sleep 10; exit 3");
    assert_eq!(s.sigterm(secs(4)), Sigterm::Exit { after: secs(6), code: 0 });
    // A trap without exit: the script goes on and ends.
    let s = sh("trap \"echo bye\" TERM; sleep 5");
    assert_eq!(s.exit(), Some((secs(5), 0)));
    assert_eq!(s.sigterm(secs(2)), Sigterm::Exit { after: secs(3), code: 0 });
    let s = sh("trap 'touch /tmp/stop' 15; while [ ! -f /tmp/stop ]; do sleep 1; done; exit 4");
    assert_eq!(s.exit(), None);
    // The trap runs as the sleep ends (11 s); the loop test then fails.
    assert_eq!(s.sigterm(ms(10_500)), Sigterm::Exit { after: ms(500), code: 4 });
    // ... or loops on: effectively ignored.
    let s = sh("trap 'echo got it' INT TERM; while true; do sleep 1; done");
    assert_eq!(s.sigterm(secs(3)), Sigterm::Ignore);
    // `exec` replaces the shell: sleep is PID 1 and ignores it.
    let s = sh("trap 'exit 0' TERM; exec sleep 600");
    assert_eq!(s.exit(), Some((secs(600), 0)));
    assert_eq!(s.sigterm(secs(3)), Sigterm::Ignore);
    // Traps reset, ignored, or set only later.
    assert_eq!(sh("trap 'exit 0' TERM; trap - TERM; sleep 60").sigterm(secs(1)), Sigterm::Ignore);
    assert_eq!(sh("trap '' TERM; sleep 60").sigterm(secs(1)), Sigterm::Ignore);
    assert_eq!(sh("sleep 10; trap 'exit 0' TERM; sleep 60").sigterm(secs(5)), Sigterm::Ignore);
    assert_eq!(
        sh("sleep 10; trap 'exit 0' TERM; sleep 60").sigterm(secs(15)),
        Sigterm::Exit { after: secs(55), code: 0 }
    );
    // A subshell in the foreground: the trap runs when it ends.
    let s = sh("trap 'exit 1' TERM; (sleep 20; touch /tmp/x); sleep 100");
    assert_eq!(s.sigterm(secs(5)), Sigterm::Exit { after: secs(15), code: 1 });
    // A background sleep gets nothing; the trap runs at `wait`.
    let s = sh("trap 'exit 2' TERM; sleep 100 & sleep 10; wait");
    assert_eq!(s.exit(), Some((secs(100), 0)));
    assert_eq!(s.sigterm(secs(5)), Sigterm::Exit { after: secs(5), code: 2 });
    assert_eq!(s.sigterm(secs(50)), Sigterm::Exit { after: ms(0), code: 2 });
    // A busy loop takes the trap at once.
    assert_eq!(sh("trap 'exit 0' TERM; while :; do :; done").sigterm(secs(9)), Sigterm::Exit { after: ms(0), code: 0 });
}

#[test]
fn files_and_output() {
    let s = sh("echo ok > /tmp/x; cat /tmp/x");
    assert_eq!(run(&s, &["cat", "/tmp/x"], ms(0)).output, "ok\n");
    let s = sh("echo -n a > /tmp/x; echo b >> /tmp/x; printf '%s-%d\\n' v 7 >> /tmp/x; echo \"$HOME\" >> /tmp/x");
    assert_eq!(run(&s, &["cat", "/tmp/x"], ms(0)).output, "ab\nv-7\n/root\n");
    let out = run(&s, &["sh", "-c", "cat /tmp/x /nope 2>&1; echo rc=$?"], ms(0));
    assert_eq!(out.output, "ab\nv-7\n/root\ncat: can't open '/nope': No such file or directory\nrc=1\n");
    let out = run(&s, &["sh", "-c", "cat /nope 2>/dev/null || echo none"], ms(0));
    assert_eq!(out.output, "none\n");
    let out = run(&s, &["sh", "-c", "echo err >&2; echo out"], ms(0));
    assert_eq!(out.output, "out\nerr\n");
    let s = sh("mkdir -p /data/a/b && touch /data/a/b/f && rm -rf /data/a; mkdir /data/c; rm /data/c");
    assert_eq!(s.exit(), Some((ms(0), 1)));
    let out = run(&s, &["sh", "-c", "ls /data; rm /data/c; mkdir /nope/x; touch /nope/y"], ms(0));
    assert_eq!(
        out.output,
        "c\nrm: '/data/c' is a directory\nmkdir: can't create directory '/nope/x': No such file or directory\ntouch: /nope/y: No such file or directory\n"
    );
    let out = run(&s, &["sh", "-c", "echo x > /nope/f; echo $?"], ms(0));
    assert_eq!(out.output, "1\nsh: can't create /nope/f: nonexistent directory\n");
    let s = sh("x=hello; y=\"$x world\"; echo $y > /tmp/a; for w in $y; do echo $w >> /tmp/b; done");
    assert_eq!(run(&s, &["cat", "/tmp/a", "/tmp/b"], ms(0)).output, "hello world\nhello\nworld\n");
    let s = sh("touch /tmp/a.log /tmp/b.log /tmp/c.txt; rm /tmp/*.log");
    assert_eq!(run(&s, &["ls", "/tmp"], ms(0)).output, "c.txt\n");
    let s = interpret(&argv(&["sh", "-c", "echo \"$0 $1 $#\" > /tmp/args", "name", "one"])).unwrap();
    assert_eq!(run(&s, &["cat", "/tmp/args"], ms(0)).output, "name one 1\n");
    let s = interpret_with_env(&argv(&["sh", "-c", "sleep $DELAY"]), &[("DELAY".into(), "7".into())]).unwrap();
    assert_eq!(s.exit(), Some((secs(7), 0)));
}

#[test]
fn unsupported_commands_are_named() {
    assert_eq!(unsupported("nginx -g 'daemon off;'"), "command \"nginx\" is not one podsim can interpret");
    assert_eq!(
        interpret(&argv(&["pg_ctl", "start"])).unwrap_err().to_string(),
        "command \"pg_ctl\" is not one podsim can interpret"
    );
    assert_eq!(
        unsupported("sleep 5; /usr/local/bin/app --port 80"),
        "command \"/usr/local/bin/app\" is not one podsim can interpret"
    );
    assert!(unsupported("echo hi | grep h").contains("pipelines"));
    assert!(unsupported("(sleep 5; touch /tmp/x) &").contains("background"));
    assert!(interpret(&[]).is_err());
    assert!(interpret(&argv(&["sh", "/start.sh"])).unwrap_err().what.contains("script file"));
    // Only commands the script reaches matter.
    assert_eq!(sh("exit 0; nginx").exit(), Some((ms(0), 0)));
}

#[test]
fn a_counter_that_only_reaches_the_log_runs_forever() {
    // The Kubernetes logging documentation's `counter` pod.
    let s = sh("i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done");
    assert_eq!(s.exit(), None);
    assert_eq!(s.sigterm(secs(30)), Sigterm::Ignore);
    let s = sh("trap 'exit 0' TERM; i=0; while true; do echo $i; i=$((i+1)); sleep 2; done");
    assert_eq!(s.exit(), None);
    assert_eq!(s.sigterm(secs(31)), Sigterm::Exit { after: secs(1), code: 0 });
    // A counter that decides something is followed exactly.
    let s = sh("i=0; while true; do i=$((i+1)); if [ $i -gt 5 ]; then exit 3; fi; sleep 1; done");
    assert_eq!(s.exit(), Some((secs(5), 3)));
}

/// The docs' "Configure a Pod to Use a ConfigMap" container runs `env`: it
/// prints its environment and exits 0 at once (busybox `env`).
#[test]
fn env_prints_the_environment_and_exits() {
    let env = [("SPECIAL_LEVEL_KEY".to_string(), "very".to_string())];
    let script = super::interpret_with_env(&["/bin/sh".into(), "-c".into(), "env".into()], &env).unwrap();
    assert_eq!(script.exit(), Some((SimDuration::ZERO, 0)));
    let o = script.exec(&["printenv".into(), "SPECIAL_LEVEL_KEY".into()], SimDuration::ZERO).unwrap();
    assert_eq!((o.code, o.output.as_str()), (0, "very\n"));
    let o = script.exec(&["printenv".into(), "NOPE".into()], SimDuration::ZERO).unwrap();
    assert_eq!(o.code, 1);
}
