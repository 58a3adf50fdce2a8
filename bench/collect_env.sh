#!/usr/bin/env bash
# Benchmark (issue 2): `gpudoctor check --json` against PyTorch's environment report,
# `python3 -m torch.utils.collect_env` (Debian's python3-torch), in one hyperfine run.
# Targets: gpudoctor's mean wall time at most 1/50 of collect_env's, its max RSS under 20 MiB.
#
# Usage: bench/collect_env.sh BUILD_DIR
# Knobs (environment): BENCH_WARMUP (3), BENCH_MIN_RUNS (15), BENCH_RSS_RUNS (10 for
# gpudoctor, a third of it for collect_env), BENCH_INSTR_PEER=0 skips counting collect_env's
# instructions (under callgrind that takes about 1.5 minutes).
# Exit: 0 targets met, 1 a target missed, 2 missing prerequisite or a command misbehaved.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: bench/collect_env.sh BUILD_DIR}
GD=$BUILD/gpudoctor
MAX_RATIO=0.02        # 1/50
MAX_RSS_KIB=20480     # 20 MiB
WARMUP=${BENCH_WARMUP:-3}
MIN_RUNS=${BENCH_MIN_RUNS:-15}
RSS_RUNS=${BENCH_RSS_RUNS:-10}
OUT=$BENCH_OUT/collect_env

need_cmd hyperfine hyperfine
need_gnu_time
need_python_module torch.utils.collect_env python3-torch
check_prereqs
if ! [ -x "$GD" ]; then
  echo "bench: $GD not found: build first (make build, or make bench)" >&2
  exit 2
fi

SELF=("$GD" check --json)
PEER=("$BENCH_PY" -m torch.utils.collect_env)
SELF_CMD="${SELF[*]}"   # as hyperfine splits it: a BUILD_DIR with spaces is not supported
PEER_CMD="${PEER[*]}"
mkdir -p "$OUT"

# Both commands must do their real work before they are timed: gpudoctor exits 0 or 1 (1 =
# an error finding, e.g. no driver here) with a JSON report; collect_env exits 0.
set +e
"${SELF[@]}" >"$OUT/gpudoctor.json" 2>"$OUT/gpudoctor.stderr"
rc=$?
set -e
if [ $rc -gt 1 ] || ! "$BENCH_PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT/gpudoctor.json"; then
  echo "bench: '$SELF_CMD' failed (exit $rc) or printed no JSON; see $OUT/gpudoctor.stderr" >&2
  exit 2
fi
if ! "${PEER[@]}" >"$OUT/collect_env.txt" 2>"$OUT/collect_env.stderr"; then
  echo "bench: '$PEER_CMD' failed; see $OUT/collect_env.stderr" >&2
  exit 2
fi

machine_info "$OUT/machine.txt"

# One hyperfine run, both commands, no intermediate shell (-N). hyperfine's default time
# budget (3 s per command, at least --min-runs) gives gpudoctor hundreds of runs and
# collect_env MIN_RUNS. -i because gpudoctor's exit 1 is a valid answer; the exit codes
# of every run are checked afterwards by summarize.py.
HF=(hyperfine -N -i --warmup "$WARMUP" --min-runs "$MIN_RUNS"
  --export-json "$OUT/hyperfine.json" --export-markdown "$OUT/hyperfine.md"
  -n gpudoctor "$SELF_CMD" -n collect_env "$PEER_CMD")
"${HF[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

echo "bench: max RSS (GNU time %M), $RSS_RUNS runs of gpudoctor, $(((RSS_RUNS + 2) / 3)) of collect_env"
max_rss_kib "$RSS_RUNS" "$OUT/rss.gpudoctor" "${SELF[@]}"
max_rss_kib $(((RSS_RUNS + 2) / 3)) "$OUT/rss.collect_env" "${PEER[@]}"

counter=$(instructions_counter)
self_instr=0 peer_instr=0
if [ "$counter" != none ]; then
  echo "bench: instructions ($counter), gpudoctor"
  self_instr=$(count_instructions "$counter" "$OUT/instr.gpudoctor" "${SELF[@]}")
  if [ "${BENCH_INSTR_PEER:-1}" != 0 ]; then
    echo "bench: instructions ($counter), collect_env (and every process it starts)"
    peer_instr=$(count_instructions "$counter" "$OUT/instr.collect_env" "${PEER[@]}")
  fi
else
  echo "bench: no instruction counter (perf cannot read it, valgrind absent); skipped"
fi

set +e
"$BENCH_PY" "$BENCH_DIR/summarize.py" \
  --title "gpudoctor check vs torch collect_env" \
  --hyperfine "$OUT/hyperfine.json" \
  --hyperfine-cmd "hyperfine -N -i --warmup $WARMUP --min-runs $MIN_RUNS --export-json bench/out/collect_env/hyperfine.json -n gpudoctor '$SELF_CMD' -n collect_env '$PEER_CMD'" \
  --cmd gpudoctor "$SELF_CMD" --cmd collect_env "$PEER_CMD" \
  --ok-exit gpudoctor 0,1 --ok-exit collect_env 0 \
  --rss gpudoctor "$OUT/rss.gpudoctor" --rss collect_env "$OUT/rss.collect_env" \
  --instr gpudoctor "$self_instr" --instr collect_env "$peer_instr" --counter "$counter" \
  --ratio gpudoctor collect_env "$MAX_RATIO" --max-rss gpudoctor "$MAX_RSS_KIB" \
  --machine "$OUT/machine.txt" \
  --markdown "$OUT/section.md"
rc=$?
set -e
echo "bench: raw data in $OUT; RESULTS.md section draft: $OUT/section.md"
exit $rc
