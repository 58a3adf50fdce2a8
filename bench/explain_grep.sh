#!/usr/bin/env bash
# Benchmark (issue 7): `gpudoctor explain --no-probe LOG` against `grep -E -c -f PATTERNS LOG`
# with the same patterns (the signatures of data/kb/explain_signatures.json as POSIX EREs), in
# one hyperfine run, on a synthetic log of healthy and failed GPU training runs written by
# bench/explain_log.py (1 GiB by default, into /tmp: never into the repository).
# Targets: gpudoctor's mean wall time at most grep's (ratio <= 1), its throughput (log bytes /
# mean time) at least 500 MB/s, and its max RSS under 32 MiB whatever the log's size.
#
# Before timing anything it checks that both do the same work: the number of lines gpudoctor
# matched (its JSON's input.channels[0].matched_lines) must equal grep -c's count, and
# gpudoctor must report no pattern that hit a match limit.
#
# Usage: bench/explain_grep.sh BUILD_DIR
# Knobs (environment): BENCH_EXPLAIN_MIB (1024: the log's size), BENCH_EXPLAIN_LOG
# (/tmp/gpudoctor-bench-explain-<MIB>.log; rewritten when its size is not that), BENCH_WARMUP
# (2), BENCH_MIN_RUNS (10), BENCH_RSS_RUNS (3), BENCH_INSTR=0 skips the instruction counts
# (callgrind on a 16 MiB piece of the log: about a minute).
# Exit: 0 targets met, 1 a target missed, 2 missing prerequisite or a command misbehaved.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: bench/explain_grep.sh BUILD_DIR}
GD=$BUILD/gpudoctor
MAX_RATIO_GREP=1.0
MIN_MBS=500
MAX_RSS_KIB=$((32 * 1024))
MIB=${BENCH_EXPLAIN_MIB:-1024}
LOG=${BENCH_EXPLAIN_LOG:-/tmp/gpudoctor-bench-explain-$MIB.log}
WARMUP=${BENCH_WARMUP:-2}
MIN_RUNS=${BENCH_MIN_RUNS:-10}
RSS_RUNS=${BENCH_RSS_RUNS:-3}
OUT=$BENCH_OUT/explain_grep
SIGS=$BENCH_DIR/../data/kb/explain_signatures.json

need_cmd hyperfine hyperfine
need_cmd grep grep
need_gnu_time
[ -x "$BENCH_PY" ] || { bench_missing="$bench_missing $BENCH_PY" && bench_hint="$bench_hint python3"; }
check_prereqs
if ! [ -x "$GD" ]; then
  echo "bench: $GD not found: build first (make build, or make bench)" >&2
  exit 2
fi
rm -rf "$OUT" && mkdir -p "$OUT"

# The log: written once per size, kept in /tmp for the next run.
if ! [ -f "$LOG" ] || [ "$(stat -c %s "$LOG")" != $((MIB * 1024 * 1024)) ]; then
  echo "bench: writing a $MIB MiB synthetic log to $LOG"
  "$BENCH_PY" "$BENCH_DIR/explain_log.py" "$LOG" "$MIB" "$SIGS"
fi
BYTES=$(stat -c %s "$LOG")

# The signatures as EREs: named and non-capturing groups made plain (the table keeps to the
# PCRE2 subset where that is the only difference; tests/unit/test_explain.c checks it), \r and
# \n in brackets as the bytes (grep sees one line at a time, without its '\n'), \" as ".
"$BENCH_PY" - "$SIGS" "$OUT/patterns.ere" <<'EOF'
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
with open(sys.argv[2], "w", newline="") as f:
    for r in rows:
        p = re.sub(r"\(\?<[A-Za-z_][A-Za-z0-9_]*>", "(", r["pattern"]).replace("(?:", "(")
        p = p.replace("\\r", "\r").replace("\\n", "").replace('\\"', '"')
        f.write(p + "\n")
EOF
set +e
LC_ALL=C grep -E -f "$OUT/patterns.ere" /dev/null 2>"$OUT/grep-patterns.stderr"
rc_check=$?
set -e
if [ $rc_check -gt 1 ] || [ -s "$OUT/grep-patterns.stderr" ]; then
  echo "bench: grep refuses or warns about the patterns: $(cat "$OUT/grep-patterns.stderr")" >&2
  exit 2
fi
npatterns=$(wc -l <"$OUT/patterns.ere")

GDX=("$GD" explain --no-probe "$LOG")
GREP=(grep -E -c -f "$OUT/patterns.ere" "$LOG")
GDX_CMD="${GDX[*]}" GREP_CMD="${GREP[*]}"

# Same work: the lines matched.
set +e
"$GD" explain --no-probe --json -o "$OUT/gpudoctor.json" "$LOG" 2>"$OUT/gpudoctor.stderr"
rc_gd=$?
LC_ALL=C "${GREP[@]}" >"$OUT/grep.count" 2>"$OUT/grep.stderr"
rc_grep=$?
set -e
if [ $rc_gd -gt 1 ] || [ $rc_grep -gt 1 ]; then
  echo "bench: gpudoctor exited $rc_gd, grep $rc_grep; see $OUT/*.stderr" >&2
  exit 2
fi
read -r gd_lines gd_errors gd_causes < <("$BENCH_PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["input"]["channels"][0]["matched_lines"], d["input"]["match_errors"], len(d["causes"]))
' "$OUT/gpudoctor.json")
grep_lines=$(cat "$OUT/grep.count")
if [ "$gd_lines" != "$grep_lines" ] || [ "$gd_errors" != 0 ]; then
  echo "bench: gpudoctor matched $gd_lines lines ($gd_errors match errors), grep $grep_lines: not the same work" >&2
  exit 2
fi
echo "bench: $LOG: $BYTES bytes; $npatterns patterns; both match $grep_lines lines ($gd_causes causes)"

machine_info "$OUT/machine.txt"
{
  echo "log: $LOG ($BYTES bytes, bench/explain_log.py)"
  echo "grep: $(grep --version | head -n1)"
} >>"$OUT/machine.txt"

# One hyperfine run, both commands, no intermediate shell. The output goes to a pipe, not to
# /dev/null: GNU grep stops at the first match when its output is /dev/null (it has nothing to
# print that anyone reads), which is not the work compared here. LC_ALL=C for both: grep's
# fastest locale (bytes, as gpudoctor reads them).
HF=(hyperfine -N -i --warmup "$WARMUP" --min-runs "$MIN_RUNS" --output=pipe
  --export-json "$OUT/hyperfine.json" --export-markdown "$OUT/hyperfine.md"
  -n gpudoctor_explain "$GDX_CMD" -n grep_E_c "$GREP_CMD")
LC_ALL=C "${HF[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

# Max RSS as lib.sh's max_rss_kib measures it, but with the output in a file (not /dev/null:
# see above).
rss_to_file() {
  local n=$1 file=$2 i
  shift 2
  : >"$file"
  for ((i = 0; i < n; i++)); do
    LC_ALL=C /usr/bin/time -q -f %M -o "$file.one" "$@" >"$OUT/rss.stdout" 2>&1 || true
    tail -n1 "$file.one" >>"$file"
  done
  rm -f "$file.one" "$OUT/rss.stdout"
}
echo "bench: max RSS (GNU time %M), $RSS_RUNS runs of each"
rss_to_file "$RSS_RUNS" "$OUT/rss.gpudoctor_explain" "${GDX[@]}"
rss_to_file "$RSS_RUNS" "$OUT/rss.grep_E_c" "${GREP[@]}"

# Instructions on a 16 MiB piece (callgrind runs 50 times slower than the program).
counter=none
i_gd=0 i_grep=0
if [ "${BENCH_INSTR:-1}" != 0 ]; then
  counter=$(instructions_counter)
fi
if [ "$counter" != none ]; then
  head -c $((16 * 1024 * 1024)) "$LOG" >"$OUT/piece.log"
  echo "bench: instructions ($counter) on a 16 MiB piece of the log"
  # count_instructions sends the output to /dev/null: grep writes to a file here (see above).
  i_gd=$(LC_ALL=C count_instructions "$counter" "$OUT/instr.gpudoctor_explain" \
    "$GD" explain --no-probe -o "$OUT/piece.explain" "$OUT/piece.log")
  i_grep=$(LC_ALL=C count_instructions "$counter" "$OUT/instr.grep_E_c" \
    sh -c 'grep -E -c -f "$1" "$2" >"$3"' sh "$OUT/patterns.ere" "$OUT/piece.log" "$OUT/piece.count")
  rm -f "$OUT/piece.explain" "$OUT/piece.count"
  rm -f "$OUT/piece.log"
fi

set +e
"$BENCH_PY" "$BENCH_DIR/summarize.py" \
  --title "gpudoctor explain vs grep -E -c ($((BYTES / 1048576)) MiB log, $npatterns patterns)" \
  --hyperfine "$OUT/hyperfine.json" \
  --hyperfine-cmd "LC_ALL=C hyperfine -N -i --warmup $WARMUP --min-runs $MIN_RUNS --output=pipe --export-json bench/out/explain_grep/hyperfine.json -n gpudoctor_explain '$GDX_CMD' -n grep_E_c '$GREP_CMD'" \
  --cmd gpudoctor_explain "$GDX_CMD" --cmd grep_E_c "$GREP_CMD" \
  --ok-exit gpudoctor_explain 0,1 \
  --rss gpudoctor_explain "$OUT/rss.gpudoctor_explain" --rss grep_E_c "$OUT/rss.grep_E_c" \
  --instr gpudoctor_explain "$i_gd" --instr grep_E_c "$i_grep" --counter "$counter" \
  --ratio gpudoctor_explain grep_E_c "$MAX_RATIO_GREP" \
  --throughput gpudoctor_explain "$BYTES" "$MIN_MBS" --throughput grep_E_c "$BYTES" \
  --max-rss gpudoctor_explain "$MAX_RSS_KIB" \
  --machine "$OUT/machine.txt" \
  --markdown "$OUT/section.md"
rc=$?
set -e
echo "bench: raw data in $OUT; RESULTS.md section draft: $OUT/section.md"
exit $rc
