#!/usr/bin/env bash
# Runs the side-by-side benchmarks (see bench/README.md); `make bench` calls it.
# Usage: bench/run.sh BUILD_DIR [BENCHMARK...]   (default: all of them, in order)
# Exit: 0 when every benchmark met its target, otherwise the worst status (1 target missed,
# 2 missing prerequisite or failed command).
set -uo pipefail

BENCHMARKS=(collect_env which_tree frameworks explain_grep)   # later issues add theirs: bench/NAME.sh BUILD_DIR

BUILD=${1:?usage: bench/run.sh BUILD_DIR [BENCHMARK...]}
shift
BUILD=$(cd "$BUILD" && pwd) || exit 2
ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$ROOT" || exit 2
case $BUILD in "$ROOT"/*) BUILD=${BUILD#"$ROOT"/} ;; esac   # shorter command lines
[ $# -gt 0 ] && BENCHMARKS=("$@")

worst=0
for b in "${BENCHMARKS[@]}"; do
  if ! [ -x "bench/$b.sh" ]; then
    echo "bench: no benchmark named '$b' (bench/$b.sh)" >&2
    worst=2
    continue
  fi
  echo "=== bench: $b"
  bench/"$b".sh "$BUILD"
  rc=$?
  case $rc in
  0) echo "=== bench: $b: target met" ;;
  1) echo "=== bench: $b: TARGET MISSED" ;;
  *) echo "=== bench: $b: could not run (exit $rc)" ;;
  esac
  [ $rc -gt $worst ] && worst=$rc
done
exit $worst
