#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Step-time fidelity of the planner: predicted against measured, on this machine (issue 24, docs/benchmarks.md).

For each case (a model, batch, rank count and strategy the calibration never saw) it runs, on the CPU in fp32,

  fathom launch --json --workspace OUT/workspace.sqlite --num_processes N \\
      fathom train --cpu --model M ... --batch_size B --strategy S --optimizer adamw --seed 0 \\
      --steps 12 --log_every 1 --json

measures rank 0's step time (the {"event":"log"} lines, one a step: the median of 1/steps_per_second after the
first --warmup steps) and asks the planner for its prediction of the same run,

  fathom runs plan-vs-actual RUN --hardware PROFILE --json       (rank 0's step_s.predicted)

which plans the run again, with the fathom in use, on the hardware profile given (and stores nothing). The error is
predicted / measured - 1.

A second column ("fitted s") predicts the same runs after calibrating from one profiled run that is none of the cases
(FIT_CASE: another model size, batch and rank count, `fathom train --profile`):

  fathom plan --calibrate_from FITRUN --workspace OUT/workspace.sqlite --hardware PROFILE --json
  fathom runs plan-vs-actual RUN --hardware this-machine --json  (this-machine = PROFILE: its newest fit applies)

Limits: median |error| <= 15 % and max <= 30 % after calibrate alone; <= 8 % and <= 20 % after the fit (issue 24).

Every fathom call gets a private XDG_CONFIG_HOME and XDG_CACHE_HOME under OUT (never ~/.config or ~/.cache) and no
FATHOM_*, ACCELERATE_*, OMP_NUM_THREADS variables. The hardware profile there (fathom/hardware/this-machine.yaml) is
--profile FILE's copy, else what `fathom calibrate` measures first. The measurements are saved (--save_measured,
default OUT/measured.json, with the workspace path), so that after a change to the time model

  python3 tests/bench/bench_step_fidelity.py --measured OUT/measured.json --markdown

recomputes only the predictions (with the saved profile, or --profile FILE), without training again.
A full run (calibration + 15 cases) takes about 4 minutes on the idle 2-core development VM:

  python3 tests/bench/bench_step_fidelity.py --fathom build/default/bin/fathom --json fidelity.json
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import RANK_PREFIX, BenchError, find_fathom, run_group

GPT128 = ["--model", "gpt", "--n_layer", "4", "--n_head", "4", "--n_embd", "128", "--block_size", "128"]
GPT256 = ["--model", "gpt", "--n_layer", "2", "--n_head", "4", "--n_embd", "256", "--block_size", "128"]
TINY = ["--model", "gpt-tiny"]
MLP1024 = ["--model", "mlp", "--hidden", "1024", "--layers", "4"]
MLP512 = ["--model", "mlp", "--hidden", "512", "--layers", "2"]


def case(name, ranks, strategy, model, batch, extra=()):
    """A case: `strategy` is the table's label; "fsdp full_shard" passes --strategy fsdp and its sharding."""
    flags = ["--strategy", "fsdp", "--fsdp_sharding_strategy", "FULL_SHARD"] if strategy == "fsdp full_shard" \
        else ["--strategy", strategy]
    return {"name": name, "ranks": ranks, "strategy": strategy,
            "train_args": [*model, "--batch_size", str(batch), *flags, *extra]}


# Sized for 0.05-2 s a step on 2 cores with the reference BLAS (about 6 GFLOP/s a core in fp32).
CASES = [case(f"gpt128x4-b4-ddp-{n}p", n, "ddp", GPT128, 4) for n in (1, 2, 3, 4)] + [
    case("gpt128x4-b4-fsdp-2p", 2, "fsdp full_shard", GPT128, 4),
    case("gpt128x4-b4-zero1-2p", 2, "zero1", GPT128, 4),
    case("gpt128x4-b4-zero2-2p", 2, "zero2", GPT128, 4),
    case("gpt128x4-b4-zero3-2p", 2, "zero3", GPT128, 4),
    case("gpt128x4-b4-fsdp-4p", 4, "fsdp full_shard", GPT128, 4),
    case("gpt128x4-b4-zero3-4p", 4, "zero3", GPT128, 4),
    case("gpt128x4-b2-ga2-ddp-2p", 2, "ddp", GPT128, 2, ["--gradient_accumulation_steps", "2"]),
    case("gpttiny-b8-ddp-2p", 2, "ddp", TINY, 8),
    case("gpt256x2-b2-ddp-2p", 2, "ddp", GPT256, 2),
    case("mlp1024x4-b32-ddp-2p", 2, "ddp", MLP1024, 32),
    case("mlp512x2-b64-1p", 1, "ddp", MLP512, 64),
]

# The profiled run the second column calibrates from (`fathom plan --calibrate_from`): a model size, batch and rank
# count none of the cases uses, so every case is a run the fit never saw.
FIT_CASE = case("fit-gpt192x3-b3-ddp-2p", 2, "ddp",
                ["--model", "gpt", "--n_layer", "3", "--n_head", "4", "--n_embd", "192", "--block_size", "128"], 3)

PROFILE_REL = os.path.join("fathom", "hardware", "this-machine.yaml")
SCRUBBED_PREFIXES = ("FATHOM_", "ACCELERATE_", "FSDP_")
SCRUBBED = {"HF_HOME", "OMP_NUM_THREADS", "RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}


def private_env(xdg_root):
    """This process's environment without the variables that steer fathom, with XDG homes under xdg_root."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith(SCRUBBED_PREFIXES)}
    env["XDG_CONFIG_HOME"] = os.path.join(xdg_root, "config")
    env["XDG_CACHE_HOME"] = os.path.join(xdg_root, "cache")
    for d in (env["XDG_CONFIG_HOME"], env["XDG_CACHE_HOME"]):
        os.makedirs(d, exist_ok=True)
    return env


def tail(text, n=20):
    return "\n".join(text.splitlines()[-n:])


def run_cmd(what, cmd, env, timeout, verbose):
    """Runs cmd; returns the CompletedProcess. Raises BenchError with stderr's last lines when it fails."""
    if verbose:
        print("+ " + shlex.join(cmd), file=sys.stderr, flush=True)
    try:
        proc = run_group(cmd, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"{what} ran past {timeout} s: {shlex.join(cmd)}")
    if proc.returncode != 0:
        raise BenchError(f"{what} failed (exit {proc.returncode}): {shlex.join(cmd)}\n{tail(proc.stderr or proc.stdout)}")
    return proc


def json_lines(text, rank=None):
    """The JSON objects of text's lines; with rank, only that rank's `[rankN]: ` lines (prefix removed)."""
    for raw in text.splitlines():
        line = raw.strip()
        if rank is not None:
            m = RANK_PREFIX.match(line)
            if not m or int(m.group(1)) != rank:
                continue
            line = line[m.end():].strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj


def setup_profile(fathom, args, env):
    """Puts the hardware profile at XDG_CONFIG_HOME/fathom/hardware/this-machine.yaml; returns (path, source)."""
    path = os.path.join(env["XDG_CONFIG_HOME"], PROFILE_REL)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if args.profile:
        shutil.copyfile(args.profile, path)
        source = f"copied from {os.path.abspath(args.profile)}"
    else:
        start = time.monotonic()
        run_cmd("fathom calibrate", [fathom, "calibrate", *shlex.split(args.calibrate_args)], env, 1800, args.verbose)
        source = f"measured by `fathom calibrate {args.calibrate_args}` ({time.monotonic() - start:.0f} s)"
    listed = json.loads(run_cmd("fathom env", [fathom, "env", "--json"], env, 120, args.verbose).stdout)
    mine = [p for p in listed.get("hardware_profiles", []) if os.path.realpath(p.get("path", "")) == os.path.realpath(path)]
    if not mine or mine[0].get("error"):
        raise BenchError(f"fathom env does not load the profile {path}: {mine[0]['error'] if mine else 'not listed'}")
    return path, f"{source}, measured at {mine[0].get('measured_at')}"


def measure(fathom, c, args, env, workspace, extra=()):
    """Runs one case; returns its run id and rank 0's per-step seconds, warm-up included."""
    cmd = [fathom, "launch", "--json", "--workspace", workspace, "--num_processes", str(c["ranks"]),
           fathom, "train", "--cpu", *c["train_args"], "--optimizer", "adamw", "--seed", "0",
           "--steps", str(args.steps), "--log_every", "1", "--json", *extra]
    proc = run_cmd(f"case {c['name']}", cmd, env, args.timeout, args.verbose)
    events = list(json_lines(proc.stdout))
    run = next((e for e in events if e.get("event") == "run"), None)
    finished = next((e for e in events if e.get("event") == "finished"), None)
    if run is None or finished is None or finished.get("status") != "succeeded":
        raise BenchError(f"case {c['name']}: launch did not succeed: {json.dumps(finished or events[-1:])}\n"
                         f"{tail(proc.stderr)}")
    rank0 = list(json_lines(proc.stderr, rank=0))
    steps = [1.0 / e["steps_per_second"] for e in rank0 if e.get("event") == "log" and e.get("steps_per_second")]
    if len(steps) != args.steps or run.get("world_size") != c["ranks"]:
        raise BenchError(f"case {c['name']}: rank 0 logged {len(steps)} steps of {args.steps}, world size "
                         f"{run.get('world_size')} of {c['ranks']}\n{tail(proc.stderr)}")
    return {"run_id": run["run_id"], "run_name": run.get("name"), "command": shlex.join(cmd), "step_seconds": steps}


def plan_vs_actual(fathom, run_id, workspace, env, extra, verbose):
    """`fathom runs plan-vs-actual RUN --json` with `extra` flags: the whole JSON object."""
    proc = run_cmd(f"plan-vs-actual of run {run_id}", [fathom, "runs", "plan-vs-actual", str(run_id), "--workspace",
                                                       workspace, "--json", *extra], env, 300, verbose)
    return json.loads(proc.stdout)


def rank0_step(comparison):
    return next(r for r in comparison["ranks"] if r["rank"] == 0)["step_s"]["predicted"]


def stored_prediction(fathom, run_id, workspace, env, verbose):
    """Rank 0's step time in the plan `fathom launch` stored with the run, or None (no plan stored)."""
    try:
        return rank0_step(plan_vs_actual(fathom, run_id, workspace, env, [], verbose))
    except BenchError:
        return None


def predict(fathom, run_id, workspace, profile_path, verbose=False):
    """The planner's step time for a run, planned again now on profile_path (`plan-vs-actual --hardware FILE`,
    which stores nothing). Returns {step_s, hardware, time}."""
    with tempfile.TemporaryDirectory(prefix="fathom-fidelity-predict-") as tmp:
        comparison = plan_vs_actual(fathom, run_id, workspace, private_env(tmp), ["--hardware", profile_path], verbose)
    plan = comparison["plan"]
    return {"step_s": rank0_step(comparison), "hardware": plan["hardware"], "time": plan["time"]}


def calibrate_from(fathom, run_id, workspace, profile_path, xdg_root, verbose):
    """Fits profile_path to the profiled run (`fathom plan --calibrate_from RUN --hardware FILE`), stored in the
    workspace; returns (the JSON report, an environment whose this-machine is profile_path, so that plans of
    --hardware this-machine in that workspace use the fit)."""
    env = private_env(xdg_root)
    mine = os.path.join(env["XDG_CONFIG_HOME"], PROFILE_REL)
    os.makedirs(os.path.dirname(mine), exist_ok=True)
    if os.path.realpath(mine) != os.path.realpath(profile_path):
        shutil.copyfile(profile_path, mine)
    proc = run_cmd(f"calibrating from run {run_id}", [fathom, "plan", "--calibrate_from", str(run_id), "--workspace",
                                                      workspace, "--hardware", profile_path, "--json"], env, 600,
                   verbose)
    return json.loads(proc.stdout), env


def predict_fitted(fathom, run_id, workspace, env, verbose=False):
    """The planner's step time for a run on this machine's newest fit (`plan-vs-actual --hardware this-machine`)."""
    comparison = plan_vs_actual(fathom, run_id, workspace, env, ["--hardware", "this-machine"], verbose)
    plan = comparison["plan"]
    return {"step_s": rank0_step(comparison), "hardware": plan["hardware"], "time": plan["time"]}


def summarize(step_seconds, warmup):
    kept = step_seconds[warmup:]
    if not kept:
        raise BenchError(f"{len(step_seconds)} steps measured, all within --warmup {warmup}")
    return {"median": statistics.median(kept), "min": min(kept), "max": max(kept), "steps": len(kept)}


def error_stats(results, key):
    errors = [abs(r["predictions"][key]["error_pct"]) for r in results if r["predictions"][key]["error_pct"] is not None]
    return (statistics.median(errors), max(errors)) if errors else (None, None)


def print_table(results, predictors, markdown):
    head = ["case", "ranks", "strategy"] + [p for p, _ in predictors] + ["measured s (median, range)"] + \
           [f"error % ({p})" if len(predictors) > 1 else "error %" for p, _ in predictors]
    rows = []
    for r in results:
        m = r["measured"]
        preds = [r["predictions"][p] for p, _ in predictors]
        rows.append([r["name"], str(r["ranks"]), r["strategy"]] + [f"{p['step_s']:.4g}" for p in preds] +
                    [f"{m['median']:.4g} ({m['min']:.4g}–{m['max']:.4g})"] +
                    [f"{p['error_pct']:+.1f}" if p["error_pct"] is not None else "n/a" for p in preds])
    if markdown:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    for row in [head, ["-" * w for w in widths]] + rows:
        print("  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fathom", help="fathom binary (default: build/bench, build/default, newest build/*, then PATH)")
    p.add_argument("--cases", help="comma-separated case names (default: all; --list shows them)")
    p.add_argument("--list", action="store_true", help="print the cases and their fathom train flags, then exit")
    p.add_argument("--steps", type=int, default=12, help="optimizer steps per case (default 12)")
    p.add_argument("--warmup", type=int, default=3, help="first steps left out of the measurement (default 3)")
    p.add_argument("--profile", help="hardware profile to use as this-machine instead of running fathom calibrate")
    p.add_argument("--calibrate_args", default="--max_processes 4",
                   help="flags for `fathom calibrate`, one string (default '--max_processes 4': the cases use up to 4 ranks); "
                        "a single flag needs =: --calibrate_args=--quick")
    p.add_argument("--measured", help="reuse the measurements of this --save_measured file; only predict again")
    p.add_argument("--out", help="folder for the workspace, the private XDG homes and measured.json (default: a new "
                                 "/tmp/fathom-fidelity-* folder, kept)")
    p.add_argument("--save_measured", help="where the measurements go (default OUT/measured.json)")
    p.add_argument("--json", dest="json_out", help="write every case, its measurement and predictions to FILE")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (for docs/planner.md)")
    p.add_argument("--median_limit", type=float, default=15, help="pass: median |error| <= this %% (default 15)")
    p.add_argument("--max_limit", type=float, default=30, help="pass: max |error| <= this %% (default 30)")
    p.add_argument("--fit_median_limit", type=float, default=8,
                   help="pass after calibrating from the profiled run: median |error| <= this %% (default 8)")
    p.add_argument("--fit_max_limit", type=float, default=20,
                   help="pass after calibrating from the profiled run: max |error| <= this %% (default 20)")
    p.add_argument("--no_fit", action="store_true",
                   help="skip the profiled run and the second column (predictions after `fathom plan --calibrate_from`)")
    p.add_argument("--timeout", type=float, default=600, help="seconds allowed for one case (default 600)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each command")
    args = p.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c['name']:<24} {c['ranks']} ranks  {c['strategy']:<16} {shlex.join(c['train_args'])}")
        return 0
    if args.steps <= args.warmup or args.warmup < 0:
        p.error("--steps must exceed --warmup (>= 0)")
    if args.profile and not os.path.isfile(args.profile):
        p.error(f"--profile {args.profile}: no such file")

    fit_run = None
    try:
        fathom = find_fathom(args.fathom)
        if args.measured:
            with open(args.measured) as f:
                saved = json.load(f)
            measured, workspace = saved["cases"], saved["workspace"]
            profile = os.path.abspath(args.profile) if args.profile else saved["profile"]
            source = "given with --profile" if args.profile else f"{saved['profile_source']} (saved with the runs)"
            wanted = args.cases.split(",") if args.cases else [m["name"] for m in measured]
            measured = [m for m in measured if m["name"] in wanted]
            if not measured:
                raise BenchError(f"{args.measured} has none of the cases {args.cases}")
            out = os.path.dirname(os.path.abspath(args.measured))
            fit_run = saved.get("fit_run")
            print(f"bench_step_fidelity: reusing {len(measured)} measured case(s) of {args.measured} "
                  f"(workspace {workspace}); fathom {fathom}", flush=True)
        else:
            names = args.cases.split(",") if args.cases else [c["name"] for c in CASES]
            unknown = sorted(set(names) - {c["name"] for c in CASES})
            if unknown:
                p.error(f"unknown case(s) {', '.join(unknown)}; --list shows them")
            out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="fathom-fidelity-"))
            os.makedirs(out, exist_ok=True)
            env = private_env(os.path.join(out, "xdg"))
            workspace = os.path.join(out, "workspace.sqlite")
            print(f"bench_step_fidelity: fathom {fathom}; output in {out}; {os.cpu_count()} CPUs", flush=True)
            profile, source = setup_profile(fathom, args, env)
            measured, save = [], args.save_measured or os.path.join(out, "measured.json")
            for c in (c for c in CASES if c["name"] in names):
                start = time.monotonic()
                m = dict(c, **measure(fathom, c, args, env, workspace))
                m["stored_step_s"] = stored_prediction(fathom, m["run_id"], workspace, env, args.verbose)
                measured.append(m)
                with open(save, "w") as f:  # after every case, so a failed case leaves the others reusable
                    json.dump({"fathom": fathom, "workspace": workspace, "profile": profile, "profile_source": source,
                               "steps": args.steps, "cases": measured}, f, indent=2)
                    f.write("\n")
                print(f"  {c['name']}: run {m['run_id']}, median step "
                      f"{summarize(m['step_seconds'], args.warmup)['median']:.4g} s "
                      f"({time.monotonic() - start:.0f} s)", flush=True)
            if not args.no_fit:
                start = time.monotonic()
                fit_run = measure(fathom, FIT_CASE, args, env, workspace,
                                  ["--profile", "--profile_dir", os.path.join(out, "profile")])
                with open(save) as f:
                    saved = json.load(f)
                saved["fit_run"] = dict(FIT_CASE, **fit_run)
                with open(save, "w") as f:
                    json.dump(saved, f, indent=2)
                    f.write("\n")
                print(f"  {FIT_CASE['name']} (profiled, for --calibrate_from): run {fit_run['run_id']} "
                      f"({time.monotonic() - start:.0f} s)", flush=True)
            print(f"bench_step_fidelity: measurements saved to {save} (rerun predictions: --measured {save})")
        print(f"bench_step_fidelity: hardware profile {profile}: {source}", flush=True)

        # One entry per prediction column: (label, function of a measured case). A second column ("after calibrating
        # from one profiled run") is another entry calling predict() with that run's profile.
        predictors = [("predicted s", lambda m: predict(fathom, m["run_id"], workspace, profile, args.verbose))]
        fit_report = None
        if not args.no_fit and fit_run:
            fit_report, fit_env = calibrate_from(fathom, fit_run["run_id"], workspace, profile,
                                                 os.path.join(out, "xdg-fit"), args.verbose)
            print(f"bench_step_fidelity: calibrated from run {fit_run['run_id']} ({FIT_CASE['name']}): hardware fit "
                  f"{fit_report['fit_id']}, factors " + ", ".join(f"{c['name']} {c['factor']:.3f}"
                                                                  for c in fit_report["classes"]
                                                                  if c["predicted_s"] > 0), flush=True)
            predictors.append(("fitted s", lambda m: predict_fitted(fathom, m["run_id"], workspace, fit_env,
                                                                    args.verbose)))
        results = []
        for m in measured:
            r = {k: m[k] for k in ("name", "ranks", "strategy", "run_id", "command", "step_seconds", "stored_step_s")}
            r["measured"] = summarize(m["step_seconds"], args.warmup)
            r["predictions"] = {}
            for label, fn in predictors:
                pr = fn(m)
                pr["error_pct"] = 100 * (pr["step_s"] / r["measured"]["median"] - 1) if pr["step_s"] else None
                r["predictions"][label] = pr
            results.append(r)
    except BenchError as e:
        print(f"bench_step_fidelity: {e}", file=sys.stderr)
        return 1

    print()
    print_table(results, predictors, args.markdown)
    print()
    verdicts = {}
    for label, _ in predictors:
        med, mx = error_stats(results, label)
        median_limit, max_limit = (args.fit_median_limit, args.fit_max_limit) if label == "fitted s" else \
            (args.median_limit, args.max_limit)
        ok = med is not None and med <= median_limit and mx <= max_limit
        verdicts[label] = {"median_abs_error_pct": med, "max_abs_error_pct": mx, "pass": ok}
        print(f"{label}: median |error| {med:.1f} %, max |error| {mx:.1f} % over {len(results)} case(s): "
              f"{'PASS' if ok else 'FAIL'} (limits {median_limit:g} % / {max_limit:g} %)"
              if med is not None else f"{label}: no case with a prediction: FAIL")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"fathom": fathom, "workspace": workspace, "profile": profile, "profile_source": source,
                       "warmup": args.warmup, "limits": {"median": args.median_limit, "max": args.max_limit},
                       "verdicts": verdicts, "fit": fit_report, "cases": results, "cpus": os.cpu_count()}, f,
                      indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
