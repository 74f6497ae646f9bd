# shellcheck shell=bash disable=SC2034 # variables are for the sourcing scripts
# common.sh - helpers shared by lab-up, lab-down, lab-wait and lab-fault (bash, sourced).
#
# Process identity: a pid alone can be reused, so every process the lab starts
# is recorded as "PID STARTTIME COMM NODE WHAT" in LABDIR/pids.  STARTTIME is
# field 22 of /proc/PID/stat (clock ticks since boot); pid + start time name one
# process for the life of the machine, and teardown signals nothing else.

# Slot numbers map to names, subnet and ports (see lab_slot_names).
LAB_SLOTS=600
LAB_SLOT_PORTS=32
# Where a lab-up reserves its slot; shared by every lab on this machine.
if [ -d /run/lock ]; then
	LAB_LOCKFILE=/run/lock/synctop-lab.lock
else
	LAB_LOCKFILE=/tmp/synctop-lab.lock
fi

lab_log() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

lab_die() {
	lab_log "$*"
	exit 1
}

lab_now() {
	date +%s.%N
}

# Seconds from $1 to $2 (both `date +%s.%N`), two decimals.
lab_secs() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

# The start time of process $1, or fail if it does not exist.
lab_starttime() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	# comm (field 2) may hold spaces and ")"; the fields after the last ") "
	# begin with field 3, so field 22 is the 20th of them.
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $stat
	[ $# -ge 20 ] || return 1
	printf '%s\n' "${20}"
}

# Is the process with pid $1 and start time $2 still running?  A zombie is
# not: PID 1 on a test VM may be slow to reap, or not reap at all.
lab_alive() {
	local stat start=$2
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $stat
	[ $# -ge 20 ] && [ "$1" != Z ] && [ "$1" != X ] && [ "${20}" = "$start" ]
}

lab_comm() {
	local c
	read -r c 2>/dev/null <"/proc/$1/comm" || return 1
	printf '%s\n' "$c"
}

# Is pid $1 still the process that was recorded with start time $2 and
# command name $3?  Right after the fork a recorded process may still be one
# of the launchers that exec the daemon in place, so those names count too.
lab_proc_is() {
	local c
	lab_alive "$1" "$2" || return 1
	c=$(lab_comm "$1") || return 1
	case $c in
	"$3" | setsid | ip | unshare | setpriv | node-exec) return 0 ;;
	esac
	return 1
}

# Append a started process to LABDIR/pids.
lab_record() { # pid comm node what
	local s
	s=$(lab_starttime "$1") || s=gone
	printf '%s %s %s %s %s\n' "$1" "$s" "$2" "$3" "$4" >>"$LABDIR/pids"
}

# Names derived from slot number $1: LAB_ID, LAB_BRIDGE, LAB_NETNS (list),
# LAB_VETHS (root-namespace ends, list).  All <= 15 characters.
lab_slot_names() {
	LAB_ID=$(printf '%03x' "$1")
	LAB_BRIDGE=st${LAB_ID}br
	LAB_NETNS="st${LAB_ID}n1 st${LAB_ID}n2 st${LAB_ID}n3"
	LAB_VETHS="st${LAB_ID}v1 st${LAB_ID}v2 st${LAB_ID}v3"
}

# The alias lab-up puts on its bridge: the proof that the bridge (and so the
# slot and its namespaces) belongs to the lab in LABDIR.
lab_owner_tag() {
	printf 'synctop-lab %s\n' "$LABDIR"
}

lab_netns_exists() {
	[ -e "/run/netns/$1" ]
}

lab_link_exists() {
	[ -e "/sys/class/net/$1" ]
}

# Does the bridge named in lab.id belong to this lab?  An alias-less bridge
# counts: lab-up sets the alias right after creating the bridge under the
# slot lock, so only a lab-up killed in between leaves one behind.
lab_bridge_is_ours() {
	local alias
	lab_link_exists "$LAB_BRIDGE" || return 1
	alias=$(cat "/sys/class/net/$LAB_BRIDGE/ifalias" 2>/dev/null) || alias=
	[ -z "$alias" ] || [ "$alias" = "$(lab_owner_tag)" ]
}

# Is 10.A.B.0/24 ($1 = "10.A.B") unused by every address and route here?
lab_subnet_free() {
	{
		ip -4 -o addr show
		ip -4 route show table all
	} 2>/dev/null | awk -v net="$1" '
		function ip2n(s, a) {
			split(s, a, ".")
			return ((a[1] * 256 + a[2]) * 256 + a[3]) * 256 + a[4]
		}
		BEGIN { base = ip2n(net ".0") }
		{
			for (i = 1; i <= NF; i++) {
				if ($i !~ /^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+(\/[0-9]+)?$/) {
					continue
				}
				p = $i
				len = 32
				if (split($i, pp, "/") == 2) {
					p = pp[1]
					len = pp[2] + 0
				}
				if (len == 0) {
					continue  # a default route overlaps everything
				}
				m = len < 24 ? len : 24
				d = 2 ^ (32 - m)
				if (int(ip2n(p) / d) == int(base / d)) {
					hit = 1
				}
			}
		}
		END { exit hit }'
}

# Is no TCP socket of the root namespace using a port in [$1, $1 + $2)?
lab_ports_free() {
	ss -Htan 2>/dev/null | awk -v lo="$1" -v n="$2" '
		{
			p = $4
			sub(/.*:/, "", p)
			if (p + 0 >= lo && p + 0 < lo + n) {
				hit = 1
			}
		}
		END { exit hit }'
}

# Start a daemon in the background and record it in LABDIR/pids; its pid is
# left in LAB_SPAWNED_PID.  Every launcher in the chain (setsid, ip netns
# exec, unshare, setpriv, node-exec) execs in place, so $! is the daemon's own
# pid.  setsid: no controlling terminal, so a ^C typed at whoever ran lab-up
# never reaches the lab's daemons.  The command line is kept in
# LABDIR/NODE/WHAT.cmd (shell-quoted, sourceable: out=, cmd=()), so that
# lab-fault starts a stopped daemon exactly as lab-up did.
lab_spawn() { # node what comm outfile cmd...
	local node=$1 what=$2 comm=$3 out=$4
	shift 4
	{
		printf 'out=%q\ncmd=(' "$out"
		printf ' %q' "$@"
		printf ' )\n'
	} >"$LABDIR/$node/$what.cmd"
	setsid "$@" </dev/null >>"$out" 2>&1 &
	LAB_SPAWNED_PID=$!
	lab_record "$LAB_SPAWNED_PID" "$comm" "$node" "$what"
}
