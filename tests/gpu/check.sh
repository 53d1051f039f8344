#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU-machine check (docs/gpu.md): one prepared script that builds the CLI-only core against the machine's
# PyTorch 2.x LibTorch and runs Fathom's CUDA, NCCL and CUPTI paths for the first time, then writes one JSON and one
# Markdown report. Every step is time-boxed; a failing step is recorded with its output's tail and the next one
# runs; the whole run keeps inside --budget_s (default 480 s).
# The step_* functions run through `check.sh __step NAME` ("step_$1"), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
ROOT=$(cd "$HERE/../.." && pwd)

usage() {
  cat <<'EOF'
Usage: tests/gpu/check.sh [options]

On a machine with an NVIDIA GPU and PyTorch 2.x (python3 -c 'import torch'), from the repository root, in order:
  probe         GPU (nvidia-smi), python's torch/accelerate, compilers, CUDA/CUPTI/NCCL headers, Qt 6 Test
  accelerate    tests/gpu/accelerate_gpt.py: the same GPT, data, batch and AdamW through HF Accelerate (bf16),
                first, while the machine is idle
  build         configure + build `fathom` (CLI-only, no Qt, no ccache, -j JOBS, ninja -k 0) against torch's
                LibTorch; with Qt 6 Test present also the GPU tests (tst_cupti_tracer, tst_cupti_records,
                tst_autocast_guard, tst_profiler; core tests only: tests/app needs the Studio)
  env, nccl     `fathom env --json`; `fathom test --backend nccl --num_processes 1`
  dispatch      `fathom device-map --model gpt-small --run`: the model dispatched over 0 and cpu, then 0, cpu
                and disk (on the CPU: cpu and disk), outputs against the CPU model, peak CUDA memory against the
                map's bytes on GPU 0
  train_*       `fathom launch --num_processes 1 fathom train --model gpt-small` on cuda:0 for STEPS steps:
                ddp, fsdp (FULL_SHARD), zero3 x bf16, fp32: loss, steps/s, tokens/s, max_memory_allocated
                (ddp_bf16 first, then profile_none, profile_cuda and trace, then the other five)
  profile_none  the bf16 DDP run without --stats_json (whose loss read-back syncs every step): the Fathom side
                of the Accelerate comparison, and the profiler overhead's baseline
  profile_cuda  the bf16 DDP run with --profile --profile_cuda true, every step recorded;
  trace         its CUPTI trace: kernels > 0, each linked to a launch and to a CPU operator, memcpy and NCCL
                kernels, `fathom trace validate` clean
  plan          each run's peak CUDA memory and per-category bytes against `fathom plan ... --json` on the
                preset matching the GPU (h100-sxm-80gb, h200-141gb)
  profile_cpu, overhead
                the bf16 DDP run with the CPU profiler only; the profiler's cost in steps/s
  gpu_tests     the Qt Test executables that need a GPU (only when Qt 6 Test exists there)
  report        OUT/gpu_check.json, OUT/gpu_check.md (paste into docs/gpu.md), OUT/gpu_check_logs.tar.gz

Options:
  --out DIR          where the report goes (default: $OUT, else WORK/out)
  --cpu-dry-run      run here, without a GPU, against the LibTorch CMake finds (Debian's 1.13): the build, the CPU
                     training and profiling, the analyses and the writers; GPU steps are recorded as skipped with
                     the reason; defaults become --steps 3 --batch_size 2 --budget_s 5400 --jobs 2
  --budget_s N       wall-clock budget of the whole run in seconds (default 480); steps that would start after it
                     are skipped, each step's time box is cut to what is left
  --jobs N           parallel compile jobs (default 16)
  --steps N          optimizer steps per training run (default 30)
  --batch_size N     sequences per step (default 32; block_size 256, so 8192 tokens per step)
  --build_dir DIR    build tree (default build/gpu, build/gpu-cpu with --cpu-dry-run)
  --work DIR         logs, stats and traces (default build/gpu-check)
  --deps DIR         extra CMake prefix with the C++ dependencies (default .gpu-deps when it exists; made by
                     tests/gpu/fetch_deps.sh)
  --python PY        the python that has torch (and accelerate) (default python3; with --cpu-dry-run the first of
                     python3, /usr/bin/python3 that imports torch)
  --skip_build       use the fathom already in the build tree
  --revision REV     the git revision to name in the report (the device machine's copy has no .git)
  -h, --help         this text

Exit code: 0 when every step that ran passed (skipped steps allowed), 1 otherwise, 2 for bad options.
EOF
}

# ---- options (exported: steps run as `check.sh __step NAME`, a child process under `timeout`) -------------------
if [[ ${1:-} != __step ]]; then
  export FGC_MODE=gpu FGC_BUDGET_S="" FGC_JOBS="" FGC_STEPS="" FGC_BATCH="" FGC_BUILD_DIR="" FGC_DEPS="" FGC_PY=""
  export FGC_WORK="$ROOT/build/gpu-check" FGC_SKIP_BUILD=0 FGC_REVISION=""
  FGC_OUT_DIR="${OUT:-}"
  while (($#)); do
    case $1 in
      -h | --help) usage; exit 0 ;;
      --cpu-dry-run) FGC_MODE=cpu ;;
      --out) FGC_OUT_DIR=$2; shift ;;
      --budget_s | --budget-s) FGC_BUDGET_S=$2; shift ;;
      --jobs) FGC_JOBS=$2; shift ;;
      --steps) FGC_STEPS=$2; shift ;;
      --batch_size | --batch-size) FGC_BATCH=$2; shift ;;
      --build_dir | --build-dir) FGC_BUILD_DIR=$2; shift ;;
      --work) FGC_WORK=$2; shift ;;
      --deps) FGC_DEPS=$2; shift ;;
      --python) FGC_PY=$2; shift ;;
      --skip_build | --skip-build) FGC_SKIP_BUILD=1 ;;
      --revision) FGC_REVISION=$2; shift ;;
      *) echo "check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
  done
  for v in FGC_BUDGET_S FGC_JOBS FGC_STEPS FGC_BATCH; do
    if [[ -n ${!v} && ! ${!v} =~ ^[1-9][0-9]*$ ]]; then
      echo "check.sh: ${v#FGC_} must be a whole number >= 1, got '${!v}'" >&2
      exit 2
    fi
  done
  if [[ $FGC_MODE == cpu ]]; then
    : "${FGC_BUDGET_S:=5400}" "${FGC_JOBS:=2}" "${FGC_STEPS:=3}" "${FGC_BATCH:=2}" "${FGC_BUILD_DIR:=build/gpu-cpu}"
  else
    : "${FGC_BUDGET_S:=480}" "${FGC_JOBS:=16}" "${FGC_STEPS:=30}" "${FGC_BATCH:=32}" "${FGC_BUILD_DIR:=build/gpu}"
  fi
  [[ $FGC_BUILD_DIR == /* ]] || FGC_BUILD_DIR="$ROOT/$FGC_BUILD_DIR"
  [[ $FGC_WORK == /* ]] || FGC_WORK="$ROOT/$FGC_WORK"
  if [[ -z $FGC_DEPS && -d $ROOT/.gpu-deps ]]; then
    FGC_DEPS="$ROOT/.gpu-deps"
  fi
  : "${FGC_OUT_DIR:=$FGC_WORK/out}"
  FGC_START=$(date +%s)
  export FGC_START FGC_OUT_DIR
  export FGC_DEADLINE=$((FGC_START + FGC_BUDGET_S))
  export FGC_LOG_EVERY=$((FGC_STEPS >= 30 ? 10 : 1))
  export FATHOM="$FGC_BUILD_DIR/bin/fathom"
  export FATHOM_WORKSPACE="$FGC_WORK/fathom.sqlite"  # every fathom run's workspace, not ./fathom.sqlite
fi

BLOCK_SIZE=256  # gpt-small's block_size (core/src/models/gpt_options.cpp)
RESERVE_S=20    # kept back for the report at the end
STEPS_PY=(python3 "$HERE/check_steps.py")

log() { printf '[%4ds] %s\n' $(($(date +%s) - FGC_START)) "$*"; }

probe_get() {  # a value of probe.json by dotted key ("" when absent)
  python3 - "$FGC_WORK/data/probe.json" "$1" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
EOF
}

# ---- the steps (each runs in a child: `check.sh __step NAME ARGS`) -------------------------------------------------

step_probe() {
  "${STEPS_PY[@]}" probe --python "$FGC_PY" --mode "$FGC_MODE" --out "$FGC_WORK/data/probe.json"
}

step_accelerate() {
  local extra=()
  [[ $FGC_MODE == cpu ]] && extra=(--backend plain --device cpu)
  "$FGC_PY" "$HERE/accelerate_gpt.py" --preset gpt-small --steps "$FGC_STEPS" --batch_size "$FGC_BATCH" \
    --mixed_precision bf16 --log_every "$FGC_LOG_EVERY" --json_out "$FGC_WORK/data/accelerate.json" "${extra[@]}"
}

step_accelerate_args() {
  # --help must work without torch, and a missing dependency must be named with exit code 3.
  "$FGC_PY" "$HERE/accelerate_gpt.py" --help >/dev/null
  set +e
  "$FGC_PY" "$HERE/accelerate_gpt.py" --steps 1 --batch_size 1 2>&1
  local rc=$?
  set -e
  echo "exit code $rc"
  [[ $rc == 3 ]]
}

step_build() {
  local args=(-S "$ROOT" -B "$FGC_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATHOM_BUILD_STUDIO=OFF
    -DFATHOM_WARNINGS_AS_ERRORS=OFF -DFATHOM_CCACHE=OFF)
  local prefixes=() torch_prefix qt_dir
  torch_prefix=$(probe_get torch_cmake_prefix_path)
  [[ $FGC_MODE == gpu && -n $torch_prefix ]] && prefixes+=("$torch_prefix")
  [[ -n $FGC_DEPS ]] && prefixes+=("$FGC_DEPS/usr")
  if ((${#prefixes[@]})); then
    args+=("-DCMAKE_PREFIX_PATH=$(IFS=';'; echo "${prefixes[*]}")")
  fi
  qt_dir=$(probe_get qt6_test_cmake_dir)
  local targets=(fathom)
  if [[ -n $qt_dir && $FGC_MODE == gpu ]]; then
    args+=(-DFATHOM_BUILD_TESTS=ON)
    targets+=(tst_cupti_tracer tst_cupti_records tst_autocast_guard tst_profiler)
  else
    # The dry run builds what a GPU machine without Qt builds, whether or not this machine has Qt.
    args+=(-DFATHOM_BUILD_TESTS=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON)
    echo "Qt 6 Test ${qt_dir:+found at $qt_dir but }not used: building the CLI only; the GPU checks go through the CLI"
  fi
  if [[ $FGC_MODE == gpu ]]; then
    local cuda_root cuda_h cupti_h nccl_h
    cuda_root=$(probe_get cuda_root)
    cuda_h=$(probe_get headers.cuda_h)
    cupti_h=$(probe_get headers.cupti_h)
    nccl_h=$(probe_get headers.nccl_h)
    [[ -n $cuda_root ]] && args+=("-DCUDAToolkit_ROOT=$cuda_root")
    # torch's cuda.cmake finds NVTX3 only in its own source tree, else links CUDA::nvToolsExt, which CUDA 12.9+
    # dropped (pytorch/pytorch#152756): point its cache variable at the toolkit's header-only nvtx3.
    local nvtx3 cap
    nvtx3=$(probe_get nvtx3_dir)
    [[ -n $nvtx3 ]] && args+=("-Dnvtx3_dir=$nvtx3")
    # Fathom compiles no CUDA code: name the GPU's architecture so torch's CMake files need not detect it.
    cap=$(probe_get gpu.compute_capability)
    export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-${cap:-9.0}}
    if [[ -n $cuda_h && -n $cupti_h && -n $nccl_h ]]; then
      args+=(-DFATHOM_WITH_CUDA=ON "-DFATHOM_CUDA_INCLUDE_DIR=$cuda_h" "-DFATHOM_CUPTI_INCLUDE_DIR=$cupti_h"
        "-DFATHOM_NCCL_INCLUDE_DIR=$nccl_h")
    else
      echo "CUDA headers incomplete (cuda.h '$cuda_h', cupti.h '$cupti_h', nccl.h '$nccl_h'): FATHOM_WITH_CUDA=AUTO"
    fi
  fi
  echo "\$ cmake ${args[*]}"
  CCACHE_DISABLE=1 cmake "${args[@]}"
  echo "\$ cmake --build $FGC_BUILD_DIR -j $FGC_JOBS --target ${targets[*]} -- -k 0"
  CCACHE_DISABLE=1 cmake --build "$FGC_BUILD_DIR" -j "$FGC_JOBS" --target "${targets[@]}" -- -k 0
  "$FATHOM" --version
}

step_env() {
  "$FATHOM" env --json | tee "$FGC_WORK/data/env.json"
}

step_nccl() {
  "$FATHOM" test --backend nccl --num_processes 1 --timeout 60
}

step_calibrate() {  # fathom calibrate on the GPU: matmul fp32/tf32/fp16/bf16 FLOP/s (against the card's peak), NCCL
  "$FATHOM" calibrate --quick --device cuda --output "$FGC_WORK/data/this-machine.yaml" --json |
    tee "$FGC_WORK/data/calibrate.json"
}

step_dispatch() {
  local runs=() limits name
  if [[ $FGC_MODE == gpu ]]; then
    runs=("gpu_cpu=0=24MB,cpu=1GB" "gpu_cpu_disk=0=24MB,cpu=16MB")
  else
    runs=("cpu_disk=cpu=20MB")
  fi
  local args=()
  for spec in "${runs[@]}"; do
    name=${spec%%=*}
    limits=${spec#*=}
    echo "\$ fathom device-map --model gpt-small --max_memory $limits --run --json --batch_size 8"
    "$FATHOM" device-map --model gpt-small --max_memory "$limits" --run --json --batch_size 8 \
      --offload_folder "$FGC_WORK/offload_$name" | tee "$FGC_WORK/runs/dispatch_$name.json"
    args+=(--run "$name=$FGC_WORK/runs/dispatch_$name.json")
  done
  local expect=()
  [[ $FGC_MODE == gpu ]] && expect=(--expect_cuda)
  "${STEPS_PY[@]}" dispatch "${args[@]}" "${expect[@]}" --out "$FGC_WORK/data/dispatch.json"
}

# step_train NAME STRATEGY PRECISION [fathom train flags...]: one run through `fathom launch` (LOCAL_RANK set, so
# MULTI_GPU on cuda:0 where a GPU is visible), then its analysis.
step_train() {
  local name=$1 strategy=$2 precision=$3
  shift 3
  local extra=()
  [[ $strategy == fsdp ]] && extra+=(--fsdp_sharding_strategy FULL_SHARD)
  local expect=()
  [[ $FGC_MODE == gpu ]] && expect=(--expect_cuda)
  "$FATHOM" launch --num_processes 1 --quiet "$FATHOM" train --model gpt-small --steps "$FGC_STEPS" \
    --batch_size "$FGC_BATCH" --optimizer adamw --seed 0 --log_every "$FGC_LOG_EVERY" --json \
    --stats_json "$FGC_WORK/runs/$name.stats.json" --strategy "$strategy" --mixed_precision "$precision" \
    "${extra[@]}" "$@" | tee "$FGC_WORK/runs/$name.out"
  "${STEPS_PY[@]}" train --log "$FGC_WORK/runs/$name.out" --stats "$FGC_WORK/runs/$name.stats.json" \
    --out "$FGC_WORK/data/train_$name.json" --name "$name" --strategy "$strategy" --mixed_precision "$precision" \
    --batch_size "$FGC_BATCH" --block_size "$BLOCK_SIZE" "${expect[@]}"
}

# step_profile NAME CUDA(true|false|none): the bf16 DDP run with the profiler recording every step, or without it.
step_profile() {
  local name=$1 cuda=$2
  local flags=()
  if [[ $cuda != none ]]; then
    rm -rf "${FGC_WORK:?}/$name"
    flags=(--profile --profile_dir "$FGC_WORK/$name" --profile_schedule "0,0,$FGC_STEPS,1" --profile_cuda "$cuda")
  fi
  "$FATHOM" launch --num_processes 1 --quiet "$FATHOM" train --model gpt-small --steps "$FGC_STEPS" \
    --batch_size "$FGC_BATCH" --optimizer adamw --seed 0 --log_every "$FGC_LOG_EVERY" --json --strategy ddp \
    --mixed_precision bf16 "${flags[@]}" | tee "$FGC_WORK/runs/$name.out"
  "${STEPS_PY[@]}" train --log "$FGC_WORK/runs/$name.out" --out "$FGC_WORK/data/profile_$name.json" --name "$name" \
    --strategy ddp --mixed_precision bf16 --batch_size "$FGC_BATCH" --block_size "$BLOCK_SIZE"
}

step_trace() {
  local dir=$1
  local expect=()
  [[ $FGC_MODE == gpu ]] && expect=(--expect_cuda)
  "${STEPS_PY[@]}" trace --fathom "$FATHOM" --dir "$dir" --out "$FGC_WORK/data/trace.json" "${expect[@]}"
}

step_overhead() {
  # The baseline is the run without a profile; without it, the bf16 DDP training run (the same command plus
  # --stats_json).
  local p="$FGC_WORK/data/profile_" base="$FGC_WORK/data/profile_none.json"
  [[ -f $base ]] || base="$FGC_WORK/data/train_ddp_bf16.json"
  local args=(--base "$base" --out "$FGC_WORK/data/overhead.json")
  [[ -f ${p}cpu.json ]] && args+=(--cpu "${p}cpu.json")
  [[ -f ${p}cuda.json ]] && args+=(--cuda "${p}cuda.json")
  "${STEPS_PY[@]}" overhead "${args[@]}"
}

step_plan() {
  "${STEPS_PY[@]}" plan --fathom "$FATHOM" --runs "$FGC_WORK/data" --hardware "$1" --block_size "$BLOCK_SIZE" \
    --out "$FGC_WORK/data/plan.json" --calibrated "$FGC_WORK/data/this-machine.yaml" --strict
}

step_gpu_tests() {
  local failed=0 t
  for t in tst_cupti_tracer tst_cupti_records tst_autocast_guard tst_profiler; do
    echo "== $t"
    "$FGC_BUILD_DIR/tests/$t" -v1 || failed=1
  done
  return "$failed"
}

if [[ ${1:-} == __step ]]; then
  shift
  fn=step_$1
  shift
  "$fn" "$@"
  exit
fi

# ---- the runner ---------------------------------------------------------------------------------------------------

FAILED=0

record() {  # record NAME TITLE STATUS [record flags...]
  local name=$1 title=$2 status=$3
  shift 3
  "${STEPS_PY[@]}" record --work "$FGC_WORK" --name "$name" --title "$title" --status "$status" "$@"
  python3 "$HERE/check_report.py" --work "$FGC_WORK" --out "$FGC_OUT_DIR" >/dev/null ||
    log "the report writer failed (see above)"
}

skip() {  # skip NAME TITLE REASON
  log "$1: skipped: $3"
  record "$1" "$2" skipped --reason "$3"
}

# run_step NAME TITLE BOX_S ARGS...: `check.sh __step ARGS...` under `timeout`, its output in logs/NAME.log.
run_step() {
  local name=$1 title=$2 box=$3
  shift 3
  local left=$((FGC_DEADLINE - $(date +%s) - RESERVE_S))
  if ((left < 10)); then
    skip "$name" "$title" "the ${FGC_BUDGET_S} s budget was spent before this step"
    FAILED=1
    return 1
  fi
  ((box > left)) && box=$left
  local logfile="$FGC_WORK/logs/$name.log" t0 t1 rc status
  log "$name: $title (time box ${box} s)"
  t0=$(date +%s.%N)
  set +e
  timeout --kill-after=10 "$box" bash "$SELF" __step "$@" >"$logfile" 2>&1
  rc=$?
  set -e
  t1=$(date +%s.%N)
  case $rc in
    0) status=passed ;;
    124 | 137) status=timed_out ;;
    *) status=failed ;;
  esac
  local seconds
  seconds=$(python3 -c "print(round($t1 - $t0, 2))")
  log "$name: $status (exit code $rc, $seconds s)"
  ((rc == 0)) || FAILED=1
  record "$name" "$title" "$status" --rc "$rc" --seconds "$seconds" --timeout "$box" --log "$logfile" \
    --command "$*"
  return $rc
}

rm -rf "$FGC_WORK"
mkdir -p "$FGC_WORK"/{logs,data,runs,steps} "$FGC_OUT_DIR"
cat >"$FGC_WORK/data/config.json" <<EOF
{"mode": "$FGC_MODE", "budget_s": $FGC_BUDGET_S, "jobs": $FGC_JOBS, "steps": $FGC_STEPS, "batch_size": $FGC_BATCH,
 "block_size": $BLOCK_SIZE, "log_every": $FGC_LOG_EVERY, "model": "gpt-small", "build_dir": "$FGC_BUILD_DIR",
 "deps": "$FGC_DEPS", "started": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "git_revision": "${FGC_REVISION:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}"}
EOF
log "tests/gpu/check.sh: mode $FGC_MODE, budget $FGC_BUDGET_S s, $FGC_STEPS steps x batch $FGC_BATCH, report in $FGC_OUT_DIR"

# The python with torch: python3 on the GPU machine; with --cpu-dry-run the first one that imports torch.
if [[ -z $FGC_PY ]]; then
  FGC_PY=python3
  if [[ $FGC_MODE == cpu ]] && ! python3 -c 'import torch' 2>/dev/null && [[ -x /usr/bin/python3 ]] &&
    /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    FGC_PY=/usr/bin/python3
  fi
fi
export FGC_PY

run_step probe "machine, python, compilers, headers" 90 probe || true
GPU_NAME=$(probe_get gpu.name)
HAS_GPU=0
[[ $FGC_MODE == gpu && -n $GPU_NAME ]] && HAS_GPU=1
NO_GPU_REASON="no CUDA device (--cpu-dry-run)"
if [[ $FGC_MODE == gpu && $HAS_GPU == 0 ]]; then
  NO_GPU_REASON="no GPU: $(probe_get gpu_absent_reason)"
fi

# Accelerate first, while the machine is idle (the build would compete for the CPU it needs to launch kernels).
if [[ -z $(probe_get torch_version) ]]; then
  skip accelerate "HF Accelerate baseline (bf16)" "$FGC_PY cannot import torch: $(probe_get torch_error)"
elif [[ $FGC_MODE == gpu && -z $(probe_get accelerate_version) ]]; then
  skip accelerate "HF Accelerate baseline (bf16)" "$FGC_PY cannot import accelerate: $(probe_get accelerate_error)"
  FAILED=1
elif [[ $FGC_MODE == cpu ]]; then
  run_step accelerate "the same loop in plain PyTorch on the CPU (Accelerate is not packaged here)" 600 \
    accelerate || true
else
  run_step accelerate "HF Accelerate baseline (bf16)" 150 accelerate || true
fi
if [[ $FGC_MODE == cpu ]]; then
  if [[ -n $(probe_get accelerate_version) ]]; then
    skip accelerate_args "accelerate_gpt.py: --help, and the message when Accelerate is missing" \
      "accelerate is installed for $FGC_PY: the missing-Accelerate message cannot be shown"
  else
    run_step accelerate_args "accelerate_gpt.py: --help, and the message when Accelerate is missing" 60 \
      accelerate_args || true
  fi
fi

BUILT=0
if [[ $FGC_SKIP_BUILD == 1 ]]; then
  skip build "configure + build fathom" "--skip_build: using $FATHOM"
  [[ -x $FATHOM ]] && BUILT=1
elif [[ $FGC_MODE == gpu && -z $(probe_get torch_cmake_prefix_path) ]]; then
  skip build "configure + build fathom" "$FGC_PY has no torch.utils.cmake_prefix_path: $(probe_get torch_error)"
  FAILED=1
else
  build_box=$([[ $FGC_MODE == gpu ]] && echo 330 || echo 4000)
  if run_step build "configure + build fathom against LibTorch (CLI-only, no ccache, -j $FGC_JOBS)" "$build_box" \
    build; then
    BUILT=1
  fi
fi

NEEDS_FATHOM="fathom was not built (see the build step)"
# name, strategy, mixed precision; in the order they run: what the Accelerate comparison and the CUPTI check need
# first, so a budget cut short drops the rest.
TRAIN_RUNS=(ddp_bf16 ddp bf16 fsdp_bf16 fsdp bf16 zero3_bf16 zero3 bf16 ddp_fp32 ddp no fsdp_fp32 fsdp no
  zero3_fp32 zero3 no)
train_box=$([[ $FGC_MODE == gpu ]] && echo 120 || echo 600)
train_run() {  # train_run INDEX (into TRAIN_RUNS, in threes)
  local i=$(($1 * 3))
  run_step "train_${TRAIN_RUNS[i]}" "gpt-small, ${TRAIN_RUNS[i + 1]}, mixed_precision ${TRAIN_RUNS[i + 2]}" \
    "$train_box" train "${TRAIN_RUNS[@]:i:3}" || true
}
if [[ $BUILT == 1 ]]; then
  run_step env "fathom env --json" 60 env || true
  if [[ $HAS_GPU == 1 ]]; then
    run_step nccl "fathom test --backend nccl --num_processes 1" 120 nccl || true
    run_step calibrate "fathom calibrate --quick --device cuda (issue 24)" 120 calibrate || true
  else
    skip nccl "fathom test --backend nccl --num_processes 1" "$NO_GPU_REASON"
    skip calibrate "fathom calibrate --quick --device cuda (issue 24)" "$NO_GPU_REASON"
  fi
  run_step dispatch "gpt-small dispatched by a device map (fathom device-map --run)" 120 dispatch || true
  train_run 0
  # The Accelerate comparison reads this run: no --stats_json, whose per-step loss read-back (.item()) synchronizes
  # the device every step, which the baseline does not do.
  run_step profile_none "bf16 DDP run without --stats_json or a profile (Accelerate comparison, overhead baseline)" \
    "$train_box" profile none none || true
  if [[ $HAS_GPU == 1 ]]; then
    run_step profile_cuda "bf16 DDP run with --profile --profile_cuda true (CUPTI)" "$train_box" \
      profile cuda true || true
    run_step trace "CUPTI trace checks + fathom trace validate" 120 trace "$FGC_WORK/cuda" || true
  else
    skip profile_cuda "bf16 DDP run with --profile --profile_cuda true (CUPTI)" "$NO_GPU_REASON"
  fi
  for ((k = 1; k < ${#TRAIN_RUNS[@]} / 3; k++)); do
    train_run "$k"
  done
  case $GPU_NAME in
    *H200*) HARDWARE=h200-141gb ;;
    *H100*) HARDWARE=h100-sxm-80gb ;;
    "") HARDWARE=cpu-host ;;
    *) HARDWARE=h100-sxm-80gb ;;
  esac
  run_step plan "measured vs fathom plan --hardware $HARDWARE" 60 plan "$HARDWARE" || true
  run_step profile_cpu "bf16 DDP run with --profile --profile_cuda false" "$train_box" profile cpu false || true
  if [[ $HAS_GPU == 0 ]]; then
    run_step trace "trace checks (the CPU profile) + fathom trace validate" 300 trace "$FGC_WORK/cpu" || true
  fi
  run_step overhead "profiler overhead in steps/s" 30 overhead || true
  if [[ -n $(probe_get qt6_test_cmake_dir) && $HAS_GPU == 1 ]]; then
    run_step gpu_tests "Qt Test executables that need a GPU" 120 gpu_tests || true
  else
    skip gpu_tests "Qt Test executables that need a GPU" \
      "$([[ $HAS_GPU == 1 ]] && echo "Qt 6 Test not found on this machine: the GPU checks ran through the CLI" ||
        echo "$NO_GPU_REASON")"
  fi
else
  for name in env nccl dispatch profile_cuda trace plan profile_none profile_cpu overhead gpu_tests; do
    skip "$name" "$name" "$NEEDS_FATHOM"
  done
  for ((i = 0; i < ${#TRAIN_RUNS[@]}; i += 3)); do
    skip "train_${TRAIN_RUNS[i]}" "gpt-small, ${TRAIN_RUNS[i + 1]}, ${TRAIN_RUNS[i + 2]}" "$NEEDS_FATHOM"
  done
fi

# The report, and everything behind it in one archive (the device machine returns at most 8 files).
python3 "$HERE/check_report.py" --work "$FGC_WORK" --out "$FGC_OUT_DIR" --final
trace_files=()
for f in "$FGC_WORK"/cuda/*.json "$FGC_WORK"/cpu/*.json; do
  [[ -f $f ]] && gzip -1 -k -f "$f" && trace_files+=("${f#"$FGC_WORK"/}.gz")
done
archive_items=(logs data runs steps)
for f in "${trace_files[@]}"; do
  if (($(stat -c %s "$FGC_WORK/$f") < 12 * 1024 * 1024)); then archive_items+=("$f"); fi
done
tar -C "$FGC_WORK" -czf "$FGC_OUT_DIR/gpu_check_logs.tar.gz" "${archive_items[@]}"
log "done in $(($(date +%s) - FGC_START)) s: $FGC_OUT_DIR/gpu_check.json, gpu_check.md, gpu_check_logs.tar.gz"
cat "$FGC_OUT_DIR/gpu_check.md"
exit $FAILED
