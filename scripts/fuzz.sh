#!/bin/sh
# Runs every libFuzzer target of a GD_FUZZ build, one after another, each for SECONDS.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]      (make fuzz FUZZ_SECONDS=60)
#
# Each target fuzzes a working corpus, BUILD_DIR/fuzz-work/<target>/corpus, seeded from the
# checked-in fuzz/corpus/<target>/ (files already there are kept, so coverage grows from run to
# run). The checked-in corpus is never written, unless GD_FUZZ_MERGE=1: then the new inputs that
# add coverage are merged into it (libFuzzer -merge=1), for a reviewed commit.
#
# Exit status: 0 when no target failed; 1 when one crashed, leaked, broke an invariant, hit a
# sanitizer report, a timeout or the memory limit: the path of the input that did it is printed
# (BUILD_DIR/fuzz-work/<target>/crash-*, leak-*, timeout-*, oom-*) with the commands that
# reproduce and minimise it; 2 for usage errors.
set -u

usage() {
  echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
build=$1
seconds=$2
shift 2
case $seconds in '' | *[!0-9]*) usage ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/fuzz"
if [ $# -eq 0 ]; then
  for src in "$top"/fuzz/fuzz_*.c; do
    set -- "$@" "$(basename "$src" .c)"
  done
fi

failed=""
for target in "$@"; do
  exe="$bin/$target"
  seeds="$top/fuzz/corpus/$target"
  if [ ! -x "$exe" ]; then
    echo "fuzz: $exe not built (configure with CC=clang cmake -DGD_FUZZ=ON)" >&2
    failed="$failed $target"
    continue
  fi
  work="$build/fuzz-work/$target"
  mkdir -p "$work/corpus"
  # Absolute, because libFuzzer writes artifacts relative to its working directory.
  work=$(cd "$work" && pwd)
  [ -d "$seeds" ] && cp -n "$seeds"/* "$work/corpus/" 2>/dev/null
  # Earlier findings are kept, but out of this run's verdict.
  for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
    [ -f "$a" ] && mkdir -p "$work/earlier" && mv "$a" "$work/earlier/"
  done
  log="$work/fuzz.log"

  echo "fuzz: $target for ${seconds}s"
  # -timeout: every parser is linear; seconds on one input is a hang. -print_final_stats gives
  # the number of executions reported below.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" >"$log" 2>&1
  rc=$?

  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -E '^#[0-9]+.*(DONE|INITED)' "$log" | tail -n 1 | sed 's/^.*cov: \([0-9]*\).*$/\1/')
  units=$(find "$work/corpus" -type f | wc -l)
  echo "fuzz: $target: exit $rc, ${execs:-?} executions, coverage ${cov:-?}, corpus $units inputs"

  artifacts=$(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null)
  if [ $rc -ne 0 ] || [ -n "$artifacts" ]; then
    failed="$failed $target"
    echo "fuzz: $target FAILED; log: $log" >&2
    grep -E 'ERROR: |SUMMARY: |invariant failed|runtime error' "$log" | head -n 5 >&2
    for a in $artifacts; do
      echo "fuzz: failing input: $a" >&2
      echo "  reproduce: $exe $a" >&2
      echo "  minimise:  $exe -minimize_crash=1 -runs=100000 -artifact_prefix=$work/min- $a" >&2
    done
    [ -n "$artifacts" ] || tail -n 20 "$log" >&2
    continue
  fi

  if [ "${GD_FUZZ_MERGE:-0}" = 1 ]; then
    mkdir -p "$seeds"
    "$exe" -merge=1 "$seeds" "$work/corpus" >>"$log" 2>&1 &&
      echo "fuzz: $target: merged new coverage into $seeds"
  fi
done

if [ -n "$failed" ]; then
  echo "fuzz: failed:$failed" >&2
  exit 1
fi
echo "fuzz: all targets ran clean"
