#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates workspace_v3.sqlite and workspace_v3.expected beside this script: a small workspace written by a
# released Fathom (schema version 3) and what that release's `fathom runs` printed of it. tst_workspace_migration
# opens a copy with today's Workspace, which migrates it, and compares the runs and metrics with the .expected.
#
# Run with the release at commit fd8b02f (the last one writing schema version 3), never with a newer build:
#   git worktree add /tmp/fathom-fd8b02f fd8b02f
#   (cd /tmp/fathom-fd8b02f && cmake --preset ci && cmake --build --preset ci --target fathom)
#   tests/data/make_workspace_fixture.sh /tmp/fathom-fd8b02f/build/ci/bin/fathom
#
# The runs (all on the CPU, 2 processes unless noted), chosen so the migration meets every shape an old record has:
#   1. `fathom launch` of `fathom train --model gpt-tiny`: DDP chosen by nobody (the launcher's JSON has no sharding)
#   2. the launcher selects FSDP (--use_fsdp --fsdp_sharding_strategy SHARD_GRAD_OP): the JSON names the sharding
#   3. the launcher selects DeepSpeed ZeRO-3 (--use_deepspeed --zero_stage 3): the JSON names the stage
#   4. the worker selects ZeRO-2 (`fathom train --strategy zero2`), profiled: only the command line says so; a
#      gzipped trace per rank in trace_chunks and its artifact (a small MLP, so the traces stay a few kB)
#   5. a failing program (`sh -c 'exit 3'`): status failed, exit code 3, one error event
#   6. `fathom train` without the launcher (1 process): the sqlite tracker's own run, its hparams as the config
set -eu

FATHOM=${1:?usage: make_workspace_fixture.sh PATH/TO/fathom (built at commit fd8b02f)}
FATHOM=$(cd "$(dirname "$FATHOM")" && pwd)/$(basename "$FATHOM")
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# `fathom` from PATH, so the recorded command lines read `fathom launch fathom train ...`, not this machine's path.
PATH=$(dirname "$FATHOM"):$PATH
export PATH
unset FATHOM_WORKSPACE
export OMP_NUM_THREADS=1
WS=$WORK/ws.sqlite
TRAIN="fathom train --model gpt-tiny --batch_size 4 --num_samples 64"

fathom launch --num_processes 2 --cpu --workspace "$WS" $TRAIN --steps 6 --log_every 2
fathom launch --num_processes 2 --use_fsdp --fsdp_sharding_strategy SHARD_GRAD_OP --workspace "$WS" \
  $TRAIN --steps 4 --log_every 2
fathom launch --num_processes 2 --use_deepspeed --zero_stage 3 --workspace "$WS" $TRAIN --steps 4 --log_every 2
fathom launch --num_processes 2 --cpu --workspace "$WS" fathom train --model mlp --hidden 16 --layers 2 --batch_size 4 \
  --num_samples 64 --strategy zero2 --steps 4 --log_every 2 --profile --profile_schedule 1,1,1,1 --profile_gzip \
  --profile_dir "$WORK/profile"
fathom launch --num_processes 2 --cpu --workspace "$WS" sh -c 'echo "rank $RANK gives up"; exit 3' || test $? -eq 3
fathom train --model gpt-tiny --batch_size 4 --num_samples 64 --steps 3 --log_every 1 --cpu --workspace "$WS"

# One self-contained file: the log folded in, free pages dropped.
sqlite3 "$WS" 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;' >/dev/null
test "$(sqlite3 "$WS" 'PRAGMA user_version')" -eq "$VERSION"
cp "$WS" "$HERE/workspace_v$VERSION.sqlite"

# The rendering, by the same binary: `runs list --json`, then `runs show ID --json` of every run, each a JSON value.
WS=$HERE/workspace_v$VERSION.sqlite
{
  fathom runs list --json --workspace "$WS"
  for id in $(sqlite3 "$WS" 'SELECT id FROM runs ORDER BY id'); do
    fathom runs show "$id" --json --log_lines 1000 --workspace "$WS"
  done
} >"$HERE/workspace_v$VERSION.expected"
rm -f "$WS-wal" "$WS-shm"
ls -l "$HERE/workspace_v$VERSION.sqlite" "$HERE/workspace_v$VERSION.expected"
