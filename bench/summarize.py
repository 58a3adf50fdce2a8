#!/usr/bin/python3
"""Summarizes one side-by-side benchmark: gpudoctor's command(s) against their peers.

Reads hyperfine's --export-json (every command measured in the same run), the max-RSS
samples of each command (KiB, one per line) and the instruction counts; prints a summary,
writes a Markdown section (the draft of the benchmark's section in bench/RESULTS.md) and
exits 0 when the targets are met, 1 when one is missed, 2 when a command failed.

Commands are named as in hyperfine (-n NAME) and given in table order with --cmd. Targets:
--ratio NUM DEN MAX (NUM's mean time / DEN's at most MAX; without MAX the ratio is shown as
information), --max-rss NAME KIB (NAME's largest max RSS below KIB) and --throughput NAME
BYTES [MIN_MBS] (BYTES read by each run of NAME, per mean time, at least MIN_MBS MB/s; without
MIN_MBS shown as information).
"""
import argparse
import json
import math
import sys


def fmt_time(s, unit_of=None):
    """Seconds as "4.58 ms" or "1.613 s"; with unit_of, in the unit fmt_time(unit_of) uses."""
    ref = s if unit_of is None else unit_of
    return f"{s * 1e3:.2f} ms" if ref < 1 else f"{s:.3f} s"


def fmt_pm(r):
    """hyperfine result's mean ± standard deviation, both in the mean's unit."""
    return f"{fmt_time(r['mean'])} ± {fmt_time(r['stddev'], r['mean'])}"


def eq_frac(x):
    """" = 1/352" or " = 1/2.99" for a ratio below 1; "" otherwise (1.07 says it already)."""
    if x >= 1 or x <= 0:
        return ""
    return f" = 1/{1 / x:.0f}" if 1 / x >= 10 else f" = 1/{1 / x:.2f}"


def read_kib(path):
    with open(path) as f:
        return [int(line) for line in f if line.strip().isdigit()]


def mib(k):
    return f"{k / 1024:.1f} MiB ({k} KiB)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--hyperfine", required=True)
    ap.add_argument("--hyperfine-cmd", required=True)
    ap.add_argument("--cmd", nargs=2, action="append", required=True, metavar=("NAME", "COMMAND"))
    ap.add_argument("--ok-exit", nargs=2, action="append", default=[], metavar=("NAME", "CODES"),
                    help="comma-separated exit codes that are valid (default 0)")
    ap.add_argument("--rss", nargs=2, action="append", default=[], metavar=("NAME", "FILE"))
    ap.add_argument("--instr", nargs=2, action="append", default=[], metavar=("NAME", "COUNT"))
    ap.add_argument("--counter", default="none")
    ap.add_argument("--ratio", nargs="+", action="append", default=[],
                    metavar="NUM DEN [MAX]", help="time ratio NUM/DEN, a target when MAX is given")
    ap.add_argument("--max-rss", nargs=2, action="append", default=[], metavar=("NAME", "KIB"))
    ap.add_argument("--throughput", nargs="+", action="append", default=[],
                    metavar="NAME BYTES [MIN_MBS]",
                    help="BYTES / mean time of NAME in MB/s (10^6), a target with MIN_MBS")
    ap.add_argument("--machine", required=True)
    ap.add_argument("--markdown", required=True)
    a = ap.parse_args()

    names = [n for n, _ in a.cmd]
    cmds = dict(a.cmd)
    with open(a.hyperfine) as f:
        results = {r["command"]: r for r in json.load(f)["results"]}
    missing = [n for n in names if n not in results]
    if missing:
        print(f"bench: not in {a.hyperfine}: {', '.join(missing)}", file=sys.stderr)
        return 2

    ok_exit = {n: {int(x) for x in c.split(",")} for n, c in a.ok_exit}
    bad = []
    for n in names:
        codes = results[n].get("exit_codes", [])
        allowed = ok_exit.get(n, {0})
        wrong = sorted({c for c in codes if c is not None and c not in allowed})
        if wrong or any(c is None for c in codes):
            bad.append(f"{n}: unexpected exit status {wrong or 'signal'}")
    if bad:
        for b in bad:
            print("bench: " + b, file=sys.stderr)
        return 2

    rss = {}
    for n, path in a.rss:
        samples = read_kib(path)
        if not samples:
            print(f"bench: no max-RSS sample was recorded for {n}", file=sys.stderr)
            return 2
        rss[n] = (max(samples), len(samples))
    instr = {n: int(c) for n, c in a.instr if int(c) > 0}

    ratios = []  # (num, den, ratio, sd, median ratio, instr ratio or None, max or None, ok)
    for spec in a.ratio:
        if len(spec) not in (2, 3) or spec[0] not in results or spec[1] not in results:
            print(f"bench: bad --ratio {' '.join(spec)}", file=sys.stderr)
            return 2
        s, p = results[spec[0]], results[spec[1]]
        r = s["mean"] / p["mean"]
        # Relative uncertainty of a quotient: the relative ones added in quadrature.
        sd = r * math.hypot(s["stddev"] / s["mean"], p["stddev"] / p["mean"])
        ir = instr[spec[0]] / instr[spec[1]] if spec[0] in instr and spec[1] in instr else None
        mx = float(spec[2]) if len(spec) == 3 else None
        ratios.append((spec[0], spec[1], r, sd, s["median"] / p["median"], ir, mx,
                       mx is None or r <= mx))
    rss_targets = []
    for n, kib in a.max_rss:
        if n not in rss:
            print(f"bench: --max-rss {n} without --rss {n}", file=sys.stderr)
            return 2
        rss_targets.append((n, int(kib), rss[n][0] < int(kib)))

    throughputs = []  # (name, MB/s of the mean, of the median, min or None, ok)
    for spec in a.throughput:
        if len(spec) not in (2, 3) or spec[0] not in results:
            print(f"bench: bad --throughput {' '.join(spec)}", file=sys.stderr)
            return 2
        r, nbytes = results[spec[0]], int(spec[1])
        mn = float(spec[2]) if len(spec) == 3 else None
        mbs = nbytes / r["mean"] / 1e6
        throughputs.append((spec[0], mbs, nbytes / r["median"] / 1e6, mn, mn is None or mbs >= mn))

    with open(a.machine) as f:
        machine = dict(line.rstrip("\n").split(": ", 1) for line in f if ": " in line)

    width = max(len(n) for n in names) + 1
    lines = [a.title]
    for n in names:
        r = results[n]
        lines.append(f"  {n:<{width}} {fmt_pm(r)} "
                     f"(median {fmt_time(r['median'])}, min {fmt_time(r['min'])}, "
                     f"max {fmt_time(r['max'])}, {len(r['times'])} runs)"
                     + (f"; max RSS {mib(rss[n][0])}" if n in rss else "")
                     + (f"; {instr[n]:,} instructions" if n in instr else ""))
    for num, den, r, sd, mr, ir, mx, ok in ratios:
        target = f"; target <= {mx:g}: {'met' if ok else 'MISSED'}" if mx is not None else ""
        itxt = f"; instructions {ir:.3g}" if ir is not None else ""
        lines.append(f"  time ratio {num} / {den} = {r:.3g} ± {sd:.2g}{eq_frac(r)}"
                     f" (medians {mr:.3g}{itxt}){target}")
    for n, mbs, med, mn, ok in throughputs:
        target = f"; target >= {mn:g} MB/s: {'met' if ok else 'MISSED'}" if mn is not None else ""
        lines.append(f"  throughput {n} {mbs:.0f} MB/s (median {med:.0f} MB/s){target}")
    for n, kib, ok in rss_targets:
        lines.append(f"  max RSS {n} {mib(rss[n][0])}; target < {kib // 1024} MiB: "
                     f"{'met' if ok else 'MISSED'}")
    if a.counter != "none" and instr:
        lines.append(f"  (instructions: {a.counter}, every process the command starts)")
    print("\n".join(lines))

    md = [
        f"Measured {machine.get('date', '?')} on: {machine.get('nproc', '?')} cores (`nproc`), "
        f"{machine.get('cpu', '?')}, {machine.get('memory', '?')} RAM, {machine.get('kernel', '?')}, "
        f"{machine.get('os', '?')}; hyperfine {machine.get('hyperfine', '?')}; "
        f"load average (1, 5, 15 min) before the timed run: {machine.get('load average before', '?')}, "
        f"after: {machine.get('load average after', '?')}.",
        "",
        "```sh",
        a.hyperfine_cmd,
        "```",
        "",
        "| | " + " | ".join(names) + " |",
        "| --- |" + " ---: |" * len(names),
        "| command | " + " | ".join(f"`{cmds[n]}`" for n in names) + " |",
        "| runs | " + " | ".join(str(len(results[n]["times"])) for n in names) + " |",
        "| mean ± σ | " + " | ".join(fmt_pm(results[n]) for n in names) + " |",
        "| median | " + " | ".join(fmt_time(results[n]["median"]) for n in names) + " |",
        "| min … max | " + " | ".join(f"{fmt_time(results[n]['min'])} … "
                                     f"{fmt_time(results[n]['max'])}" for n in names) + " |",
        "| user / system (mean, with children) | "
        + " | ".join(f"{fmt_time(results[n]['user'], results[n]['mean'])} / "
                     f"{fmt_time(results[n]['system'], results[n]['mean'])}" for n in names) + " |",
    ]
    if rss:
        runs = " / ".join(str(rss[n][1]) for n in names if n in rss)
        md.append(f"| max RSS (largest of {runs} runs, GNU time `%M`) | "
                  + " | ".join(mib(rss[n][0]) if n in rss else "–" for n in names) + " |")
    if a.counter != "none" and instr:
        md.append(f"| instructions ({a.counter}, every process) | "
                  + " | ".join(f"{instr[n]:,}" if n in instr else "not counted" for n in names)
                  + " |")
    md.append("")
    for num, den, r, sd, mr, ir, mx, ok in ratios:
        itxt = f"; instructions: {ir:.3g}{eq_frac(ir)}" if ir is not None else ""
        target = (f" Target ≤ {mx:g}: **{'met' if ok else 'missed'}**." if mx is not None
                  else " (information)")
        md.append(f"- Time ratio {num} / {den} (means): **{r:.3g} ± {sd:.2g}{eq_frac(r)}**; "
                  f"medians: {mr:.3g}{itxt}.{target}")
    for n, mbs, med, mn, ok in throughputs:
        target = (f" Target ≥ {mn:g} MB/s: **{'met' if ok else 'missed'}**." if mn is not None
                  else " (information)")
        md.append(f"- Throughput of {n} (bytes / mean time): **{mbs:.0f} MB/s**; "
                  f"median: {med:.0f} MB/s.{target}")
    for n, kib, ok in rss_targets:
        md.append(f"- Max RSS of {n}: **{mib(rss[n][0])}**. Target < {kib // 1024} MiB: "
                  f"**{'met' if ok else 'missed'}**.")
    with open(a.markdown, "w") as f:
        f.write("\n".join(md) + "\n")
    met = (all(r[7] for r in ratios) and all(t[2] for t in rss_targets)
           and all(t[4] for t in throughputs))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
