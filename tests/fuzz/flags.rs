//! Every flag of every command (as `src/cli/args.rs` defines them) with real
//! values, taken from `tests/cli` and the book, for the CLI grammar cases.
//! `every_flag_of_the_help_is_fuzzed` keeps this table in step with
//! `podsim COMMAND --help`.

/// A command: its words, whether it takes the run inputs (a scenario, `-f`,
/// the action flags), its own flags, and values for its positional argument.
pub struct Cmd {
    pub words: &'static [&'static str],
    pub inputs: bool,
    pub flags: &'static [&'static str],
    pub positional: &'static [&'static str],
}

/// The run-input flags (`RunInputs`), shared by every simulating command.
pub const INPUT_FLAGS: &[&str] = &[
    "--filename",
    "--recursive",
    "--namespace",
    "--app",
    "--cluster",
    "--kubernetes",
    "--seed",
    "--until",
    "--rollout-timeout",
    "--max-events",
    "--max-pods",
    "--delete",
    "--set-condition",
    "--kill",
    "--patch",
    "--cordon",
    "--uncordon",
    "--evict",
    "--drain",
    "--node-down",
    "--restart-kubelet",
    "--reboot",
    "--add-node",
    "--traffic",
    "--color",
];

pub const COMMANDS: &[Cmd] = &[
    Cmd { words: &["run"], inputs: true, flags: &["--output", "--only", "--types"], positional: &[] },
    Cmd {
        words: &["get"],
        inputs: true,
        flags: &["--watch", "--at", "--output", "--all-namespaces"],
        positional: &[
            "pods",
            "po",
            "deployments",
            "rs",
            "sts",
            "ds",
            "svc",
            "endpointslices",
            "events",
            "nodes",
            "pvc",
            "pdb",
            "jobs",
            "cj",
            "controllerrevisions",
            "pod/web-0",
            "deploy/web",
            "foo",
        ],
    },
    Cmd {
        words: &["describe"],
        inputs: true,
        flags: &["--at"],
        positional: &[
            "pod/web",
            "deployment/web",
            "rs/web",
            "sts/web",
            "ds/agent",
            "job/sweep",
            "cj/report",
            "svc/c28-probe",
            "endpointslice/web",
            "node/node-1",
        ],
    },
    Cmd {
        words: &["verify"],
        inputs: true,
        flags: &["--property", "--properties", "--runs", "--jobs", "--output", "--progress"],
        positional: &[],
    },
    Cmd {
        words: &["predict"],
        inputs: true,
        flags: &["--runs", "--jobs", "--output", "--dot", "--milestone", "--orderings", "--shard", "--progress"],
        positional: &[],
    },
    Cmd { words: &["report"], inputs: true, flags: &["--output", "--runs", "--jobs", "--progress"], positional: &[] },
    Cmd { words: &["plot", "timeline"], inputs: true, flags: &["--output"], positional: &[] },
    Cmd {
        words: &["plot", "cdf"],
        inputs: true,
        flags: &["--output", "--runs", "--jobs", "--milestone", "--progress"],
        positional: &[],
    },
    Cmd {
        words: &["plot", "graph"],
        inputs: true,
        flags: &["--output", "--runs", "--jobs", "--milestone", "--progress"],
        positional: &[],
    },
    Cmd {
        words: &["merge"],
        inputs: false,
        flags: &["--output", "--dot", "--milestone", "--orderings", "--color"],
        positional: &["{partial}"],
    },
    Cmd {
        words: &["check"],
        inputs: false,
        flags: &["--list", "--cluster", "--kubernetes", "--output", "--against", "--runs", "--color"],
        positional: &["{trace}"],
    },
    Cmd {
        words: &["completions"],
        inputs: false,
        flags: &["--color"],
        positional: &["bash", "zsh", "fish", "powershell", "elvish", "tcsh"],
    },
    Cmd {
        words: &["man"],
        inputs: false,
        flags: &["--color"],
        positional: &["run", "plot", "cdf", "merge", "nope", ""],
    },
];

/// Flags that take no value.
pub const SWITCHES: &[&str] = &["--recursive", "--watch", "--all-namespaces", "--dot", "--list"];

/// Real values of each flag. `{…}` stands for a real file: `{manifest}`,
/// `{app}`, `{cluster}`, `{scenario}` (the case's own), `{trace}` (a
/// recording), `{partial}` (a predict partial), `{props}` (a properties
/// file), `{dir}` (`models/manifests`).
pub fn values(flag: &str) -> &'static [&'static str] {
    match flag {
        "--filename" => &["{manifest}", "{dir}", "-", "/nonexistent.yaml", "/dev/null", "{app}"],
        "--namespace" => &[
            "default",
            "kube-system",
            "",
            "Default",
            "a-very-long-namespace-name-that-is-longer-than-sixty-three-characters-x",
        ],
        "--app" => &["{app}", "{manifest}", "/nonexistent.yaml", "/dev/null", "{dir}"],
        "--cluster" => &["{cluster}", "{app}", "/nonexistent.yaml", "/dev/null", "{dir}"],
        "--kubernetes" => &["1.34", "1.35", "1.37", "1.33", "1.35.0", "v1.35", "2.0"],
        "--seed" => &["1", "23", "0", "18446744073709551615", "18446744073709551616", "-1"],
        "--until" => &["20s", "1s", "0s", "250ms", "1m30s", "-1s", "1d"],
        "--rollout-timeout" => &["60s", "2m", "0s", "-1s"],
        "--max-events" => &["200000", "1", "100", "0", "-1", "18446744073709551616", "1e6"],
        "--max-pods" => &["10000", "1", "3", "0", "-1", "18446744073709551616", "1e4"],
        "--progress" => &["auto", "always", "never", "sometimes"],
        "--delete" => &[
            "pod/web@10s",
            "pod/web@10s,grace-period=5",
            "pod/web@10s,force=true",
            "deployment/web@5s,cascade=orphan",
            "job/fail-never@8s",
            "replicaset/web-*@5s",
            "statefulset/web@60s,cascade=foreground",
        ],
        "--set-condition" => &[
            "pod/web:example.com/lb=True@5s",
            "pod/web:Ready=True@10s",
            "pod/web:x.io/gate=Maybe@10s",
            "pod/web:a/b/c=True@10s",
        ],
        "--kill" => &[
            "pod/web/app@20s",
            "pod/web/app@0s,signal=SIGTERM",
            "pod/web-*/nope@10s",
            "pod/c28-probe/probe-app@5s,signal=HUP",
        ],
        "--patch" => &[
            r#"pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s"#,
            r#"pod/web:{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}@5s"#,
            r#"pod/c28-probe:{"metadata":{"labels":{"a":"b"}}}@1s"#,
        ],
        "--cordon" | "--uncordon" | "--restart-kubelet" | "--add-node" => {
            &["node/node-1@5s", "node/node-2@22s", "node/kind-worker@3s", "node/node-9@5s"]
        }
        "--evict" => &["pod/web-*@10s", "pod/web-*@0.065s", "pod/web@5s,grace-period=0"],
        "--drain" => &[
            "node/node-1@10s",
            "node/node-1@10s,force=true",
            "node/node-2@5s,timeout=2m,grace-period=1,ignore-daemonsets=true,delete-emptydir-data=true",
        ],
        "--node-down" => &["node/node-2@10s", "node/node-3@3s,for=5m", "node/kind-worker@4s,for=10s"],
        "--reboot" => &["node/node-2@6s,down=9s", "node/node-1@2s", "node/kind-worker@5s,down=90s"],
        "--traffic" => &[
            "service/web:80/ready@5s,every=1s,count=20",
            "pod/web:8080@1s",
            "service/c28-probe:http/identity@2s,rate=5/s,count=10,from=node/kind-worker,timeout=1s,name=x",
            "service/web@1s,every=1ms,count=100000",
        ],
        "--color" => &["auto", "always", "never", "sometimes"],
        "--output" => &[
            "table",
            "json",
            "jsonl",
            "wide",
            "yaml",
            "out.svg",
            "out.png",
            "out.html",
            "-",
            "/nonexistent/dir/out.svg",
        ],
        "--only" => &["pod/web-*,service/web", "deployment", "pod/nope", "node,endpointslice", "controllerrevision/*"],
        "--types" => &[
            "kubectl,request",
            "pod",
            "pods",
            "probe,process,kubelet,event,workload,service,proxy,scenario,claim,node",
        ],
        "--at" => &["0s", "10s", "25s", "200s", "-1s"],
        "--property" => &[
            "never restarts(pod/*) > 0",
            "always ready_endpoints(svc/c28-probe) >= 1 after 25s",
            "eventually pod/web:ready within 15s",
            "sometimes first_ok(svc/c28-probe) < 15s",
        ],
        "--properties" => &["{props}", "{manifest}", "/nonexistent.txt"],
        "--runs" => &["1", "2", "3", "0", "4294967296", "100001"],
        "--jobs" => &["1", "2", "0", "99999"],
        "--milestone" => &["*:ready", "pod/web", "pod/web@rev2#*:ready", "", "*"],
        "--orderings" => &["both", "always", "varies", "none", "all"],
        "--shard" => &["0/2", "1/2", "2/2", "0/0", "1/18446744073709551616", "-1/2", "a/b"],
        "--against" => &["{scenario}", "{manifest}", "/nonexistent.yaml"],
        _ => &[],
    }
}

#[test]
fn every_flag_of_the_help_is_fuzzed() {
    use super::harness::BIN;
    for cmd in COMMANDS {
        let out = std::process::Command::new(BIN).args(cmd.words).arg("--help").output().expect("podsim --help");
        let help = String::from_utf8_lossy(&out.stdout);
        for line in help.lines() {
            let Some(at) = line.find("--") else { continue };
            if !line[..at].trim().chars().all(|c| c == '-' || c == ',' || c.is_ascii_alphabetic()) {
                continue;
            }
            let flag: String = line[at..].chars().take_while(|c| *c == '-' || c.is_ascii_lowercase()).collect();
            if flag == "--help" {
                continue;
            }
            let listed = cmd.flags.contains(&flag.as_str()) || (cmd.inputs && INPUT_FLAGS.contains(&flag.as_str()));
            assert!(listed, "podsim {} {flag}: a flag the fuzz table does not list", cmd.words.join(" "));
            assert!(
                SWITCHES.contains(&flag.as_str()) || !values(&flag).is_empty(),
                "{flag}: no values to fuzz it with"
            );
        }
    }
}
