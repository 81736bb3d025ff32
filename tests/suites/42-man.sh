#!/bin/sh
# The manual page: it must format with no warning from groff or mandoc, hold every section
# a reader looks for, and its OPTIONS, META-COMMANDS and SETTINGS sections and its list of
# functions must be exactly what the program's tables generate (suql --help-man SECTION);
# scripts/man-sync.sh rewrites them.
. "$(dirname "$0")/../lib.sh"
page=$SUQL_TOP/man/suql.1
tmp=$SUQL_TMP/man
mkdir -p "$tmp"

lint() {           # lint NAME TOOL ARGS...: the tool must print nothing
	name=$1
	tool=$2
	shift
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "skip man: $name: $tool is not installed (scripts/deps.sh installs it)"
		return
	fi
	"$@" >"$tmp/lint" 2>&1
	if [ -s "$tmp/lint" ]; then
		echo "not ok man: $name"
		sed 's/^/# /' "$tmp/lint" | head -n 30
	else
		echo "ok man: $name"
	fi
}
lint "groff -man -ww finds nothing to warn about" groff -man -ww -z "$page"
lint "mandoc -Tlint finds nothing to warn about" mandoc -Tlint "$page"

missing=""
for s in NAME SYNOPSIS DESCRIPTION OPTIONS META-COMMANDS SETTINGS "LLM BACKENDS" ENVIRONMENT FILES \
	"EXIT STATUS" EXAMPLES "SEE ALSO"; do
	grep -qx "\.SH $s" "$page" || grep -qx "\.SH \"$s\"" "$page" || missing="$missing [$s]"
done
if [ -z "$missing" ]; then
	echo "ok man: every section is there"
else
	echo "not ok man: sections missing:$missing"
fi

for section in options meta-commands settings functions; do
	awk -v s="$section" '
		$0 ~ "^\\.\\\\\" BEGIN GENERATED " s ":" { on = 1; next }
		$0 ~ "^\\.\\\\\" END GENERATED " s "$" { on = 0 }
		on { print }
	' "$page" >"$tmp/page.$section"
	if ! "$prog" --help-man "$section" >"$tmp/prog.$section" 2>"$tmp/err"; then
		echo "not ok man: $section section agrees with the program"
		sed 's/^/# /' "$tmp/err"
	elif [ ! -s "$tmp/page.$section" ]; then
		echo "not ok man: $section section agrees with the program"
		echo "# no generated $section block in man/suql.1 (run scripts/man-sync.sh)"
	elif cmp -s "$tmp/page.$section" "$tmp/prog.$section"; then
		echo "ok man: $section section agrees with the program"
	else
		echo "not ok man: $section section agrees with the program"
		echo "# man/suql.1 differs from suql --help-man $section; run scripts/man-sync.sh"
		diff -u "$tmp/page.$section" "$tmp/prog.$section" | sed '1,2d; s/^/# /' | head -n 30
	fi
done

# --help lists the same options as the page (both come from the table)
"$prog" --help >"$tmp/help"
bad=""
for o in $(sed 's/\\-/-/g' "$page" | grep -o '^\.BI\? "\(-., \)\?--[a-z-]*' | sed 's/.*--//'); do
	grep -q -- "--$o" "$tmp/help" || bad="$bad --$o"
done
if [ -z "$bad" ]; then
	echo "ok man: --help lists every option of the page"
else
	echo "not ok man: --help lacks$bad"
fi
