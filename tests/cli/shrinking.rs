//! verify's shrinking: the draws left random said in words (component,
//! step, object, how far from nominal), and rollouts shrunk as well as
//! single pods, because a draw's key names the same draw in every run.

use crate::podsim;
use serde_json::Value;

const C28: &str = "models/scenarios/c28-service.yaml";
const ROLLOUT: &str = "models/scenarios/rollout-10.yaml";

fn shrunk(args: &[&str]) -> Value {
    let run = podsim(args);
    assert_eq!(run.code, Some(1), "{run:?}");
    let v: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    v["shrunk"].clone()
}

/// Ready after 15 s in seed 23: the PLEG relist's phase on kind-worker
/// came late in its second, and one sync of the pod was quick.
#[test]
fn the_draws_left_random_are_said_in_words() {
    let property = "always pod/c28-probe:ready < 15s";
    let table = podsim(["verify", C28, "--seed", "23", "-p", property]).stdout;
    let expected = "\
    the kubelet on kind-worker first ran its PLEG relist 991ms into the run (nominal 500ms): 491ms later than usual
      kubelet/kind-worker/loop:phase(node/kind-worker, PLEG relist)#1, from uniform(0s, 1s)
    the kubelet on kind-worker spent 2ms on a sync of pod/c28-probe before acting (nominal 6ms): 4ms earlier than usual
      kubelet/kind-worker/loop:pod_sync(pod/c28-probe)#5, from uniform(2ms, 10ms)
  timeline of the shrunk run, to 15.041s:
";
    assert!(table.contains(expected), "{table}");
    let s = shrunk(&["verify", C28, "--seed", "23", "-p", property, "-o", "json"]);
    let random = s["random"].as_array().unwrap();
    assert_eq!(random[0]["draw"], "kubelet/kind-worker/loop:phase(node/kind-worker, PLEG relist)#1");
    assert_eq!(
        random[0]["words"],
        "the kubelet on kind-worker first ran its PLEG relist 991ms into the run (nominal 500ms): 491ms later than usual"
    );
    assert_eq!((random[0]["value"].as_f64(), random[0]["nominal"].as_f64()), (Some(0.991), Some(0.5)));
}

/// Which old pod a rollout deletes first depends on when each became
/// ready (`ActivePodsWithRanks`). In seed 18 the first pod of revision 1
/// survives the first wave: one draw explains it. Keys by stream ordinal
/// left three draws here (the scheduler's third, the kubelet loop's eighth
/// and tenth), and ten with the budget spent for the next property.
#[test]
fn a_rollout_counterexample_shrinks_to_the_draw_that_matters() {
    let s = shrunk(&["verify", ROLLOUT, "--runs", "200", "-p", "always pod/web@rev1#1:deleted < 35s", "-o", "json"]);
    let random = s["random"].as_array().unwrap();
    assert!(s["candidates"].as_u64().unwrap() > 1000, "{s}");
    assert_eq!(random.len(), 1, "{s}");
    assert_eq!(s["minimal"], true);
    assert_eq!(
        random[0]["words"],
        "the kubelet on kind-worker created the sandbox of pod/web@rev1#1 in 411ms (nominal 325ms): 86ms later than usual"
    );

    let s = shrunk(&["verify", ROLLOUT, "--runs", "200", "-p", "always pod/web@rev2#1:ready < 36.5s", "-o", "json"]);
    let left = s["random"].as_array().unwrap().len() as u64;
    assert!(left > 0 && left * 100 < s["candidates"].as_u64().unwrap(), "{s}");
    assert_eq!(s["minimal"], true, "shrunk within the budget: {s}");
}
