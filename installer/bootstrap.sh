#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The two entry points of a fresh Debian 12 machine (see README.md):
#   installer/bootstrap.sh run    install what is missing, build (preset `default`), open Fathom Studio on the
#                                 demo workspace (built on first use); without a display, print `fathom env`, build
#                                 the demo workspace headless and say how to start the Studio
#   installer/bootstrap.sh test   install what is missing, build (preset `default`: the same tree as `run`, so
#                                 running both compiles Fathom once) and run the whole test suite
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '\n== %s\n' "$*"; }

case "$mode" in
  run)
    step "dependencies"
    installer/install-deps.sh
    step "configure + build (build/default)"
    cmake --preset default
    # Only the programs: the test suite is the other command's job.
    targets="fathom"
    grep -q '^FATHOM_BUILD_STUDIO:BOOL=ON' build/default/CMakeCache.txt && targets="$targets fathom-studio"
    cmake --build --preset default -j "$jobs" --target $targets
    demo="$root/build/default/demo"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      step "starting Fathom Studio on the demo workspace ($demo)"
      # The first start builds the demo (a short real 2-process training run and a saved plan comparison) with a
      # progress dialog; later starts open it at once.
      exec build/default/bin/fathom-studio --demo --demo-dir "$demo"
    fi
    step "no display: the environment as Fathom sees it"
    build/default/bin/fathom env
    if grep -q '^FATHOM_BUILD_STUDIO:BOOL=ON' build/default/CMakeCache.txt; then
      step "the demo workspace, built without a window ($demo)"
      build/default/bin/fathom-studio --create-demo "$demo"
      build/default/bin/fathom runs list --workspace "$demo/fathom.sqlite"
    fi
    cat <<TXT

No display was found, so Fathom Studio was not opened. To start it on the demo workspace:
  on a desktop session:   build/default/bin/fathom-studio --demo --demo-dir build/default/demo
  over SSH with X11:      ssh -X <host>, then the same command
  headless, as a picture: xvfb-run -a build/default/bin/fathom-studio --workspace build/default/demo/fathom.sqlite --screenshot studio.png
TXT
    ;;
  test)
    step "dependencies"
    # multinode: the SSH launch tests start a private sshd, the SLURM ones a private munged + slurmctld + slurmd
    # (installer/deps-debian.txt).
    installer/install-deps.sh --groups core,studio,test,multinode
    step "configure + build + test (build/default)"
    start=$(date +%s)
    cmake --preset default
    cmake --build --preset default -j "$jobs"
    ctest --preset default -j "$jobs"
    echo "bootstrap: test suite finished in $(( $(date +%s) - start )) s"
    ;;
  *)
    sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'
    [ -z "$mode" ] || [ "$mode" = "-h" ] || [ "$mode" = "--help" ] || { echo "bootstrap: unknown mode '$mode'" >&2; exit 2; }
    ;;
esac
