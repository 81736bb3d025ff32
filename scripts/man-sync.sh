#!/bin/sh
# Rewrite the generated sections of man/suql.1 (OPTIONS, META-COMMANDS, SETTINGS and the
# list of functions) from the program's own tables, through `suql --help-man SECTION`. Run
# it after changing the option table (src/cli/main.c), the meta-command table
# (src/cli/meta.c), a settings table (the registry in src/session/settings.c and the
# modules' tables it lists) or the functions' help (src/cli/help_fn.c); the test
# tests/suites/42-man.sh fails until the page agrees with the tables.
#     sh scripts/man-sync.sh [PROGRAM]      (default ./suql; build it first)
set -eu
cd "$(dirname "$0")/.."
prog=${1:-./suql}
page=man/suql.1
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp".*' EXIT
"$prog" --help-man options >"$tmp.options"
"$prog" --help-man meta-commands >"$tmp.meta-commands"
"$prog" --help-man settings >"$tmp.settings"
"$prog" --help-man functions >"$tmp.functions"
awk -v dir="$tmp" '
	/^\.\\" BEGIN GENERATED / {
		print
		name = $4; sub(/:$/, "", name)
		while ((getline line < (dir "." name)) > 0) print line
		skip = 1
		next
	}
	/^\.\\" END GENERATED / { skip = 0 }
	!skip { print }
' "$page" >"$tmp"
if cmp -s "$tmp" "$page"; then
	echo "$page: up to date"
else
	cp "$tmp" "$page"
	echo "$page: sections rewritten"
fi
