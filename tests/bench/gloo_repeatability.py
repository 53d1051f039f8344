#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How repeatable a Gloo all_reduce time is on this machine (docs/calibrate.md, "On this machine"; issue 24).

Issue 24 asks that a calibration's alpha-beta fit predict single all_reduce calls within 15 % at every size. That
can only hold where the same measurement, taken twice, agrees to better than that. This script measures it without
any fit: one Gloo group (torch.distributed, the Gloo LibTorch links, as `fathom calibrate` uses it) times
all_reduce at 1 KiB..64 MiB (x4), --calls calls per size (an eighth of them, at least 5, above 1 MiB), each call
on its own and the slowest rank kept; then it does the same again (--rounds 2). For each size and each estimator a
calibration could use (median, 10th and 25th percentile, minimum, mean) it prints round 2 / round 1: 1.00 is a
repeatable measurement; a ratio outside 0.87..1.15 is one no fit can predict within 15 %.

  /usr/bin/python3 tests/bench/gloo_repeatability.py --ranks 2 [--calls 60] [--pin] [--json FILE]

--pin binds rank r to CPU r mod cores (sched_setaffinity) before the group starts. The ranks run 1 intra-op thread.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

SIZES = [1 << k for k in range(10, 27, 2)]  # 1 KiB .. 64 MiB, as `fathom calibrate`'s default
ESTIMATORS = {
    "median": lambda v: quantile(v, 0.5),
    "p10": lambda v: quantile(v, 0.1),
    "p25": lambda v: quantile(v, 0.25),
    "min": min,
    "mean": statistics.mean,
}


def quantile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def worker(rank, args, port):
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    if args.pin:
        os.sched_setaffinity(0, {rank % os.cpu_count()})
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    rounds = []
    for _ in range(args.rounds):
        times = {}
        for size in SIZES:
            buffer = torch.ones(size // 4)
            dist.all_reduce(buffer)  # warm-up: connections, buffers
            calls = args.calls if size <= (1 << 20) else max(5, args.calls // 8)
            own = []
            dist.barrier()
            for _ in range(calls):
                start = time.perf_counter()
                dist.all_reduce(buffer)
                own.append(time.perf_counter() - start)
            slowest = torch.tensor(own, dtype=torch.float64)
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
            times[size] = slowest.tolist()
        rounds.append(times)
    if rank == 0:
        with open(args.raw, "w") as f:
            json.dump([{str(k): v for k, v in r.items()} for r in rounds], f)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=2, help="processes in the Gloo group (default 2)")
    parser.add_argument("--calls", type=int, default=60, help="timed calls per size up to 1 MiB (default 60)")
    parser.add_argument("--rounds", type=int, default=2, help="measurements of every size, one after the other (2)")
    parser.add_argument("--pin", action="store_true", help="bind rank r to CPU r mod cores")
    parser.add_argument("--port", type=int, default=29631, help="rendezvous port on 127.0.0.1 (default 29631)")
    parser.add_argument("--json", help="write every call's time and the ratios here")
    args = parser.parse_args()
    if args.ranks < 2 or args.calls < 5 or args.rounds < 2:
        parser.error(f"need --ranks >= 2, --calls >= 5, --rounds >= 2; got {args.ranks}, {args.calls}, {args.rounds}")
    try:
        import torch.multiprocessing as mp
    except ImportError:
        sys.exit("gloo_repeatability.py: this Python has no torch; run it with /usr/bin/python3 (python3-torch)")

    with tempfile.TemporaryDirectory() as tmp:
        args.raw = os.path.join(tmp, "times.json")
        mp.spawn(worker, args=(args, args.port), nprocs=args.ranks)
        with open(args.raw) as f:
            rounds = json.load(f)

    ratios = {}
    print(f"all_reduce over {args.ranks} Gloo ranks{' (pinned)' if args.pin else ''}: round N / round 1 per estimator")
    print(f"{'bytes':>9} {'calls':>5} {'median r1':>10} " + " ".join(f"{name:>7}" for name in ESTIMATORS))
    for size in SIZES:
        first = rounds[0][str(size)]
        row = {}
        for later in rounds[1:]:
            for name, estimate in ESTIMATORS.items():
                ratio = estimate(later[str(size)]) / estimate(first)
                # The ratio farthest from 1 over the later rounds, either way.
                if name not in row or abs(ratio - 1) > abs(row[name] - 1):
                    row[name] = ratio
        ratios[size] = row
        print(f"{size:>9} {len(first):>5} {quantile(first, 0.5) * 1e6:>8.0f}us "
              + " ".join(f"{row[name]:>7.2f}" for name in ESTIMATORS))
    outside = {name: sum(1 for r in ratios.values() if not 0.87 <= r[name] <= 1.15) for name in ESTIMATORS}
    print("sizes outside 0.87..1.15: " + ", ".join(f"{name} {n}/{len(SIZES)}" for name, n in outside.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ranks": args.ranks, "pin": args.pin, "calls": args.calls, "rounds": rounds,
                       "ratios": {str(k): v for k, v in ratios.items()}, "outside": outside}, f, indent=1)


if __name__ == "__main__":
    main()
