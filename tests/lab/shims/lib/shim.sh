# shim.sh - replay logic shared by the lab's shim tools (POSIX sh, sourced).
#
# A shim node is an sshd on 127.0.0.1 whose PATH starts with one scenario
# directory (shims/<scenario>/).  Each tool there is a few lines saying which
# captured output it replays for which arguments; this file parses the
# arguments the way the real tool does and replays.  The shims are strict on
# purpose: an invocation no capture covers fails loudly (rc 64, message on
# stderr) instead of replaying something that was never observed, so a change
# in synctop's probe shows up as a failing test, not as silently wrong data.
#
# Sourced by a script run through PATH, so $0 is that script's full path.
# POSIX sh has no local variables: helpers use _prefixed names so they never
# clobber a caller's loop variables.

# No globbing anywhere: remote-looking words are split, never expanded.
set -f

SHIM_DIR=${0%/*}
SHIM_FIX=$SHIM_DIR/../fixtures
SHIM_TOOL=${0##*/}

# The strict failure: nothing on stdout, one line on stderr, rc 64 (EX_USAGE).
shim_unsupported() {
	printf 'synctop-lab shim %s (%s): no capture for: %s\n' \
		"$SHIM_TOOL" "${SHIM_DIR##*/}" "$*" >&2
	exit 64
}

shim_fixture() {
	if [ ! -r "$SHIM_FIX/$1" ]; then
		printf 'synctop-lab shim %s: fixture %s missing\n' "$SHIM_TOOL" "$1" >&2
		exit 70
	fi
	printf '%s\n' "$SHIM_FIX/$1"
}

# Print a fixture verbatim.
shim_cat() {
	_sc_f=$(shim_fixture "$1") || exit
	cat "$_sc_f"
}

# ------------------------------------------------------------------ chronyc

# chronyc 4.3 options (getopt "+46acdef:h:mnNp:v", options before commands).
# Sets CHRONYC_CSV, CHRONYC_MULTI, CHRONYC_HOST and CHRONYC_NOPTS (words used).
chronyc_parse() {
	CHRONYC_CSV=0 CHRONYC_MULTI=0 CHRONYC_HOST='' CHRONYC_NOPTS=0
	while [ $# -gt 0 ]; do
		case $1 in
		--version)
			shim_cat chronyc-version.txt
			exit 0
			;;
		--)
			CHRONYC_NOPTS=$((CHRONYC_NOPTS + 1))
			return 0
			;;
		-?*)
			;;
		*)
			return 0
			;;
		esac
		opts=${1#-}
		used=1
		while [ -n "$opts" ]; do
			c=${opts%"${opts#?}"}
			opts=${opts#?}
			case $c in
			c) CHRONYC_CSV=1 ;;
			m) CHRONYC_MULTI=1 ;;
			n|4|6|a|d|e|N) ;;
			v)
				shim_cat chronyc-version.txt
				exit 0
				;;
			h|p|f)
				# the option argument is the rest of this word or the next word
				if [ -n "$opts" ]; then
					arg=$opts
					opts=
				elif [ $# -ge 2 ]; then
					arg=$2
					used=2
				else
					shim_unsupported "option -$c without argument"
				fi
				if [ "$c" = h ]; then
					# shellcheck disable=SC2034 # read by the scenario scripts
					CHRONYC_HOST=$arg
				fi
				;;
			*)
				shim_unsupported "option -$c"
				;;
			esac
		done
		CHRONYC_NOPTS=$((CHRONYC_NOPTS + used))
		shift "$used"
	done
}

# Print one section of a chronyc capture: "all", or, for a `-c -m tracking
# sources sourcestats` capture, "tracking" (line 1), "sources" (records that
# start with a mode character) or "sourcestats" (the other records).
chronyc_section() {
	_cs_f=$(shim_fixture "$1") || exit
	case $2 in
	all) cat "$_cs_f" ;;
	tracking) sed -n 1p "$_cs_f" ;;
	sources) sed -n '2,$p' "$_cs_f" | grep '^[#=^],' || true ;;
	sourcestats) sed -n '2,$p' "$_cs_f" | grep -v '^[#=^],' || true ;;
	*) shim_unsupported "bad section $2" ;;
	esac
}

# chronyc_replay "$@" <<EOF  with map lines "c|t COMMAND FIXTURE SECTION"
# (c = CSV output with -c, t = text output).  Every command is checked before
# anything is printed, so an unknown command never yields half an answer.
chronyc_replay() {
	map=
	while IFS= read -r line; do
		map="$map$line
"
	done
	chronyc_parse "$@"
	shift "$CHRONYC_NOPTS"
	[ $# -gt 0 ] || shim_unsupported "interactive chronyc (no command)"
	if [ "$CHRONYC_MULTI" = 0 ]; then
		# without -m all the words form one command line
		set -- "$*"
	fi
	mode=t
	[ "$CHRONYC_CSV" = 1 ] && mode=c
	plan=
	for cmd in "$@"; do
		hit=
		while read -r m c f s; do
			if [ "$m" = "$mode" ] && [ "$c" = "$cmd" ]; then
				hit="$f $s"
				break
			fi
		done <<EOF
$map
EOF
		[ -n "$hit" ] || shim_unsupported "chronyc ($mode) '$cmd'"
		plan="$plan$hit
"
	done
	while read -r f s; do
		[ -n "$f" ] && chronyc_section "$f" "$s"
	done <<EOF
$plan
EOF
	exit 0
}

# -------------------------------------------------------------------- pmc

# pmc 3.1.1 options.  synctop must ask the local ptp4l only: -u (UDS) and
# -b 0 (otherwise other clocks answer too, pitfall 9), so both are required.
# Sets PMC_NOPTS.
pmc_parse() {
	PMC_NOPTS=0 pmc_u=0 pmc_b=1
	while [ $# -gt 0 ]; do
		case $1 in
		-v)
			shim_cat pmc-version.txt
			exit 0
			;;
		-u) pmc_u=1 ;;
		-2|-4|-6|-z) pmc_u=0 ;;
		-b|-d|-f|-i|-s|-t)
			[ $# -ge 2 ] || shim_unsupported "option $1 without argument"
			[ "$1" = -b ] && pmc_b=$2
			PMC_NOPTS=$((PMC_NOPTS + 1))
			shift
			;;
		-b*) pmc_b=${1#-b} ;;
		-[dfist]?*) ;;
		-*) shim_unsupported "option $1" ;;
		*) break ;;
		esac
		PMC_NOPTS=$((PMC_NOPTS + 1))
		shift
	done
	[ "$pmc_u" = 1 ] || shim_unsupported "pmc without -u (would ask the network, not the local ptp4l)"
	[ "$pmc_b" = 0 ] || shim_unsupported "pmc with boundary hops $pmc_b (only -b 0 is captured)"
}

# The data set name of a "GET NAME" command, or fail strictly.
pmc_dataset() {
	# shellcheck disable=SC2086 # split into words on purpose (set -f is on)
	set -- $1
	if [ $# -ne 2 ] || [ "$1" != GET ]; then
		shim_unsupported "pmc command '$*'"
	fi
	printf '%s\n' "$2"
}

# Print the response block for data set $2 found in capture $1, renumbered
# to sequence number $3 (pmc numbers the requests of one call from 0).
#
# With PMC_FRESH_SYNC_AHEAD_NS set (a shim whose node has a PHC: how far the
# PHC runs ahead of CLOCK_REALTIME), TIME_STATUS_NP's ingress_time says the
# last Sync arrived 100 ms ago in that clock: a capture's own ingress_time
# is days old at replay, and the Sync-age rule would rightly call it stale.
pmc_block() {
	_pb_f=$(shim_fixture "$1") || exit
	_pb_fresh=
	if [ -n "${PMC_FRESH_SYNC_AHEAD_NS:-}" ] && [ "$2" = TIME_STATUS_NP ]; then
		_pb_fresh=$(( $(date +%s%N) + PMC_FRESH_SYNC_AHEAD_NS - 100000000 ))
	fi
	awk -v ds="$2" -v seq="$3" -v fresh="$_pb_fresh" '
		p && fresh != "" && $1 == "ingress_time" { sub(/[0-9]+$/, fresh) }
		/^\t[^\t]/ {
			p = 0
			if (!done && $NF == ds && $0 ~ / RESPONSE MANAGEMENT /) {
				p = 1
				done = 1
				sub(/ seq [0-9]+ /, " seq " seq " ")
			}
		}
		/^[^\t]/ { p = 0 }
		p { print }' "$_pb_f"
}

# pmc_replay "$@" <<EOF  with map lines "DATASET FIXTURE".  Output follows the
# interleaving of the genuine batch capture: "sending:" for request i+1 comes
# before the response to request i.  Real pmc waits 100 ms for late answers.
pmc_replay() {
	map=
	while IFS= read -r line; do
		map="$map$line
"
	done
	pmc_parse "$@"
	shift "$PMC_NOPTS"
	[ $# -gt 0 ] || shim_unsupported "interactive pmc (no command)"
	plan=
	for cmd in "$@"; do
		ds=$(pmc_dataset "$cmd") || exit
		# linuxptp 3.1's pmc does not know it (4.0 added it): it says so
		# on stderr, sends nothing and goes on (pmc-synctop-master.stderr.txt)
		if [ "$ds" = PORT_SERVICE_STATS_NP ]; then
			printf 'bad command: GET %s\n' "$ds" >&2
			continue
		fi
		hit=
		while read -r d f; do
			if [ "$d" = "$ds" ]; then
				hit=$f
				break
			fi
		done <<EOF
$map
EOF
		[ -n "$hit" ] || shim_unsupported "pmc GET $ds"
		plan="$plan$ds $hit
"
	done
	i=0
	prev_f=
	prev_ds=
	while read -r ds f; do
		[ -n "$ds" ] || continue
		printf 'sending: GET %s\n' "$ds"
		if [ -n "$prev_f" ]; then
			pmc_block "$prev_f" "$prev_ds" $((i - 1))
		fi
		prev_f=$f
		prev_ds=$ds
		i=$((i + 1))
	done <<EOF
$plan
EOF
	pmc_block "$prev_f" "$prev_ds" $((i - 1))
	sleep 0.1
	exit 0
}

# pmc with no ptp4l listening (genuine: pmc-no-ptp4l-*.txt): one "sending:"
# line per request, no response, rc 0 after the 100 ms wait.
pmc_no_daemon() {
	pmc_parse "$@"
	shift "$PMC_NOPTS"
	[ $# -gt 0 ] || shim_unsupported "interactive pmc (no command)"
	for cmd in "$@"; do
		ds=$(pmc_dataset "$cmd") || exit
		if [ "$ds" = PORT_SERVICE_STATS_NP ]; then
			printf 'bad command: GET %s\n' "$ds" >&2
			continue
		fi
		printf 'sending: GET %s\n' "$ds"
	done
	sleep 0.1
	exit 0
}

# ---------------------------------------------------------------- ethtool

# ethtool_replay "$@" <<EOF  with map lines "IFACE FIXTURE"; any other
# interface gets ethtool 6.1's "no such device" answer (stderr, rc 1).
ethtool_replay() {
	map=
	while IFS= read -r line; do
		map="$map$line
"
	done
	case $# in
	1)
		[ "$1" = --version ] || shim_unsupported "ethtool $*"
		shim_cat ethtool-version.txt
		exit 0
		;;
	2)
		case $1 in
		-T|--show-time-stamping) ;;
		*) shim_unsupported "ethtool $*" ;;
		esac
		;;
	*)
		shim_unsupported "ethtool $*"
		;;
	esac
	while read -r i f; do
		if [ -n "$i" ] && [ "$i" = "$2" ]; then
			shim_cat "$f"
			exit 0
		fi
	done <<EOF
$map
EOF
	shim_cat ethtool-T-no-such-dev.stderr.txt >&2
	exit 1
}

# --------------------------------------------------------------------- ps

# ps_replay "$@" <<EOF  with one process per line, its command name and, when
# it matters, its arguments ("phc2sys /usr/sbin/phc2sys -a -r"; without
# arguments argv is the name alone): what `ps -e -o comm=` prints on a node
# running those processes, or `ps -C NAME -o comm=,args=` (procps pads comm
# to 15 columns; exit 1 when no process has that name).
ps_replay() {
	_ps_sel=
	case "$*" in
	'-e -o comm='|'-e -ocomm='|'-eo comm='|'-A -o comm=') ;;
	*)
		if [ $# -eq 4 ] && [ "$1" = -C ] && [ "$3" = -o ] && [ "$4" = comm=,args= ]; then
			_ps_sel=$2
		else
			shim_unsupported "ps $*"
		fi
		;;
	esac
	_ps_rc=1
	while IFS= read -r line; do
		_ps_comm=${line%% *}
		if [ -z "$_ps_sel" ]; then
			printf '%s\n' "$_ps_comm"
		elif [ "$_ps_comm" = "$_ps_sel" ]; then
			_ps_args=${line#"$_ps_comm"}
			_ps_args=${_ps_args# }
			printf '%-15s %s\n' "$_ps_comm" "${_ps_args:-$_ps_comm}"
			_ps_rc=0
		fi
	done
	[ -z "$_ps_sel" ] && exit 0
	exit "$_ps_rc"
}

# ---------------------------------------------------------------- phc_ctl

# phc_ctl_replay OUT ERR RC VERSION "$@": phc_ctl 3.1.1 as the probe runs it,
# `phc_ctl -q eth0 get cmp` (stdout fixture OUT and stderr fixture ERR, "-"
# for none, exit status RC) and `phc_ctl -v` (VERSION).
phc_ctl_replay() {
	_pc_out=$1 _pc_err=$2 _pc_rc=$3 _pc_ver=$4
	shift 4
	if [ $# -eq 1 ] && [ "$1" = -v ]; then
		printf '%s\n' "$_pc_ver"
		exit 0
	fi
	[ "$*" = '-q eth0 get cmp' ] || shim_unsupported "phc_ctl $*"
	[ "$_pc_out" = - ] || shim_cat "$_pc_out"
	[ "$_pc_err" = - ] || shim_cat "$_pc_err" >&2
	exit "$_pc_rc"
}

# ------------------------------------------------------------------- date

# date on a node whose clock is $1 nanoseconds ahead of the host clock.
# `date +%s.%N` (what synctop asks) is computed exactly; other formats go
# through faketime when it is installed.
date_offset() {
	off=$1
	shift
	if [ $# -eq 1 ] && [ "$1" = '+%s.%N' ]; then
		now=$(/bin/date +%s.%N) || exit
		s=${now%.*}
		ns=${now#*.}
		while :; do
			case $ns in
			0?*) ns=${ns#0} ;;
			*) break ;;
			esac
		done
		t=$((s * 1000000000 + ns + off))
		printf '%d.%09d\n' $((t / 1000000000)) $((t % 1000000000))
		exit 0
	fi
	if command -v faketime >/dev/null 2>&1; then
		exec faketime -f "+$((off / 1000000000)).$(printf %09d $((off % 1000000000)))s" \
			/bin/date "$@"
	fi
	shim_unsupported "date $* (only +%s.%N without faketime)"
}
