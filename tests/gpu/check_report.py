#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the report of tests/gpu/check.sh (docs/gpu.md): OUT/gpu_check.json and OUT/gpu_check.md from the step
records (WORK/steps/*.json, written by `check_steps.py record`) and the analyses' results (WORK/data/*.json).

check.sh runs it after every step, so a run cut short still leaves a report of what ran; --final marks the last one.
The JSON holds everything (every step with its status, time, time box, reason and output tail; every result); the
Markdown is what docs/gpu.md's "Results" section takes, with the tail of each failed step's output.

    python3 tests/gpu/check_report.py --work build/gpu-check --out OUT [--final]
"""
import argparse
import glob
import json
import os
import sys
import time

STATUSES = ("passed", "failed", "timed_out", "skipped")


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def collect(work):
    data = os.path.join(work, "data")
    steps = [load(p) for p in sorted(glob.glob(os.path.join(work, "steps", "*.json")))]
    steps = [s for s in steps if s]
    counts = {s: sum(1 for r in steps if r["status"] == s) for s in STATUSES}
    train = {}
    for path in sorted(glob.glob(os.path.join(data, "train_*.json"))):
        r = load(path)
        if r:
            train[r["name"]] = r
    results = {
        "env": load(os.path.join(data, "env.json")),
        "accelerate": load(os.path.join(data, "accelerate.json")),
        "train": train,
        "plan": load(os.path.join(data, "plan.json")),
        "profile_runs": {n: load(os.path.join(data, f"profile_{n}.json")) for n in ("none", "cpu", "cuda")},
        "trace": load(os.path.join(data, "trace.json")),
        "overhead": load(os.path.join(data, "overhead.json")),
        "dispatch": load(os.path.join(data, "dispatch.json")),
        "calibrate": load(os.path.join(data, "calibrate.json")),
    }
    # Fathom's side: the bf16 DDP run without --stats_json (whose per-step loss read-back synchronizes the device,
    # which the baseline does not do), else the training run with it.
    fathom = results["profile_runs"]["none"] or train.get("ddp_bf16")
    results["comparison"] = comparison(fathom, results["accelerate"])
    return {
        "schema": 1,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config": load(os.path.join(data, "config.json"), {}),
        "machine": load(os.path.join(data, "probe.json"), {}),
        "summary": dict(counts, ran=counts["passed"] + counts["failed"] + counts["timed_out"],
                        seconds=round(sum(s.get("seconds") or 0 for s in steps), 2)),
        "steps": steps,
        "results": results,
    }


def comparison(fathom, accelerate):
    """Fathom's bf16 DDP tokens/s over the Accelerate baseline's (the same model, data, batch, steps, optimizer)."""
    if not fathom or not accelerate:
        return None
    out = {
        "fathom_run": "ddp_bf16 without --stats_json" if fathom["name"] == "none" else f"{fathom['name']} (with "
                      "--stats_json: a device sync per step)",
        "fathom_tokens_per_second": fathom.get("tokens_per_second"),
        "baseline": f"{accelerate.get('backend')} on {accelerate.get('device')}",
        "baseline_tokens_per_second": accelerate.get("tokens_per_second"),
        "goal": 1.1,
    }
    if out["fathom_tokens_per_second"] and out["baseline_tokens_per_second"]:
        out["ratio"] = out["fathom_tokens_per_second"] / out["baseline_tokens_per_second"]
    steady_f = (fathom.get("steady") or {}).get("tokens_per_second")
    steady_a = (accelerate.get("steady") or {}).get("tokens_per_second")
    if steady_f and steady_a:
        out["steady_ratio"] = steady_f / steady_a
    return out


# ---- Markdown -----------------------------------------------------------------------------------------------------

def num(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def mib(v):
    return "–" if v is None else f"{v / 2**20:,.1f} MiB"


def pct(v):
    return "–" if v is None else f"{100 * v:+.1f}%"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def first_line(text):
    for line in reversed((text or "").splitlines()):
        if line.strip():
            return line.strip()[:160]
    return ""


def markdown(report, final):
    m = report["machine"] or {}
    c = report["config"] or {}
    r = report["results"]
    gpu = m.get("gpu") or {}
    dry = c.get("mode") == "cpu"
    out = []
    title = "CPU dry run (no GPU)" if dry else (gpu.get("name") or "no GPU found")
    out.append(f"### GPU check: {title}, {report['generated']}{'' if final else ' (incomplete: the run was cut short)'}")
    out.append("")
    facts = [("GPU", f"{gpu.get('name')}, {gpu.get('memory')}, driver {gpu.get('driver')}, "
                     f"compute capability {gpu.get('compute_capability')}" if gpu else m.get("gpu_absent_reason")),
             ("PyTorch", f"{m.get('torch_version')} (CUDA {m.get('torch_cuda_version')}, NCCL {m.get('nccl_version')}, "
                         f"C++11 ABI {m.get('torch_cxx11_abi')})" if m.get("torch_version") else m.get("torch_error")),
             ("Accelerate", m.get("accelerate_version") or m.get("accelerate_error")),
             ("compiler / cmake / nvcc", f"{m.get('cxx')} / {m.get('cmake')} / {m.get('nvcc')}"),
             ("CUDA headers", ", ".join(f"{k}: {v or 'not found'}" for k, v in (m.get("headers") or {}).items())),
             ("Qt 6 Test", (f"{m['qt6_test_cmake_dir']}{' (not used by the dry run: it builds the CLI only)' if dry else ''}"
                            if m.get("qt6_test_cmake_dir") else "not found: the CLI only was built")),
             ("run", f"revision {c.get('git_revision')}, {c.get('steps')} steps x batch {c.get('batch_size')} x "
                     f"{c.get('block_size')} tokens, {c.get('jobs')} compile jobs, budget {c.get('budget_s')} s")]
    out.append(table(["", ""], facts))
    s = report["summary"]
    out += ["", f"**Steps**: {s['passed']} passed, {s['failed']} failed, {s['timed_out']} timed out, "
                f"{s['skipped']} skipped; {s['seconds']} s in steps.", ""]
    out.append(table(["step", "status", "s", "time box", "note"],
                     [(st["name"], st["status"], num(st.get("seconds")), num(st.get("time_box_s")),
                       st.get("reason") or ("" if st["status"] == "passed" else first_line(st.get("log_tail"))))
                      for st in report["steps"]]))
    train = r["train"]
    if train:
        out += ["", f"**Training** (`fathom launch --num_processes 1 fathom train --model gpt-small`, "
                    f"{c.get('steps')} steps; steady = the steps after the first logged one):", ""]
        out.append(table(["run", "strategy reported", "loss first → last", "steps/s", "tokens/s", "steady tokens/s",
                          "max_memory_allocated", "max_memory_reserved"],
                         [(n, t.get("stats_strategy"), f"{num(t.get('first_loss'), 4)} → {num(t.get('final_loss'), 4)}",
                           num(t.get("steps_per_second")), num(t.get("tokens_per_second")),
                           num((t.get("steady") or {}).get("tokens_per_second")),
                           mib((t.get("cuda_memory") or {}).get("max_memory_allocated"))
                           if (t.get("cuda_memory") or {}).get("available")
                           else f"absent: {(t.get('cuda_memory') or {}).get('reason')}",
                           mib((t.get("cuda_memory") or {}).get("max_memory_reserved")))
                          for n, t in train.items()]))
    plan = r["plan"]
    if plan and plan.get("comparisons"):
        out += ["", f"**Memory against `fathom plan --hardware {plan['hardware']}`** (per rank; allocator view = "
                    "the plan's total without framework_overhead, which the caching allocator never sees):", ""]
        rows = []
        for e in plan["comparisons"]:
            if "error" in e:
                rows.append((e["run"], f"fathom plan failed: {first_line(e['error'])}", "", "", "", "", ""))
                continue
            cats = e["categories"]
            cell = lambda k: f"{mib(cats[k]['measured'])} / {mib(cats[k]['planned'])}"  # noqa: E731
            peak = e["peak"]
            rows.append((e["run"], cell("parameters"), cell("gradients"), cell("optimizer_states"),
                         f"{mib(peak.get('max_memory_allocated'))} / {mib(e['planned']['total_without_framework_overhead'])}"
                         if "absent" not in peak else f"absent: {peak['absent']}",
                         pct((peak.get("ratio_to_total_without_framework_overhead") or 1) - 1)
                         if "absent" not in peak else "–",
                         num(peak.get("within_5_percent"))))
        out.append(table(["run", "parameters meas / plan", "gradients", "optimizer states",
                          "peak allocated / plan (allocator view)", "difference", "within 5%"], rows))
        if plan.get("problems"):
            out += ["", "Plan problems: " + "; ".join(plan["problems"])]
        timed = [e for e in plan["comparisons"] if "step_time" in e]
        if timed:
            out += ["", f"**Step time, predicted against measured** (s per step; the preset `{plan['hardware']}` and, "
                        "where `fathom calibrate` ran, the calibrated profile; error = predicted / measured steady - 1):",
                    ""]
            rows = []
            for e in timed:
                st = e["step_time"]
                base = st.get("measured_steady") or st.get("measured")
                err = lambda v: pct(v / base - 1) if v and base else "–"  # noqa: E731
                rows.append((e["run"], f"{st['measured']:.4f}" if st.get("measured") else "–",
                             f"{st['measured_steady']:.4f}" if st.get("measured_steady") else "–",
                             f"{st['preset']:.4f}", err(st["preset"]),
                             f"{st['calibrated']:.4f}" if st.get("calibrated") else "–", err(st.get("calibrated"))))
            out.append(table(["run", "measured", "measured steady", "preset", "error", "calibrated", "error"], rows))
    tr = r["trace"]
    if tr:
        out += ["", f"**Trace** `{tr['file']}` ({num(tr['events'])} events, {mib(tr['bytes'])}): "
                    f"{num(tr['kernels'])} kernels ({num(tr['kernels_unlinked_to_launch'])} without a launch, "
                    f"{num(tr['kernels_unlinked_to_cpu_op'])} without a CPU operator), {num(tr['memcpy'])} memcpy, "
                    f"{num(tr['memset'])} memset, {num(tr['nccl_kernels'])} NCCL kernels, "
                    f"{num(tr['overhead_records'])} CUPTI overhead records, {num(tr['flows'])} flows, "
                    f"{num(tr['cpu_ops'])} CPU operators.", ""]
        out.append(table(["check", "result"], [(k, v if isinstance(v, str) else ("pass" if v else "FAIL"))
                                               for k, v in tr["checks"].items()]))
        if tr.get("first_unlinked_to_cpu_op"):
            out += ["", "Kernels without a CPU operator (first names): " + ", ".join(tr["first_unlinked_to_cpu_op"])]
    ov = r["overhead"]
    if ov:
        labels = {"none": "no profile", "cpu": "--profile, CPU only", "cuda": "--profile --profile_cuda true"}
        out += ["", "**Profiler overhead** (every step recorded; overhead = how much longer a step takes):", ""]
        out.append(table(["run", "steps/s", "overhead", "steady steps/s", "steady overhead"],
                         [(labels.get(k, k), num(v["steps_per_second"]), pct(v.get("overhead")),
                           num(v.get("steady_steps_per_second")), pct(v.get("steady_overhead")))
                          for k, v in ov["runs"].items()]))
    cal = r.get("calibrate")
    if cal and cal.get("calibration"):
        c = cal["calibration"]
        # The card's datasheet peak per dtype, as the preset's plan of a run in that precision used it.
        peaks = {}
        for e in (r.get("plan") or {}).get("comparisons", []):
            if e.get("peak_flops_per_gpu") and e.get("precision"):
                peaks[e["precision"]] = e["peak_flops_per_gpu"]
        out += ["", f"**Calibration** (`fathom calibrate --quick --device cuda`, {num(c.get('seconds'))} s; matmul "
                    "tokens x h @ h x 4h, the best shape, one process; against the preset's peak):", ""]
        rows = []
        for dtype in ("fp32", "tf32", "fp16", "bf16"):
            rates = [m["flops"] for m in c.get("matmul", []) if m["dtype"] == dtype and m["processes"] == 1]
            if rates:
                best = max(rates)
                peak = peaks.get(dtype)
                rows.append((dtype, f"{best / 1e12:.1f} TFLOP/s", f"{peak / 1e12:.1f} TFLOP/s" if peak else "–",
                             f"{100 * best / peak:.1f}%" if peak else "–"))
        out.append(table(["dtype", "achieved", "preset peak", "share"], rows))
        bw = c.get("memory_bandwidth") or {}
        out += ["", f"Memory bandwidth: copy {num((bw.get('copy') or 0) / 1e9)} GB/s, add "
                    f"{num((bw.get('add') or 0) / 1e9)} GB/s. Collectives fitted: "
                    + (", ".join(f"{f['kind']} x{f['ranks']}: alpha {f['alpha'] * 1e6:.1f} us, beta "
                                 f"{f['beta'] / 1e9:.1f} GB/s" for f in c.get("collectives", []))
                       or "none (one GPU: no group of 2 ranks)") + "."]
    dp = r.get("dispatch")
    if dp:
        out += ["", "**Dispatch** (`fathom device-map --model gpt-small --run`, batch 8 x 256 tokens; outputs against "
                    "the undispatched model on the CPU):", ""]
        rows = []
        for name, e in dp["runs"].items():
            placed = ", ".join(f"{k} {mib(v)}" for k, v in e["placed_bytes"].items())
            rows.append((name, e["main_device"], placed, f"{e['max_abs_difference']:.3g}",
                         mib(e.get("cuda_peak_allocated")) if "cuda_peak_allocated" in e else "–",
                         mib(e.get("cuda_peak_over_map_bytes")) if "cuda_peak_over_map_bytes" in e else "–",
                         mib(e["streamed_bytes_largest_unit"]),
                         f"{num(e['reference_seconds'])} / {num(e['dispatched_seconds'])}",
                         "pass" if all(e["checks"].values()) else "FAIL: " + ", ".join(
                             k for k, v in e["checks"].items() if not v)))
        out.append(table(["run", "computes on", "placed", "max abs diff", "peak CUDA allocated",
                          "peak minus map's GPU 0 bytes", "largest streamed unit", "s undispatched / dispatched",
                          "checks"], rows))
    cmp_ = r["comparison"]
    if cmp_:
        out += ["", f"**Fathom against {cmp_['baseline']}** (gpt-small, bf16, same data, batch, steps and AdamW): "
                    f"Fathom ({cmp_['fathom_run']}) {num(cmp_['fathom_tokens_per_second'])} tokens/s, baseline "
                    f"{num(cmp_['baseline_tokens_per_second'])} tokens/s: **{num(cmp_.get('ratio'))}×** "
                    f"(steady {num(cmp_.get('steady_ratio'))}×; goal ≥ {cmp_['goal']}×"
                    f"{', not meaningful on a CPU dry run' if dry else ''})."]
    failed = [st for st in report["steps"] if st["status"] in ("failed", "timed_out")]
    for st in failed:
        out += ["", f"<details><summary>{st['name']}: {st['status']} (exit code {st.get('exit_code')})</summary>",
                "", "```", "\n".join((st.get("log_tail") or "").splitlines()[-40:]), "```", "</details>"]
    return "\n".join(out) + "\n"


def write_atomically(path, text):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__[__doc__.index("\n\n") + 2:],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", required=True, help="check.sh's work directory (steps/, data/)")
    p.add_argument("--out", required=True, help="where gpu_check.json and gpu_check.md go")
    p.add_argument("--final", action="store_true", help="the run is over (else the report says it was cut short)")
    a = p.parse_args(argv)
    report = collect(a.work)
    report["final"] = a.final
    os.makedirs(a.out, exist_ok=True)
    write_atomically(os.path.join(a.out, "gpu_check.json"), json.dumps(report, indent=2) + "\n")
    write_atomically(os.path.join(a.out, "gpu_check.md"), markdown(report, a.final))
    return 0


if __name__ == "__main__":
    sys.exit(main())
