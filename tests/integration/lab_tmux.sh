# lab_tmux.sh - driving the dashboard in a private tmux server (sourced):
# the pane's text, waiting for it, typing.  Uses the test's own tm (tmux
# with its private socket) and session "t".
#
# tm ARGS...            (the test's) tmux -S SOCKET ARGS
# screen                the pane's text now
# wait_for ERE [SECS]   until the pane shows ERE (grep -E), every 0.1 s, up
#                       to SECS (10); false if it never does
# keys KEYS...          send-keys, then 0.4 s for the dashboard to draw
screen() { tm capture-pane -p -t t 2>/dev/null; }
wait_for() {
	local i
	for i in $(seq 1 $((${2:-10} * 10))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tm send-keys -t t "$@"; sleep 0.4; }
