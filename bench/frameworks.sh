#!/usr/bin/env bash
# Benchmark (issue 4): the frameworks of 100 Python environments read from their files.
# One root holds 100 virtual environments (virtualenvwrapper's ~/.virtualenvs, each a real
# copy, no hard links: the inventory would count linked copies once), made from the e2e
# fixtures: 25 each of torch 2.1.0+cu121 with its nvidia wheels (RPATH, fat binary),
# TensorFlow 2.15 with the and-cuda wheels, JAX 0.4.30 with the CUDA 12 plugin, and Keras 3
# with a CPU torch. `gpudoctor check --root ROOT --json` (every probe: environments,
# inventory, frameworks, their libraries through the loader emulator, fat binaries) runs side
# by side in one hyperfine run with bench/frameworks_peer.py: Python's importlib.metadata and
# ast.literal_eval over the same site directories, the least a Python tool does to list the
# same frameworks without importing them.
# Target: gpudoctor's mean under 100 ms (the check with its default text output, which prints
# the findings). The peer's time, and gpudoctor's with --json (the whole report: several MB of
# facts for 100 environments), are recorded as information.
#
# Usage: bench/frameworks.sh BUILD_DIR
# Knobs (environment): BENCH_WARMUP (3), BENCH_MIN_RUNS (20).
# Exit: 0 target met, 1 missed, 2 missing prerequisite or a command misbehaved.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: bench/frameworks.sh BUILD_DIR}
GD=$BUILD/gpudoctor
E2E=$BUILD/tests/e2e
TARGET_MS=100
ENVS=100
WARMUP=${BENCH_WARMUP:-3}
MIN_RUNS=${BENCH_MIN_RUNS:-20}
OUT=$BENCH_OUT/frameworks
SRC=$(cd "$BENCH_DIR/.." && pwd)

need_cmd hyperfine hyperfine
need_cmd cc gcc
[ -x "$BENCH_PY" ] || { bench_missing="$bench_missing $BENCH_PY"; bench_hint="$bench_hint python3"; }
check_prereqs
if ! [ -x "$GD" ] || ! [ -x "$E2E/gd_e2e" ]; then
  echo "bench: $GD or $E2E/gd_e2e not found: build first (make build, or make bench)" >&2
  exit 2
fi
rm -rf "$OUT" && mkdir -p "$OUT"

# The fixtures with compiled libraries, built by the e2e harness into its work directories.
KINDS=(fw-torch-cu121:torch fw-tf215:tf215 fw-jax-cuda12:jax fw-keras3-jax:k3)
for kind in "${KINDS[@]}"; do
  case=${kind%%:*}
  "$E2E/gd_e2e" case "$case" "$GD" "$SRC" "$BUILD" "$OUT/e2e-$case" >"$OUT/e2e-$case.log" 2>&1 || {
    echo "bench: the e2e case $case failed (see $OUT/e2e-$case.log)" >&2
    exit 2
  }
done
# The base machine: driver, GPU, system Python of the torch fixture.
ROOT=$OUT/root
cp -a "$OUT/e2e-fw-torch-cu121/fw-torch-cu121/root" "$ROOT"
rm -rf "$ROOT/home/alice/.virtualenvs"
mkdir -p "$ROOT/home/alice/.virtualenvs"
i=0
while [ $i -lt $ENVS ]; do
  for kind in "${KINDS[@]}"; do
    case=${kind%%:*} env=${kind##*:}
    from=$OUT/e2e-$case/$case/root/home/alice/.virtualenvs/$env
    [ -d "$from" ] || from=$SRC/tests/fixtures/roots/$case/home/alice/.virtualenvs/$env
    dest=$(printf '%s/home/alice/.virtualenvs/%s-%03d' "$ROOT" "$env" $i)
    cp -a "$from" "$dest"
    # Its own prefix in pyvenv.cfg and activation paths does not matter: found by its place.
    i=$((i + 1))
  done
done
SITES=$(find "$ROOT/home/alice/.virtualenvs" -mindepth 4 -maxdepth 4 -type d -name site-packages | sort)
nsites=$(echo "$SITES" | wc -l)
GD_CMD="$GD check --root $ROOT --env HOME=/home/alice"
GD_JSON_CMD="$GD_CMD --json"
PEER_CMD="$BENCH_PY -I $BENCH_DIR/frameworks_peer.py $(echo "$SITES" | tr '\n' ' ')"

# Both must see the same frameworks before anything is timed.
set +e
$GD_JSON_CMD >"$OUT/gpudoctor.json" 2>"$OUT/gpudoctor.stderr"
rc=$?
set -e
[ $rc -le 1 ] || { echo "bench: gpudoctor exited $rc (see $OUT/gpudoctor.stderr)" >&2; exit 2; }
$PEER_CMD >"$OUT/peer.txt" 2>"$OUT/peer.stderr" || { echo "bench: the peer failed" >&2; exit 2; }
gd_count=$("$BENCH_PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for e in r["entities"] if e["kind"]=="framework"))' "$OUT/gpudoctor.json")
peer_count=$(wc -l <"$OUT/peer.txt")
echo "bench: $nsites site directories; gpudoctor found $gd_count framework distributions, the peer $peer_count"
if [ "$nsites" -ne $ENVS ] || [ "$gd_count" -ne "$peer_count" ] || [ "$gd_count" -lt $ENVS ]; then
  echo "bench: not the same work (environments $nsites, frameworks $gd_count vs $peer_count)" >&2
  exit 2
fi

machine_info "$OUT/machine.txt"
# gpudoctor exits 1 when it reports an error finding (checked above): not a failure here.
hyperfine -N --ignore-failure --warmup "$WARMUP" --min-runs "$MIN_RUNS" --export-json "$OUT/hyperfine.json" \
  -n gpudoctor "$GD_CMD" -n importlib.metadata "$PEER_CMD" -n "gpudoctor --json" "$GD_JSON_CMD" \
  | tee "$OUT/hyperfine.txt"
mean_ms=$("$BENCH_PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.2f" % (r[0]["mean"]*1000))' "$OUT/hyperfine.json")
json_ms=$("$BENCH_PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.2f" % (r[2]["mean"]*1000))' "$OUT/hyperfine.json")
peer_ms=$("$BENCH_PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.2f" % (r[1]["mean"]*1000))' "$OUT/hyperfine.json")
echo "bench: gpudoctor $mean_ms ms for $ENVS environments (target < $TARGET_MS ms); importlib.metadata peer $peer_ms ms; with --json (a $(wc -c <"$OUT/gpudoctor.json")-byte report) $json_ms ms"
awk -v m="$mean_ms" -v t=$TARGET_MS 'BEGIN { exit !(m < t) }'
