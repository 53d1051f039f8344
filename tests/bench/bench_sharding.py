#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Step time and peak resident memory per rank of every sharding strategy against DDP (docs/benchmarks.md).

For each strategy it runs, --repeats times, in an order that rotates from one repeat to the next so all share the
machine's noise,

  fathom launch --num_processes N --num_cpu_threads_per_process 1 --quiet \\
      fathom train --model MODEL --strategy S [flags] --batch_size B --steps K --optimizer adamw \\
      --log_every 0 --json --stats_json FILE

and reads rank 0's summary (loop time: first step start to last step end, setup excluded) and, from the stats
file, every rank's peak resident set size (getrusage ru_maxrss: the whole process, LibTorch and the data
included) and its model-state bytes. It prints, per strategy, the median step time and its ratio to DDP's, the
median over repeats of the largest rank's peak RSS and its difference to DDP's, and the per-rank model-state
bytes (parameters + gradients + optimizer states, device side), so the memory saving of sharding shows both as
the planner counts it and as the operating system sees it.

    python3 tests/bench/bench_sharding.py --fathom build/default/bin/fathom --ranks 4 --model gpt-small --repeats 3
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

from benchlib import RANK_PREFIX, BenchError, find_fathom, run_group


STRATEGIES = [
    ("ddp", ["--strategy", "ddp"]),
    ("fsdp full_shard", ["--strategy", "fsdp", "--fsdp_sharding_strategy", "FULL_SHARD"]),
    ("fsdp shard_grad_op", ["--strategy", "fsdp", "--fsdp_sharding_strategy", "SHARD_GRAD_OP"]),
    ("fsdp no_shard", ["--strategy", "fsdp", "--fsdp_sharding_strategy", "NO_SHARD"]),
    ("fsdp hybrid 2x2", ["--strategy", "fsdp", "--fsdp_sharding_strategy", "HYBRID_SHARD",
                         "--fsdp_hybrid_group_size", "2"]),
    ("fsdp full_shard offload", ["--strategy", "fsdp", "--fsdp_offload_params", "true"]),
    ("zero1", ["--strategy", "zero1"]),
    ("zero2", ["--strategy", "zero2"]),
    ("zero2 offload", ["--strategy", "zero2", "--offload_optimizer_device", "cpu"]),
    ("zero3", ["--strategy", "zero3"]),
    ("zero3 offload", ["--strategy", "zero3", "--offload_optimizer_device", "cpu", "--offload_param_device", "cpu"]),
]

def summary_of(stdout):
    for line in stdout.splitlines():
        line = RANK_PREFIX.sub("", line)
        if '"event":"summary"' in line.replace(" ", ""):
            return json.loads(line[line.index("{"):])
    return None


def run_once(fathom, args, name, flags):
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        cmd = [fathom, "launch", "--num_processes", str(args.ranks), "--num_cpu_threads_per_process", "1",
               "--quiet", fathom, "train", "--model", args.model, *flags, "--batch_size", str(args.batch_size),
               "--steps", str(args.steps), "--optimizer", "adamw", "--seed", "0", "--log_every", "0", "--json",
               "--stats_json", stats_path]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        proc = run_group(cmd, env=env, timeout=args.timeout)
        if proc.returncode != 0:
            sys.exit(f"bench_sharding: {name} failed ({proc.returncode}):\n{' '.join(cmd)}\n{proc.stdout}\n"
                     f"{proc.stderr}")
        summary = summary_of(proc.stdout)
        if summary is None:
            sys.exit(f"bench_sharding: {name}: no summary line in\n{proc.stdout}")
        with open(stats_path) as f:
            stats = json.load(f)
    ranks = stats["ranks"]
    rss = [r.get("peak_resident_bytes", 0) for r in ranks]
    state = [r["bytes"]["parameters"] + r["bytes"]["gradients"] + r["bytes"]["optimizer_states"] +
             r["bytes"]["master_weights"] for r in ranks]
    return summary["loop_seconds"] / summary["steps"], max(rss), max(state), summary["final_loss"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fathom", help="the fathom executable (default: build/bench or build/default)")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--model", default="gpt-small")
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated strategy names to run (default: all)")
    parser.add_argument("--timeout", type=int, default=1800)
    args = parser.parse_args()
    try:
        fathom = find_fathom(args.fathom)
    except BenchError as e:
        sys.exit(f"bench_sharding: {e}")
    chosen = STRATEGIES
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        chosen = [s for s in STRATEGIES if s[0] in wanted or s[0] == "ddp"]
    if args.ranks % 2 != 0:
        chosen = [s for s in chosen if "hybrid" not in s[0]]
    results = {name: [] for name, _ in chosen}
    for repeat in range(args.repeats):
        order = chosen[repeat % len(chosen):] + chosen[:repeat % len(chosen)]
        for name, flags in order:
            results[name].append(run_once(fathom, args, name, flags))
            step, rss, state, loss = results[name][-1]
            print(f"  repeat {repeat + 1} {name}: {step * 1000:.0f} ms/step, peak RSS {rss / 2**20:.0f} MiB, "
                  f"model states {state / 2**20:.1f} MiB, final loss {loss:.4f}", file=sys.stderr, flush=True)
    ddp_step = statistics.median(r[0] for r in results["ddp"])
    ddp_rss = statistics.median(r[1] for r in results["ddp"])
    print(f"{args.ranks} ranks, {args.model}, batch {args.batch_size}, {args.steps} steps, "
          f"{args.repeats} repeats (medians)")
    print("| strategy | step time (ms) | vs DDP | peak RSS per rank (MiB, max over ranks) | vs DDP (MiB) | "
          "model states per rank (MiB) |")
    print("|---|---|---|---|---|---|")
    for name, _ in chosen:
        step = statistics.median(r[0] for r in results[name])
        rss = statistics.median(r[1] for r in results[name])
        state = statistics.median(r[2] for r in results[name])
        print(f"| {name} | {step * 1000:.0f} | {step / ddp_step:.2f} | {rss / 2**20:.0f} | "
              f"{(rss - ddp_rss) / 2**20:+.0f} | {state / 2**20:.1f} |")


if __name__ == "__main__":
    main()
