#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The checkpoint crash test at the issue's size (docs/checkpoint.md, "Atomicity"): the 4-process sharded job of
# tst_checkpoint_crash_sharded SIGKILLed at KILLS random moments while it saves (default 50; CI runs 8), each followed by a
# job that must load the previous or the new checkpoint. Needs build/default built (installer/bootstrap.sh test).
#   tests/crash/checkpoint_kill.sh [KILLS] [SEED]
# Prints the seed (rerun with it to get the same moments) and, at the end, how many kills landed inside a save.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
test="$root/build/default/tests/tst_checkpoint_crash_sharded"
[ -x "$test" ] || { echo "checkpoint_kill.sh: $test is not built (installer/bootstrap.sh test builds it)" >&2; exit 2; }
kills=${1:-50}
case "$kills" in '' | *[!0-9]* | 0) echo "checkpoint_kill.sh: KILLS must be a whole number above 0, got '$kills'" >&2; exit 2 ;; esac
export FATHOM_CRASH_MOMENTS="$kills"
[ -n "${2:-}" ] && export FATHOM_CRASH_SEED="$2"
start=$(date +%s)
"$test" killedSavesLeaveALoadableCheckpoint
echo "checkpoint_kill.sh: $kills kills in $(( $(date +%s) - start )) s"
