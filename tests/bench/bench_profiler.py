#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Profiler overhead on `fathom train` (issue 8: <= 5% of step time with CPU operators recorded), docs/profiler.md.

A busy machine's noise is larger than the effect measured, so recorded and unrecorded steps are taken from the same
run, interleaved: with

  fathom train --model MODEL --batch_size B --steps K --log_every 1 --json --seed 0 \\
      --profile --profile_schedule P,0,P,0 [variant flags]

the profiler alternates P steps it does not record (its collectors are off: no operator callback is registered)
with P recorded steps, cycle after cycle. Each log line carries steps_per_second over the one step since the
previous line, so 1/rate is that step's wall time, and the difference of two lines' process_cpu_seconds its CPU time (steadier on a shared machine: other
processes' load stretches wall time, not CPU time). "off" is the median of the unrecorded steps, "on" the median of
the recorded ones except the last of each window (its time includes writing the window's trace, which happens in
profiler.step() before the line is printed) and the first --warmup steps of the run. Variants:

  cpu ops        --profile_memory false                          (the issue's criterion)
  cpu + shapes   --profile_memory false --profile_record_shapes
  cpu + memory   memory profiling on: its allocator reporter runs on every step (it keeps the live blocks between
                 windows), so for it "off" is a separate run without --profile, in the same rotation

    python3 tests/bench/bench_profiler.py --fathom build/default/bin/fathom --model gpt-tiny --steps 60 --repeats 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchlib import ROOT, BenchError, find_fathom



def run(fathom, args, flags, workdir):
    """Per-step (wall, CPU) times in seconds by step number (1-based)."""
    os.makedirs(workdir, exist_ok=True)
    command = [fathom, "train", "--model", args.model, "--batch_size", str(args.batch_size), "--steps",
               str(args.steps), "--log_every", "1", "--json", "--seed", "0", "--workspace",
               os.path.join(workdir, "ws.sqlite")] + flags
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_profiler: {' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    times = {}
    previous_cpu = None
    for line in done.stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("event") == "log":
            cpu = event["process_cpu_seconds"]
            if previous_cpu is not None:
                times[event["step"]] = (1.0 / event["steps_per_second"], cpu - previous_cpu)
            previous_cpu = cpu
    return times


def split(times, period, warmup):
    """(unrecorded, recorded) step times of an interleaved run. Profiler step s (0-based) is log step s + 1."""
    off, on = [], []
    for step, seconds in times.items():
        s = step - 1
        if step <= warmup:
            continue
        position = s % (2 * period)
        if position < period:
            off.append(seconds)
        elif position < 2 * period - 1:  # the window's last step also writes the trace
            on.append(seconds)
    return off, on


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fathom", help="the fathom executable (default: build/bench or build/default)")
    parser.add_argument("--model", default="gpt-tiny")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--period", type=int, default=5, help="steps off, then steps on, alternating")
    parser.add_argument("--warmup", type=int, default=5, help="steps dropped at the start of every run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of the trainer")
    args = parser.parse_args()
    try:
        fathom = find_fathom(args.fathom)
    except BenchError as e:
        sys.exit(f"bench_profiler: {e}")
    schedule = ["--profile", "--profile_schedule", f"{args.period},0,{args.period},0"]
    interleaved = [("cpu ops", schedule + ["--profile_memory", "false"]),
                   ("cpu + shapes", schedule + ["--profile_memory", "false", "--profile_record_shapes"])]
    separate = [("no profiler", []), ("cpu + memory", ["--profile", "--profile_schedule", f"0,0,{args.steps},1"])]
    samples = {name: ([], []) for name, _ in interleaved}
    whole = {name: [] for name, _ in separate}
    jobs = [("i", name, flags) for name, flags in interleaved] + [("s", name, flags) for name, flags in separate]
    with tempfile.TemporaryDirectory() as workdir:
        for repeat in range(args.repeats):
            order = jobs[repeat % len(jobs):] + jobs[:repeat % len(jobs)]
            for kind, name, flags in order:
                times = run(fathom, args, flags, os.path.join(workdir, f"{name}-{repeat}".replace(" ", "_")))
                if kind == "i":
                    off, on = split(times, args.period, args.warmup)
                    samples[name][0].extend(off)
                    samples[name][1].extend(on)
                else:
                    # The whole-run variant records every step; its last step writes the trace: dropped.
                    whole[name].extend(t for s, t in times.items() if args.warmup < s < args.steps)
                print(f"  repeat {repeat + 1}/{args.repeats}: {name} done", file=sys.stderr)
    print(f"\n{args.model}, batch {args.batch_size}, {args.steps} steps per run, {args.repeats} repeats, "
          f"OMP_NUM_THREADS={args.threads}; medians of per-step wall time and of per-step process CPU time\n")
    print("| variant | steps off / on | wall off (ms) | wall on (ms) | wall overhead | CPU off (ms) | CPU on (ms) "
          "| CPU overhead |")
    print("|---|---|---|---|---|---|---|---|")

    def row(label, off, on):
        cells = [label, f"{len(off)} / {len(on)}"]
        for index in (0, 1):
            a = statistics.median(t[index] for t in off)
            b = statistics.median(t[index] for t in on)
            cells += [f"{a * 1e3:.2f}", f"{b * 1e3:.2f}", f"{100.0 * (b / a - 1.0):+.1f}%"]
        print("| " + " | ".join(cells) + " |")

    for name, (off, on) in samples.items():
        row(f"{name} (interleaved)", off, on)
    row("cpu + memory (separate runs)", whole["no profiler"], whole["cpu + memory"])
    print(f"\nreproduce: python3 tests/bench/bench_profiler.py --fathom {os.path.relpath(fathom, ROOT)} "
          f"--model {args.model} --batch_size {args.batch_size} --steps {args.steps} --period {args.period} "
          f"--repeats {args.repeats}")


if __name__ == "__main__":
    main()
