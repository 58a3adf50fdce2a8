#!/bin/sh
# Installs the Debian packages named on the command line that are not installed yet.
# Used by the Makefile (make run, make test) and CI; does nothing when all are present.
set -eu
missing=""
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $pkg"
  fi
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "gpudoctor: please install:$missing (no apt-get here)" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "gpudoctor: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing >/dev/null
