#!/usr/bin/env bash
# Byte-identity check for refactors: runs every scenario of models/ with two
# builds of podsim and compares what they print for
#   podsim run SCENARIO --seed $SEED -o jsonl
#   podsim predict SCENARIO --runs $RUNS -o json
# (stdout and exit code; stderr, which holds progress bars, is not compared).
#
#   tests/compare-builds.sh OLD_BINARY NEW_BINARY
#   tests/compare-builds.sh --rev OLD_REV [NEW_REV]
#
# With --rev each revision is checked out in a temporary git worktree and
# built with `cargo build --profile $PROFILE` in target/compare-builds (or
# $CARGO_TARGET_DIR); NEW_REV defaults to the working tree as it is,
# uncommitted changes included. Environment: SEED
# (default 7), RUNS (default 200), PROFILE (default release), and SCENARIOS
# (default: models/scenarios/*.yaml, models/scenarios/recorded/*.yaml and
# models/benchmarks/*.yaml; predict skips the benchmarks, whose sweeps take
# minutes). Exit 0 when every output is identical, 1 when one differs (each
# difference is listed with its first differing line), 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

SEED=${SEED:-7}
RUNS=${RUNS:-200}
PROFILE=${PROFILE:-release}
target=${CARGO_TARGET_DIR:-$repo/target/compare-builds}
work=$(mktemp -d)
worktrees=()
cleanup() {
  for w in "${worktrees[@]}"; do git -C "$repo" worktree remove --force "$w" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

usage() {
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Builds REV (or the working tree when REV is empty) as $work/podsim-NAME.
# Not in a subshell: the worktree must be known to cleanup.
build() {
  local rev=$1 name=$2 src=$repo
  if [[ -n $rev ]]; then
    src=$work/src-$name
    git -C "$repo" worktree add --quiet --detach "$src" "$rev"
    worktrees+=("$src")
  fi
  local dir=$PROFILE
  [[ $PROFILE == dev ]] && dir=debug
  # One target directory for both builds and every later call: the
  # dependencies are built once.
  CARGO_TARGET_DIR=$target cargo build --quiet --manifest-path "$src/Cargo.toml" --profile "$PROFILE" --bin podsim >&2
  cp "$target/$dir/podsim" "$work/podsim-$name"
}

case ${1:-} in
  --rev)
    [[ $# -ge 2 && $# -le 3 ]] || usage
    build "$2" old
    build "${3:-}" new
    old=$work/podsim-old
    new=$work/podsim-new
    ;;
  -h | --help | "") usage ;;
  *)
    [[ $# -eq 2 ]] || usage
    old=$(realpath "$1")
    new=$(realpath "$2")
    ;;
esac
for b in "$old" "$new"; do
  [[ -x $b ]] || { echo "compare-builds: $b is not an executable" >&2; exit 2; }
done

if [[ -n ${SCENARIOS:-} ]]; then
  read -r -a scenarios <<<"$SCENARIOS"
else
  scenarios=(models/scenarios/*.yaml models/scenarios/recorded/*.yaml models/benchmarks/*.yaml)
fi

# Runs one command with both builds; prints a line per difference.
compare() {
  local label=$1
  shift
  local a=$work/a b=$work/b ca=0 cb=0
  "$old" "$@" >"$a" 2>/dev/null || ca=$?
  "$new" "$@" >"$b" 2>/dev/null || cb=$?
  if [[ $ca != "$cb" ]]; then
    echo "DIFFERS  $label: exit code $ca, then $cb"
    return 1
  fi
  if ! cmp -s "$a" "$b"; then
    local line
    # `… differ: byte N, line L`, or `cmp: EOF on … after byte N, line L` when one is a prefix.
    line=$(cmp "$a" "$b" 2>&1 | sed 's/.*line //')
    echo "DIFFERS  $label: from line $line ($(wc -l <"$a") and $(wc -l <"$b") lines)"
    return 1
  fi
  echo "same     $label ($(wc -c <"$a") bytes)"
}

failed=0
for s in "${scenarios[@]}"; do
  compare "run $s --seed $SEED -o jsonl" run "$s" --seed "$SEED" -o jsonl || failed=1
  if [[ $s != models/benchmarks/* ]]; then
    compare "predict $s --runs $RUNS -o json" predict "$s" --runs "$RUNS" -o json || failed=1
  fi
done
if [[ $failed == 0 ]]; then
  echo "compare-builds: every output is byte-identical (${#scenarios[@]} scenarios)"
else
  echo "compare-builds: some outputs differ"
fi
exit $failed
