#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages listed in installer/deps-debian.txt that are missing, then the npm packages of the
# chosen groups listed in installer/npm-bench.txt (into build/npm, or $FATHOM_NPM_PREFIX). Idempotent: when
# everything is present it only asks dpkg and reads package.json files (well under a second) and changes nothing.
#   installer/install-deps.sh [--groups core,studio,test] [--check]
#     --groups  which tagged groups to install (default: core,studio,test; add bench for the benchmarks' baselines)
#     --check   only report what is missing; exit 1 if anything is
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
list="$here/deps-debian.txt"
npm_list="$here/npm-bench.txt"
npm_prefix="${FATHOM_NPM_PREFIX:-$(dirname "$here")/build/npm}"
groups="core,studio,test"
check_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --groups) groups="$2"; shift 2 ;;
    --groups=*) groups="${1#--groups=}"; shift ;;
    --check) check_only=1; shift ;;
    -h|--help) sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown argument '$1' (expected --groups LIST or --check)" >&2; exit 2 ;;
  esac
done

wanted=()
while read -r pkg tag _; do
  [ -z "$pkg" ] && continue
  case "$pkg" in \#*) continue ;; esac
  group=${tag//[\[\]]/}
  case ",$groups," in *",$group,"*) wanted+=("$pkg") ;; esac
done < "$list"

missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done

# npm packages (name@version [group]) of the chosen groups whose pinned version is not under $npm_prefix.
npm_wanted=()
npm_missing=()
if [ -f "$npm_list" ]; then
  while read -r spec tag _; do
    [ -z "$spec" ] && continue
    case "$spec" in \#*) continue ;; esac
    group=${tag//[\[\]]/}
    case ",$groups," in *",$group,"*) ;; *) continue ;; esac
    npm_wanted+=("$spec")
    name=${spec%@*} version=${spec##*@}
    manifest="$npm_prefix/node_modules/$name/package.json"
    have=""
    # The version field of the installed package.json; no node needed (it may not be installed yet).
    [ -f "$manifest" ] && have=$(sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$manifest" | head -1)
    [ "$have" = "$version" ] || npm_missing+=("$spec")
  done < "$npm_list"
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#npm_missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present${npm_wanted:+, and ${#npm_wanted[@]} npm packages in $npm_prefix}"
  exit 0
fi
[ ${#missing[@]} -gt 0 ] && echo "install-deps: missing ${#missing[@]} package(s): ${missing[*]}"
[ ${#npm_missing[@]} -gt 0 ] && echo "install-deps: missing ${#npm_missing[@]} npm package(s) in $npm_prefix: ${npm_missing[*]}"
[ "$check_only" = 1 ] && exit 1

sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    [ ${#missing[@]} -gt 0 ] && { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  fi
fi
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; this script supports Debian 12 (bookworm) and derivatives" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists only when they are missing or older than a day.
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    $sudo apt-get update -q
  fi
  $sudo apt-get install -y -q --no-install-recommends "$@"
  echo "install-deps: installed $*"
}
[ ${#missing[@]} -gt 0 ] && apt_install "${missing[@]}"

if [ ${#npm_missing[@]} -gt 0 ]; then
  # Debian's nodejs comes without npm (NodeSource's includes it).
  command -v npm >/dev/null 2>&1 || apt_install npm
  # The prefix belongs to the user who ran the script, also under sudo, so that the benchmarks (run unprivileged)
  # and a later install can write it.
  as_user=()
  if [ "$(id -u)" = 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    as_user=(sudo -u "$SUDO_USER" -H)
  fi
  "${as_user[@]}" mkdir -p "$npm_prefix"
  "${as_user[@]}" npm install --prefix "$npm_prefix" --no-audit --no-fund --save-exact "${npm_missing[@]}"
  echo "install-deps: installed ${npm_missing[*]} into $npm_prefix"
fi
