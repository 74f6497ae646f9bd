#!/bin/bash
# events_tmux.sh - the events screen on the demo cluster, driven as a person
# would in a private tmux server: the demo's changes over time (demo_cluster.c:
# gpu044's chrony reference at +20 s, rack 2's chronyd restarts at +25 s,
# grandmaster B's clockClass at +30 s) appear as events; `/` filters them,
# Enter expands a group to its nodes and opens a node's drill-down.
# About 35 s (the first restart comes 25 s after start).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/lab_tmux.sh"
bin=${SYNCTOP_BIN:?}
command -v tmux >/dev/null 2>&1 || skip_all "tmux not installed"

tmp=$(mktemp -d /tmp/synctop-evtmux.XXXXXX)
sock=$tmp/tmux.sock
tm() { tmux -S "$sock" "$@"; }
cleanup() {
	tm kill-server >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# event rows: "HH:MM:SS  node  kind  message"
rows() { screen | grep -E '^ [0-9]{2}:[0-9]{2}:[0-9]{2} '; }

# the waits of tui_tmux.sh, so the header settles in seconds
printf '{"defaults": {"for": {"chrony.offset": 5, "cluster.offset_spread": 5, "clock.offset": 5}}}\n' \
	>"$tmp/for.json"
tm -f /dev/null new-session -d -s t -x 130 -y 45 \
	"env LANG=C.UTF-8 TERM=xterm-256color $bin --demo -d 1 --config $tmp/for.json; echo EXIT=\$?; sleep 60"
tm set-option -t t status off >/dev/null

# tui_tmux.sh pins the demo's counts; here they must only hold still
wait_for "[0-9]+ nodes +9 crit +1 unknown +3 warn +[0-9]+ ok" 15
ok $? "the demo's header counts settle (9 crit, 1 unknown, 3 warn)"
counts=$(screen | head -n 1 | grep -Eo "[0-9]+ nodes .* [0-9]+ ok")
keys e
wait_for "events, newest first" 3
ok $? "e opens the events screen"
wait_for "gpu044 +chrony_reference +chrony reference 10\.20\.0\.10 -> 198\.51\.100\.7" 30
ok $? "gpu044's chrony reference switch is an event"
wait_for "^ [0-9:]{8} +\+ 1[0-9] nodes +daemon_restarted +1[0-9] nodes: chronyd restarted" 15
ok $? "rack 2's chronyd restarts are one group event"
wait_for "cluster +cluster_finding_raised +crit cluster\.reference on 1 node \(gpu044\)" 5
ok $? "cluster.reference is one event about the cluster"
wait_for "ptp-gm2 +ptp_clock_class +grandmaster clockClass 7 -> 52" 10
ok $? "grandmaster B's clockClass change is an event"
screen | head -n 1 | grep -Eq " [1-9][0-9]* events?/5 min"
ok $? "the header counts them"
[ -n "$counts" ] && screen | head -n 1 | grep -Fq "$counts"
ok $? "the header's node counts hold while the states change ($counts)"
screen >"$tmp/all.txt"

# --- the filter: `/`, the grid's syntax ------------------------------------------
keys /
tm send-keys -t t -l "restarted"
keys Enter
sleep 0.5
rows >"$tmp/filtered.txt"
n=$(wc -l <"$tmp/filtered.txt")
[ "$n" -ge 1 ] && ! grep -qv "daemon_restarted" "$tmp/filtered.txt"
ok $? "/restarted keeps only the restarts ($n rows)"
! grep -q "chrony_reference\|ptp_clock_class\|cluster_finding" "$tmp/filtered.txt"
ok $? "the other events are filtered out"
screen | tail -n 1 | grep -Eq "/restarted +$n events? "
ok $? "the footer counts the events the filter keeps ($n), not the grid's nodes: $(screen | tail -n 1)"

# --- Enter on the group: its nodes under it --------------------------------------
group_row=$(grep -nE "^ [0-9:]{8} +\+ [0-9]+ nodes" "$tmp/filtered.txt" | head -n 1 | cut -d: -f1)
size=$(grep -Eo "\+ [0-9]+ nodes" "$tmp/filtered.txt" | head -n 1 | grep -Eo "[0-9]+")
[ -n "$group_row" ] && [ -n "$size" ]
ok $? "the filtered rows hold the group (row $group_row, $size nodes)"
keys g
for _ in $(seq 2 "${group_row:-1}"); do keys j; done
keys Enter
wait_for "^ [0-9:]{8} +- [0-9]+ nodes" 3
ok $? "Enter on the group expands it"
members=$(rows | grep -cE "^ [0-9:]{8} +gpu0[0-9]{2} +daemon_restarted +chronyd restarted: PID [0-9]+ \(was [0-9]+\)")
[ "$members" -eq "$size" ]
ok $? "its $size nodes are listed under it (got $members)"
node=$(rows | grep -E "^ [0-9:]{8} +- [0-9]+ nodes" -A1 | tail -n 1 | awk '{ print $2 }')

# --- Enter on a member: its node's drill-down ------------------------------------
keys j
keys Enter
wait_for "^ *Events \(newest first" 2 || keys G
wait_for "chronyd restarted: PID" 5 && screen | grep -q "$node"
ok $? "Enter on a member opens $node's drill-down, whose events have the restart"
keys Escape
wait_for "events, newest first" 3
ok $? "Esc goes back to the events screen"
keys Escape
wait_for "^NODE " 3
ok $? "and again to the grid"
screen | tail -n 1 | grep -Eq "/restarted +[0-9]+ of 5[0-9] "
ok $? "the grid, built again with the filter typed on the events screen, counts its nodes: $(screen | tail -n 1)"
keys Escape
wait_for "filter cleared" 3
ok $? "Esc on the grid clears the filter"
keys q
wait_for "EXIT=0" 5
ok $? "q quits"
done_testing
