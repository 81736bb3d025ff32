#!/bin/sh
# Install the Debian packages suql needs to build and test, when they are missing.
# Used by `make run`, `make check` and .ci/run. Installs as root, or through sudo when
# available; otherwise says what to install and fails. Does nothing when all are present.
# Extra packages can be asked for as arguments (scripts/deps.sh clang). An argument
# written opt:NAME is wanted but optional: it is installed along with the others when that
# is possible, and otherwise only named (what needs it is skipped, e.g. the fuzz suite).
set -u
pkgs="gcc make pkg-config libsqlite3-dev libcurl4-openssl-dev libjansson-dev libedit-dev
libstemmer-dev libssl-dev libpq-dev sqlite3 tmux groff-base mandoc unzip"
optional=""
for a in "$@"; do
	case $a in
	opt:*) optional="$optional ${a#opt:}" ;;
	*) pkgs="$pkgs $a" ;;
	esac
done

absent() {   # absent PKG...: those not installed
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[ "$st" = "installed" ] || printf ' %s' "$p"
	done
}
# shellcheck disable=SC2086
missing=$(absent $pkgs)
# shellcheck disable=SC2086
wanted=$(absent $optional)
[ -z "$missing$wanted" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	run=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	run="sudo"
else
	if [ -n "$missing" ]; then
		echo "suql needs these Debian packages:$missing" >&2
		echo "install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "optional Debian packages not installed:$wanted (what needs them is skipped)" >&2
	exit 0
fi
echo "installing:$missing$wanted" >&2
export DEBIAN_FRONTEND=noninteractive
$run apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
if [ -n "$missing" ]; then
	$run apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
fi
# shellcheck disable=SC2086
if [ -n "$wanted" ] && ! $run apt-get install -y -qq --no-install-recommends $wanted >&2; then
	echo "optional Debian packages could not be installed:$wanted (what needs them is" \
	     "skipped)" >&2
fi
exit 0
