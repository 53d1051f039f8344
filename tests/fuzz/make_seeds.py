#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the seeds that are not copies of tests/data fixtures: binary ones (telemetry streams in the wire format of
# core/src/telemetry/protocol.cpp, safetensors files, gzip traces) and small text ones (command lines, plan files,
# parser inputs). Run from anywhere: `python3 tests/fuzz/make_seeds.py`; it rewrites tests/fuzz/corpus/ in place and
# is deterministic (the files are committed; rerun it after changing a format and commit the difference).
import gzip
import json
import shutil
import struct
from pathlib import Path

here = Path(__file__).resolve().parent
root = here.parent.parent
data = root / "tests" / "data"
corpus = here / "corpus"


def seed(target, name, content):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(content if isinstance(content, bytes) else content.encode())


def copy(target, src, name=None):
    seed(target, name or src.name, src.read_bytes())


# ---- configurations (config_yaml, deepspeed_json) -------------------------------------------------------------
import yaml  # python3-yaml, only to turn the YAML templates into JSON seeds

for f in sorted((data / "accelerate_templates").glob("*.yaml")):
    copy("config_yaml", f)
copy("config_yaml", data / "studio" / "wizard_fsdp.yaml")
seed("config_yaml", "env_and_flags.yaml",
     (data / "accelerate_templates" / "multi_gpu.yaml").read_text() +
     "\0ACCELERATE_MIXED_PRECISION=bf16\nFATHOM_TRACKERS=csv\n--num_processes=4\n--gradient_accumulation_steps=2\n")
seed("config_yaml", "fathom_section.yaml",
     "distributed_type: MULTI_GPU\nnum_processes: 2\nfathom:\n  workspace: runs.sqlite\n  trackers: [csv, jsonl]\n"
     "  planner:\n    hardware: a100-80gb\n    micro_batch: 4\n    seq: 1024\n")
ds = yaml.safe_load((data / "accelerate_templates" / "deepspeed.yaml").read_text())
seed("deepspeed_json", "deepspeed_template.json", json.dumps(ds, indent=2))
seed("deepspeed_json", "zero3_offload.json", json.dumps({
    "compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "mixed_precision": "bf16",
    "num_machines": 1, "num_processes": 8, "deepspeed_config": {
        "zero_stage": 3, "offload_optimizer_device": "cpu", "offload_param_device": "cpu",
        "gradient_accumulation_steps": 4, "gradient_clipping": 1.0, "zero3_init_flag": True,
        "zero3_save_16bit_model": True}}))
seed("deepspeed_json", "ds_config_file.json", json.dumps({
    "distributed_type": "DEEPSPEED", "num_processes": 2,
    "deepspeed_config": {"deepspeed_config_file": "ds_config.json", "zero3_init_flag": False}}) +
    "\0ACCELERATE_DEEPSPEED_ZERO_STAGE=2\n--num_processes=2\n")

# ---- Hugging Face config.json, plans, hardware -----------------------------------------------------------------
for d in sorted((data / "hf_configs").iterdir()):
    copy("hf_config", d / "config.json", d.name + ".json")
seed("plan_file", "flat.yaml", "strategy: fsdp\nnum_gpus: 8\narch: llama\nlayers: 32\nhidden: 4096\nheads: 32\n"
     "vocab: 32000\nmicro_batch: 1\nseq: 4096\nprecision: bf16\nhardware: h100\n")
seed("plan_file", "flat.json", json.dumps({"strategy": "zero3", "num_gpus": 16, "params": 7000000000,
                                           "micro_batch": 2, "grad_accum": 4, "offload_optimizer": True}))
seed("plan_file", "tp_pp.yaml", "strategy: ddp\nnum_gpus: 8\ntp: 2\npp: 2\narch: gpt2\nlayers: 12\nhidden: 768\n"
     "heads: 12\nvocab: 50257\nrecompute: full\nsequence_parallel: true\n")
seed("plan_file", "configuration.yaml",
     (data / "accelerate_templates" / "fsdp.yaml").read_text() +
     "fathom:\n  planner:\n    params: 1300000000\n    micro_batch: 2\n    seq: 2048\n    hardware: a100-80gb\n")
copy("plan_json", data / "saved_plan_v3.input.json")
for f in sorted((root / "resources" / "hardware").glob("*.yaml")):
    copy("hardware", f)
copy("hardware", data / "hardware" / "this-machine-quick.yaml")  # a `fathom calibrate --quick` profile
# The same profile fitted to a profiled run (`fathom plan --calibrate_from RUN`): its calibration gains run_fit.
seed("hardware", "this-machine-fitted.yaml", (data / "hardware" / "this-machine-quick.yaml").read_text() +
     "  run_fit:\n    fitted_at: 2026-11-28T18:11:02Z\n    run: 16\n    run_name: \"fit-gpt192x3-b3-ddp-2p\"\n"
     "    processes: 2\n    threads: 1\n    ranks: 2\n    steps: 6\n    measured_step_s: 0.2144\n"
     "    factors: {matmul: 1.062, attention: 1.031, elementwise: 2.791, optimizer: 0.493}\n"
     "    overhead_per_micro_step_s: 0.0017\n"
     "    collectives:\n      - {kind: all_reduce, ranks: 2, factor: 3.806, calls_per_step: 2}\n")

# ---- command lines (one word a line) ---------------------------------------------------------------------------
def words(*w):
    return "\n".join(w)

seed("plan_flags", "dims.txt", words("plan", "--arch", "llama", "--layers", "32", "--hidden", "4096", "--heads", "32",
                                     "--vocab", "32000", "--num_processes", "8", "--strategy", "fsdp", "--json"))
seed("plan_flags", "params.txt", words("plan", "--params", "7.5e9", "--hardware", "a100-80gb", "--num_machines", "2",
                                       "--num_processes", "16", "--strategy", "zero3", "--offload_optimizer_device",
                                       "cpu", "--micro_batch", "2", "--seq", "2048", "--explain"))
seed("plan_flags", "search.txt", words("plan", "search", "--params", "1.3e9", "--num_processes", "8",
                                       "--global_batch", "64", "--top", "3"))
seed("plan_flags", "model.txt", words("plan", "--model", "gpt-tiny", "--num_processes", "2", "--mixed_precision",
                                      "bf16"))
seed("shard_flags", "basic.txt", words("--num_samples", "10", "--batch_size", "3", "--num_processes", "2"))
seed("shard_flags", "split.txt", words("--num_samples=17", "--batch_size=4", "--num_processes=2", "--split_batches",
                                       "--even_batches", "false", "--drop_last", "--json"))
seed("shard_flags", "seed.txt", words("--num-samples", "9", "--batch-size", "2", "--num-processes", "3", "--seed",
                                      "42", "--epoch", "1", "--skip_batches", "1", "--iterable"))

# ---- small text parsers (first byte selects the parser) --------------------------------------------------------
for i, text in enumerate([b"\x001,1,3,2", b"\x002,0,1,2,0", b"\x01window_3/profile_12.json.gz",
                          b"\x01profile_merged.json", b"\x02127.0.0.1:29500",
                          b'\x03{"event":"rank_started","rank":1,"local_rank":1,"attempt":0,"pid":4242}',
                          b'\x03{"event":"finished","run_id":3,"status":"finished","exit_code":0,"attempts":1,'
                          b'"failed_rank":null,"interrupted_by":null}',
                          b'\x03{"event":"run","version":1,"run_id":3,"name":"r","workspace":"w.sqlite",'
                          b'"world_size":2,"ranks":[0,1]}',
                          b"\x04--model\ngpt\n--n_layer\n4\n--n_embd=64\n--lr\n0.1",
                          b"\x05FATHOM_TRACKERS=csv,jsonl\nFATHOM_PROJECT_DIR=/tmp/p\nFATHOM_PROFILER__ACTIVITIES=cpu",
                          b"\x06FAILED|768|", b"\x06CANCELLED|15|", b"\x07CANCELLED by 0|0:15\n",
                          b"\x07COMPLETED|0:0"]):
    seed("text_values", f"seed_{i}.bin", text)

# ---- telemetry streams ------------------------------------------------------------------------------------------
def frame(kind, body):
    return struct.pack("<IB", len(body) + 1, kind) + body

def short(s):
    s = s.encode()
    return struct.pack("<H", len(s)) + s

def long_(s):
    s = s if isinstance(s, bytes) else s.encode()
    return struct.pack("<I", len(s)) + s

hello = frame(1, b"FTHM" + struct.pack("<Hiq", 4, 0, 1234) + short("ab" * 32) + short("host"))
point = struct.pack("<qdd", 7, 1.5, 0.25) + short("train/loss")
stream = (hello + frame(2, struct.pack("<QI", 1, 2) + point + point) +
          frame(3, struct.pack("<Qdqqqq", 2, 2.0, 7, 1 << 20, 2 << 20, 3 << 20)) +
          frame(4, struct.pack("<QdB", 3, 2.5, 2) + long_("a log line")) +
          frame(5, struct.pack("<QdqB", 4, 3.0, 7, 0)) +
          frame(5, struct.pack("<QdqB", 5, 3.5, 8, 7) + struct.pack("<QBiq", 11, 0, 2, 4096) + short("default") +
                struct.pack("<QBiq", 10, 1, 2, 64) + short("default") + struct.pack("<qd", 8, 12.5)) +
          frame(6, struct.pack("<Qd", 6, 4.0) + short("profile_0.json") + long_('{"traceEvents":[]}')) +
          frame(8, struct.pack("<QdB", 7, 4.5, 0) + long_("/tmp/run/profile_0.json") + struct.pack("<q", 18)) +
          frame(9, struct.pack("<Q", 8) + short("fsdp") + short("full_shard") + short("bf16")) +
          frame(7, struct.pack("<Q", 9)))
seed("telemetry", "session.bin", stream)
seed("telemetry", "hello_only.bin", hello)
seed("telemetry", "old_version.bin", frame(1, b"FTHM" + struct.pack("<H", 3)))

# ---- safetensors ------------------------------------------------------------------------------------------------
def safetensors(header, payload):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + payload

seed("safetensors", "two_tensors.safetensors", safetensors(
    {"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
     "b": {"dtype": "I64", "shape": [1], "data_offsets": [16, 24]}},
    struct.pack("<4f", 1, 2, 3, 4) + struct.pack("<q", 5)))
seed("safetensors", "bool_bf16_empty.safetensors", safetensors(
    {"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]},
     "h": {"dtype": "BF16", "shape": [2], "data_offsets": [3, 7]},
     "e": {"dtype": "F16", "shape": [0, 4], "data_offsets": [7, 7]}},
    b"\x01\x00\x01" + b"\x80\x3f\x00\x40"))
seed("safetensors", "scalar_u8.safetensors", safetensors(
    {"s": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]}}, b"\x07"))

# ---- traces ------------------------------------------------------------------------------------------------------
good = (data / "traces" / "kineto_good_rank0.json").read_bytes()
small = json.dumps({"traceEvents": [
    {"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10.5, "dur": 100},
    {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 20, "dur": 30.25, "args": {"a": [1]}},
    {"ph": "s", "id": 7, "name": "flow", "cat": "ac2g", "pid": 1, "tid": 1, "ts": 21},
    {"ph": "f", "id": 7, "name": "flow", "cat": "ac2g", "pid": 2, "tid": 5, "ts": 60, "bp": "e"},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 30, "args": {"bytes": 1024}},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "rank 0"}}],
    "distributedInfo": {"rank": 0, "world_size": 2, "backend": "gloo"}, "baseTimeNanoseconds": 1700000000000000000},
    separators=(",", ":")).encode()
array_form = b'[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":2.500},'
# PyTorch's legacy (pre-Kineto) layout: no cat, string pid "CPU functions", Gloo's work spans (summaryCategory)
legacy = ('[{"name": "ProfilerStep#0", "ph": "X", "ts": 0, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}}, '
          '{"name": "aten::mm", "ph": "X", "ts": 5, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}}, '
          '{"name": "aten::t", "ph": "X", "ts": 5, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}}, '
          '{"name": "gloo:all_reduce", "ph": "X", "ts": 50, "dur": 20, "tid": 3, "pid": "CPU functions", "args": {}}, '
          '{"name": "gloo:", "ph": "X", "ts": 80, "dur": 1, "tid": 2, "pid": "CPU functions", "args": {}}, '
          '{"name": "aten::relu", "ph": "X", "ts": 90, "dur": 5, "tid": 1, "pid": 7, "args": {}}]')
for target in ("trace_reader", "trace_validator"):
    seed(target, "pytorch_legacy.json", legacy)
    seed(target, "kineto_good_rank0.json", good)
    seed(target, "small_object.json", small)
    seed(target, "array_unclosed.json", array_form)
    seed(target, "escapes.json", '{"traceEvents":[{"ph":"i","name":"\\u00e9\\ud83d\\ude00\\n","pid":1,"tid":1,'
                                 '"ts":"5","s":"g"}],"displayTimeUnit":"ns"}')
seed("trace_gzip", "kineto_good_rank0.json.gz", gzip.compress(good, mtime=0))
seed("trace_gzip", "small_two_members.json.gz", gzip.compress(small[:40], mtime=0) + gzip.compress(small[40:], mtime=0))
seed("trace_gzip", "truncated.json.gz", gzip.compress(small, mtime=0)[:-20])
seed("trace_gzip", "plain.json", small)

# ---- checkpoints (index.json, then NUL and a manifest.json) -------------------------------------------------------
# The index fits the checkpoint fuzz_checkpoint.cpp builds: one FSDP unit "h.0" of 8 elements, half in each rank file.
index = {"format": "fathom.shard_index.v1", "world_size": 2, "tensors": {"model/h.0": {
    "global_shape": [8],
    "layout": {"numel": 7, "padded": 8, "parameters": [{"name": "h.0.weight", "offset": 0, "shape": [2, 3]},
                                                       {"name": "h.0.bias", "offset": 6, "shape": [1]}]},
    "shards": [{"rank": 0, "file": "model_rank0.safetensors", "key": "h.0", "offset": 0, "numel": 4},
               {"rank": 1, "file": "model_rank1.safetensors", "key": "h.0", "offset": 4, "numel": 4}]}}}
manifest = {"format": "fathom.checkpoint", "version": 1, "fathom_version": "0.3.0", "world_size": 2,
            "strategy": "fsdp", "info": {"fsdp_sharding": "FULL_SHARD", "optimizer_steps": "12"},
            "files": {"model_rank0.safetensors": {"bytes": 160, "crc32": "0badf00d", "rank": 0},
                      "index.json": {"bytes": 512, "crc32": "00c0ffee", "rank": 0}}}
seed("checkpoint", "index.json", json.dumps(index, indent=1))
seed("checkpoint", "index_and_manifest.bin", json.dumps(index) + "\0" + json.dumps(manifest, indent=2))
hybrid = json.loads(json.dumps(index))
hybrid["tensors"]["model/h.0"]["shards"].append(dict(index["tensors"]["model/h.0"]["shards"][0], rank=2))
seed("checkpoint", "hybrid_repeat.json", json.dumps(hybrid))

# ---- multi-node launch (agent spec JSON, then NUL and a hostfile) -------------------------------------------------
spec = {"command": ["python3", "train.py", "--lr", "1e-3"], "num_processes": 4, "num_machines": 2, "machine_rank": 1,
        "main_process_ip": "10.0.0.1", "main_process_port": 29500, "mixed_precision": "bf16",
        "gradient_accumulation_steps": 2, "cpu": False, "use_fsdp": True, "use_deepspeed": False,
        "use_megatron_lm": False, "fsdp": {"fsdp_sharding_strategy": "FULL_SHARD", "fsdp_offload_params": "false"},
        "zero_stage": None, "offload_optimizer_device": None, "offload_param_device": None,
        "num_cpu_threads_per_process": 2, "monitor_interval_ms": 100, "tee": 3, "log_dir": "/tmp/logs",
        "quiet": False, "debug": False, "gpu_ids": "all", "fathom_variables": [["FATHOM_WORKSPACE", "w.sqlite"]],
        "terminate_grace_period_ms": 5000, "tail_lines": 20, "working_directory": "/home/u/project",
        "environment": [["NCCL_DEBUG", "INFO"], ["OMP_NUM_THREADS", "4"]], "fathom_version": "0.1.0",
        "tunnel_socket": "/tmp/fathom-telemetry-0123456789abcdef-1.sock"}
seed("launch_spec", "spec.json", json.dumps(spec))
seed("launch_spec", "spec_and_hostfile.bin",
     json.dumps(dict(spec, num_machines=1, machine_rank=0, zero_stage=3, use_fsdp=False, use_deepspeed=True,
                     fsdp={})) +
     "\0# two workers\nworker-1 slots=4\nuser@worker-2.example.com slots=2\n\n[fe80::1] slots=1 # v6\n")
seed("launch_spec", "hosts_list.bin", "{}\0node1,node2,admin@10.0.0.3")

# ---- device-map requests (a module tree and one call of Accelerate's, as `fathom device-map --request` reads them) ---
# One file per case of Accelerate's asserted tests, without the case's id, source and expected answer.
for case in json.loads((data / "device_map" / "accelerate_asserted_cases.json").read_text()):
    seed("device_map", case["id"] + ".json",
         json.dumps({"model": case["model"], "call": case["call"]}, separators=(",", ":")))
# Fathom's plan_device_map, one request per strategy, on an asserted model with tied parameters and two GPUs.
_tied = next(c for c in json.loads((data / "device_map" / "accelerate_asserted_cases.json").read_text())
             if c["id"] == "idm_tied_layer3_to_layer1")
for strategy in ["auto", "balanced", "balanced_low_0", "sequential", "optimal"]:
    args = {k: v for k, v in _tied["call"]["args"].items() if k != "verbose"}
    seed("device_map", "plan_" + strategy + ".json",
         json.dumps({"model": _tied["model"], "call": {"function": "plan_device_map",
                                                       "args": dict(args, strategy=strategy)}},
                    separators=(",", ":")))

# ---- sharded checkpoint indexes (model.safetensors.index.json), after a NUL byte the config.json beside them ---------
def index(names, shards=2, total=None):
    weight_map = {n: "model-%05d-of-%05d.safetensors" % (1 + i * shards // len(names), shards)
                  for i, n in enumerate(names)}
    out = {"metadata": {"total_size": total} if total is not None else {}, "weight_map": weight_map}
    return json.dumps(out, indent=2, sort_keys=True)


tiny_gpt2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_head": 2, "n_layer": 2,
             "n_positions": 16, "vocab_size": 10}
gpt2_names = ["wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"]
for i in range(2):
    for m in ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"]:
        gpt2_names += ["h.%d.%s.weight" % (i, m), "h.%d.%s.bias" % (i, m)]
    gpt2_names += ["h.%d.attn.bias" % i, "h.%d.attn.masked_bias" % i]
seed("safetensors_index", "gpt2_unprefixed.bin", index(gpt2_names) + "\0" + json.dumps(tiny_gpt2))

tiny_llama = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 8,
              "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 2, "intermediate_size": 16,
              "vocab_size": 10, "torch_dtype": "bfloat16"}
llama_names = ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"]
for i in range(2):
    for m in ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
              "mlp.up_proj", "mlp.down_proj", "input_layernorm", "post_attention_layernorm"]:
        llama_names.append("model.layers.%d.%s.weight" % (i, m))
seed("safetensors_index", "llama.bin", index(llama_names, 3, 2704) + "\0" + json.dumps(tiny_llama))
seed("safetensors_index", "llama_classifier.bin",
     index(llama_names[:-1] + ["score.weight"]) + "\0" +
     json.dumps(dict(tiny_llama, architectures=["LlamaForSequenceClassification"])))
seed("safetensors_index", "mixtral_experts.json",
     index(["model.layers.0.block_sparse_moe.experts.%d.w%d.weight" % (e, w) for e in range(3) for w in (1, 2, 3)] +
           ["model.layers.0.block_sparse_moe.gate.weight", "model.layers.10.input_layernorm.weight"], 1))
seed("safetensors_index", "no_metadata.json",
     json.dumps({"weight_map": {"a.0.weight": "a.safetensors", "a.1.weight": "b.safetensors", "scale": "a.safetensors"}}))
