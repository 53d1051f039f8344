#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates gloo_2rank_merged.json.gz: a real profiled 2-rank Gloo run of `fathom train` (gpt-tiny, one recorded
# step), merged by the profiler. Used by tst_timeline_index. Run from the repository root with a built bin/fathom:
#   tests/data/traces/make_gloo_2rank_trace.sh build/default/bin/fathom
set -eu
fathom=${1:-build/default/bin/fathom}
dir=$(mktemp -d)
"$fathom" launch --num_processes 2 --num_cpu_threads_per_process 1 --quiet --workspace "$dir/ws.sqlite" \
  "$fathom" train --model gpt-tiny --batch_size 2 --steps 3 --log_every 0 --profile --profile_dir "$dir/traces" \
  --profile_schedule 1,0,1,1
gzip -9 -n -c "$dir"/traces/run_*/merged/profile_merged.json > tests/data/traces/gloo_2rank_merged.json.gz
rm -rf "$dir"
