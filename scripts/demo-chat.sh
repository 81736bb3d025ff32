#!/bin/sh
# make demo-chat: chat mode on the demo database against build/llmserver playing the model
# from the shipped rules file fixtures/chat/demo-rules.json. It is a scripted stand-in, not
# a language model: it answers the README's example questions (hello; any romantic Italian
# places in Palo Alto?; what are their prices?) with fixed queries and replies, judges the
# reviews' yes/no questions by one word (yes when a candidate's text says "candlelit"), and
# says so for anything else. The server listens on 127.0.0.1 on a free port and stops when
# suql exits.
set -eu
cd "$(dirname "$0")/.."
build=${SUQL_BUILD:-build}
prog=${SUQL_PROG:-./suql}
dir=$(mktemp -d)
"$build/llmserver" --port-file "$dir/port" --rules fixtures/chat/demo-rules.json --yes-word candlelit 2>"$dir/err" &
spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$dir/port" ] || { cat "$dir/err" >&2; exit 2; }
url="http://127.0.0.1:$(cat "$dir/port")/v1"
echo "chat demo: build/llmserver at $url plays the model from fixtures/chat/demo-rules.json,"
echo "a scripted stand-in, not a language model: try the README's questions (hello; any"
echo "romantic Italian places in Palo Alto?; what are their prices?)."
SUQL_LLM_URL=$url SUQL_MODEL=scripted-stand-in SUQL_LLM_KEY= "$prog" --no-cache --chat "$@" "$build/demo.db"
