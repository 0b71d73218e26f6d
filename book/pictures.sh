#!/usr/bin/env bash
# Regenerates the pictures of the seed exercises (book/src/exercises.md)
# with `podsim plot`. Run from anywhere: bash book/pictures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
podsim=target/release/podsim
out=book/src/pictures/exercises
mkdir -p "$out"

# One run (the scenario's seed) of each scenario the chapter answers with.
for s in c28-service c28-bad-rollout c28-bad-rollout-evicted probe-actions \
         asr-v2-delete asr-gateway-v1 asr-gateway-v2 asr-v2-fetch-fails; do
  "$podsim" plot timeline "models/scenarios/$s.yaml" -o "$out/$s-timeline.svg"
done

# The happens-before graphs over 1000 runs, on the milestones the exercise asks about.
"$podsim" plot graph models/scenarios/c28-service.yaml --runs 1000 -o "$out/c28-service-graph.svg" \
  -m pod/c28-probe:scheduled -m pod/c28-probe:initialized \
  -m pod/c28-probe/probe-app:running -m pod/c28-probe:phase_running \
  -m pod/c28-probe/probe-app:started -m pod/c28-probe:ready \
  -m 'svc/c28-probe:endpoint_ready(pod/c28-probe)' \
  -m 'svc/c28-probe:programmed(node/kind-worker)' \
  -m 'svc/c28-probe:programmed(node/kind-control-plane)' \
  -m svc/c28-probe:first_ok -m client/direct:first_ok
"$podsim" plot graph models/scenarios/c28-bad-rollout.yaml --runs 1000 -o "$out/c28-bad-rollout-graph.svg" \
  -m pod/c28-probe@rev1#1:ready -m deploy/c28-probe@rev1:rollout_complete \
  -m deploy/c28-probe@rev2:rollout_started -m pod/c28-probe@rev2#1:created \
  -m pod/c28-probe@rev2#1:phase_running \
  -m deploy/c28-probe@rev2:progress_deadline_exceeded \
  -m deploy/c28-probe@rev3:rollout_started -m pod/c28-probe@rev2#1:deleted \
  -m pod/c28-probe@rev2#1:removed -m svc/c28-probe:first_ok -m svc/c28-probe:last_ok
