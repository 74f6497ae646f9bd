#!/bin/bash
# bastion_tmux.sh - the dashboard, driven in a private tmux server, over
# nodes behind a bastion (issue 16: "the live view sees every node"):
# every node behind the bastion appears and reaches ok; the bastion's sshd
# killed with every connection it carries: its nodes show the error (naming
# the jump host) while the nodes reached directly stay ok; its sshd started
# again: they come back; a node's drill-down names its route through the
# jump host.
#
#   root ns (client) --NET.K/24-- bastion ns --NET2.K/24-- node ns (6 sshds)
#                                 (+ 2 direct node sshds, ports 2201-2202)
#
# NET.K is the first free /24 of 10.69.0-9 and NET2.K its twin in 10.79 (the
# nodes' subnet, unreachable from the client).  Every node sshd runs in one
# PID and mount namespace of its own (unshare --pid --mount-proc), so a
# probe's `ps` sees the nodes' sessions, not this machine's or another
# test's daemons: the nodes are ok whatever runs beside this test.  Their
# time service: a `chronyd -x` without CAP_SYS_TIME synchronised to another
# (they never steer a clock); PTP is expected "no".
# Names carry "bt" and the PID.  About 40 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/lab_tmux.sh"
. "$here/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip tmux unshare nsenter setpriv pgrep python3 /usr/sbin/sshd /usr/sbin/chronyd /usr/bin/chronyc ssh-keygen; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin bt
ns_b=${lab_tag}b
ns_n=${lab_tag}n
behind=6
init_pid=
unshare_pid=
sock=$tmp/tmux.sock
tm() { tmux -S "$sock" "$@"; }
lab_on_cleanup() {
	[ -n "${BASTION_TMUX_LOGS:-}" ] && cp "$tmp"/*.log "$tmp"/*.txt "$BASTION_TMUX_LOGS"/ 2>/dev/null
	[ -S "$sock" ] && tm kill-server >/dev/null 2>&1
	# the node sshds live in the nodes' PID namespace: ending its init (our
	# reaper) ends them all
	[ -n "$init_pid" ] && kill -9 "$init_pid" 2>/dev/null
	[ -n "$unshare_pid" ] && wait "$unshare_pid" 2>/dev/null
	[ -n "${nodes_net:-}" ] && ip route del unreachable "$nodes_net.0/24" 2>/dev/null
}

lab_subnet 10.69.0-9
nodes_net=10.79.${subnet##*.}
lab_subnet_free "$nodes_net" || {
	nodes_net=
	skip_all "$nodes_net.0/24 is in use on this machine"
}
lab_netns b n
lab_uplink "$ns_b" b0 1 2 24
ip link add n0 netns "$ns_b" type veth peer name n0 netns "$ns_n"
ip -n "$ns_b" addr add "$nodes_net".1/24 dev n0
ip -n "$ns_b" link set n0 up
ip -n "$ns_n" link set n0 up
# the client has no way to the nodes but the bastion (nor may packets for
# them leave by the default route)
ip route add unreachable "$nodes_net.0/24" || skip_all "cannot add an unreachable route for $nodes_net.0/24"

# its init reaps: the probe shells of sessions that end (synctop stopped,
# a killed sshd) are orphans it inherits, and a `sleep` as init would keep
# them as zombies that every later `ps` on the nodes reads
printf '%s\n' 'import os, time' 'while True:' '    try:' '        os.wait()' \
	'    except ChildProcessError:' '        time.sleep(0.5)' >"$tmp/reaper.py"
ip netns exec "$ns_n" unshare --pid --fork --mount-proc python3 "$tmp/reaper.py" 2>/dev/null &
unshare_pid=$!
for _ in $(seq 50); do
	init_pid=$(pgrep -P "$unshare_pid" -x python3)
	[ -n "$init_pid" ] && break
	sleep 0.1
done
[ -n "$init_pid" ] || skip_all "unshare --pid did not start"

# The nodes' time service, in their PID and network namespaces: a chronyd
# synchronised to another that serves its local clock (`local stratum 3` on
# 127.0.0.1:11123), both -x under `setpriv --bounding-set -sys_time`: they
# never steer a clock.  Every node's probe sees the client chronyd running
# and synchronised (plain `chronyc` reaches it through its socket), so a
# node that answers is ok.
chmod 0750 "$tmp" # chronyd refuses a command socket in a directory open to others
mkdir -p "$tmp/bin"
on_nodes() { nsenter -t "$init_pid" -p -m -n "$@"; }
printf 'port 11123\nbindaddress 127.0.0.1\nallow 127.0.0.1\nlocal stratum 3\ncmdport 0\nbindcmdaddress %s/server.sock\npidfile %s/server.pid\n' \
	"$tmp" "$tmp" >"$tmp/server.conf"
printf 'server 127.0.0.1 port 11123 iburst minpoll -4 maxpoll -4\nport 0\ncmdport 0\nbindcmdaddress %s/chronyd.sock\npidfile %s/chronyd.pid\n' \
	"$tmp" "$tmp" >"$tmp/client.conf"
for c in server client; do
	on_nodes setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -u root -f "$tmp/$c.conf" -l "$tmp/$c.log" ||
		skip_all "chronyd ($c) did not start"
done
printf '#!/bin/sh\nexec /usr/bin/chronyc -h %s "$@"\n' "$tmp/chronyd.sock" >"$tmp/bin/chronyc"
chmod 0755 "$tmp/bin/chronyc"
synced=
for _ in $(seq 60); do
	"$tmp/bin/chronyc" -n tracking 2>/dev/null | grep -q 'Leap status *: Normal' && synced=1 && break
	sleep 0.5
done
[ -n "$synced" ] || skip_all "the nodes' chronyd did not synchronise in 30 s"

ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || exit 1
cp "$tmp/id.pub" "$tmp/authorized_keys"
mkdir -p /run/sshd "$tmp/home" # HOME for the sessions: not the machine's root dotfiles
# start_sshd NAME LISTEN_ADDRESS NSENTER-ARGS...: the bastion's PID file
# holds a PID of this namespace (it is killed by it); the nodes' hold PIDs
# of theirs and are only waited for
start_sshd() {
	local name=$1 listen=$2
	shift 2
	cat >"$tmp/sshd-$name.conf" <<EOF
ListenAddress $listen
HostKey $tmp/hostkey
PidFile $tmp/sshd-$name.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 100:30:200
SetEnv PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=$tmp/home
EOF
	rm -f "$tmp/sshd-$name.pid"
	"$@" /usr/sbin/sshd -f "$tmp/sshd-$name.conf" -E "$tmp/sshd-$name.log" || return 1
	for _ in $(seq 50); do
		[ -s "$tmp/sshd-$name.pid" ] && return 0
		sleep 0.1
	done
	return 1
}
start_bastion() { start_sshd bastion "$subnet.2:22" ip netns exec "$ns_b"; }
start_bastion || skip_all "the bastion's sshd did not start"
hostkey=$(cut -d' ' -f1,2 "$tmp/hostkey.pub")
echo "$subnet.2 $hostkey" >"$tmp/known_hosts"
for i in $(seq "$behind"); do
	ip -n "$ns_n" addr add "$nodes_net.$((9 + i))/24" dev n0 2>/dev/null ||
		ip -n "$ns_n" addr add "$nodes_net.$((9 + i))/32" dev n0
	start_sshd "node$i" "$nodes_net.$((9 + i)):22" on_nodes ||
		skip_all "node sshd $i did not start"
	echo "$nodes_net.$((9 + i)) $hostkey" >>"$tmp/known_hosts"
done
# two nodes the client reaches directly: the bastion's network, the nodes'
# PID namespace
for i in 1 2; do
	start_sshd "direct$i" "$subnet.2:$((2200 + i))" nsenter -t "$init_pid" -p -m --net=/run/netns/"$ns_b" ||
		skip_all "direct sshd $i did not start"
	echo "[$subnet.2]:$((2200 + i)) $hostkey" >>"$tmp/known_hosts"
done
{
	echo "Host bastion"
	echo "    HostName $subnet.2"
	for i in $(seq "$behind"); do
		printf 'Host node%02d\n    HostName %s.%d\n    ProxyJump bastion\n' "$i" "$nodes_net" $((9 + i))
	done
	for i in 1 2; do
		printf 'Host direct%d\n    HostName %s.2\n    Port %d\n' "$i" "$subnet" $((2200 + i))
	done
	echo "Host *"
	echo "    User root"
	echo "    IdentityFile $tmp/id"
	echo "    UserKnownHostsFile $tmp/known_hosts"
	echo "    GlobalKnownHostsFile none"
	echo "    ServerAliveInterval 2"
} >"$tmp/ssh_config"
printf '{"defaults": {"expect": {"ptp": "no"}}}\n' >"$tmp/synctop.json"
all_nodes="$(seq -f 'node%02g' 1 "$behind" | tr '\n' ' ')direct1 direct2"
total=$((behind + 2))

# ------------------------------------------------------------- the dashboard
# The pane runs bash, which prints synctop's exit status when it ends.
cat >"$tmp/run" <<'EOF'
#!/bin/bash
env "$@"
echo "EXIT=$?"
sleep 60
EOF
chmod +x "$tmp/run"
# shellcheck disable=SC2086
tm -f /dev/null new-session -d -s t -x 180 -y 250 \
	"$tmp/run LANG=C.UTF-8 TERM=xterm-256color $bin -d 1 -F $tmp/ssh_config --config $tmp/synctop.json --clock-check 0 --connect-timeout 5 --log $tmp/live.log $all_nodes"
tm set-option -t t status off >/dev/null
# rows: "NODE STAT ..." of the grid
row() { screen | grep -E "^$1 "; }
rows_ok() { # how many of the nodes given have an OK row
	local n=0 h
	for h in "$@"; do
		screen | grep -Eq "^$h +OK " && n=$((n + 1))
	done
	echo "$n"
}
behind_nodes=$(seq -f 'node%02g' 1 "$behind" | tr '\n' ' ')

# 1. every node, those behind the bastion too, appears and reaches ok
wait_for "^ synctop +$total nodes +$total ok " 40
ok $? "the header counts all $total nodes ok: $(screen | head -n 1 | tr -s ' ')"
# shellcheck disable=SC2086
got=$(rows_ok $all_nodes)
[ "$got" = "$total" ]
ok $? "each of the $total nodes has its row, OK ($got)"
screen >"$tmp/all-ok.txt"

# 2. a node's drill-down names its route while all is well: the
# connection log's first line, through the jump host.  The pane is tall
# enough for the whole drill-down.
route="to $nodes_net.12 port 22 through jump host bastion"
route_re=${route//./\\.}
drill_down() { # node: filter the grid to it, open its drill-down
	keys /
	tm send-keys -t t -l "$1"
	keys Enter
	wait_for "^$1 +[A-Z]+ " 5 && keys Enter && wait_for "^ node $1 " 5
}
drill_down node03
ok $? "Enter opens node03's drill-down"
wait_for "^ +[0-9:]{8} +connecting $route_re\$" 5
ok $? "its connection log names the route: connecting $route"
screen >"$tmp/drill-down-ok.txt"
keys Escape
wait_for "^NODE " 3
keys Escape
wait_for "filter cleared" 3
ok $? "Esc, Esc: back to the whole grid"

# 3. the bastion's sshd dies with every connection it carries: its nodes
# go unknown and their error names the jump host; the direct nodes stay ok
bpid=$(cat "$tmp/sshd-bastion.pid")
children=$(ps -o pid= --ppid "$bpid")
# shellcheck disable=SC2086
kill "$bpid" $children 2>/dev/null
wait_for "^ synctop +$total nodes +$behind unknown +2 ok " 30
ok $? "with the bastion's sshd gone, its $behind nodes are unknown, the 2 direct ones ok: $(screen | head -n 1 | tr -s ' ')"
screen >"$tmp/bastion-down.txt"
n=0
for h in $behind_nodes; do
	grep -Eq "^$h +UNKN " "$tmp/bastion-down.txt" && n=$((n + 1))
done
[ "$n" = "$behind" ] && [ "$(rows_ok direct1 direct2)" = 2 ]
ok $? "each node behind it has an UNKN row ($n of $behind), the directly reached nodes stay OK"
# the error, in a node's drill-down (the grid keeps its last values)
drill_down node04
wait_for "No verdict: the node stopped answering \(see Error below\)" 5
ok $? "node04's drill-down: no verdict, the node stopped answering"
screen >"$tmp/drill-down-down.txt"
err=$(grep -A1 "^ Error *$" "$tmp/drill-down-down.txt" | tail -n 1 | sed 's/^ *//')
case $err in *"jump host bastion"*) true ;; *) false ;; esac
ok $? "and its error names the jump host: $err"
keys Escape
wait_for "^NODE " 3
keys Escape
wait_for "filter cleared" 3

# 4. its sshd back: every node comes back
sleep 2 # a few reconnection attempts refused
start_bastion || diag "the bastion's sshd did not start again"
wait_for "^ synctop +$total nodes +$total ok " 60
ok $? "the bastion's sshd back: all $total nodes ok again: $(screen | head -n 1 | tr -s ' ')"
# shellcheck disable=SC2086
got=$(rows_ok $all_nodes)
[ "$got" = "$total" ]
ok $? "each row OK again ($got of $total)"

# 5. the drill-down again: the loss and the reconnection, the same route
drill_down node03
wait_for "^ +[0-9:]{8} +reconnecting $route_re\$" 5
ok $? "node03's connection log: reconnecting $route"
screen >"$tmp/drill-down-back.txt"
lost=$(grep -E "^ +[0-9:]{8} +connection lost: jump host bastion" "$tmp/drill-down-back.txt" | head -n 1 | sed 's/^ *//')
[ -n "$lost" ]
ok $? "and the connection lost with the jump host: $lost"
keys Escape
wait_for "^NODE " 3
ok $? "Esc goes back to the grid"
keys q
wait_for "EXIT=0" 5
ok $? "q quits"
done_testing
