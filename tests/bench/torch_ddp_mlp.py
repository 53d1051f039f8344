#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch DDP baseline for `fathom train --model mlp --dataset regression --optimizer sgd` (docs/benchmarks.md).

Does the same work as

    fathom launch --num_processes N fathom train --model mlp --hidden H --layers L --batch_size B --steps S \
        --optimizer sgd --lr 0.01 --seed 0 --dataset regression --log_every 0 --json

- model: nn.Sequential of L blocks Linear(H,H)+ReLU, then Linear(H,1); PyTorch's default initialisation;
- data: a fixed regression set of --dataset_size samples (4096) generated up front, x ~ N(0,1) of dim H,
  y = x.w / sqrt(H) + 0.1 noise; every step each rank gathers its own B rows (a different slice per rank, as
  Accelerate's batch-sampler sharding gives: rank r takes batch j*W + r) from the pre-generated tensors with
  index_select; in dataset order, or a new seeded permutation every epoch with --shuffle (fathom train --shuffle);
  no DataLoader, no workers;
- DistributedDataParallel over Gloo on 127.0.0.1 (bucket_cap_mb=25, gradients averaged), SGD without momentum,
  MSE loss.

Timing: rank 0's wall time from the start of the first step to the end of the last step (setup, data generation,
DDP construction and a barrier before the loop excluded). Rank 0 prints a `{"event":"config",...}` line and then
one summary line in fathom train's format:
    {"event":"summary","steps":S,"loop_seconds":T,"steps_per_second":X,"samples_per_second":Y,"final_loss":L,
     "world_size":W}
samples_per_second counts the samples of all ranks (S*B*W/T); final_loss is the last step's loss averaged over the
ranks (all-reduced after the timed loop), as fathom train reports it.

Processes: by default the script spawns --num_processes workers itself (torch.multiprocessing). When RANK and
WORLD_SIZE are already set (e.g. under `fathom launch` or torchrun) it runs as that one rank instead.

Threads: --threads T calls torch.set_num_threads(T) in every rank (and sets OMP_NUM_THREADS). Without it the
launchers' rule applies: OMP_NUM_THREADS if set, else 1 when more than one process runs (torchrun and
`fathom launch` both do this), else LibTorch's default. The config line records torch.get_num_threads().

Profiling: --profile DIR wraps every rank's loop in torch.profiler (CPU activities; schedule wait=1, warmup=1,
active=3, repeat=1, the default of `fathom train --profile_schedule`) with prof.step() after every optimizer step,
so steps 3-5 are recorded as ProfilerStep#2-#4; when they end, each rank writes a Chrome trace to
DIR/profile_<rank>.json (`fathom trace summary DIR/profile_0.json` reads it). The profiler's cost and the export
fall inside the timed loop: a profiled run's summary line is no benchmark number. Without --profile the loop is
untouched.
"""
import argparse
import json
import math
import os
import socket
import sys
import time


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hidden", type=int, default=256, help="H: width of every hidden layer and of the input")
    p.add_argument("--layers", type=int, default=2, help="L: number of Linear(H,H)+ReLU blocks")
    p.add_argument("--batch_size", type=int, default=8, help="B: samples per rank per step")
    p.add_argument("--steps", type=int, default=100, help="S: optimizer steps")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dataset_size", type=int, default=4096, help="samples in the fixed regression set")
    p.add_argument("--shuffle", action="store_true", help="a new seeded permutation every epoch (default: in order)")
    p.add_argument("--num_processes", type=int, default=2,
                   help="ranks to spawn (ignored when RANK/WORLD_SIZE are set by a launcher)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch.set_num_threads in every rank (default: the launcher rule, see above)")
    p.add_argument("--port", type=int, default=0, help="rendezvous port when spawning (default: a free one)")
    p.add_argument("--bucket_cap_mb", type=float, default=25.0)
    p.add_argument("--profile", metavar="DIR", default=None,
                   help="record steps 3-5 with torch.profiler (CPU) and write a Chrome trace per rank to "
                        "DIR/profile_<rank>.json; the summary's timing then includes the profiler's cost")
    return p.parse_args(argv)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolve_threads(args, world_size):
    """The thread count every rank uses, or None to leave LibTorch's default."""
    if args.threads is not None:
        return args.threads
    env = os.environ.get("OMP_NUM_THREADS")
    if env:
        return int(env)
    return 1 if world_size > 1 else None


def train_step(ddp, opt, loss_fn, x, y, idx):
    """One optimizer step on the rows `idx`. A function of its own, not a closure in worker(): with the model held in
    a closure's cell, PyTorch 1.13's Gloo ranks did not exit after destroy_process_group() (one spun a core until
    killed)."""
    xb = x.index_select(0, idx)
    yb = y.index_select(0, idx)
    opt.zero_grad(set_to_none=True)
    step_loss = loss_fn(ddp(xb), yb)
    step_loss.backward()
    opt.step()
    return step_loss


def make_profiler(directory, rank):
    """torch.profiler over the loop (CPU only); on_trace_ready writes directory/profile_<rank>.json. Its names are
    fixed here because tensorboard_trace_handler's (host_pid.timestamp.pt.trace.json) are not."""
    import torch.profiler as tp

    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"profile_{rank}.json")

    def write_trace(prof):
        prof.export_chrome_trace(path)
        print(f"torch_ddp_mlp: rank {rank}: trace written to {path}", file=sys.stderr, flush=True)

    return tp.profile(activities=[tp.ProfilerActivity.CPU],
                      schedule=tp.schedule(wait=1, warmup=1, active=3, repeat=1), on_trace_ready=write_trace)


def worker(rank, world_size, args, threads):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    if threads is not None:
        torch.set_num_threads(threads)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world_size)
    try:
        H, L, B, S, N = args.hidden, args.layers, args.batch_size, args.steps, args.dataset_size
        torch.manual_seed(args.seed)  # same model init and data on every rank (DDP broadcasts rank 0's anyway)
        blocks = []
        for _ in range(L):
            blocks += [nn.Linear(H, H), nn.ReLU()]
        model = nn.Sequential(*blocks, nn.Linear(H, 1))

        gen = torch.Generator().manual_seed(args.seed + 1)
        x = torch.randn(N, H, generator=gen)
        w = torch.randn(H, 1, generator=gen)
        y = x @ w / math.sqrt(H) + 0.1 * torch.randn(N, 1, generator=gen)

        ddp = DDP(model, bucket_cap_mb=args.bucket_cap_mb)
        opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.0)
        loss_fn = nn.MSELoss()

        per_epoch = N // (world_size * B)
        if per_epoch < 1:
            raise SystemExit(f"torch_ddp_mlp: dataset_size {N} < world_size*batch_size {world_size * B}")

        # Batch indices for every step, computed before the loop (a sampler's work, not timed): each epoch the
        # dataset order (or with --shuffle a new permutation), shared by all ranks; step j of an epoch gives rank r
        # rows order[(j*W + r)*B : ... + B].
        batches = []
        epoch = 0
        while len(batches) < S:
            if args.shuffle:
                perm = torch.randperm(N, generator=torch.Generator().manual_seed(args.seed + 1000 + epoch))
            else:
                perm = torch.arange(N)
            for j in range(per_epoch):
                start = (j * world_size + rank) * B
                batches.append(perm[start:start + B].clone())
                if len(batches) == S:
                    break
            epoch += 1

        prof = make_profiler(args.profile, rank) if args.profile else None
        dist.barrier()
        t0 = time.perf_counter()
        loss = None
        if prof is None:
            for idx in batches:
                loss = train_step(ddp, opt, loss_fn, x, y, idx)
        else:  # the same steps, each closed by prof.step()
            with prof:
                for idx in batches:
                    loss = train_step(ddp, opt, loss_fn, x, y, idx)
                    prof.step()
        last = loss.detach() if loss is not None else torch.tensor(float("nan"))
        t1 = time.perf_counter()
        dist.all_reduce(last)  # mean over the ranks, outside the timed loop
        final_loss = last.item() / world_size

        if rank == 0:
            T = t1 - t0
            print(json.dumps({"event": "config", "framework": "torch", "torch_version": torch.__version__,
                              "threads": torch.get_num_threads(), "hidden": H, "layers": L, "batch_size": B,
                              "dataset_size": N, "shuffle": args.shuffle,
                              "bucket_cap_mb": args.bucket_cap_mb}), flush=True)
            print(json.dumps({"event": "summary", "steps": S, "loop_seconds": T,
                              "steps_per_second": S / T if T > 0 else 0.0,
                              "samples_per_second": S * B * world_size / T if T > 0 else 0.0,
                              "final_loss": final_loss, "world_size": world_size}), flush=True)
    finally:
        dist.destroy_process_group()


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch.multiprocessing as mp
    except ImportError:
        sys.exit(f"torch_ddp_mlp: {sys.executable} cannot import torch. Debian's python3-torch (sudo "
                 "installer/install-deps.sh --groups bench) is for /usr/bin/python3: run the script with it")

    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by a launcher: be that one rank
        world_size = int(os.environ["WORLD_SIZE"])
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        worker(int(os.environ["RANK"]), world_size, args, resolve_threads(args, world_size))
        return

    world_size = args.num_processes
    threads = resolve_threads(args, world_size)
    if threads is not None:
        os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port or free_port())
    if world_size == 1:
        worker(0, 1, args, threads)
    else:
        mp.spawn(worker, args=(world_size, args, threads), nprocs=world_size, join=True)


if __name__ == "__main__":
    main()
