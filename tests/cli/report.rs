//! `podsim report`: one self-contained page (nothing fetched), the same
//! bytes for the same inputs, a group of lanes per pod of the run, the
//! prediction's parts with --runs; and, in a headless Chromium driven over
//! WebDriver, the page as a user sees it: the swimlanes drawn, a tooltip
//! with the pod as it was after a hover, the whole object after a click,
//! and a screenshot that is not blank.

use crate::{TempDir, assert_no_panic, podsim};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROLLOUT: &str = "models/scenarios/c28-bad-rollout.yaml";

fn report(args: &[&str], dir: &TempDir) -> String {
    let out = dir.path("report.html");
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", &out]);
    let run = podsim(&all);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.is_empty(), "the page goes to its file: {run:?}");
    fs::read_to_string(&out).unwrap_or_else(|e| panic!("{out}: {e}"))
}

/// The pods of a run, by UID, from its JSON Lines trace.
fn pods_in_run(scenario: &str) -> usize {
    let run = podsim(["run", scenario, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let uids: BTreeSet<String> = (run.stdout.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["object"]["kind"] == "Pod")
        .filter_map(|v| v["object"]["metadata"]["uid"].as_str().map(String::from))
        .collect();
    uids.len()
}

#[test]
fn a_page_needs_nothing_from_the_network_and_draws_every_pod() {
    let dir = TempDir::new("report-page");
    let page = report(&[ROLLOUT], &dir);
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..100]);
    for fetch in ["<link", "src=", "@import", "url(", "href=\"http", "fetch("] {
        assert!(!page.contains(fetch), "the page must not fetch anything, but it has {fetch:?}");
    }
    let pods = page.matches("<g class=\"group\" data-kind=\"pod\"").count();
    assert_eq!(pods, pods_in_run(ROLLOUT), "one group of lanes per pod of the run");
    assert_eq!(pods, 2, "the bad revision's pod and the first one, which the fixed revision keeps");
    for part in
        ["id=\"objects-seed-1\"", "<summary>Events</summary>", "<summary>Probe results</summary>", "ScalingReplicaSet"]
    {
        assert!(page.contains(part), "no {part:?} in the page");
    }
    assert_eq!(page, report(&[ROLLOUT], &dir), "the same inputs give the same page");
}

#[test]
fn with_runs_the_page_has_the_prediction_and_the_ranked_seeds_timelines() {
    let dir = TempDir::new("report-runs");
    let page = report(&[ROLLOUT, "--runs", "20", "--jobs", "2"], &dir);
    for part in ["<h2>Over 20 runs (seeds 1–20)</h2>", "Milestone times over the runs", "Happens-before over the runs"]
    {
        assert!(page.contains(part), "no {part:?} in the page");
    }
    assert!(
        page.contains("Ranked by <code>deploy/c28-probe@rev3:rollout_complete</code>"),
        "ranked by the rollout's end"
    );
    // Every linked seed has its section, with its own objects.
    let links: BTreeSet<&str> =
        page.split("<a href=\"#seed-").skip(1).filter_map(|s| s.split_once('"').map(|(n, _)| n)).collect();
    assert!(links.len() >= 6, "three slowest and three fastest, linked: {links:?}");
    for seed in links {
        assert!(page.contains(&format!("<section class=\"run\" id=\"seed-{seed}\">")), "seed {seed} has no timeline");
        assert!(page.contains(&format!("id=\"objects-seed-{seed}\"")), "seed {seed} has no objects");
    }
    assert_eq!(page, report(&[ROLLOUT, "--runs", "20", "--jobs", "1"], &dir), "threads do not change the page");
}

#[test]
fn the_page_can_go_to_stdout_and_a_bad_path_is_refused() {
    let run = podsim(["report", "models/scenarios/probe-actions.yaml", "-o", "-"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("<!DOCTYPE html>"));
    let run = podsim(["report", "models/scenarios/probe-actions.yaml", "-o", "/nonexistent/dir/r.html"]);
    assert_no_panic(&run);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.starts_with("error: /nonexistent/dir/r.html: "), "{run:?}");
}

// ---- In a browser ----

/// A chromedriver process and one headless Chromium session.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = call(self.port, "DELETE", &format!("/session/{}", self.session), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn which(names: &[&str]) -> Option<String> {
    let path = std::env::var("PATH").unwrap_or_default();
    names.iter().find_map(|n| {
        std::env::split_paths(&path).map(|d| d.join(n)).find(|p| p.is_file()).map(|p| p.display().to_string())
    })
}

/// One WebDriver command: the response's `value`, or its error.
fn call(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let body = response(&mut stream)?;
    let v: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
    match v["value"].get("error") {
        Some(e) => Err(format!("{e}: {}", v["value"]["message"])),
        None => Ok(v["value"].clone()),
    }
}

/// The body of an HTTP response: as long as its Content-Length says (the
/// driver may keep the connection open), else chunked, else to the end.
fn response(stream: &mut TcpStream) -> Result<String, String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        raw.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&raw);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let head = head.to_ascii_lowercase();
            let length = head.lines().find_map(|l| l.strip_prefix("content-length:")?.trim().parse::<usize>().ok());
            match length {
                Some(len) if body.len() >= len => return Ok(body[..len].to_string()),
                None if head.contains("transfer-encoding: chunked") && (body.ends_with("0\r\n\r\n") || n == 0) => {
                    return Ok(unchunk(body));
                }
                None if n == 0 => return Ok(body.to_string()),
                _ => {}
            }
        }
        if n == 0 {
            return Err("the connection closed before the response ended".into());
        }
    }
}

fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

impl Browser {
    /// A headless session, or why there can be none here.
    fn start() -> Result<Browser, String> {
        let chromium = which(&["chromium", "chromium-browser", "google-chrome"])
            .ok_or("no chromium on PATH (Debian: apt-get install chromium chromium-driver; .ci/run does)")?;
        let chromedriver = which(&["chromedriver"]).ok_or("no chromedriver on PATH (Debian: chromium-driver)")?;
        let port =
            std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{chromedriver}: {e}"))?;
        let mut browser = Browser { driver, port, session: String::new() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while call(port, "GET", "/status", None).map(|v| v["ready"] == true) != Ok(true) {
            if Instant::now() > deadline {
                return Err("chromedriver did not become ready in 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let args =
            ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let session = call(port, "POST", "/session", Some(&caps)).map_err(|e| format!("no session: {e}"))?;
        browser.session = session["sessionId"].as_str().ok_or("no session id")?.to_string();
        Ok(browser)
    }

    fn command(&self, method: &str, what: &str, body: Value) -> Value {
        let path = format!("/session/{}/{what}", self.session);
        let body = (method != "GET").then_some(&body);
        call(self.port, method, &path, body).unwrap_or_else(|e| panic!("{method} {what}: {e}"))
    }

    fn script(&self, script: &str) -> Value {
        self.command("POST", "execute/sync", json!({"script": script, "args": []}))
    }

    /// Moves the pointer onto the element `script` returns, pressing it when `click`.
    fn pointer(&self, script: &str, click: bool) {
        let element = self.script(script);
        let mut actions = vec![json!({"type": "pointerMove", "duration": 0, "origin": element, "x": 0, "y": 0})];
        if click {
            actions.push(json!({"type": "pointerDown", "button": 0}));
            actions.push(json!({"type": "pointerUp", "button": 0}));
        }
        let body = json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]});
        self.command("POST", "actions", body);
    }
}

/// Base64 (the screenshot's encoding) to bytes.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    sextets
        .chunks(4)
        .flat_map(|c| {
            let n = c.iter().fold(0u32, |n, s| n << 6 | *s as u32) << (6 * (4 - c.len()));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len().saturating_sub(1))
        })
        .collect()
}

/// The number of different colours in a PNG.
fn colours(png_bytes: &[u8]) -> usize {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let step = info.color_type.samples();
    buf[..info.buffer_size()].chunks(step).map(|p| p.to_vec()).collect::<BTreeSet<_>>().len()
}

#[test]
fn in_a_headless_browser_the_lanes_answer_a_hover_and_a_click() {
    let browser = match Browser::start() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped: the report's browser test needs a headless Chromium: {why}");
            return;
        }
    };
    let dir = TempDir::new("report-browser");
    report(&[ROLLOUT, "--runs", "10"], &dir);
    let url = format!("file://{}", Path::new(&dir.path("report.html")).display());
    browser.command("POST", "url", json!({"url": url}));
    let pods =
        browser.script("return document.querySelectorAll('#seed-1 svg.swimlanes g.group[data-kind=pod]').length");
    assert_eq!(pods, json!(pods_in_run(ROLLOUT)), "a group per pod of the first run");
    let lanes = browser.script("return document.querySelectorAll('#seed-1 svg.swimlanes g.lane').length");
    assert!(
        lanes.as_u64().unwrap_or(0) >= 2 * 10,
        "each pod has its containers', probes' and conditions' lanes: {lanes}"
    );
    let drawn = browser.script(
        "const r = document.querySelector('#seed-1 svg.swimlanes').getBoundingClientRect(); return [r.width, r.height]",
    );
    assert!(drawn[0].as_f64() > Some(900.0) && drawn[1].as_f64() > Some(300.0), "the swimlanes are laid out: {drawn}");
    // The first pod's app container, Running and ready from ~14 s on.
    let bar = "const b = [...document.querySelectorAll('#seed-1 g.group[data-kind=pod] g.lane[data-lane=\"probe-app\"] rect.bar')]
        .find(b => b.dataset.tip.includes('Running, ready')); b.scrollIntoView({block: 'center'}); return b;";
    browser.pointer(bar, false);
    let tip = browser.script("const t = document.getElementById('tip'); return t.hidden ? null : t.textContent");
    let tip = tip.as_str().unwrap_or_else(|| panic!("no tooltip after the hover: {tip}"));
    assert!(tip.starts_with("probe-app: Running, ready · "), "{tip}");
    assert!(tip.contains("Pod c28/c28-probe-") && tip.contains("phase Running"), "the pod then: {tip}");
    assert!(tip.contains("Ready=True") && tip.contains("probe-app: running, ready, restarts 0"), "{tip}");
    let screenshot = base64(browser.command("GET", "screenshot", Value::Null).as_str().unwrap_or_default());
    assert!(colours(&screenshot) > 20, "the screenshot is not blank");
    // The book's picture of the report is this screenshot.
    if let Ok(path) = std::env::var("PODSIM_REPORT_SCREENSHOT") {
        fs::write(&path, &screenshot).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    browser.pointer(bar, true);
    let detail = browser.script(
        "const d = document.getElementById('detail'); return d.hidden ? null : [d.querySelector('h3').textContent, d.querySelector('pre').textContent]",
    );
    let heading = detail[0].as_str().unwrap_or_else(|| panic!("no detail panel after the click: {detail}"));
    assert!(heading.starts_with("Pod c28-probe-"), "{heading}");
    let object: Value =
        serde_json::from_str(detail[1].as_str().unwrap_or_default()).expect("the whole object, as JSON");
    assert_eq!(object["kind"], "Pod");
    assert_eq!(object["status"]["phase"], "Running");
}
