# lab_ptp.sh - the ptp4l of the self-contained lab tests (sourced after
# lab_netns.sh): software timestamps on veth links, one Sync and one
# Announce a second.  Nothing here starts a process.
#
# lab_ptp4l_conf FILE SOCKET ROLE [LINE...]
#   writes a ptp4l config to FILE whose management socket is SOCKET; ROLE
#   master (priority1 100: it wins the election), slave (slaveOnly 1) or
#   lone (neither); each LINE is added to [global] as it is.
# lab_ptp_state NS SOCKET
#   prints the port state (SLAVE, MASTER, UNCALIBRATED, ...) of the ptp4l
#   behind SOCKET in namespace NS, nothing if it does not answer.
# lab_ptp_wait NS WANT SOCKET...
#   waits up to 90 s (a slave on software timestamps locks in ~20-30 s, a
#   loaded machine takes longer) until every SOCKET's port is in state WANT;
#   lab_ptp_states holds their states, space separated, in the order
#   given.  True when all reached it.
lab_ptp4l_conf() {
	local file=$1 sock=$2 role=$3
	shift 3
	{
		echo "[global]"
		echo "uds_address $sock"
		echo "time_stamping software"
		echo "logSyncInterval 0"
		echo "logAnnounceInterval 0"
		echo "summary_interval 0"
		echo "use_syslog 0"
		case $role in
		master) echo "priority1 100" ;;
		slave) echo "slaveOnly 1" ;;
		esac
		for line in "$@"; do
			echo "$line"
		done
	} >"$file"
}

lab_ptp_state() {
	ip netns exec "$1" /usr/sbin/pmc -u -b 0 -s "$2" 'GET PORT_DATA_SET' 2>/dev/null |
		awk '$1 == "portState" { print $2 }'
}

lab_ptp_wait() {
	local ns=$1 want=$2 i s st all
	shift 2
	for i in $(seq 90); do
		lab_ptp_states=
		all=yes
		for s in "$@"; do
			st=$(lab_ptp_state "$ns" "$s")
			lab_ptp_states="${lab_ptp_states:+$lab_ptp_states }${st:-none}"
			[ "$st" = "$want" ] || all=no
		done
		[ $all = yes ] && return 0
		sleep 1
	done
	return 1
}
