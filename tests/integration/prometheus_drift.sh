#!/bin/sh
# prometheus_drift.sh - chrony.drift and chrony.drift_daily from Prometheus's
# own history: Debian's prometheus with two days of real samples written
# into its database before it starts (promtool tsdb create-blocks-from
# openmetrics: the series as a node_exporter would have served them, with
# past timestamps), then scraping a real prometheus-node-exporter whose
# textfile serves the same series now, every second.
#   drifty   chrony_exporter's frequency rising 2 ppm/h for two days:
#            chrony.drift (2 ppm/h) and chrony.drift_daily (48 ppm/day)
#   steady   chrony_exporter's frequency constant: known, 0, no finding
#   young    a steep ramp over 5 minutes only: too little history (< 10 min):
#            unknown (null), no finding
#   kern     node_exporter's timex ratio only, the kernel correction falling
#            so chrony's frequency rises 3 ppm/h for 3 hours: chrony.drift
#            +3 ppm/h; less than a day: no daily trend
#   ticked   timex whose tick moved (chronyd past 50 ppm): the ratio's
#            100 ppm step is no trend: unknown
# --once --json, --check exit codes, --prometheus-node-label nodename,
# --config groups with their own drift windows, limits and servers, the
# live view asking the hour at every refresh and the week once, and a server
# that refuses the week's query (--query.max-samples): unknown, said on
# stderr; the dashboard (tmux) quit while a drift query is in flight.  Every
# process is ours and is stopped by its PID, even on failure.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_ports.sh"
. "$(dirname "$0")/lab_prometheus.sh"
bin=${SYNCTOP_BIN:?}
here=$(cd "$(dirname "$0")" && pwd)
lab_prom_tools skip_all promtool python3 jq curl
lab_prom_begin

# shellcheck disable=SC2046 # one word per port
set -- $(lab_free_ports 2)
p_text=$1 p_prom=$2
url=http://127.0.0.1:$p_prom
mkdir -p "$tmp/tf" "$tmp/data"

# --- the past (OpenMetrics, for promtool) and the present (the textfile)
python3 - "$tmp/past.om" "$tmp/tf/drift.prom" <<'EOF'
import sys, time
now = int(time.time())
past, present = [], []
# chrony's sign (ppm) at time t; the kernel's ratio is 1 - it * 1e-6
drifty = lambda t: -12.5 + 2.0 * (t - now) / 3600
steady = lambda t: -12.5
young = lambda t: 4.0 + 60.0 * (t - now) / 3600
kern = lambda t: 5.0 + 3.0 * (t - now) / 3600
ticked = lambda t: 40.0 if t < now - 1800 else -60.0  # the ratio's part, around a tick move
def ratio(f):
    return lambda t: 1 - f(t) * 1e-6
families = {
    "chrony_tracking_frequency_ppms": [
        ('instance="drifty:9123",job="chrony"', drifty, now - 2 * 86400, 60),
        ('instance="steady:9123",job="chrony"', steady, now - 2 * 86400, 60),
        ('instance="young:9123",job="chrony"', young, now - 300, 10),
    ],
    "node_timex_frequency_adjustment_ratio": [
        ('instance="kern:9100",job="node"', ratio(kern), now - 3 * 3600, 30),
        ('instance="ticked:9100",job="node"', ratio(ticked), now - 3 * 3600, 30),
    ],
    "node_timex_tick_seconds": [
        ('instance="kern:9100",job="node"', lambda t: 0.01, now - 3 * 3600, 30),
        ('instance="ticked:9100",job="node"', lambda t: 0.01 if t < now - 1800 else 0.009999, now - 3 * 3600, 30),
    ],
}
for name, series in families.items():
    past.append("# TYPE %s gauge" % name)
    for labels, f, start, step in series:
        for t in range(start, now - 20, step):  # oldest first, up to 20 s ago
            past.append("%s{%s} %.12g %d" % (name, labels, f(t), t))
        present.append("%s{%s} %.12g" % (name, labels, f(now)))
past.append("# EOF")
for i in ("drifty", "steady", "young"):
    l = 'instance="%s:9123",job="chrony"' % i
    present += ['chrony_up{%s} 1' % l, 'chrony_tracking_stratum{%s} 2' % l,
                'chrony_tracking_system_time_seconds{%s} 1e-06' % l,
                'chrony_tracking_root_delay_seconds{%s} 0.0001' % l,
                'chrony_tracking_root_dispersion_seconds{%s} 1e-05' % l,
                'chrony_tracking_skew_ppms{%s} 0.02' % l]
    for a, st in (("192.168.0.1", "sync"), ("192.168.0.2", "candidate")):
        s = l + ',source_address="%s",source_name="%s"' % (a, a)
        present += ['chrony_sources_state_info{%s,source_mode="client",source_state="%s"} 1' % (s, st),
                    'chrony_sources_reachability_ratio{%s} 1' % s, 'chrony_sources_reachability_success{%s} 1' % s,
                    'chrony_sources_stratum{%s} 1' % s, 'chrony_sources_polling_interval_seconds{%s} 64' % s]
present.append('node_uname_info{instance="kern:9100",job="node",nodename="kernhost",sysname="Linux"} 1')
for i in ("kern", "ticked"):
    l = 'instance="%s:9100",job="node"' % i
    present += ['node_timex_sync_status{%s} 1' % l, 'node_timex_status{%s} 1' % l,
                'node_timex_offset_seconds{%s} 0' % l, 'node_timex_maxerror_seconds{%s} 0.0001' % l,
                'node_timex_estimated_error_seconds{%s} 1e-06' % l]
open(sys.argv[1], "w").write("\n".join(past) + "\n")
open(sys.argv[2], "w").write("\n".join(sorted(present)) + "\n")
EOF
ok $? "two days of frequency series and the textfile of now written"
"$promtool" tsdb create-blocks-from openmetrics "$tmp/past.om" "$tmp/data" >"$tmp/promtool.log" 2>&1
ok $? "promtool backfilled them into Prometheus's database ($(grep -c '^01' "$tmp/promtool.log") blocks)"

lab_prom_config "$tmp/prometheus.yml" "$p_text"
"$exporter" --web.listen-address=127.0.0.1:$p_text --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf" >"$tmp/text.log" 2>&1 &
pids="$pids $!"
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address=127.0.0.1:$p_prom >"$tmp/prom.log" 2>&1 &
prom_pid=$!
pids="$pids $prom_pid"
query() { curl -s -G "$url/api/v1/query" --data-urlencode "query=$1"; }
scraped() {
	[ "$(query 'count(count_over_time(chrony_up[1m]) >= 3)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 3 ] &&
		[ "$(query 'count(count_over_time(chrony_tracking_frequency_ppms{instance="drifty:9123"}[2d]) > 2000)' |
			jq -r '.data.result[0].value[1]' 2>/dev/null)" = 1 ]
}
tap_wait 60 scraped
ok $? "prometheus holds the backfilled days and scrapes the textfile"

json=$tmp/once.json
timeout 30 "$bin" --from-prometheus "$url" --once --json --log "$tmp/once.log" >"$json" 2>"$tmp/once.err"
rc=$?
ok $(($rc != 0)) "--once --json exits 0 (got $rc: $(head -c 300 "$tmp/once.err"))"
node() { jq -c --arg h "$1" '.nodes[] | select(.host == $h)' "$json"; }
near() { # value want tolerance
	python3 -c 'import sys; v=sys.argv[1]; sys.exit(0 if v != "null" and abs(float(v) - float(sys.argv[2])) <= float(sys.argv[3]) else 1)' "$@"
}
codes() { node "$1" | jq -c '[.findings[]?.code] | sort'; }
hour=$(node drifty | jq -r .frequency_drift_ppm_per_hour)
day=$(node drifty | jq -r .frequency_drift_ppm_per_day)
near "$hour" 2 0.05 && near "$day" 48 1
ok $? "drifty: Prometheus's deriv says +2 ppm/h over the hour ($hour) and +48 ppm/day over the days ($day)"
[ "$(codes drifty)" = '["chrony.drift","chrony.drift_daily"]' ] &&
	node drifty | jq -r '.findings[] | select(.code == "chrony.drift") | .message' |
	grep -Eq "^Frequency drifting \+(1\.99|2\.00)[0-9] ppm/h over Prometheus's last hour"
ok $? "drifty: chrony.drift and chrony.drift_daily, judged by the SSH rules ($(codes drifty))"
[ "$(node drifty | jq -r .status)" = warn ]
ok $? "drifty: warn"
[ "$(node steady | jq -c '[.frequency_drift_ppm_per_hour, .frequency_drift_ppm_per_day, .status]')" = '[0,0,"ok"]' ] &&
	[ "$(codes steady)" = '[]' ]
ok $? "steady: both trends known and 0, no finding ($(node steady | jq -c '[.frequency_drift_ppm_per_hour, .frequency_drift_ppm_per_day, .status, [.findings[]?.code]]'))"
[ "$(node young | jq -c '[.frequency_drift_ppm_per_hour, .frequency_drift_ppm_per_day]')" = '[null,null]' ] &&
	[ "$(codes young)" = '[]' ]
ok $? "young (5 minutes of a 60 ppm/h ramp): too little history, unknown, no finding ($(node young | jq -c '[.frequency_drift_ppm_per_hour, [.findings[]?.code]]'))"
hour=$(node kern | jq -r .frequency_drift_ppm_per_hour)
near "$hour" 3 0.05 && [ "$(node kern | jq -r .frequency_drift_ppm_per_day)" = null ] &&
	[ "$(codes kern)" = '["chrony.drift"]' ] && [ "$(node kern | jq -r .chrony)" = null ]
ok $? "kern (timex only): the kernel ratio's slope read as chrony's sign, +3 ppm/h ($hour), chrony.drift; no day of it: no daily trend ($(codes kern))"
[ "$(node ticked | jq -c '[.frequency_drift_ppm_per_hour, [.findings[]?.code]]')" = '[null,[]]' ]
ok $? "ticked: a tick move in the hour is no trend: unknown ($(node ticked | jq -c '[.frequency_drift_ppm_per_hour, [.findings[]?.code]]'))"
# the hour: drifty, steady, kern; the week: drifty, steady
grep -q "prometheus: drift (hour): 3 nodes with enough history" "$tmp/once.log" &&
	grep -q "prometheus: drift (week): 2 nodes with enough history" "$tmp/once.log"
ok $? "one query per window for the whole fleet: $(grep 'drift (' "$tmp/once.log" | sed 's/.*prometheus: //' | tr '\n' ' ')"

# --- named by node_uname_info's nodename: the exporters' trends joined on instance
timeout 30 "$bin" --from-prometheus "$url" --prometheus-node-label nodename --once --json >"$tmp/nn.json" 2>"$tmp/nn.err"
hour=$(jq -r '.nodes[] | select(.host == "kernhost") | .frequency_drift_ppm_per_hour' "$tmp/nn.json")
near "$hour" 3 0.05 &&
	near "$(jq -r '.nodes[] | select(.host == "drifty") | .frequency_drift_ppm_per_day' "$tmp/nn.json")" 48 1
ok $? "--prometheus-node-label nodename: kern is kernhost with its +3 ppm/h ($hour); drifty, without node_uname_info, keeps its instance's name"

# --- --check: the drifting node warns, the steady one passes
timeout 30 "$bin" --from-prometheus "$url" --check drifty >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "chrony.drift" "$tmp/c.out"
ok $? "--check drifty: exit 1 with chrony.drift (got $rc: $(head -c 300 "$tmp/c.out"))"
timeout 30 "$bin" --from-prometheus "$url" --check steady young >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 0 ]
ok $? "--check steady young: exit 0 (got $rc: $(head -c 300 "$tmp/c.out"))"
timeout 30 "$bin" --from-prometheus "$url" --check kern >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 1 ]
ok $? "--check kern: exit 1 (got $rc: $(head -c 300 "$tmp/c.out"))"

# --- --config groups: a group's own drift settings judge its nodes as they
# would over SSH, and each (server set, window) pair gets its own query:
#   short   young, a 4-minute window needing 2 minutes: its ramp is a trend
#   loose   drifty, warn above 5 ppm/h and 100 ppm/day: no finding
#   kernel  kern, read through its own servers with {job="node"}, a
#           30-minute window: +3 ppm/h still
cat >"$tmp/groups.json" <<EOT
{"groups": [
  {"name": "short", "hosts": "young",
   "thresholds": {"chrony_drift_window_s": 240, "chrony_drift_min_span_s": 120}},
  {"name": "loose", "hosts": "drifty",
   "thresholds": {"chrony_drift_warn_ppm_per_hour": 5, "chrony_drift_daily_warn_ppm": 100}},
  {"name": "kernel", "hosts": "kern",
   "prometheus": {"url": "$url", "selector": "{job=\"node\"}"},
   "thresholds": {"chrony_drift_window_s": 1800}}]}
EOT
timeout 30 "$bin" --config "$tmp/groups.json" --from-prometheus "$url" --once --json --log "$tmp/groups.log" \
	>"$tmp/groups.out" 2>"$tmp/groups.err"
rc=$?
gnode() { jq -c --arg h "$1" '.nodes[] | select(.host == $h)' "$tmp/groups.out"; }
gcodes() { gnode "$1" | jq -c '[.findings[]?.code] | sort'; }
hour=$(gnode young | jq -r .frequency_drift_ppm_per_hour)
python3 -c 'import sys; sys.exit(0 if sys.argv[1] != "null" and float(sys.argv[1]) > 10 else 1)' "$hour" &&
	[ "$(gcodes young)" = '["chrony.drift"]' ] &&
	gnode young | jq -r '.findings[] | select(.code == "chrony.drift") | .message' |
	grep -q "over Prometheus's last 4 min"
ok $? "group short: young's ramp over its own 4-minute window is a trend (+$hour ppm/h), chrony.drift says the window ($(gcodes young); rc $rc: $(head -c 200 "$tmp/groups.err"))"
near "$(gnode drifty | jq -r .frequency_drift_ppm_per_hour)" 2 0.05 && [ "$(gcodes drifty)" = '[]' ] &&
	[ "$(gnode drifty | jq -r .status)" = ok ]
ok $? "group loose: drifty's +2 ppm/h and 48 ppm/day under its own limits: no finding ($(gcodes drifty))"
hour=$(gnode kern | jq -r .frequency_drift_ppm_per_hour)
near "$hour" 3 0.05 && [ "$(gcodes kern)" = '["chrony.drift"]' ] &&
	gnode kern | jq -r '.findings[] | select(.code == "chrony.drift") | .message' | grep -q "last 30 min"
ok $? "group kernel: kern from its own servers and selector over 30 minutes: +3 ppm/h ($hour), chrony.drift"
[ "$(gnode steady | jq -c '[.frequency_drift_ppm_per_hour, .status]')" = '[0,"ok"]' ]
ok $? "steady, in no group: the command line's hour as before"
# hour: the command line's servers (steady, ticked), short's 240 s window,
# loose's default one (the command line's, shared), kernel's own servers;
# week: the command line's and kernel's
grep -q 'drift (hour): 1 nodes .*(240 s window, 120 s of history needed, from the command line' "$tmp/groups.log" &&
	grep -q 'drift (hour): 1 nodes .*(1800 s window, 600 s of history needed, from --config group "kernel")' "$tmp/groups.log" &&
	grep -q 'drift (hour): 2 nodes .*(3600 s window, 600 s of history needed, from the command line' "$tmp/groups.log" &&
	[ "$(grep -c 'drift (hour)' "$tmp/groups.log")" = 3 ] && [ "$(grep -c 'drift (week)' "$tmp/groups.log")" = 2 ]
ok $? "one query per server set and window: $(grep 'drift (' "$tmp/groups.log" | sed 's/.*prometheus: //' | tr '\n' ' ')"

# --- a server slower than --timeout on the week's query (at 10,000 nodes
# the week takes it seconds: bench/README.md): the week's requests have
# their own time, and --once waits for them.  A proxy to the real server
# (a shim: this server answers a few nodes' week at once) holds each
# request for the week 3 s, over --timeout 2 (prometheus_proxy.py); then, in its second mode,
# answers the week's timex part with a 500 (a part of the week missing).
python3 "$here/prometheus_proxy.py" "$url" "$tmp/slow.port" "$tmp/slow.mode" >"$tmp/slow.log" 2>&1 &
slow_pid=$!
pids="$pids $slow_pid"
echo slow >"$tmp/slow.mode"
tap_wait 10 test -s "$tmp/slow.port"
slow=http://127.0.0.1:$(cat "$tmp/slow.port")
start=$(date +%s.%N)
timeout 60 "$bin" --from-prometheus "$slow" --timeout 2 --once --json --log "$tmp/slow.synctop.log" drifty steady \
	>"$tmp/slow.json" 2>"$tmp/slow.err"
rc=$?
took=$(python3 -c 'import sys, time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$start")
day=$(jq -r '.nodes[] | select(.host == "drifty") | .frequency_drift_ppm_per_day' "$tmp/slow.json")
[ $rc = 0 ] && near "$day" 48 1 && [ "$(jq -r '.nodes[] | select(.host == "drifty") | [.findings[].code] | sort | join(",")' "$tmp/slow.json")" = chrony.drift,chrony.drift_daily ] &&
	! grep -q "not judged" "$tmp/slow.err" && grep -q "drift (week): 2 nodes with enough history, answered in [3-9]\." "$tmp/slow.synctop.log"
ok $? "the week's answer 3 s late, --timeout 2: --once waits for it (its own time), drifty's +48 ppm/day judged in $took s (rc $rc: $(head -c 300 "$tmp/slow.err"); $(grep -o 'drift (week).*answered in [0-9.]* s' "$tmp/slow.synctop.log"))"
# the week asked a family at a time: the timex part failing leaves drifty's
# chrony part answered, but a week with a family missing is no answer (a
# node with both would be judged on the kernel's slope alone otherwise)
echo fail-timex >"$tmp/slow.mode"
timeout 60 "$bin" --from-prometheus "$slow" --once --json drifty steady >"$tmp/part.json" 2>"$tmp/part.err"
rc=$?
[ $rc = 0 ] && [ "$(jq -c '[.nodes[].frequency_drift_ppm_per_day]' "$tmp/part.json")" = '[null,null]' ] &&
	near "$(jq -r '.nodes[] | select(.host == "drifty") | .frequency_drift_ppm_per_hour' "$tmp/part.json")" 2 0.05 &&
	grep -q "the frequency's trend over the last week: .*HTTP 500.*chrony.drift_daily not judged" "$tmp/part.err"
ok $? "the week's timex part answered 500: no daily trend at all (not the chrony part alone), said on stderr; the hour judged (rc $rc: $(head -c 300 "$tmp/part.err"))"
kill "$slow_pid" 2>/dev/null

# --- live: the hour's trend at every refresh, the week's once per 10 minutes
timeout -s INT 6 "$bin" --from-prometheus "$url" -d 1 --log "$tmp/live.log" drifty steady >"$tmp/live.out" 2>&1
hours=$(grep -c "prometheus: drift (hour)" "$tmp/live.log")
weeks=$(grep -c "prometheus: drift (week)" "$tmp/live.log")
[ "$hours" -ge 3 ] && [ "$weeks" = 1 ]
ok $? "live, a refresh a second for 6 s: the hour asked $hours times, the week once ($weeks)"
grep -q "chrony.drift" "$tmp/live.out"
ok $? "live plain table: drifty's chrony.drift shown"

# --- a server that refuses the week's query (too many samples for its
# --query.max-samples): the week stays unknown and stderr says so; the hour
# and the rest are judged as before
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" --query.max-samples=1000 \
	--web.listen-address=127.0.0.1:$p_prom >"$tmp/prom2.log" 2>&1 &
prom_pid=$!
pids="$pids $prom_pid"
answers() { [ "$(query 'count(chrony_up)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 3 ]; }
tap_wait 60 answers
ok $? "prometheus restarted on the same database with --query.max-samples=1000"
timeout 30 "$bin" --from-prometheus "$url" --once --json drifty steady >"$tmp/refused.json" 2>"$tmp/refused.err"
rc=$?
hour=$(jq -r '.nodes[] | select(.host == "drifty") | .frequency_drift_ppm_per_hour' "$tmp/refused.json")
[ $rc = 0 ] && near "$hour" 2 0.05 &&
	[ "$(jq -c '[.nodes[].frequency_drift_ppm_per_day]' "$tmp/refused.json")" = '[null,null]' ] &&
	grep -q "the frequency's trend over the last week: .*too many samples.*chrony.drift_daily not judged" "$tmp/refused.err"
ok $? "the week refused: daily trends unknown (null), said on stderr; the hour judged ($hour); exit $rc ($(head -c 300 "$tmp/refused.err"))"
# --- the dashboard quit while a drift query is in flight: the answer told
# at exit turns a known trend unknown; the dashboard is gone by then (it was
# freed before the source, and marked changed: ASan's use after free).  A
# proxy to the real server holds every query_range after the first four
# (the hour's, the week's three parts).
if command -v tmux >/dev/null 2>&1; then
	echo hold-after-4 >"$tmp/proxy.mode"
	python3 "$here/prometheus_proxy.py" "$url" "$tmp/proxy.port" "$tmp/proxy.mode" >"$tmp/proxy.log" 2>&1 &
	pids="$pids $!"
	tap_wait 10 test -s "$tmp/proxy.port"
	proxy=http://127.0.0.1:$(cat "$tmp/proxy.port")
	tm() { tmux -S "$tmp/tmux.sock" "$@"; }
	tm -f /dev/null new-session -d -s t -x 160 -y 50 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $proxy -d 1 --log $tmp/tui.log drifty steady 2>$tmp/tui.err; echo EXIT=\$?; sleep 60"
	screen() { tm capture-pane -p -t t 2>/dev/null; }
	held() { grep -q "drift (hour): 2 nodes with enough history" "$tmp/tui.log" 2>/dev/null &&
		[ "$(grep -c "refresh done" "$tmp/tui.log")" -ge 3 ] && screen | grep -q drifty; }
	tap_wait 30 held
	ok $? "dashboard: drifty's hour known, the next drift queries held by the proxy"
	tm send-keys -t t q
	gone() { screen | grep -q "^EXIT="; }
	tap_wait 15 gone
	screen | grep -q "^EXIT=0" && ! grep -q "AddressSanitizer" "$tmp/tui.err"
	ok $? "q with a drift query in flight: exit 0, nothing used after it was freed ($(screen | grep EXIT=; grep -m1 AddressSanitizer "$tmp/tui.err"))"
	tm kill-server >/dev/null 2>&1
else
	diag "tmux not installed: the dashboard is not tried"
fi
done_testing
