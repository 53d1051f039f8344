#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one fuzz target under ASan+UBSan for SECONDS (docs/fuzzing.md), configuring and building build/fuzz (the
# `fuzz` preset, clang-14) first when needed.
#   tests/fuzz/run.sh TARGET SECONDS [LIBFUZZER_FLAG ...]
#   tests/fuzz/run.sh --list
# Seeds come from tests/fuzz/corpus/TARGET (read only); inputs that reach new code go to build/fuzz/fuzz-corpus/TARGET,
# crashing inputs to build/fuzz/fuzz-findings/TARGET/ (copy each into tests/fuzz/regressions/TARGET/ once fixed), the
# log to build/fuzz/fuzz-logs/TARGET.log. The last line sums it up: executions, coverage (edges, libFuzzer's `cov:`),
# features, exec/s and the findings. Exit status: libFuzzer's (0: nothing found in the time).
# Environment: FATHOM_FUZZ_RSS_MB (2048), FATHOM_FUZZ_TIMEOUT (per input, 10 s), FATHOM_FUZZ_RUNS (stop after this many
# executions, -runs), FATHOM_FUZZ_JOBS (build jobs, 2), FATHOM_FUZZ_NICE (10), FATHOM_FUZZ_KEEP_GOING=1 (go on after a
# finding: -fork=1 with -ignore_crashes/-ignore_ooms/-ignore_timeouts, so one run collects every finding),
# FATHOM_FUZZ_NO_BUILD=1 (run the executable as built, e.g. while another build runs in build/fuzz).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/fuzz"

# The dictionary of each target: JSON tokens, plus the keys its parser knows.
declare -A dicts=(
  [config_yaml]="config" [deepspeed_json]="json config" [hf_config]="json hf_config" [plan_file]="config plan"
  [plan_json]="json plan" [hardware]="plan" [plan_flags]="flags" [shard_flags]="flags" [telemetry]=""
  [text_values]="json" [safetensors]="json" [trace_reader]="json trace" [trace_validator]="json trace"
  [trace_gzip]="trace" [checkpoint]="json" [launch_spec]="json"
  [device_map]="json device_map" [safetensors_index]="json hf_config safetensors_index")

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${!dicts[@]}" | sort
  exit 0
fi
if [ $# -lt 2 ] || [ -z "${dicts[$1]+set}" ]; then
  echo "usage: tests/fuzz/run.sh TARGET SECONDS [LIBFUZZER_FLAG ...]; targets: $(printf '%s ' $(printf '%s\n' "${!dicts[@]}" | sort))" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
case "$seconds" in '' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac

if [ "${FATHOM_FUZZ_NO_BUILD:-0}" != 1 ]; then
  export CCACHE_DIR="${CCACHE_DIR:-/tmp/ccache-fresh2}"
  if [ ! -f "$build/build.ninja" ]; then
    (cd "$root" && cmake --preset fuzz >/dev/null)
  fi
  cmake --build "$build" -j "${FATHOM_FUZZ_JOBS:-2}" --target "fuzz_$target" >/dev/null
fi

work="$build/fuzz-corpus/$target"
findings="$build/fuzz-findings/$target"
logs="$build/fuzz-logs"
mkdir -p "$work" "$findings" "$logs"
dict="$build/fuzz-dicts/$target.dict"
mkdir -p "$(dirname "$dict")"
: >"$dict"
for d in ${dicts[$target]}; do
  cat "$here/dict/$d.dict" >>"$dict"
done
dict_flag=()
[ -s "$dict" ] && dict_flag=(-dict="$dict")
runs_flag=()
[ -n "${FATHOM_FUZZ_RUNS:-}" ] && runs_flag=(-runs="$FATHOM_FUZZ_RUNS")
[ "${FATHOM_FUZZ_KEEP_GOING:-0}" = 1 ] && runs_flag+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)

log="$logs/$target.log"
# A small quarantine: the default 256 MiB makes every run page through memory (this machine is shared).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1:quarantine_size_mb=16:malloc_context_size=10}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
set +e
nice -n "${FATHOM_FUZZ_NICE:-10}" "$build/fuzz/fuzz_$target" \
  -max_total_time="$seconds" -rss_limit_mb="${FATHOM_FUZZ_RSS_MB:-2048}" -timeout="${FATHOM_FUZZ_TIMEOUT:-10}" \
  -artifact_prefix="$findings/" -print_final_stats=1 "${dict_flag[@]}" "${runs_flag[@]}" "$@" \
  "$work" "$here/corpus/$target" >"$log" 2>&1
status=$?
set -e

# libFuzzer's status lines: "#N <event> cov: E ft: F corp: ... exec/s: R ..." ("#N: cov: ... exec/s R" with -fork);
# the final stats: stat::number_of_executed_units, stat::average_exec_per_sec (not printed with -fork).
last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -1 || true)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
[ -z "$execs" ] && execs=$(printf '%s' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
cov=$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
[ -z "$rate" ] && rate=$(printf '%s' "$last" | sed -n 's/.* exec\/s:\{0,1\} \([0-9]*\).*/\1/p')
found=$(find "$findings" -type f | wc -l)
echo "fuzz_$target: status $status, ${execs:-0} executions, cov ${cov:-?} edges, ft ${ft:-?} features," \
  "${rate:-?} exec/s, $found finding file(s) in $findings (log: $log)"
exit $status
