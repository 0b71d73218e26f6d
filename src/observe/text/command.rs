//! Command lines: shell prompts and the `kubectl` commands after them, which
//! name the resource (and its namespace) shown by the output below.

/// A shell prompt (`$ cmd`, `[root@x:~]$ cmd`, `root@node:/# cmd`, `controlplane $ cmd`).
pub(super) fn is_prompt(t: &str) -> bool {
    let mut toks = t.split_whitespace();
    let Some(a) = toks.next() else { return false };
    if matches!(a, "$" | "%" | ">") {
        return true;
    }
    if a.chars().count() > 1 && a.chars().count() <= 80 && (a.ends_with('$') || a.ends_with('>')) {
        return true;
    }
    if a.chars().count() > 1 && a.ends_with('#') && (a.contains('@') || a.contains(':')) {
        return true;
    }
    toks.next() == Some("$") && !a.contains(['<', '(', ')'])
}

/// What a `kubectl` command line says about the output below it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Command {
    pub(super) verb: String,
    /// Resource kinds: `pod`, `replicaset`, `deployment`, `statefulset`, `job`
    /// for any spelling of those, else as written.
    pub(super) kinds: Vec<String>,
    pub(super) names: Vec<String>,
    pub(super) namespace: Option<String>,
    pub(super) all_namespaces: bool,
    pub(super) watch: Watch,
}

/// Whether a `kubectl get` watches: `-w` lists the objects then prints each
/// change, `--watch-only` prints only the changes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Watch {
    #[default]
    No,
    ListThenChanges,
    ChangesOnly,
}

impl Command {
    /// `kubectl describe pod NAME` (one pod): its name and namespace.
    pub(super) fn described_pod(&self) -> Option<(String, Option<String>)> {
        (self.verb == "describe" && self.kinds == ["pod"] && self.names.len() == 1)
            .then(|| (self.names.first().cloned().unwrap_or_default(), self.namespace.clone()))
    }
}

const VERBS: &[&str] = &[
    "get",
    "describe",
    "logs",
    "apply",
    "delete",
    "create",
    "edit",
    "scale",
    "rollout",
    "exec",
    "run",
    "patch",
    "label",
    "annotate",
    "top",
    "explain",
    "wait",
    "set",
    "expose",
    "debug",
    "cp",
    "port-forward",
    "events",
    "drain",
    "cordon",
    "uncordon",
    "taint",
    "auth",
    "config",
    "replace",
    "attach",
    "proxy",
    "diff",
    "version",
    "cluster-info",
    "autoscale",
];

/// Flags that take a value as the next argument.
const VALUE_FLAGS: &[&str] = &[
    "--namespace",
    "--selector",
    "--output",
    "--container",
    "--filename",
    "--context",
    "--kubeconfig",
    "--field-selector",
    "--label-columns",
    "--sort-by",
    "--cluster",
    "--user",
    "--server",
    "--since",
    "--tail",
    "--template",
    "--chunk-size",
    "--for",
    "--timeout",
    "--type",
    "--image",
    "--replicas",
    "--as",
    "--request-timeout",
];

pub(super) fn normalize_kind(k: &str) -> String {
    let k = k.to_ascii_lowercase();
    let k = k.strip_suffix(".apps").or_else(|| k.strip_suffix(".batch")).unwrap_or(&k);
    match k {
        "po" | "pod" | "pods" => "pod",
        "rs" | "replicaset" | "replicasets" => "replicaset",
        "deploy" | "deployment" | "deployments" => "deployment",
        "sts" | "statefulset" | "statefulsets" => "statefulset",
        "job" | "jobs" => "job",
        _ => k,
    }
    .to_string()
}

/// Parses a line holding a `kubectl` command, after an optional prompt.
pub(super) fn parse_command(line: &str) -> Option<Command> {
    let line = line.split('|').next().unwrap_or("");
    let line = match line.find(" #") {
        Some(p) => line.get(..p).unwrap_or(line),
        None => line,
    };
    let toks: Vec<&str> = line.split_whitespace().collect();
    let at = toks.iter().take(5).enumerate().position(|(i, t)| {
        let prev_ok = i == 0
            || toks.get(i - 1).is_some_and(|p| {
                p.ends_with(['$', '#', '>', '%']) || matches!(*p, "time" | "sudo" | "watch" | "minikube" | "microk8s")
            });
        let next_verb = toks.get(i + 1).is_some_and(|n| VERBS.contains(n) || n.starts_with('-'));
        let kubectl = *t == "kubectl" || t.ends_with("/kubectl") || *t == "kubectl.exe";
        prev_ok && ((kubectl && (next_verb || toks.len() == i + 1)) || (matches!(*t, "k" | "oc") && next_verb))
    })?;
    let args = toks.get(at + 1..).unwrap_or(&[]);
    let mut cmd = Command::default();
    let mut positional = Vec::new();
    let mut j = 0;
    while let Some(a) = args.get(j).copied() {
        j += 1;
        if a == "--" {
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let flag = format!("--{name}");
            let val = match val {
                Some(v) => Some(v.to_string()),
                None if VALUE_FLAGS.contains(&flag.as_str()) => {
                    j += 1;
                    args.get(j - 1).map(|s| s.to_string())
                }
                None => None,
            };
            match name {
                "namespace" => cmd.namespace = val,
                "all-namespaces" => cmd.all_namespaces = true,
                "watch" if val.as_deref() != Some("false") => cmd.watch = Watch::ListThenChanges,
                "watch-only" if val.as_deref() != Some("false") => cmd.watch = Watch::ChangesOnly,
                _ => {}
            }
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            let mut chars = short.chars();
            let c = chars.next().unwrap_or('-');
            let rest = chars.as_str().trim_start_matches('=');
            if matches!(c, 'n' | 'l' | 'o' | 'c' | 'f' | 'L' | 's') {
                let val = if rest.is_empty() {
                    j += 1;
                    args.get(j - 1).map(|s| s.to_string())
                } else {
                    Some(rest.to_string())
                };
                if c == 'n' {
                    cmd.namespace = val;
                }
            } else if short.chars().all(|c| c.is_ascii_alphabetic()) {
                // Combined boolean flags: `-Aw`, `-wA`.
                if short.contains('A') {
                    cmd.all_namespaces = true;
                }
                if short.contains('w') {
                    cmd.watch = Watch::ListThenChanges;
                }
            }
        } else {
            positional.push(a);
        }
    }
    cmd.verb = positional.first().map(|s| s.to_string()).unwrap_or_default();
    if matches!(cmd.verb.as_str(), "get" | "describe")
        && let Some(res) = positional.get(1)
    {
        if res.contains('/') {
            for r in positional.iter().skip(1) {
                if let Some((k, n)) = r.split_once('/') {
                    cmd.kinds.push(normalize_kind(k));
                    cmd.names.push(n.to_string());
                }
            }
        } else {
            cmd.kinds = res.split(',').filter(|k| !k.is_empty()).map(normalize_kind).collect();
            cmd.names = positional.iter().skip(2).map(|s| s.to_string()).collect();
        }
    }
    Some(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        let c = parse_command("controlplane $ kubectl describe po/web-0 -n shop | grep -A 10 Events:").unwrap();
        assert_eq!(c.described_pod(), Some(("web-0".to_string(), Some("shop".to_string()))));
        let c = parse_command("[root@x:~]$ k -n=ns describe pods a b").unwrap();
        assert_eq!(
            (c.kinds.as_slice(), c.names.len(), c.namespace.as_deref()),
            (&["pod".to_string()][..], 2, Some("ns"))
        );
        let c = parse_command("$ kubectl get pod,deploy,rs --all-namespaces -owide").unwrap();
        assert!(c.all_namespaces);
        assert_eq!(
            (c.kinds.as_slice(), c.watch),
            (&["pod", "deployment", "replicaset"].map(String::from)[..], Watch::No)
        );
        assert_eq!(parse_command("$ kubectl get pods -Aw").unwrap().watch, Watch::ListThenChanges);
        assert_eq!(parse_command("$ kubectl get rs --watch").unwrap().watch, Watch::ListThenChanges);
        assert_eq!(parse_command("$ kubectl get po --watch-only -o wide").unwrap().watch, Watch::ChangesOnly);
        assert!(parse_command("kubectl is a tool").is_none());
        assert!(parse_command("the k value").is_none());
    }
}
