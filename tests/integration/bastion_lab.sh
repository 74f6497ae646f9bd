#!/bin/bash
# bastion_lab.sh - nodes reached only through jump hosts (ProxyJump, -J):
# real sshds in network namespaces of this test's own, polled by synctop's
# built-in client through direct-tcpip channels (issue 16).
#
#   root ns (client) --10.66.0/24-- bastion ns --10.66.1/24-- node ns (16 sshds)
#                                        |
#                                   10.66.2/24-- hop2 ns --10.66.3/24-- node ns (2 more sshds)
#
# The client has no route to 10.66.1/24 or 10.66.3/24 and the bastion no
# route to 10.66.3/24 (namespaces do not forward): the only way to a node is
# through the jump hosts' sshds.  Checks: --once --json and --check see every
# node; the bastion's sshd killed (with its connections) and restarted under
# a live synctop: every node comes back; a two-hop chain, both given as
# "ProxyJump a,b" and through the second hop's own ProxyJump line; a jump
# host whose key does not match known_hosts: its nodes are refused, the jump
# host named, one attempt only; a bastion sshd with AllowTcpForwarding no:
# the error says so.  No clock is touched: nothing here runs a time daemon
# (the nodes' chrony expectation is "no"; the probe runs as on any node).
# Subnets 10.66.0.0/24 .. 10.66.3.0/24 only (BASTION_LAB_NET=10.N moves them
# to 10.N.0-3, for a machine where 10.66 is taken); names carry "jp" and the PID.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip /usr/sbin/sshd ssh-keygen jq timeout; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
net=${BASTION_LAB_NET:-10.66}
case $net in 10.[0-9] | 10.[1-9][0-9] | 10.1[0-9][0-9] | 10.2[0-4][0-9] | 10.25[0-5]) ;; *) skip_all "BASTION_LAB_NET=$net: want 10.N" ;; esac
for s in 0 1 2 3; do
	lab_subnet_free "$net.$s" || skip_all "$net.$s.0/24 is in use on this machine"
done

lab_begin "${BASTION_LAB_TAG:-jp}"
ns_b=${lab_tag}b
ns_h=${lab_tag}h
ns_n=${lab_tag}n
nodes=16
# BASTION_LAB_LOGS=DIR keeps synctop's and the sshds' logs there.
lab_on_cleanup() {
	[ -n "${BASTION_LAB_LOGS:-}" ] && cp "$tmp"/*.log "$tmp"/*.json "$BASTION_LAB_LOGS"/ 2>/dev/null
	for f in "$tmp"/*.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	[ -n "${live_pid:-}" ] && kill "$live_pid" 2>/dev/null
	# sshd's per-connection children die with their namespace's links; the
	# namespaces' processes are all this test's (lab_cleanup ends them)
	ip route del unreachable "$net".1.0/24 2>/dev/null
	ip route del unreachable "$net".3.0/24 2>/dev/null
}

lab_netns b h n
# client <-> bastion
subnet=$net.0
lab_uplink "$ns_b" b0 1 2 24
# bastion <-> nodes
ip link add n0 netns "$ns_b" type veth peer name n0 netns "$ns_n"
ip -n "$ns_b" addr add "$net".1.1/24 dev n0
ip -n "$ns_b" link set n0 up
ip -n "$ns_n" link set n0 up
# bastion <-> hop2 <-> nodes (a second network the bastion cannot reach)
ip link add h0 netns "$ns_b" type veth peer name h0 netns "$ns_h"
ip -n "$ns_b" addr add "$net".2.1/24 dev h0
ip -n "$ns_b" link set h0 up
ip -n "$ns_h" addr add "$net".2.2/24 dev h0
ip -n "$ns_h" link set h0 up
ip link add m0 netns "$ns_h" type veth peer name m0 netns "$ns_n"
ip -n "$ns_h" addr add "$net".3.1/24 dev m0
ip -n "$ns_h" link set m0 up
ip -n "$ns_n" addr add "$net".3.2/24 dev m0
ip -n "$ns_n" link set m0 up

ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/otherkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || exit 1
cp "$tmp/id.pub" "$tmp/authorized_keys"
mkdir -p /run/sshd "$tmp/home" # HOME for the sessions: not the machine's root dotfiles
# start_sshd NAMESPACE NAME "ListenAddress lines" [extra config]
start_sshd() {
	{
		printf '%s\n' "$3"
		cat <<EOF
HostKey $tmp/hostkey
PidFile $tmp/sshd-$2.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 100:30:200
SetEnv PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=$tmp/home
EOF
		[ $# -ge 4 ] && printf '%s\n' "$4"
	} >"$tmp/sshd-$2.conf"
	rm -f "$tmp/sshd-$2.pid"
	ip netns exec "$1" /usr/sbin/sshd -f "$tmp/sshd-$2.conf" -E "$tmp/sshd-$2.log" || return 1
	for _ in $(seq 50); do
		[ -s "$tmp/sshd-$2.pid" ] && return 0
		sleep 0.1
	done
	return 1
}
start_sshd "$ns_b" bastion "ListenAddress $net.0.2:22
ListenAddress $net.2.1:22" || skip_all "sshd did not start"
start_sshd "$ns_b" nofwd "ListenAddress $net.0.2:2222" "AllowTcpForwarding no" || skip_all "sshd did not start"
start_sshd "$ns_h" hop2 "ListenAddress $net.2.2:22" || skip_all "sshd did not start"
hostkey=$(cut -d' ' -f1,2 "$tmp/hostkey.pub")
{
	echo "$net.0.2 $hostkey"
	echo "[$net.0.2]:2222 $hostkey"
	echo "$net.2.2 $hostkey"
	echo "badgw $(cut -d' ' -f1,2 "$tmp/otherkey.pub")"
} >"$tmp/known_hosts"
# one sshd per node, each on its own address in the node namespace
for i in $(seq "$nodes"); do
	ip -n "$ns_n" addr add "$net.1.$((9 + i))/24" dev n0 2>/dev/null ||
		ip -n "$ns_n" addr add "$net.1.$((9 + i))/32" dev n0
	start_sshd "$ns_n" "node$i" "ListenAddress $net.1.$((9 + i)):22" || skip_all "node sshd $i did not start"
	echo "$net.1.$((9 + i)) $hostkey" >>"$tmp/known_hosts"
done
# two more behind the second hop, on ports of $net.3.2
for i in 1 2; do
	start_sshd "$ns_n" "far$i" "ListenAddress $net.3.2:$((2200 + i))" || skip_all "far sshd $i did not start"
	echo "[$net.3.2]:$((2200 + i)) $hostkey" >>"$tmp/known_hosts"
done

{
	echo "Host bastion"
	echo "    HostName $net.0.2"
	echo "Host badgw"
	echo "    HostName $net.0.2"
	echo "    HostKeyAlias badgw"
	echo "Host nofwd"
	echo "    HostName $net.0.2"
	echo "    Port 2222"
	echo "Host hop2"
	echo "    HostName $net.2.2"
	echo "    ProxyJump bastion"
	for i in $(seq "$nodes"); do
		printf 'Host node%02d\n    HostName %s.1.%d\n    ProxyJump bastion\n' "$i" "$net" $((9 + i))
	done
	echo "Host far1"
	echo "    HostName $net.3.2"
	echo "    Port 2201"
	echo "    ProxyJump bastion,hop2"
	echo "Host far2"
	echo "    HostName $net.3.2"
	echo "    Port 2202"
	echo "    ProxyJump hop2"
	echo "Host refused*"
	echo "    ProxyJump badgw"
	echo "Host blocked*"
	echo "    ProxyJump nofwd"
	echo "Host *"
	echo "    User root"
	echo "    IdentityFile $tmp/id"
	echo "    UserKnownHostsFile $tmp/known_hosts"
	echo "    GlobalKnownHostsFile none"
} >"$tmp/ssh_config"
printf '{"defaults": {"expect": {"chrony": "no"}}}\n' >"$tmp/synctop.json"
common="-F $tmp/ssh_config --config $tmp/synctop.json --clock-check 0 --timeout 40"
all_nodes=$(seq -f 'node%02g' 1 "$nodes" | tr '\n' ' ')

# The client cannot reach the nodes itself: nothing routes their subnets
# from here (and packets for them must not leave by the default route).
ip route add unreachable "$net".1.0/24 && ip route add unreachable "$net".3.0/24 ||
	skip_all "cannot add unreachable routes for $net.1.0/24 and $net.3.0/24"
timeout 3 bash -c "exec 3<>/dev/tcp/$net.1.10/22" 2>/dev/null
[ $? -ne 0 ]
ok $? "the client cannot connect to a node directly ($net.1.10:22)"
ip netns exec "$ns_b" timeout 3 bash -c "exec 3<>/dev/tcp/$net.3.2/2201" 2>/dev/null
[ $? -ne 0 ]
ok $? "the bastion cannot connect to the far nodes directly ($net.3.2:2201)"

# --once --json: every node, through one bastion connection
# shellcheck disable=SC2086
"$bin" --once --json $common --log "$tmp/once.log" $all_nodes >"$tmp/once.json" 2>"$tmp/once.err"
ok $? "--once --json through the bastion ran ($(head -c 300 "$tmp/once.err"))"
n_ok=$(jq '[.nodes[] | select(.reachable == true and .error == null)] | length' "$tmp/once.json")
[ "$n_ok" = "$nodes" ]
ok $? "all $nodes nodes answered through the bastion (got $n_ok: $(jq -c '[.nodes[] | select(.error != null) | [.host, .error]]' "$tmp/once.json" | head -c 400))"
opened=$(grep -c 'jump host bastion: opening a connection' "$tmp/once.log")
[ "$opened" = 1 ] || diag "$(grep 'jump host' "$tmp/once.log" | head -20)"
ok $? "one connection to the bastion carried the $nodes nodes (opened $opened)"
# --jump-channels 4: more connections, only when each is full (live mode:
# in --once a node lets go of its channel when its poll is done)
# shellcheck disable=SC2086
timeout 30 "$bin" -d 1 $common --jump-channels 4 --prometheus "$tmp/cap.prom" --log "$tmp/cap.log" $all_nodes \
	>/dev/null 2>&1 </dev/null &
live_pid=$!
n_up=0
for _ in $(seq 20); do
	sleep 1
	n_up=$(awk '/^synctop_node_up\{/ { n += $NF } END { print n + 0 }' "$tmp/cap.prom" 2>/dev/null)
	[ "$n_up" = "$nodes" ] && break
done
kill "$live_pid" 2>/dev/null
wait "$live_pid" 2>/dev/null
live_pid=
opened=$(grep -c 'jump host bastion: opening a connection' "$tmp/cap.log")
[ "$n_up" = "$nodes" ] && [ "$opened" = $((nodes / 4)) ]
ok $? "--jump-channels 4: $nodes nodes over $opened bastion connections (want $((nodes / 4)); up: $n_up)"

# --once with two connections' worth of nodes (the 256-node bench with the
# default 128 per connection is the same case)
# shellcheck disable=SC2086
"$bin" --once --json $common --jump-channels 8 $all_nodes >"$tmp/two.json" 2>/dev/null
n_ok=$(jq '[.nodes[] | select(.reachable == true and .error == null)] | length' "$tmp/two.json")
[ "$n_ok" = "$nodes" ]
ok $? "--once --jump-channels 8: all $nodes nodes over two connections (got $n_ok: $(jq -c '[.nodes[] | select(.error != null) | .error] | unique' "$tmp/two.json" | head -c 300))"

# --check
# shellcheck disable=SC2086
"$bin" --check $common $all_nodes >"$tmp/check.out" 2>&1
rc=$?
# (the nodes share this machine's processes, so their findings are this
# machine's: only whether every node answered matters here)
[ $rc -ne 3 ] && ! grep -q 'UNKNOWN\|jump host' "$tmp/check.out"
ok $? "--check sees every node (exit $rc: $(tr '\n' ' ' <"$tmp/check.out" | head -c 300))"

# -J on the command line, with user and port forms, beats the config
# shellcheck disable=SC2086
"$bin" --once --json $common -J root@$net.0.2:22 root@$net.1.10 root@$net.1.11 >"$tmp/j.json" 2>"$tmp/j.err"
[ "$(jq '[.nodes[] | select(.reachable == true)] | length' "$tmp/j.json")" = 2 ]
ok $? "-J root@$net.0.2:22 reaches nodes named by address ($(head -c 200 "$tmp/j.err"))"

# Many channels on one jump session whose socket fills at once: synctop
# runs in the bastion's namespace for this case (-J to the bastion's own
# address), where tcp_wmem is cut to 4 KiB.  libssh2 sends one packet at a
# time per session and only the call that half sent one may finish it
# (ssh_jump.h); before synctop honoured that, other channels' sends failed
# with LIBSSH2_ERROR_BAD_USE: "Unable to send channel-open request", broken
# handshakes (4 of 5 cold sweeps of 256 nodes in bench/bastion).
old_wmem=$(ip netns exec "$ns_b" sysctl -n net.ipv4.tcp_wmem 2>/dev/null)
if [ -n "$old_wmem" ] && ip netns exec "$ns_b" sysctl -q -w net.ipv4.tcp_wmem="4096 4096 4096"; then
	addrs=$(for i in $(seq "$nodes"); do printf 'root@%s.1.%d ' "$net" $((9 + i)); done)
	# shellcheck disable=SC2086
	ip netns exec "$ns_b" "$bin" --once --json $common -J "root@$net.0.2" $addrs >"$tmp/small.json" 2>/dev/null
	ip netns exec "$ns_b" sysctl -q -w net.ipv4.tcp_wmem="$old_wmem"
	n_ok=$(jq '[.nodes[] | select(.reachable == true and .error == null)] | length' "$tmp/small.json")
	[ "$n_ok" = "$nodes" ]
	ok $? "a jump session with a 4 KiB send buffer carries all $nodes nodes (got $n_ok: $(jq -c '[.nodes[] | select(.error != null) | .error] | unique' "$tmp/small.json" | head -c 300))"
else
	ok 0 "# SKIP no per-namespace net.ipv4.tcp_wmem"
fi

# --config "jump" per group: nodes named by address (no ssh config line
# routes them) reach the bastion; "none" beats node03's ProxyJump line (so it
# is tried directly, and the client has no route); -J beats the group's
# "jump" (nofwd refuses to forward, so the error shows it was taken)
cat >"$tmp/groups.json" <<EOF
{"defaults": {"expect": {"chrony": "no"}},
 "groups": [{"name": "lab", "hosts": "$net.1.[10-11]", "jump": "bastion"},
            {"name": "mgmt", "hosts": "node03", "jump": "none"}]}
EOF
gcommon="-F $tmp/ssh_config --config $tmp/groups.json --clock-check 0 --timeout 15 --connect-timeout 5"
# shellcheck disable=SC2086
"$bin" --once --json $gcommon "$net.1.10" "$net.1.11" node03 >"$tmp/group.json" 2>"$tmp/group.err"
n_ok=$(jq '[.nodes[] | select(.reachable == true and .error == null)] | length' "$tmp/group.json")
err3=$(jq -r '.nodes[] | select(.host == "node03") | .error' "$tmp/group.json")
[ "$n_ok" = 2 ] && case $err3 in *"jump host"*) false ;; *"$net.1.12 port 22"*) true ;; *) false ;; esac
ok $? "--config \"jump\" per group: 2 nodes through the bastion (got $n_ok), \"none\" goes direct ($err3)"
# shellcheck disable=SC2086
"$bin" --once --json $gcommon -J nofwd "$net.1.10" >"$tmp/groupj.json" 2>/dev/null
err=$(jq -r '.nodes[0].error' "$tmp/groupj.json")
case $err in *"jump host nofwd"*AllowTcpForwarding*) true ;; *) false ;; esac
ok $? "-J beats a group's \"jump\" ($err)"

# two hops: "ProxyJump bastion,hop2", and hop2's own "ProxyJump bastion"
# shellcheck disable=SC2086
"$bin" --once --json $common --log "$tmp/far.log" far1 far2 >"$tmp/far.json" 2>"$tmp/far.err"
n_ok=$(jq '[.nodes[] | select(.reachable == true and .error == null)] | length' "$tmp/far.json")
[ "$n_ok" = 2 ]
ok $? "a two-hop chain reaches both far nodes (got $n_ok: $(jq -c '[.nodes[].error]' "$tmp/far.json" | head -c 300))"

# a jump host whose key does not match: refused, named, one attempt
# shellcheck disable=SC2086
timeout 20 "$bin" -d 1 $common --prometheus "$tmp/bad.prom" --log "$tmp/bad.log" refused1 refused2 refused3 \
	>/dev/null 2>&1 </dev/null &
live_pid=$!
sleep 6
kill "$live_pid" 2>/dev/null
wait "$live_pid" 2>/dev/null
live_pid=
# shellcheck disable=SC2086
"$bin" --once --json $common refused1 refused2 refused3 >"$tmp/bad.json" 2>/dev/null
n_named=$(jq '[.nodes[] | select(.error != null and (.error | test("jump host badgw")) and (.error | test("host key")))] | length' "$tmp/bad.json")
[ "$n_named" = 3 ]
ok $? "each node behind a jump host with a changed key says so (got $n_named: $(jq -c '[.nodes[].error]' "$tmp/bad.json" | head -c 500))"
tries=$(grep -c 'jump host badgw: opening a connection' "$tmp/bad.log")
[ "$tries" = 1 ]
ok $? "the refused jump host was tried once in 6 s of live mode, not retried (tries: $tries)"

# AllowTcpForwarding no: the error names it
# shellcheck disable=SC2086
"$bin" --once --json $common blocked1 >"$tmp/nofwd.json" 2>/dev/null
err=$(jq -r '.nodes[0].error' "$tmp/nofwd.json")
case $err in *AllowTcpForwarding*prohibited*|*prohibited*AllowTcpForwarding*) true ;; *) false ;; esac
ok $? "a bastion without forwarding: the error says AllowTcpForwarding ($err)"

# live: the bastion's sshd dies with every connection it carries, and comes back
if "$bin" --help 2>&1 | grep -q -- '--prometheus'; then
	# shellcheck disable=SC2086
	"$bin" -d 1 $common --prometheus "$tmp/live.prom" --log "$tmp/live.log" $all_nodes >/dev/null 2>&1 </dev/null &
	live_pid=$!
	up() { awk '/^synctop_node_up\{/ { n += $NF } END { print n + 0 }' "$tmp/live.prom" 2>/dev/null; }
	for _ in $(seq 30); do
		[ "$(up)" = "$nodes" ] && break
		sleep 1
	done
	before=$(up)
	bpid=$(cat "$tmp/sshd-bastion.pid")
	children=$(ps -o pid= --ppid "$bpid")
	kill "$bpid" $children 2>/dev/null
	sleep 3
	down=$(up)
	start_sshd "$ns_b" bastion "ListenAddress $net.0.2:22
ListenAddress $net.2.1:22"
	back=
	for _ in $(seq 60); do
		if [ "$(up)" = "$nodes" ]; then
			back=$(up)
			break
		fi
		sleep 1
	done
	kill "$live_pid" 2>/dev/null
	wait "$live_pid" 2>/dev/null
	live_pid=
	[ "$before" = "$nodes" ] && [ "$down" -lt "$nodes" ] && [ "$back" = "$nodes" ]
	ok $? "bastion restarted under a live synctop: $before up, $down while it was down, ${back:-not all} back"
	grep -q 'jump host bastion: .*\(lost\|dropped\)\|jump host bastion: .*\(refused\|failed\)' "$tmp/live.log"
	ok $? "--log says the bastion connection was lost"
else
	ok 1 "synctop has no --prometheus"
fi
done_testing
