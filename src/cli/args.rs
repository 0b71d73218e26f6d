//! Flags, defined once; `--help` is generated from these doc comments.

use super::color::When;
use crate::cluster::Version;
use crate::time::{SimDuration, parse_duration};
use crate::trace::table::RowType;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A discrete-event simulator of the Kubernetes pod lifecycle.
#[derive(Debug, Parser)]
#[command(name = "podsim", version = version(), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// When to colour the output: auto (a terminal, unless NO_COLOR is set),
    /// always (even a pipe, whatever NO_COLOR says) or never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = When::Auto, hide_possible_values = true)]
    pub color: When,
}

/// What `-V` and `--version` print after `podsim `: the release, then the
/// Kubernetes versions it models, which a user needs as much.
pub fn version() -> String {
    format!("{}\n{}", env!("CARGO_PKG_VERSION"), Version::modelled())
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a pod and print its timeline.
    Run(RunArgs),
    /// Check recordings from a real cluster (or podsim traces) against the kubelet's invariants.
    Check(CheckArgs),
    /// Run a scenario many times with successive seeds: each milestone's time
    /// distribution, the orderings that always hold and those that vary.
    Predict(PredictArgs),
    /// Combine the partial results of `predict --shard` into one prediction.
    Merge(MergeArgs),
    /// Check properties over many seeded runs; a counterexample comes with
    /// its seed and a shrunk timeline. Exit 0: every property holds; 1: a
    /// counterexample (or a `sometimes` never seen); 2: bad input.
    Verify(VerifyArgs),
    /// Draw pictures (SVG or PNG, by the file's extension): the swimlane
    /// timeline of one run, CDFs of milestone times, the happens-before graph.
    Plot(PlotArgs),
    /// Print what `kubectl get` would print of a run: the objects at an
    /// instant (the run's end by default), or every watch event (`-w`).
    Get(GetArgs),
    /// Print what `kubectl describe` would print of a run's pod, Deployment,
    /// ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, Service or
    /// EndpointSlice at an instant (the run's end by default), with the
    /// events about it then.
    Describe(DescribeArgs),
    /// Write one self-contained HTML page: a run's swimlanes (hover or click
    /// a mark for the object at that instant), its events and probe results;
    /// with --runs, the milestone CDFs, the ordering graph, the orderings
    /// that vary, and the slowest and fastest seeds with their timelines.
    Report(ReportArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    Completions(CompletionsArgs),
    /// Print the man page of podsim (roff), or of one of its commands.
    Man(ManArgs),
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub inputs: RunInputs,
    /// The page to write, e.g. report.html (- for the standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Also run the scenario this many times (seeds SEED, SEED+1, …) and show
    /// the prediction, with the slowest and fastest seeds' timelines.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// Threads for --runs (default: every core); the page does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// How far the sweep got: a bar on a terminal; elsewhere (a log, CI) a
    /// line every 5 s, by default once it has run 10 s.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub progress: ProgressWhen,
}

#[derive(Debug, clap::Args)]
#[command(after_help = concat!(
    "Install it, e.g.:\n",
    "  bash: podsim completions bash > ~/.local/share/bash-completion/completions/podsim\n",
    "  zsh:  podsim completions zsh > ~/.zfunc/_podsim   (and fpath+=~/.zfunc in ~/.zshrc)\n",
    "  fish: podsim completions fish > ~/.config/fish/completions/podsim.fish",
))]
pub struct CompletionsArgs {
    /// The shell to complete podsim's commands and flags in.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(after_help = concat!(
    "Read it, e.g.:     podsim man | man -l -        (podsim man run | man -l -: `podsim run`'s)\n",
    "Install it, e.g.:  podsim man > /usr/local/share/man/man1/podsim.1",
))]
pub struct ManArgs {
    /// A command, to print its own page: e.g. `run` gives podsim-run(1),
    /// `plot cdf` podsim-plot-cdf(1). Without one: podsim(1), which lists
    /// the commands.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct DescribeArgs {
    /// The object, as kubectl names it: KIND/NAME, KIND one of pod (po),
    /// deployment (deploy), replicaset (rs), statefulset (sts), daemonset
    /// (ds), job, cronjob (cj), service (svc) or endpointslice.
    pub resource: String,
    #[command(flatten)]
    pub inputs: RunInputs,
    /// The instant to describe the object at, e.g. 30s (default: the run's end).
    #[arg(long, value_parser = duration, value_name = "TIME")]
    pub at: Option<SimDuration>,
}

#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// What to print, as kubectl names it: pods (po), deployments (deploy),
    /// replicasets (rs), statefulsets (sts), services (svc) or endpointslices;
    /// KIND/NAME for one object.
    pub resource: String,
    #[command(flatten)]
    pub inputs: RunInputs,
    /// Watch, as `kubectl get -w` run before the scenario starts: a row for
    /// every watch event (each change of the object, and its deletion).
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// The instant to print the objects at, e.g. 30s (default: the run's end).
    #[arg(long, value_parser = duration, value_name = "TIME")]
    pub at: Option<SimDuration>,
    /// Output format: the table (default), `wide` (its extra columns), or
    /// `yaml`/`json` (the objects as the API server returns them then).
    #[arg(short = 'o', long = "output", value_enum)]
    pub output: Option<GetOutput>,
    /// Every namespace, with a NAMESPACE column (default: the objects of
    /// --namespace, else `default`).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
}

/// `kubectl get -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GetOutput {
    Wide,
    Yaml,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    #[command(subcommand)]
    pub picture: Picture,
}

#[derive(Debug, Subcommand)]
pub enum Picture {
    /// One run as swimlanes: container states, probe results, pod conditions,
    /// endpoints, kube-proxy syncs, requests, and the key milestones.
    Timeline(TimelineArgs),
    /// The cumulative distribution of chosen milestone times over seeded runs.
    Cdf(CdfArgs),
    /// The happens-before graph of the milestones over seeded runs, in layers.
    Graph(GraphArgs),
}

/// The run inputs and the output file every picture takes.
#[derive(Debug, clap::Args)]
pub struct PlotInputs {
    #[command(flatten)]
    pub run: RunInputs,
    /// The picture to write: FILE.svg or FILE.png.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct TimelineArgs {
    #[command(flatten)]
    pub inputs: PlotInputs,
}

/// The seeded runs a picture of many runs is drawn from.
#[derive(Debug, clap::Args)]
pub struct Sweep {
    /// How many runs (seeds SEED, SEED+1, …).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Threads (default: every core); the picture does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// How far the sweep got: a bar on a terminal; elsewhere (a log, CI) a
    /// line every 5 s, by default once it has run 10 s.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub progress: ProgressWhen,
}

#[derive(Debug, clap::Args)]
#[command(mut_arg("seed", first_seed))]
pub struct CdfArgs {
    #[command(flatten)]
    pub inputs: PlotInputs,
    #[command(flatten)]
    pub sweep: Sweep,
    /// Milestones to draw: a name, a prefix ending where a name part ends
    /// (pod/web), or a pattern with * (*:ready). Repeatable; default: the
    /// pods' and Services' key steps.
    #[arg(short = 'm', long = "milestone", value_name = "PATTERN")]
    pub milestones: Vec<String>,
}

#[derive(Debug, clap::Args)]
#[command(mut_arg("seed", first_seed))]
pub struct GraphArgs {
    #[command(flatten)]
    pub inputs: PlotInputs,
    #[command(flatten)]
    pub sweep: Sweep,
    /// Milestones to draw: a name, a prefix ending where a name part ends
    /// (pod/web), or a pattern with * (*:ready). Repeatable; default: every
    /// ordered one, or past 40 the key ones.
    #[arg(short = 'm', long = "milestone", value_name = "PATTERN")]
    pub milestones: Vec<String>,
}

#[derive(Debug, clap::Args)]
#[command(mut_arg("seed", |a| a.help("The first seed (default: the scenario's, else 1); re-runs a counterexample")))]
pub struct VerifyArgs {
    #[command(flatten)]
    pub inputs: RunInputs,
    /// A property, e.g. 'always ready_endpoints(svc/web) >= 1 after 30s' (repeatable).
    #[arg(short = 'p', long = "property", value_name = "PROPERTY")]
    pub properties: Vec<String>,
    /// A file of properties, one per line, `#` comments (repeatable).
    #[arg(long = "properties", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// How many runs at most (default 1000; 1 with --seed).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// Threads (default: every core); the results do not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// How far the sweep got: a bar on a terminal; elsewhere (a log, CI) a
    /// line every 5 s, by default once it has run 10 s.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub progress: ProgressWhen,
    /// Output format: table (a report per property: HOLDS, NOT SEEN or BROKEN,
    /// with the seed, the instant and the shrunk timeline of a counterexample), or json
    /// (one JSON object per property, one per line; `jsonl` is the same).
    #[arg(short = 'o', long = "output", value_enum, default_value = "table", hide_possible_values = true)]
    pub output: Output,
}

#[derive(Debug, clap::Args)]
#[command(mut_arg("seed", first_seed))]
pub struct PredictArgs {
    #[command(flatten)]
    pub inputs: RunInputs,
    /// How many runs (seeds SEED, SEED+1, …).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Threads (default: every core); the results do not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// How far the sweep got: a bar on a terminal; elsewhere (a log, CI) a
    /// line every 5 s, by default once it has run 10 s.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub progress: ProgressWhen,
    /// Output format: table (each milestone's distribution, then the
    /// orderings), or json (the whole prediction as one JSON object on one
    /// line; `jsonl` is the same).
    #[arg(short = 'o', long = "output", value_enum, default_value = "table", hide_possible_values = true)]
    pub output: Output,
    /// Print the happens-before graph in Graphviz DOT instead.
    #[arg(long)]
    pub dot: bool,
    #[command(flatten)]
    pub selection: Selection,
    /// Run only shard K of N (a contiguous block of the runs) and write its
    /// runs' milestones as a partial result for `podsim merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

/// Which milestones and orderings a prediction prints, and in what order.
#[derive(Debug, clap::Args)]
pub struct Selection {
    /// Only the milestones this matches (repeatable), in the table, the JSON
    /// and the graph alike: an exact name; a prefix ending where a part of
    /// the name ends (pod/web is pod web's milestones and its containers',
    /// deploy/web@rev2 that revision's); or a pattern where * is any run of
    /// characters (*:ready, pod/web@rev2#*:ready). The orderings are those
    /// among the chosen milestones.
    #[arg(short = 'm', long = "milestone", value_name = "PATTERN")]
    pub milestones: Vec<String>,
    /// Which ordering sections to print: both (ALWAYS BEFORE and ORDER
    /// VARIES), always, varies or none. Milestones print by median time
    /// (ties by name), edges in that order, and the pairs whose order varies
    /// closest to a coin toss first (the smallest share for the commonest
    /// order; ties by names).
    #[arg(long, value_enum, default_value_t = Orderings::Both, value_name = "WHICH")]
    pub orderings: Orderings,
}

/// `--orderings`: which ordering sections of a prediction print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Orderings {
    Both,
    Always,
    Varies,
    None,
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Partial results written by `podsim predict --shard K/N`.
    #[arg(required = true)]
    pub partials: Vec<PathBuf>,
    /// Output format: table (each milestone's distribution, then the
    /// orderings), or json (the whole prediction as one JSON object on one
    /// line; `jsonl` is the same).
    #[arg(short = 'o', long = "output", value_enum, default_value = "table", hide_possible_values = true)]
    pub output: Output,
    /// Print the happens-before graph in Graphviz DOT instead.
    #[arg(long)]
    pub dot: bool,
    #[command(flatten)]
    pub selection: Selection,
}

/// `--progress`: when a sweep says how far it got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ProgressWhen {
    /// A bar on a terminal; elsewhere a line every 5 s once the sweep has run 10 s.
    #[default]
    Auto,
    /// A bar on a terminal; elsewhere a line every 5 s from the start.
    Always,
    /// Nothing.
    Never,
}

/// `-o`: for humans or for machines. `json` and `jsonl` name the same value;
/// what each command prints for it is in its `-o` help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// One line per change, with the reason (kubectl-style).
    Table,
    /// The full trace as JSON Lines (schema podsim/trace/v1): one record per
    /// line, the header first; `json` is the same.
    #[value(alias = "json")]
    Jsonl,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub inputs: RunInputs,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Output::Table)]
    pub output: Output,
    /// Only the table's rows about these objects: KIND/NAME, KIND/PREFIX*
    /// or a whole KIND, e.g. pod/web-*,service/web or deployment. Repeatable.
    #[arg(long, value_delimiter = ',', value_name = "OBJECT")]
    pub only: Vec<String>,
    /// Only the table's rows of these types: pod, probe, process, kubelet,
    /// event, workload, service, proxy, request, kubectl, scenario, claim, node,
    /// e.g. --types kubectl,request. Repeatable.
    #[arg(long, value_delimiter = ',', value_name = "TYPE", value_parser = row_type)]
    pub types: Vec<RowType>,
}

fn row_type(s: &str) -> Result<RowType, String> {
    RowType::parse(s)
}

/// What a run is made of, as `podsim run` takes it: a scenario, or manifests
/// and flags, and actions and traffic added to it.
#[derive(Debug, clap::Args)]
pub struct RunInputs {
    /// A scenario file naming manifests, app behaviour, cluster profile, seed and duration.
    pub scenario: Option<PathBuf>,
    /// Manifests, as kubectl's -f: a file (YAML or JSON, multi-document,
    /// `kind: List`), a directory (its .json, .yaml and .yml files in name
    /// order), or - for the standard input (e.g. `helm template … | podsim
    /// run -f -`). Repeatable. Replaces the scenario's.
    #[arg(short = 'f', long = "filename", value_name = "MANIFEST")]
    pub manifests: Vec<PathBuf>,
    /// Read the directories given with -f recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// The namespace of the objects that name none, as kubectl's; an object
    /// naming another is an error (default: their own, else `default`).
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// App behaviour file.
    #[arg(long, value_name = "APP.yaml")]
    pub app: Option<PathBuf>,
    /// Cluster profile.
    #[arg(long, value_name = "PROFILE.yaml")]
    pub cluster: Option<PathBuf>,
    /// Kubernetes version to model (1.34–1.37), overriding the profile's.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,
    /// Seed of the run (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How much simulated time to run, e.g. 90s, 5m, 250ms, 1d (default 10m).
    #[arg(long, value_parser = duration)]
    pub until: Option<SimDuration>,
    /// After each rollout (`apply` action), run `kubectl rollout status
    /// --timeout=DURATION` and show what it prints, e.g. 60s.
    #[arg(long, value_parser = duration, value_name = "DURATION")]
    pub rollout_timeout: Option<SimDuration>,
    /// The events one run may handle before it stops, a bound on its time
    /// and memory (default 10000000, about 2 GB of trace at most; a run that
    /// reaches it is reported, with the simulated time it got to).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_events: Option<u64>,
    /// The pods one run may create before it stops (default 10000): each
    /// pod lengthens every controller's pass over the pods. A workload
    /// asking for more replicas than this is refused before the run.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pods: Option<u64>,
    /// Delete a pod at a time, like `kubectl delete`: POD@TIME[,grace-period=N],
    /// e.g. pod/web@60s. N is the gracePeriodSeconds the API server receives
    /// (kubectl sends 1 for --grace-period=0 without --force, none for a
    /// negative one). Or a workload (deployment, replicaset, statefulset,
    /// daemonset, job, cronjob): KIND/NAME@TIME[,cascade=background|foreground|orphan],
    /// e.g. statefulset/web@60s (replicaset/PREFIX* and job/PREFIX* name a
    /// Deployment's or CronJob's by prefix). Repeatable; added to the
    /// scenario's actions.
    #[arg(long = "delete", value_name = "OBJECT@TIME")]
    pub delete: Vec<String>,
    /// Set a pod condition (a readiness gate) at a time, like `kubectl patch
    /// --subresource=status`: POD:TYPE=True|False@TIME, e.g. pod/web:example.com/lb=True@30s.
    #[arg(long = "set-condition", value_name = "POD:TYPE=STATUS@TIME")]
    pub set_condition: Vec<String>,
    /// Send a signal to a container's process from outside the kubelet:
    /// POD/CONTAINER@TIME[,signal=SIGTERM], e.g. pod/web/app@45s (default SIGKILL).
    #[arg(long = "kill", value_name = "POD/CONTAINER@TIME")]
    pub kill: Vec<String>,
    /// Patch a pod's spec at a time, like `kubectl patch pod NAME -p JSON`:
    /// POD:JSON@TIME, e.g. 'pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s' or
    /// 'pod/web:{"spec":{"containers":[{"name":"app","image":"busybox:1.37"}]}}@50s'.
    #[arg(long = "patch", value_name = "POD:JSON@TIME")]
    pub patch: Vec<String>,
    /// Mark a node unschedulable at a time, like `kubectl cordon`:
    /// node/NAME@TIME, e.g. node/node-1@30s. Pods on it keep running; new
    /// pods are not scheduled there ("node(s) were unschedulable").
    #[arg(long = "cordon", value_name = "NODE@TIME")]
    pub cordon: Vec<String>,
    /// Make a cordoned node schedulable again, like `kubectl uncordon`:
    /// node/NAME@TIME. The pods it kept out are tried again.
    #[arg(long = "uncordon", value_name = "NODE@TIME")]
    pub uncordon: Vec<String>,
    /// Evict a pod at a time through the Eviction API (POST
    /// pods/NAME/eviction, which only a PodDisruptionBudget's allowance lets
    /// through): POD@TIME[,grace-period=N], e.g. pod/web-*@40s (the oldest
    /// live pod whose name starts with web-).
    #[arg(long = "evict", value_name = "POD@TIME")]
    pub evict: Vec<String>,
    /// Drain a node at a time, like `kubectl drain`: NODE@TIME[,grace-period=N]
    /// [,timeout=DURATION][,force=true][,delete-emptydir-data=true]
    /// [,ignore-daemonsets=true], e.g. node/node-1@30s,timeout=2m.
    #[arg(long = "drain", value_name = "NODE@TIME")]
    pub drain: Vec<String>,
    /// Take a node down at a time (its machine stops, with its kubelet,
    /// kube-proxy and containers), for good or `for` a while (then it boots):
    /// node/NAME@TIME[,for=DURATION], e.g. node/node-2@60s or node/node-2@60s,for=10m.
    #[arg(long = "node-down", value_name = "NODE@TIME")]
    pub node_down: Vec<String>,
    /// Restart a node's kubelet process at a time (`systemctl restart
    /// kubelet`; the containers run on): node/NAME@TIME, e.g. node/node-1@60s.
    #[arg(long = "restart-kubelet", value_name = "NODE@TIME")]
    pub restart_kubelet: Vec<String>,
    /// Reboot a node at a time: it goes down (its kubelet, kube-proxy and
    /// containers stop) and boots after `down` (default 30s):
    /// node/NAME@TIME[,down=D], e.g. node/node-1@60s,down=90s.
    #[arg(long = "reboot", value_name = "NODE@TIME")]
    pub reboot: Vec<String>,
    /// Add a node at a time: a node of the cluster profile that is absent
    /// until then joins (its kubelet registers the Node; the scheduler and
    /// the DaemonSet controller see it): node/NAME@TIME, e.g. node/node-4@60s.
    #[arg(long = "add-node", value_name = "NODE@TIME")]
    pub add_node: Vec<String>,
    /// Send HTTP requests: TARGET[/PATH][@START][,every=2s|rate=5/s][,count=N]
    /// [,from=node/NAME|pod/NAME][,timeout=1s][,name=NAME], where TARGET is
    /// service/NAME[:PORT] or pod/NAME:PORT, e.g. service/web:80/ready@5s,every=1s,count=20.
    /// Without every or rate, one request. Repeatable; added to the scenario's traffic.
    // The brackets are the grammar shown by --help, not rustdoc links.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long = "traffic", value_name = "TARGET@START")]
    pub traffic: Vec<String>,
}

impl RunInputs {
    /// The action flags with their values, in the order they are applied and
    /// written back into a re-run command: one list, so a new flag is never
    /// parsed and then dropped from a counterexample's command.
    pub fn action_flags(&self) -> [(&'static str, &Vec<String>); 12] {
        [
            ("--delete", &self.delete),
            ("--set-condition", &self.set_condition),
            ("--kill", &self.kill),
            ("--patch", &self.patch),
            ("--cordon", &self.cordon),
            ("--uncordon", &self.uncordon),
            ("--evict", &self.evict),
            ("--drain", &self.drain),
            ("--node-down", &self.node_down),
            ("--restart-kubelet", &self.restart_kubelet),
            ("--reboot", &self.reboot),
            ("--add-node", &self.add_node),
        ]
    }
}

fn duration(s: &str) -> Result<SimDuration, String> {
    parse_duration(s)
}

/// `--seed` of a sweep: where its seeds start.
fn first_seed(a: clap::Arg) -> clap::Arg {
    a.help("The first seed: runs have seeds SEED, SEED+1, … (default: the scenario's, else 1)")
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Recordings: podsim JSONL, kubectl get -o json|yaml, watch streams, events,
    /// EndpointSlices, `kubectl get pods|rs|deploy|sts|job [-w]` tables,
    /// `kubectl describe pod` output, `kubectl events`.
    #[arg(required_unless_present = "list", value_name = "TRACE")]
    pub traces: Vec<PathBuf>,
    /// Print the invariant catalogue (name, kind, Kubernetes source, what it
    /// checks) and exit; it takes no recording.
    #[arg(long, conflicts_with_all = ["traces", "against", "cluster", "kubernetes"])]
    pub list: bool,
    /// Cluster profile whose version and backoff settings the rules assume;
    /// with --against, it replaces the scenario's profile.
    #[arg(long, value_name = "PROFILE.yaml")]
    pub cluster: Option<PathBuf>,
    /// Kubernetes version the recording comes from (1.34–1.37); with
    /// --against, it overrides the scenario profile's version.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,
    /// Output format: table (a verdict per pod and invariant; with --against,
    /// then the envelope), or json (the report as one indented JSON document:
    /// `{"pods": …, "controllers": …}`, with --against `{"invariants": …,
    /// "envelopes": …}`;
    /// `jsonl` is the same).
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Output::Table, hide_possible_values = true)]
    pub output: Output,
    /// Also compare the recorded timings with what podsim predicts: the recorded pod's
    /// spec simulated with this scenario's app behaviour and cluster profile.
    #[arg(long, value_name = "SCENARIO")]
    pub against: Option<PathBuf>,
    /// How many seeded runs make the envelope.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub runs: u32,
}
