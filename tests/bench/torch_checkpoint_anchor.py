#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_checkpoint.py's Python anchor: torch.save (flushed and fsynced) and torch.load of a Fathom checkpoint's
model and optimizer tensors as one state dict ({"model": {...}, "optimizer_rank0": {...}, ...}: each file's tensors
under its name), one file, as a Python training script saves them. The tensors are read from the checkpoint's model and optimizer safetensors files with plain
Python (the safetensors layout: 8-byte header length, JSON header, data), so no safetensors package is needed.

    python3 tests/bench/torch_checkpoint_anchor.py CHECKPOINT_FOLDER WORK_FOLDER REPEATS

Prints one JSON object per repeat: {"save_s", "load_s", "bytes"}.
"""
import json
import os
import struct
import sys
import time

import torch

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64,
          "I64": torch.int64, "I32": torch.int32, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        raw = bytearray(data[base + begin:base + end])
        tensor = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = tensor.reshape(entry["shape"]).clone()
    return out


def main():
    checkpoint, work, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
    # model.safetensors, and the optimizer as saved (one file, or one per process for FSDP): every tensor once.
    names = sorted(n for n in os.listdir(checkpoint)
                   if n.endswith(".safetensors") and (n.startswith("model") or n.startswith("optimizer")))
    state = {n[:-len(".safetensors")]: read_safetensors(os.path.join(checkpoint, n)) for n in names}
    path = os.path.join(work, "torch_state.pt")
    for _ in range(repeats):
        start = time.perf_counter()
        with open(path, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        save = time.perf_counter() - start
        nbytes = os.path.getsize(path)
        start = time.perf_counter()
        torch.load(path)
        load = time.perf_counter() - start
        os.remove(path)
        print(json.dumps({"save_s": save, "load_s": load, "bytes": nbytes}), flush=True)


if __name__ == "__main__":
    main()
