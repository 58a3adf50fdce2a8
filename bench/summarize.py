#!/usr/bin/python3
"""Summarizes one side-by-side benchmark: gpudoctor ("self") against its peer.

Reads hyperfine's --export-json (both commands measured in the same run), the max-RSS
samples of each (KiB, one per line) and the instruction counts; prints a summary, writes a
Markdown section (the draft of the benchmark's section in bench/RESULTS.md) and exits
0 when the targets are met, 1 when one is missed, 2 when a command failed.
"""
import argparse
import json
import math
import sys


def fmt_time(s):
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.3f} s"


def read_kib(path):
    with open(path) as f:
        return [int(line) for line in f if line.strip().isdigit()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--hyperfine", required=True)
    ap.add_argument("--self-name", required=True)
    ap.add_argument("--peer-name", required=True)
    ap.add_argument("--self-cmd", required=True)
    ap.add_argument("--peer-cmd", required=True)
    ap.add_argument("--hyperfine-cmd", required=True)
    ap.add_argument("--self-ok-exit", default="0", help="comma-separated exit codes that are valid")
    ap.add_argument("--peer-ok-exit", default="0")
    ap.add_argument("--self-rss", required=True)
    ap.add_argument("--peer-rss", required=True)
    ap.add_argument("--self-instr", type=int, default=0)
    ap.add_argument("--peer-instr", type=int, default=0)
    ap.add_argument("--counter", default="none")
    ap.add_argument("--machine", required=True)
    ap.add_argument("--max-ratio", type=float, required=True, help="self mean / peer mean")
    ap.add_argument("--max-rss-kib", type=int, required=True, help="self max RSS must be below")
    ap.add_argument("--markdown", required=True)
    a = ap.parse_args()

    with open(a.hyperfine) as f:
        results = {r["command"]: r for r in json.load(f)["results"]}
    s, p = results[a.self_name], results[a.peer_name]

    bad = []
    for r, ok in ((s, a.self_ok_exit), (p, a.peer_ok_exit)):
        allowed = {int(x) for x in ok.split(",")}
        codes = sorted({c for c in r.get("exit_codes", []) if c is not None and c not in allowed})
        if codes or any(c is None for c in r.get("exit_codes", [])):
            bad.append(f"{r['command']}: unexpected exit status {codes or 'signal'}")
    if bad:
        for b in bad:
            print("bench: " + b, file=sys.stderr)
        return 2

    ratio = s["mean"] / p["mean"]
    # Relative uncertainty of a quotient: the relative ones added in quadrature.
    ratio_sd = ratio * math.hypot(s["stddev"] / s["mean"], p["stddev"] / p["mean"])
    median_ratio = s["median"] / p["median"]
    rss_s, rss_p = read_kib(a.self_rss), read_kib(a.peer_rss)
    if not rss_s or not rss_p:
        print("bench: no max-RSS sample was recorded", file=sys.stderr)
        return 2
    rss_self, rss_peer = max(rss_s), max(rss_p)

    time_ok = ratio <= a.max_ratio
    rss_ok = rss_self < a.max_rss_kib
    with open(a.machine) as f:
        machine = dict(line.rstrip("\n").split(": ", 1) for line in f if ": " in line)

    def times(r):
        return (f"{fmt_time(r['mean'])} ± {fmt_time(r['stddev'])} "
                f"(median {fmt_time(r['median'])}, min {fmt_time(r['min'])}, "
                f"max {fmt_time(r['max'])}, {len(r['times'])} runs)")

    mib = lambda k: f"{k / 1024:.1f} MiB ({k} KiB)"
    lines = [
        f"{a.title}",
        f"  {a.self_name:<12} {times(s)}",
        f"  {a.peer_name:<12} {times(p)}",
        f"  time ratio   {a.self_name} / {a.peer_name} = {ratio:.5f} ± {ratio_sd:.5f}"
        f" = 1/{1 / ratio:.0f} (medians: 1/{1 / median_ratio:.0f});"
        f" target <= 1/{1 / a.max_ratio:.0f}: {'met' if time_ok else 'MISSED'}",
        f"  max RSS      {a.self_name} {mib(rss_self)}, {a.peer_name} {mib(rss_peer)};"
        f" target {a.self_name} < {a.max_rss_kib // 1024} MiB: {'met' if rss_ok else 'MISSED'}",
    ]
    if a.counter != "none" and a.self_instr:
        peer = f"{a.peer_instr:,}" if a.peer_instr else "not counted"
        ratio_txt = f"; ratio 1/{a.peer_instr / a.self_instr:.0f}" if a.peer_instr else ""
        lines.append(f"  instructions {a.self_name} {a.self_instr:,}, {a.peer_name} {peer}"
                     f" ({a.counter}, every process){ratio_txt}")
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
        f"| | {a.self_name} | {a.peer_name} |",
        "| --- | ---: | ---: |",
        f"| command | `{a.self_cmd}` | `{a.peer_cmd}` |",
        f"| runs | {len(s['times'])} | {len(p['times'])} |",
        f"| mean ± σ | {fmt_time(s['mean'])} ± {fmt_time(s['stddev'])} "
        f"| {fmt_time(p['mean'])} ± {fmt_time(p['stddev'])} |",
        f"| median | {fmt_time(s['median'])} | {fmt_time(p['median'])} |",
        f"| min … max | {fmt_time(s['min'])} … {fmt_time(s['max'])} "
        f"| {fmt_time(p['min'])} … {fmt_time(p['max'])} |",
        f"| user / system (mean) | {fmt_time(s['user'])} / {fmt_time(s['system'])} "
        f"| {fmt_time(p['user'])} / {fmt_time(p['system'])} |",
        f"| max RSS (largest of {len(rss_s)} / {len(rss_p)} runs, GNU time `%M`) "
        f"| {mib(rss_self)} | {mib(rss_peer)} |",
    ]
    if a.counter != "none" and a.self_instr:
        peer = f"{a.peer_instr:,}" if a.peer_instr else "not counted"
        md.append(f"| instructions ({a.counter}, every process) | {a.self_instr:,} | {peer} |")
    md += [
        "",
        f"- Time ratio (means): **{ratio:.5f} ± {ratio_sd:.5f} = 1/{1 / ratio:.0f}**; medians: "
        f"1/{1 / median_ratio:.0f}. Target ≤ 1/{1 / a.max_ratio:.0f}: **{'met' if time_ok else 'missed'}**.",
        f"- Max RSS of {a.self_name}: **{mib(rss_self)}**. Target < {a.max_rss_kib // 1024} MiB: "
        f"**{'met' if rss_ok else 'missed'}**.",
    ]
    if a.counter != "none" and a.self_instr and a.peer_instr:
        md.append(f"- Instruction ratio ({a.counter}): 1/{a.peer_instr / a.self_instr:.0f}.")
    with open(a.markdown, "w") as f:
        f.write("\n".join(md) + "\n")
    return 0 if time_ok and rss_ok else 1


if __name__ == "__main__":
    sys.exit(main())
