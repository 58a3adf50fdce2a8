#!/usr/bin/env bash
# Benchmark (issue 3): `gpudoctor which --tree ELF`, the dependency tree emulated from the
# files (nothing is loaded), against `libtree ELF` (Debian's libtree) and `ldd ELF` (glibc's
# loader in trace mode), in one hyperfine run, on Debian torch's _C extension (about 290
# libraries). `gpudoctor which --ldd ELF` runs in the same hyperfine run, as information.
# Targets: gpudoctor's mean wall time at most 1/2 of libtree's and at most 1/4 of ldd's.
#
# Before timing anything it checks that the comparison is fair: `gpudoctor which --ldd`
# must print exactly ldd's lines (load addresses and the linux-vdso line removed), i.e. both
# resolve the same libraries to the same paths.
#
# Usage: bench/which_tree.sh BUILD_DIR
# Knobs (environment): BENCH_TREE_ELF (default: /usr/lib/python3/dist-packages/torch/
# _C.cpython-*.so), BENCH_WARMUP (10), BENCH_MIN_RUNS (100), BENCH_RSS_RUNS (10),
# BENCH_INSTR=0 skips the instruction counts (callgrind: about half a minute in all;
# ldd's count adds `ld.so --list ELF`, see below).
# Exit: 0 targets met, 1 a target missed, 2 missing prerequisite or a command misbehaved.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: bench/which_tree.sh BUILD_DIR}
GD=$BUILD/gpudoctor
MAX_RATIO_LIBTREE=0.5
MAX_RATIO_LDD=0.25
WARMUP=${BENCH_WARMUP:-10}
MIN_RUNS=${BENCH_MIN_RUNS:-100}
RSS_RUNS=${BENCH_RSS_RUNS:-10}
OUT=$BENCH_OUT/which_tree

ELF=${BENCH_TREE_ELF:-}
if [ -z "$ELF" ]; then
  for f in /usr/lib/python3/dist-packages/torch/_C.cpython-*.so; do
    [ -f "$f" ] && ELF=$f && break
  done
fi

need_cmd hyperfine hyperfine
need_cmd libtree libtree
need_cmd ldd libc-bin
need_gnu_time
if [ -z "$ELF" ] || ! [ -f "$ELF" ]; then
  bench_missing="$bench_missing ${BENCH_TREE_ELF:-/usr/lib/python3/dist-packages/torch/_C.cpython-*.so}"
  bench_hint="$bench_hint python3-torch"
fi
check_prereqs
if ! [ -x "$GD" ]; then
  echo "bench: $GD not found: build first (make build, or make bench)" >&2
  exit 2
fi

TREE=("$GD" which --tree "$ELF")
LIBTREE=(libtree "$ELF")
LDD=(ldd "$ELF")
GDLDD=("$GD" which --ldd "$ELF")
# As hyperfine splits them: a BUILD_DIR or ELF path with spaces is not supported.
TREE_CMD="${TREE[*]}" LIBTREE_CMD="${LIBTREE[*]}" LDD_CMD="${LDD[*]}" GDLDD_CMD="${GDLDD[*]}"
rm -rf "$OUT" && mkdir -p "$OUT"

# Fairness first: gpudoctor's emulation must find what glibc's loader finds. ldd's lines,
# without the load addresses and the vdso (not a file), against `gpudoctor which --ldd`.
if ! "${LDD[@]}" >"$OUT/ldd.txt" 2>"$OUT/ldd.stderr"; then
  echo "bench: '$LDD_CMD' failed; see $OUT/ldd.stderr" >&2
  exit 2
fi
grep -v 'linux-vdso\.so' "$OUT/ldd.txt" | sed -E 's/ \(0x[0-9a-f]+\)$//' >"$OUT/ldd.expected"
set +e
"${GDLDD[@]}" >"$OUT/gpudoctor_ldd.txt" 2>"$OUT/gpudoctor_ldd.stderr"
rc_gdldd=$?
"${TREE[@]}" >"$OUT/gpudoctor_tree.txt" 2>"$OUT/gpudoctor_tree.stderr"
rc_tree=$?
"${LIBTREE[@]}" >"$OUT/libtree.txt" 2>"$OUT/libtree.stderr"
rc_libtree=$?
set -e
if ! diff -u "$OUT/ldd.expected" "$OUT/gpudoctor_ldd.txt" >"$OUT/ldd.diff"; then
  echo "bench: '$GDLDD_CMD' differs from ldd's lines (see $OUT/ldd.diff): not the same work" >&2
  exit 2
fi
if grep -q 'not found' "$OUT/ldd.expected"; then
  echo "bench: ldd reports missing libraries for $ELF: choose a file whose tree resolves" >&2
  exit 2
fi
for pair in "gpudoctor_ldd:$rc_gdldd" "gpudoctor_tree:$rc_tree" "libtree:$rc_libtree"; do
  if [ "${pair#*:}" != 0 ]; then
    echo "bench: ${pair%%:*} exited ${pair#*:}; see $OUT/${pair%%:*}.stderr" >&2
    exit 2
  fi
done
nlibs=$(wc -l <"$OUT/ldd.expected")
echo "bench: $ELF: $nlibs libraries; gpudoctor which --ldd prints exactly ldd's lines"
echo "bench: gpudoctor which --tree: $(tail -n1 "$OUT/gpudoctor_tree.txt")"

machine_info "$OUT/machine.txt"
{
  echo "elf: $ELF"
  echo "libraries: $nlibs"
  echo "libtree: $(libtree --version 2>/dev/null | head -n1)"
  echo "glibc: $(ldd --version 2>/dev/null | head -n1)"
} >>"$OUT/machine.txt"

# One hyperfine run, all four commands, no intermediate shell (-N; ldd is a bash script and
# starts bash itself), output to /dev/null (hyperfine's default). hyperfine's default time
# budget (3 s per command, at least MIN_RUNS) gives each several hundred runs.
HF=(hyperfine -N -i --warmup "$WARMUP" --min-runs "$MIN_RUNS" --output=null
  --export-json "$OUT/hyperfine.json" --export-markdown "$OUT/hyperfine.md"
  -n gpudoctor_tree "$TREE_CMD" -n libtree "$LIBTREE_CMD" -n ldd "$LDD_CMD"
  -n gpudoctor_ldd "$GDLDD_CMD")
"${HF[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

echo "bench: max RSS (GNU time %M), $RSS_RUNS runs of each"
max_rss_kib "$RSS_RUNS" "$OUT/rss.gpudoctor_tree" "${TREE[@]}"
max_rss_kib "$RSS_RUNS" "$OUT/rss.libtree" "${LIBTREE[@]}"
max_rss_kib "$RSS_RUNS" "$OUT/rss.ldd" "${LDD[@]}"
max_rss_kib "$RSS_RUNS" "$OUT/rss.gpudoctor_ldd" "${GDLDD[@]}"

counter=none
i_tree=0 i_libtree=0 i_ldd=0 i_gdldd=0
if [ "${BENCH_INSTR:-1}" != 0 ]; then
  counter=$(instructions_counter)
fi
if [ "$counter" != none ]; then
  echo "bench: instructions ($counter), each command and every process it starts"
  i_tree=$(count_instructions "$counter" "$OUT/instr.gpudoctor_tree" "${TREE[@]}")
  i_libtree=$(count_instructions "$counter" "$OUT/instr.libtree" "${LIBTREE[@]}")
  i_ldd=$(count_instructions "$counter" "$OUT/instr.ldd" "${LDD[@]}")
  if [ "$counter" = callgrind ]; then
    # ldd's last step, `LD_TRACE_LOADED_OBJECTS=1 ld.so ELF`, escapes valgrind: the variable
    # reaches valgrind's own (dynamic) launcher when it follows the exec, which then lists its
    # own libraries and exits. ld.so --list ELF does that step's work (the same lines); its
    # count is added. The loader is found as ldd finds it (RTLDLIST, --verify 0 or 2).
    rtld=""
    for r in $(sed -n 's/^RTLDLIST=//p' "$(command -v ldd)" | tr -d '"'); do
      [ -x "$r" ] || continue
      set +e
      "$r" --verify "$ELF" >/dev/null 2>&1
      v=$?
      set -e
      if [ $v = 0 ] || [ $v = 2 ]; then rtld=$r && break; fi
    done
    if [ -n "$rtld" ]; then
      i_ldd=$((i_ldd + $(count_instructions "$counter" "$OUT/instr.ldd-trace" "$rtld" --list "$ELF")))
    else
      echo "bench: no loader in ldd's RTLDLIST verifies $ELF; ldd's count misses its trace" >&2
    fi
  fi
  i_gdldd=$(count_instructions "$counter" "$OUT/instr.gpudoctor_ldd" "${GDLDD[@]}")
  if [ "$counter" = callgrind ] && command -v callgrind_annotate >/dev/null 2>&1; then
    # Where gpudoctor's instructions go (inclusive), for the profile notes.
    cg=("$OUT"/instr.gpudoctor_tree/callgrind.out.*)   # one process, one file: no fork
    callgrind_annotate --inclusive=yes "${cg[0]}" \
      >"$OUT/instr.gpudoctor_tree/annotate.txt" 2>/dev/null || true
  fi
fi

set +e
"$BENCH_PY" "$BENCH_DIR/summarize.py" \
  --title "gpudoctor which --tree vs libtree and ldd ($nlibs libraries)" \
  --hyperfine "$OUT/hyperfine.json" \
  --hyperfine-cmd "hyperfine -N -i --warmup $WARMUP --min-runs $MIN_RUNS --output=null --export-json bench/out/which_tree/hyperfine.json -n gpudoctor_tree '$TREE_CMD' -n libtree '$LIBTREE_CMD' -n ldd '$LDD_CMD' -n gpudoctor_ldd '$GDLDD_CMD'" \
  --cmd gpudoctor_tree "$TREE_CMD" --cmd libtree "$LIBTREE_CMD" --cmd ldd "$LDD_CMD" \
  --cmd gpudoctor_ldd "$GDLDD_CMD" \
  --rss gpudoctor_tree "$OUT/rss.gpudoctor_tree" --rss libtree "$OUT/rss.libtree" \
  --rss ldd "$OUT/rss.ldd" --rss gpudoctor_ldd "$OUT/rss.gpudoctor_ldd" \
  --instr gpudoctor_tree "$i_tree" --instr libtree "$i_libtree" --instr ldd "$i_ldd" \
  --instr gpudoctor_ldd "$i_gdldd" --counter "$counter" \
  --ratio gpudoctor_tree libtree "$MAX_RATIO_LIBTREE" \
  --ratio gpudoctor_tree ldd "$MAX_RATIO_LDD" \
  --ratio gpudoctor_ldd ldd \
  --machine "$OUT/machine.txt" \
  --markdown "$OUT/section.md"
rc=$?
set -e
echo "bench: raw data in $OUT; RESULTS.md section draft: $OUT/section.md"
exit $rc
