#!/bin/sh
# Install the Debian packages suql needs to build and test, when they are missing.
# Used by `make run`, `make check` and .ci/run. Installs as root, or through sudo when
# available; otherwise says what to install and fails. Does nothing when all are present.
# Extra packages can be asked for as arguments (scripts/deps.sh clang).
set -u
pkgs="gcc make pkg-config libsqlite3-dev libcurl4-openssl-dev libjansson-dev libedit-dev
libstemmer-dev libssl-dev sqlite3 tmux groff-base unzip $*"

missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = "installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	run=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	run="sudo"
else
	echo "suql needs these Debian packages:$missing" >&2
	echo "install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$run apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
$run apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
