#!/bin/bash
# prometheus_ssh_detail.sh - from a Prometheus node to its SSH detail
# (`--ssh-detail HOSTLIST`, `S` in the drill-down), against real components:
# Debian's prometheus scraping a real prometheus-node-exporter whose
# textfile collector serves chrony_exporter-format series for five simulated
# nodes, one of which (sshnode) is also a real lab node: a network namespace
# of its own with a real sshd and a real `chronyd -x` following a second
# chronyd -x (the NTP server) in another namespace.  The other names are
# SSH failures of each kind: badauth (the same sshd, a key it does not
# know), refused (a closed port), silent (a port that accepts and never
# speaks SSH) and promonly (never asked for).  Each is reached by its
# Prometheus name through -F's Host blocks, -l and --known-hosts, as an
# SSH run would.
#
# Checked: --once --json --ssh-detail adds "ssh_detail" beside each listed
# node's Prometheus values (which it leaves alone), with the real chronyd's
# sources, and each failure's reason; the polls run side by side (the whole
# run takes about one --connect-timeout, not one per node); --transport ssh
# goes through the system ssh client; without --ssh-detail the JSON has no
# such key; the options it needs are checked; in the live dashboard (tmux),
# S in sshnode's drill-down shows Prometheus's and SSH's values side by
# side and the SSH poll's own sections, and in badauth's its auth error.
# Every process is ours and stopped by its PID, even on failure.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_ports.sh"
. "$(dirname "$0")/lab_prometheus.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip prometheus prometheus-node-exporter /usr/sbin/chronyd chronyc /usr/sbin/sshd setpriv ssh-keygen \
	jq curl python3; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin psd
ns_s=${lab_tag}s
ns_n=${lab_tag}n
lab_on_cleanup() {
	[ -S "$tmp/tmux.sock" ] && tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
}
unset SSH_AUTH_SOCK # the operator's agent must not change what is tested

# shellcheck disable=SC2046 # one word per port
set -- $(lab_free_ports 5)
p_text=$1 p_prom=$2 p_closed=$3 p_silent=$4 p_uname=$5
url=http://127.0.0.1:$p_prom

# --- the lab node: sshd and a chronyd following the NTP server's
lab_subnet 10.202.0-9
lab_netns s n
lab_link "$ns_s" "$ns_n" ntp0 1 2 30
lab_uplink "$ns_n" ssh0 9 10 30
cat >"$tmp/server.conf" <<EOF
local stratum 2
allow $subnet.0/24
bindaddress $subnet.1
cmdport 0
bindcmdaddress $tmp/server.sock
pidfile $tmp/server.pid
EOF
cat >"$tmp/client.conf" <<EOF
server $subnet.1 iburst minpoll -4 maxpoll -4
port 0
cmdport 0
bindcmdaddress $tmp/chronyd.sock
pidfile $tmp/client.pid
driftfile $tmp/client.drift
EOF
# neither can steer this machine's clock
ip netns exec "$ns_s" setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -u root -d -f "$tmp/server.conf" \
	>"$tmp/server.log" 2>&1 &
lab_pid $!
ip netns exec "$ns_n" setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -u root -d -f "$tmp/client.conf" \
	>"$tmp/client.log" 2>&1 &
lab_pid $!
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec %s -h %s "$@"\n' "$(command -v chronyc)" "$tmp/chronyd.sock" >"$tmp/bin/chronyc"
chmod 0755 "$tmp/bin/chronyc"
lab_sshd_config "$tmp" "$subnet.10" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin" || exit 1
lab_pidfile "$tmp/sshd.pid"
ip netns exec "$ns_n" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || skip_all "sshd did not start"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/stranger" || exit 1
# a port that accepts and never speaks SSH
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
held=[]
while True:
	c, _ = s.accept(); held.append(c)' "$p_silent" >/dev/null 2>&1 &
lab_pid $!
# the Prometheus names, as an operator's ssh config would map them
cat >"$tmp/ssh_config" <<EOF
Host sshnode
	HostName $subnet.10
	IdentityFile $tmp/id
	IdentitiesOnly yes
Host badauth
	HostName $subnet.10
	IdentityFile $tmp/stranger
	IdentitiesOnly yes
Host refused
	HostName 127.0.0.1
	Port $p_closed
	IdentityFile $tmp/id
Host silent
	HostName 127.0.0.1
	Port $p_silent
	IdentityFile $tmp/id
EOF
ssh_opts="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -l root --connect-timeout 3"

synced() { ip netns exec "$ns_n" "$tmp/bin/chronyc" -c -n sources 2>/dev/null | grep -q "^\^,\*,$subnet\.1,"; }
tap_wait 40 synced
ok $? "the lab node's chronyd selected the NTP server $subnet.1"

# --- Prometheus: chrony_exporter's series for the five names
mkdir -p "$tmp/tf" "$tmp/data"
{
	for n in sshnode badauth refused silent promonly; do
		l="instance=\"$n:9123\""
		echo "chrony_up{$l} 1"
		echo "chrony_tracking_system_time_seconds{$l} 0.000321"
		echo "chrony_tracking_frequency_ppms{$l} -7.5"
		echo "chrony_tracking_stratum{$l} 4"
		echo "chrony_tracking_info{$l,tracking_address=\"192.0.2.7\",tracking_name=\"promref\",tracking_refid=\"C0000207\"} 1"
	done
	# linuxptp-daemon's PTP offset of sshnode, for its drill-down's history
	l='node="sshnode"'
	echo "openshift_ptp_offset_ns{from=\"master\",iface=\"ens1fx\",$l,process=\"ptp4l\"} -42"
	echo "openshift_ptp_process_status{config=\"ptp4l.0.config\",$l,process=\"ptp4l\"} 1"
} >"$tmp/tf/chrony.prom"
# a node named by node_uname_info's nodename (this machine's): chrony
# series on the instance of the exporter that has node_uname_info
hn=$(uname -n)
mkdir -p "$tmp/tf-uname"
{
	echo "chrony_up 1"
	echo "chrony_tracking_system_time_seconds 0.000077"
	echo "chrony_tracking_frequency_ppms 3.25"
	echo "chrony_tracking_stratum 3"
} >"$tmp/tf-uname/chrony.prom"
lab_prom_config "$tmp/prometheus.yml" "$p_text"
cat >>"$tmp/prometheus.yml" <<EOF
  - job_name: uname
    static_configs:
      - targets: ['127.0.0.1:$p_uname']
EOF
prometheus-node-exporter --web.listen-address=127.0.0.1:$p_text --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/tf" >"$tmp/text.log" 2>&1 &
lab_pid $!
prometheus-node-exporter --web.listen-address=127.0.0.1:$p_uname --collector.disable-defaults --collector.textfile \
	--collector.uname --collector.textfile.directory="$tmp/tf-uname" >"$tmp/uname.log" 2>&1 &
lab_pid $!
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address=127.0.0.1:$p_prom >"$tmp/prom.log" 2>&1 &
lab_pid $!
query() { curl -s -G "$url/api/v1/query" --data-urlencode "query=$1"; }
scraped() { [ "$(query 'count(chrony_tracking_stratum)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 6 ] &&
	[ "$(query 'count(node_uname_info)' | jq -r '.data.result[0].value[1]' 2>/dev/null)" = 1 ]; }
tap_wait 60 scraped
ok $? "prometheus scraped the six nodes' chrony series and node_uname_info"

# --- --once --json --ssh-detail
json=$tmp/once.json
start=$(date +%s.%N)
# shellcheck disable=SC2086
timeout 40 "$bin" --from-prometheus "$url" --once --json --timeout 8 $ssh_opts \
	--ssh-detail 'sshnode,badauth,refused,silent' >"$json" 2>"$tmp/once.err"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ $rc = 0 ] && jq -e . "$json" >/dev/null
ok $? "--once --json --ssh-detail: exit 0, one JSON document (got $rc in $took s: $(head -c 300 "$tmp/once.err"))"
node() { jq -c --arg h "$1" '.nodes[] | select(.host == $h)' "$json"; }
[ "$(node sshnode | jq -c '[.chrony.system_time_offset_s, .chrony.stratum, .chrony.reference_name]')" = \
	'[-0.000321,4,"promref"]' ]
ok $? "sshnode's Prometheus values stay as Prometheus says ($(node sshnode | jq -c '[.chrony.system_time_offset_s, .chrony.stratum, .chrony.reference_name]'))"
[ "$(node sshnode | jq -r '.ssh_detail.reachable')" = true ] &&
	[ "$(node sshnode | jq -r '.ssh_detail.finished')" = true ] &&
	[ "$(node sshnode | jq -r '.ssh_detail.error')" = null ]
ok $? "sshnode's ssh_detail: answered ($(node sshnode | jq -c '.ssh_detail | {reachable, error}'))"
[ "$(node sshnode | jq -c "[.ssh_detail.chrony.sources[] | select(.name == \"$subnet.1\") | .state]")" = '["selected"]' ] &&
	[ "$(node sshnode | jq -r '.ssh_detail.chrony.stratum')" = 3 ]
ok $? "... with the real chronyd's detail: source $subnet.1 selected, stratum 3 ($(node sshnode | jq -c '[.ssh_detail.chrony.stratum, [.ssh_detail.chrony.sources[]? | [.name, .state]]]'))"
node sshnode | jq -e '.ssh_detail.observed_at | type == "string"' >/dev/null &&
	node sshnode | jq -e '.ssh_detail.asked_at | type == "string"' >/dev/null
ok $? "... when it was asked and observed"
node badauth | jq -r '.ssh_detail.error' | grep -qi "auth"
ok $? "badauth: the SSH poll's error says authentication ($(node badauth | jq -r .ssh_detail.error | head -c 200))"
[ "$(node badauth | jq -r .reachable)" = true ] && [ "$(node badauth | jq -r .chrony.stratum)" = 4 ]
ok $? "badauth: its Prometheus view is untouched by the failed poll"
node refused | jq -r '.ssh_detail.error' | grep -qi "refused"
ok $? "refused: connection refused ($(node refused | jq -r .ssh_detail.error | head -c 200))"
node silent | jq -r '.ssh_detail.error' | grep -qiE "timed out|timeout|deadline"
ok $? "silent: timed out ($(node silent | jq -r .ssh_detail.error | head -c 200))"
[ "$(node promonly | jq -c .ssh_detail)" = null ] && [ "$(node promonly | jq -r .reachable)" = true ]
ok $? "promonly (not listed): ssh_detail is null"
awk -v t="$took" 'BEGIN { exit !(t < 8) }'
ok $? "the four polls ran side by side: $took s in all (connect-timeout 3 s)"

# shellcheck disable=SC2086
timeout 30 "$bin" --from-prometheus "$url" --once --json $ssh_opts --ssh-detail 'sshnode,nosuch' \
	--transport ssh >"$json" 2>"$tmp/exec.err"
rc=$?
[ $rc = 0 ] && [ "$(node sshnode | jq -r .ssh_detail.reachable)" = true ] &&
	[ "$(node sshnode | jq -c "[.ssh_detail.chrony.sources[] | select(.name == \"$subnet.1\") | .state]")" = '["selected"]' ]
ok $? "--transport ssh: the system ssh client polls sshnode (got $rc: $(node sshnode | jq -c .ssh_detail.error))"
grep -q "1 of its names is not among the nodes Prometheus gave" "$tmp/exec.err"
ok $? "a listed name Prometheus did not give is said on stderr ($(head -c 200 "$tmp/exec.err"))"

timeout 30 "$bin" --from-prometheus "$url" --once --json >"$json" 2>/dev/null
[ "$(jq '[.nodes[] | has("ssh_detail")] | any' "$json")" = false ]
ok $? "without --ssh-detail the JSON has no ssh_detail key"

# --- the dashboard: S in the drill-down
if command -v tmux >/dev/null 2>&1; then
	tm() { tmux -S "$tmp/tmux.sock" "$@"; }
	sess=t
	tm -f /dev/null new-session -d -s t -x 160 -y 60 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $url -d 1 --log $tmp/tui.log $ssh_opts -w sshnode,badauth,promonly; echo EXIT=\$?; sleep 60"
	screen() { tm capture-pane -p -t "$sess" 2>/dev/null; }
	grid() { screen | grep -q "sshnode" && screen | grep -q "badauth"; }
	tap_wait 20 grid
	ok $? "live dashboard: the grid shows the Prometheus nodes"
	tm send-keys -t "$sess" / && tm send-keys -t "$sess" -l sshnode && tm send-keys -t "$sess" Enter
	sleep 1
	tm send-keys -t "$sess" Enter
	# seek PATTERN: from the top of the drill-down, a page at a time
	seek() {
		tm send-keys -t "$sess" g
		sleep 0.2
		for _ in $(seq 30); do
			screen | grep -qE -- "$1" && return 0
			tm send-keys -t "$sess" Space
			sleep 0.2
		done
		return 1
	}
	sleep 1
	seek "not polled: S polls this node once over SSH"
	ok $? "drill-down: before S, it says S polls the node over SSH (at the end of the report)"
	tm send-keys -t "$sess" g
	sleep 0.5
	top_has_it=$(screen | grep -c "Over SSH")
	tm send-keys -t "$sess" S
	shown() { screen | grep -q "Over SSH (one poll; S: poll again)"; }
	tap_wait 5 shown
	ok $? "S at the top of the report: it scrolls to its Over SSH section (not on the top page before: $top_has_it)"
	[ "$top_has_it" = 0 ]
	ok $? "... which was not on the report's first page"
	answered() { grep -q "ssh detail: sshnode: answered" "$tmp/tui.log"; }
	tap_wait 20 answered
	ok $? "S: one SSH poll of sshnode, answered (--log)"
	seek "Poll +: asked at [0-9:]+, answered in"
	ok $? "drill-down: the Over SSH section says the poll answered"
	seek "value +from Prometheus +over SSH" && screen | grep -qE "source +promref +$subnet\.1"
	ok $? "drill-down: Prometheus's and SSH's values side by side (source promref | $subnet.1)"
	seek "chrony sources \(over SSH\)" && screen | grep -q "$subnet.1"
	ok $? "drill-down: the SSH poll's chrony sources, marked (over SSH)"
	seek "Raw output of the last poll \(over SSH\)"
	ok $? "drill-down: the SSH poll's raw answer, marked (over SSH)"
	seek "\(from Prometheus\)"
	ok $? "drill-down: the Prometheus node's own sections are marked (from Prometheus)"
	# badauth: the error, clearly
	tm send-keys -t "$sess" Escape
	sleep 0.3
	tm send-keys -t "$sess" / && tm send-keys -t "$sess" C-u && tm send-keys -t "$sess" -l badauth && tm send-keys -t "$sess" Enter
	sleep 1
	tm send-keys -t "$sess" Enter
	sleep 0.5
	tm send-keys -t "$sess" S
	failed() { grep -q "ssh detail: badauth: auth" "$tmp/tui.log"; }
	tap_wait 20 failed
	ok $? "S on badauth: the poll ended ($(grep "ssh detail: badauth:" "$tmp/tui.log" | tail -1 | cut -c1-160))"
	seek "Poll +: asked at [0-9:]+, failed after" && screen | grep -qE "Error +: auth: authentication as root"
	ok $? "S on badauth: the poll failed, its auth error shown ($(screen | grep -E 'Error +:' | head -1))"
	tm send-keys -t "$sess" Escape
	tm send-keys -t "$sess" q
	gone() { screen | grep -q "^EXIT=0"; }
	tap_wait 10 gone
	ok $? "live dashboard: q quits with 0"
	# --- history in the drill-down (query_range): a node named by
	# nodename (the join on node_uname_info), sshnode's PTP offset
	sess=h
	tm new-session -d -s h -x 160 -y 60 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $url --prometheus-node-label nodename -d 1 --log $tmp/hist.log -w $hn,sshnode; echo EXIT=\$?; sleep 60"
	grid() { screen | grep -q "sshnode" && screen | grep -qF "$hn"; }
	tap_wait 20 grid
	ok $? "--prometheus-node-label nodename: the grid shows $hn (node_uname_info's nodename) and sshnode"
	tm send-keys -t h / && tm send-keys -t h -l "^$hn" && tm send-keys -t h Enter
	sleep 1
	tm send-keys -t h Enter
	hist() { grep -qF "$hn: offset history: answered" "$tmp/hist.log" &&
		grep -qF "$hn: frequency history: answered" "$tmp/hist.log"; }
	tap_wait 20 hist
	ok $? "$hn (named by nodename): offset and frequency history answered ($(grep -F "$hn:" "$tmp/hist.log" | grep history | cut -c29- | tr '\n' ';'))"
	seek "Offset \(node - reference\), chrony_exporter, every [0-9]+ s +\([0-9]+ samples\)" &&
		screen | grep -q -- "-77.000 µs ┤"
	ok $? "... and plotted: chrony_exporter's offset, the axis at -77 us"
	tm send-keys -t h Escape
	sleep 0.3
	tm send-keys -t h / && tm send-keys -t h C-u && tm send-keys -t h -l sshnode && tm send-keys -t h Enter
	sleep 1
	tm send-keys -t h Enter
	ptp() { grep -q "sshnode: PTP offset history: answered" "$tmp/hist.log"; }
	tap_wait 20 ptp
	ok $? "sshnode: PTP offset history answered (--log)"
	seek "PTP offset from master \(node - master\), linuxptp-daemon, every [0-9]+ s" &&
		screen | grep -q -- "-42 ns ┤"
	ok $? "... and plotted from linuxptp-daemon's series, the axis at -42 ns"
	tm send-keys -t h q
	sleep 0.5
	# a --config group's own servers and selector: the command line's
	# selector matches nothing, the group's matches sshnode's series
	printf '{"groups": [{"name": "g", "hosts": "sshnode",\n  "prometheus": {"url": "%s", "selector": "{job=\\"textfile\\"}"}}]}\n' \
		"$url" >"$tmp/groups.json"
	sess=g
	tm new-session -d -s g -x 160 -y 60 \
		"env LANG=C.UTF-8 TERM=xterm-256color $bin --from-prometheus $url --prometheus-selector '{job=\"nothing\"}' --config $tmp/groups.json -d 1 --log $tmp/group.log -w sshnode; echo EXIT=\$?; sleep 60"
	grid() { screen | grep -q "sshnode"; }
	tap_wait 20 grid
	tm send-keys -t g Enter
	grouped() { grep -q "sshnode: offset history: answered" "$tmp/group.log"; }
	tap_wait 20 grouped
	ok $? "a --config group's node: its history asked with the group's selector ($(grep "sshnode: offset history" "$tmp/group.log" | cut -c29- | head -1))"
	tm send-keys -t g q
	tm kill-server >/dev/null 2>&1
else
	diag "tmux not installed: the dashboard is not tried"
fi

# --- the command line (after the lab: skip_all may come before it)
"$bin" --ssh-detail n1 n1 >/dev/null 2>"$tmp/cli.err"
rc=$?
[ $rc = 64 ] && grep -q "goes with --from-prometheus" "$tmp/cli.err"
ok $? "--ssh-detail without --from-prometheus: exit 64 (got $rc)"
"$bin" --from-prometheus http://127.0.0.1:9 --ssh-detail n1 --check >/dev/null 2>"$tmp/cli.err"
rc=$?
[ $rc = 64 ] && grep -q "shows in --once --json" "$tmp/cli.err"
ok $? "--ssh-detail with --check: exit 64 (got $rc)"
"$bin" --from-prometheus http://127.0.0.1:9 --ssh-detail 'n[1-' --once --json >/dev/null \
	2>"$tmp/cli.err"
rc=$?
[ $rc = 64 ] && grep -q "is not a host list" "$tmp/cli.err"
ok $? "--ssh-detail with a broken host list: exit 64 (got $rc)"


done_testing
