//! The commands a mutated model file is run through: every command that
//! simulates, with a short `--until` (and `--max-events` when podsim has it)
//! so that a valid input ends quickly.

use super::harness::{BUDGET, Case};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
pub enum Sub {
    Run,
    Jsonl,
    Get,
    Watch,
    Describe,
    Verify,
    Predict,
    Report,
    Plot,
}

pub fn sub() -> impl Strategy<Value = Sub> {
    prop_oneof![
        8 => Just(Sub::Run),
        2 => Just(Sub::Jsonl),
        2 => Just(Sub::Get),
        1 => Just(Sub::Watch),
        2 => Just(Sub::Describe),
        2 => Just(Sub::Verify),
        2 => Just(Sub::Predict),
        1 => Just(Sub::Report),
        1 => Just(Sub::Plot),
    ]
}

/// `podsim SUB …` with the run inputs `inputs` adds, a 20 s run (with
/// `until` false and an event budget, as long as the inputs say).
pub fn command(case: &mut Case, sub: Sub, until: bool, describe: &str, inputs: impl FnOnce(&mut Case)) {
    match sub {
        Sub::Run | Sub::Jsonl => case.arg("run"),
        Sub::Get | Sub::Watch => case.args(["get", "pods"]),
        Sub::Describe => case.args(["describe", describe]),
        Sub::Verify => case.arg("verify"),
        Sub::Predict => case.arg("predict"),
        Sub::Report => case.arg("report"),
        Sub::Plot => case.args(["plot", "timeline"]),
    };
    inputs(case);
    if until {
        case.args(["--until", "20s"]);
    }
    case.args(BUDGET);
    match sub {
        Sub::Jsonl => case.args(["-o", "jsonl"]),
        Sub::Watch => case.arg("-w"),
        Sub::Get => case.args(["-o", "yaml"]),
        Sub::Verify => case.args(["--runs", "2", "--jobs", "1", "-p", "never restarts(pod/*) > 0"]),
        Sub::Predict => case.args(["--runs", "2", "--jobs", "1", "-o", "json"]),
        Sub::Report => case.args(["-o", "out.html"]),
        Sub::Plot => case.args(["-o", "out.svg"]),
        Sub::Run | Sub::Describe => case,
    };
}
