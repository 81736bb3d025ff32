#!/bin/sh
# Shell completion: `make install PREFIX=P` puts P/share/bash-completion/completions/suql and
# P/share/zsh/site-functions/_suql, written by the program (suql --completion bash|zsh) from
# its table of options, so every option --help lists is there. bash completes through the
# installed file sourced alone (COMP_WORDS and COMP_CWORD set as bash sets them, the
# function called as bash calls it): `suql --mo` offers --mode, an output mode, a
# setting's name and then its values (bash splits `explain=o` at the '='), psql's
# ON_ERROR_STOP, and files where a file goes. zsh, when it is installed, reads its file
# (zsh -n) and completes `suql --mo<TAB>` at a terminal of its own (zpty).
. "$(dirname "$0")/../lib.sh"
tmp=$SUQL_TMP/completion
mkdir -p "$tmp/files"

# make install: only on a build that is up to date (the suite never builds)
san=""
case $SUQL_BUILD in */build-san*) san="SAN=address,undefined" ;; esac
if ! (cd "$SUQL_TOP" && make -q $san all >/dev/null 2>&1); then
	echo "skip completion: make install: the build in $SUQL_BUILD is not up to date (make first)"
	bfile=$tmp/suql.bash zfile=$tmp/_suql
	"$prog" --completion bash >"$bfile"
	"$prog" --completion zsh >"$zfile"
else
	p=$tmp/prefix
	(cd "$SUQL_TOP" && make -s $san install PREFIX="$p") >"$tmp/install.log" 2>&1
	bfile=$p/share/bash-completion/completions/suql zfile=$p/share/zsh/site-functions/_suql
	if [ -s "$bfile" ] && [ -s "$zfile" ]; then
		ok "completion: make install PREFIX=P puts P/share/bash-completion/completions/suql and P/share/zsh/site-functions/_suql"
	else
		notok "completion: make install PREFIX=P puts the completion files" "$(cat "$tmp/install.log")" \
			"$(find "$p" -type f | head -n 20)"
	fi
	check "completion: the installed bash file is what suql --completion bash writes" \
		"$(cat "$bfile" 2>/dev/null)" "$("$prog" --completion bash)"
fi

# Every option of --help is offered.
missing=""
for o in $("$prog" --help | grep -oE -- '^  (-[a-zA-Z], |    )--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
	grep -q -- " $o[ ']" "$bfile" || grep -q -- "'$o " "$bfile" || missing="$missing $o"
done
check "completion: every option --help lists is in the bash script" "$missing" ""

# comp WORD...: what the installed bash function offers for the last word
comp() {
	(cd "$tmp/files" && bash -c '
		. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_suql
		[ ${#COMPREPLY[@]} -gt 0 ] && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$bfile" "$@")
}
: >"$tmp/files/demo.db"
: >"$tmp/files/notes.sql"
check "completion: bash: suql --mo<TAB> gives --mode (and --model)" "$(comp suql --mo)" "--mode --model "
check "completion: bash: --mode c<TAB>" "$(comp suql --mode c)" "column csv "
check "completion: bash: -m ta<TAB>" "$(comp suql -m ta)" "table tabs "
check "completion: bash: --set ex<TAB>: names with their =" "$(comp suql --set ex)" \
	"expanded= explain= extract_quotes= "
check "completion: bash: --set explain=o<TAB> (bash splits at =)" "$(comp suql --set explain = o)" \
	"off on "
check "completion: bash: -s llm.logprobs=<TAB>" "$(comp suql -s llm.logprobs =)" "auto off on "
check "completion: bash: --variable O<TAB>" "$(comp suql --variable O)" "ON_ERROR_STOP= "
check "completion: bash: -v ON_ERROR_STOP=<TAB>" "$(comp suql -v ON_ERROR_STOP =)" "off on "
check "completion: bash: -f <TAB>: files" "$(comp suql -f no)" "notes.sql "
check "completion: bash: the database: files" "$(comp suql --csv de)" "demo.db "
check "completion: bash: -c takes SQL: nothing offered" "$(comp suql -c '')" ""
check "completion: bash: --completion <TAB>" "$(comp suql --completion '')" "bash zsh "
"$prog" --completion fish >"$tmp/out" 2>&1
check "completion: an unknown shell is a usage error" "$?|$(cat "$tmp/out")" \
	"2|error: --completion: no script for 'fish' (bash, zsh)"

if ! command -v zsh >/dev/null 2>&1; then
	echo "skip completion: zsh is not installed"
	exit 0
fi
if zsh -n "$zfile" 2>"$tmp/zerr"; then
	ok "completion: zsh reads _suql (zsh -n)"
else
	notok "completion: zsh reads _suql (zsh -n)" "$(cat "$tmp/zerr")"
fi
# suql --mo<TAB><TAB> at a zsh of its own, until the list shows (at most 20 s)
cat >"$tmp/z.zsh" <<EOF
zmodload zsh/zpty || exit 3
zpty z 'zsh -f -i'
zpty -w z 'PS1="> "; fpath=($(dirname "$zfile") \$fpath); autoload -U compinit; compinit -u -D'
zpty -w -n z \$'suql --mo\t\t'
out= i=0
while (( i < 200 )); do
	while zpty -r -t z chunk; do out+=\$chunk; done
	[[ \$out == *'--model'*'--'*'model'* || \$out == *'-- output mode'*'--model'* ]] && break
	sleep 0.1; (( i++ ))
done
zpty -d z
print -r -- "\$out"
EOF
zsh -f "$tmp/z.zsh" >"$tmp/zout" 2>&1
if grep -q -- '--mode.*-- output mode' "$tmp/zout" && grep -q -- '--model.*-- the chat model' "$tmp/zout"; then
	ok "completion: zsh: suql --mo<TAB> lists --mode and --model with their help"
else
	notok "completion: zsh: suql --mo<TAB> lists --mode and --model with their help" \
		"$(tr -d '\r' <"$tmp/zout" | tail -n 5)"
fi
exit 0
