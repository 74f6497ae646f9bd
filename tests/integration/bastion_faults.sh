#!/bin/bash
# bastion_faults.sh - faults on the bastion under a live synctop (issue 16):
# its sshd killed with every connection it carries, its link dropped, and
# its link losing packets (tc netem), while synctop polls nodes behind it
# and nodes it reaches directly.
#
#   root ns (client) --NET.4/24-- bastion ns --NET.5/24-- behind ns (8 sshds)
#          |
#          +--------NET.6/24-- direct ns (4 sshds)
#
# (The lossy link is tc netem where the kernel has it, else a tiny tbf.)
# Checks, from synctop's own --prometheus file, sampled every 0.5 s:
#   - after each fault every node is up again (none lost for good);
#   - while the bastion is down the direct nodes keep their cadence: the
#     newest answer of each is never older than a few poll intervals, so a
#     dead bastion does not stall the loop (the file itself keeps being
#     written, too);
#   - synctop's open files come back to where they were and its RSS stays
#     bounded (judged from the first cycle's end to the last's).
#
# Short by default (one cycle of the three faults, well under 60 s on an idle
# machine), for the default test suite.  The soak is opt-in:
#   BASTION_SOAK_MINUTES=30 tests/integration/bastion_faults.sh
# repeats the cycle until that many minutes have passed and judges memory and
# open files over the whole run.  BASTION_FAULTS_LOGS=DIR keeps the logs and
# the sample table.  No clock is touched: nothing here runs a time daemon.
# Subnets NET.4.0/24 .. NET.6.0/24 with NET=10.85 (BASTION_FAULTS_NET=10.N
# moves them); namespace and link names carry "bf" (BASTION_FAULTS_TAG) and
# the PID.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd, tc)"
for p in ip tc /usr/sbin/sshd ssh-keygen awk find; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
net=${BASTION_FAULTS_NET:-10.85}
case $net in 10.[0-9] | 10.[1-9][0-9] | 10.1[0-9][0-9] | 10.2[0-4][0-9] | 10.25[0-5]) ;; *) skip_all "BASTION_FAULTS_NET=$net: want 10.N" ;; esac
for s in 4 5 6; do
	if { ip -4 -o addr show; ip -4 route show table all; } | grep -q " ${net//./\\.}\.$s\."; then
		skip_all "$net.$s.0/24 is in use on this machine"
	fi
done
soak_min=${BASTION_SOAK_MINUTES:-0}
case $soak_min in '' | *[!0-9]*) skip_all "BASTION_SOAK_MINUTES=$soak_min: want whole minutes" ;; esac

tag=${BASTION_FAULTS_TAG:-bf}$$
ns_b=${tag}b
ns_n=${tag}n
ns_d=${tag}d
tmp=$(mktemp -d)
behind=8
direct=4
interval=1
live_pid=
cleanup() {
	[ -n "${BASTION_FAULTS_LOGS:-}" ] && cp "$tmp"/*.log "$tmp"/samples "$BASTION_FAULTS_LOGS"/ 2>/dev/null
	[ -n "$live_pid" ] && kill "$live_pid" 2>/dev/null
	for f in "$tmp"/*.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.2
	# every process in these namespaces is this test's (sshds and sessions)
	for ns in "$ns_b" "$ns_n" "$ns_d"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	ip link del "${tag}r" 2>/dev/null
	ip link del "${tag}d" 2>/dev/null
	ip route del unreachable "$net".5.0/24 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ip netns add "$ns_b" && ip netns add "$ns_n" && ip netns add "$ns_d" || skip_all "cannot create network namespaces"
for ns in "$ns_b" "$ns_n" "$ns_d"; do
	ip -n "$ns" link set lo up
done
ip link add "${tag}r" type veth peer name b0 netns "$ns_b" || skip_all "no veth"
ip addr add "$net".4.1/24 dev "${tag}r"
ip link set "${tag}r" up
ip -n "$ns_b" addr add "$net".4.2/24 dev b0
ip -n "$ns_b" link set b0 up
ip link add n0 netns "$ns_b" type veth peer name n0 netns "$ns_n"
ip -n "$ns_b" addr add "$net".5.1/24 dev n0
ip -n "$ns_b" link set n0 up
ip -n "$ns_n" link set n0 up
ip link add "${tag}d" type veth peer name d0 netns "$ns_d"
ip addr add "$net".6.1/24 dev "${tag}d"
ip link set "${tag}d" up
ip -n "$ns_d" addr add "$net".6.2/24 dev d0
ip -n "$ns_d" link set d0 up
ip route add unreachable "$net".5.0/24 || skip_all "cannot add an unreachable route for $net.5.0/24"
# The lossy link: netem where the kernel has it, else a token bucket so
# narrow that its queue overflows (loss and delay: this test machine's
# kernel has tbf but no netem and no tc classifiers); else no lossy phase.
if tc qdisc add dev "${tag}r" root netem loss 0% 2>/dev/null; then
	lossy="netem loss 40%"
elif tc qdisc add dev "${tag}r" root tbf rate 4kbit burst 1600 limit 1600 2>/dev/null; then
	lossy="tbf rate 4kbit burst 1600 limit 1600"
else
	lossy=
fi
[ -n "$lossy" ] && tc qdisc del dev "${tag}r" root

ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || exit 1
cp "$tmp/id.pub" "$tmp/authorized_keys"
mkdir -p /run/sshd "$tmp/home" # HOME for the sessions: not the machine's root dotfiles
# start_sshd NAMESPACE NAME LISTEN_ADDRESS
start_sshd() {
	cat >"$tmp/sshd-$2.conf" <<EOF
ListenAddress $3
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
	rm -f "$tmp/sshd-$2.pid"
	ip netns exec "$1" /usr/sbin/sshd -f "$tmp/sshd-$2.conf" -E "$tmp/sshd-$2.log" || return 1
	for _ in $(seq 50); do
		[ -s "$tmp/sshd-$2.pid" ] && return 0
		sleep 0.1
	done
	return 1
}
start_sshd "$ns_b" bastion "$net.4.2:22" || skip_all "sshd did not start"
hostkey=$(cut -d' ' -f1,2 "$tmp/hostkey.pub")
echo "$net.4.2 $hostkey" >"$tmp/known_hosts"
nodes=
for i in $(seq "$behind"); do
	ip -n "$ns_n" addr add "$net.5.$((9 + i))/24" dev n0 2>/dev/null ||
		ip -n "$ns_n" addr add "$net.5.$((9 + i))/32" dev n0
	start_sshd "$ns_n" "b$i" "$net.5.$((9 + i)):22" || skip_all "node sshd b$i did not start"
	echo "$net.5.$((9 + i)) $hostkey" >>"$tmp/known_hosts"
	nodes="$nodes b$i"
done
for i in $(seq "$direct"); do
	ip -n "$ns_d" addr add "$net.6.$((9 + i))/24" dev d0 2>/dev/null ||
		ip -n "$ns_d" addr add "$net.6.$((9 + i))/32" dev d0
	start_sshd "$ns_d" "d$i" "$net.6.$((9 + i)):22" || skip_all "node sshd d$i did not start"
	echo "$net.6.$((9 + i)) $hostkey" >>"$tmp/known_hosts"
	nodes="$nodes d$i"
done
{
	echo "Host bastion"
	echo "    HostName $net.4.2"
	for i in $(seq "$behind"); do
		printf 'Host b%d\n    HostName %s.5.%d\n    ProxyJump bastion\n' "$i" "$net" $((9 + i))
	done
	for i in $(seq "$direct"); do
		printf 'Host d%d\n    HostName %s.6.%d\n' "$i" "$net" $((9 + i))
	done
	echo "Host *"
	echo "    User root"
	echo "    IdentityFile $tmp/id"
	echo "    UserKnownHostsFile $tmp/known_hosts"
	echo "    GlobalKnownHostsFile none"
	echo "    ServerAliveInterval 2"
} >"$tmp/ssh_config"
printf '{"defaults": {"expect": {"chrony": "no"}}}\n' >"$tmp/synctop.json"

# synctop, live; ASan's quarantine would hide a trend under its own growth.
# 5 s of connect timeout, as the soak ran it.  (With the default 10 s, one
# fresh-clone run of the parallel suite saw the nodes behind the bastion not
# come back after the link was up again, for 127 s; seven runs alone or
# beside CPU burners did not: not understood, reported in the stop's note.)
connect_timeout=5
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
# shellcheck disable=SC2086
"$bin" -d "$interval" -F "$tmp/ssh_config" --config "$tmp/synctop.json" --clock-check 0 --connect-timeout "$connect_timeout" \
	--prometheus "$tmp/live.prom" --log "$tmp/live.log" $nodes >/dev/null 2>"$tmp/live.err" </dev/null &
live_pid=$!

# One sample line per 0.5 s: time, behind nodes up, direct nodes up, age of
# the oldest direct node's newest answer, age of the file, RSS KiB, fds.
sample() {
	local now rss fds
	now=$(date +%s.%N)
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$live_pid/status" 2>/dev/null)
	fds=$(find "/proc/$live_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	awk -v now="$now" -v rss="${rss:-0}" -v fds="$fds" '
		/^synctop_node_up\{/ { if ($0 ~ /node="b/) b += $NF; else d += $NF }
		/^synctop_node_observation_timestamp_seconds\{node="d/ { n++; if (n == 1 || $NF < oldest) oldest = $NF }
		/^synctop_last_sweep_timestamp_seconds / { sweep = $NF }
		END { printf "%.1f %d %d %.1f %.1f %d %d\n", now, b, d, n ? now - oldest : -1,
		      sweep ? now - sweep : -1, rss, fds }' "$tmp/live.prom" 2>/dev/null
}
sampler() {
	while kill -0 "$live_pid" 2>/dev/null; do
		sample >>"$tmp/samples"
		sleep 0.5
	done
}
sampler &
sampler_pid=$!
echo "$sampler_pid" >"$tmp/sampler.pid"
last() { tail -n 1 "$tmp/samples" 2>/dev/null; }
# wait_for AWK_CONDITION SECONDS: until the newest sample satisfies it
wait_for() {
	local deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		last | awk "NF && !/^#/ { r = ($1) } END { exit !r }" && return 0
		sleep 0.5
	done
	return 1
}
mark() { echo "# $*" >>"$tmp/samples"; }

wait_for "\$2 == $behind && \$3 == $direct" 40
ok $? "all $behind nodes behind the bastion and $direct direct nodes up ($(last))"
sleep 2 # every node's session settled
base_fds=$(last | awk '{ print $7 }')
base_rss=$(last | awk '{ print $6 }')

cycle() { # cycle N: the three faults, each undone
	local c=$1
	# 1. the bastion's sshd dies with every connection it carries
	mark "cycle $c: kill the bastion's sshd"
	local bpid children
	bpid=$(cat "$tmp/sshd-bastion.pid")
	children=$(ps -o pid= --ppid "$bpid")
	# shellcheck disable=SC2086
	kill "$bpid" $children 2>/dev/null
	wait_for "\$2 == 0" 15
	ok $? "cycle $c: the bastion's sshd killed: its nodes go down ($(last))"
	sleep 3 # a few polls of the direct nodes with the bastion refusing
	start_sshd "$ns_b" bastion "$net.4.2:22" || diag "bastion sshd did not restart"
	mark "cycle $c: bastion sshd back"
	wait_for "\$2 == $behind && \$3 == $direct" 45
	ok $? "cycle $c: the bastion's sshd back: every node up again ($(last))"

	# 2. the bastion's link goes down: no RST, packets just vanish
	mark "cycle $c: bastion link down"
	ip -n "$ns_b" link set b0 down
	wait_for "\$2 == 0" 30
	ok $? "cycle $c: the bastion's link down: its nodes go down ($(last))"
	ip -n "$ns_b" link set b0 up
	mark "cycle $c: bastion link up"
	wait_for "\$2 == $behind && \$3 == $direct" 60
	ok $? "cycle $c: the bastion's link up: every node up again ($(last))"

	# 3. a lossy link to the bastion for 8 s, then a clean one
	[ -n "$lossy" ] || return 0
	mark "cycle $c: $lossy"
	# shellcheck disable=SC2086
	tc qdisc add dev "${tag}r" root $lossy
	sleep 8
	diag "cycle $c: behind nodes up during the lossy link, by 0.5 s sample: $(awk -v c="cycle $c: $lossy" '$0 == "# " c { f = 1; next } f && /^#/ { exit } f { printf "%s ", $2 }' "$tmp/samples")"
	tc qdisc del dev "${tag}r" root
	mark "cycle $c: link clean"
	wait_for "\$2 == $behind && \$3 == $direct" 60
	ok $? "cycle $c: after 8 s of \"$lossy\" to the bastion: every node up ($(last))"
}

start=$SECONDS
cycle 1
sleep 1
first_rss=$(last | awk '{ print $6 }')
c=1
while [ $((SECONDS - start)) -lt $((soak_min * 60)) ]; do
	c=$((c + 1))
	cycle "$c"
done
sleep 2
end_fds=$(last | awk '{ print $7 }')
end_rss=$(last | awk '{ print $6 }')
kill "$sampler_pid" 2>/dev/null
kill -0 "$live_pid" 2>/dev/null
ok $? "synctop still running after $c cycle(s) ($(tail -n 3 "$tmp/live.err" | tr '\n' ' '))"

# The direct nodes' cadence: at -d 1 a node's newest answer is at most one
# interval plus a round trip old; allow 4 intervals (+3 s) for a loaded
# machine (the parallel suite: probes of 5.3 s were seen).  A loop stalled
# behind the dead bastion for a whole connect timeout (5 s) would read about
# 6 s here, under the limit: this check catches longer stalls only.
limit=$((4 * interval + 3))
worst=$(awk '!/^#/ && $4 >= 0 { if ($4 > w) w = $4 } END { printf "%.1f", w }' "$tmp/samples")
awk -v w="$worst" -v l="$limit" 'BEGIN { exit !(w <= l) }'
ok $? "direct nodes kept their cadence through every fault: newest answer at most ${worst} s old (limit $limit s)"
stale=$(awk '!/^#/ && $5 >= 0 { if ($5 > w) w = $5 } END { printf "%.1f", w }' "$tmp/samples")
awk -v w="$stale" -v l="$limit" 'BEGIN { exit !(w <= l) }'
ok $? "the Prometheus file kept being written: at most ${stale} s old (limit $limit s)"
dropped=$(awk '!/^#/ && NR > 1 && $3 < '"$direct"' { n++ } END { print n + 0 }' "$tmp/samples")
[ "$dropped" -le 2 ]
ok $? "a direct node was seen down in $dropped samples (at most 2 allowed: a poll lost under load)"
[ "$end_fds" -le $((base_fds + 2)) ]
ok $? "open files back to where they were: $base_fds after start-up, $end_fds at the end"
# RSS.  The soak: the end may exceed the first cycle's end by 25% + 4 MiB
# (allocator and sanitizer noise), not more, whatever the number of cycles,
# so a leak per fault shows.  One cycle can only catch a gross leak: the
# end within twice the RSS with every node up, + 16 MiB (the first
# reconnections grow ASan's and libssh2's pools once).
if [ "$c" -gt 1 ]; then
	[ "$end_rss" -le $((first_rss * 5 / 4 + 4096)) ]
	ok $? "RSS bounded: ${first_rss} KiB after cycle 1, ${end_rss} KiB after cycle $c"
else
	[ "$end_rss" -le $((base_rss * 2 + 16384)) ]
	ok $? "RSS bounded: ${base_rss} KiB with every node up, ${end_rss} KiB after one cycle"
fi
grep -q 'jump host bastion' "$tmp/live.log"
ok $? "--log tells what happened to the bastion connection"
done_testing
