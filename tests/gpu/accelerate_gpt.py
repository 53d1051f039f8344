#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hugging Face Accelerate baseline for `fathom train --model gpt-small` (docs/gpu.md).

Does the same work as

    fathom launch --num_processes 1 fathom train --model gpt-small --batch_size B --steps S --optimizer adamw \\
        --lr 1e-3 --weight_decay 0.01 --seed 0 --mixed_precision bf16 --log_every 10 --json

in plain PyTorch driven by Accelerate (no `transformers`, nothing downloaded):

- model: Fathom's Gpt (core/src/models/gpt.cpp, gpt_block.cpp), which is nanoGPT's GPT with GPT-2 names: token and
  learned position embeddings, n_layer blocks of LayerNorm -> causal self-attention (c_attn to q, k, v; q·kᵀ/√d,
  the strict upper triangle masked to -inf, softmax, ·v; c_proj) -> residual, LayerNorm -> MLP (c_fc 4n, tanh GELU,
  c_proj) -> residual, a final LayerNorm, logits = x·wteᵀ (tied, no bias); biases everywhere, dropout 0; GPT-2
  init (N(0, 0.02), residual projections N(0, 0.02/√(2·n_layer)), zero biases, unit LayerNorm weights). The
  attention is written out as Fathom writes it, not scaled_dot_product_attention, so both sides run the same math.
  gpt-small: n_layer 6, n_head 6, n_embd 384, block_size 256, vocab 128: 10,795,008 parameters (checked);
- data: Fathom's CharTextDataset: the bytes of resources/corpus/kjv_genesis_exodus.txt, token id = rank of the byte
  among the file's distinct bytes, non-overlapping windows of block_size + 1 tokens (input = the first block_size,
  target = shifted by one), batches in file order, no shuffle, moved to the device every step by the prepared
  DataLoader;
- loss: cross-entropy on the logits cast to float32, outside autocast (as fathom train computes it);
- optimizer: torch.optim.AdamW(lr, weight_decay) with PyTorch's defaults (betas 0.9/0.999, eps 1e-8; on CUDA
  PyTorch picks its multi-tensor `foreach` implementation; LibTorch's C++ AdamW loops over the parameters);
- Accelerator(mixed_precision=...): bf16 autocast of the forward pass, fp32 parameters, as Fathom's --mixed_precision.

Timing, as fathom train: wall time from the start of the first step (its batch already fetched) to the end of the
last one after a device synchronize; at every --log_every step the loss is read back (.item(), a synchronization,
as fathom train's logged reduce is). tokens_per_second = steps · batch_size · block_size / loop_seconds;
`steady` repeats the numbers for the steps after the first logged step (warm-up such as cuBLAS handle creation
excluded). On CUDA, max_memory_allocated / max_memory_reserved are torch.cuda's peaks since the process started.

It prints one JSON object on stdout (`{"event":"summary",...}`, the fields fathom train's summary has plus the
configuration) and writes it to --json_out too. --backend plain runs the same loop without Accelerate (manual
autocast), for machines without it. Exit codes: 0 success; 2 bad arguments; 3 torch or accelerate cannot be
imported (the message says which and how to get it).
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DEFAULT_CORPUS = os.path.join(ROOT, "resources", "corpus", "kjv_genesis_exodus.txt")

# core/src/models/gpt_options.cpp gptPreset(): (n_layer, n_head, n_embd, block_size, vocab_size).
PRESETS = {
    "gpt-tiny": (2, 2, 64, 64, 128),
    "gpt-small": (6, 6, 384, 256, 128),
}
# gpt_options.h: the parameter counts the presets document (gptParameterCount).
PRESET_PARAMETERS = {"gpt-tiny": 112_384, "gpt-small": 10_795_008}

EXIT_MISSING_DEPENDENCY = 3


class MissingDependency(Exception):
    pass


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__[__doc__.index("\n\n") + 2:],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", choices=sorted(PRESETS), default="gpt-small",
                   help="Fathom's GPT preset whose dimensions to use (default gpt-small)")
    p.add_argument("--n_layer", type=int, help="override the preset's blocks")
    p.add_argument("--n_head", type=int, help="override the preset's attention heads")
    p.add_argument("--n_embd", type=int, help="override the preset's width")
    p.add_argument("--block_size", type=int, help="override the preset's context length (= tokens per sample)")
    p.add_argument("--vocab_size", type=int, help="override the preset's vocabulary size")
    p.add_argument("--steps", type=int, default=30, help="optimizer steps (default 30)")
    p.add_argument("--batch_size", type=int, default=32, help="samples per step (default 32)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight_decay", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mixed_precision", choices=["no", "bf16", "fp16"], default="bf16",
                   help="Accelerate's mixed_precision (default bf16)")
    p.add_argument("--log_every", type=int, default=10,
                   help="read the loss back every N steps, as fathom train --log_every does (0: never)")
    p.add_argument("--data_path", default=DEFAULT_CORPUS, help="text file (default: Fathom's shipped corpus)")
    p.add_argument("--backend", choices=["accelerate", "plain"], default="accelerate",
                   help="accelerate (default): Accelerator.prepare/backward/autocast; plain: the same loop in plain "
                        "PyTorch, for machines without Accelerate")
    p.add_argument("--device", default="auto",
                   help="plain backend: auto (cuda when available), cpu, cuda, cuda:N; accelerate picks its own "
                        "unless this is cpu")
    p.add_argument("--json_out", help="also write the summary object to this file")
    args = p.parse_args(argv)
    for name in ("steps", "batch_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.log_every < 0:
        p.error(f"--log_every must be >= 0, got {args.log_every}")
    dims = dict(zip(("n_layer", "n_head", "n_embd", "block_size", "vocab_size"), PRESETS[args.preset]))
    for key in dims:
        if getattr(args, key) is not None:
            if getattr(args, key) < 1:
                p.error(f"--{key} must be >= 1, got {getattr(args, key)}")
            dims[key] = getattr(args, key)
    if dims["n_embd"] % dims["n_head"] != 0:
        p.error(f"--n_embd ({dims['n_embd']}) must be a multiple of --n_head ({dims['n_head']})")
    args.dims = dims
    return args


def import_torch():
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise MissingDependency(
            f"PyTorch is not installed for {sys.executable} (import torch failed: {e}); install it "
            "(pip install torch, or Debian's python3-torch: installer/install-deps.sh --groups bench)") from e
    return torch


def import_accelerate():
    try:
        import accelerate
    except ImportError as e:
        raise MissingDependency(
            f"Hugging Face Accelerate is not installed for {sys.executable} (import accelerate failed: {e}); "
            "install it (pip install accelerate; Debian does not package it) or run with --backend plain for the "
            "same loop without Accelerate") from e
    return accelerate


def build_model(torch, dims):
    nn = torch.nn
    F = torch.nn.functional
    n_embd, n_head, n_layer = dims["n_embd"], dims["n_head"], dims["n_layer"]

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)

        def forward(self, x):
            b, t, _ = x.shape
            d = n_embd // n_head
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q, k, v = (z.view(b, t, n_head, d).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
            future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            att = F.softmax(att.masked_fill(future, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, n_embd)
            return self.c_proj(y)

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(n_embd, 4 * n_embd)
            self.c_proj = nn.Linear(4 * n_embd, n_embd)

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd, eps=1e-5)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd, eps=1e-5)
            self.mlp = Mlp()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(dims["vocab_size"], n_embd),
                wpe=nn.Embedding(dims["block_size"], n_embd),
                h=nn.ModuleList([Block() for _ in range(n_layer)]),
                ln_f=nn.LayerNorm(n_embd, eps=1e-5),
            ))
            # GPT-2 init in named_parameters() order, as Gpt::Gpt does.
            residual_std = 0.02 / math.sqrt(2.0 * n_layer)
            with torch.no_grad():
                for name, p in self.named_parameters():
                    if name.endswith(".bias"):
                        p.zero_()
                    elif ".ln_" in name:
                        p.fill_(1.0)
                    elif name.endswith("c_proj.weight"):
                        p.normal_(0.0, residual_std)
                    else:
                        p.normal_(0.0, 0.02)

        def forward(self, idx):
            t = idx.size(1)
            pos = torch.arange(t, device=idx.device)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            return F.linear(x, self.transformer.wte.weight)

    return Gpt()


def load_corpus(torch, path, block_size, vocab_size):
    with open(path, "rb") as f:
        text = f.read()
    if len(text) < block_size + 1:
        raise ValueError(f"{path} has {len(text)} bytes, fewer than block_size + 1 = {block_size + 1}")
    vocabulary = sorted(set(text))
    if len(vocabulary) > vocab_size:
        raise ValueError(f"{path} has {len(vocabulary)} distinct bytes, more than vocab_size {vocab_size}")
    id_of = {byte: i for i, byte in enumerate(vocabulary)}
    tokens = torch.tensor([id_of[b] for b in text], dtype=torch.long)
    n = (len(text) - 1) // block_size
    starts = torch.arange(n) * block_size
    offsets = torch.arange(block_size + 1)
    windows = tokens[starts[:, None] + offsets[None, :]]
    return windows[:, :-1].contiguous(), windows[:, 1:].contiguous()


def autocast_dtype(torch, mixed_precision):
    return {"bf16": torch.bfloat16, "fp16": torch.float16}.get(mixed_precision)


def run(args):
    torch = import_torch()
    accelerate = import_accelerate() if args.backend == "accelerate" else None
    torch.manual_seed(args.seed)
    dims = args.dims
    inputs, targets = load_corpus(torch, args.data_path, dims["block_size"], dims["vocab_size"])
    dataset = torch.utils.data.TensorDataset(inputs, targets)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=False)
    model = build_model(torch, dims)
    params = sum(p.numel() for p in model.parameters())
    expected = PRESET_PARAMETERS.get(args.preset)
    if expected is not None and dims == dict(zip(dims, PRESETS[args.preset])) and params != expected:
        raise AssertionError(f"{args.preset} has {params} parameters here but {expected} in Fathom")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    if accelerate is not None:
        accelerator = accelerate.Accelerator(mixed_precision=args.mixed_precision, cpu=args.device == "cpu")
        model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
        device = accelerator.device
        backward = accelerator.backward
        forward = model  # prepare() wrapped its forward in autocast

        def to_device(batch):
            return batch  # the prepared loader already moved it
    else:
        if args.device == "auto":
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        else:
            device = torch.device(args.device)
        model.to(device)
        dtype = autocast_dtype(torch, args.mixed_precision)
        if args.mixed_precision == "fp16":
            raise ValueError("--backend plain runs no loss scaler: use --mixed_precision bf16 or no")

        def forward(x):
            if dtype is None:
                return model(x)
            with torch.autocast(device_type=device.type, dtype=dtype):
                return model(x)

        def backward(loss):
            loss.backward()

        def to_device(batch):
            return [t.to(device, non_blocking=False) for t in batch]

    def synchronize():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    model.train()
    step = 0
    loop_start = None
    logged = []  # (step, seconds since loop start, loss)
    last_loss = None
    while step < args.steps:
        for batch in loader:
            if loop_start is None:
                loop_start = time.perf_counter()
            x, y = to_device(batch)
            logits = forward(x)
            loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.size(-1)), y.reshape(-1))
            backward(loss)
            optimizer.step()
            optimizer.zero_grad()
            last_loss = loss.detach()
            step += 1
            if args.log_every > 0 and (step % args.log_every == 0 or step == args.steps):
                logged.append((step, time.perf_counter() - loop_start, last_loss.item()))
            if step == args.steps:
                break
    synchronize()
    loop_seconds = time.perf_counter() - loop_start
    final_loss = last_loss.item()
    tokens_per_step = args.batch_size * dims["block_size"]
    summary = {
        "event": "summary",
        "backend": args.backend,
        "accelerate_version": getattr(accelerate, "__version__", None),
        "torch_version": torch.__version__,
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
        "mixed_precision": args.mixed_precision,
        "model": dict(dims, preset=args.preset, parameters=params),
        "batch_size": args.batch_size,
        "tokens_per_step": tokens_per_step,
        "optimizer": "torch.optim.AdamW(lr=%g, weight_decay=%g)" % (args.lr, args.weight_decay),
        "steps": step,
        "loop_seconds": loop_seconds,
        "steps_per_second": step / loop_seconds,
        "samples_per_second": step * args.batch_size / loop_seconds,
        "tokens_per_second": step * tokens_per_step / loop_seconds,
        "final_loss": final_loss,
        "logged": [{"step": s, "seconds": t, "loss": l} for s, t, l in logged],
        "steady": None,
    }
    if len(logged) >= 2:
        (s0, t0, _), (s1, t1, _) = logged[0], logged[-1]
        summary["steady"] = {"from_step": s0, "to_step": s1, "steps_per_second": (s1 - s0) / (t1 - t0),
                             "tokens_per_second": (s1 - s0) * tokens_per_step / (t1 - t0)}
    if device.type == "cuda":
        summary["cuda_memory"] = {"available": True, "device": str(device),
                                  "max_memory_allocated": torch.cuda.max_memory_allocated(device),
                                  "max_memory_reserved": torch.cuda.max_memory_reserved(device)}
    else:
        summary["cuda_memory"] = {"available": False, "reason": f"the device is {device}"}
    return summary


def main(argv=None):
    args = parse_args(argv)
    try:
        summary = run(args)
    except MissingDependency as e:
        print(f"accelerate_gpt.py: {e}", file=sys.stderr)
        return EXIT_MISSING_DEPENDENCY
    text = json.dumps(summary)
    print(text, flush=True)
    if args.json_out:
        with open(args.json_out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
