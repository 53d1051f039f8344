#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages listed in installer/deps-debian.txt that are missing. Idempotent: when everything
# is present it only asks dpkg (well under a second) and changes nothing.
#   installer/install-deps.sh [--groups core,studio,test] [--check]
#     --groups  which tagged groups to install (default: core,studio,test; add bench for the Python baselines)
#     --check   only report what is missing; exit 1 if anything is
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
list="$here/deps-debian.txt"
groups="core,studio,test"
check_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --groups) groups="$2"; shift 2 ;;
    --groups=*) groups="${1#--groups=}"; shift ;;
    --check) check_only=1; shift ;;
    -h|--help) sed -n '3,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi
echo "install-deps: missing ${#missing[@]} package(s): ${missing[*]}"
[ "$check_only" = 1 ] && exit 1

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: apt-get not found; this script supports Debian 12 (bookworm) and derivatives" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  $sudo apt-get update -q
fi
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
