#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Screenshots of Fathom Studio under Xvfb, in English and German: the main window, a run's page (plots, plan vs
# actual), the what-if planner, every page of the configuration wizard and the settings dialog, on the demo workspace
# (built first, for real, when missing); then the run monitor on real runs made here: a hang (rank 1 skips an
# all_reduce), a straggler, their comparison, a 2-rank gpt-tiny run's live page mid-run, and the trace timeline of
# a real 2-rank trace, alone and with its plan (plan lanes, the step alignment tab), a real 4-rank trace zoomed out
# with its plan, one step with an area selected, and one step of a generated 4-rank GPU trace with a CPU op's flows to
# its kernels. Look at every PNG:
# nothing clipped, overlapping or untranslated (docs/studio.md).
#
#   tests/studio/screenshots.sh [BUILD_DIR] [OUT_DIR]      defaults: build/default, BUILD_DIR/screenshots
#
# Settings and data go to OUT_DIR/home, so the user's own layout and recent workspaces neither leak in nor change.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$root/build/default}" && pwd)
out=${2:-$build/screenshots}
studio=$build/bin/fathom-studio
[ -x "$studio" ] || { echo "screenshots: $studio not built (cmake --build $build --target fathom-studio fathom)" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "screenshots: xvfb-run missing (installer/install-deps.sh installs [test])" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
export HOME="$out/home" XDG_CONFIG_HOME="$out/home/config" XDG_DATA_HOME="$out/home/data" XDG_CACHE_HOME="$out/home/cache"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
demo="$out/demo"

if [ ! -f "$demo/fathom.sqlite" ]; then
  echo "== building the demo workspace in $demo"
  QT_QPA_PLATFORM=offscreen "$studio" --create-demo "$demo"
fi

targets=(main:main run:run:1 planner-memory:planner:0 planner-time:planner:1 planner-strategies:planner:2
         planner-top:planner:4 planner-device-map:planner:device-map settings:settings)
for page in 0 1 2 3 4 5 6; do
  targets+=("wizard-$page:wizard:$page")
done
# The paradigm page with its FSDP and ZeRO options, filled from Accelerate's own templates.
templates="$root/tests/data/accelerate_templates"
targets+=("wizard-fsdp:wizard:1:$templates/fsdp.yaml" "wizard-deepspeed:wizard:1:$templates/deepspeed.yaml")

fathom=$build/bin/fathom
program=$build/tests/collective_program
make_trace=$build/bench/make_trace
[ -x "$fathom" ] && [ -x "$program" ] && [ -x "$make_trace" ] ||
  { echo "screenshots: build fathom, collective_program and make_trace first" >&2; exit 2; }
monitor="$out/monitor"
if [ ! -f "$monitor/fathom.sqlite" ]; then
  echo "== the run monitor's runs in $monitor (a hang, then a straggler; about 20 s)"
  mkdir -p "$monitor"
  "$fathom" launch --workspace "$monitor/fathom.sqlite" --num_processes 2 --hang_timeout 3 --hang_action abort \
    --run_name hang "$program" --steps 30 --skip_rank 1 --skip_step 5 >"$monitor/hang.log" 2>&1 || true
  "$fathom" launch --workspace "$monitor/fathom.sqlite" --num_processes 2 --run_name straggler \
    "$program" --steps 60 --slow_rank 1 --slow_ms 80 >"$monitor/straggler.log" 2>&1
fi

# One X server for every shot; 24-bit colour, larger than the 1600x1000 window.
xvfb-run -a -s "-screen 0 1920x1200x24" bash -s "$studio" "$out" "$demo" "${targets[@]}" <<'SHOTS'
set -euo pipefail
studio=$1 out=$2 demo=$3
shift 3
status=0
for lang in en de; do
  mkdir -p "$out/$lang"
  for entry in "$@"; do
    IFS=: read -r name kind page config <<<"$entry"
    target=$kind${page:+:$page}
    file="$out/$lang/$name.png"
    extra=()
    [ -z "${config:-}" ] || extra=(--config "$config")
    if "$studio" --locale "$lang" --workspace "$demo/fathom.sqlite" --size 1600x1000 --show "$target" \
        --screenshot "$file" "${extra[@]}" >"$out/$lang/$name.log" 2>&1; then
      echo "  $lang/$name.png"
    else
      echo "  $lang/$name.png FAILED (see $out/$lang/$name.log)" >&2
      status=1
    fi
  done
done
exit $status
SHOTS

# The demo run's plan vs actual (tab 4); the run monitor: the hang's alerts (tab 3), the browser marking both runs,
# their comparison; and a live page.
xvfb-run -a -s "-screen 0 1920x1200x24" bash -s "$studio" "$out" "$monitor" "$fathom" "$demo" \
  "$root/tests/data/traces/gloo_2rank_merged.json.gz" "$make_trace" <<'LIVE'
set -euo pipefail
studio=$1 out=$2 monitor=$3 fathom=$4 demo=$5 trace=$6 make_trace=$7
status=0
shot() {  # LANG NAME WORKSPACE TARGET
  if "$studio" --locale "$1" --workspace "$3" --size 1600x1000 --show "$4" --screenshot "$out/$1/$2.png" \
      >"$out/$1/$2.log" 2>&1; then
    echo "  $1/$2.png"
  else
    echo "  $1/$2.png FAILED (see $out/$1/$2.log)" >&2
    status=1
  fi
}
for lang in en de; do
  shot "$lang" run-plan "$demo/fathom.sqlite" run:1:4
  shot "$lang" monitor-main "$monitor/fathom.sqlite" main
  shot "$lang" monitor-hang "$monitor/fathom.sqlite" run:1:3
  shot "$lang" monitor-compare "$monitor/fathom.sqlite" compare:1,2
done
# A live run: long enough to be mid-run for both languages' shots, then stopped (SIGTERM: the launcher ends it).
live="$out/live"
rm -rf "$live" && mkdir -p "$live"
"$fathom" launch --workspace "$live/fathom.sqlite" --num_processes 2 --run_name live "$fathom" train --model gpt-tiny \
  --steps 100000 >"$live/launch.log" 2>&1 &
launcher=$!
sleep 15
for lang in en de; do
  shot "$lang" live-run "$live/fathom.sqlite" run:1
done
kill -TERM "$launcher" 2>/dev/null || true
wait "$launcher" 2>/dev/null || true
tshot() {  # LANG NAME ARGS...: a trace opened alone (no workspace), --show and --screenshot added here
  local lang=$1 name=$2
  shift 2
  if "$studio" --locale "$lang" --size 1600x1000 "$@" --screenshot "$out/$lang/$name.png" >"$out/$lang/$name.log" 2>&1
  then
    echo "  $lang/$name.png"
  else
    echo "  $lang/$name.png FAILED (see $out/$lang/$name.log)" >&2
    status=1
  fi
}
# The trace timeline on a real profiled 2-rank Gloo trace, alone and with the planner's prediction for the run that
# made it (gpt-tiny, two CPU ranks, batch 2): the plan lanes, and the step alignment tab with measured vs predicted.
"$fathom" plan --model gpt-tiny --hardware cpu-host --num_processes 2 --micro_batch 2 --mixed_precision no --json \
  >"$out/trace_plan.json"
# A real profiled 4-rank gpt-tiny run (Gloo, one thread a rank, steps 1-2 recorded), merged by the profiler, and its
# plan; a generated 4-rank GPU trace shaped like Kineto's (kernels on streams, ac2g flows from their launches).
traces4="$out/traces4"
rm -rf "$traces4"
"$fathom" launch --num_processes 4 --num_cpu_threads_per_process 1 --quiet "$fathom" train --model gpt-tiny \
  --batch_size 2 --steps 4 --log_every 0 --profile --profile_dir "$traces4" --profile_schedule 1,0,2,1 \
  >"$out/traces4.log" 2>&1
"$fathom" plan --model gpt-tiny --hardware cpu-host --num_processes 4 --micro_batch 2 --mixed_precision no --json \
  >"$out/trace4_plan.json"
"$make_trace" --events 200000 --ranks 4 "$out/gpu4.json.gz" >/dev/null
merged4=$(ls "$traces4"/run_*/merged/profile_merged.json | head -n 1)  # the run's own folder, run_<id>/
for lang in en de; do
  tshot "$lang" timeline --open "$trace" --show timeline
  tshot "$lang" timeline-plan --open "$trace" --plan "$out/trace_plan.json" --show timeline
  tshot "$lang" steps-plan --open "$trace" --plan "$out/trace_plan.json" --show steps
  # The 4-rank trace zoomed out with its plan lanes; its step 2 with rank 1's area selected (the Area panel: per name,
  # and the step breakdown `fathom trace summary --rank 1` prints); the ranks' steps stacked.
  tshot "$lang" timeline4 --open "$merged4" --plan "$out/trace4_plan.json" --show timeline
  tshot "$lang" timeline4-area --open "$merged4" --range step:2 --area step:2,1 --show timeline
  tshot "$lang" steps4-plan --open "$merged4" --plan "$out/trace4_plan.json" --show steps
  # Zoomed into a step of the GPU trace: its first aten::linear selected, shown with the kernel it launched (the arrow
  # from its cudaLaunchKernel), its details.
  tshot "$lang" timeline4-flows --open "$out/gpu4.json.gz" --select '^aten::linear$' --show timeline
done
exit $status
LIVE
echo "screenshots in $out/en and $out/de"
