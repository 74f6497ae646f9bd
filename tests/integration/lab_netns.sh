# lab_netns.sh - the network namespaces, the client's link, the free subnet
# and the cleanup of the self-contained lab tests (sourced after tap.sh, by
# bash scripts).  Nothing here starts a daemon.
#
# lab_begin TAG [MKTEMP-TEMPLATE]
#   lab_tag=TAG$$ (every namespace and the client's link are named after
#   it), tmp=a new mktemp -d directory, and the traps: EXIT runs
#   lab_cleanup, INT TERM HUP exit 1 (and so run it too).
# lab_netns NAME...
#   creates namespace ${lab_tag}NAME for each NAME, loopback up; skip_all if
#   it cannot.  lab_cleanup ends what is left in them and deletes them.
# lab_subnet A.B.C-D...
#   subnet=A.B.N for the first N in C..D (tried from $$ on, so two runs at
#   once start apart) that no address or route of this machine uses;
#   several ranges are tried in order; skip_all when none is free.
# lab_subnet_free A.B.N
#   true when no address or route of this machine is in A.B.N.0/24.
# lab_uplink NS IFACE HOST NODE PREFIXLEN
#   the client's way in: veth ${lab_tag}r in this namespace, $subnet.HOST,
#   to IFACE in namespace NS, $subnet.NODE; both up.
# lab_link NS_A NS_B IFACE [A_HOST B_HOST PREFIXLEN]
#   a veth pair named IFACE at both ends between namespaces NS_A and NS_B,
#   both up; with addresses, $subnet.A_HOST on NS_A's end and $subnet.B_HOST
#   on NS_B's.  skip_all if there is no veth.
# lab_pid PID...        TERMed by lab_cleanup.
# lab_pid_kill PID...   KILLed and waited for by lab_cleanup (`unshare
#                       --fork`, which ignores TERM while it waits; with
#                       --kill-child its PID namespace goes with it).
# lab_pidfile FILE...   the process FILE names (a PID of this PID
#                       namespace, e.g. sshd's PidFile) is TERMed.
# lab_on_cleanup        if the test defines this function, lab_cleanup runs
#                       it first (tmux servers, cgroups, logs to keep).
#
# lab_cleanup's order: lab_on_cleanup, the PIDs and PID files above, then
# whatever still runs in the lab's namespaces (all of it this test's: the
# names carry its PID), the namespaces, the client's link, $tmp.
lab_lock_dir=/run/lock
[ -d "$lab_lock_dir" ] || lab_lock_dir=/tmp
lab_tag=
lab_namespaces=
lab_pids=
lab_kill_pids=
lab_pidfiles=

lab_begin() {
	lab_tag=$1$$
	tmp=$(mktemp -d ${2:+"$2"})
	trap lab_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

lab_netns() {
	local name
	for name in "$@"; do
		# under a lock: the first `ip netns add` of a boot mounts /run/netns,
		# and two doing that at once leave a mess (Debian bug 949235)
		flock "$lab_lock_dir/synctop-netns.lock" ip netns add "$lab_tag$name" ||
			skip_all "cannot create network namespaces"
		lab_namespaces="$lab_namespaces $lab_tag$name"
		ip -n "$lab_tag$name" link set lo up
	done
}

lab_subnet_free() {
	! { ip -4 -o addr show; ip -4 route show table all; } | grep -qE "(^|[[:space:]])${1//./\\.}\\."
}

lab_subnet() {
	local range base lo hi n i s
	for range in "$@"; do
		base=${range%.*}
		lo=${range##*.}
		hi=${lo#*-}
		lo=${lo%-*}
		n=$((hi - lo + 1))
		for ((i = 0; i < n; i++)); do
			s=$base.$((lo + (i + $$) % n))
			if lab_subnet_free "$s"; then
				subnet=$s
				return 0
			fi
		done
	done
	skip_all "no free /24 among $*"
}

lab_uplink() {
	ip link add "${lab_tag}r" type veth peer name "$2" netns "$1" || skip_all "no veth"
	ip addr add "$subnet.$3/$5" dev "${lab_tag}r"
	ip link set "${lab_tag}r" up
	ip -n "$1" addr add "$subnet.$4/$5" dev "$2"
	ip -n "$1" link set "$2" up
}

lab_link() {
	ip link add "$3" netns "$1" type veth peer name "$3" netns "$2" || skip_all "no veth"
	if [ $# -ge 6 ]; then
		ip -n "$1" addr add "$subnet.$4/$6" dev "$3"
		ip -n "$2" addr add "$subnet.$5/$6" dev "$3"
	fi
	ip -n "$1" link set "$3" up
	ip -n "$2" link set "$3" up
}

lab_pid() {
	lab_pids="$lab_pids $*"
}

lab_pid_kill() {
	lab_kill_pids="$lab_kill_pids $*"
}

lab_pidfile() {
	lab_pidfiles="$lab_pidfiles $*"
}

lab_cleanup() {
	local p f ns
	if declare -F lab_on_cleanup >/dev/null; then
		lab_on_cleanup
	fi
	for p in $lab_kill_pids; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for p in $lab_pids; do
		kill "$p" 2>/dev/null
	done
	for f in $lab_pidfiles; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.3
	for ns in $lab_namespaces; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$lab_tag" ] && ip link del "${lab_tag}r" 2>/dev/null
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
	return 0
}
