#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The two entry points of a fresh Debian 12 machine (see README.md):
#   installer/bootstrap.sh run    install what is missing, build (preset `default`), open Fathom Studio on the
#                                 built-in demo; without a display, print `fathom env` and how to start the Studio
#   installer/bootstrap.sh test   install what is missing, build (preset `ci`) and run the whole test suite
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
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      step "starting Fathom Studio"
      exec build/default/bin/fathom-studio
    fi
    step "no display: the environment as Fathom sees it"
    build/default/bin/fathom env
    cat <<TXT

No display was found, so Fathom Studio was not opened. To start it:
  on a desktop session:   build/default/bin/fathom-studio
  over SSH with X11:      ssh -X <host>, then build/default/bin/fathom-studio
  headless, as a picture: xvfb-run -a build/default/bin/fathom-studio --screenshot studio.png
TXT
    ;;
  test)
    step "dependencies"
    installer/install-deps.sh
    step "configure + build + test (build/ci)"
    start=$(date +%s)
    cmake --preset ci
    cmake --build --preset ci -j "$jobs"
    ctest --preset ci -j "$jobs"
    echo "bootstrap: test suite finished in $(( $(date +%s) - start )) s"
    ;;
  *)
    sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//'
    [ -z "$mode" ] || [ "$mode" = "-h" ] || [ "$mode" = "--help" ] || { echo "bootstrap: unknown mode '$mode'" >&2; exit 2; }
    ;;
esac
