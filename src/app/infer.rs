//! A container's behaviour when no behaviour file describes it: what a
//! well-known image does ([`images`](super::images)), else what its shell
//! script does ([`shell`](super::shell)), its exec probes and hooks answered
//! against the script's own files over time. What neither can read is said
//! by the caller, never assumed silently.

use super::schema::{ContainerBehaviour, ExecPhase, ExitSpec};
use super::shell::{self, Script};
use crate::dist::Dist;
use crate::spec::{ContainerSpec, Handler, HookHandler};
use crate::time::SimDuration;
use std::sync::Arc;

/// Where an inferred behaviour comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The image's documented behaviour for its argv.
    Image,
    /// The container's shell script, interpreted.
    Script,
}

/// A behaviour read from the container itself.
#[derive(Clone, Debug)]
pub struct Inferred {
    pub behaviour: Arc<ContainerBehaviour>,
    pub source: Source,
    /// Exec commands (probes, hooks) the script cannot answer, with why.
    pub unanswered: Vec<(String, String)>,
}

/// Images with no ENTRYPOINT: a pod's `args` alone are the argv.
const NO_ENTRYPOINT: [&str; 6] = ["busybox", "alpine", "ubuntu", "debian", "fedora", "centos"];

/// Reads the container: its image's behaviour, else its script's (run with
/// its volumes `mounted`: directories, and files with their text); `Err`
/// says why neither applies.
pub fn infer(c: &ContainerSpec, mounted: &[(String, Option<String>)]) -> Result<Inferred, String> {
    if let Some(dir) = mounted_configuration(c) {
        return Err(format!("image {:?} runs with its configuration ({dir}) mounted from a volume", c.image));
    }
    if let Some(b) = super::images::known(&c.image, &c.command, &c.args) {
        return Ok(Inferred { behaviour: Arc::new(b), source: Source::Image, unanswered: Vec::new() });
    }
    let argv = argv(c)?;
    let script = shell::interpret_mounted(&argv, &c.env, mounted).map_err(|u| u.what)?;
    let (behaviour, unanswered) = from_script(script, &exec_commands(c));
    Ok(Inferred { behaviour: Arc::new(behaviour), source: Source::Script, unanswered })
}

/// Images whose documented behaviour is their default configuration's, with
/// the directory that holds it: a volume mounted there changes what they do.
const CONFIGURED_BY: [(&str, &str); 1] = [("nginx", "/etc/nginx")];

/// The configuration directory of a known image that a volume replaces.
fn mounted_configuration(c: &ContainerSpec) -> Option<&'static str> {
    let repository = c.image.split('@').next().unwrap_or("");
    let repository = repository.rsplit_once(':').filter(|(_, tag)| !tag.contains('/')).map_or(repository, |(r, _)| r);
    let name = repository.trim_start_matches("docker.io/").trim_start_matches("library/");
    let (_, dir) = CONFIGURED_BY.iter().find(|(image, _)| *image == name)?;
    c.mounts.iter().any(|(path, _)| path.starts_with(dir)).then_some(*dir)
}

/// The argv the runtime runs (containerd: `command` then `args`; the
/// image's ENTRYPOINT then `args` when the pod gives no `command`).
fn argv(c: &ContainerSpec) -> Result<Vec<String>, String> {
    if !c.command.is_empty() {
        return Ok(c.command.iter().chain(&c.args).cloned().collect());
    }
    let repository = c.image.split(['@', ':']).next().unwrap_or("");
    let name = repository.rsplit('/').next().unwrap_or("");
    match (c.args.is_empty(), NO_ENTRYPOINT.contains(&name)) {
        (false, true) => Ok(c.args.clone()),
        (true, _) => Err(format!("image {:?} is not one podsim knows, and the pod gives no command", c.image)),
        (false, false) => {
            Err(format!("image {:?} is not one podsim knows, and its entrypoint runs the pod's args", c.image))
        }
    }
}

/// The argv of each exec probe and exec hook of the container.
fn exec_commands(c: &ContainerSpec) -> Vec<Vec<String>> {
    let probes = [&c.startup, &c.readiness, &c.liveness].into_iter().flatten().filter_map(|p| match &p.handler {
        Handler::Exec { command } => Some(command.clone()),
        _ => None,
    });
    let hooks = [&c.post_start, &c.pre_stop].into_iter().flatten().filter_map(|h| match h {
        HookHandler::Exec { command } => Some(command.clone()),
        _ => None,
    });
    let mut out: Vec<Vec<String>> = Vec::new();
    for command in probes.chain(hooks) {
        if !out.contains(&command) {
            out.push(command);
        }
    }
    out
}

/// At most this many instants of a script whose loop changes files forever:
/// past the last, its exec answers stay as they were then.
const MAX_INSTANTS: usize = 2_000;

/// The instants at which the script's files change, a repeating loop's
/// extended period by period.
fn instants(script: &Script) -> Vec<SimDuration> {
    let mut out = script.changes();
    let Some((start, period)) = script.repeats().filter(|(_, p)| *p > SimDuration::ZERO) else { return out };
    let cycle: Vec<SimDuration> = out.iter().copied().filter(|t| *t >= start && *t < start + period).collect();
    if cycle.is_empty() {
        return out;
    }
    let mut k = 1;
    while out.len() < MAX_INSTANTS {
        let shift = SimDuration::from_millis(period.as_millis() * k);
        out.extend(cycle.iter().map(|t| *t + shift));
        k += 1;
    }
    out.truncate(MAX_INSTANTS);
    out
}

/// The behaviour of a script: it binds no port, exits when it ends, and
/// answers each exec command as it would run against the files at the time.
fn from_script(script: Script, commands: &[Vec<String>]) -> (ContainerBehaviour, Vec<(String, String)>) {
    let at = instants(&script);
    let mut exec = std::collections::BTreeMap::new();
    let mut unanswered = Vec::new();
    for argv in commands {
        let key = argv.join(" ");
        match schedule(&script, argv, &at) {
            Ok(phases) => {
                exec.insert(key, phases);
            }
            Err(why) => unanswered.push((key, why)),
        }
    }
    let exit = script.exit().map(|(after, code)| ExitSpec { after: Dist::Fixed(after), code });
    let behaviour = ContainerBehaviour {
        ports: Some(Vec::new()),
        exec,
        exit,
        script: Some(Arc::new(script)),
        ..ContainerBehaviour::default()
    };
    (behaviour, unanswered)
}

/// One command's answers over time: a stretch per run of equal answers.
fn schedule(script: &Script, argv: &[String], at: &[SimDuration]) -> Result<Vec<ExecPhase>, String> {
    let mut phases: Vec<(SimDuration, ExecPhase)> = Vec::new();
    for &t in at {
        let o = script.exec(argv, t).map_err(|u| u.what)?;
        let output = (!o.output.is_empty()).then(|| Arc::from(o.output.as_str()));
        let same = phases
            .last()
            .is_some_and(|(_, p)| p.exit == o.code && p.output == output && p.latency == Some(Dist::Fixed(o.duration)));
        if !same {
            let phase = ExecPhase {
                until: None,
                exit: o.code,
                output,
                latency: Some(Dist::Fixed(o.duration)),
                after_sigterm: false,
                after_prestop: false,
            };
            phases.push((t, phase));
        }
    }
    let starts: Vec<SimDuration> = phases.iter().map(|(t, _)| *t).skip(1).collect();
    let mut out: Vec<ExecPhase> = phases.into_iter().map(|(_, p)| p).collect();
    for (p, end) in out.iter_mut().zip(starts) {
        p.until = Some(Dist::Fixed(end));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ProbeSpec, PullPolicy, Role};

    fn container(image: &str, command: &[&str], args: &[&str], liveness: Option<&[&str]>) -> ContainerSpec {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        ContainerSpec {
            name: Arc::from("c"),
            role: Role::Regular,
            image: image.into(),
            command: strings(command),
            args: strings(args),
            env: Vec::new(),
            mounts: Vec::new(),
            pull_policy: PullPolicy::IfNotPresent,
            ports: Vec::new(),
            startup: None,
            readiness: None,
            liveness: liveness.map(|cmd| ProbeSpec {
                handler: Handler::Exec { command: strings(cmd) },
                initial_delay_seconds: 5,
                period: SimDuration::from_secs(5),
                timeout: SimDuration::from_secs(1),
                success_threshold: 1,
                failure_threshold: 3,
                termination_grace: None,
            }),
            post_start: None,
            pre_stop: None,
            memory_limit: None,
        }
    }

    /// The documentation's exec liveness pod: `cat /tmp/healthy` succeeds
    /// for the first 30 s, then fails with busybox's message; the script
    /// ends at 630 s; its shell, PID 1 with no trap, ignores SIGTERM.
    #[test]
    fn the_docs_exec_liveness_script_gives_the_docs_story() {
        let c = container(
            "registry.k8s.io/busybox",
            &[],
            &["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
            Some(&["cat", "/tmp/healthy"]),
        );
        let inferred = infer(&c, &[]).unwrap();
        assert_eq!(inferred.source, Source::Script);
        let b = &inferred.behaviour;
        let phases = &b.exec["cat /tmp/healthy"];
        assert_eq!(phases.len(), 2);
        assert_eq!((phases[0].until.clone(), phases[0].exit), (Some(Dist::Fixed(SimDuration::from_secs(30))), 0));
        assert_eq!(phases[1].exit, 1);
        assert_eq!(phases[1].output.as_deref(), Some("cat: can't open '/tmp/healthy': No such file or directory\n"));
        let exit = b.exit.as_ref().unwrap();
        assert_eq!((exit.after.clone(), exit.code), (Dist::Fixed(SimDuration::from_secs(630)), 0));
        assert_eq!(b.ports, Some(Vec::new()));
        let plan = crate::app::Plan::draw(Some(b.clone()), &[], Arc::from("t"), &mut crate::rng::Stream::new(1, "t"));
        assert_eq!(plan.sigterm_at(SimDuration::from_secs(5)), crate::app::OnSigterm::Ignore);
    }

    #[test]
    fn a_known_image_comes_before_the_script_and_an_unknown_one_is_explained() {
        let agnhost = container("registry.k8s.io/e2e-test-images/agnhost:2.40", &[], &["liveness"], None);
        assert_eq!(infer(&agnhost, &[]).unwrap().source, Source::Image);
        let app = container("example.com/shop:1.2", &[], &[], None);
        assert_eq!(
            infer(&app, &[]).unwrap_err(),
            "image \"example.com/shop:1.2\" is not one podsim knows, and the pod gives no command"
        );
        let db = container("postgres:16", &["pg_ctl", "start"], &[], None);
        assert_eq!(infer(&db, &[]).unwrap_err(), "command \"pg_ctl\" is not one podsim can interpret");
        let mut configured = container("nginx:1.27", &[], &[], None);
        configured.mounts = vec![("/etc/nginx/conf.d".into(), "conf".into())];
        assert_eq!(
            infer(&configured, &[]).unwrap_err(),
            "image \"nginx:1.27\" runs with its configuration (/etc/nginx) mounted from a volume"
        );
    }

    /// A probe command the interpreter cannot run is left to the caller's
    /// warning; the script's other answers stand.
    #[test]
    fn an_uninterpretable_probe_is_named() {
        let c = container("busybox", &["sh", "-c", "sleep 3600"], &[], Some(&["pg_isready", "-U", "app"]));
        let inferred = infer(&c, &[]).unwrap();
        assert!(inferred.behaviour.exec.is_empty());
        assert_eq!(
            inferred.unanswered,
            [("pg_isready -U app".to_string(), "command \"pg_isready\" is not one podsim can interpret".to_string())]
        );
    }
}
