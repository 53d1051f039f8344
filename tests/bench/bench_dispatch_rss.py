#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Peak resident memory of a dispatched model against the same model undispatched (issue 23; docs/bigmodel.md):
gpt-small split across "cpu" and "disk" by a device map, one forward pass each way, in one process per repeat.

Per repeat and per case:

  fathom device-map --model gpt-small --max_memory cpu=LIMIT --run --json --batch_size B --seq_len T --seed K
        builds gpt-small, runs the forward on the CPU (the reference), dispatches it (what does not fit in LIMIT goes
        to disk: offload.safetensors, memory-mapped), runs the same forward again; the kernel's peak resident set
        (VmHWM, reset through /proc/self/clear_refs before each forward) over each forward

It prints, per case, the bytes on disk, the median (min-max) of the peak RSS saved (reference minus dispatched) as a
fraction of the bytes on disk, and that every output was identical (max abs difference 0). The goal: saved >= 80%
of the bytes sent to disk.

    python3 tests/bench/bench_dispatch_rss.py --repeats 5
"""
import argparse
import json
import statistics
import subprocess
import sys

from benchlib import BenchError, find_fathom

CASES = [  # (name, --max_memory, batch, tokens)
    ("cpu 20MB, 1 x 256 tokens", "cpu=20MB", 1, 256),
    ("cpu 20MB, 2 x 128 tokens", "cpu=20MB", 2, 128),
    ("cpu 12MB, 1 x 256 tokens", "cpu=12MB", 1, 256),
    ("cpu 20MB, 4 x 256 tokens", "cpu=20MB", 4, 256),
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__[__doc__.index("\n\n") + 2:],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fathom", help="the fathom executable (default: the newest build's)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json_out", help="also write the results here")
    a = p.parse_args(argv)
    if a.repeats < 1:
        p.error("--repeats must be >= 1")
    try:
        fathom = find_fathom(a.fathom)
    except BenchError as e:
        print(f"bench_dispatch_rss.py: {e}", file=sys.stderr)
        return 2
    results = []
    for name, limit, batch, tokens in CASES:
        fractions, saved, identical, disk = [], [], True, None
        for k in range(a.repeats):
            cmd = [fathom, "device-map", "--model", "gpt-small", "--max_memory", limit, "--run", "--json",
                   "--batch_size", str(batch), "--seq_len", str(tokens), "--seed", str(k)]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                print(f"bench_dispatch_rss.py: {' '.join(cmd)} failed:\n{done.stderr}", file=sys.stderr)
                return 1
            d = json.loads(done.stdout)["dispatch"]
            if d["rss_saved_fraction_of_disk"] is None:
                print("bench_dispatch_rss.py: the peak RSS could not be reset here (/proc/self/clear_refs)",
                      file=sys.stderr)
                return 1
            disk = d["placed_bytes"].get("disk", 0)
            fractions.append(d["rss_saved_fraction_of_disk"])
            saved.append(d["rss_saved_bytes"])
            identical = identical and d["identical"]
        row = {"case": name, "disk_bytes": disk, "repeats": a.repeats,
               "saved_fraction_median": statistics.median(fractions), "saved_fraction_min": min(fractions),
               "saved_fraction_max": max(fractions), "saved_bytes_median": statistics.median(saved),
               "identical": identical}
        results.append(row)
        print(f"{name:28s} disk {disk / 2**20:6.2f} MiB  saved {row['saved_bytes_median'] / 2**20:6.2f} MiB = "
              f"{100 * row['saved_fraction_median']:5.1f}% of disk (min {100 * row['saved_fraction_min']:.1f}%, "
              f"max {100 * row['saved_fraction_max']:.1f}%)  outputs {'identical' if identical else 'DIFFER'}",
              flush=True)
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(results, f, indent=2)
    return 0 if all(r["identical"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
