#!/bin/sh
# prometheus_robust.sh - `--from-prometheus` when the server misbehaves.
# The real thing wherever it can answer: Debian's prometheus (2.42) serving
# HTTPS with a certificate from a CA made here with openssl and HTTP basic
# auth (--web.config.file: tls_server_config, basic_auth_users), scraping a
# real prometheus-node-exporter whose textfile collector serves
# chrony_exporter-format series for two simulated nodes (honor_labels).
# Against it: TLS without and with --prometheus-ca, no or a wrong password,
# the password kept out of --log and ps, a selector it refuses (status:
# error in the JSON), and the server stopped and started again under a live
# synctop (its nodes go unknown with the source's error, then come back).
# prometheus_fake.py only for what the real server cannot be made to do: an
# HTTP 500, an answer cut mid-body, an answer that never ends (the byte
# limit), warnings, a server slower than --timeout (the dashboard in tmux
# keeps answering keys meanwhile), a bearer token (Prometheus has no bearer
# auth of its own).  Every process is ours and is stopped by its PID.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_ports.sh"
. "$(dirname "$0")/lab_prometheus.sh"
bin=${SYNCTOP_BIN:?}
here=$(cd "$(dirname "$0")" && pwd)

skip_rest() {
	diag "SKIP: $*"
	done_testing
	exit $?
}
lab_prom_tools skip_rest python3 jq curl openssl
# basic_auth_users wants a bcrypt hash: libxcrypt's, through python's crypt;
# the lowest cost, or every refused query costs the server a quarter second
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("pr0m-s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' 2>/dev/null)
case $hash in
'$2'*) ;;
*) skip_rest "no bcrypt through python3's crypt module" ;;
esac

lab_prom_on_cleanup() {
	[ -S "$tmp/tmux.sock" ] && tmux -S "$tmp/tmux.sock" kill-server >/dev/null 2>&1
}
lab_prom_begin

# shellcheck disable=SC2046 # one word per port
set -- $(lab_free_ports 2)
p_text=$1 p_prom=$2
url=https://127.0.0.1:$p_prom

# --- a CA, and the server's certificate for 127.0.0.1 signed by it
(
	cd "$tmp" &&
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=synctop test CA" \
			-keyout ca.key -out ca.pem &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" -keyout srv.key -out srv.csr &&
		printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >srv.ext &&
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
			-extfile srv.ext -out srv.pem
) >"$tmp/openssl.log" 2>&1
ok $? "openssl made a CA and a certificate for 127.0.0.1 signed by it"

mkdir -p "$tmp/tf" "$tmp/data"
{
	for n in rb-1 rb-2; do
		i="instance=\"$n:9123\""
		echo "chrony_tracking_system_time_seconds{$i} 0.000012"
		echo "chrony_tracking_last_offset_seconds{$i} -2.1e-06"
		echo "chrony_tracking_frequency_ppms{$i} -12.5"
		echo "chrony_tracking_skew_ppms{$i} 0.02"
		echo "chrony_tracking_stratum{$i} 2"
		echo "chrony_tracking_root_delay_seconds{$i} 0.004"
		echo "chrony_tracking_root_dispersion_seconds{$i} 0.0002"
		echo "chrony_tracking_info{$i,tracking_address=\"192.168.0.1\",tracking_name=\"ntp1\",tracking_refid=\"C0A80001\"} 1"
		echo "chrony_up{$i} 1"
	done
	# rb-2's kernel clock as chronyd without rtcsync leaves it: unsynchronised
	# (STA_UNSYNC), maxerror at its 16 s cap; chrony's series decide
	i='instance="rb-2:9100"'
	echo "node_timex_sync_status{$i} 0"
	echo "node_timex_status{$i} 8257"
	echo "node_timex_maxerror_seconds{$i} 16"
	echo "node_timex_offset_seconds{$i} 0"
	echo "node_timex_frequency_adjustment_ratio{$i} 1.0000125"
} >"$tmp/tf/chrony.prom"
cat >"$tmp/web.yml" <<EOT
tls_server_config:
  cert_file: $tmp/srv.pem
  key_file: $tmp/srv.key
basic_auth_users:
  synctop: '$hash'
EOT
lab_prom_config "$tmp/prometheus.yml" "$p_text"
printf 'synctop:pr0m-s3cret\n' >"$tmp/basic"
printf 'synctop:wrong\n' >"$tmp/basic-wrong"
printf 's3cret-token\n' >"$tmp/token"
chmod 600 "$tmp/basic" "$tmp/token"

"$exporter" --web.listen-address=127.0.0.1:$p_text --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf" >"$tmp/text.log" 2>&1 &
pids="$pids $!"
start_prometheus() {
	"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
		--web.config.file="$tmp/web.yml" --web.listen-address=127.0.0.1:$p_prom >>"$tmp/prom.log" 2>&1 &
	prom_pid=$!
	pids="$pids $prom_pid"
}
start_prometheus
python3 "$here/prometheus_fake.py" "$tmp/fake.port" "$url" "$tmp/ca.pem" >"$tmp/fake.log" 2>&1 &
pids="$pids $!"

query() { curl -s --cacert "$tmp/ca.pem" -u synctop:pr0m-s3cret -G "$url/api/v1/query" --data-urlencode "query=$1"; }
scraped() {
	[ "$(query 'count(chrony_tracking_stratum)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 2 ] &&
		[ "$(query 'count(node_timex_status)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 1 ]
}
tap_wait 40 scraped
ok $? "prometheus, over https with basic auth, scraped the exporter"
tap_wait 10 test -s "$tmp/fake.port"
fake=http://127.0.0.1:$(cat "$tmp/fake.port" 2>/dev/null)
tls="--prometheus-ca $tmp/ca.pem --prometheus-basic-auth-file $tmp/basic"

# run description expected-exit synctop-args...: stdout in $tmp/out,
# stderr in $tmp/err, never a hang (--timeout is 10 s; a loaded machine
# may need most of it)
run() {
	desc=$1 want=$2
	shift 2
	start=$(date +%s)
	timeout 30 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	took=$(($(date +%s) - start))
	[ $rc = "$want" ] && [ $took -le 25 ]
	ok $? "$desc: exit $want in ${took}s (got $rc: $(head -c 300 "$tmp/err"))"
}
node() { jq -c --arg h "$1" '.nodes[] | select(.host == $h)' "$tmp/out"; }

# --- TLS and basic auth, on the real server
run "https without --prometheus-ca (a CA the system does not know)" 69 --from-prometheus "$url" --once --json
grep -q "certificate" "$tmp/err" && jq -r .source.error "$tmp/out" | grep -q "certificate"
ok $? "... the certificate is the source's error, on stderr and in the JSON ($(jq -c .source "$tmp/out" 2>&1 | head -c 200))"
run "--prometheus-ca, no password" 69 --from-prometheus "$url" --prometheus-ca "$tmp/ca.pem" --once --json
grep -q "HTTP 401" "$tmp/err"
ok $? "... Prometheus's 401 said"
run "--prometheus-ca, a wrong password" 69 --from-prometheus "$url" --prometheus-ca "$tmp/ca.pem" \
	--prometheus-basic-auth-file "$tmp/basic-wrong" --once --json
grep -q "HTTP 401" "$tmp/err"
ok $? "... Prometheus's 401 said"
# shellcheck disable=SC2086 # $tls: option words
run "--prometheus-ca and the password from a file" 0 --from-prometheus "$url" $tls --once --json
[ "$(node rb-1 | jq -r .status)" = ok ] && [ "$(node rb-2 | jq -r .chrony.reference_name)" = ntp1 ] &&
	[ "$(node rb-2 | jq -c '[.status, .kernel_clock.synchronised]')" = '["ok",false]' ] &&
	[ "$(jq -c .source "$tmp/out")" = "{\"kind\":\"prometheus\",\"servers\":[\"$url\"],\"answered\":1,\"error\":null}" ]
ok $? "... its nodes, ok, and the source clean in the JSON ($(jq -c .source "$tmp/out"))"
# shellcheck disable=SC2086
run "a selector the real server refuses (status: error)" 69 --from-prometheus "$url" $tls \
	--prometheus-selector '{job=~"("}' -w rb-1 --once --json
jq -r .source.error "$tmp/out" | grep -q "Prometheus says bad_data" &&
	[ "$(node rb-1 | jq -c '[.status, .findings]')" = '["unknown",[]]' ] &&
	node rb-1 | jq -r .error | grep -q "no usable answer from Prometheus: .*bad_data"
ok $? "... 'Prometheus says bad_data' in the JSON's source; rb-1 unknown with it, no findings ($(node rb-1 | jq -c '[.status, .error, [.findings[].code]]'))"

# A server that fails some queries (the three about chrony_exporter's and
# synctop's chrony series; which one the error names first depends on the
# order the answers come in): what it did answer is not judged alone
# (without chrony's answer, rb-2's unsynchronised kernel would be a finding).
# A proxy in front of the real server: it cannot be made to fail one query.
# shellcheck disable=SC2086
run "a server failing the chrony_exporter queries only (proxy)" 69 --from-prometheus "$fake/nochrony" $tls \
	-w rb-1,rb-2 --once --json
[ "$(node rb-2 | jq -c '[.status, .findings]')" = '["unknown",[]]' ] &&
	node rb-2 | jq -r .error | grep -q "^no usable answer from Prometheus: $fake/nochrony: .* query: HTTP 500 (and 2 more queries)" &&
	jq -r .source.error "$tmp/out" | grep -q "$fake/nochrony: .* query: HTTP 500 (and 2 more queries)"
ok $? "... rb-2 unknown with the source's error, no finding ($(node rb-2 | jq -c '[.status, .error, [.findings[].code]]' | head -c 300))"

# --- servers and credentials per group (--config, no --from-prometheus):
# group a reads rb-1 from the real server (TLS, basic auth), group b reads
# rb-2 from the fake with a bearer token; the real server also answers
# about rb-2, but rb-2 is group b's, so a's answer does not show it
cat >"$tmp/groups.json" <<EOT
{"groups": [
  {"name": "a", "hosts": "rb-1",
   "prometheus": {"url": "$url", "ca": "$tmp/ca.pem", "basic_auth_file": "$tmp/basic"}},
  {"name": "b", "hosts": "rb-2",
   "prometheus": {"urls": ["$fake/auth"], "token_file": "$tmp/token"}}]}
EOT
run "--config with a server per group" 0 --config "$tmp/groups.json" --once --json --log "$tmp/groups.log"
[ "$(jq -c '[.nodes[] | [.host, .status]]' "$tmp/out")" = '[["rb-1","ok"]]' ] &&
	[ "$(jq -c '[.source.servers, .source.answered, .source.error]' "$tmp/out")" = "[[\"$url\",\"$fake/auth\"],2,null]" ] &&
	! grep -q "s3cret" "$tmp/groups.log" "$tmp/out" "$tmp/err"
ok $? "... rb-1 from group a's server, nothing from b's, both answered, no secret in --log ($(jq -c '[[.nodes[] | .host], .source]' "$tmp/out" | head -c 300))"
sed 's|"token_file": "[^"]*"|"token_file": "/nonexistent"|' "$tmp/groups.json" >"$tmp/groups-bad.json"
run "--config, group b's token file missing" 64 --config "$tmp/groups-bad.json" --once
grep -q 'group "b": token file /nonexistent: No such file' "$tmp/err"
ok $? "... said with the group's name"
sed 's|, "token_file": "[^"]*"||' "$tmp/groups.json" >"$tmp/groups-notoken.json"
run "--config, group b without its token" 0 --config "$tmp/groups-notoken.json" -w rb-1,rb-2 --once --json
[ "$(jq -c '[.nodes[] | [.host, .status]]' "$tmp/out")" = '[["rb-1","ok"],["rb-2","unknown"]]' ] &&
	jq -r .source.error "$tmp/out" | grep -q "$fake/auth: .*unauthorized"
ok $? "... b's server refuses (the error names it), a's node still ok ($(jq -c '[[.nodes[] | [.host, .status]], .source.error]' "$tmp/out" | head -c 300))"

# --- live, plain text: the server stopped and started again
# shellcheck disable=SC2086
"$bin" --from-prometheus "$url" $tls -d 1 --timeout 2 --log "$tmp/live.log" >"$tmp/live.out" 2>"$tmp/live.err" &
live=$!
pids="$pids $live"
rows() { grep "^$1 " "$tmp/live.out" | tail -n 1; }
tables() { [ "$(grep -c '^rb-1 ' "$tmp/live.out")" -ge 2 ]; }
tap_wait 20 tables
ok $? "live: a table every interval ($(rows rb-1))"
ps -ww -o args= -p "$live" >"$tmp/ps.out"
! grep -q "s3cret" "$tmp/ps.out" "/proc/$live/cmdline" "$tmp/live.log" "$tmp/live.out" "$tmp/live.err" &&
	grep -q "refresh done: 2 nodes" "$tmp/live.log" && grep -q "$tmp/basic" "$tmp/ps.out"
ok $? "the password is neither in ps, nor in --log, nor in the output (only the file's name)"
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
down() { rows rb-1 | grep -q "unknown.*no usable answer from Prometheus.*Couldn't connect"; }
tap_wait 15 down
ok $? "server stopped: its nodes unknown with the source's error ($(rows rb-1 | cut -c 1-160))"
grep -q "Couldn't connect" "$tmp/live.err"
ok $? "... and the source's error on stderr once"
start_prometheus
back() { rows rb-1 | grep -q " ok "; }
tap_wait 30 back
ok $? "server started again: its nodes ok again ($(rows rb-1 | cut -c 1-120))"
grep -q "every server answered again" "$tmp/live.err" && kill -0 "$live"
ok $? "... said on stderr, synctop still running ($(tail -n 2 "$tmp/live.err" | tr '\n' ' '))"
kill -INT "$live"
wait "$live"

# --- live, started while the server is down: it waits for a first answer
# (the rows are the nodes of the first answer) instead of an empty grid
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
# shellcheck disable=SC2086
"$bin" --from-prometheus "$url" $tls -d 1 --timeout 2 >"$tmp/late.out" 2>"$tmp/late.err" &
late=$!
pids="$pids $late"
waiting() { grep -q "no usable answer yet: asking again in 1 s" "$tmp/late.err"; }
tap_wait 10 waiting
ok $? "live, the server down at start: said on stderr ($(head -n 2 "$tmp/late.err" | tr '\n' ' ' | cut -c 1-200))"
start_prometheus
late_rows() { grep "^rb-2 " "$tmp/late.out" | tail -n 1 | grep -q " ok "; }
tap_wait 30 late_rows
ok $? "... its nodes once it answers ($(grep "^rb-2 " "$tmp/late.out" | tail -n 1 | cut -c 1-100))"
kill -INT "$late"
wait "$late"
tap_wait 30 scraped

# --- what only the fake does: each alone, then beside the real server,
# whose nodes must stay as they were (no findings from another's trouble)
fake_case() { # mode exit-alone pattern servers-that-answer-beside
	run "$1 alone" "$2" --from-prometheus "$fake/$1" --once --json
	jq -r .source.error "$tmp/out" | grep -q -- "$3"
	ok $? "... '$3' is the source's error in the JSON ($(jq -r .source.error "$tmp/out" | head -c 200))"
	# shellcheck disable=SC2086
	run "$1 beside the real server" 0 --from-prometheus "$url" --from-prometheus "$fake/$1" $tls --once --json
	[ "$(node rb-1 | jq -c '[.status, .findings]')" = '["ok",[]]' ] &&
		[ "$(jq -r .source.answered "$tmp/out")" = "$4" ] && jq -r .source.error "$tmp/out" | grep -q -- "$3"
	ok $? "... the real server's nodes ok without findings, the source's error said ($(node rb-1 | jq -c '[.status, [.findings[].code]]'))"
}
fake_case 500 69 "query: HTTP 500" 1
fake_case cut 69 "Transferred a partial file" 1
fake_case warn 0 "warning: store eu-1 did not answer" 2

# --- an answer that never ends: cut at the limit, memory bounded
rss() { # synctop-args...: its peak RSS in KiB (ASan's quarantine off: it
	# keeps freed blocks, 256 MiB of them, which says nothing about synctop)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" python3 -c 'import resource,subprocess,sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
base=$(rss "$bin" --from-prometheus "$fake/warn" --once --json)
sleep 1.2 # the fake's "first query of a refresh" wants a quiet second
big=$(rss "$bin" --from-prometheus "$fake/big" --once --json)
sent=$(curl -s "$fake/sent/")
[ "$sent" -ge $((64 << 20)) ] && [ "$sent" -le $((80 << 20)) ] && [ $((big - base)) -le $((192 << 10)) ]
ok $? "an endless answer: read up to 64 MiB, no further ($((sent >> 20)) MiB sent); peak RSS $((big >> 10)) MiB (an empty answer: $((base >> 10)) MiB)"
sleep 1.2
run "an endless answer (the other queries answered: not used)" 69 --from-prometheus "$fake/big" --once --json
grep -q "answer larger than 64 MiB (narrow --prometheus-selector)" "$tmp/err" &&
	jq -r .source.error "$tmp/out" | grep -q "answer larger than 64 MiB"
ok $? "... said on stderr and in the JSON: the limit and what to do"

# --- slower than --timeout: the dashboard keeps answering
if command -v tmux >/dev/null 2>&1; then
	tm() { tmux -S "$tmp/tmux.sock" "$@"; }
	# shellcheck disable=SC2086
	tm -f /dev/null new-session -d -s t -x 200 -y 40 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $url --from-prometheus $fake/slow $tls --timeout 2 -d 1 --log $tmp/tui.log; echo EXIT=\$?; sleep 60"
	screen() { tm capture-pane -p -t t 2>/dev/null; }
	grid() { screen | grep -q "rb-1" && screen | head -n 3 | grep -q "Timeout was reached"; }
	tap_wait 20 grid
	ok $? "dashboard: the real server's nodes, the slow one's timeout in the header ($(screen | head -n 2 | tr -s ' ' | cut -c 1-200))"
	sleep 1
	in_flight() { [ "$(grep -c "refresh: " "$tmp/tui.log")" -gt "$(grep -c "refresh done" "$tmp/tui.log")" ]; }
	tap_wait 5 in_flight
	tm send-keys -t t '?'
	help() { screen | grep -q "move the selection"; }
	t0=$(date +%s%N)
	tap_wait 1 help
	r=$?
	t1=$(date +%s%N)
	in_flight
	ok $((r + $?)) "dashboard: ? opens the help in $(((t1 - t0) / 1000000)) ms while a query waits on the slow server"
	tm send-keys -t t q
	tm send-keys -t t q
	gone() { screen | grep -q "^EXIT=0"; }
	tap_wait 10 gone
	ok $? "dashboard: q quits with 0"
	tm kill-server >/dev/null 2>&1
else
	diag "tmux not installed: the dashboard is not tried"
fi

# --- a bearer token (the fake: Prometheus has no bearer auth of its own)
"$bin" --from-prometheus "$fake/auth" --prometheus-bearer-token-file "$tmp/token" -d 1 --log "$tmp/bearer.log" \
	>"$tmp/bearer.out" 2>&1 &
bearer=$!
pids="$pids $bearer"
bearer_in() { grep -q "refresh done: 0 nodes from 1 of 1 servers$" "$tmp/bearer.log" 2>/dev/null; }
tap_wait 10 bearer_in
ok $? "a bearer token from a file: the server let us in"
! grep -q s3cret "$tmp/bearer.log" "$tmp/bearer.out" "/proc/$bearer/cmdline" && ! ps -ww -o args= -p "$bearer" | grep -q s3cret
ok $? "... the token is neither in ps, nor in --log, nor in the output"
kill "$bearer"
wait "$bearer" 2>/dev/null

done_testing
