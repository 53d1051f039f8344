#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates pytorch_legacy_ddp_rank0.json.gz: rank 0's trace of a real 2-rank Gloo DDP run profiled by
torch.profiler in a PyTorch without Kineto (Debian's 1.13), which exports the legacy layout: a JSON array, no `cat`,
every CPU event in the process "CPU functions", Gloo's work on its own threads. Used by tst_timeline_index (the
summary and the timeline read it as Kineto would have categorised it; docs/traces.md, "Summary").
Run from the repository root:  /usr/bin/python3 tests/data/traces/make_pytorch_legacy_trace.py
"""
import gzip
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.profiler as profiler

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_legacy_ddp_rank0.json.gz")


def run(rank: int, world: int, port: int, trace: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU]) as prof:
        for step in range(3):
            with profiler.record_function(f"ProfilerStep#{step}"):
                opt.zero_grad()
                model(torch.randn(16, 256)).sum().backward()
                opt.step()
    if rank == 0:
        prof.export_chrome_trace(trace)
    dist.barrier()
    dist.destroy_process_group()


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "rank0.json")
        mp.spawn(run, args=(2, 29000 + os.getpid() % 1000, trace), nprocs=2)
        with open(trace, "rb") as f:
            text = f.read()
    if not text.lstrip().startswith(b"["):
        print("this PyTorch exported a Kineto trace, not the legacy layout: use one built without Kineto "
              "(Debian's python3-torch)", file=sys.stderr)
        return 1
    with gzip.GzipFile(OUT, "wb", compresslevel=9, mtime=0) as f:
        f.write(text)
    print(f"wrote {OUT} ({len(text)} bytes of JSON)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
