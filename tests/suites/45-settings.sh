#!/bin/sh
# The settings registry: :set lists exactly the settings the manual page's SETTINGS section
# describes (both are made from the same rows), and the README's settings tables name the
# same settings with the same defaults. Completion offers the registry's names too (its
# interactive check is in 41-terminal).
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/settings
mkdir -p "$tmp"

# from the manual's rows: '.BR "chat.limit" " N (0 to 100000; default 5)"' -> "chat.limit|5"
"$prog" --help-man settings |
	sed -n 's/^\.BR "\([^"]*\)" ".*default \(.*\))"$/\1|\2/p' |
	sed 's/\\-/-/g; s/\\(aq/'"'"'/g' | sort >"$tmp/man"
"$prog" -c ':set' | sed 's/ = .*//' | sort >"$tmp/set"
cut -d"|" -f1 "$tmp/man" | sort >"$tmp/man.names"

if [ -s "$tmp/man" ] && cmp -s "$tmp/man.names" "$tmp/set"; then
	echo "ok settings: :set and the manual list the same settings ($(wc -l <"$tmp/set"))"
else
	echo "not ok settings: :set and the manual list the same settings"
	diff "$tmp/man.names" "$tmp/set" | sed 's/^/# /' | head -n 20
fi

# the README: rows of the tables under "## Settings", "| `a`, `b` | `x`, `y` | ... |"
awk '
	/^## / { on = ($0 == "## Settings") }
	on && /^\| `/ {
		n = split($0, cell, "|")
		names = cell[2]; dflt = cell[3]
		gsub(/`/, "", names); gsub(/`/, "", dflt)
		gsub(/^ +| +$/, "", names); gsub(/^ +| +$/, "", dflt)
		k = split(names, nm, ", ")
		d = split(dflt, df, ", ")
		for (i = 1; i <= k; i++)
			print nm[i] "|" (k > 1 && d == k ? df[i] : dflt)
	}' "$SUQL_TOP/README.md" | sort >"$tmp/readme"
if [ -s "$tmp/readme" ] && cmp -s "$tmp/readme" "$tmp/man"; then
	echo "ok settings: the README's tables name every setting with its default"
else
	echo "not ok settings: the README's tables name every setting with its default"
	echo "# - the registry (suql --help-man settings), + README.md"
	diff "$tmp/man" "$tmp/readme" | grep '^[<>]' | sed 's/^</-/; s/^>/+/; s/^/# /' | head -n 20
fi
