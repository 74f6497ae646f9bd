#!/bin/sh
# state_dir.sh - --state-dir survives a crash: synctop on the demo cluster
# writes its history and events, is killed with SIGKILL mid-run, and the
# next start brings them back (its --log says how many; sqlite3 counts the
# rows it must match), the database intact (PRAGMA integrity_check).  A
# second synctop on the same directory says which PID holds it and runs
# without history.  About 20 s.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 not installed"
tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
state=$tmp/state
db=$state/synctop.db
# demo offsets are a few µs: a 4 µs warn limit makes findings come and go,
# so there are events to keep (no clock check: the nodes settle at once)
printf '{"defaults": {"thresholds": {"chrony_offset_warn_s": 0.000004}}}\n' >"$tmp/conf.json"
run() { # log file; the rest: extra arguments
	log=$1
	shift
	"$bin" --demo -d 1 --clock-check 0 --config "$tmp/conf.json" --state-dir "$state" --log "$log" "$@" \
		>/dev/null 2>"$log.err" &
	pid=$!
}
q() { sqlite3 -batch "$db" "$1"; }

run "$tmp/run1.log"
sleep 9
killed_at=$(date +%s.%N)
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""

[ "$(q 'PRAGMA integrity_check')" = ok ]
ok $? "after SIGKILL: integrity_check ok"
samples=$(q 'SELECT count(*) FROM recent WHERE offset_s IS NOT NULL OR ptp_offset_ns IS NOT NULL OR frequency_ppm IS NOT NULL OR path_delay_ns IS NOT NULL OR phc_sys_offset_ns IS NOT NULL OR skew_ppm IS NOT NULL')
events=$(q 'SELECT count(*) FROM events')
nodes=$(q 'SELECT count(DISTINCT node) FROM recent')
[ "$samples" -gt 200 ] && [ "$nodes" -ge 40 ]
ok $? "samples written while running: $samples of $nodes nodes"
[ "$events" -gt 0 ]
ok $? "events written while running: $events"
# committed at least once a second: what was lost is the last poll or two
newest=$(q 'SELECT max(t) FROM recent')
awk -v n="$newest" -v k="$killed_at" 'BEGIN { exit !(k - n < 3.0) }'
ok $? "the newest sample was $(awk -v n="$newest" -v k="$killed_at" 'BEGIN { printf "%.2f", k - n }') s old at SIGKILL (< 3 s: 1 s polls + 1 s feed + 0.5 s commit)"
[ "$(q 'PRAGMA user_version')" -ge 3 ] && [ "$(q 'PRAGMA auto_vacuum')" = 2 ] && [ "$(q 'PRAGMA journal_mode')" = wal ]
ok $? "schema versioned, auto_vacuum incremental, WAL"

run "$tmp/run2.log"
sleep 3
line=$(grep -o -- '--state-dir [^:]*: [0-9]* samples and [0-9]* events restored' "$tmp/run2.log")
r_samples=$(echo "$line" | sed 's/.*: \([0-9]*\) samples.*/\1/')
r_events=$(echo "$line" | sed 's/.* and \([0-9]*\) events.*/\1/')
[ "${r_samples:-0}" -eq "$samples" ]
ok $? "restart: the rings got back every sample ($r_samples of $samples)"
[ "${r_events:-0}" -eq "$events" ]
ok $? "restart: the event log got back every event ($r_events of $events)"

# a second synctop on the same directory: told which PID, runs without
"$bin" --demo -d 1 --state-dir "$state" >/dev/null 2>"$tmp/second.err" &
second=$!
sleep 2
kill -TERM "$second" 2>/dev/null
wait "$second"
grep -q "is in use by another synctop (PID $pid); running without history" "$tmp/second.err"
ok $? "a second synctop on the directory names the first's PID ($(head -c 200 "$tmp/second.err"))"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=""
[ "$rc" -eq 130 ] || [ "$rc" -eq 0 ]
ok $? "the restarted synctop ends cleanly on SIGTERM (rc=$rc)"
after=$(q 'SELECT count(*) FROM recent WHERE offset_s IS NOT NULL OR ptp_offset_ns IS NOT NULL OR frequency_ppm IS NOT NULL OR path_delay_ns IS NOT NULL OR phc_sys_offset_ns IS NOT NULL OR skew_ppm IS NOT NULL')
[ "$after" -gt "$samples" ]
ok $? "the restarted synctop went on writing ($samples -> $after samples)"
[ "$(q 'PRAGMA integrity_check')" = ok ]
ok $? "after a clean exit: integrity_check ok"

# the day view in the dashboard: the drill-down's `d` reads the database
if command -v tmux >/dev/null 2>&1; then
	sock=$tmp/tmux.sock
	tm() { tmux -S "$sock" "$@"; }
	tm -f /dev/null new-session -d -s t -x 140 -y 50 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --demo -d 1 --state-dir $state; sleep 30"
	sleep 3
	tm send-keys -t t Enter
	sleep 1
	tm send-keys -t t d
	found=1
	for i in $(seq 1 50); do
		tm capture-pane -p -t t >"$tmp/screen" 2>/dev/null
		if grep -q "Day view: the last 1 h" "$tmp/screen" && grep -q "columns with samples" "$tmp/screen" &&
			grep -q "Frequency, chrony, mean per column" "$tmp/screen"; then
			found=0
			break
		fi
		sleep 0.1
	done
	ok $found "the drill-down's d shows the day view from the database"
	[ "$found" -eq 0 ] || diag "$(head -20 "$tmp/screen")"
	tm send-keys -t t d d d
	sleep 1
	tm capture-pane -p -t t >"$tmp/screen"
	! grep -q "Day view" "$tmp/screen"
	ok $? "d cycles 1 h, 24 h, 7 d, off"
	tm send-keys -t t q q
	sleep 0.5
	tm kill-server >/dev/null 2>&1
fi

# chrony.drift_daily: two days of ntp1's frequency rising 2.5 ppm/day (put
# in with sqlite3: a run of two days is not a test), judged by --once
command -v jq >/dev/null 2>&1 || { done_testing; exit; }
q "DELETE FROM samples WHERE node=(SELECT id FROM nodes WHERE host='ntp1');
WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 2879)
INSERT INTO samples(node, t, frequency_ppm)
SELECT (SELECT id FROM nodes WHERE host='ntp1'), CAST(strftime('%s','now') AS REAL) - 2 * 86400 + x * 60,
       -3.0 + 2.5 * x / 1440.0 FROM c;"
"$bin" --demo --once --json --state-dir "$state" >"$tmp/once.json" 2>"$tmp/once.err"
drift=$(jq -r '.nodes[] | select(.host == "ntp1") | .frequency_drift_ppm_per_day' "$tmp/once.json")
awk -v d="$drift" 'BEGIN { exit !(d > 2.49 && d < 2.51) }'
ok $? "--once --json: frequency_drift_ppm_per_day of the stored two days is $drift (2.5)"
jq -e '.nodes[] | select(.host == "ntp1") | .findings[] | select(.code == "chrony.drift_daily")' "$tmp/once.json" >/dev/null
ok $? "chrony.drift_daily raised above 1 ppm/day"
jq -e '[.nodes[] | select(.host != "ntp1") | .frequency_drift_ppm_per_day] | all(. == null)' "$tmp/once.json" >/dev/null
ok $? "nodes with less than a day stored: frequency_drift_ppm_per_day null"
done_testing
