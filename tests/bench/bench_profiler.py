#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Profiler overhead on `fathom train` (issue 8: <= 5% of step time with CPU operators recorded), docs/profiler.md.

It runs, --repeats times and in an order that rotates from one repeat to the next so every variant shares the
machine's noise,

  fathom train --model MODEL --batch_size B --steps K --log_every 1 --json [profiling flags]

with these variants:

  off             no profiler
  cpu ops         --profile --profile_schedule 0,0,K,1 --profile_memory false   (every step recorded)
  cpu + memory    --profile --profile_schedule 0,0,K,1                          (allocations too)
  cpu + shapes    --profile --profile_schedule 0,0,K,1 --profile_memory false --profile_record_shapes

Each log line carries steps_per_second over the one step since the previous line, so 1/rate is that step's wall
time. The first --warmup steps are dropped (first-touch allocations, lazy initialisation); the window's export
happens after the last step's log line, so it is not inside any measured step. The medians over all kept steps
of all repeats are compared with "off".

    python3 tests/bench/bench_profiler.py --fathom build/ci/bin/fathom --model gpt-tiny --steps 40 --repeats 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def find_fathom(explicit):
    candidates = [explicit] if explicit else [os.path.join(ROOT, "build", d, "bin", "fathom") for d in ("bench", "ci")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    sys.exit(f"bench_profiler: no fathom executable ({', '.join(c for c in candidates if c)}); build first or "
             "pass --fathom")


def variants(steps):
    record_all = ["--profile", "--profile_schedule", f"0,0,{steps},1"]
    return [
        ("off", []),
        ("cpu ops", record_all + ["--profile_memory", "false"]),
        ("cpu + memory", record_all),
        ("cpu + shapes", record_all + ["--profile_memory", "false", "--profile_record_shapes"]),
    ]


def step_times(fathom, args, flags, workdir):
    command = [fathom, "train", "--model", args.model, "--batch_size", str(args.batch_size), "--steps",
               str(args.steps), "--log_every", "1", "--json", "--workspace", os.path.join(workdir, "ws.sqlite")]
    if flags:
        command += ["--profile_dir", os.path.join(workdir, "traces")]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    done = subprocess.run(command + flags, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_profiler: {' '.join(command + flags)} failed ({done.returncode}):\n{done.stderr}")
    times = []
    for line in done.stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("event") == "log" and event["step"] > args.warmup:
            times.append(1.0 / event["steps_per_second"])
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fathom", help="the fathom executable (default: build/bench or build/ci)")
    parser.add_argument("--model", default="gpt-tiny")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5, help="steps dropped at the start of every run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of the trainer")
    args = parser.parse_args()
    fathom = find_fathom(args.fathom)
    names = [name for name, _ in variants(args.steps)]
    samples = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as workdir:
        for repeat in range(args.repeats):
            order = variants(args.steps)
            order = order[repeat % len(order):] + order[:repeat % len(order)]
            for name, flags in order:
                samples[name] += step_times(fathom, args, flags, os.path.join(workdir, f"{name}-{repeat}"))
                print(f"  repeat {repeat + 1}/{args.repeats}: {name} done", file=sys.stderr)
    base = statistics.median(samples["off"])
    print(f"\n{args.model}, batch {args.batch_size}, {args.steps} steps ({args.warmup} dropped), "
          f"{args.repeats} repeats, OMP_NUM_THREADS={args.threads} (medians over {len(samples['off'])} steps each)\n")
    print("| variant | step time (ms) | overhead vs off |")
    print("|---|---|---|")
    for name in names:
        median = statistics.median(samples[name])
        print(f"| {name} | {median * 1e3:.2f} | {100.0 * (median / base - 1.0):+.1f}% |")
    print(f"\nreproduce: python3 tests/bench/bench_profiler.py --fathom {os.path.relpath(fathom, ROOT)} "
          f"--model {args.model} --batch_size {args.batch_size} --steps {args.steps} --repeats {args.repeats}")


if __name__ == "__main__":
    main()
