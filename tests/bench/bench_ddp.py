#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fathom DDP vs PyTorch DDP, side by side in one run (docs/benchmarks.md).

For each size (hidden H, layers L, per-rank batch B) it runs, alternately and --repeats times each,

  fathom launch --num_processes N --num_cpu_threads_per_process T \\
      fathom train --model mlp --hidden H --layers L --batch_size B --steps S --optimizer sgd --lr 0.01 \\
      --seed 0 --dataset regression --log_every 0 --json
  python3 tests/bench/torch_ddp_mlp.py --num_processes N --threads T --hidden H --layers L --batch_size B \\
      --steps S --lr 0.01 --seed 0

reads the summary line each prints (rank 0's loop time: first step start to last step end, setup excluded) and
prints, per size, the median (min-max) steps/s of each side and the ratio fathom/torch (> 1: Fathom is faster).
The order of the two alternates from one repeat to the next so that both share the machine's noise.

Both sides get the same intra-op thread count T (default 1, which is what `fathom launch` and torchrun pick for
several processes when OMP_NUM_THREADS is unset): OMP_NUM_THREADS=T in the environment, --num_cpu_threads_per_process
T for Fathom, torch.set_num_threads(T) for PyTorch.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from benchlib import HERE, RANK_PREFIX, BenchError, find_fathom, find_torch_python, run_group

BASELINE = os.path.join(HERE, "torch_ddp_mlp.py")

# (hidden, layers, per-rank batch, default steps). Steps are chosen for roughly 5-15 s a run on a 2-core machine
# with Debian's LibTorch 1.13 (reference BLAS): ~200 steps/s and ~3 steps/s with 2 ranks.
SIZES = [(256, 2, 8, 1500), (1024, 4, 32, 40)]

def check_fathom_train(fathom):
    """Fail clearly when this fathom predates `fathom train`."""
    out = subprocess.run([fathom, "--help"], capture_output=True, text=True, timeout=60)
    if not re.search(r"^\s+train\s", out.stdout + out.stderr, re.MULTILINE):
        raise BenchError(f"{fathom} has no `train` subcommand (an older build?): rebuild it "
                         f"(cmake --build <build dir> --target fathom) or pass --fathom PATH")


def find_python(explicit):
    """An interpreter whose torch has Gloo (benchlib.find_torch_python)."""
    py, version = find_torch_python(explicit, "import torch, torch.distributed as d; print(torch.__version__, "
                                              "d.is_available() and d.is_gloo_available())")
    version, gloo = version.split()
    if gloo != "True":
        raise BenchError(f"{py}: torch {version} has no Gloo backend")
    return py, version


def parse_summary(stdout):
    """The last `{"event":"summary",...}` line of rank 0 (lines may carry fathom launch's `[rankN]: ` prefix)."""
    summary = None
    for raw in stdout.splitlines():
        line = raw.strip()
        m = RANK_PREFIX.match(line)
        if m:
            if m.group(1) != "0":
                continue
            line = line[m.end():].strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("event") == "summary":
            summary = obj
    if summary is None:
        raise BenchError("no summary line in the output")
    for key in ("steps", "loop_seconds", "steps_per_second", "samples_per_second", "final_loss", "world_size"):
        if key not in summary:
            raise BenchError(f"summary line lacks '{key}': {json.dumps(summary)}")
    return summary


def run_one(name, cmd, env, timeout, verbose):
    if verbose:
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    start = time.monotonic()
    try:
        proc = run_group(cmd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{name} ran past {timeout} s: {' '.join(cmd)}")
    wall = time.monotonic() - start
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise BenchError(f"{name} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
    try:
        summary = parse_summary(proc.stdout)
    except BenchError as e:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise BenchError(f"{name}: {e}: {' '.join(cmd)}\n{tail}")
    summary["process_seconds"] = wall
    return summary


def stats(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        parts = item.strip().lower().split("x")
        if len(parts) not in (3, 4):
            raise argparse.ArgumentTypeError(f"size '{item}': expected HxLxB or HxLxBxSTEPS")
        sizes.append(tuple(int(p) for p in parts) if len(parts) == 4 else (*map(int, parts), 100))
    return sizes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fathom", help="fathom binary (default: build/bench/bin/fathom, build/default/bin/fathom, then the "
                                    "newest build/*/bin/fathom, then PATH)")
    p.add_argument("--python", help="Python with torch for the baseline (default: this one if it has torch, "
                                    "else /usr/bin/python3)")
    p.add_argument("--repeats", type=int, default=5, help="runs of each side per size (default 5)")
    p.add_argument("--steps", type=int, help="steps for every size (default: 1500 for 256x2x8, 40 for 1024x4x32)")
    p.add_argument("--sizes", type=parse_sizes, default=SIZES,
                   help="comma-separated HxLxB[xSTEPS] (default 256x2x8x1500,1024x4x32x40)")
    p.add_argument("--num_processes", type=int, default=2, help="ranks on each side (default 2)")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads per rank, both sides (default 1)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--shuffle", action="store_true", help="pass --shuffle to both sides (default: dataset order)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=600, help="seconds allowed for one run (default 600)")
    p.add_argument("--json-out", "--json_out", dest="json_out", help="also write the results to this JSON file")
    p.add_argument("-v", "--verbose", action="store_true", help="print each command and each run's result")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.num_processes < 1 or args.threads < 1:
        p.error("--repeats, --num_processes and --threads must be >= 1")

    try:
        fathom = find_fathom(args.fathom)
        check_fathom_train(fathom)
        python, torch_version = find_python(args.python)
    except BenchError as e:
        print(f"bench_ddp: {e}", file=sys.stderr)
        return 2

    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    n, t = str(args.num_processes), str(args.threads)
    print(f"bench_ddp: fathom {fathom}; torch {torch_version} ({python}); {args.num_processes} processes, "
          f"{args.threads} thread(s) each, {args.repeats} repeats; {os.cpu_count()} CPUs", flush=True)

    results = []
    for hidden, layers, batch, default_steps in args.sizes:
        steps = args.steps or default_steps
        common = ["--hidden", str(hidden), "--layers", str(layers), "--batch_size", str(batch),
                  "--steps", str(steps), "--lr", str(args.lr), "--seed", str(args.seed)]
        fathom_cmd = [fathom, "launch", "--num_processes", n, "--num_cpu_threads_per_process", t, fathom, "train",
                      "--model", "mlp", *common, "--optimizer", "sgd", "--dataset", "regression", "--log_every", "0",
                      "--json"]
        torch_cmd = [python, BASELINE, "--num_processes", n, "--threads", t, *common]
        if args.shuffle:
            fathom_cmd.append("--shuffle")
            torch_cmd.append("--shuffle")
        runs = {"fathom": [], "torch": []}
        for r in range(args.repeats):
            order = [("fathom", fathom_cmd), ("torch", torch_cmd)]
            if r % 2:
                order.reverse()
            for name, cmd in order:
                try:
                    s = run_one(name, cmd, env, args.timeout, args.verbose)
                except BenchError as e:
                    print(f"bench_ddp: {e}", file=sys.stderr)
                    return 1
                if s["world_size"] != args.num_processes or s["steps"] != steps:
                    print(f"bench_ddp: {name} reported world_size {s['world_size']} and steps {s['steps']}, "
                          f"expected {args.num_processes} and {steps}", file=sys.stderr)
                    return 1
                runs[name].append(s)
                if args.verbose:
                    print(f"  {hidden}x{layers}x{batch} repeat {r + 1} {name}: {s['steps_per_second']:.2f} steps/s "
                          f"(loop {s['loop_seconds']:.2f} s, process {s['process_seconds']:.2f} s, "
                          f"loss {s['final_loss']:.4g})", file=sys.stderr, flush=True)
        f = stats([s["steps_per_second"] for s in runs["fathom"]])
        tr = stats([s["steps_per_second"] for s in runs["torch"]])
        results.append({"hidden": hidden, "layers": layers, "batch_size": batch, "steps": steps,
                        "fathom_steps_per_second": f, "torch_steps_per_second": tr,
                        "ratio_fathom_over_torch": f["median"] / tr["median"] if tr["median"] > 0 else None,
                        "fathom_final_loss": statistics.median(s["final_loss"] for s in runs["fathom"]),
                        "torch_final_loss": statistics.median(s["final_loss"] for s in runs["torch"]),
                        "fathom_runs": runs["fathom"], "torch_runs": runs["torch"]})

    header = f"{'size (HxLxB)':<14} {'steps':>6}  {'fathom steps/s median [min-max]':<34} " \
             f"{'torch steps/s median [min-max]':<34} {'fathom/torch':>12}"
    print(header)
    print("-" * len(header))
    for res in results:
        f, tr = res["fathom_steps_per_second"], res["torch_steps_per_second"]
        size = f"{res['hidden']}x{res['layers']}x{res['batch_size']}"
        ratio = res["ratio_fathom_over_torch"]
        fcol = "{:.2f} [{:.2f}-{:.2f}]".format(f["median"], f["min"], f["max"])
        tcol = "{:.2f} [{:.2f}-{:.2f}]".format(tr["median"], tr["min"], tr["max"])
        rcol = "{:.3f}".format(ratio) if ratio is not None else "n/a"
        print(f"{size:<14} {res['steps']:>6}  {fcol:<34} {tcol:<34} {rcol:>12}")
    if args.json_out:
        with open(args.json_out, "w") as out:
            json.dump({"fathom": fathom, "python": python, "torch_version": torch_version,
                       "num_processes": args.num_processes, "threads": args.threads, "repeats": args.repeats,
                       "cpus": os.cpu_count(), "results": results}, out, indent=2)
            out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
