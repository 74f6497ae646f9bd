#!/bin/bash
# ptp_iface_lab.sh - a real ptp4l slave on a software-timestamping interface
# that is not the node's default route, polled through a real sshd with
# `synctop --once --json` and `--check` (issue 15's first fix).
#
# Two network namespaces of its own: "m" runs the ptp4l master, "n" the node
# (ptp4l slaveOnly on vptp, default route on eth0, sshd on a third link to the
# root namespace).  Both ptp4l run -S under `setpriv --bounding-set -sys_time`:
# neither can steer a clock.  Before the fix ethtool looked only at eth0 (the
# default route; --once has one poll) and the node came out ok; it must come
# out warn with nic.no_hw_timestamping on vptp (and ptp.gm_clock_class: the
# master announces ptp4l's default clockClass 248).  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
. "$(dirname "$0")/lab_ptp.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip /usr/sbin/ptp4l /usr/sbin/pmc /usr/sbin/sshd ethtool setpriv unshare mount ssh-keygen jq od; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin sp
ns_m=${lab_tag}m
ns_n=${lab_tag}n

# one of this test's /24s that nothing here uses
lab_subnet 10.200.0-9
lab_netns m n
# the PTP link (not the default route) and the default route's link
lab_link "$ns_n" "$ns_m" vptp
lab_link "$ns_m" "$ns_n" eth0 1 2 30
ip -n "$ns_n" route add default via "$subnet.1" dev eth0
# the client's way in
lab_uplink "$ns_n" ssh0 9 10 30

lab_ptp4l_conf "$tmp/ptp4l-m.conf" "$tmp/ptp4l-m.sock" master
lab_ptp4l_conf "$tmp/ptp4l-n.conf" "$tmp/ptp4l-n.sock" slave
ip netns exec "$ns_m" setpriv --bounding-set -sys_time \
	/usr/sbin/ptp4l -f "$tmp/ptp4l-m.conf" -i vptp -S -m >"$tmp/ptp4l-m.log" 2>&1 &
lab_pid $!
# (the node's ptp4l: in its own PID namespace, below)
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec /usr/sbin/pmc -s %s "$@"\n' "$tmp/ptp4l-n.sock" >"$tmp/bin/pmc"
chmod 0755 "$tmp/bin/pmc"

lab_sshd_config "$tmp" "$subnet.10" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin" || exit 1
# The node's ptp4l and sshd in a PID namespace of their own, so `ps` in its
# ssh sessions shows that node's daemons only (time.conflicting_daemons
# otherwise).
lab_sshd_in_pidns "$tmp" "$ns_n" \
	"setpriv --bounding-set -sys_time /usr/sbin/ptp4l -f $tmp/ptp4l-n.conf -i vptp -S -m >$tmp/ptp4l-n.log 2>&1 &"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
# chronyd is not this test's business (the host may run one)
printf '{"defaults": {"expect": {"chrony": "no"}}}\n' >"$tmp/synctop.json"
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json"

lab_ptp_wait "$ns_n" SLAVE "$tmp/ptp4l-n.sock"
ok $? "the lab node's ptp4l is SLAVE on vptp (it was $lab_ptp_states)"

# shellcheck disable=SC2086
"$bin" --once --json --clock-check 0 $common "root@$subnet.10" >"$tmp/out.json" 2>"$tmp/err"
ok $? "--once --json ran ($(head -c 200 "$tmp/err"))"
node=".nodes[0]"
iface=$(jq -r "$node.nic.interface" "$tmp/out.json")
[ "$iface" = vptp ]
ok $? "nic describes the interface ptp4l uses, not the default route's (got $iface)"
[ "$(jq -c "[$node.nics[].interface]" "$tmp/out.json")" = '["vptp"]' ]
ok $? "nics lists the one interface ptp4l uses: $(jq -c "$node.nics" "$tmp/out.json" | head -c 300)"
[ "$(jq -r "$node.ptp.port_state" "$tmp/out.json")" = SLAVE ]
ok $? "the JSON shows the port SLAVE"
[ "$(jq -r "$node.status" "$tmp/out.json")" = warn ]
ok $? "the node is warn (software timestamping), not ok or crit: $(jq -c "[$node.findings[].code]" "$tmp/out.json")"
jq -e "[$node.findings[] | select(.code == \"nic.no_hw_timestamping\" and (.message | contains(\"vptp\")))] | length == 1" \
	"$tmp/out.json" >/dev/null
ok $? "nic.no_hw_timestamping names vptp"
# the lab master is a ptp4l with the default clockClass 248: a warn, not crit
jq -e "$node.ptp.gm_clock_class == 248 and ([$node.findings[] | select(.code == \"ptp.gm_clock_class\"
	and .severity == \"warn\" and (.message | contains(\"clockClass 248: free-running\")))] | length == 1)" \
	"$tmp/out.json" >/dev/null
ok $? "ptp.gm_clock_class warns about the master's default clockClass 248"

# shellcheck disable=SC2086
"$bin" --check --clock-check 0 $common "root@$subnet.10" >"$tmp/check.out" 2>&1
rc=$?
[ $rc -eq 1 ]
ok $? "--check exits 1 (warn): got $rc: $(tr '\n' ' ' <"$tmp/check.out" | head -c 300)"
done_testing
