#!/bin/bash
# engine_faults.sh - one live synctop against the lab (tests/lab) while faults
# are injected with tests/lab/lab-fault (issue 6, Faults).  c runs while b and
# f hit other nodes, d while e and g do:
#   a  node1's ssh session killed while a poll runs (its chronyc hangs)
#   b  healthy's sshd stopped, then started again: reconnects with backoff
#   c  node3's eth0 down in its namespace, then up: unknown with a reason, back
#   d  2 s delay + 10% loss on node3 (netem, or lab-fault's stand-in): slow, none lost
#   e  healthy's host key changed: refused, not retried, said so
#   f  node2's chronyd restarted: chrony "daemon unreachable", then back
#   g  node1's ptp4l (the master) stopped: node2's port leaves SLAVE at the next polls
#   h  flood (100 MB per poll) runs throughout; the hung probe in live mode is
#      engine_lab.sh's case ("live mode: the hung probe hits its deadline").
# After each, the nodes not under an ssh-level fault must have been polled on
# time throughout (gaps between completed polls in the --log).  Evidence: the
# plain-text table synctop prints every interval (stdout is a file) and
# --log.  Conditions are polled for with generous deadlines; no tight timing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tests/integration/tap.sh
. "$here/tap.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for t in ip sshd chronyd ptp4l pmc ssh-keygen; do
	command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || skip_all "$t not installed"
done

INTERVAL=1       # -d
TIMEOUT=30       # per-poll deadline: polls over 2 s delay + 10% loss took up to 15 s
CONNECT_TIMEOUT=3
MAX_GAP=6        # s between two completed polls of a node not under fault
NODES="node1 node2 node3 healthy leap-insert flood"
ONTIME="node1 node2 node3 healthy leap-insert" # flood never completes a poll

lab=$(mktemp -d /tmp/synctop-faults.XXXXXX)
tmp=$lab/test
spid=
# Signal synctop; SIGKILL if it has not ended 10 s later.  Its status in rc.
stop_synctop() { # signal
	kill "-$1" "$spid" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$spid" 2>/dev/null && kill -KILL "$spid"
	wait "$spid"
	rc=$?
	spid=
}
cleanup() {
	[ -z "$spid" ] || stop_synctop TERM 2>/dev/null
	"$top/tests/lab/lab-down" "$lab" >/dev/null 2>&1
	rm -rf "$lab"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp"
unset SSH_AUTH_SOCK # the operator's agent must not change what is tested
T0=$(date +%s)

if ! "$top/tests/lab/lab-up" "$lab" >"$tmp/lab-up.log" 2>&1; then
	ok 1 "lab-up"
	diag "$(tail -n 20 "$tmp/lab-up.log")"
	done_testing
	exit 1
fi
# shellcheck source=/dev/null
. "$lab/lab.env"
: "${LAB_NODE_node2_PTP4L_UDS:?}"
fault() { "$top/tests/lab/lab-fault" "$lab" "$@"; }

log=$tmp/synctop.log
out=$tmp/table.txt
# shellcheck disable=SC2086 # NODES is a list of names
"$bin" -F "$LAB_SSH_CONFIG" -d "$INTERVAL" --timeout "$TIMEOUT" --connect-timeout "$CONNECT_TIMEOUT" \
	--log "$log" $NODES >"$out" 2>"$tmp/synctop.err" &
spid=$!

# ------------------------------------------------------------------ helpers
now() { date -u +%Y-%m-%dT%H:%M:%S.%6NZ; } # compares as text with --log's stamps
# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}
# The node's row in the last table printed.
row() { grep "^$1 " "$out" | tail -n 1; }
row_matches() { row "$1" | grep -Eq -- "$2"; } # node, extended regex
# Log lines of a node since a time (text compare of the stamps).
log_since() { # node since
	awk -v h="$1:" -v a="$2" '$1 >= a && $2 == h' "$log" 2>/dev/null
}
polls_since() { log_since "$1" "$2" | awk '$3 == "poll" && $4 == "complete"'; }
# Connection events (not polls, clock checks or skipped ticks).
events_since() {
	log_since "$1" "$2" | awk '!(($3 == "poll" && ($4 == "complete" || $4 == "skipped")) ||
		($3 == "clock" && $4 == "check"))'
}
count_polls_since() { polls_since "$1" "$2" | wc -l; }
has_polls_since() { [ "$(count_polls_since "$1" "$2")" -ge "${3:-1}" ]; }
has_event_since() { events_since "$1" "$2" | grep -Eq -- "$3"; } # node since regex
# The longest wait between completed polls of NODE in [FROM, TO], counting
# from FROM and up to TO, in seconds.
max_gap() { # node from to
	awk -v h="$1:" -v a="$2" -v b="$3" '
		function secs(ts,   y, m, d) {
			y = substr(ts, 1, 4) + 0; m = substr(ts, 6, 2) + 0; d = substr(ts, 9, 2) + 0
			if (m <= 2) { y--; m += 12 }
			d += 365 * y + int(y / 4) - int(y / 100) + int(y / 400) + int((153 * (m - 3) + 2) / 5)
			return d * 86400 + substr(ts, 12, 2) * 3600 + substr(ts, 15, 2) * 60 + substr(ts, 18, 9)
		}
		BEGIN { prev = secs(a) }
		$1 >= a && $1 <= b && $2 == h && $3 == "poll" && $4 == "complete" {
			t = secs($1)
			if (t - prev > worst) { worst = t - prev }
			prev = t
		}
		END {
			if (secs(b) - prev > worst) { worst = secs(b) - prev }
			printf "%.1f\n", worst
		}' "$log"
}
# ok if every node of ONTIME but the victims was polled at least every
# MAX_GAP s between FROM and TO.
others_on_time() { # what from to victim...
	local what=$1 from=$2 to=$3 n g worst=0 bad=
	shift 3
	for n in $ONTIME; do
		case " $* " in *" $n "*) continue ;; esac
		g=$(max_gap "$n" "$from" "$to")
		awk -v g="$g" -v w="$worst" 'BEGIN { exit !(g > w) }' && worst=$g
		awk -v g="$g" -v m="$MAX_GAP" 'BEGIN { exit !(g > m) }' && bad="$bad $n:${g}s"
	done
	[ -z "$bad" ]
	ok $? "$what: the other nodes were polled on time (longest gap ${worst} s, limit $MAX_GAP s)"
	[ -z "$bad" ] || diag "late:$bad"
}
# When a check fails: what synctop said about the node.
show() { # node since
	diag "row: $(row "$1")"
	events_since "$1" "$2" | tail -n 8 | sed 's/^/#   /'
}
# Judged on fresh data: a status other than unknown and no connection error.
data_row() {
	row_matches "$1" "^$1 +(ok|warn|crit) " &&
		! row_matches "$1" '(lost|refused|timed out|no answer|host key|connect:)'
}
phase() { diag "--- $1 (+$(($(date +%s) - T0)) s)"; }
skip() { # description reason
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}
reconnect_delays() { # node since: the "reconnecting in X s" delays, in order
	events_since "$1" "$2" | sed -n 's/.*; reconnecting in \([0-9.]*\) s$/\1/p'
}

# --------------------------------------------------------- all nodes polled
start=$(now)
up() {
	local n
	for n in $ONTIME; do
		has_polls_since "$n" "$start" 2 || return 1
	done
}
phase "lab up, synctop started"
wait_for 120 up
ok $? "live mode over $NODES: every node but flood polled twice"
up || diag "$(tail -n 20 "$log")"
sleep "$INTERVAL" # a table with every node in it

# ------------------------------------------- a: node killed during a poll
# node1's chronyc hangs, so a poll is in flight; then every process of its
# ssh session dies (the node's side of the connection goes away).
phase "a: node1 killed mid-poll"
t_a=$(now)
fault stall node1 on
wait_for 30 test -e "$lab/node1/chronyc.stalled"
stalled=$?
t_stalled=$(now)
sleep 0.5
fault kill-sessions node1 >"$tmp/a.out" 2>&1
killed=$?
fault stall node1 off
# polls are serial: none completes while the one in flight hangs in chronyc
[ $stalled -eq 0 ] && [ $killed -eq 0 ] && [ "$(count_polls_since node1 "$t_stalled")" -eq 0 ]
ok $? "a: node1's session killed while its poll hung in chronyc ($(cat "$tmp/a.out"))"
wait_for 20 has_event_since node1 "$t_stalled" '^[^ ]* node1: connection lost: .*; reconnecting in [0-9.]+ s$'
ok $? "a: the log says 'connection lost', with the reason and the reconnect delay"
has_event_since node1 "$t_stalled" 'connection lost' || show node1 "$t_a"
wait_for 30 has_polls_since node1 "$t_stalled" 2
ok $? "a: node1 reconnected by itself and is polled again"
recovered_a() { data_row node1 && row_matches node1 ' Normal +MASTER '; }
wait_for 10 recovered_a
ok $? "a: node1 shown with data again, no error (Normal, MASTER)"
recovered_a || show node1 "$t_a"
others_on_time a "$t_a" "$(now)" node1

# ------------------------------------------------ c: link down (node3); while
# its session times out, b (healthy's sshd) and f (node2's chronyd).
phase "c: node3 link down; b and f meanwhile"
t_c=$(now)
fault link node3 down

# b: sshd stopped; refused reconnects, each later than the one before
t_b=$(now)
fault stop healthy sshd
three_refused() { [ "$(events_since healthy "$t_b" | grep -c 'connect: .*refused; reconnecting in')" -ge 3 ]; }
wait_for 40 three_refused
ok $? "b: healthy's sshd down: reconnects are refused and retried"
three_refused || show healthy "$t_b"
delays=$(reconnect_delays healthy "$t_b" | tr '\n' ' ')
# nominal 0.5 s doubling per failure, +-25%: each range lies above the last
awk -v d="$delays" 'BEGIN {
	n = split(d, a, " ")
	if (n < 3) { exit 1 }
	for (i = 2; i <= n; i++) { if (a[i] + 0 <= a[i - 1] + 0) { exit 1 } }
	exit !(a[1] + 0 <= 1)
}'
ok $? "b: with backoff: reconnect delays ${delays}s"
refused_b() { row_matches healthy '^healthy +unknown .*connect: .*Connection refused'; }
wait_for 10 refused_b
ok $? "b: healthy shown unknown, reason 'Connection refused'"
refused_b || show healthy "$t_b"
t_b_start=$(now)
fault start healthy sshd >"$tmp/b.out" 2>&1
ok $? "b: healthy's sshd started again (same command line and config)"
recovered_b() {
	has_event_since healthy "$t_b_start" 'remote shell started' && has_polls_since healthy "$t_b_start" &&
		data_row healthy && row_matches healthy ' Normal +SLAVE '
}
wait_for 90 recovered_b
ok $? "b: healthy reconnected by itself, polled and shown with data again (Normal, SLAVE)"
recovered_b || show healthy "$t_b"
logins=$(grep -c 'Accepted publickey' "$lab/healthy/log/sshd.log")
[ "$logins" -eq 2 ]
ok $? "b: one new login after the restart ($logins in all)"
others_on_time b "$t_b" "$(now)" healthy node3

# f: node2's chronyd stopped, then started as lab-up did
t_f=$(now)
fault stop node2 chronyd
down_f() { row_matches node2 '^node2 +crit .*daemon unreachable.*collector\.daemon_unreachable$'; }
wait_for 20 down_f
ok $? "f: node2's chronyd stopped: crit, chrony 'daemon unreachable', collector.daemon_unreachable"
down_f || show node2 "$t_f"
fault start node2 chronyd >"$tmp/f.out" 2>&1
ok $? "f: node2's chronyd started again"
t_f_start=$(now)
back_f() { has_polls_since node2 "$t_f_start" && row_matches node2 '^node2 .* Normal +[A-Z]'; }
wait_for 60 back_f
ok $? "f: node2's chrony part recovers (leap Normal)"
back_f || show node2 "$t_f"
others_on_time f "$t_f" "$(now)" healthy node3

# c, continued: unknown with a reason, and the reconnects fail while it is down
down_c() {
	row_matches node3 "^node3 +unknown .*(no answer to the probe within $TIMEOUT\\.0 s|timed out after $CONNECT_TIMEOUT s|No route to host)" &&
		has_event_since node3 "$t_c" '^[^ ]* node3: connect: .*reconnecting in'
}
wait_for $((TIMEOUT + 40)) down_c
ok $? "c: node3's link down: unknown with the reason; reconnects fail while down"
down_c || show node3 "$t_c"
t_c_up=$(now)
fault link node3 up
back_c() {
	has_event_since node3 "$t_c_up" 'remote shell started' && has_polls_since node3 "$t_c_up" &&
		data_row node3 && row_matches node3 ' Normal +[A-Z]'
}
wait_for 90 back_c
ok $? "c: link up: node3 reconnects by itself and is shown with data again (leap Normal)"
back_c || show node3 "$t_c"
others_on_time c "$t_c" "$(now)" node3 healthy

# ------------------------- d: 2 s delay, 10% loss on node3; while it runs,
# e (healthy's host key) and g (the PTP master's ptp4l).
phase "d: node3 delay and loss; e and g meanwhile"
t_d=$(now)
d_on=1
if ! fault netem node3 delay 2000ms loss 10% >"$tmp/d.out" 2>&1; then
	if grep -q 'no sch_netem in this kernel and no ' "$tmp/d.out"; then
		d_on=0 # nothing to add delay with here
	else
		ok 1 "d: lab-fault netem"
		diag "$(cat "$tmp/d.out")"
		d_on=0
	fi
fi
[ $d_on = 1 ] && diag "d: $(head -n 1 "$tmp/d.out")"

# e: host key changed
t_e=$(now)
fp=$(fault hostkey healthy)
conns_e=$(grep -c 'Connection from' "$lab/healthy/log/sshd.log")
fault restart healthy sshd >"$tmp/e.out" 2>&1
refused() { has_event_since healthy "$t_e" 'not retried'; }
wait_for 60 refused
ok $? "e: host key changed: healthy refused, 'not retried'"
refused || show healthy "$t_e"
t_e_refused=$(now)
s_e_refused=$(date +%s)
changed() {
	row_matches healthy '^healthy +unknown .*host key: .*CHANGED: offered ED25519 key' &&
		row healthy | grep -qF "$fp"
}
wait_for 10 changed
ok $? "e: healthy shown unknown, the reason names the CHANGED key ($fp)"
changed || show healthy "$t_e"

# g: node1's ptp4l stopped; node2 (slaveOnly) loses its master
port2() {
	pmc -u -b 0 -s "$LAB_NODE_node2_PTP4L_UDS" 'GET PORT_DATA_SET' 2>/dev/null |
		awk '$1 == "portState" { print $2; exit }'
}
slave2() { [ "$(port2)" = SLAVE ] && row_matches node2 '^node2 .* SLAVE '; }
left=$((T0 + 150 - $(date +%s))) # ptp4l locks ~25 s after lab-up
wait_for $((left > 10 ? left : 10)) slave2
ok $? "g: node2's port is SLAVE (ptp4l and synctop agree)"
slave2 || diag "pmc: $(port2)" "row: $(row node2)"
t_g=$(now)
fault stop node1 ptp4l
left_slave() { p=$(port2) && [ -n "$p" ] && [ "$p" != SLAVE ]; }
p=
wait_for 30 left_slave
changed_g=$?
t_g_changed=$(now)
state=${p:-SLAVE}
diag "node2's ptp4l went from SLAVE to $state (pmc)"
# The first poll completed after the change may have been sent before it;
# the second was sent after it.  The first table printed after that one
# (its stamp has whole seconds) must show the new state.
second_poll() { [ "$(count_polls_since node2 "$t_g_changed")" -ge 2 ]; }
wait_for 30 second_poll
t_p2=$(polls_since node2 "$t_g_changed" | awk 'NR == 2 { print substr($1, 1, 19); exit }')
table_after() { # node, whole-second stamp: the node's row in the first table printed after it
	awk -v n="$1" -v t="$2" '/^NODE / { r = "" } $1 == n { r = $0 }
		/^[0-9][0-9][0-9][0-9]-/ && substr($1, 1, 19) > t { print r; exit }' "$out"
}
printed() { [ -n "$(table_after node2 "$t_p2")" ]; }
wait_for 20 printed
[ $changed_g -eq 0 ] && table_after node2 "$t_p2" | grep -Eq "^node2 .* $state "
ok $? "g: node2's new port state $state is shown after the first poll sent after the change"
table_after node2 "$t_p2" | grep -Eq " $state " || diag "row: $(table_after node2 "$t_p2")"
# ptp4l keeps the offset it had as a slave; synctop must not show it as current
stale=$(pmc -u -b 0 -s "$LAB_NODE_node2_PTP4L_UDS" 'GET CURRENT_DATA_SET' 2>/dev/null |
	awk '$1 == "offsetFromMaster" { print $2; exit }')
diag "node2's ptp4l still reports offsetFromMaster ${stale:-?} in $state"
[ "$state" = SLAVE ] || table_after node2 "$t_p2" | grep -Eq "^node2 .* $state +- "
ok $? "g: node2's stale PTP offset is not shown once its port left SLAVE (PTP-OFF '-')"
master_gone() { row_matches node1 '^node1 +crit .*collector\.daemon_unreachable$'; }
wait_for 20 master_gone
ok $? "g: node1 shown crit: ptp4l does not answer (collector.daemon_unreachable)"
master_gone || show node1 "$t_g"
others_on_time g "$t_g" "$(now)" node3 healthy

# d, continued: three slow polls, none lost
if [ $d_on = 1 ]; then
	slow_polls() {
		polls_since node3 "$t_d" | awk '{ sub(/^rtt_s=/, "", $5); if ($5 + 0 >= 2) n++ } END { exit !(n >= 3) }'
	}
	wait_for $((6 * TIMEOUT)) slow_polls
	slow=$?
	t_d_end=$(now)
	fault netem node3 off
	rtts=$(polls_since node3 "$t_d" | awk -v e="$t_d_end" '$1 <= e { sub(/^rtt_s=/, "", $5); printf "%.1f ", $5 }')
	ok $slow "d: polls of node3 slow down (rtt ${rtts}s)"
	lost=$(events_since node3 "$t_d" | awk -v e="$t_d_end" '$1 <= e')
	[ -z "$lost" ]
	ok $? "d: none lost: no deadline, no reconnect for node3 under delay and loss"
	[ -z "$lost" ] || show node3 "$t_d"
	# a table's rows come before its time stamp line
	! awk -v a="$t_d" -v e="$t_d_end" '/^NODE / { bad = 0 } /^node3 +unknown/ { bad = 1 }
		/^[0-9][0-9][0-9][0-9]-/ && $1 >= a && $1 <= e && bad { hit = 1 } END { exit !hit }' "$out"
	ok $? "d: node3 never shown unknown meanwhile"
	t_d_off=$(now)
	again() { has_polls_since node3 "$t_d_off" 2 && data_row node3; }
	wait_for 60 again
	ok $? "d: delay removed: node3 polled as before (rtt $(polls_since node3 "$t_d_off" |
		awk '{ sub(/^rtt_s=/, "", $5); printf "%.1f ", $5 }')s)"
	others_on_time d "$t_d" "$(now)" node3 healthy
else
	for what in "slow polls" "none lost" "never unknown" "polled as before" "others on time"; do
		skip "d: $what" "$(tail -n 1 "$tmp/d.out")"
	done
fi

# e, continued: over all of d (8 s at least), healthy was never tried again;
# a retry storm would show at once: the backoff starts at 0.5 s
quiet=$((s_e_refused + 8 - $(date +%s)))
[ "$quiet" -le 0 ] || sleep "$quiet"
n_retries=$(events_since healthy "$t_e_refused" | grep -c 'reconnecting')
n_conns=$(($(grep -c 'Connection from' "$lab/healthy/log/sshd.log") - conns_e))
[ "$n_retries" -eq 0 ] && [ "$n_conns" -eq 1 ]
ok $? "e: session not reopened: $n_retries reconnects, $n_conns connection(s) since the restart, over $(max_gap healthy "$t_e_refused" "$(now)") s"
changed
ok $? "e: healthy still shown with the CHANGED host key"

# ---------------------------------------- h: flood all along; the whole run
phase "end"
! polls_since flood "$start" | grep -q .
ok $? "h: flood (100 MB per poll) never completes a poll"
row_matches flood '^flood +unknown ' && events_since flood "$start" | grep -q 'more than 256 KiB'
ok $? "h: flood shown unknown; the log says it sent more than 256 KiB"
row_matches flood unknown || show flood "$start"
others_on_time "whole run (leap-insert, never faulted)" "$start" "$(now)" node1 node2 node3 healthy

stop_synctop INT
[ "$rc" -eq 130 ]
ok $? "synctop ends on SIGINT with status 130 (got $rc)"
! grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error|ERROR: ' "$tmp/synctop.err"
ok $? "no sanitizer report"
[ -s "$tmp/synctop.err" ] && head -n 20 "$tmp/synctop.err" | sed 's/^/# stderr: /'
diag "faults run in $(($(date +%s) - T0)) s"

done_testing
