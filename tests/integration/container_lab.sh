#!/bin/bash
# container_lab.sh - the container trap (issue 17) with real cgroups: three
# real chronyd on a lab node polled through a real sshd, one on the "host",
# one in a cgroup named like a docker container and one in a cgroup named
# like a Kubernetes pod's containerd scope, checked with `synctop --once
# --json` and --check.
#
# The node is a network, PID and mount namespace of its own (so ps there
# lists the lab's processes only, not the machine's), with its own sshd.
# This host is hybrid: /sys/fs/cgroup/unified is the v2 tree, the v1
# hierarchies include name=systemd and pids; the script creates the two
# "container" cgroups (their names carry its tag) in the unified,
# name=systemd and pids trees, moves the chronyd there, and removes them
# on exit.
#
# Every chronyd runs with -x (it never touches the clock: chrony's null
# clock driver), -u root (so it keeps the capabilities it started with;
# chronyd -x that drops root also drops CAP_SYS_TIME) and a config, PID
# file and command socket of its own.  The host's and the pod's keep
# CAP_SYS_TIME in their bounding set: both *could* set the clock, so the
# pod's chronyd is time.daemon_in_container crit beside the host's; the
# docker one runs under `setpriv --bounding-set -sys_time`: warn.  Then the
# host's chronyd stops: the pod's is the node's only steering daemon and
# the crit goes, the warn stays.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, cgroups, sshd)"
for p in ip unshare nsenter /usr/sbin/chronyd /usr/sbin/sshd setpriv ssh-keygen jq; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
cg2=/sys/fs/cgroup/unified
[ -f /sys/fs/cgroup/cgroup.controllers ] && cg2=/sys/fs/cgroup
[ -w "$cg2" ] || skip_all "no writable cgroup v2 tree"

lab_begin ct
tag=$lab_tag
ns=${lab_tag}n
hex=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
docker_cg=docker-$tag$hex.scope
pod_cg=kubepods-$tag.slice/kubepods-$tag-besteffort.slice/kubepods-$tag-besteffort-pod${hex:0:8}.slice
pod_cg=$pod_cg/cri-containerd-$hex.scope
trees="$cg2"
for v1 in /sys/fs/cgroup/systemd /sys/fs/cgroup/pids; do
	[ -d "$v1" ] && [ -w "$v1" ] && trees="$trees $v1"
done
init=
lab_on_cleanup() {
	# unshare --fork ignores SIGTERM: end the node's PID 1 (sshd), which
	# ends every process of its PID namespace
	if [ -n "$init" ] && [ -r "/proc/$init/task/$init/children" ]; then
		read -r p _ <"/proc/$init/task/$init/children" && kill "$p" 2>/dev/null
	fi
	sleep 0.3
	# processes left in the lab's cgroups, then the cgroups, deepest first
	for t in $trees; do
		for d in "$t/$pod_cg" "$t/$docker_cg"; do
			[ -f "$d/cgroup.procs" ] || continue
			while read -r p; do kill "$p" 2>/dev/null; done <"$d/cgroup.procs"
		done
	done
	sleep 0.3
	for t in $trees; do
		d=$t/$pod_cg
		while [ "$d" != "$t" ]; do
			rmdir "$d" 2>/dev/null
			d=${d%/*}
		done
		rmdir "$t/$docker_cg" 2>/dev/null
	done
}

for t in $trees; do
	mkdir -p "$t/$pod_cg" "$t/$docker_cg" || skip_all "cannot create cgroups under $t"
done

# this helper's subnets are 10.62.0.0/24 .. 10.62.9.0/24
lab_subnet 10.62.0-9
lab_netns n
lab_uplink "$ns" ssh0 1 2 30

# chronyd: no sources, no NTP port, its own command socket and files
for who in host docker pod; do
	cat >"$tmp/chrony-$who.conf" <<EOF
port 0
cmdport 0
bindcmdaddress $tmp/chronyd-$who.sock
pidfile $tmp/chronyd-$who.pid
driftfile $tmp/chrony-$who.drift
EOF
done
# chronyc on the node talks to the "host" chronyd
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec /usr/bin/chronyc -h %s "$@"\n' "$tmp/chronyd-host.sock" >"$tmp/bin/chronyc"
chmod 0755 "$tmp/bin/chronyc"

lab_sshd_config "$tmp" "$subnet.2" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin HOME=$tmp" || exit 1
# HOME: the login shell reads no rc file of this machine's root (a shell
# start-up that waits on a lock would time the poll out)

# The node's first process (PID 1 of its PID namespace) is its sshd.
ip netns exec "$ns" unshare --pid --fork --kill-child --mount-proc \
	/usr/sbin/sshd -D -f "$tmp/sshd_config" -E "$tmp/sshd.log" >"$tmp/init.log" 2>&1 &
init=$!
node1=
for _ in $(seq 50); do
	node1=$(cat "/proc/$init/task/$init/children" 2>/dev/null)
	node1=${node1%% *}
	[ -n "$node1" ] && break
	sleep 0.1
done
[ -n "$node1" ] || skip_all "the node's namespaces did not start ($(cat "$tmp/init.log"))"

# Each chronyd enters the node's namespaces from here, after its subshell
# moved itself into its cgroups ("echo 0" moves the writer,
# cgroup-v2.rst): `ip netns exec` remounts /sys, which hides the cgroup
# trees inside the node.
start() { # who, cgroup ("" for the host's), setpriv arguments
	local who=$1 cg=$2
	shift 2
	(
		if [ -n "$cg" ]; then
			for t in $trees; do echo 0 >"$t/$cg/cgroup.procs" || exit 1; done
		fi
		exec nsenter --target "$node1" --pid --mount --net setpriv "$@" \
			/usr/sbin/chronyd -x -u root -f "$tmp/chrony-$who.conf" -d -L 2
	) >"$tmp/chronyd-$who.log" 2>&1 &
	echo $! >"$tmp/nsenter-$who"
	disown
}
start host "" --inh-caps=-all
start docker "$docker_cg" --bounding-set -sys_time
start pod "$pod_cg" --inh-caps=-all

up=0
for _ in $(seq 50); do
	if [ -S "$tmp/chronyd-host.sock" ] && [ -S "$tmp/chronyd-docker.sock" ] &&
		[ -S "$tmp/chronyd-pod.sock" ] && [ -s "$tmp/sshd.pid" ]; then
		up=1
		break
	fi
	sleep 0.2
done
[ $up -eq 1 ]
ok $? "three chronyd and sshd run in the node's namespaces ($(cat "$tmp/init.log" "$tmp"/chronyd-*.log 2>/dev/null | tr '\n' ' ' | head -c 600))"
[ $up -eq 1 ] || { done_testing; exit 1; }

echo "$subnet.2 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
# chronyd -x without sources is unsynchronised: not this test's business
printf '{"defaults": {"expect": {"chrony": "no", "ptp": "no"}}}\n' >"$tmp/synctop.json"
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json"

poll() {
	# shellcheck disable=SC2086
	"$bin" --once --json --clock-check 0 $common "root@$subnet.2" >"$tmp/out.json" 2>"$tmp/err"
}
node=".nodes[0]"
list="$node.daemons.list"
place() { # daemon's PID in the node, jq filter
	jq -r "${list}[] | select(.pid == $1) | $2" "$tmp/out.json"
}
finding() { # severity code -> its message
	jq -r "$node.findings[] | select(.severity == \"$1\" and .code == \"$2\") | .message" "$tmp/out.json"
}

poll
ok $? "--once --json ran ($(head -c 200 "$tmp/err"))"
# PIDs in the node's PID namespace: the chronyd were started by its PID 1
pids=$(jq -r "[${list}[] | select(.daemon == \"chronyd\") | .pid] | sort | map(tostring) | join(\" \")" "$tmp/out.json")
n=$(jq -r "[${list}[] | select(.daemon == \"chronyd\")] | length" "$tmp/out.json")
[ "$n" = 3 ]
ok $? "the node lists three chronyd: $(jq -c "$list" "$tmp/out.json" | head -c 900)"
host_pid="" docker_pid="" pod_pid=""
for p in $pids; do
	case $(place "$p" .container) in
	null) host_pid=$p ;;
	docker) docker_pid=$p ;;
	kubepods) pod_pid=$p ;;
	esac
done
[ -n "$host_pid" ] && [ -n "$docker_pid" ] && [ -n "$pod_pid" ]
ok $? "one on the host, one in docker, one in kubepods (host $host_pid, docker $docker_pid, pod $pod_pid)"
[ "$(place "$docker_pid" .cgroup)" = "/$docker_cg" ]
ok $? "the docker one's cgroup is the one the lab made: $(place "$docker_pid" .cgroup)"
[ "$(place "$pod_pid" .cgroup)" = "/$pod_cg" ] && [ "$(place "$pod_pid" .runtime)" = containerd ]
ok $? "the pod's is its containerd scope: $(place "$pod_pid" .cgroup) $(place "$pod_pid" .runtime)"
[ "$(place "$host_pid" .can_set_time)" = true ] && [ "$(place "$pod_pid" .can_set_time)" = true ] &&
	[ "$(place "$docker_pid" .can_set_time)" = false ]
ok $? "CAP_SYS_TIME: host and pod can set the clock, docker (bounding set without it) cannot"

msg=$(finding crit time.daemon_in_container)
case $msg in
"chronyd (PID $pod_pid, kubepods /kubepods-$tag.slice/.../cri-containerd-"*".scope) can set the clock beside chronyd (PID $host_pid, "*) true ;;
*) false ;;
esac
ok $? "crit time.daemon_in_container names the pod's chronyd and the host's with their cgroups: $msg"
msg=$(finding warn time.daemon_in_container)
case $msg in
"chronyd (PID $docker_pid, docker /docker-$tag"*") cannot set the clock"*) true ;;
*) false ;;
esac
ok $? "warn time.daemon_in_container for the docker chronyd: $msg"
[ "$(jq -r "[$node.findings[] | select(.code == \"time.conflicting_daemons\")] | length" "$tmp/out.json")" = 0 ]
ok $? "time.conflicting_daemons does not repeat it: $(jq -c "[$node.findings[].code]" "$tmp/out.json")"
[ "$(jq -r "$node.status" "$tmp/out.json")" = crit ]
ok $? "the node is crit"

# --check says it too, with the exit status of a crit node
# shellcheck disable=SC2086
"$bin" --check --clock-check 0 $common "root@$subnet.2" >"$tmp/check" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "CRIT time.daemon_in_container: chronyd (PID $pod_pid, kubepods" "$tmp/check"
ok $? "--check exits 2 and names it (rc $rc: $(head -c 300 "$tmp/check"))"

# the host's chronyd stops: the pod's is the only one that steers (its PID
# here, not the node's: nsenter's child)
e=$(cat "$tmp/nsenter-host")
hostd=$(cat "/proc/$e/task/$e/children" 2>/dev/null)
hostd=${hostd%% *}
[ -n "$hostd" ] && [ "$(cat "/proc/$hostd/comm")" = chronyd ] && kill "$hostd"
ok $? "the host's chronyd stopped (PID $hostd here)"
for _ in $(seq 25); do
	[ -e "$tmp/chronyd-host.pid" ] || break
	sleep 0.2
done
poll
ok $? "--once --json ran again"
[ "$(jq -r "[${list}[] | select(.daemon == \"chronyd\")] | length" "$tmp/out.json")" = 2 ] &&
	[ -z "$(finding crit time.daemon_in_container)" ]
ok $? "no crit once the pod's chronyd is the only steering daemon: $(jq -c "[$node.findings[] | [.severity, .code]]" "$tmp/out.json")"
[ -n "$(finding warn time.daemon_in_container)" ]
ok $? "the docker chronyd's warning stays"

done_testing
