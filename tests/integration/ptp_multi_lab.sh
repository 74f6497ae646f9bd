#!/bin/bash
# ptp_multi_lab.sh - two ptp4l on one node, one per interface, each with its
# own uds_address (as OpenShift's linuxptp-daemon and timemaster run them),
# polled through a real sshd with `synctop --once --json` (issue 15: "Two
# ptp4l instances on two veth pairs in one node: both reported").
#
# Namespaces of its own: "m" runs two ptp4l masters, one per link; "n" is
# the node: its own network namespace and its own PID namespace (unshare
# --pid --fork --mount-proc inside `ip netns exec`), in which its two ptp4l
# slaves (-f CONFIG, uds_address in each config) and its sshd run, so `ps`
# in the node's ssh sessions shows that node's daemons only.  No pmc wrapper:
# synctop must find both sockets from ptp4l's command lines.  Every ptp4l
# runs -S under `setpriv --bounding-set -sys_time`: none can steer a clock.
# Then the second config is removed while its ptp4l runs: the node must say
# ptp.config_unreadable, naming the file, and never guess that instance's
# socket.  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
. "$(dirname "$0")/lab_ptp.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network and PID namespaces, sshd)"
for p in ip /usr/sbin/ptp4l /usr/sbin/pmc /usr/sbin/sshd ethtool setpriv unshare mount ssh-keygen jq ps; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
unshare --help 2>&1 | grep -q -- --kill-child || skip_all "unshare has no --kill-child"

lab_begin mp
ns_m=${lab_tag}m
ns_n=${lab_tag}n

# this helper's subnets are 10.61.0.0/24 .. 10.61.9.0/24: one that is free
lab_subnet 10.61.0-9
lab_netns m n
# two PTP links, one per ptp4l
# an address on each side: a master in a namespace without any IPv4 address
# sends its multicast Announces from 0.0.0.0, which the slave never takes
lab_link "$ns_m" "$ns_n" pa 17 18 30
lab_link "$ns_m" "$ns_n" pb 21 22 30
# the client's way in
lab_uplink "$ns_n" ssh0 9 10 30

for l in pa pb; do
	lab_ptp4l_conf "$tmp/ptp4l-m$l.conf" "$tmp/ptp4l-m$l.sock" master
	# (a comment in the node's configs: the probe's config reading skips it)
	lab_ptp4l_conf "$tmp/ptp4l-n$l.conf" "$tmp/ptp4l-n$l.sock" slave "# lab ptp4l n$l (ptp_multi_lab.sh)"
	ip netns exec "$ns_m" setpriv --bounding-set -sys_time \
		/usr/sbin/ptp4l -f "$tmp/ptp4l-m$l.conf" -i "$l" -S -m >"$tmp/ptp4l-m$l.log" 2>&1 &
	lab_pid $!
done

lab_sshd_config "$tmp" "$subnet.10" "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" || exit 1
# The node: its two ptp4l slaves and its sshd in one PID namespace of their
# own.  The ptp4l are started the ordinary way (`ptp4l -f FILE -i IFACE`),
# the second with the short options run together as getopt allows.
lab_sshd_in_pidns "$tmp" "$ns_n" \
	"setpriv --bounding-set -sys_time /usr/sbin/ptp4l -f $tmp/ptp4l-npa.conf -i pa -S -m >$tmp/ptp4l-npa.log 2>&1 &" \
	"setpriv --bounding-set -sys_time /usr/sbin/ptp4l -Smf $tmp/ptp4l-npb.conf -i pb >$tmp/ptp4l-npb.log 2>&1 &"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
printf '{"defaults": {"expect": {"chrony": "no"}}}\n' >"$tmp/synctop.json"
# a generous deadline: the machine running the test may be busy
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json --timeout 60"
ssh_node() {
	ssh -F "$tmp/ssh_config" -o UserKnownHostsFile="$tmp/known_hosts" -o BatchMode=yes -i "$tmp/id" \
		"root@$subnet.10" "$@"
}

lab_ptp_wait "$ns_n" SLAVE "$tmp/ptp4l-npa.sock" "$tmp/ptp4l-npb.sock"
rc=$?
ok $rc "both ptp4l of the node are SLAVE (pa, pb: $lab_ptp_states)"
if [ $rc -ne 0 ]; then
	for f in "$tmp"/ptp4l-*.log; do
		diag "$f:" "$(tail -5 "$f")"
	done
fi

# the node's own PID namespace: its sessions see its two ptp4l only (the
# masters and every other ptp4l on this machine are elsewhere)
n=$(ssh_node 'ps -C ptp4l -o pid= | wc -l' 2>/dev/null)
[ "$n" = 2 ]
ok $? "ps in the node's ssh session shows its own two ptp4l only (got ${n:-nothing})"

# shellcheck disable=SC2086
"$bin" --once --json --clock-check 0 $common "root@$subnet.10" >"$tmp/out.json" 2>"$tmp/err"
ok $? "--once --json ran ($(head -c 200 "$tmp/err"))"
node=".nodes[0]"
[ -s "$tmp/out.json" ] && jq -e "$node.host" "$tmp/out.json" >/dev/null 2>&1 || { diag "no JSON answer"; echo "Bail out! no JSON answer"; exit 1; }
[ "$(jq "$node.ptp_instances | length" "$tmp/out.json")" = 2 ]
ok $? "ptp_instances lists both ptp4l: $(jq -c "$node.ptp_instances" "$tmp/out.json" | head -c 400)"
socks=$(jq -r "[$node.ptp_instances[].socket] | sort | join(\" \")" "$tmp/out.json")
[ "$socks" = "$tmp/ptp4l-npa.sock $tmp/ptp4l-npb.sock" ]
ok $? "each instance's socket is its config's uds_address (got $socks)"
# a software-timestamped slave on a loaded machine can lose its lock for a
# while (a late Sync makes the servo reset: UNCALIBRATED, then SLAVE again):
# either is a slave port, read from its own ptp4l
states=$(jq -r "[$node.ptp_instances[].ptp.port_state] | join(\" \")" "$tmp/out.json")
case $states in
"SLAVE SLAVE" | "SLAVE UNCALIBRATED" | "UNCALIBRATED SLAVE" | "UNCALIBRATED UNCALIBRATED") true ;;
*) false ;;
esac
ok $? "both instances are slave ports, SLAVE or relocking (got $states)"
ifs=$(jq -r "[$node.ptp_instances[].ptp.ports[].interface] | sort | join(\" \")" "$tmp/out.json")
[ "$ifs" = "pa pb" ]
ok $? "each instance reports its own interface (got $ifs)"
nics=$(jq -r "[$node.nics[].interface] | sort | join(\" \")" "$tmp/out.json")
[ "$nics" = "pa pb" ]
ok $? "nics holds both instances' interfaces (got $nics)"
case $(jq -r "$node.ptp.port_state" "$tmp/out.json") in SLAVE | UNCALIBRATED) true ;; *) false ;; esac &&
	[ "$(jq "[$node.ptp_instances[] | select(.primary)] | length" "$tmp/out.json")" = 1 ]
ok $? "ptp describes one primary instance, a slave port"
# each master announces ptp4l's default clockClass 248: one warn per instance,
# each naming its socket
for l in pa pb; do
	jq -e "[$node.findings[] | select(.code == \"ptp.gm_clock_class\" and
		(.message | contains(\"socket $tmp/ptp4l-n$l.sock\")))] | length == 1" "$tmp/out.json" >/dev/null
	ok $? "ptp.gm_clock_class for the $l instance names its socket"
done
jq -e "[$node.findings[] | select(.code == \"ptp.config_unreadable\")] | length == 0" "$tmp/out.json" >/dev/null
ok $? "no config finding while both configs are readable"

# The second config goes away while its ptp4l runs (a config generated into
# a tmpfs by a daemon that restarted, a directory without access): its
# socket is not guessed, the node says so.
mv "$tmp/ptp4l-npb.conf" "$tmp/ptp4l-npb.conf.gone"
# shellcheck disable=SC2086
"$bin" --once --json --clock-check 0 $common "root@$subnet.10" >"$tmp/out.json" 2>"$tmp/err"
ok $? "--once --json ran with one config gone ($(head -c 200 "$tmp/err"))"
[ -s "$tmp/out.json" ] && jq -e "$node.host" "$tmp/out.json" >/dev/null 2>&1 || { diag "no JSON answer"; echo "Bail out! no JSON answer"; exit 1; }
jq -e "[$node.findings[] | select(.code == \"ptp.config_unreadable\" and .severity == \"warn\"
	and (.message | contains(\"$tmp/ptp4l-npb.conf\")) and (.message | contains(\"No such file\")))] | length == 1" \
	"$tmp/out.json" >/dev/null
ok $? "ptp.config_unreadable names the missing config: $(jq -c "[$node.findings[] | {code, message}]" "$tmp/out.json" | head -c 600)"
jq -e "$node.ptp_instances | length == 2 and
	([.[] | select(.config_error != null and .socket == null and .ptp == null)] | length == 1) and
	([.[] | select((.ptp.port_state == \"SLAVE\" or .ptp.port_state == \"UNCALIBRATED\") and .socket == \"$tmp/ptp4l-npa.sock\")] | length == 1)" \
	"$tmp/out.json" >/dev/null
ok $? "the other instance is still reported (SLAVE or relocking); the unreadable one has no socket and no data"
case $(jq -r "$node.status" "$tmp/out.json") in warn | crit) true ;; *) false ;; esac
ok $? "the node is warn or crit, not ok ($(jq -r "$node.status" "$tmp/out.json"))"
mv "$tmp/ptp4l-npb.conf.gone" "$tmp/ptp4l-npb.conf"

done_testing
