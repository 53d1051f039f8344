#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches the C++ build dependencies the GPU machine may lack (it reaches no package registry) as Debian 12 packages
# and unpacks them into one relocatable prefix, for `run`'s carry (docs/gpu.md, "How to run"):
#   yaml-cpp, SQLite 3, nlohmann-json, CLI11, zlib (headers, CMake files, shared libraries; no static ones, no docs).
# Runs here, on Debian 12, with apt-get's ordinary download; tests/gpu/check.sh passes DIR/usr to CMake as a prefix.
# The libraries are x86-64 builds for glibc >= 2.36 with the C++11 ABI, as PyTorch 2.x's wheels use.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: tests/gpu/fetch_deps.sh [DIR]

Downloads libyaml-cpp-dev, libyaml-cpp0.7, libsqlite3-dev, libsqlite3-0, nlohmann-json3-dev, libcli11-dev,
zlib1g-dev and zlib1g with `apt-get download` and unpacks them into DIR (default: <repo>/.gpu-deps), making every
absolute symbolic link relative so the folder can be moved, and adds DIR to the repository's .git/info/exclude.
Then: run tests/gpu/check.sh on the GPU machine with `carry: [".gpu-deps"]`.
EOF
}

case ${1:-} in
  -h | --help) usage; exit 0 ;;
esac
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
DIR=${1:-$ROOT/.gpu-deps}
PACKAGES=(libyaml-cpp-dev libyaml-cpp0.7 libsqlite3-dev libsqlite3-0 nlohmann-json3-dev libcli11-dev zlib1g-dev
  zlib1g)

download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
(cd "$download" && apt-get download "${PACKAGES[@]}")
rm -rf "$DIR"
mkdir -p "$DIR"
for deb in "$download"/*.deb; do
  dpkg -x "$deb" "$DIR"
done
# zlib1g-dev's libz.so points at /lib/x86_64-linux-gnu/libz.so.1.2.13: make such links point inside DIR.
while IFS= read -r link; do
  target=$(readlink "$link")
  if [[ $target == /* ]]; then
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$DIR$target")" "$link"
  fi
done < <(find "$DIR" -type l)
rm -rf "$DIR/usr/share/doc" "$DIR/usr/share/man" "$DIR/usr/share/lintian"
find "$DIR" -name '*.a' -delete
# A link whose target is missing would only fail later, on the GPU machine.
if broken=$(find -L "$DIR" -type l) && [[ -n $broken ]]; then
  echo "fetch_deps.sh: broken links in $DIR:" >&2
  echo "$broken" >&2
  exit 1
fi

exclude=$(git -C "$ROOT" rev-parse --git-path info/exclude)
[[ $exclude == /* ]] || exclude="$ROOT/$exclude"
entry="/$(realpath --relative-to="$ROOT" "$DIR")/"
if [[ $entry != /../* ]] && ! grep -qxF "$entry" "$exclude" 2>/dev/null; then
  mkdir -p "$(dirname "$exclude")"
  echo "$entry" >>"$exclude"
fi
echo "fetch_deps.sh: $(du -sh "$DIR" | cut -f1) in $DIR ($(find "$DIR" -type f | wc -l) files): ${PACKAGES[*]}"
