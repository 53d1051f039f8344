#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The trace timeline against its anchors, side by side in one run (issue 19).

For each trace (generated 8-rank traces of 1M and 10M events written by make_trace, plus real ones given with
--file) it runs, several times and in rotating order so that all sides share the machine's noise:
  - Fathom: build/<preset>/bench/bench_timeline_view TRACE --json (offscreen platform, 1920x1080): open to first
    complete paint, memory per event, and the frames of a key-driven zoom/pan sweep;
  - Chromium's DevTools Performance panel and speedscope (tests/bench/timeline_anchors.js, playwright-core driving
    Debian's chromium under xvfb-run, 1920x1080): load to the first frame of their flame chart; for DevTools also
    the draw times of its flame chart over a wheel zoom/pan sweep.
It prints medians with [min-max] ranges, the ratios anchor / Fathom of the medians, and the load average around each
run (/proc/loadavg). The anchors read uncompressed JSON; a .json.gz given with --file is decompressed for them.

  installer/install-deps.sh --groups bench        # chromium, nodejs; playwright-core and speedscope into build/npm
  cmake --preset default -DFATHOM_BUILD_BENCHMARKS=ON
  cmake --build build/default --target bench_timeline_view make_trace
  tests/bench/bench_timeline.py [--repeats 3] [--sizes 1000000,10000000] [--file T.json.gz ...] [--json-out F]

Anchors run on generated traces of at most --anchor-max-events events (default 1M: at their 1M pace the 10M file
would take DevTools minutes and speedscope most of an hour per run) and on every --file.
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import ROOT, BenchError

VIEWERS = ("fathom", "devtools", "speedscope")


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def warm(path):
    """Reads the file once, so that every side finds it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def run_json(cmd, env=None, timeout=None):
    """Runs `cmd`; returns the JSON object of its last stdout line, or raises BenchError with its output."""
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{' '.join(cmd)}: no result within {timeout} s")
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    result = json.loads(lines[-1]) if lines else None
    if p.returncode != 0 or result is None or "error" in result:
        why = result.get("error") if result else p.stderr.strip()[-2000:]
        raise BenchError(f"{' '.join(cmd)} failed (exit {p.returncode}): {why}")
    return result


class Runner:
    def __init__(self, args):
        self.args = args
        build = os.path.abspath(args.build)
        self.view_bench = os.path.join(build, "bench", "bench_timeline_view")
        self.make_trace = os.path.join(build, "bench", "make_trace")
        for exe in (self.view_bench, self.make_trace):
            if not os.access(exe, os.X_OK):
                raise BenchError(f"{exe} missing: cmake --preset default -DFATHOM_BUILD_BENCHMARKS=ON && "
                                 f"cmake --build {args.build} --target bench_timeline_view make_trace")
        self.anchors_js = os.path.join(ROOT, "tests", "bench", "timeline_anchors.js")
        npm = os.path.abspath(args.npm_prefix)
        self.node_env = dict(os.environ, NODE_PATH=os.path.join(npm, "node_modules"))
        if not args.no_anchors:
            for pkg in ("playwright-core", "speedscope"):
                if not os.path.isdir(os.path.join(npm, "node_modules", pkg)):
                    raise BenchError(f"{pkg} is not in {npm}/node_modules: installer/install-deps.sh --groups bench")
            if not shutil.which("chromium") and not os.environ.get("CHROMIUM"):
                raise BenchError("no chromium: installer/install-deps.sh --groups bench")
            if not os.environ.get("DISPLAY") and not shutil.which("xvfb-run"):
                raise BenchError("the anchors need a display: install xvfb (installer/install-deps.sh) or set DISPLAY")

    def fathom(self, trace):
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        return run_json([self.view_bench, trace["path"], "--json"], env=env, timeout=self.args.timeout_s)

    def anchor(self, viewer, trace):
        cmd = ["node", self.anchors_js, "--viewer", viewer, trace["json"], "--timeout-s", str(self.args.timeout_s)]
        if viewer == "devtools":
            cmd.append("--sweep")  # its flame chart's draw times over a wheel zoom/pan sweep
        if not os.environ.get("DISPLAY"):
            cmd = ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24"] + cmd
        return run_json(cmd, env=self.node_env, timeout=self.args.timeout_s + 120)


def prepare_traces(args, runner):
    traces = []
    os.makedirs(args.dir, exist_ok=True)
    for size in [int(s) for s in args.sizes.split(",") if s]:
        path = os.path.join(args.dir, f"timeline_{size}.json")
        if not os.path.exists(path):
            print(f"writing {path} ...", flush=True)
            subprocess.run([runner.make_trace, "--events", str(size), path], check=True, stdout=subprocess.DEVNULL)
        traces.append({"name": f"generated {size // 1000000}M" if size >= 1000000 else f"generated {size}",
                       "path": path, "json": path, "anchors": size <= args.anchor_max_events})
    for f in args.file:
        if not os.path.isfile(f):
            raise BenchError(f"--file {f}: no such file")
        plain = f
        if f.endswith(".gz"):
            plain = os.path.join(args.dir, os.path.basename(f)[:-3])
            with gzip.open(f, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        traces.append({"name": os.path.basename(f), "path": f, "json": plain, "anchors": True})
    return traces


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def fmt(s, scale=1.0, digits=0):
    if not s:
        return "-"
    return f"{s['median'] * scale:.{digits}f} [{s['min'] * scale:.{digits}f}-{s['max'] * scale:.{digits}f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "default"), help="the build tree with bench/")
    ap.add_argument("--dir", default="/tmp/fathom-bench-timeline", help="where generated traces go (kept for reuse)")
    ap.add_argument("--sizes", default="1000000,10000000", help="events of the generated traces, comma-separated")
    ap.add_argument("--file", action="append", default=[], help="a real trace (.json or .json.gz); repeatable")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--anchor-repeats", type=int, default=None,
                    help="repeats of each anchor (default: --repeats); speedscope takes minutes at 1M events")
    ap.add_argument("--anchor-max-events", type=int, default=1000000)
    ap.add_argument("--no-anchors", action="store_true", help="Fathom alone")
    ap.add_argument("--npm-prefix", default=os.path.join(ROOT, "build", "npm"))
    ap.add_argument("--timeout-s", type=int, default=900, help="per run")
    ap.add_argument("--json-out", help="every run's result, as a JSON list")
    args = ap.parse_args()
    try:
        runner = Runner(args)
        traces = prepare_traces(args, runner)
    except (BenchError, subprocess.CalledProcessError) as e:
        print(f"bench_timeline: {e}", file=sys.stderr)
        return 2

    anchor_repeats = args.repeats if args.anchor_repeats is None else args.anchor_repeats
    runs = []
    for trace in traces:
        warm(trace["path"])
        if trace["json"] != trace["path"]:
            warm(trace["json"])
        for r in range(max(args.repeats, anchor_repeats if trace["anchors"] else 0)):
            order = list(VIEWERS[r % 3:] + VIEWERS[:r % 3])  # rotate, so no side always runs first
            for viewer in order:
                if viewer == "fathom" and r >= args.repeats:
                    continue
                if viewer != "fathom" and (args.no_anchors or not trace["anchors"] or r >= anchor_repeats):
                    continue
                before = loadavg()
                t = time.time()
                try:
                    result = runner.fathom(trace) if viewer == "fathom" else runner.anchor(viewer, trace)
                except BenchError as e:
                    result = {"error": str(e)}
                    print(f"  {trace['name']} {viewer} #{r + 1}: FAILED: {e}", file=sys.stderr, flush=True)
                result.update(trace=trace["name"], viewer=viewer, repeat=r + 1, loadavg_before=before,
                              loadavg_after=loadavg(), wall_s=time.time() - t,
                              at=time.strftime("%H:%M:%S", time.gmtime(t)))
                runs.append(result)
                if "error" not in result:
                    print(f"  {trace['name']} {viewer} #{r + 1}: first paint {result['first_paint_ms']:.0f} ms "
                          f"(load average {before:.1f})", flush=True)

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(runs, f, indent=1)

    print()
    print(f"{'trace':<26} {'events':>10}  {'Fathom first paint ms':<24} {'DevTools ms':<24} {'speedscope ms':<26} "
          f"{'DevTools/F':>10} {'speedscope/F':>12}")
    details = []
    for trace in traces:
        ok = lambda v: [x for x in runs if x["trace"] == trace["name"] and x["viewer"] == v and "error" not in x]
        f, d, s = ok("fathom"), ok("devtools"), ok("speedscope")
        fp, dp, sp = (summary([x["first_paint_ms"] for x in xs]) for xs in (f, d, s))
        events = f[0]["events"] if f else 0
        ratio = lambda a: f"{a['median'] / fp['median']:.1f}x" if a and fp else "-"
        print(f"{trace['name']:<26} {events:>10}  {fmt(fp):<24} {fmt(dp):<24} {fmt(sp):<26} {ratio(dp):>10} "
              f"{ratio(sp):>12}")
        if f:
            details.append((trace["name"], f))
    print()
    print(f"{'trace':<26} {'frames':>6}  {'frame p50 ms':<18} {'frame p99 ms':<20} {'frame max ms':<20} {'>16ms':>5} "
          f"{'index B/ev':>10} {'RSS B/ev':>9} {'load avg':>10}")
    cpu_rows = []
    for name, f in details:
        load = [x["loadavg_before"] for x in runs if x["trace"] == name] + \
               [x["loadavg_after"] for x in runs if x["trace"] == name]
        print(f"{name:<26} {f[0]['frames']:>6}  {fmt(summary([x['frame_p50_ms'] for x in f]), digits=2):<18} "
              f"{fmt(summary([x['frame_p99_ms'] for x in f]), digits=1):<20} "
              f"{fmt(summary([x['frame_max_ms'] for x in f]), digits=1):<20} "
              f"{statistics.median([x['frames_over_16ms'] for x in f]):>5} "
              f"{statistics.median([x['index_bytes_per_event'] for x in f]):>10.1f} "
              f"{statistics.median([x['rss_growth_bytes_per_event'] for x in f]):>9.1f} "
              f"{min(load):>4.1f}-{max(load):<4.1f}")
        cpu_rows.append((name, f))
    # CPU time: what the work costs without the waits for a core of a busy machine (wall = CPU when it is idle).
    print()
    print(f"{'trace':<26} {'open CPU ms (all threads)':<28} {'frame CPU p50 ms':<20} {'frame CPU p99 ms':<20} "
          f"{'frame CPU max ms':<20}")
    for name, f in cpu_rows:
        print(f"{name:<26} {fmt(summary([x['open_cpu_ms'] for x in f])):<28} "
              f"{fmt(summary([x['frame_cpu_p50_ms'] for x in f]), digits=2):<20} "
              f"{fmt(summary([x['frame_cpu_p99_ms'] for x in f]), digits=1):<20} "
              f"{fmt(summary([x['frame_cpu_max_ms'] for x in f]), digits=1):<20}")
    # The anchor's smoothness: DevTools' flame chart draws (canvas work only, not whole frames) over its sweep.
    print()
    print(f"{'trace':<26} {'DevTools draws':>14}  {'draw p50 ms':<20} {'draw p99 ms':<20} {'draw max ms':<20}")
    for trace in traces:
        d = [x["sweep"] for x in runs if x["trace"] == trace["name"] and x["viewer"] == "devtools" and "sweep" in x
             and x["sweep"]["draws"]]
        if d:
            print(f"{trace['name']:<26} {statistics.median([x['draws'] for x in d]):>14}  "
                  f"{fmt(summary([x['draw_p50_ms'] for x in d]), digits=1):<20} "
                  f"{fmt(summary([x['draw_p99_ms'] for x in d]), digits=1):<20} "
                  f"{fmt(summary([x['draw_max_ms'] for x in d]), digits=1):<20}")
    failed = [x for x in runs if "error" in x]
    if failed:
        print(f"\n{len(failed)} run(s) failed; see above")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
