//! A Job's lanes: how many pods it counts active (succeeded and failed
//! while none is)
//! (its status as the Job controller writes it), and each of its
//! conditions as it is set.

use super::model::{Group, Lane, Spans};
use crate::api::job::{ApiJob, JobConditionType};
use crate::plot::palette::Look;

/// One Job's lanes, built from its records.
pub struct JobLanes {
    title: String,
    pods: Spans,
    conditions: Vec<(JobConditionType, Spans)>,
}

const CONDITIONS: [JobConditionType; 5] = [
    JobConditionType::Suspended,
    JobConditionType::FailureTarget,
    JobConditionType::SuccessCriteriaMet,
    JobConditionType::Failed,
    JobConditionType::Complete,
];

impl JobLanes {
    pub fn new(j: &ApiJob) -> JobLanes {
        let spec = &j.spec;
        let completions = spec.completions.map_or("no completions".into(), |c| format!("{c} completions"));
        let title = format!("job/{} ({completions}, parallelism {})", spec.name, spec.parallelism);
        JobLanes { title, pods: Spans::default(), conditions: Vec::new() }
    }

    /// The Job as written at `t`.
    pub fn see(&mut self, t: f64, j: &ApiJob) {
        let s = &j.status;
        let (look, text) = match s.active {
            0 => (Look::ConditionFalse, format!("succeeded {}, failed {}", s.succeeded, s.failed)),
            n => (Look::Running, format!("{n} active")),
        };
        self.pods.set(t, Some((look, text)));
        for kind in CONDITIONS {
            let Some(c) = s.condition(kind) else { continue };
            let i = match self.conditions.iter().position(|(k, _)| *k == kind) {
                Some(i) => i,
                None => {
                    self.conditions.push((kind, Spans::default()));
                    self.conditions.len() - 1
                }
            };
            let state = match c.status {
                true => (Look::ConditionTrue, c.reason.to_string()),
                false => (Look::ConditionFalse, c.reason.to_string()),
            };
            self.conditions[i].1.set(t, Some(state));
        }
    }

    pub fn finish(mut self, end: f64) -> Group {
        self.pods.close(end);
        let mut lanes = vec![Lane { bars: self.pods.bars, ..Lane::new("pods") }];
        for (kind, mut spans) in self.conditions {
            spans.close(end);
            lanes.push(Lane { bars: spans.bars, ..Lane::new(kind.as_str()) });
        }
        Group { title: self.title, object: None, lanes }
    }
}
