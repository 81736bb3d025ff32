# tests/tmux.sh: driving suql at a real (pseudo-)terminal through tmux, for the suites that
# do (41-terminal, 61-chat-terminal, 44-readme). Sourced after tests/lib.sh; the caller sets
# $sock (the tmux server's socket) and $limit (seconds to wait for any one expected text).
# Every step waits for what it expects (polling) instead of sleeping a fixed time, so the
# suites work on a slow or sanitized build and with no terminal attached (CI).

t() { tmux -S "$sock" "$@"; }

# poll COMMAND...: run it every 0.1 s until it succeeds, at most $limit seconds.
poll() {
	i=0
	while [ "$i" -lt $((limit * 10)) ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# tmux_screen SESSION: the screen and its history, lines the terminal wrapped joined, without
# the blank lines under the cursor
tmux_screen() {
	t capture-pane -p -J -t "$1" -S - 2>/dev/null |
		awk '{ l[NR] = $0 } NF { last = NR } END { for (i = 1; i <= last; i++) print l[i] }'
}

# tmux_type SESSION TEXT: send TEXT literally, then Enter (a trailing ';' goes escaped, since
# tmux reads it as a command separator)
tmux_type() {
	case $2 in
	*\;) t send-keys -t "$1" -l -- "${2%?}"; t send-keys -t "$1" '\;' ;;
	*) t send-keys -t "$1" -l -- "$2" ;;
	esac
	t send-keys -t "$1" Enter
}
