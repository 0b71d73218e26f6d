//! The trace as JSON Lines (schema `podsim/trace/v1`): one record per line,
//! each with `t` (seconds since the start, millisecond precision) and `type`.
//! API records have the shape of `kubectl get -w -o json --output-watch-events`.

use super::Trace;
use super::changes::changes;
use super::record::{ProcessFact, Record};
use super::render::{self, Clock};
use super::render_network;
use super::render_workloads;
use super::table::{self, RowType};
use super::workload_rows::WorkloadRows;
use crate::api::pod::ApiPod;
use crate::time::SimTime;
use foldhash::{HashMap, HashMapExt};
use serde::Serialize;
use std::io::{self, Write};
use std::sync::Arc;

/// The schema of every line podsim writes.
pub const SCHEMA: &str = "podsim/trace/v1";

/// What the header line says about the run.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub schema: &'static str,
    pub podsim: &'static str,
    pub seed: u64,
    pub epoch: String,
    pub kubernetes: String,
    pub cluster: String,
    pub feature_gates: std::collections::BTreeMap<&'static str, bool>,
    pub until: f64,
}

/// Writes one line: `{"t":…,"type":…,<fields>}`.
struct Line<'a, W: Write> {
    out: &'a mut W,
}

impl<W: Write> Line<'_, W> {
    fn write(&mut self, t: SimTime, kind: &str, fields: &[(&str, serde_json::Value)]) -> io::Result<()> {
        self.fields(t, kind, fields)?;
        writeln!(self.out, "}}")
    }

    /// `write`, with one more field serialized as it is (not through a `Value`).
    fn write_with(
        &mut self,
        t: SimTime,
        kind: &str,
        fields: &[(&str, serde_json::Value)],
        last: &str,
        value: &impl Serialize,
    ) -> io::Result<()> {
        self.fields(t, kind, fields)?;
        write!(self.out, ",\"{last}\":")?;
        serde_json::to_writer(&mut *self.out, value)?;
        writeln!(self.out, "}}")
    }

    /// A line's start, `t`, `type` and `fields`, left open.
    fn fields(&mut self, t: SimTime, kind: &str, fields: &[(&str, serde_json::Value)]) -> io::Result<()> {
        let ms = t.as_millis();
        write!(self.out, "{{\"t\":{}.{:03},\"type\":\"{kind}\"", ms / 1000, ms % 1000)?;
        for (k, v) in fields {
            write!(self.out, ",\"{k}\":")?;
            serde_json::to_writer(&mut *self.out, v)?;
        }
        Ok(())
    }

    /// A row of the table that says what `kubectl get` prints (KUBECTL_GET).
    fn kubectl_get(&mut self, t: SimTime, object: &str, namespace: &str, what: &str, why: &str) -> io::Result<()> {
        use serde_json::json;
        let fields =
            [("object", json!(object)), ("namespace", json!(namespace)), ("change", json!(what)), ("why", json!(why))];
        self.write(t, "KUBECTL_GET", &fields)
    }

    /// The `kubectl get rs,deploy` rows a workload record makes in the table.
    fn kubectl_rows(&mut self, t: SimTime, r: &Record, rows: &mut WorkloadRows, namespace: &str) -> io::Result<()> {
        let mut out = Vec::new();
        rows.rows(t, r, &mut out);
        for row in out.iter().filter(|row| row.kind == RowType::Kubectl) {
            self.kubectl_get(t, &row.object, namespace, &row.what, &row.why)?;
        }
        Ok(())
    }

    fn object<T: Serialize>(&mut self, t: SimTime, kind: &str, object: &T) -> io::Result<()> {
        let ms = t.as_millis();
        write!(self.out, "{{\"t\":{}.{:03},\"type\":\"{kind}\",\"object\":", ms / 1000, ms % 1000)?;
        serde_json::to_writer(&mut *self.out, object)?;
        writeln!(self.out, "}}")
    }
}

pub fn write<W: Write>(trace: &Trace, header: &Header, clock: &Clock, out: &mut W) -> io::Result<()> {
    use serde_json::json;
    let mut line = Line { out };
    line.write(SimTime::ZERO, "HEADER", &[("run", serde_json::to_value(header)?)])?;
    let mut last: HashMap<Arc<str>, Arc<ApiPod>> = HashMap::new();
    let mut printed: HashMap<Arc<str>, String> = HashMap::new();
    let mut workloads = WorkloadRows::default();
    let mut services = HashMap::new();
    for e in &trace.entries {
        match &e.record {
            Record::Service { kind, svc } => {
                services.insert(svc.id, svc.clone());
                line.object(e.t, kind.as_str(), &render_network::service(svc, clock))?
            }
            Record::Slice { kind, slice } => {
                let svc = &services[&slice.service];
                line.object(e.t, kind.as_str(), &render_network::endpoint_slice(slice, svc, clock))?
            }
            Record::ReplicaSet { kind, rs } => {
                line.object(e.t, kind.as_str(), &render_workloads::replica_set(rs, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &rs.spec.namespace)?
            }
            Record::Deployment { kind, deployment } => {
                line.object(e.t, kind.as_str(), &render_workloads::deployment(deployment, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &deployment.spec.namespace)?
            }
            Record::Pod { kind, pod } => {
                let rendered = render::pod(pod, clock);
                line.object(e.t, kind.as_str(), &rendered)?;
                // The table's `kubectl get pods` row, when what kubectl prints changes.
                let what = table::kubectl_pod(&rendered);
                if printed.get(&pod.meta.uid) != Some(&what) {
                    let object = format!("pod/{}", pod.spec.name);
                    line.kubectl_get(e.t, &object, &pod.spec.namespace, &what, "kubectl get pods")?;
                    printed.insert(pod.meta.uid.clone(), what);
                }
                for c in changes(last.get(&pod.meta.uid).map(|p| &**p), pod) {
                    line.write(
                        e.t,
                        "CHANGE",
                        &[("object", json!(c.object)), ("change", json!(c.what)), ("why", json!(c.why))],
                    )?;
                }
                last.insert(pod.meta.uid.clone(), pod.clone());
            }
            Record::Job { kind, job } => {
                line.object(e.t, kind.as_str(), &super::render_jobs::job(job, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &job.spec.namespace)?
            }
            Record::CronJob { kind, cronjob } => {
                line.object(e.t, kind.as_str(), &super::render_jobs::cronjob(cronjob, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &cronjob.spec.namespace)?
            }
            Record::DaemonSet { kind, ds } => {
                line.object(e.t, kind.as_str(), &super::render_daemonsets::daemon_set(ds, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &ds.spec.namespace)?
            }
            Record::ControllerRevision { kind, revision } => {
                let r = super::render_controllerrevision::controller_revision(revision, clock);
                line.object(e.t, kind.as_str(), &r)?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &revision.namespace)?
            }
            Record::Claim { kind, claim } => line.object(e.t, kind.as_str(), &render::claim(claim, clock))?,
            Record::StatefulSet { kind, sts } => {
                line.object(e.t, kind.as_str(), &super::render_statefulset::stateful_set(sts, clock))?;
                line.kubectl_rows(e.t, &e.record, &mut workloads, &sts.spec.namespace)?
            }
            Record::Pdb { kind, pdb } => line.object(e.t, kind.as_str(), &super::render_disruption::pdb(pdb, clock))?,
            Record::Node { kind, node } => line.object(e.t, kind.as_str(), &render::node(node, clock))?,
            Record::Event(ev) => line.object(e.t, "EVENT", &render::event(ev, clock))?,
            Record::ProxySync(p) => line.write_with(
                e.t,
                "PROXY",
                &render_network::proxy_fields(p),
                "rules",
                &render_network::ProxyRules(p),
            )?,
            Record::Request(r) => line.write(e.t, "REQUEST", &render_network::request_fields(r))?,
            Record::Probe(p) => line.write(
                e.t,
                "PROBE",
                &[
                    ("pod", json!(p.pod)),
                    ("namespace", json!(p.namespace)),
                    ("container", json!(p.container)),
                    ("containerID", json!(p.container_id)),
                    ("probe", json!(p.probe.as_str())),
                    ("result", json!(p.verdict.as_str())),
                    ("detail", json!(p.detail)),
                    ("run", json!(p.run)),
                    ("threshold", json!(p.threshold)),
                    ("published", json!(p.published)),
                ],
            )?,
            Record::Process { pod, namespace, container, container_id, fact } => {
                let mut fields = vec![
                    ("pod", json!(pod)),
                    ("namespace", json!(namespace)),
                    ("container", json!(container)),
                    ("containerID", json!(container_id)),
                    ("fact", json!(fact.as_str())),
                ];
                match fact {
                    ProcessFact::Exited { code } => fields.push(("code", json!(code))),
                    ProcessFact::Listening { ports } => fields.push(("ports", json!(ports))),
                    ProcessFact::AddressInUse { port } => fields.push(("port", json!(port))),
                    ProcessFact::Hook { kind, error, .. } => {
                        fields.push(("hook", json!(kind.as_str())));
                        if let Some(e) = error {
                            fields.push(("error", json!(e)));
                        }
                    }
                    ProcessFact::Signal { signal } => fields.push(("signal", json!(signal))),
                    ProcessFact::OomKilled { rss, limit } => {
                        fields.push(("rss", json!(rss.to_string())));
                        fields.push(("limit", json!(limit.to_string())));
                    }
                    _ => {}
                }
                line.write(e.t, "PROCESS", &fields)?
            }
            Record::Kubelet(a) => line.write(
                e.t,
                "KUBELET",
                &[
                    ("pod", json!(a.pod)),
                    ("namespace", json!(a.namespace)),
                    ("container", json!(a.container)),
                    ("reason", json!(a.reason)),
                    ("message", json!(a.message)),
                    ("eventType", json!(if a.warning { "Warning" } else { "Normal" })),
                ],
            )?,
            Record::Scenario { object, what } => {
                line.write(e.t, "SCENARIO", &[("object", json!(object)), ("action", json!(what))])?
            }
            Record::Kubectl { command, line: out, exit } => line.write(
                e.t,
                "KUBECTL",
                &[("command", json!(command)), ("output", json!(out)), ("exit", json!(exit))],
            )?,
        }
    }
    Ok(())
}
