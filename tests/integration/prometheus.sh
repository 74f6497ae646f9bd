#!/bin/sh
# prometheus.sh - `--prometheus FILE` from the command line: once modes write
# the file before exiting; live mode rewrites it every interval from its
# writer thread, says once on stderr when writing fails (the directory gone)
# and once when it works again, and keeps polling and printing meanwhile.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sweep_time() { sed -n 's/^synctop_last_sweep_timestamp_seconds //p' "$1" 2>/dev/null; }

# --- once: the file is there, complete and readable, before synctop exits
mkdir "$tmp/textfile"
prom=$tmp/textfile/synctop.prom
"$bin" --demo --once --prometheus "$prom" >/dev/null 2>"$tmp/once.err"
[ "$(grep -c '^synctop_node_up{' "$prom" 2>/dev/null)" = 50 ]
ok $? "--once --prometheus: one synctop_node_up per demo node (50)"
[ "$(stat -c %a "$prom" 2>/dev/null)" = 644 ]
ok $? "the file is mode 644 (node_exporter runs as another user)"
[ "$(ls "$tmp/textfile" | wc -l)" = 1 ]
ok $? "no temporary file left next to it"

# --- live: rewritten every interval; trouble reported once, recovery too
rm -f "$prom"
"$bin" --demo -d 0.5 --prometheus "$prom" --log "$tmp/live.log" >"$tmp/live.out" 2>"$tmp/live.err" &
pid=$!
tap_wait 20 test -s "$prom"
ok $? "live: the file appears"
first=$(sweep_time "$prom")
newer() { t=$(sweep_time "$prom") && [ -n "$t" ] && [ "$t" != "$first" ]; }
tap_wait 10 newer
ok $? "live: the file is rewritten (sweep time $first -> $(sweep_time "$prom"))"

mv "$tmp/textfile" "$tmp/gone"
failed() { grep -q -- "--prometheus: .*cannot create a temporary file" "$tmp/live.err"; }
tap_wait 10 failed
ok $? "live: a failed write is reported on stderr"
# more sweeps fail (four in 2 s on an idle machine; wait for three however
# loaded it is), each in the log and none more on stderr
logged() { [ "$(grep -c -- "--prometheus: .*cannot create a temporary file" "$tmp/live.log")" -ge 3 ]; }
tap_wait 30 logged &&
	[ "$(grep -c -- "--prometheus:" "$tmp/live.err")" = 1 ]
ok $? "live: stderr says it once, the log every time"
before=$(wc -l <"$tmp/live.out")
sleep 1.2
[ "$(wc -l <"$tmp/live.out")" -gt "$before" ]
ok $? "live: the table keeps being printed while the file cannot be written"

mv "$tmp/gone" "$tmp/textfile"
again() { grep -q -- "--prometheus: $prom written again" "$tmp/live.err"; }
tap_wait 10 again
ok $? "live: recovery is reported"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" = 130 ]
ok $? "live: SIGTERM ends it with status 130 (got $rc)"
[ "$(ls "$tmp/textfile" | wc -l)" = 1 ]
ok $? "live: no temporary file left behind"
done_testing
