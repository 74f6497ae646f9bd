#!/bin/bash
# events_lab.sh - issue 19's events from real state changes: a node with a
# real sshd and a real `chronyd -x`, polled live (`synctop -d 1 --events
# FILE`, plain text: no terminal), while the test restarts chronyd, stops
# it, starts it again, steps the node's clock (the one shim: `date`, below)
# and cuts the node's link.  The JSON lines must say so: nothing at start-up
# (the baseline), daemon_restarted for chronyd, then a finding raised and the
# status changed, the finding cleared, a clock_step each way, the connection
# lost (no finding cleared by it) and restored; every line valid JSON with
# the documented keys.  Then the dashboard in a private tmux server: the
# header's count, the events screen, its filter, Enter to the node's
# drill-down and its events, Esc back.
#
# The node is a network namespace of its own plus a PID and mount namespace
# (unshare --pid --mount-proc), so `ps` on the node sees its own chronyd, not
# the host's or another test's.  chronyd runs -x under `setpriv
# --bounding-set -sys_time` (`local stratum 8`, no sources): it never steers
# a clock.  Addresses: 10.68.N.0/24 (helper "ev"), names carry "ev" and the
# PID.  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip nsenter unshare setpriv /usr/sbin/sshd /usr/sbin/chronyd /usr/bin/chronyc ssh-keygen jq pgrep; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin ev
ns=${lab_tag}n
chmod 0750 "$tmp" # chronyd refuses a command socket in a directory open to others
synctop_pid=
init_pid=
unshare_pid=
lab_on_cleanup() {
	[ -n "$synctop_pid" ] && kill "$synctop_pid" 2>/dev/null
	[ -S "$tmp/tmux.sock" ] && tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
	# chronyd and sshd live in the node's PID namespace: ending its init
	# (our sleep) ends them all
	[ -n "$init_pid" ] && kill -9 "$init_pid" 2>/dev/null
	[ -n "$unshare_pid" ] && wait "$unshare_pid" 2>/dev/null
}

lab_subnet 10.68.0-9
lab_netns n
lab_uplink "$ns" ssh0 9 10 30

# the node's PID namespace: its init is a sleep; everything else enters it
ip netns exec "$ns" unshare --pid --fork --mount-proc sleep 100000 2>/dev/null &
unshare_pid=$!
for i in $(seq 50); do
	init_pid=$(pgrep -P "$unshare_pid" -x sleep)
	[ -n "$init_pid" ] && break
	sleep 0.1
done
[ -n "$init_pid" ] || skip_all "unshare --pid did not start"
on_node() { nsenter -t "$init_pid" -p -m -n "$@"; }

cat >"$tmp/chrony.conf" <<EOF
pidfile $tmp/chronyd.pid
bindcmdaddress $tmp/chronyd.sock
cmdport 0
port 0
local stratum 8
EOF
start_chronyd() {
	on_node setpriv --bounding-set -sys_time \
		/usr/sbin/chronyd -n -x -u root -f "$tmp/chrony.conf" >>"$tmp/chronyd.out" 2>&1 &
}
# chronyd's host PID: the one running our own config file
chronyd_pid() { pgrep -f -x "/usr/sbin/chronyd -n -x -u root -f $tmp/chrony.conf"; }
stop_chronyd() {
	local p
	p=$(chronyd_pid)
	[ -n "$p" ] && kill "$p"
	for i in $(seq 50); do
		[ -z "$(chronyd_pid)" ] && return 0
		sleep 0.1
	done
	return 1
}
chronyd_answers() {
	for i in $(seq 100); do
		/usr/bin/chronyc -h "$tmp/chronyd.sock" -c tracking 2>/dev/null | grep -q '^7F7F0101,' && return 0
		sleep 0.1
	done
	return 1
}

mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec /usr/bin/chronyc -h %s "$@"\n' "$tmp/chronyd.sock" >"$tmp/bin/chronyc"
# The one shim (tests/lab/shims/README.md: only what a real daemon cannot
# reach here): the node's clock stepping.  Its chronyd may not steer a clock
# and this test must not step the host's, so while $tmp/stepped exists the
# node's `date +%s.%N` (the clock check's exchange) reads 0.5 s ahead.
cat >"$tmp/bin/date" <<EOF
#!/bin/sh
t=\$(/bin/date "\$@") || exit
if [ -e "$tmp/stepped" ] && [ "\$1" = "+%s.%N" ]; then
	awk -v t="\$t" 'BEGIN { printf "%.9f\\n", t + 0.5 }'
else
	printf '%s\\n' "\$t"
fi
EOF
chmod 0755 "$tmp/bin/chronyc" "$tmp/bin/date"
lab_sshd_config "$tmp" "$subnet.10" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin" || exit 1
on_node /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || skip_all "sshd did not start"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
# the node runs chronyd only: no PTP expected
printf '{"defaults": {"expect": {"ptp": "no"}}}\n' >"$tmp/synctop.json"

start_chronyd
chronyd_answers
ok $? "the node's chronyd answers, serving its local clock (7F7F0101)"
on_node ps -e -o comm= >"$tmp/ps" 2>&1
[ "$(grep -c '^chronyd$' "$tmp/ps")" = 1 ]
ok $? "ps on the node sees its own chronyd only: $(tr '\n' ' ' <"$tmp/ps")"

events=$tmp/events.jsonl
# live, no terminal: the plain-text table on stdout; a clock check every
# second (this machine against itself, through the node's `date`)
"$bin" -d 1 --timeout 2 --clock-check 1 --events "$events" -F "$tmp/ssh_config" \
	--known-hosts "$tmp/known_hosts" -i "$tmp/id" --config "$tmp/synctop.json" \
	"root@$subnet.10" >"$tmp/live.out" 2>"$tmp/live.err" &
synctop_pid=$!

# mark: the lines so far; wait_for JQ-FILTER SECONDS: a line after the
# mark matches; since: the lines after the mark
mark=0
set_mark() { mark=$(wc -l <"$events"); }
since() { tail -n +$((mark + 1)) "$events"; }
wait_for() {
	local i
	for i in $(seq $(($2 * 10))); do
		since | jq -e -s "any(.[]; $1)" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
# the first answer (a loaded machine may take a while to connect)
answered=1
for i in $(seq 600); do
	if grep -Eq "^$subnet\.10 +(ok|warn|crit) " "$tmp/live.out" 2>/dev/null; then
		answered=0
		break
	fi
	sleep 0.1
done
ok $answered "synctop polls the node: $(head -c 300 "$tmp/live.err")"
sleep 3 # a few polls and refreshes: the node settles
[ -e "$events" ] && [ ! -s "$events" ]
ok $? "--events exists and start-up is the baseline, not events: $(head -c 300 "$events" 2>/dev/null)"

# 1. restart chronyd: the daemons collector finds it younger (ps etimes).
# A poll that lands between the stop and the start sees no chronyd at all
# (a stop and a start, not a restart): then restart it again, up to 4 times.
restart_seen() { # CHECK-COMMAND...: restart chronyd until the check passes
	local attempt
	for attempt in 1 2 3 4; do
		stop_chronyd && start_chronyd && chronyd_answers || return 1
		"$@" && return 0
		diag "restart $attempt: a poll saw chronyd stopped; again"
	done
	return 1
}
old=$(chronyd_pid)
set_mark
restart_seen wait_for '.kind == "daemon_restarted" and .subject == "chronyd"' 8
ok $? "a daemon_restarted event for chronyd (PID $old -> $(chronyd_pid))"

# 2. stop it: a finding raised and the status changed
set_mark
stop_chronyd
ok $? "chronyd stopped"
# nothing else runs there: time.no_service (crit)
wait_for '.kind == "finding_raised" and .subject == "time.no_service" and .to == "crit"' 15
ok $? "time.no_service raised: $(since | jq -c -s '[.[] | select(.kind == "finding_raised") | .subject]')"
wait_for '.kind == "status" and .to == "crit" and .from != .to' 10
ok $? "the node's status went to crit: $(since | jq -c -s '[.[] | select(.kind == "status") | "\(.from)->\(.to)"]')"

# 3. start it again: the finding cleared, the status back from crit
set_mark
start_chronyd && chronyd_answers
wait_for '.kind == "finding_cleared" and .subject == "time.no_service"' 15
ok $? "time.no_service cleared once chronyd is back"
wait_for '.kind == "status" and .from == "crit"' 10
ok $? "the status left crit: $(since | jq -c -s '[.[] | select(.kind == "status") | "\(.from)->\(.to)"]')"

# 4. the node's clock steps 0.5 s ahead and back (the date shim)
set_mark
touch "$tmp/stepped"
wait_for '.kind == "clock_step" and .subject == "clock check" and ((.to | tonumber) - (.from | tonumber)) > 0.4' 15
ok $? "a clock_step when the clock check jumped +0.5 s: $(since | jq -c -s '[.[] | select(.kind == "clock_step") | .message]')"
set_mark
rm -f "$tmp/stepped"
wait_for '.kind == "clock_step" and .subject == "clock check" and ((.to | tonumber) - (.from | tonumber)) < -0.4' 15
ok $? "and one when it came back"

# 5. cut the node's link: connection lost, then restored
set_mark
ip -n "$ns" link set ssh0 down
wait_for '.kind == "connection_lost"' 20
ok $? "connection_lost when the node's link went down"
sleep 1.5 # the refresh after it
! since | jq -e -s 'any(.[]; .kind == "finding_cleared")' >/dev/null
ok $? "losing the node clears none of its findings (it is not judged): $(since | jq -c -s '[.[].kind]')"
set_mark
ip -n "$ns" link set ssh0 up
wait_for '.kind == "connection_restored"' 40
ok $? "connection_restored when it came back"

kill -INT "$synctop_pid"
wait "$synctop_pid"
rc=$?
synctop_pid=
[ $rc -eq 130 ] || [ $rc -eq 0 ]
ok $? "synctop stopped on SIGINT (exit $rc): $(head -c 300 "$tmp/live.err")"

# every line: one JSON object with the schema's keys, about our node
n_lines=$(wc -l <"$events")
jq -e -s --arg h "$subnet.10" 'length > 0 and all(.[];
	(.id | type) == "number" and (.time | test("^[0-9-]+T[0-9:.]+Z$")) and (.unix | type) == "number"
	and .scope == "node" and .node == $h and (.kind | type) == "string" and (.message | type) == "string"
	and has("subject") and has("from") and has("to") and has("group"))' "$events" >/dev/null
ok $? "all $n_lines lines are JSON events about $subnet.10 with the documented keys"
jq -e -s '[.[].id] == ([.[].id] | sort) and ([.[].id] | unique | length) == length' "$events" >/dev/null
ok $? "ids are unique and increasing"
diag "$(jq -r '"\(.time) \(.kind) \(.subject // "") \(.from // "") -> \(.to // ""): \(.message)"' "$events")"

# --- the events screen on the same node: a private tmux server -----------------
if ! command -v tmux >/dev/null 2>&1; then
	diag "no tmux: the events screen part is skipped"
	done_testing
	exit $?
fi
tm() { tmux -S "$tmp/tmux.sock" "$@"; }
screen() { tm capture-pane -p -t t 2>/dev/null; }
wait_screen() { # pattern seconds
	local i
	for i in $(seq $(($2 * 10))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
keys() { tm send-keys -t t "$@"; sleep 0.4; }
tm -f /dev/null new-session -d -s t -x 150 -y 30 \
	"LANG=C.UTF-8 TERM=xterm-256color $bin -d 1 --clock-check 0 -F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json root@$subnet.10; sleep 30"
wait_screen "^$subnet\.10 +(WARN|PEND)" 60
ok $? "the dashboard shows the node"
sleep 3 # settled
keys e
wait_screen "events, newest first" 5
ok $? "e opens the events screen"
restart_seen wait_screen "^ [0-9:]{8}  $subnet\.10 +daemon_restarted +chronyd restarted: PID" 8
ok $? "the restart is listed with its time, node and kind: $(screen | grep daemon_restarted | head -n 1)"
wait_screen "^ synctop .* [1-9][0-9]* events?/5 min" 5
ok $? "the header counts it among the last 5 minutes' events: $(screen | head -n 1)"
keys / '!' r e s t a r t e d Enter
sleep 0.5
screen | grep -q "events, newest first" && ! screen | grep -q "daemon_restarted"
ok $? "the filter, negated, hides the restart"
keys / C-u c h r o n y d Enter
wait_screen "^ [0-9:]{8}  $subnet\.10 +daemon_restarted" 3
ok $? "the filter on its message keeps it"
keys Enter
wait_screen "^ node $subnet\.10" 5
ok $? "Enter opens the node's drill-down"
screen | grep -Eq "Events \(newest first" && screen | grep -Eq "daemon_restarted +chronyd restarted"
ok $? "the drill-down lists the node's own events: $(screen | grep -A2 'Events (newest' | tr -s ' ' | head -c 300)"
keys Escape
wait_screen "events, newest first" 5
ok $? "Esc goes back to the events screen it came from"
keys q
done_testing
