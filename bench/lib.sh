# shellcheck shell=bash
# Helpers shared by the benchmarks under bench/ (sourced by bash scripts, not run).
# Every benchmark runs gpudoctor and its peer side by side in one run, writes its raw data
# under bench/out/ (gitignored) and exits 0 when the target is met, 1 when it is missed,
# 2 when a prerequisite is missing or a command misbehaves.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_OUT=${BENCH_OUT:-$BENCH_DIR/out}
BENCH_PY=/usr/bin/python3   # Debian's python: a pyenv python3 may come first on PATH

bench_missing=""
bench_hint=""

# need_cmd COMMAND DEBIAN_PACKAGE: record a missing prerequisite.
need_cmd() {
  if ! command -v "$1" >/dev/null 2>&1; then
    bench_missing="$bench_missing $1"
    bench_hint="$bench_hint $2"
  fi
}

# need_gnu_time: /usr/bin/time must be GNU time (it reports max RSS with -f %M).
need_gnu_time() {
  if ! [ -x /usr/bin/time ] || ! /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    bench_missing="$bench_missing /usr/bin/time(GNU)"
    bench_hint="$bench_hint time"
  fi
}

# need_python_module MODULE DEBIAN_PACKAGE: $BENCH_PY must import MODULE.
need_python_module() {
  if ! [ -x "$BENCH_PY" ] || ! "$BENCH_PY" -c "import $1" >/dev/null 2>&1; then
    bench_missing="$bench_missing $BENCH_PY:$1"
    bench_hint="$bench_hint $2"
  fi
}

# check_prereqs: exit 2 with what to install when anything recorded above is missing.
check_prereqs() {
  if [ -n "$bench_missing" ]; then
    echo "bench: missing:$bench_missing" >&2
    echo "bench: install the Debian packages:$bench_hint" >&2
    echo "bench:   sudo apt-get install$bench_hint   (or: make bench, which installs them)" >&2
    exit 2
  fi
}

# machine_info FILE: the machine the numbers were measured on, as key: value lines.
machine_info() {
  {
    echo "date: $(date -u +%Y-%m-%d) ($(date -u +%H:%M) UTC)"
    echo "nproc: $(nproc)"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
    echo "kernel: $(uname -sr)"
    echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
    echo "memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "hyperfine: $(hyperfine --version 2>/dev/null | cut -d' ' -f2)"
  } >"$1"
}

# max_rss_kib N FILE COMMAND...: run COMMAND N times under GNU time, write one max-RSS (KiB)
# per line to FILE. GNU time reads ru_maxrss from wait4(): the largest resident set of the
# command or of any descendant it waited for (not their sum).
max_rss_kib() {
  local n=$1 file=$2 i
  shift 2
  : >"$file"
  for ((i = 0; i < n; i++)); do
    /usr/bin/time -q -f %M -o "$file.one" "$@" >/dev/null 2>&1 || true
    tail -n1 "$file.one" >>"$file"
  done
  rm -f "$file.one"
}

# instructions_counter: "perf" when the CPU counter is readable, else "callgrind" when
# valgrind is installed, else "none".
instructions_counter() {
  if command -v perf >/dev/null 2>&1 &&
    perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -q '^[0-9]'; then
    echo perf
  elif command -v valgrind >/dev/null 2>&1; then
    echo callgrind
  else
    echo none
  fi
}

# count_instructions COUNTER DIR COMMAND...: user-space instructions executed by COMMAND and
# every process it starts; prints the total. Output files go to DIR.
count_instructions() {
  local counter=$1 dir=$2
  shift 2
  rm -rf "$dir" && mkdir -p "$dir"
  case $counter in
  perf)
    perf stat -x, -o "$dir/perf.csv" -e instructions:u "$@" >/dev/null 2>&1 || true
    awk -F, '$3 ~ /^instructions/ {print $1}' "$dir/perf.csv"
    ;;
  callgrind)
    # A forked child starts with its parent's counts: dumping them before every fork (glibc's
    # _Fork, __libc_fork before 2.34) zeroes the counters, so each instruction is counted once
    # however often a shell forks subshells. The parts go to callgrind.out.PID.N files.
    valgrind --tool=callgrind --trace-children=yes --log-file="$dir/log.%p" \
      --dump-before=_Fork --dump-before=__libc_fork \
      --callgrind-out-file="$dir/callgrind.out.%p" "$@" >/dev/null 2>&1 || true
    # Each process writes its own files; their "totals:" lines add up to its count.
    cat "$dir"/callgrind.out.* | awk '/^totals:/ {s += $2} END {printf "%.0f\n", s}'
    ;;
  *) echo 0 ;;
  esac
}
