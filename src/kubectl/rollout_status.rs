//! `kubectl rollout status deployment/<name>`: the line it prints for each
//! version of the Deployment it sees, and whether it stops
//! (kubectl polymorphichelpers `DeploymentStatusViewer.Status`, cmd/rollout
//! `RolloutStatusOptions.Run`, cmdutil `checkErr`).

/// What kubectl reads of the Deployment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RolloutView<'a> {
    pub name: &'a str,
    pub generation: u64,
    pub observed_generation: u64,
    /// `spec.replicas`.
    pub spec_replicas: u32,
    pub replicas: u32,
    pub updated_replicas: u32,
    pub available_replicas: u32,
    /// The Progressing condition's reason, if there is one.
    pub progressing_reason: Option<&'a str>,
    /// The `deployment.kubernetes.io/revision` annotation (0 when absent).
    pub revision: u64,
}

/// The outcome for one version of the Deployment. Each variant holds the
/// exact text kubectl prints, trailing newline included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Printed to stdout; kubectl keeps watching (or exits 0 with `--watch=false`).
    Waiting(String),
    /// Printed to stdout; kubectl exits 0.
    Done(String),
    /// Printed to stderr; kubectl exits 1.
    Failed(String),
}

impl Verdict {
    /// The exit code, once kubectl stops (`None` while it keeps watching).
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            Verdict::Waiting(_) => None,
            Verdict::Done(_) => Some(0),
            Verdict::Failed(_) => Some(1),
        }
    }

    /// `--timeout` expired (`wait.ErrWaitTimeout` through `checkErr`).
    pub fn timed_out() -> Verdict {
        failed("timed out waiting for the condition")
    }

    /// The Deployment was deleted while watched.
    pub fn deleted() -> Verdict {
        failed("object has been deleted")
    }
}

/// `checkErr`: "error: " and a newline around the error's text.
pub(super) fn failed(err: &str) -> Verdict {
    Verdict::Failed(format!("error: {err}\n"))
}

/// DeploymentStatusViewer.Status. `revision` is the --revision flag (0 = not given). Names are
/// DNS names, so Go's %q is plain double quotes.
pub fn rollout_status(d: &RolloutView, revision: u64) -> Verdict {
    let name = d.name;
    if revision > 0 && revision != d.revision {
        return failed(&format!(
            "desired revision ({revision}) is different from the running revision ({})",
            d.revision
        ));
    }
    if d.generation > d.observed_generation {
        return Verdict::Waiting("Waiting for deployment spec update to be observed...\n".into());
    }
    if d.progressing_reason == Some("ProgressDeadlineExceeded") {
        return failed(&format!("deployment \"{name}\" exceeded its progress deadline"));
    }
    let waiting =
        |what: String| Verdict::Waiting(format!("Waiting for deployment \"{name}\" rollout to finish: {what}...\n"));
    if d.updated_replicas < d.spec_replicas {
        return waiting(format!("{} out of {} new replicas have been updated", d.updated_replicas, d.spec_replicas));
    }
    if d.replicas > d.updated_replicas {
        return waiting(format!("{} old replicas are pending termination", d.replicas - d.updated_replicas));
    }
    if d.available_replicas < d.updated_replicas {
        return waiting(format!("{} of {} updated replicas are available", d.available_replicas, d.updated_replicas));
    }
    Verdict::Done(format!("deployment \"{name}\" successfully rolled out\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(spec: u32, replicas: u32, updated: u32, available: u32) -> RolloutView<'static> {
        RolloutView {
            name: "web",
            generation: 2,
            observed_generation: 2,
            spec_replicas: spec,
            replicas,
            updated_replicas: updated,
            available_replicas: available,
            progressing_reason: Some("ReplicaSetUpdated"),
            revision: 2,
        }
    }

    fn text(v: &Verdict) -> &str {
        match v {
            Verdict::Waiting(s) | Verdict::Done(s) | Verdict::Failed(s) => s,
        }
    }

    #[test]
    fn follows_the_7_1_rollout() {
        // §7.1 statuses: t≈0 updated 0, 3, 5 of 10; t=5…10 replicas 13, updated 10 → 3 old;
        // t=10 10/10/10 → done.
        let prefix = "Waiting for deployment \"web\" rollout to finish: ";
        assert_eq!(
            rollout_status(&view(10, 10, 0, 10), 0),
            Verdict::Waiting(format!("{prefix}0 out of 10 new replicas have been updated...\n"))
        );
        assert_eq!(
            text(&rollout_status(&view(10, 13, 5, 8), 0)),
            format!("{prefix}5 out of 10 new replicas have been updated...\n")
        );
        assert_eq!(
            rollout_status(&view(10, 13, 10, 8), 0),
            Verdict::Waiting(format!("{prefix}3 old replicas are pending termination...\n"))
        );
        // All old ones gone, but not all new ones available yet.
        assert_eq!(
            rollout_status(&view(10, 10, 10, 7), 0),
            Verdict::Waiting(format!("{prefix}7 of 10 updated replicas are available...\n"))
        );
        let done = rollout_status(&view(10, 10, 10, 10), 0);
        assert_eq!(done, Verdict::Done("deployment \"web\" successfully rolled out\n".into()));
        assert_eq!(done.exit_code(), Some(0));
    }

    #[test]
    fn generation_deadline_and_revision() {
        // observedGeneration behind: nothing else is looked at, not even the deadline.
        let mut v = view(10, 10, 10, 10);
        v.generation = 3;
        v.progressing_reason = Some("ProgressDeadlineExceeded");
        let w = rollout_status(&v, 0);
        assert_eq!(w, Verdict::Waiting("Waiting for deployment spec update to be observed...\n".into()));
        assert_eq!(w.exit_code(), None);
        // Observed and timed out: an error, exit 1, before any count is checked.
        v.generation = 2;
        let f = rollout_status(&v, 0);
        assert_eq!(f, Verdict::Failed("error: deployment \"web\" exceeded its progress deadline\n".into()));
        assert_eq!(f.exit_code(), Some(1));
        // --revision that does not match: checked first.
        assert_eq!(
            rollout_status(&view(10, 10, 10, 10), 3),
            Verdict::Failed("error: desired revision (3) is different from the running revision (2)\n".into())
        );
        assert!(matches!(rollout_status(&view(10, 10, 10, 10), 2), Verdict::Done(_)));
        assert_eq!(text(&Verdict::timed_out()), "error: timed out waiting for the condition\n");
        assert_eq!(text(&Verdict::deleted()), "error: object has been deleted\n");
    }
}
