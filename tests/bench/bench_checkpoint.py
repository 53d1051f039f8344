#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checkpoint save and load of gpt-small on N processes, sharded vs full, against dd with fsync and against Python's
torch.save / torch.load of the same state dict, all in one run (issue 22; docs/benchmarks.md, docs/checkpoint.md).

Per round (--repeats rounds, the order of the four measurements rotating from round to round so they share the
machine's noise):

  fathom launch --num_processes N --num_cpu_threads_per_process 1 --quiet \\
      bench_checkpoint --dir D --state_dict sharded|full --repeats 2
        saveState + loadState of gpt-small + AdamW (FSDP FULL_SHARD; SHARDED_STATE_DICT writes the model and the
        optimizer one file per process, FULL_STATE_DICT has rank 0 write the gathered model and each process its
        optimizer shard); the second of the two repeats counts (the first warms the page cache and the allocator,
        as the other anchors are warmed)
  dd if=/dev/zero of=D/dd.bin bs=1M count=... conv=fsync, three times
        the same number of bytes as the full checkpoint: this machine's sequential write bandwidth with fsync
  torch_checkpoint_anchor.py: torch.save(state_dict, f) + fsync, then torch.load(f)
        the full checkpoint's own model and optimizer tensors (read from its safetensors files), one file, in
        Python (Debian's python3-torch); the second of two repeats counts

It prints the median (min-max) of each, MB/s, and the ratios: Fathom's save to dd's time for the same bytes, and
Fathom's save and load to torch.save's and torch.load's. Loads read from the page cache in every case (the files were
just written), so they measure parsing, checking and copying, not the disk.

    python3 tests/bench/bench_checkpoint.py --ranks 4 --repeats 5
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import HERE, RANK_PREFIX, BenchError, find_fathom, find_torch_python


def find_bench(fathom):
    candidate = os.path.join(os.path.dirname(os.path.dirname(fathom)), "bench", "bench_checkpoint")
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return candidate
    raise BenchError(f"no {candidate}: configure that build with -DFATHOM_BUILD_BENCHMARKS=ON and build "
                     "bench_checkpoint (docs/benchmarks.md)")


def run_fathom(fathom, bench, ranks, state_dict, workdir):
    folder = os.path.join(workdir, state_dict)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cmd = [fathom, "launch", "--num_processes", str(ranks), "--num_cpu_threads_per_process", "1", "--quiet",
           bench, "--dir", folder, "--state_dict", state_dict, "--repeats", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited with {done.returncode}:\n{done.stdout}{done.stderr}")
    rows = []
    for line in done.stdout.splitlines():
        line = RANK_PREFIX.sub("", line).strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    if len(rows) != 2:
        raise BenchError(f"expected 2 result lines from rank 0, got {len(rows)}:\n{done.stdout}")
    return rows[-1], os.path.join(folder, "checkpoints", "checkpoint_1")


def dd_seconds(workdir, nbytes):
    """dd of `nbytes` (rounded up to MiB) in 1 MiB blocks with one fsync at the end, three times (this VM's write
    bandwidth swings by a factor of five from one second to the next); the time of each, and the bytes."""
    out = os.path.join(workdir, "dd.bin")
    count = max(1, (nbytes + (1 << 20) - 1) >> 20)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["dd", "if=/dev/zero", f"of={out}", "bs=1M", f"count={count}", "conv=fsync"], check=True,
                       capture_output=True)
        times.append(time.perf_counter() - start)
        os.remove(out)
    return times, count << 20


def torch_seconds(python, checkpoint, workdir):
    """torch.save (with fsync) and torch.load of the full checkpoint's tensors (torch_checkpoint_anchor.py); the
    second of two repeats counts, as for Fathom."""
    cmd = [python, os.path.join(HERE, "torch_checkpoint_anchor.py"), checkpoint, workdir, "2"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited with {done.returncode}:\n{done.stdout}{done.stderr}")
    row = json.loads(done.stdout.splitlines()[-1])
    return row["save_s"], row["load_s"], row["bytes"]


def describe(values, unit="s"):
    return f"{statistics.median(values):.3f} {unit} ({min(values):.3f}-{max(values):.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fathom", help="the fathom executable (default: build/bench, build/default, ...)")
    parser.add_argument("--ranks", type=int, default=4, help="processes (default 4)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--dir", help="where to write (default: a temporary folder under /tmp)")
    parser.add_argument("--python", help="an interpreter with torch for the anchor (default: this one, then "
                                         "/usr/bin/python3)")
    args = parser.parse_args()
    if args.ranks < 1 or args.repeats < 1:
        raise BenchError("--ranks and --repeats must be at least 1")
    fathom = find_fathom(args.fathom)
    bench = find_bench(fathom)
    python, torch_version = find_torch_python(args.python)
    workdir = tempfile.mkdtemp(prefix="fathom-bench-ckpt-", dir=args.dir)
    results = {"sharded": [], "full": [], "dd": [], "torch": []}
    try:
        order = ["sharded", "full", "dd", "torch"]
        full_checkpoint = None
        full_bytes = None
        for round_ in range(args.repeats):
            rotated = order[round_ % 4:] + order[:round_ % 4]
            # dd and torch need the full checkpoint's size and files: the first round measures "full" first.
            if full_checkpoint is None:
                rotated = ["full"] + [m for m in rotated if m != "full"]
            for what in rotated:
                if what in ("sharded", "full"):
                    row, checkpoint = run_fathom(fathom, bench, args.ranks, what, workdir)
                    results[what].append(row)
                    if what == "full":
                        full_checkpoint = os.path.join(workdir, "full-kept")
                        shutil.rmtree(full_checkpoint, ignore_errors=True)
                        shutil.copytree(checkpoint, full_checkpoint)
                        full_bytes = row["bytes"]
                elif what == "dd":
                    results["dd"].append(dd_seconds(workdir, full_bytes))
                else:
                    results["torch"].append(torch_seconds(python, full_checkpoint, workdir))
            print(f"round {round_ + 1}/{args.repeats} done", file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    mb = 1e6
    print(f"gpt-small + AdamW on {args.ranks} processes (FSDP FULL_SHARD), {args.repeats} rounds; median (min-max); "
          f"anchor: torch {torch_version} ({python})")
    print(f"{'':28} {'save':>28} {'load':>28} {'bytes':>12} {'files':>6}")
    for what in ("sharded", "full"):
        rows = results[what]
        print(f"fathom {what:21} {describe([r['save_s'] for r in rows]):>28} "
              f"{describe([r['load_s'] for r in rows]):>28} {rows[-1]['bytes']:>12,} {rows[-1]['files']:>6}")
    dd_times = [t for times, _ in results["dd"] for t in times]
    dd_bytes = results["dd"][-1][1]
    print(f"{'dd conv=fsync':28} {describe(dd_times):>28} {'':>28} {dd_bytes:>12,} {1:>6}  "
          f"({dd_bytes / statistics.median(dd_times) / mb:.0f} MB/s)")
    t_save = [s for s, _, _ in results["torch"]]
    t_load = [l for _, l, _ in results["torch"]]
    print(f"{'torch.save/torch.load':28} {describe(t_save):>28} {describe(t_load):>28} "
          f"{results['torch'][-1][2]:>12,} {1:>6}")
    print("ratios of medians (< 1: Fathom faster)")
    for what in ("sharded", "full"):
        rows = results[what]
        save = statistics.median(r["save_s"] for r in rows)
        load = statistics.median(r["load_s"] for r in rows)
        nbytes = rows[-1]["bytes"]
        dd_same = statistics.median(dd_times) * nbytes / dd_bytes
        print(f"  fathom {what}: save / torch.save {save / statistics.median(t_save):.2f}, load / torch.load "
              f"{load / statistics.median(t_load):.2f}, save / dd for the same bytes {save / dd_same:.2f} "
              f"(save {nbytes / save / mb:.0f} MB/s)")


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        print(f"bench_checkpoint.py: {e}", file=sys.stderr)
        sys.exit(2)
