#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Screenshots of Fathom Studio under Xvfb, in English and German: the main window, a run's page, the what-if
# planner, every page of the configuration wizard and the settings dialog, on the demo workspace (built first, for
# real, when missing). Look at every PNG: nothing clipped, overlapping or untranslated (docs/studio.md).
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
         planner-top:planner:4 settings:settings)
for page in 0 1 2 3 4 5 6; do
  targets+=("wizard-$page:wizard:$page")
done
# The paradigm page with its FSDP and ZeRO options, filled from Accelerate's own templates.
templates="$root/tests/data/accelerate_templates"
targets+=("wizard-fsdp:wizard:1:$templates/fsdp.yaml" "wizard-deepspeed:wizard:1:$templates/deepspeed.yaml")

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
echo "screenshots in $out/en and $out/de"
