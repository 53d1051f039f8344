#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates saved_plan_v3.input.json and saved_plan_v3.prediction.json beside this script: the what-if comparison
# a released Fathom saved in a workspace (store::Workspace::savePlan, the `plans` table of schema version 3), byte
# for byte. tst_saved_plan_fixture reads them with today's code: the request, every strategy's prediction and the
# search results must still read, and the saved plans list must show them as that release did.
#
# Run with the release at commit 725c1c0 (the last one before Plan and Prediction had one JSON form in core):
#   git worktree add /tmp/fathom-725c1c0 725c1c0
#   (cd /tmp/fathom-725c1c0 && cmake --preset ci && cmake --build --preset ci --target fathom fathom-studio)
#   tests/data/make_saved_plan_fixture.sh /tmp/fathom-725c1c0/build/ci/bin/fathom-studio
#
# The demo workspace holds one such comparison: Llama 2 7B (transformer dimensions) on 8 × H100, every strategy.
set -eu

STUDIO=${1:?usage: make_saved_plan_fixture.sh PATH/TO/fathom-studio (built at commit 725c1c0)}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

QT_QPA_PLATFORM=offscreen "$STUDIO" --create-demo "$WORK/demo"
sqlite3 "$WORK/demo/fathom.sqlite" \
  "SELECT writefile('$HERE/saved_plan_v3.input.json', input_json),
          writefile('$HERE/saved_plan_v3.prediction.json', prediction_json) FROM plans WHERE id = 1" >/dev/null
ls -l "$HERE/saved_plan_v3.input.json" "$HERE/saved_plan_v3.prediction.json"
