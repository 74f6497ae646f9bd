#!/bin/bash
# ptp_nosync_lab.sh - stop the master: `ptp.no_sync` before ptp4l leaves SLAVE.
#
# A real ptp4l master and slave (-S, software timestamping, both under
# `setpriv --bounding-set -sys_time`: neither can steer a clock) on a veth
# pair between two network namespaces of its own, the slave's node reached
# through a real sshd.  The slave's announceReceiptTimeout is 20 (x 2^0 s):
# after the master stops, ptp4l keeps saying SLAVE for 20 s, which is the
# window synctop must use.  Limits in the lab: warn above 3 sync intervals
# (3 s), crit above 0.4 announce receipt timeouts (8 s, set in the config so
# that crit comes well before ptp4l gives up at 20 s).
#
# Checked: with the master up, --once --json reports a small
# last_sync_age_s (the age of the last Sync against the node's
# CLOCK_REALTIME) and no ptp.no_sync; after the master is killed, repeated
# --once --json polls show ptp.no_sync warn and then crit while the same
# JSON still says SLAVE; the live view's Prometheus textfile (tmux, -d 1)
# shows the finding and synctop_ptp_sync_age_seconds while
# synctop_ptp_port_state says SLAVE.  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
. "$(dirname "$0")/lab_ptp.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip /usr/sbin/ptp4l /usr/sbin/pmc /usr/sbin/sshd setpriv ssh-keygen jq od; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin ns
ns_m=${lab_tag}m
ns_n=${lab_tag}n
lab_on_cleanup() {
	[ -S "$tmp/tmux.sock" ] && tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
}

# one of this test's /24s that nothing here uses
lab_subnet 10.201.0-9
lab_netns m n
# ptp4l's UDPv4 transport needs an address on the link: without one the
# slave never hears the master's Announce messages here
lab_link "$ns_m" "$ns_n" vptp 1 2 30
# the client's way in
lab_uplink "$ns_n" ssh0 9 10 30

lab_ptp4l_conf "$tmp/ptp4l-m.conf" "$tmp/ptp4l-m.sock" master
lab_ptp4l_conf "$tmp/ptp4l-n.conf" "$tmp/ptp4l-n.sock" slave "announceReceiptTimeout 20"
for who in m n; do
	ip netns exec "$lab_tag$who" setpriv --bounding-set -sys_time \
		/usr/sbin/ptp4l -f "$tmp/ptp4l-$who.conf" -i vptp -S -m >"$tmp/ptp4l-$who.log" 2>&1 &
	lab_pid $!
	[ $who = m ] && master_pid=$!
done
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec /usr/sbin/pmc -s %s "$@"\n' "$tmp/ptp4l-n.sock" >"$tmp/bin/pmc"
chmod 0755 "$tmp/bin/pmc"

lab_sshd_config "$tmp" "$subnet.10" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin" || exit 1
lab_pidfile "$tmp/sshd.pid"
ip netns exec "$ns_n" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || skip_all "sshd did not start"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
# chronyd is not this test's business; crit at 0.4 x 20 s = 8 s (see the top)
cat >"$tmp/synctop.json" <<EOF
{"defaults": {"expect": {"chrony": "no"},
              "thresholds": {"ptp_sync_age_warn_intervals": 3, "ptp_sync_age_crit_receipt_timeouts": 0.4}}}
EOF
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json"
node=".nodes[0]"
nosync="[$node.findings[] | select(.code == \"ptp.no_sync\") | .severity] | first // \"none\""

lab_ptp_wait "$ns_n" SLAVE "$tmp/ptp4l-n.sock"
ok $? "the lab node's ptp4l is SLAVE on vptp (it was $lab_ptp_states)"

# shellcheck disable=SC2086
"$bin" --once --json --clock-check 0 $common "root@$subnet.10" >"$tmp/before.json" 2>"$tmp/err"
ok $? "--once --json ran ($(head -c 200 "$tmp/err"))"
age=$(jq -r "$node.ptp.last_sync_age_s" "$tmp/before.json")
jq -e "$node.ptp.last_sync_age_s | type == \"number\" and . >= 0 and . < 3" "$tmp/before.json" >/dev/null
ok $? "master up: last_sync_age_s is a number under 3 s (got $age)"
[ "$(jq -r "$nosync" "$tmp/before.json")" = none ]
ok $? "master up: no ptp.no_sync: $(jq -c "[$node.findings[].code]" "$tmp/before.json")"
jq -e "$node.ptp.ports[0].rx_sync > 0 and $node.ptp.ports[0].log_announce_interval == 0 and
	$node.ptp.ports[0].announce_receipt_timeout == 20" "$tmp/before.json" >/dev/null
ok $? "PORT_STATS_NP and PORT_DATA_SET reach the JSON: $(jq -c "$node.ptp.ports[0] | {rx_sync, announce_receipt_timeout}" "$tmp/before.json")"

# the live view, writing its Prometheus textfile every sweep
live=no
if command -v tmux >/dev/null 2>&1; then
	tmux -S "$tmp/tmux.sock" -f /dev/null new-session -d -s t -x 160 -y 40 \
		"$bin -d 1 --clock-check 0 --prometheus $tmp/live.prom $common root@$subnet.10 2>$tmp/live.err" &&
		live=yes
fi
if [ $live = yes ]; then
	for _ in $(seq 20); do
		grep -q '^synctop_ptp_sync_age_seconds{' "$tmp/live.prom" 2>/dev/null && break
		sleep 0.5
	done
	grep -q '^synctop_ptp_sync_age_seconds{' "$tmp/live.prom" 2>/dev/null
	ok $? "live: the textfile has synctop_ptp_sync_age_seconds"
fi

kill "$master_pid"
wait "$master_pid" 2>/dev/null
stopped=$(date +%s.%N)

# poll quickly: warn after 3 s, crit after 8 s, ptp4l leaves SLAVE after 20 s
warn_slave=no
crit_slave=no
live_seen=no
crit_age=
for _ in $(seq 60); do
	# shellcheck disable=SC2086
	"$bin" --once --json --clock-check 0 $common "root@$subnet.10" >"$tmp/poll.json" 2>/dev/null
	port=$(jq -r "$node.ptp.port_state" "$tmp/poll.json")
	sev=$(jq -r "$nosync" "$tmp/poll.json")
	t=$(awk -v a="$stopped" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "# +$t s: port $port, ptp.no_sync $sev, last_sync_age_s $(jq -r "$node.ptp.last_sync_age_s" "$tmp/poll.json")"
	if [ "$port" = SLAVE ] && [ "$sev" = warn ]; then
		warn_slave=yes
	fi
	if [ "$port" = SLAVE ] && [ "$sev" = crit ]; then
		crit_slave=yes
		crit_age=$(jq -r "$node.ptp.last_sync_age_s" "$tmp/poll.json")
		cp "$tmp/poll.json" "$tmp/crit.json"
	fi
	# one copy: the textfile is replaced atomically every sweep
	if [ $live = yes ] && cp "$tmp/live.prom" "$tmp/sweep.prom" 2>/dev/null &&
		grep -q '^synctop_finding{.*code="ptp.no_sync"' "$tmp/sweep.prom" &&
		grep -q '^synctop_ptp_port_state{.*state="SLAVE"' "$tmp/sweep.prom"; then
		live_seen=yes
	fi
	[ $crit_slave = yes ] && { [ $live = no ] || [ $live_seen = yes ]; } && break
	[ "$port" != SLAVE ] && [ "$port" != null ] && break
	sleep 0.5
done
[ $warn_slave = yes ]
ok $? "ptp.no_sync warn while the JSON still says SLAVE"
[ $crit_slave = yes ]
ok $? "ptp.no_sync crit while the JSON still says SLAVE"
awk -v a="${crit_age:-0}" 'BEGIN { exit !(a > 8 && a < 20) }'
ok $? "at crit the last Sync is 8-20 s old (got $crit_age)"
if [ -s "$tmp/crit.json" ]; then
	[ "$(jq -r "$node.status" "$tmp/crit.json")" = crit ]
	ok $? "the node is crit"
fi
if [ $live = yes ]; then
	[ $live_seen = yes ]
	ok $? "live: the textfile shows ptp.no_sync while synctop_ptp_port_state says SLAVE"
fi
done_testing
