#!/bin/sh
# prometheus_source.sh - `--from-prometheus` against the real thing: Debian's
# prometheus scraping two real prometheus-node-exporter instances every
# second on 127.0.0.1 (random free ports): one with its real timex collector
# (this machine's kernel clock), one whose textfile collector serves a
# `synctop --demo --prometheus` file (50 simulated nodes) and
# chrony_exporter-format series (tracking and sources) for simulated nodes,
# and one serving OpenShift linuxptp-daemon-format series for simulated
# nodes named by their `node` label, both with honor_labels.
# Then --once --json, --check exit codes, -w filtering, a target that is
# down, a target that goes down (the nodes it served turn unknown with the
# scrape error), staleness, a query Prometheus refuses, and broken servers (closed
# port, HTTP 500, not JSON, an answer cut short, no answer at all, a
# warning; prometheus_fake.py) that must give a clear source error and exit
# status, never a hang; a bearer token read from a file and kept out of
# --log.  Every process is ours and is stopped by its PID, even on failure.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_ports.sh"
. "$(dirname "$0")/lab_prometheus.sh"
bin=${SYNCTOP_BIN:?}
here=$(cd "$(dirname "$0")" && pwd)
# --- the command line, before anything is started
"$bin" --prometheus-selector '{job="x"}' host1 >/dev/null 2>"${TMPDIR:-/tmp}/prom-src-$$.err"
rc=$?
[ $rc = 64 ] && grep -q "go with --from-prometheus" "${TMPDIR:-/tmp}/prom-src-$$.err"
ok $? "--prometheus-selector without --from-prometheus: exit 64 (got $rc)"
"$bin" --from-prometheus http://127.0.0.1:9 --demo --once >/dev/null 2>&1
ok $(($? != 64)) "--from-prometheus with --demo: exit 64"
"$bin" --from-prometheus http://127.0.0.1:9 --prometheus-selector 'job="x"' --once >/dev/null \
	2>"${TMPDIR:-/tmp}/prom-src-$$.err"
rc=$?
[ $rc = 64 ] && grep -q "label matchers in braces" "${TMPDIR:-/tmp}/prom-src-$$.err"
ok $? "a selector without braces: exit 64 (got $rc)"
"$bin" --from-prometheus http://127.0.0.1:9 --prometheus-bearer-token-file /nonexistent --once >/dev/null \
	2>"${TMPDIR:-/tmp}/prom-src-$$.err"
rc=$?
[ $rc = 64 ] && grep -q "/nonexistent: No such file" "${TMPDIR:-/tmp}/prom-src-$$.err"
ok $? "a token file that cannot be read: exit 64 (got $rc)"
rm -f "${TMPDIR:-/tmp}/prom-src-$$.err"

skip_rest() {
	diag "SKIP the lab: $*"
	done_testing
	exit $?
}
lab_prom_tools skip_rest python3 jq curl
lab_prom_begin

# shellcheck disable=SC2046 # one word per port
set -- $(lab_free_ports 6)
p_node=$1 p_text=$2 p_prom=$3 p_dead=$4 p_ptp=$5 p_slow=$6
url=http://127.0.0.1:$p_prom

# --- the textfiles: synctop's own, and chrony_exporter's series of a node
mkdir -p "$tmp/tf-empty" "$tmp/tf" "$tmp/data"
"$bin" --demo --once --prometheus "$tmp/tf/synctop.prom" >/dev/null 2>&1
ok $? "synctop --demo --once --prometheus wrote the textfile to serve"
cat >"$tmp/tf/chrony.prom" <<'EOT'
chrony_tracking_system_time_seconds{instance="chrony-sim:9123"} 0.000123
chrony_tracking_last_offset_seconds{instance="chrony-sim:9123"} -2.1e-06
chrony_tracking_frequency_ppms{instance="chrony-sim:9123"} -12.5
chrony_tracking_skew_ppms{instance="chrony-sim:9123"} 0.02
chrony_tracking_stratum{instance="chrony-sim:9123"} 2
chrony_tracking_root_delay_seconds{instance="chrony-sim:9123"} 0.004
chrony_tracking_root_dispersion_seconds{instance="chrony-sim:9123"} 0.0002
chrony_tracking_info{instance="chrony-sim:9123",tracking_address="192.168.0.1",tracking_name="ntp1",tracking_refid="C0A80001"} 1
EOT
# chrony_exporter --collector.sources (collector/sources.go): names and
# labels as it sends them; chrony-bad's sources all unreachable
src() { # instance address state mode ratio success
	l="instance=\"$1\",source_address=\"$2\",source_name=\"$2\""
	echo "chrony_sources_state_info{$l,source_mode=\"$4\",source_state=\"$3\"} 1"
	echo "chrony_sources_reachability_ratio{$l} $5"
	echo "chrony_sources_reachability_success{$l} $6"
	echo "chrony_sources_stratum{$l} 1"
	echo "chrony_sources_polling_interval_seconds{$l} 64"
	echo "chrony_sources_last_sample_age_seconds{$l} 30"
	echo "chrony_sources_last_sample_offset_seconds{$l} -2e-06"
	echo "chrony_sources_last_sample_error_margin_seconds{$l} 0.0004"
}
{
	echo 'chrony_up{instance="chrony-sim:9123"} 1'
	src chrony-sim:9123 192.168.0.1 sync client 1 1
	src chrony-sim:9123 192.168.0.2 candidate client 1 1
	echo 'chrony_up{instance="chrony-bad:9123"} 1'
	echo 'chrony_tracking_stratum{instance="chrony-bad:9123"} 0'
	src chrony-bad:9123 192.168.0.1 unreach client 0 0
	src chrony-bad:9123 192.168.0.2 unreach client 0 0
	echo 'chrony_up{instance="chrony-down:9123"} 0'
} >>"$tmp/tf/chrony.prom"
# linuxptp-daemon (openshift/linuxptp-daemon pkg/daemon/metrics.go): ptp-w0
# locked, ptp-w1 with phc2sys 200 us off and a free-running grandmaster,
# ptp-w2 whose ptp4l is down, ptp-w3 whose servo is FREERUN (clock_state 0),
# ptp-w4 whose slave port turned FAULTY (the daemon's 999999 faultyOffset
# marker as both offsets, path delay 0: extractPTP4lEventState)
mkdir -p "$tmp/tf-ptp"
optp() { # node offset phc2sys-offset class ptp4l-status [clock-state]
	echo "openshift_ptp_offset_ns{from=\"master\",iface=\"ens1fx\",node=\"$1\",process=\"ptp4l\"} $2"
	echo "openshift_ptp_delay_ns{from=\"master\",iface=\"ens1fx\",node=\"$1\",process=\"ptp4l\"} 310"
	echo "openshift_ptp_offset_ns{from=\"phc\",iface=\"CLOCK_REALTIME\",node=\"$1\",process=\"phc2sys\"} $3"
	echo "openshift_ptp_clock_class{config=\"ptp4l.0.config\",node=\"$1\",process=\"ptp4l\"} $4"
	echo "openshift_ptp_clock_state{iface=\"ens1fx\",node=\"$1\",process=\"ptp4l\"} ${6:-1}"
	echo "openshift_ptp_interface_role{iface=\"ens1f0\",node=\"$1\",process=\"ptp4l\"} 1"
	echo "openshift_ptp_interface_role{iface=\"ens1f1\",node=\"$1\",process=\"ptp4l\"} 2"
	echo "openshift_ptp_process_status{config=\"ptp4l.0.config\",node=\"$1\",process=\"ptp4l\"} $5"
	echo "openshift_ptp_process_status{config=\"phc2sys.0.config\",node=\"$1\",process=\"phc2sys\"} 1"
}
{
	optp ptp-w0 -25 7 6 1
	optp ptp-w1 40 200000 248 1
	optp ptp-w2 0 0 248 0
	optp ptp-w3 1200 7 6 1 0
	l='node="ptp-w4"'
	echo "openshift_ptp_offset_ns{from=\"master\",iface=\"ens1fx\",$l,process=\"ptp4l\"} 999999"
	echo "openshift_ptp_delay_ns{from=\"master\",iface=\"ens1fx\",$l,process=\"ptp4l\"} 0"
	echo "openshift_ptp_offset_ns{from=\"phc\",iface=\"CLOCK_REALTIME\",$l,process=\"phc2sys\"} 999999"
	echo "openshift_ptp_clock_state{iface=\"ens1fx\",$l,process=\"ptp4l\"} 0"
	echo "openshift_ptp_clock_class{config=\"ptp4l.0.config\",$l,process=\"ptp4l\"} 6"
	echo "openshift_ptp_interface_role{iface=\"ens1f0\",$l,process=\"ptp4l\"} 3"
	echo "openshift_ptp_process_status{config=\"ptp4l.0.config\",$l,process=\"ptp4l\"} 1"
	echo "openshift_ptp_process_status{config=\"phc2sys.0.config\",$l,process=\"phc2sys\"} 1"
} >"$tmp/tf-ptp/openshift.prom"

# node_exporter's timex series of one node, scraped only every 6 s: between
# two scrapes a refresh every second sees the same samples age
mkdir -p "$tmp/tf-slow"
{
	echo 'node_timex_sync_status{instance="slow1:9100"} 1'
	echo 'node_timex_status{instance="slow1:9100"} 8193'
	echo 'node_timex_offset_seconds{instance="slow1:9100"} 0.000012'
	echo 'node_timex_maxerror_seconds{instance="slow1:9100"} 0.0005'
	echo 'node_timex_estimated_error_seconds{instance="slow1:9100"} 0.00001'
} >"$tmp/tf-slow/timex.prom"

cat >"$tmp/prometheus.yml" <<EOT
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$p_node']
  - job_name: textfile
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$p_text']
  - job_name: gone
    static_configs:
      - targets: ['localhost:$p_dead']
  - job_name: linuxptp
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$p_ptp']
  - job_name: slow
    honor_labels: true
    scrape_interval: 6s
    static_configs:
      - targets: ['127.0.0.1:$p_slow']
EOT
"$exporter" --web.listen-address=127.0.0.1:$p_node --collector.textfile.directory="$tmp/tf-empty" \
	>"$tmp/node.log" 2>&1 &
pids="$pids $!"
"$exporter" --web.listen-address=127.0.0.1:$p_text --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf" >"$tmp/text.log" 2>&1 &
pids="$pids $!"
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address=127.0.0.1:$p_prom >"$tmp/prom.log" 2>&1 &
pids="$pids $!"
python3 "$here/prometheus_fake.py" "$tmp/fake.port" >"$tmp/fake.log" 2>&1 &
pids="$pids $!"
"$exporter" --web.listen-address=127.0.0.1:$p_ptp --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf-ptp" >"$tmp/ptp.log" 2>&1 &
ptp_exporter=$!
pids="$pids $ptp_exporter"
"$exporter" --web.listen-address=127.0.0.1:$p_slow --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf-slow" >"$tmp/slow.log" 2>&1 &
pids="$pids $!"

query() { curl -s -G "$url/api/v1/query" --data-urlencode "query=$1"; }
scraped() {
	[ "$(query 'count(up{job=~"node|textfile"} == 1)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 2 ] &&
		[ "$(query 'count(up{job="gone"} == 0)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 1 ] &&
		[ -n "$(query 'node_timex_status' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)" ] &&
		[ -n "$(query 'chrony_tracking_stratum' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)" ] &&
		[ -n "$(query 'openshift_ptp_clock_class' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)" ]
}
tap_wait 60 scraped
ok $? "prometheus scraped the three node_exporters and found the dead target"
tap_wait 10 test -s "$tmp/fake.port"
fake=http://127.0.0.1:$(cat "$tmp/fake.port" 2>/dev/null)

# --- the fleet, once, as JSON
json=$tmp/once.json
timeout 30 "$bin" --from-prometheus "$url" --once --json >"$json" 2>"$tmp/once.err"
rc=$?
[ $rc = 0 ]
ok $? "--once --json exits 0 (got $rc: $(head -c 300 "$tmp/once.err"))"
node() { jq -c --arg h "$1" '.nodes[] | select(.host == $h)' "$json"; }
metric() { curl -s "http://127.0.0.1:$1/metrics" | sed -n "s/^$2 //p"; }
status=$(metric "$p_node" node_timex_status)
sync=$(metric "$p_node" node_timex_sync_status)
[ "$(node 127.0.0.1 | jq -r .kernel_clock.status)" = "$status" ]
ok $? "this machine's node (instance without port): kernel status $status as node_exporter says"
want_sync=$([ "$sync" = 1 ] && echo true || echo false)
[ "$(node 127.0.0.1 | jq -r .kernel_clock.synchronised)" = "$want_sync" ] &&
	[ "$(node 127.0.0.1 | jq -r .reachable)" = true ] && [ "$(node 127.0.0.1 | jq -r .chrony)" = null ]
ok $? "its kernel clock reads synchronised=$want_sync; chrony unknown (null), not 0"
offset=$(sed -n 's/^synctop_chrony_offset_seconds{node="gpu001"} //p' "$tmp/tf/synctop.prom")
[ -n "$offset" ] && [ "$(node gpu001 | jq -r .chrony.system_time_offset_s)" = "$(jq -n "$offset")" ] &&
	[ "$(node gpu001 | jq -r .reachable)" = true ] && [ "$(node gpu001 | jq -r .ptp.port_state)" = SLAVE ]
ok $? "synctop's own series: gpu001's chrony offset $offset and PTP port back in their parts"
[ "$(jq '[.nodes[] | select(.host | test("^(gpu|ptp|ntp)"))] | length' "$json")" -ge 40 ]
ok $? "the simulated nodes are all there ($(jq '.nodes | length' "$json") nodes in all)"
[ "$(node chrony-sim | jq -r .chrony.system_time_offset_s)" = "-0.000123" ] &&
	[ "$(node chrony-sim | jq -r .chrony.reference_name)" = ntp1 ]
ok $? "chrony_exporter series (honor_labels): offset -0.000123 s (0.000123 s slow) and reference"
[ "$(node localhost | jq -r .reachable)" = false ] && node localhost | jq -r .error | grep -q "up == 0"
ok $? "the target that is down is an unknown node saying up == 0"

# --- chrony_exporter's sources, judged by the chrony rules
[ "$(node chrony-sim | jq -c '[.chrony.sources[] | [.name, .state, .mode, .reach, .poll]]')" = \
	'[["192.168.0.1","selected","server",255,6],["192.168.0.2","combined","server",255,6]]' ] &&
	[ "$(node chrony-sim | jq -r .chrony.sources_total)" = 2 ]
ok $? "chrony_exporter's sources: state, mode, reach and poll in the chrony part ($(node chrony-sim | jq -c '[.chrony.sources[]? | .state]'))"
[ "$(node chrony-bad | jq -r '[.findings[].code] | index("chrony.no_selected_source") != null')" = true ] &&
	[ "$(node chrony-bad | jq -r '[.findings[].code] | index("chrony.reach") != null')" = true ] &&
	[ "$(node chrony-bad | jq -r .status)" = crit ]
ok $? "chrony-bad (all sources unreachable): chrony.no_selected_source and chrony.reach, crit ($(node chrony-bad | jq -c '[.findings[]?.code]'))"
[ "$(node chrony-down | jq -r .chrony.error)" != null ] && [ "$(node chrony-down | jq -r .chrony.system_time_offset_s)" = null ]
ok $? "chrony_up 0: the chrony part failed with a reason, no value made up"

# --- linuxptp-daemon's series, by their node label
[ "$(node ptp-w0 | jq -c '[.ptp.offset_from_master_ns, .ptp.mean_path_delay_ns, .ptp.gm_clock_class, .ptp.port_state, .phc.phc_sys_offset_ns, .phc.judged, .status]')" = \
	'[-25,310,6,"SLAVE",7,true,"ok"]' ]
ok $? "ptp-w0: offset -25 ns, delay 310, clockClass 6, SLAVE, phc2sys's system offset 7 ns judged, ok ($(node ptp-w0 | jq -c '[.ptp.offset_from_master_ns, .ptp.gm_clock_class, .phc.phc_sys_offset_ns, .status, [.findings[]?.code]]'))"
[ "$(node ptp-w1 | jq -c '[.findings[].code] | sort')" = '["ptp.gm_clock_class","ptp.phc_sys_offset"]' ]
ok $? "ptp-w1: ptp.phc_sys_offset (200 us) and ptp.gm_clock_class (248) ($(node ptp-w1 | jq -c '[.findings[]?.code]'))"
node ptp-w2 | jq -r .ptp.error | grep -q "ptp4l (ptp4l.0.config) is down"
ok $? "ptp-w2: ptp4l down is the PTP part's error"
[ "$(node ptp-w3 | jq -c '[.ptp.port_state, .ptp.offset_from_master_ns, [.findings[] | [.code, .severity]]]')" = \
	'["UNCALIBRATED",1200,[["ptp.port_state","warn"]]]' ]
ok $? "ptp-w3: clock_state FREERUN reads UNCALIBRATED (servo not locked), a warning ($(node ptp-w3 | jq -c '[.ptp.port_state, [.findings[]?.code]]'))"
[ "$(node ptp-w4 | jq -c '[.ptp.offset_from_master_ns, .ptp.mean_path_delay_ns, .phc.phc_sys_offset_ns]')" = '[null,null,null]' ] &&
	[ "$(node ptp-w4 | jq -c '[.findings[] | select(.code == "ptp.port_state") | .severity]')" = '["crit"]' ] &&
	[ "$(node ptp-w4 | jq -c '[.findings[] | select(.code | test("^ptp\\.(offset|path_delay|phc_sys_offset)$"))]')" = '[]' ]
ok $? "ptp-w4: the 999999 faultyOffset marker is no offset (unknown); the FAULTY port is the finding ($(node ptp-w4 | jq -c '[.ptp.offset_from_master_ns, .phc.phc_sys_offset_ns, [.findings[]?.code]]'))"
timeout 30 "$bin" --from-prometheus "$url" --check -w ptp-w0,chrony-sim >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 0 ]
ok $? "--check -w ptp-w0,chrony-sim: exit 0 (got $rc: $(head -c 300 "$tmp/c.out"))"
timeout 30 "$bin" --from-prometheus "$url" --check -w ptp-w1 >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 2 ]
ok $? "--check -w ptp-w1: exit 2 (got $rc)"
timeout 30 "$bin" --from-prometheus "$url" --check -w chrony-bad >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 2 ]
ok $? "--check -w chrony-bad: exit 2 (got $rc)"

# --- --check, -w
timeout 30 "$bin" --from-prometheus "$url" --check -w 127.0.0.1 >"$tmp/check.out" 2>&1
rc=$?
if [ "$sync" = 0 ]; then want=1; else want=0; fi
[ $rc = $want ]
ok $? "--check -w 127.0.0.1: exit $want for a kernel clock with sync_status $sync (got $rc)"
timeout 30 "$bin" --from-prometheus "$url" --check -w localhost,nosuch >"$tmp/check2.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "nosuch.*not in Prometheus's answer" "$tmp/check2.out"
ok $? "--check -w localhost,nosuch: exit 3, the unknown node named (got $rc)"

# --- a target that goes down: Prometheus marks its series stale at once;
# the nodes it served are unknown with the scrape error, not gone
kill "$ptp_exporter"
wait "$ptp_exporter" 2>/dev/null
ptp_down() { [ "$(query 'up{job="linuxptp"}' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 0 ]; }
tap_wait 30 ptp_down
ok $? "the linuxptp target is down (up == 0)"
timeout 30 "$bin" --from-prometheus "$url" --once --json >"$json" 2>/dev/null
[ "$(node ptp-w0 | jq -r .reachable)" = false ] && node ptp-w0 | jq -r .error | grep -q "cannot scrape 127.0.0.1:$p_ptp (job linuxptp): up == 0" &&
	[ "$(node ptp-w1 | jq -r .reachable)" = false ]
ok $? "the nodes it served read unknown with the scrape error ($(node ptp-w0 | jq -r .error))"
timeout 30 "$bin" --from-prometheus "$url" --check -w ptp-w0 >"$tmp/c.out" 2>&1
rc=$?
[ $rc = 3 ]
ok $? "--check -w ptp-w0 after its target went down: exit 3 (got $rc)"

# --- staleness: the demo's file says when each node last answered
sleep 3
timeout 30 "$bin" --from-prometheus "$url" --prometheus-stale 1 --once --json >"$json" 2>/dev/null
[ "$(node gpu001 | jq -r .reachable)" = false ] && node gpu001 | jq -r .error | grep -q "^stale"
ok $? "--prometheus-stale 1: a node whose newest sample is older is unknown, its values kept"

# --- what the server refuses or cannot do
check_source_error() { # description expected-exit pattern synctop-args...
	desc=$1 want=$2 pattern=$3
	shift 3
	start=$(date +%s)
	timeout 30 "$bin" "$@" >"$tmp/err.out" 2>"$tmp/err.err"
	rc=$?
	took=$(($(date +%s) - start))
	[ $rc = "$want" ] && grep -q -- "$pattern" "$tmp/err.err" && [ $took -le 8 ]
	ok $? "$desc: exit $want and '$pattern' (got $rc in ${took}s: $(head -c 200 "$tmp/err.err"))"
}
check_source_error "a selector Prometheus refuses" 69 "Prometheus says bad_data" \
	--from-prometheus "$url" --prometheus-selector '{job=~"("}' --once --json
# the longest selector synctop takes (1,024 characters), all of it bytes a
# URL must escape (a label that no series has, matched by a regex that
# matches ""): every query, the drift trends' included, is built and reaches
# the server whole (buffers inside were cut at 1-8 KiB: "the query does not
# fit" in the log, the trends never asked) and the nodes come back
long='{job="textfile",absent=~"'
while [ ${#long} -lt 1019 ]; do long="$long(|)"; done
long="$long\"}"
[ ${#long} -le 1024 ] || long=${long:0:1019}'"}'
timeout 30 "$bin" --from-prometheus "$url" --prometheus-selector "$long" --once --json --log "$tmp/long.log" \
	>"$tmp/long.json" 2>"$tmp/long.err"
rc=$?
[ $rc = 0 ] && [ "$(jq '[.nodes[] | select(.host == "gpu001")] | length' "$tmp/long.json")" = 1 ] &&
	[ ! -s "$tmp/long.err" ] && ! grep -q "does not fit\|cannot start" "$tmp/long.log" &&
	grep -q "drift (hour): .* answered" "$tmp/long.log"
ok $? "a selector of ${#long} characters to escape: exit $rc, gpu001 read, the drift trends asked, nothing on stderr ($(head -c 300 "$tmp/long.err"; grep -m1 "does not fit\|cannot start" "$tmp/long.log"))"
check_source_error "a closed port" 69 "Couldn't connect to server (and 9 more queries)" \
	--from-prometheus "http://127.0.0.1:$p_dead" --once --json
check_source_error "a closed port, --check" 3 "Couldn't connect" \
	--from-prometheus "http://127.0.0.1:$p_dead" --check
check_source_error "HTTP 500" 69 "query: HTTP 500 (and 9 more queries)" --from-prometheus "$fake/500" --once
check_source_error "a body that is not JSON" 69 "not JSON" --from-prometheus "$fake/garbage" --once
check_source_error "an answer cut short" 69 "Transferred a partial file" --from-prometheus "$fake/cut" --once
check_source_error "no answer at all, --timeout 2" 69 "Timeout was reached" \
	--from-prometheus "$fake/hang" --timeout 2 --once
check_source_error "a warning is the source's error" 0 "warning: store eu-1 did not answer" \
	--from-prometheus "$fake/warn" --from-prometheus "$url" --once
check_source_error "one good server (its URL ending in /), one down: the good one's nodes, the error said" 0 "Couldn't connect" \
	--from-prometheus "$url/" --from-prometheus "http://127.0.0.1:$p_dead" --once
grep -q "^gpu001 " "$tmp/err.out"
ok $? "... and the good server's nodes are shown"

# --- live: a plain table every interval (stdout is not a terminal)
"$bin" --from-prometheus "$url" -d 1 -w 127.0.0.1,gpu001 >"$tmp/live.out" 2>"$tmp/live.err" &
live=$!
pids="$pids $live"
tables() { [ "$(grep -c '^127\.0\.0\.1 ' "$tmp/live.out")" -ge 3 ]; }
tap_wait 20 tables
ok $? "live, plain text: a fresh table every interval ($(grep -c '^127\.0\.0\.1 ' "$tmp/live.out") so far)"
kill -INT "$live"
wait "$live"
rc=$?
[ $rc = 130 ]
ok $? "live, plain text: SIGINT ends it with 130 (got $rc)"

# --- live, samples unchanged between scrapes: a refresh that finds a node's
# samples as they were skips putting it together again, but still judges
# its age: scraped every 6 s, stale after 3 s, read every second, slow1
# must turn stale between scrapes and known again after the next one
slow_seen() { [ -n "$(query 'node_timex_status{instance="slow1:9100"}' | jq -r '.data.result[0].value[1] // empty' 2>/dev/null)" ]; }
tap_wait 30 slow_seen
timeout 20 "$bin" --from-prometheus "$url" -w slow1 -d 1 --prometheus-stale 3 --log "$tmp/slow-live.log" \
	</dev/null >"$tmp/slow-live.out" 2>"$tmp/slow-live.err"
same=$(grep -c "1 of 1 nodes as at the last refresh" "$tmp/slow-live.log")
# the rows in order: k known (judged), s stale; a stale row between known ones
states=$(awk '$1 == "slow1" { printf "%s", ($0 ~ /stale: its newest sample/ ? "s" : $2 ~ /^(ok|warn|crit)$/ ? "k" : "?") }' "$tmp/slow-live.out")
[ "$same" -ge 1 ] && printf '%s' "$states" | grep -q 'k\{1,\}s\{1,\}k'
ok $? "live: unchanged samples skipped ($same refreshes) and still judged stale between scrapes (rows: $states)"

# --- live: the dashboard, in a private tmux server
if command -v tmux >/dev/null 2>&1; then
	tm() { tmux -S "$tmp/tmux.sock" "$@"; }
	tm -f /dev/null new-session -d -s t -x 160 -y 50 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $url -d 1 --log $tmp/tui.log -w 127.0.0.1,gpu001,chrony-sim; echo EXIT=\$?; sleep 60"
	screen() { tm capture-pane -p -t t 2>/dev/null; }
	grid() { screen | grep -q "gpu001" && screen | grep -q "127\.0\.0\.1" && screen | grep -q "chrony-sim"; }
	tap_wait 20 grid
	ok $? "live dashboard: the grid shows the nodes Prometheus knows"
	refreshes() { [ "$(grep -c "refresh done" "$tmp/tui.log" 2>/dev/null)" -ge 3 ]; }
	tap_wait 20 refreshes
	ok $? "live dashboard: Prometheus is read again every interval ($(grep -c "refresh done" "$tmp/tui.log") refreshes)"
	# the drill-down of chrony-sim: its last 24 h from query_range (the
	# TSDB holds the seconds since the first scrape, a point a second)
	tm send-keys -t t / && tm send-keys -t t -l chrony-sim && tm send-keys -t t Enter
	sleep 1
	tm send-keys -t t Enter
	history() { screen | grep -q "History from Prometheus (last 24 h)" &&
		screen | grep -q "Offset (node - reference), chrony_exporter, every [0-9]* s  ([0-9]* samples)"; }
	tap_wait 20 history
	ok $? "drill-down: chrony-sim's offset over 24 h from query_range, plotted ($(screen | grep -o 'chrony_exporter, every [0-9]* s  ([0-9]* samples)' | head -1))"
	# the plot may sit below the first page: under load the node gathers
	# more events and connection lines above it, so page down to find it
	axis() { screen | grep -q -- "-123.000 µs ┤"; }
	found=1
	for page in 1 2 3 4; do
		tap_wait 3 axis && { found=0; break; }
		tm send-keys -t t NPage
	done
	[ "$found" = 0 ]
	ok $? "drill-down: the plot's axis at chrony-sim's offset (-123 us; page $page)"
	grep -q "chrony-sim: offset history: answered" "$tmp/tui.log" &&
		grep -q "chrony-sim: frequency history: answered" "$tmp/tui.log"
	ok $? "drill-down: both range queries (offset, frequency) answered with a series (--log)"
	tm send-keys -t t Escape
	tm send-keys -t t q
	gone() { screen | grep -q "^EXIT=0"; }
	tap_wait 10 gone
	ok $? "live dashboard: q quits with 0"
	tm kill-server >/dev/null 2>&1
else
	diag "tmux not installed: the dashboard is not tried"
fi

# --- secrets from a file, never in --log
printf 's3cret-token\n' >"$tmp/token"
timeout 30 "$bin" --from-prometheus "$fake/auth" --prometheus-bearer-token-file "$tmp/token" --once \
	--log "$tmp/auth.log" >/dev/null 2>"$tmp/auth.err"
rc=$?
[ $rc = 0 ] && [ ! -s "$tmp/auth.err" ]
ok $? "a bearer token read from a file is sent (got $rc: $(head -c 200 "$tmp/auth.err"))"
! grep -q s3cret "$tmp/auth.log" && grep -q "refresh done" "$tmp/auth.log"
ok $? "the token is not in --log"
check_source_error "no token: the server's 401 said" 69 "unauthorized" --from-prometheus "$fake/auth" --once
timeout 5 "$bin" --from-prometheus "http://u:p@127.0.0.1:$p_prom" --once >/dev/null 2>"$tmp/u.err"
[ $? = 64 ] && grep -q "credentials go in" "$tmp/u.err"
ok $? "user:password in the URL is refused (exit 64)"

done_testing
