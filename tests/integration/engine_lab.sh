#!/bin/bash
# engine_lab.sh - synctop against the real lab: sshd, chronyd -x and ptp4l -S in
# network namespaces, plus shim nodes replaying captured outputs (tests/lab).
# One lab for every case here (PTP takes ~25 s to lock); it is always torn down.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/tap.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for t in ip sshd chronyd ptp4l jq; do
	command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || skip_all "$t not installed"
done

lab=$(mktemp -d /tmp/synctop-engine-lab.XXXXXX)
tmp=$lab/test
cleanup() {
	"$top/tests/lab/lab-down" "$lab" >/dev/null 2>&1
	rm -rf "$lab"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp"
unset SSH_AUTH_SOCK # the operator's agent must not change what is tested

if ! "$top/tests/lab/lab-up" "$lab" >"$tmp/lab-up.log" 2>&1; then
	ok 1 "lab-up"
	diag "$(tail -n 20 "$tmp/lab-up.log")"
	done_testing
	exit 1
fi
. "$lab/lab.env"
cfg=$LAB_SSH_CONFIG

# Everything that does not need a locked PTP slave first, while ptp4l locks.

# --- once --json over shims: states are right and JSON is whole ----------
"$bin" --once --json -F "$cfg" --timeout 6 healthy chrony-down unsync offset300ms faulty no-hwts \
	leap-insert garbage no-tools flood hang rsa-only rsa-sha1 >"$tmp/shims.json" 2>"$tmp/shims.err"
ok $? "--once --json over shim nodes exits 0"
jq -e . "$tmp/shims.json" >/dev/null
ok $? "the JSON parses"
node() { jq -r --arg h "$1" ".nodes[] | select(.host == \$h) | $2" "$tmp/shims.json"; }
expect() { # host, jq expression, expected value
	got=$(node "$1" "$2")
	[ "$got" = "$3" ]
	ok $? "$1: $2 = $3"
	[ "$got" = "$3" ] || diag "got: $got"
}
expect_match() { # host, jq expression, extended regex
	got=$(node "$1" "$2")
	printf '%s' "$got" | grep -Eq -- "$3"
	ok $? "$1: $2 ~ /$3/"
	printf '%s' "$got" | grep -Eq -- "$3" || diag "got: $got"
}
jq -e '.version == 1 and (.generated_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$"))
	and (.summary | has("nodes") and has("ok") and has("warn") and has("crit") and has("unknown")
	     and has("max_abs_offset_s") and has("offset_spread_s"))
	and (.summary.nodes == 13)
	and all(.nodes[]; has("host") and has("status") and has("reachable") and has("error")
	        and has("rtt_s") and has("chrony") and has("ptp") and has("nic") and has("findings"))
	and all(.nodes[] | .chrony | select(. != null);
	        has("leap_status") and has("stratum") and has("reference_id") and has("reference_name")
	        and has("system_time_offset_s") and has("last_offset_s") and has("rms_offset_s")
	        and has("frequency_ppm") and has("residual_frequency_ppm") and has("skew_ppm")
	        and has("root_delay_s") and has("root_dispersion_s") and has("update_interval_s")
	        and has("sources") and has("sourcestats") and has("error"))
	and all(.nodes[] | .ptp | select(. != null);
	        has("port_state") and has("offset_from_master_ns") and has("mean_path_delay_ns")
	        and has("gm_identity") and has("gm_present") and has("steps_removed")
	        and has("clock_identity") and has("error") and has("gm_clock_class")
	        and has("gm_clock_accuracy") and has("gm_offset_scaled_log_variance")
	        and has("time_source") and has("ptp_timescale") and has("time_traceable")
	        and has("frequency_traceable"))
	and all(.nodes[] | .nic | select(. != null);
	        has("interface") and has("hw_transmit") and has("hw_receive") and has("hw_raw_clock")
	        and has("phc_index") and has("error"))
	and all(.nodes[].findings[]; has("severity") and has("code") and has("message") and has("hint"))' \
	"$tmp/shims.json" >/dev/null
ok $? "the JSON has the documented shape"

expect healthy .status ok
expect healthy .chrony.leap_status Normal
expect healthy .ptp.port_state SLAVE
expect healthy .nic.hw_transmit true
expect healthy .nic.phc_index 0
# the shims' grandmaster is locked (clockClass 6, synthetic PARENT_DATA_SET)
expect healthy .ptp.gm_clock_class 6
expect healthy .ptp.gm_clock_accuracy 33
expect chrony-down .status crit
expect_match chrony-down .chrony.error "506|not answering"
expect chrony-down .chrony.system_time_offset_s null
expect unsync .status crit
expect unsync .chrony.leap_status "Not synchronised"
expect_match unsync '[.findings[].code] | join(",")' "chrony.leap"
# the shim's chronyc says "0.300003403 seconds fast": node ahead = positive
expect_match offset300ms .chrony.system_time_offset_s '^0\.30000340'
expect offset300ms .status crit
expect faulty .ptp.port_state FAULTY
expect faulty .status crit
expect_match no-hwts '[.findings[].code] | join(",")' "nic.no_hw_timestamping"
expect no-hwts .nic.hw_transmit false
expect leap-insert .status warn
expect leap-insert .chrony.leap_status "Insert second"
expect garbage .reachable true
expect no-tools .chrony null
expect no-tools .status crit
expect flood .status unknown
expect_match flood .error "256 KiB"
expect hang .status unknown
expect_match hang .error "no answer"
expect rsa-only .status unknown
expect_match rsa-only .error "SHA-1.*ed25519"
expect rsa-sha1 .reachable true
! LC_ALL=C grep -q "$(printf '\033')" "$tmp/shims.json"
ok $? "no escape byte from the garbage node reaches the JSON"

# --- host keys ------------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other_host_key"
read -r kt kb _ <"$tmp/other_host_key.pub"
echo "[127.0.0.1]:$LAB_NODE_healthy_PORT $kt $kb" >"$tmp/wrong_known_hosts"
"$bin" --once --json -F "$cfg" --known-hosts "$tmp/wrong_known_hosts" healthy >"$tmp/hk.json" 2>/dev/null
jq -e '.nodes[0].status == "unknown" and (.nodes[0].error | test("CHANGED"))
	and (.nodes[0].error | test("SHA256:[A-Za-z0-9+/]{43}"))
	and (.nodes[0].error | test("wrong_known_hosts:1"))' "$tmp/hk.json" >/dev/null
ok $? "a changed host key is refused, with the fingerprint and the known_hosts line"

: >"$tmp/empty_known_hosts"
"$bin" --once --json -F "$cfg" --known-hosts "$tmp/empty_known_hosts" healthy >"$tmp/hk2.json" 2>/dev/null
jq -e '.nodes[0].status == "unknown" and (.nodes[0].error | test("not known"))' "$tmp/hk2.json" >/dev/null
ok $? "an unknown host is refused under StrictHostKeyChecking=yes"

"$bin" --once --json -F "$cfg" --known-hosts "$tmp/empty_known_hosts" \
	--strict-host-key-checking accept-new healthy >"$tmp/hk3.json" 2>/dev/null
jq -e '.nodes[0].reachable == true' "$tmp/hk3.json" >/dev/null &&
	grep -q "^\[127.0.0.1\]:$LAB_NODE_healthy_PORT ssh-ed25519 " "$tmp/empty_known_hosts"
ok $? "accept-new connects and records the key"
"$bin" --once --json -F "$cfg" --known-hosts "$tmp/empty_known_hosts" healthy >"$tmp/hk4.json" 2>/dev/null
jq -e '.nodes[0].reachable == true' "$tmp/hk4.json" >/dev/null
ok $? "the recorded key is then accepted under StrictHostKeyChecking=yes"

# --- authentication -------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$tmp/stranger_key"
cat >"$tmp/ssh_config_stranger" <<EOF
Host stranger
	HostName 127.0.0.1
	Port $LAB_NODE_healthy_PORT
	User root
	IdentityFile $tmp/stranger_key
	IdentitiesOnly yes
	UserKnownHostsFile $LAB_KNOWN_HOSTS
EOF
"$bin" --once --json -F "$tmp/ssh_config_stranger" stranger >"$tmp/auth.json" 2>/dev/null
jq -e '.nodes[0].status == "unknown" and (.nodes[0].error | test("^auth: .*stranger_key refused"))' \
	"$tmp/auth.json" >/dev/null
ok $? "an unauthorised key is reported as an authentication failure"

# --- inventory: user@host:port, hostlists, refused port -------------------
"$bin" --once --json --known-hosts "$LAB_KNOWN_HOSTS" -i "$LAB_KEY_ED25519" \
	"root@127.0.0.1:$LAB_NODE_healthy_PORT" 127.0.0.1:1 >"$tmp/inv.json" 2>/dev/null
jq -e --arg h "127.0.0.1:$LAB_NODE_healthy_PORT" '
	(.nodes[] | select(.host == $h) | .status == "ok")
	and (.nodes[] | select(.host == "127.0.0.1:1") | .status == "unknown" and (.error | test("refused")))' \
	"$tmp/inv.json" >/dev/null
ok $? "user@host:port without ssh config works; a refused port is unknown with the reason"

# --- check exit codes -----------------------------------------------------
check_rc() { # expected rc, description, hosts...
	want=$1 desc=$2
	shift 2
	"$bin" --check -F "$cfg" --timeout 6 "$@" >"$tmp/check.out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ]
	ok $? "--check $desc exits $want (got $rc)"
	[ "$rc" -eq "$want" ] || diag "$(cat "$tmp/check.out")"
}
check_rc 0 "all ok" healthy
check_rc 1 "worst warn" healthy leap-insert
check_rc 2 "worst crit" healthy leap-insert unsync
check_rc 3 "unknown, none crit" healthy leap-insert flood
"$bin" --check --fail-on crit -F "$cfg" healthy leap-insert >/dev/null 2>&1
ok $? "--fail-on crit lets warnings pass"
"$bin" --check -v -F "$cfg" unsync >"$tmp/check.out" 2>&1
grep -q "^  fix: " "$tmp/check.out" && tail -n 1 "$tmp/check.out" | grep -q "^synctop check: 1 node: 0 ok, 0 warn, 1 crit"
ok $? "--check -v prints the fix and a summary line"

# --- the real daemons -----------------------------------------------------
if ! "$top/tests/lab/lab-wait" "$lab" 60 >"$tmp/wait.log" 2>&1; then
	diag "$(cat "$tmp/wait.log")"
fi
"$bin" --once --json -F "$cfg" -w 'node[1-3]' >"$tmp/real.json" 2>/dev/null
ok $? "--once --json over the netns nodes"
jq -e '[.nodes[].host] == ["node1", "node2", "node3"]' "$tmp/real.json" >/dev/null
ok $? "the hostlist node[1-3] resolves through the ssh config aliases"
jq -e '.nodes[] | select(.host == "node2") | .chrony.leap_status == "Normal"
	and .chrony.reference_name == "'"$LAB_NODE_node1_ADDR"'" and .ptp.port_state == "SLAVE"
	and .ptp.gm_present == true and (.ptp.offset_from_master_ns | type == "number")' \
	"$tmp/real.json" >/dev/null
ok $? "node2: chrony synchronised to node1, PTP port SLAVE with an offset"
jq -e '.nodes[] | select(.host == "node1") | .chrony.stratum == 8 and .ptp.port_state == "MASTER"' \
	"$tmp/real.json" >/dev/null
ok $? "node1: local stratum 8 NTP server, PTP master"
jq -e '.nodes[] | select(.host == "node3") | .ptp.port_state == "UNCALIBRATED" and .status == "warn"' \
	"$tmp/real.json" >/dev/null
ok $? "node3: PTP port UNCALIBRATED is a warning"
# node1's ptp4l announces the default clockClass 248 (no reference): its
# followers and node1 itself (the grandmaster) warn ptp.gm_clock_class.
jq -e '.nodes[] | select(.host == "node2") | .ptp.gm_clock_class == 248 and .ptp.gm_clock_accuracy == 254
	and .ptp.gm_offset_scaled_log_variance == 65535 and .ptp.time_source == 160
	and .ptp.time_traceable == false and .ptp.ptp_timescale == false
	and ([.findings[] | select(.code == "ptp.gm_clock_class")] | length == 1
	     and .[0].severity == "warn" and (.[0].message | test("is clockClass 248: free-running")))' \
	"$tmp/real.json" >/dev/null
ok $? "node2: its grandmaster's clockClass 248 (ptp4l's default) is a warning, named in words"
jq -e '.nodes[] | select(.host == "node1") | [.findings[] | select(.code == "ptp.gm_clock_class")]
	| length == 1 and .[0].severity == "warn" and (.[0].message | test("^This node is the grandmaster, clockClass 248"))' \
	"$tmp/real.json" >/dev/null
ok $? "node1: the grandmaster itself warns about its own clockClass 248"
printf '{"defaults": {"gm_traceable": true}}\n' >"$tmp/traceable.json"
"$bin" --once --json -F "$cfg" --config "$tmp/traceable.json" node1 node2 >"$tmp/traceable.out" 2>/dev/null
jq -e '[.nodes[] | .status] == ["crit", "crit"]
	and all(.nodes[]; [.findings[] | select(.code == "ptp.gm_clock_class" or .code == "ptp.gm_not_traceable")
	        | .severity] == ["crit", "crit"])' "$tmp/traceable.out" >/dev/null
r=$?
ok $r "gm_traceable: clockClass 248 and timeTraceable 0 are crit on node1 and node2"
[ $r -eq 0 ] || diag "$(jq -c '[.nodes[] | [.host, .status, [.findings[].code]]]' "$tmp/traceable.out")"
jq -e '.nodes[] | select(.host == "node2") | (.chrony.sources | length) == 1
	and .chrony.sources[0].state == "selected" and .chrony.sources[0].reach > 0' "$tmp/real.json" >/dev/null
ok $? "node2: chrony sources parsed from the real daemon"

# --- a blackholed node must not hold the others back ----------------------
ip -n "$LAB_NODE_node3_NETNS" link set eth0 down
start=$(date +%s.%N)
# --connect-timeout 20: were the overall 4 s deadline ignored, the run would last 20 s.
"$bin" --once --json -F "$cfg" --timeout 4 --connect-timeout 20 node1 node2 node3 healthy \
	>"$tmp/bh.json" 2>/dev/null
end=$(date +%s.%N)
ip -n "$LAB_NODE_node3_NETNS" link set eth0 up
jq -e '(.nodes[] | select(.host == "node3") | .status == "unknown" and (.error | length > 0))
	and ([.nodes[] | select(.host != "node3") | .reachable] | all)' "$tmp/bh.json" >/dev/null
ok $? "a blackholed node is unknown with a reason while the others answer"
# Not a timing test: the bound only separates "deadline honoured" (~4 s, more on
# a loaded machine) from "waited for the 20 s connect timeout".
awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a < 12) }' &&
	jq -e '.nodes[] | select(.host == "node3") | .error | test("4.0 s deadline|No route to host|timed out")' "$tmp/bh.json" >/dev/null
ok $? "and the run ends at its 4 s deadline ($(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s)"
[ "$(jq -r '.nodes[] | select(.host == "node1") | .rtt_s < 1' "$tmp/bh.json")" = true ]
ok $? "node1 answered within a second despite node3"

# --- live mode keeps one session per node and restarts a hung probe ------
sshd_log=$lab/healthy/log/sshd.log
before=$(grep -c "Accepted publickey" "$sshd_log" 2>/dev/null || echo 0)
# --foreground: without it timeout follows SIGINT with a SIGCONT, which can
# land while LeakSanitizer's exit-time tracer waits for its SIGSTOP to take
# effect; SIGCONT discards it, and tracer and program then wait for each
# other for ever (seen at load 99).  -k: a hang of any kind ends as a failure.
# 6 s, not less: under a loaded CI machine the first handshake alone can take seconds.
timeout --foreground --preserve-status -k 60 -s INT 6 "$bin" -F "$cfg" -d 0.5 healthy >"$tmp/live.out" 2>&1
rc=$?
after=$(grep -c "Accepted publickey" "$sshd_log" 2>/dev/null || echo 0)
polls=$(grep -c "^healthy  *ok " "$tmp/live.out")
[ "$((after - before))" -eq 1 ] && [ "$polls" -ge 4 ] && [ "$rc" -eq 130 ]
ok $? "live mode: $polls tables from $((after - before)) SSH login(s), exit $rc after SIGINT"

timeout --foreground --preserve-status -k 60 -s INT 8 "$bin" -F "$cfg" -d 1 --timeout 2 hang healthy >"$tmp/hang.out" 2>&1
rc=$?
grep -q "^hang .*no answer to the probe within 2.0 s" "$tmp/hang.out" &&
	[ "$(grep -c '^healthy  *ok ' "$tmp/hang.out")" -ge 3 ] && [ "$rc" -eq 130 ]
ok $? "live mode: the hung probe hits its deadline; the healthy node stays ok every interval (exit $rc)"

# --- the dashboard against the lab, in tmux ------------------------------
# The shims replay another grandmaster's clients (96bec0...) than node1's
# real ptp4l; with node1 configured as the grandmaster the verdict does not
# depend on whether node3 has locked yet: healthy and unsync crit (wrong
# grandmaster; unsync also unsynchronised), node1..3 warn (software
# timestamps, a local reference), none ok.
gm1=$(pmc -u -b 0 -s "$LAB_NODE_node1_PTP4L_UDS" 'GET DEFAULT_DATA_SET' 2>/dev/null |
	awk '$1 == "clockIdentity" { print $2; exit }')
printf '{"defaults": {"grandmaster": "%s"}}\n' "$gm1" >"$tmp/gm.json"
if command -v tmux >/dev/null 2>&1; then
	tsock=$tmp/tmux.sock
	tmux -S "$tsock" -f /dev/null new-session -d -s lab -x 160 -y 30 \
		"env LANG=C.UTF-8 TERM=xterm-256color SYNCTOP_THEMES_DIR='$top/themes' '$bin' -F '$cfg' --config '$tmp/gm.json' -d 1 node1 node2 node3 healthy unsync; sleep 30"
	seen=1
	for _ in $(seq 1 100); do
		tmux -S "$tsock" capture-pane -p -t lab >"$tmp/tui.txt" 2>/dev/null
		if grep -q "5 nodes.*2 crit.*3 warn.*0 ok" "$tmp/tui.txt" && grep -q "^node2 .*SLAVE" "$tmp/tui.txt" &&
			grep -q "^healthy .*CRIT" "$tmp/tui.txt"; then
			seen=0
			break
		fi
		sleep 0.2
	done
	ok $seen "dashboard over the lab: header counts (2 crit, 3 warn, 0 ok), node2's SLAVE port, healthy on the wrong grandmaster ($gm1)"
	[ $seen -eq 0 ] || diag "$(cat "$tmp/tui.txt")"
	tmux -S "$tsock" send-keys -t lab q
	tmux -S "$tsock" kill-server >/dev/null 2>&1
fi

done_testing
