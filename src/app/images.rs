//! What the well-known images of Kubernetes' documentation and e2e tests do,
//! so that a manifest using one needs no hand-written behaviour file.
//!
//! Each behaviour is read from the image's source (named next to it), for the
//! argv the container runs. That argv is what the container runtime builds
//! (containerd CRI): `command` then `args` when the pod gives a `command`
//! (the image's CMD is then dropped); else the image's ENTRYPOINT followed by
//! `args`, or by its CMD when the pod gives no `args` either.
//!
//! Facts every image below relies on:
//!
//! - The stop signal goes to the container's PID 1 only, and is the image's
//!   `STOPSIGNAL` when it has one, else SIGTERM (containerd
//!   `internal/cri/server/container_stop.go`: `image.ImageSpec.Config.StopSignal`).
//!   A behaviour's `sigterm` is what that stop signal does.
//! - The kernel drops a signal whose disposition is the default one when it is
//!   sent to the init process of a PID namespace (as a container's PID 1 is)
//!   from inside it; a handled signal is delivered.
//! - A Go program that did not ask for SIGTERM with `signal.Notify`: the
//!   runtime's handler takes it (golang/go `src/runtime/signal_unix.go`,
//!   `sighandler`: `sigsend` refuses it, SIGTERM is `_SigKill` in
//!   `sigtable_linux.go`, so `dieFromSignal`), and `dieFromSignal` raises it
//!   again with the default disposition (`_SIG_DFL`) restored, in every Go
//!   version: a default-disposition signal PID 1 sends itself is dropped, so
//!   it goes on to its last line, `exit(2)`. Such a program exits 2 at once
//!   on SIGTERM (`GO_DEFAULT_SIGTERM`), not killed by the signal.
//! - Go's `http.ListenAndServe` failing to bind (EADDRINUSE) ends in
//!   `log.Fatal`: exit 1 at once, the behaviour's default `address_in_use`.
//! - A path a server does not route answers 404 in the behaviour
//!   (`Plan::http`), as Go's `ServeMux` does when no pattern matches. A Go
//!   handler on the pattern `/` matches every path, which a behaviour cannot
//!   say: for those servers `/` and the usual probe paths (`PROBE_PATHS`) are
//!   listed with the catch-all's answer; any other path answers 404 in podsim.

use super::schema::{AddressInUseSpec, ContainerBehaviour, ExitSpec, HttpAnswerSpec, HttpPhase, SigtermSpec};
use crate::dist::Dist;
use crate::time::SimDuration;
use std::collections::BTreeMap;

/// What a well-known image does when run with this argv (`command` then `args`; empty when the pod gives neither: the image's own entrypoint/cmd).
/// `None` when the image is not one podsim knows (or the argv is one podsim does not know for it).
pub fn known(image: &str, command: &[String], args: &[String]) -> Option<ContainerBehaviour> {
    match Image::of(image)? {
        Image::Agnhost => agnhost(&argv(&["/agnhost"], &["pause"], command, args)),
        Image::Pause => pause_c(&argv(&["/pause"], &[], command, args)),
        Image::Liveness => liveness_image(&argv(&[], &[], command, args)),
        Image::Goproxy => goproxy(&argv(&["/goproxy"], &[], command, args)),
        Image::Nginx => nginx(command, args),
        Image::Busybox => busybox(command, args),
        Image::Stress => stress(&argv(&[], &[], command, args)),
    }
}

/// The images podsim knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Image {
    /// `registry.k8s.io/e2e-test-images/agnhost` (and its older homes).
    Agnhost,
    /// `registry.k8s.io/pause`: the C pause of `build/pause`.
    Pause,
    /// `registry.k8s.io/liveness`, `k8s.gcr.io/liveness`: `test/images/liveness`.
    Liveness,
    /// `registry.k8s.io/goproxy`: `test/images/goproxy`.
    Goproxy,
    /// Docker Hub's official `nginx`.
    Nginx,
    /// Docker Hub's official `busybox`.
    Busybox,
    /// Docker Hub's `polinux/stress`, the Kubernetes docs' memory and CPU examples.
    Stress,
}

impl Image {
    /// Recognises an image reference by its repository, whatever its tag or digest.
    fn of(reference: &str) -> Option<Image> {
        let (registry, path) = repository(reference);
        if path.rsplit('/').next() == Some("agnhost") {
            return Some(Image::Agnhost);
        }
        if registry == "docker.io" {
            return match path {
                "nginx" => Some(Image::Nginx),
                "busybox" => Some(Image::Busybox),
                "polinux/stress" => Some(Image::Stress),
                _ => None,
            };
        }
        match kubernetes_project(registry, path)? {
            "pause" => Some(Image::Pause),
            "liveness" => Some(Image::Liveness),
            "goproxy" => Some(Image::Goproxy),
            _ => None,
        }
    }
}

/// The registry and repository path of an image reference, as Docker
/// normalises it: the first component is a registry when it has a `.` or a
/// `:` or is `localhost`, else the registry is Docker Hub, whose official
/// images live under `library/`. Tag and digest are dropped.
fn repository(reference: &str) -> (&str, &str) {
    let name = reference.split('@').next().unwrap_or(reference);
    let name = match name.rfind(':') {
        Some(i) if !name[i..].contains('/') => &name[..i],
        _ => name,
    };
    let (registry, path) = match name.split_once('/') {
        Some((first, rest)) if first.contains('.') || first.contains(':') || first == "localhost" => (first, rest),
        _ => ("docker.io", name),
    };
    match registry {
        "docker.io" | "index.docker.io" | "registry-1.docker.io" => {
            ("docker.io", path.strip_prefix("library/").unwrap_or(path))
        }
        _ => (registry, path),
    }
}

/// The image's name when it is one the Kubernetes project publishes:
/// `registry.k8s.io/NAME`, `k8s.gcr.io/NAME`, `gcr.io/google_containers/NAME`
/// (or `google-containers`, on any regional `gcr.io`).
fn kubernetes_project<'a>(registry: &str, path: &'a str) -> Option<&'a str> {
    match registry {
        "registry.k8s.io" | "k8s.gcr.io" => Some(path),
        r if r == "gcr.io" || r.ends_with(".gcr.io") => {
            path.strip_prefix("google_containers/").or_else(|| path.strip_prefix("google-containers/"))
        }
        _ => None,
    }
}

/// The argv the runtime starts, given the image's ENTRYPOINT and CMD.
fn argv(entrypoint: &[&str], cmd: &[&str], command: &[String], args: &[String]) -> Vec<String> {
    if !command.is_empty() {
        return command.iter().chain(args).cloned().collect();
    }
    let entrypoint = entrypoint.iter().map(|a| a.to_string());
    match args.is_empty() {
        false => entrypoint.chain(args.iter().cloned()).collect(),
        true => entrypoint.chain(cmd.iter().map(|a| a.to_string())).collect(),
    }
}

// ---------------------------------------------------------------- agnhost

/// agnhost (`test/images/agnhost/Dockerfile`: ENTRYPOINT ["/agnhost"], CMD ["pause"]):
/// a cobra command (`agnhost.go`) whose subcommands podsim knows are below.
fn agnhost(argv: &[String]) -> Option<ContainerBehaviour> {
    let (binary, rest) = argv.split_first()?;
    if binary != "/agnhost" {
        return None;
    }
    let (subcommand, flags) = rest.split_first()?;
    match subcommand.as_str() {
        "liveness" => {
            parse_flags(flags, &[])?;
            Some(liveness(true))
        }
        "netexec" => netexec(&parse_flags(flags, NETEXEC_FLAGS)?),
        "test-webserver" => test_webserver(&parse_flags(flags, &[("port", Kind::Int)])?),
        "serve-hostname" => serve_hostname(&parse_flags(flags, SERVE_HOSTNAME_FLAGS)?),
        "pause" => agnhost_pause(&parse_flags(flags, &[("delay-shutdown", Kind::Int)])?),
        _ => None,
    }
}

/// The liveness server: agnhost `liveness/server.go` `main` (with `agnhost`),
/// or the old image's `test/images/liveness/server.go` `main`, which serves
/// `/started`, `/healthz` and `/redirect` only. On 8080 (`ListenAndServe(":8080")`);
/// `/healthz` answers 200 while `time.Since(started).Seconds() > 10` is false,
/// so still at exactly 10 s, and 500 after (the first whole millisecond after
/// is 10.001 s); `/started` 200 always; agnhost's `/sleep-headers`,
/// `/sleep-body`, `/slow-response` answer their `code` parameter, 500 by
/// default (`parseParams`). `/redirect` (to its `loc` parameter) and the
/// `/disconnect-*` paths are not listed. No `signal.Notify`: Go's default.
fn liveness(agnhost: bool) -> ContainerBehaviour {
    let mut http = BTreeMap::new();
    http.insert("/healthz".to_string(), vec![until_ms(10_001, 200), status(500)]);
    http.insert("/started".to_string(), vec![status(200)]);
    if agnhost {
        for path in ["/sleep-headers", "/sleep-body", "/slow-response"] {
            http.insert(path.to_string(), vec![status(500)]);
        }
    }
    ContainerBehaviour { ports: Some(vec![8080]), http, sigterm: Some(GO_DEFAULT_SIGTERM), ..Default::default() }
}

const NETEXEC_FLAGS: &[(&str, Kind)] = &[
    ("http-port", Kind::Int),
    ("udp-port", Kind::Int),
    ("sctp-port", Kind::Int),
    ("udp-listen-addresses", Kind::Str),
    ("delay-shutdown", Kind::Int),
];

/// agnhost `netexec/netexec.go` `main`: HTTP on `--http-port` (8080), UDP on
/// `--udp-port` (8081; -1: none), SCTP on `--sctp-port` (-1: none); only the
/// HTTP port is TCP, so it alone is in `ports`. `serverReady` is set once the
/// UDP or SCTP server has started (`startUDPServer`, `startSCTPServer`): with
/// neither it never is. `/healthz` 200 when ready, else 412
/// (`healthzHandler`); `/readyz` the same until SIGTERM, 503 after
/// (`readyzHandler`); `/` is `rootHandler`, the catch-all: 200, as are
/// `/hostname`, `/hostName`, `/clientip`, `/header`, `/echo` (no `code`),
/// `/shell` and `/upload`; `/dial` without `request` is 400. `/exit` and
/// `/shutdown` end the process (`os.Exit`), which a behaviour cannot say: not
/// listed. SIGTERM: its own `signal.Notify` goroutine sleeps
/// `--delay-shutdown` seconds (0) then `os.Exit(0)`, serving meanwhile.
/// `--tls-cert-file` (HTTPS) and `--http-override` are not modelled: `None`.
fn netexec(flags: &Flags) -> Option<ContainerBehaviour> {
    let http_port = flags.port("http-port", 8080)?;
    let udp_port = flags.int("udp-port", 8081)?;
    let sctp_port = flags.int("sctp-port", -1)?;
    // Another negative port fails `ResolveUDPAddr`/`ListenSCTP`: `log.Fatalf`.
    for port in [udp_port, sctp_port] {
        if port != -1 && !(0..=65535).contains(&port) {
            return None;
        }
    }
    let delay = flags.int("delay-shutdown", 0)?;
    let ready = if udp_port != -1 || sctp_port != -1 { 200 } else { 412 };
    let mut http = catch_all(200);
    for path in ["/hostname", "/hostName", "/clientip", "/header", "/echo", "/shell", "/upload"] {
        http.insert(path.to_string(), vec![status(200)]);
    }
    http.insert("/dial".to_string(), vec![status(400)]);
    http.insert("/healthz".to_string(), vec![status(ready)]);
    http.insert("/readyz".to_string(), vec![on_sigterm(503), status(ready)]);
    Some(ContainerBehaviour {
        ports: Some(vec![http_port]),
        http,
        sigterm: Some(exits(seconds(delay)?, 0)),
        ..Default::default()
    })
}

/// agnhost `test-webserver/test-webserver.go` `main`: `http.FileServer` of
/// the container's `/` on `--port` (80): `/` is its directory listing (200);
/// a path names a file, 404 when there is none (podsim knows no file, so
/// every other path is 404). No `signal.Notify`: Go's default.
fn test_webserver(flags: &Flags) -> Option<ContainerBehaviour> {
    let port = flags.port("port", 80)?;
    let http = BTreeMap::from([("/".to_string(), vec![status(200)])]);
    Some(ContainerBehaviour { ports: Some(vec![port]), http, sigterm: Some(GO_DEFAULT_SIGTERM), ..Default::default() })
}

const SERVE_HOSTNAME_FLAGS: &[(&str, Kind)] =
    &[("tcp", Kind::Bool), ("udp", Kind::Bool), ("http", Kind::Bool), ("close", Kind::Bool), ("port", Kind::Int)];

/// agnhost `serve-hostname/serve_hostname.go` `main`: `--http` (true) with
/// `--tcp` or `--udp` is `log.Fatalf` (exit 1 at once); HTTP on `--port`
/// (9376) answers the hostname on every path (handler on `/`: 200); `--tcp`
/// writes it raw on that TCP port (not HTTP: the listed paths are none, so a
/// probe gets 404 here where a real one fails on the malformed response);
/// `--udp` binds no TCP port. SIGTERM: its `signal.Notify` returns from the
/// wait, `time.Sleep(60 * time.Second)`, then `main` returns: exit 0 after
/// 60 s, serving meanwhile.
fn serve_hostname(flags: &Flags) -> Option<ContainerBehaviour> {
    let port = flags.port("port", 9376)?;
    let (tcp, udp, http_mode) = (flags.bool("tcp", false)?, flags.bool("udp", false)?, flags.bool("http", true)?);
    flags.bool("close", false)?;
    if http_mode && (tcp || udp) {
        let exit = Some(ExitSpec { after: Dist::ZERO, code: 1 });
        return Some(ContainerBehaviour { ports: Some(Vec::new()), exit, ..Default::default() });
    }
    let ports = if http_mode || tcp { vec![port] } else { Vec::new() };
    let http = if http_mode { catch_all(200) } else { BTreeMap::new() };
    Some(ContainerBehaviour {
        ports: Some(ports),
        http,
        sigterm: Some(exits(SimDuration::from_secs(60), 0)),
        ..Default::default()
    })
}

/// agnhost `pause/pause.go` `pause`: binds nothing and waits for SIGINT or
/// SIGTERM (`signal.Notify`); on SIGTERM it sleeps `--delay-shutdown`
/// seconds (0) then `os.Exit(2)` (SIGINT would be 1).
fn agnhost_pause(flags: &Flags) -> Option<ContainerBehaviour> {
    let delay = seconds(flags.int("delay-shutdown", 0)?)?;
    Some(ContainerBehaviour { ports: Some(Vec::new()), sigterm: Some(exits(delay, 2)), ..Default::default() })
}

// ------------------------------------------------------ the other images

/// `registry.k8s.io/pause` (`build/pause/Dockerfile`: ENTRYPOINT ["/pause"]),
/// `build/pause/linux/pause.c` `main`: an argument `-v` (any case) prints the
/// version and returns 0; else it binds nothing and `pause()`s forever, and
/// SIGTERM or SIGINT run `sigdown`: `exit(0)` at once.
fn pause_c(argv: &[String]) -> Option<ContainerBehaviour> {
    let (binary, rest) = argv.split_first()?;
    if binary != "/pause" {
        return None;
    }
    if rest.iter().any(|a| a.eq_ignore_ascii_case("-v")) {
        let exit = Some(ExitSpec { after: Dist::ZERO, code: 0 });
        return Some(ContainerBehaviour { ports: Some(Vec::new()), exit, ..Default::default() });
    }
    Some(ContainerBehaviour {
        ports: Some(Vec::new()),
        sigterm: Some(exits(SimDuration::ZERO, 0)),
        ..Default::default()
    })
}

/// The old docs' liveness image (`test/images/liveness/Dockerfile`: FROM
/// scratch, the binary at `/server`, no ENTRYPOINT or CMD: the pod says
/// `args: [/server]`). Its `main` reads no arguments.
fn liveness_image(argv: &[String]) -> Option<ContainerBehaviour> {
    (argv.first()? == "/server").then(|| liveness(false))
}

/// `registry.k8s.io/goproxy` (`test/images/goproxy/Dockerfile`: ENTRYPOINT
/// ["/goproxy"]), `goproxy.go` `main`: an HTTP proxy on 8080 that reads no
/// arguments; a request that is not a proxy request (a probe's, whatever its
/// path) gets elazarl/goproxy's `NonproxyHandler`: 500 "This is a proxy
/// server. Does not respond to non-proxy requests.". No `signal.Notify`:
/// Go's default.
fn goproxy(argv: &[String]) -> Option<ContainerBehaviour> {
    if argv.first()? != "/goproxy" {
        return None;
    }
    Some(ContainerBehaviour {
        ports: Some(vec![8080]),
        http: catch_all(500),
        sigterm: Some(GO_DEFAULT_SIGTERM),
        ..Default::default()
    })
}

/// Docker Hub's `nginx` (nginxinc/docker-nginx `Dockerfile`: ENTRYPOINT
/// ["/docker-entrypoint.sh"], CMD ["nginx", "-g", "daemon off;"], EXPOSE 80,
/// STOPSIGNAL SIGQUIT; the entrypoint ends with `exec "$@"`, so nginx is
/// PID 1). It listens on 80 (`/etc/nginx/conf.d/default.conf`: `listen 80;`,
/// which `10-listen-on-ipv6-by-default.sh` edits) and serves its welcome page
/// at `/`; other paths are 404. SIGQUIT is its graceful shutdown (nginx
/// `src/os/unix/ngx_process.c` `signals`: NGX_SHUTDOWN_SIGNAL "quit"): each
/// worker closes its listening sockets at once (`ngx_worker_process_cycle`:
/// `ngx_close_listening_sockets`) and exits when its connections are done,
/// then the master `exit(0)`s (`ngx_master_process_exit`): idle, at once. A
/// port already bound: `ngx_open_listening_sockets` (`src/core/ngx_connection.c`)
/// tries 5 times, sleeping 500 ms after each failure, then "still could not
/// bind()" and nginx exits 1: 2.5 s. Only the image's own argv is known.
fn nginx(command: &[String], args: &[String]) -> Option<ContainerBehaviour> {
    const CMD: [&str; 3] = ["nginx", "-g", "daemon off;"];
    let process: Vec<&str> = match (command, args) {
        ([], []) => CMD.to_vec(),
        ([entrypoint], args) if entrypoint == "/docker-entrypoint.sh" => args.iter().map(String::as_str).collect(),
        (command, args) => command.iter().chain(args).map(String::as_str).collect(),
    };
    if process != CMD {
        return None;
    }
    let http = BTreeMap::from([("/".to_string(), vec![status(200)]), ("/index.html".to_string(), vec![status(200)])]);
    Some(ContainerBehaviour {
        ports: Some(vec![80]),
        http,
        sigterm: Some(SigtermSpec { stop_listening: true, ..exits(SimDuration::ZERO, 0) }),
        address_in_use: Some(AddressInUseSpec {
            exit_after: Some(Dist::Fixed(SimDuration::from_millis(2_500))),
            code: Some(1),
            ignore: false,
        }),
        ..Default::default()
    })
}

/// Docker Hub's `busybox` (docker-library/busybox `image-config.json`:
/// `"Cmd": ["sh"]`, no entrypoint): with neither `command` nor `args`, `sh`
/// runs with no stdin (a container's stdin is closed unless the pod asks
/// for it), reads end of file and exits 0 at once. With an argv: `None`
/// (what a shell command does is described elsewhere).
fn busybox(command: &[String], args: &[String]) -> Option<ContainerBehaviour> {
    if !command.is_empty() || !args.is_empty() {
        return None;
    }
    let exit = Some(ExitSpec { after: Dist::ZERO, code: 0 });
    Some(ContainerBehaviour { ports: Some(Vec::new()), exit, ..Default::default() })
}

/// `polinux/stress` (no ENTRYPOINT or CMD of its own: the pod names
/// `stress`), stress 1.0.4's `stress.c`: `--vm N` workers each `malloc` and
/// touch `--vm-bytes B` (default 256 MB; `atoll_b`'s suffixes `b`, `k`, `m`,
/// `g` are powers of 1024) and hold it `--vm-hang` seconds before freeing it
/// and starting again, so the container's resident set reaches N × B at
/// once: the docs' `memory-demo-2` (`--vm 1 --vm-bytes 250M`, limit 100Mi)
/// is OOM-killed, `memory-demo` (150M, limit 200Mi) runs. `--cpu`, `--io`,
/// `--hdd` workers hold no memory here; `--timeout N` ends the run (exit 0).
/// stress installs no SIGTERM handler, and PID 1 ignores a signal it does
/// not handle: SIGTERM does nothing, the grace period ends with SIGKILL.
fn stress(argv: &[String]) -> Option<ContainerBehaviour> {
    let (binary, flags) = argv.split_first()?;
    if binary.rsplit('/').next() != Some("stress") {
        return None;
    }
    let mut it = flags.iter();
    let (mut workers, mut bytes, mut timeout) = (0u64, 256u64 << 20, None);
    while let Some(flag) = it.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match name {
            "--vm" | "-m" => workers = value()?.parse().ok()?,
            "--vm-bytes" => bytes = stress_bytes(&value()?)?,
            "--timeout" | "-t" => timeout = Some(stress_seconds(&value()?)?),
            "--vm-hang" | "--vm-stride" | "--cpu" | "-c" | "--io" | "-i" | "--hdd" | "-d" | "--hdd-bytes"
            | "--backoff" => {
                value()?;
            }
            "--vm-keep" | "-v" | "--verbose" | "-q" | "--quiet" => {}
            _ => return None,
        }
    }
    // Written in binary units where whole, so that it reads as stress's were (250M: 250Mi).
    let total = workers.checked_mul(bytes)?;
    let text = match total.trailing_zeros() / 10 {
        0 => total.to_string(),
        k => format!("{}{}", total >> (10 * k.min(3)), ["Ki", "Mi", "Gi"][k.min(3) as usize - 1]),
    };
    let rss = crate::api::quantity::Quantity::parse(&text).ok()?;
    let memory = (workers > 0).then(|| vec![super::memory::MemoryPhase { until: None, rss: super::memory::Rss(rss) }]);
    Some(ContainerBehaviour {
        ports: Some(Vec::new()),
        exit: timeout.map(|after| ExitSpec { after: Dist::Fixed(after), code: 0 }),
        sigterm: Some(SigtermSpec { ignore: true, ..Default::default() }),
        memory,
        ..Default::default()
    })
}

/// stress's `atoll_b`: a number and an optional `b`, `k`, `m` or `g` (any case), powers of 1024.
fn stress_bytes(text: &str) -> Option<u64> {
    let (number, factor) = match text.chars().last()?.to_ascii_lowercase() {
        'b' => (&text[..text.len() - 1], 1),
        'k' => (&text[..text.len() - 1], 1 << 10),
        'm' => (&text[..text.len() - 1], 1 << 20),
        'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    number.parse::<u64>().ok()?.checked_mul(factor)
}

/// stress's `atoll_s`: seconds, or with `s`, `m`, `h`, `d`, `y` (any case).
fn stress_seconds(text: &str) -> Option<SimDuration> {
    let (number, factor) = match text.chars().last()?.to_ascii_lowercase() {
        's' => (&text[..text.len() - 1], 1),
        'm' => (&text[..text.len() - 1], 60),
        'h' => (&text[..text.len() - 1], 3600),
        'd' => (&text[..text.len() - 1], 86_400),
        'y' => (&text[..text.len() - 1], 31_536_000),
        _ => (text, 1),
    };
    Some(SimDuration::from_secs(number.parse::<u64>().ok()?.checked_mul(factor)?))
}

// ---------------------------------------------------------------- helpers

/// A Go program without its own SIGTERM handler, as PID 1: exit 2 at once
/// (see the module's notes: `dieFromSignal`'s final `exit(2)`).
const GO_DEFAULT_SIGTERM: SigtermSpec =
    SigtermSpec { exit_after: Some(Dist::ZERO), code: Some(2), ignore: false, stop_listening: false };

/// Paths listed for a server whose handler on `/` answers every path: `/`
/// and the paths probes most often use.
const PROBE_PATHS: [&str; 10] =
    ["/", "/health", "/healthz", "/live", "/livez", "/ready", "/readyz", "/started", "/startup", "/status"];

/// Every `PROBE_PATHS` path answering `code`.
fn catch_all(code: u16) -> BTreeMap<String, Vec<HttpPhase>> {
    PROBE_PATHS.iter().map(|p| (p.to_string(), vec![status(code)])).collect()
}

/// `code` from then on.
fn status(code: u16) -> HttpPhase {
    HttpPhase {
        until: None,
        answer: HttpAnswerSpec::Status { status: code, location: None },
        latency: None,
        after_sigterm: false,
        after_prestop: false,
    }
}

/// `code` until `ms` milliseconds since the process started.
fn until_ms(ms: u64, code: u16) -> HttpPhase {
    HttpPhase { until: Some(Dist::Fixed(SimDuration::from_millis(ms))), ..status(code) }
}

/// `code` once SIGTERM has arrived.
fn on_sigterm(code: u16) -> HttpPhase {
    HttpPhase { after_sigterm: true, ..status(code) }
}

/// Exits with `code`, `after` the stop signal.
fn exits(after: SimDuration, code: i32) -> SigtermSpec {
    SigtermSpec { exit_after: Some(Dist::Fixed(after)), code: Some(code), ..Default::default() }
}

/// A flag's whole seconds (`time.Duration(n) * time.Second`); negative sleeps none.
fn seconds(n: i64) -> Option<SimDuration> {
    Some(SimDuration::from_secs(u64::try_from(n.max(0)).ok()?.min(u64::MAX / 1000)))
}

// ------------------------------------------------------------- the flags

/// What a flag holds (spf13/pflag `IntVar`, `BoolVar`, `StringVar`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Bool,
    Str,
}

/// Flags as written (`--name=value`, `--name value`, a bare `--name` for a
/// bool), by name; the last one written wins, as in pflag.
struct Flags(BTreeMap<&'static str, String>);

/// Parses a subcommand's flags as pflag does; `None` for an unknown flag, a
/// positional argument (agnhost's subcommands take `cobra.MaximumNArgs(0)`)
/// or a flag without its value.
fn parse_flags(args: &[String], known: &[(&'static str, Kind)]) -> Option<Flags> {
    let mut out = BTreeMap::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let body = arg.strip_prefix("--")?;
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let &(name, kind) = known.iter().find(|(n, _)| *n == name)?;
        let value = match (inline, kind) {
            (Some(v), _) => v,
            (None, Kind::Bool) => "true".to_string(),
            (None, _) => rest.next()?.clone(),
        };
        out.insert(name, value);
    }
    Some(Flags(out))
}

impl Flags {
    /// An int flag (`strconv.ParseInt`, decimal here), or its default.
    fn int(&self, name: &str, default: i64) -> Option<i64> {
        self.0.get(name).map_or(Some(default), |v| v.parse().ok())
    }

    /// A TCP port flag: 1–65535 (0 would be a port the kernel picks).
    fn port(&self, name: &str, default: u16) -> Option<u16> {
        u16::try_from(self.int(name, i64::from(default))?).ok().filter(|p| *p != 0)
    }

    /// A bool flag (`strconv.ParseBool`), or its default.
    fn bool(&self, name: &str, default: bool) -> Option<bool> {
        match self.0.get(name).map(String::as_str) {
            None => Some(default),
            Some("1" | "t" | "T" | "TRUE" | "true" | "True") => Some(true),
            Some("0" | "f" | "F" | "FALSE" | "false" | "False") => Some(false),
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{HttpAnswer, Moments, OnAddressInUse, OnSigterm, Plan};
    use crate::rng::Stream;
    use std::sync::Arc;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    /// The behaviour for `image` with `command` and `args`, checked as a
    /// behaviour file's would be.
    fn of(image: &str, command: &[&str], args: &[&str]) -> Option<ContainerBehaviour> {
        let b = known(image, &strings(command), &strings(args))?;
        assert_eq!(b.check(), Vec::<(String, String)>::new(), "{image} {command:?} {args:?}");
        Some(b)
    }

    fn plan(b: ContainerBehaviour) -> Plan {
        Plan::draw(Some(Arc::new(b)), &[1234], Arc::from("t"), &mut Stream::new(1, "t"))
    }

    /// The status of a GET of `path` at `ms` since start, after SIGTERM or not.
    fn get(p: &Plan, path: &str, ms: u64, sigterm: bool) -> u16 {
        let m = Moments { prestop: false, sigterm };
        match p.http(path, SimDuration::from_millis(ms), m, &mut Stream::new(1, "r")) {
            HttpAnswer::Response(r) => r.status,
            relay => panic!("{relay:?}"),
        }
    }

    fn exits_at_once(code: i32) -> OnSigterm {
        OnSigterm::Exit { after: SimDuration::ZERO, code }
    }

    #[test]
    fn image_references_are_matched_on_their_repository() {
        for (image, want) in [
            ("registry.k8s.io/e2e-test-images/agnhost:2.40", Some(Image::Agnhost)),
            ("gcr.io/kubernetes-e2e-test-images/agnhost:2.8", Some(Image::Agnhost)),
            ("k8s.gcr.io/liveness", Some(Image::Liveness)),
            ("registry.k8s.io/liveness:latest", Some(Image::Liveness)),
            ("gcr.io/google_containers/liveness", Some(Image::Liveness)),
            ("nginx", Some(Image::Nginx)),
            ("nginx:1.14.2", Some(Image::Nginx)),
            ("library/nginx:latest", Some(Image::Nginx)),
            (
                "docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
                Some(Image::Nginx),
            ),
            (
                "docker.io/nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
                Some(Image::Nginx),
            ),
            ("busybox:1.28", Some(Image::Busybox)),
            ("registry.k8s.io/pause:3.10", Some(Image::Pause)),
            ("k8s.gcr.io/pause", Some(Image::Pause)),
            ("registry.k8s.io/goproxy:0.1", Some(Image::Goproxy)),
            ("k8s.gcr.io/goproxy:0.1", Some(Image::Goproxy)),
            // Same last name, another publisher: not the image podsim knows.
            ("bitnami/nginx:1.25", None),
            ("quay.io/nginx/nginx-unprivileged", None),
            ("localhost:5000/busybox", None),
            ("example.com/pause:3.10", None),
            ("registry.k8s.io/e2e-test-images/busybox:1.29-4", None),
            ("myapp:1.0", None),
        ] {
            assert_eq!(Image::of(image), want, "{image}");
        }
        assert_eq!(repository("localhost:5000/team/app:1.2"), ("localhost:5000", "team/app"));
        assert_eq!(repository("index.docker.io/library/busybox"), ("docker.io", "busybox"));
    }

    #[test]
    fn an_unknown_image_is_none() {
        assert!(of("myapp:1.0", &[], &[]).is_none());
        assert!(of("ghcr.io/acme/api@sha256:abc", &["/api"], &["--port=8080"]).is_none());
    }

    #[test]
    fn agnhost_liveness_is_healthy_for_ten_seconds_then_500() {
        let b = of("registry.k8s.io/e2e-test-images/agnhost:2.40", &[], &["liveness"]).unwrap();
        assert_eq!(b.ports, Some(vec![8080]));
        assert!(b.exit.is_none());
        let p = plan(b);
        assert_eq!(get(&p, "/healthz", 0, false), 200);
        // `duration.Seconds() > 10`: still 200 at exactly 10 s.
        assert_eq!(get(&p, "/healthz", 10_000, false), 200);
        assert_eq!(get(&p, "/healthz", 10_001, false), 500);
        assert_eq!(get(&p, "/healthz", 600_000, false), 500);
        assert_eq!(get(&p, "/started", 60_000, false), 200);
        assert_eq!(get(&p, "/sleep-headers", 0, false), 500);
        // No handler on `/`: Go's mux answers 404.
        assert_eq!(get(&p, "/", 0, false), 404);
        assert_eq!(get(&p, "/ready", 0, false), 404);
        assert_eq!(p.on_sigterm, exits_at_once(2));
        assert_eq!(p.on_address_in_use, OnAddressInUse::Exit { after: SimDuration::ZERO, code: 1 });
        // The same through `command`.
        let c = of("registry.k8s.io/e2e-test-images/agnhost:2.40", &["/agnhost", "liveness"], &[]).unwrap();
        assert_eq!(c.ports, Some(vec![8080]));
        // liveness takes no flags nor arguments.
        assert!(of("registry.k8s.io/e2e-test-images/agnhost:2.40", &[], &["liveness", "--port=9000"]).is_none());
        assert!(of("registry.k8s.io/e2e-test-images/agnhost:2.40", &[], &["liveness", "extra"]).is_none());
    }

    #[test]
    fn the_old_liveness_image_is_the_same_server_without_agnhosts_extra_paths() {
        let b = of("k8s.gcr.io/liveness", &[], &["/server"]).unwrap();
        assert_eq!(b.ports, Some(vec![8080]));
        let p = plan(b);
        assert_eq!((get(&p, "/healthz", 10_000, false), get(&p, "/healthz", 10_001, false)), (200, 500));
        assert_eq!(get(&p, "/started", 0, false), 200);
        assert_eq!(get(&p, "/sleep-headers", 0, false), 404);
        assert_eq!(p.on_sigterm, exits_at_once(2));
        assert!(of("registry.k8s.io/liveness", &["/server"], &[]).is_some());
        // No ENTRYPOINT nor CMD: without an argv there is no process.
        assert!(of("k8s.gcr.io/liveness", &[], &[]).is_none());
        assert!(of("k8s.gcr.io/liveness", &["/bin/sh"], &[]).is_none());
    }

    #[test]
    fn netexec_serves_its_endpoints_on_the_http_port() {
        let image = "registry.k8s.io/e2e-test-images/agnhost:2.40";
        let b = of(image, &[], &["netexec"]).unwrap();
        assert_eq!(b.ports, Some(vec![8080]));
        let p = plan(b);
        for path in ["/", "/hostname", "/hostName", "/clientip", "/echo", "/healthz", "/readyz", "/ready"] {
            assert_eq!(get(&p, path, 0, false), 200, "{path}");
        }
        assert_eq!(get(&p, "/dial", 0, false), 400);
        assert_eq!(get(&p, "/readyz", 0, true), 503);
        assert_eq!(get(&p, "/healthz", 0, true), 200);
        assert_eq!(p.on_sigterm, exits_at_once(0));
        assert!(!p.closes_on_sigterm());

        for args in [&["netexec", "--http-port=8081", "--udp-port=8082"][..], &["netexec", "--http-port", "8081"]] {
            assert_eq!(of(image, &[], args).unwrap().ports, Some(vec![8081]), "{args:?}");
        }
        let b = of(image, &["/agnhost", "netexec", "--http-port=8080", "--delay-shutdown=30"], &[]).unwrap();
        let p = plan(b);
        assert_eq!(p.on_sigterm, OnSigterm::Exit { after: SimDuration::from_secs(30), code: 0 });
        assert_eq!(get(&p, "/readyz", 0, true), 503);
        // No UDP nor SCTP server: never ready.
        let p = plan(of(image, &[], &["netexec", "--udp-port", "-1"]).unwrap());
        assert_eq!((get(&p, "/healthz", 0, false), get(&p, "/readyz", 0, false)), (412, 412));
        assert_eq!(get(&p, "/readyz", 0, true), 503);
        let p = plan(of(image, &[], &["netexec", "--udp-port=-1", "--sctp-port=9000"]).unwrap());
        assert_eq!(get(&p, "/healthz", 0, false), 200);
        // What podsim does not model.
        for args in [
            &["netexec", "--tls-cert-file=/localhost.crt"][..],
            &["netexec", "--http-override=/hostname"],
            &["netexec", "--http-port"],
            &["netexec", "--http-port=http"],
            &["netexec", "--http-port=0"],
            &["netexec", "--http-port=70000"],
            &["netexec", "--udp-port=-2"],
            &["netexec", "8080"],
        ] {
            assert!(of(image, &[], args).is_none(), "{args:?}");
        }
    }

    #[test]
    fn test_webserver_serves_files_on_its_port() {
        let image = "registry.k8s.io/e2e-test-images/agnhost:2.40";
        let b = of(image, &[], &["test-webserver"]).unwrap();
        assert_eq!(b.ports, Some(vec![80]));
        let p = plan(b);
        assert_eq!((get(&p, "/", 0, false), get(&p, "/healthz", 0, false)), (200, 404));
        assert_eq!(p.on_sigterm, exits_at_once(2));
        assert_eq!(of(image, &[], &["test-webserver", "--port=8000"]).unwrap().ports, Some(vec![8000]));
    }

    #[test]
    fn serve_hostname_answers_every_path_and_lingers_a_minute_after_sigterm() {
        let image = "registry.k8s.io/e2e-test-images/agnhost:2.40";
        let b = of(image, &[], &["serve-hostname"]).unwrap();
        assert_eq!(b.ports, Some(vec![9376]));
        let p = plan(b);
        assert_eq!((get(&p, "/", 0, false), get(&p, "/healthz", 0, false)), (200, 200));
        assert_eq!(p.on_sigterm, OnSigterm::Exit { after: SimDuration::from_secs(60), code: 0 });
        assert_eq!(of(image, &[], &["serve-hostname", "--port", "9377"]).unwrap().ports, Some(vec![9377]));
        assert_eq!(of(image, &[], &["serve-hostname", "--port=9377", "--close"]).unwrap().ports, Some(vec![9377]));
        // HTTP with TCP or UDP: `log.Fatalf`.
        let fatal = of(image, &[], &["serve-hostname", "--udp"]).unwrap();
        assert_eq!((fatal.ports, fatal.exit.map(|e| (e.after, e.code))), (Some(vec![]), Some((Dist::ZERO, 1))));
        let raw = of(image, &[], &["serve-hostname", "--http=false", "--tcp"]).unwrap();
        assert_eq!((raw.ports, raw.http.len()), (Some(vec![9376]), 0));
        assert_eq!(of(image, &[], &["serve-hostname", "--http=false", "--udp"]).unwrap().ports, Some(vec![]));
        assert!(of(image, &[], &["serve-hostname", "--http=maybe"]).is_none());
    }

    #[test]
    fn agnhost_pause_is_its_default_and_exits_2_on_sigterm() {
        let image = "registry.k8s.io/e2e-test-images/agnhost:2.40";
        for b in [of(image, &[], &[]).unwrap(), of(image, &[], &["pause"]).unwrap()] {
            assert_eq!((b.ports.as_deref(), b.http.len(), b.exit.is_none()), (Some(&[][..]), 0, true));
            assert_eq!(plan(b).on_sigterm, exits_at_once(2));
        }
        let b = of(image, &["/agnhost", "pause", "--delay-shutdown=5"], &[]).unwrap();
        assert_eq!(plan(b).on_sigterm, OnSigterm::Exit { after: SimDuration::from_secs(5), code: 2 });
        assert!(of(image, &[], &["entrypoint-tester"]).is_none());
        assert!(of(image, &["/bin/sh", "-c", "/agnhost pause"], &[]).is_none());
        assert!(of(image, &["/agnhost"], &[]).is_none());
    }

    #[test]
    fn the_pause_image_runs_forever_and_exits_0_on_sigterm() {
        let b = of("registry.k8s.io/pause:3.10", &[], &[]).unwrap();
        assert_eq!((b.ports.as_deref(), b.exit.is_none()), (Some(&[][..]), true));
        assert_eq!(plan(b).on_sigterm, exits_at_once(0));
        // Other arguments are ignored; `-v` prints the version and returns 0.
        assert!(of("registry.k8s.io/pause:3.10", &[], &["--whatever"]).unwrap().exit.is_none());
        let v = of("registry.k8s.io/pause:3.10", &["/pause", "-V"], &[]).unwrap();
        assert_eq!(v.exit.map(|e| (e.after, e.code)), Some((Dist::ZERO, 0)));
        assert!(of("registry.k8s.io/pause:3.10", &["/bin/sh"], &[]).is_none());
    }

    #[test]
    fn goproxy_listens_on_8080_and_refuses_plain_requests() {
        let b = of("registry.k8s.io/goproxy:0.1", &[], &[]).unwrap();
        assert_eq!(b.ports, Some(vec![8080]));
        let p = plan(b);
        assert_eq!((get(&p, "/", 0, false), get(&p, "/healthz", 0, false)), (500, 500));
        assert_eq!(p.on_sigterm, exits_at_once(2));
        assert!(of("k8s.gcr.io/goproxy:0.1", &[], &["--ignored"]).is_some());
        assert!(of("k8s.gcr.io/goproxy:0.1", &["/bin/sh"], &[]).is_none());
    }

    #[test]
    fn nginx_listens_on_80_and_quits_gracefully() {
        for (command, args) in [
            (&[][..], &[][..]),
            (&[], &["nginx", "-g", "daemon off;"]),
            (&["nginx", "-g", "daemon off;"], &[]),
            (&["nginx"], &["-g", "daemon off;"]),
            (&["/docker-entrypoint.sh"], &["nginx", "-g", "daemon off;"]),
        ] {
            let b = of("nginx:1.14.2", command, args).unwrap_or_else(|| panic!("{command:?} {args:?}"));
            assert_eq!(b.ports, Some(vec![80]));
            let p = plan(b);
            assert_eq!((get(&p, "/", 0, false), get(&p, "/healthz", 0, false)), (200, 404));
            assert_eq!(p.on_sigterm, exits_at_once(0));
            assert!(p.closes_on_sigterm());
            assert_eq!(p.on_address_in_use, OnAddressInUse::Exit { after: SimDuration::from_millis(2_500), code: 1 });
        }
        assert!(of("nginx", &["nginx"], &[]).is_none());
        assert!(of("nginx", &[], &["nginx-debug", "-g", "daemon off;"]).is_none());
        assert!(of("nginx", &["sh", "-c", "nginx -g 'daemon off;'"], &[]).is_none());
    }

    #[test]
    fn busybox_without_an_argv_exits_0_at_once() {
        let b = of("busybox:1.28", &[], &[]).unwrap();
        assert_eq!(b.exit.map(|e| (e.after, e.code)), Some((Dist::ZERO, 0)));
        assert_eq!(b.ports, Some(vec![]));
        assert!(of("busybox", &["sh", "-c", "sleep 3600"], &[]).is_none());
        assert!(of("busybox", &[], &["sleep", "3600"]).is_none());
    }

    #[test]
    fn flags_are_read_as_pflag_reads_them() {
        let f = parse_flags(
            &strings(&["--a=1", "--b", "--c", "x", "--a", "2"]),
            &[("a", Kind::Int), ("b", Kind::Bool), ("c", Kind::Str)],
        )
        .unwrap();
        assert_eq!(
            (f.int("a", 0), f.bool("b", false), f.0.get("c").map(String::as_str)),
            (Some(2), Some(true), Some("x"))
        );
        assert!(parse_flags(&strings(&["-a=1"]), &[("a", Kind::Int)]).is_none());
        assert!(parse_flags(&strings(&["--z"]), &[("a", Kind::Int)]).is_none());
    }

    /// The docs' memory examples (Assign Memory Resources): `--vm 1
    /// --vm-bytes 250M` holds 250 MiB (stress's M is 1024²), forever, and
    /// ignores SIGTERM; without `--vm` nothing is held; `--timeout 30s` exits 0.
    #[test]
    fn stress_holds_its_vm_bytes() {
        let argv = |a: &str| a.split(' ').map(str::to_string).collect::<Vec<_>>();
        let b = known("polinux/stress", &argv("stress"), &argv("--vm 1 --vm-bytes 250M --vm-hang 1")).unwrap();
        let memory = b.memory.unwrap();
        assert_eq!((memory.len(), memory[0].rss.0.value()), (1, 250 << 20));
        assert_eq!(memory[0].rss.0.to_string(), "250Mi");
        assert!(b.exit.is_none() && b.sigterm.is_some_and(|s| s.ignore));
        let two = known("polinux/stress", &argv("stress"), &argv("--vm 2 --vm-bytes=1g")).unwrap();
        assert_eq!(two.memory.unwrap()[0].rss.0.value(), 2 << 30);
        let cpu = known("polinux/stress", &argv("stress"), &argv("--cpu 2 --timeout 30s")).unwrap();
        assert!(cpu.memory.is_none());
        assert_eq!(cpu.exit.map(|e| (e.after, e.code)), Some((Dist::Fixed(SimDuration::from_secs(30)), 0)));
        let upper = known("polinux/stress", &argv("stress"), &argv("--timeout 2M")).unwrap();
        assert_eq!(upper.exit.map(|e| e.after), Some(Dist::Fixed(SimDuration::from_secs(120))));
        assert!(known("polinux/stress", &argv("stress"), &argv("--vm 1 --frobnicate")).is_none());
        assert!(known("polinux/stress", &argv("sh"), &argv("-c stress")).is_none());
    }
}
