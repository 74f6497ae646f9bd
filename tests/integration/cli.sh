#!/bin/sh
# cli.sh - bad command lines and inventories are refused with a clear message
# and exit status 64, before anything connects; the other exit statuses
# (74, 141, 130) keep their numbers.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

expect_usage() { # description, expected stderr substring, args...
	desc=$1 want=$2
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 64 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "$desc (rc=$rc)"
	[ "$rc" -eq 64 ] || diag "$(cat "$tmp/err")"
}

expect_usage "no nodes" "no nodes given" --once
expect_usage "unknown option" "Try 'synctop --help'" --bogus host1
expect_usage "bad interval" "--interval" -d abc host1
expect_usage "zero timeout" "--timeout" --timeout 0 host1
expect_usage "--events with --once" "--events records changes while synctop runs" --once --events /tmp/x.jsonl host1
expect_usage "--events with --check" "not with --once or --check" --check --events /tmp/x.jsonl host1
expect_usage "--events without a file" "--events: expected a file name" --events "" host1
expect_usage "--state-dir without a directory" "--state-dir: expected a directory" --state-dir "" host1
expect_usage "--state-dir and --state" "--state-dir DIR and --state: one or the other" --state-dir /tmp/x --state host1
expect_usage "bad port" "-p" -p 70000 host1
expect_usage "bad fail-on" "--fail-on" --check --fail-on maybe host1
expect_usage "check with json" "separate modes" --check --json host1
expect_usage "json without once" "--json needs --once" --json host1
expect_usage "for without check" "--for goes with --check" --for 10 host1
expect_usage "for with once" "--for goes with --check" --once --for 10 host1
expect_usage "zero for" "--for" --check --for 0 host1
expect_usage "bad for" "--for" --check --for 1x host1
expect_usage "for with a Prometheus source" "alerting rules" --check --for 10 --from-prometheus http://127.0.0.1:9/
expect_usage "--ssh-detail over SSH" "it goes with --from-prometheus" --once --json --ssh-detail host1 host1
expect_usage "--ssh-detail with --check" "shows in --once --json" --check --ssh-detail n1 --from-prometheus http://127.0.0.1:9/
expect_usage "--ssh-detail with the text table" "shows in --once --json" --once --ssh-detail n1 --from-prometheus http://127.0.0.1:9/
expect_usage "--ssh-detail not a host list" "is not a host list" --once --json --ssh-detail "n[1-" --from-prometheus http://127.0.0.1:9/
printf '{"defaults": {}}\n' >"$tmp/noprom.json"
expect_usage "--ssh-detail with a --config of no Prometheus group" "or a --config group with" --once --json --config "$tmp/noprom.json" --ssh-detail n1 host1
printf '{"groups": [{"name": "g", "hosts": "gpu001",\n  "for": {"chrony.ofset": 60}}]}\n' >"$tmp/badfor.json"
expect_usage "config: a for key that is no finding code" "badfor.json:2:11: unknown key \"chrony.ofset\"" \
	--demo --config "$tmp/badfor.json"
expect_usage "hostlist-only without check" "--hostlist-only needs --check" --hostlist-only --once host1
expect_usage "hostile iface" "--iface" --iface 'eth0;reboot' host1
expect_usage "reversed range" "column" --once -w 'gpu[10-01]'
expect_usage "unbalanced bracket" "column" --once 'gpu[1-4'
expect_usage "option-like host" "host" --once -- -oProxyCommand=x
expect_usage "missing hosts file" "$tmp/nope" --once -f "$tmp/nope"
printf 'node1\n\n# comment\nnode[2-3]\nbad host\n' >"$tmp/hosts"
expect_usage "hosts file error names the line" "$tmp/hosts:5" --once -f "$tmp/hosts"
printf 'Host *\n  Port notaport\n' >"$tmp/ssh_config"
expect_usage "ssh config error names the line" "ssh_config:2" --once -F "$tmp/ssh_config" node1
expect_usage "missing -F file" "nope.conf" --once -F "$tmp/nope.conf" node1
# An ssh_config key that changes the route, for a host it applies to: refused
# before anything connects (the log holds no word about node1), naming the
# line; the same key for hosts not polled changes nothing.
printf 'Host bastion\n  ProxyCommand ssh -W %%h:%%p gw\nHost node*\n  ProxyCommand ssh -W %%h:%%p bastion\n' \
	>"$tmp/proxy_config"
expect_usage "ProxyCommand for a target names file:line" "$tmp/proxy_config:4: ProxyCommand applies to node1" \
	--once -F "$tmp/proxy_config" --log "$tmp/proxy.log" node1 node2
grep -q "the line applies to 2 of the nodes" "$tmp/err" && ! grep -q "node1: " "$tmp/proxy.log"
ok $? "ProxyCommand: counted once for all the nodes it hits, no connection attempted"
printf 'Match host node* exec "true"\n  ProxyJump bastion\n' >"$tmp/match_config"
expect_usage "ProxyJump under a Match synctop does not evaluate" "'Match exec'" \
	--once -F "$tmp/match_config" node1
# not a target: a run against a closed loopback port goes ahead (exit 0 with
# the node unreachable), and Debian's stock ssh_config (GSSAPIAuthentication
# yes for every host) costs nothing on stderr
for conf in "$tmp/proxy_config" "$top/tests/fixtures/ssh_config/debian-stock.conf"; do
	"$bin" --once --json --timeout 2 -F "$conf" -p 9 127.0.0.1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '"unknown": 1' "$tmp/out"
	ok $? "$(basename "$conf") for a host it does not route: no error, nothing on stderr (rc=$rc)"
	[ -s "$tmp/err" ] && diag "$(cat "$tmp/err")"
done
# The exec transports: bad values refused before anything runs; a template
# is split once, quotes only (nothing of it may run at start-up).
expect_usage "bad --transport" "--transport: expected libssh2 or ssh, got 'openssh'" --once --transport openssh node1
expect_usage "unbalanced quote in --transport-cmd" "--transport-cmd: unbalanced ' quote starting at column 13" \
	--once --transport-cmd "docker exec 'x {host} sh" node1
expect_usage "--transport-cmd without {host}" "--transport-cmd: the command has no {host}" \
	--once --transport-cmd "docker exec -i node1 sh" node1
expect_usage "empty --transport-cmd" "--transport-cmd: empty command" --once --transport-cmd "  " node1
expect_usage "--transport with --transport-cmd" "one or the other" \
	--once --transport ssh --transport-cmd "docker exec -i {host} sh" node1
printf '{"defaults": {"transport_cmd": "kubectl exec \\"x {host}"}}\n' >"$tmp/bad_cmd.json"
expect_usage "config: unbalanced transport_cmd with line:column" "bad_cmd.json:1:32: \"transport_cmd\": unbalanced" \
	--once --config "$tmp/bad_cmd.json" node1
# With the system ssh client a ProxyCommand is OpenSSH's to run: no exit 64,
# the node's error is what ssh said (here the proxy is `false`).
printf 'Host node*\n  ProxyCommand false\n' >"$tmp/proxy_false"
"$bin" --once --json --timeout 30 --transport ssh -F "$tmp/proxy_false" node1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] &&
	jq -e '.nodes[0].error | test("^connect: ssh exited with status 255")' "$tmp/out" >/dev/null
ok $? "--transport ssh: ProxyCommand is ssh's business, its failure the node's error (rc=$rc)"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/err") $(head -c 300 "$tmp/out")"
# The exec transports hold pipes per node: the soft open-file limit is raised
# to the hard one at start (here a local `sh` stands in for the node).
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -gt 256 ]; then
	(ulimit -Sn 256 && exec "$bin" --clock-check 0 -d 5 --log "$tmp/nofile.log" \
		--transport-cmd "sh -c 'exec sh' {host}" node1) >/dev/null 2>&1 &
	pid=$!
	sleep 1
	soft_now=$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits" 2>/dev/null)
	hard_now=$(awk '/^Max open files/ { print $5 }' "/proc/$pid/limits" 2>/dev/null)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	[ -n "$soft_now" ] && [ "$soft_now" = "$hard_now" ] && grep -q "RLIMIT_NOFILE raised from 256 to" "$tmp/nofile.log"
	ok $? "--transport-cmd raises the open-file soft limit to the hard one (256 -> $soft_now of $hard_now)"
fi
if [ -r /etc/ssh/ssh_config ]; then
	printf 'Include /etc/ssh/ssh_config\n' >"$tmp/with_system"
	"$bin" --once --json --timeout 2 -F "$tmp/with_system" -p 9 127.0.0.1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]
	ok $? "this machine's /etc/ssh/ssh_config: no error, nothing on stderr (rc=$rc)"
	[ -s "$tmp/err" ] && diag "$(cat "$tmp/err")"
fi

"$bin" --help >"$tmp/out" 2>&1
ok $? "--help exits 0"
grep -q -- "--check" "$tmp/out"
ok $? "--help lists --check"
grep -q -- "--sudo .*pmc and phc_ctl" "$tmp/out" && grep -q -- "--pmc-sudo is the old name" "$tmp/out"
ok $? "--help lists --sudo and its old name"
for o in --sudo --pmc-sudo; do
	"$bin" --demo --check "$o" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -ge 0 ] && [ "$rc" -le 3 ] && [ ! -s "$tmp/err" ]
	ok $? "$o is accepted (--check exit $rc)"
done
"$bin" --version >"$tmp/out" 2>&1 && grep -q "libssh2" "$tmp/out" && grep -q "jansson" "$tmp/out" \
	&& grep -q "libev" "$tmp/out" && grep -q "ncurses" "$tmp/out"
ok $? "--version names the libraries"
"$bin" --demo --once --json --log "$tmp/debug.log" >/dev/null 2>&1 &&
	grep -q "synctop .* starting" "$tmp/debug.log" && grep -q "gpu001: poll complete rtt_s=" "$tmp/debug.log" &&
	grep -q "gpu037: connect: .*timed out" "$tmp/debug.log"
ok $? "--log records connections, completed polls and failures"
expect_usage "unwritable log" "--log" --demo --log /nonexistent/dir/log
# A run refused after the log opened still ends its story in the log.
expect_usage "missing hosts file, logged" "$tmp/nope" --once -f "$tmp/nope" --log "$tmp/refused.log"
grep -q "synctop .* starting" "$tmp/refused.log" && grep -q "exiting with status 64" "$tmp/refused.log"
ok $? "--log records the exit status of a run refused before it started"
printf '{\n  "defaults": {\n    "thresholds": {\n      "chrony_ofset_warn_s": 0.001\n    }\n  }\n}\n' >"$tmp/bad.json"
expect_usage "config: unknown key with file:line:column" "bad.json:4:7: unknown key \"chrony_ofset_warn_s\"" \
	--demo --config "$tmp/bad.json"
"$bin" --demo --check --config "$top/docs/synctop.conf.json" >/dev/null 2>&1
rc=$?
[ "$rc" -ge 0 ] && [ "$rc" -le 3 ]
ok $? "the example config is accepted (--check exit $rc)"

# --check --for: the demo's lasting problems still fail it, as --check does.
"$bin" --demo --check >/dev/null 2>&1
once_rc=$?
"$bin" --demo --check --for 1 -d 0.3 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq "$once_rc" ] && grep -q "^synctop check: 50 nodes" "$tmp/out"
ok $? "--check --for judges what lasted (exit $rc, plain --check $once_rc)"
# --check names the failing nodes on one host list line before the summary;
# --hostlist-only prints just such an expression, exit as --check (the demo
# always has a crit node).
"$bin" --demo --check >"$tmp/out" 2>/dev/null
rc=$?
n=$(sed -n '$=' "$tmp/out")
[ "$rc" -eq 2 ] && sed -n "$((n - 1))p" "$tmp/out" | grep -Eq '^hosts not ok: [^ ]+$' &&
	sed -n "${n}p" "$tmp/out" | grep -q '^synctop check: '
ok $? "--check: the hosts not ok line right before the summary (rc=$rc)"
"$bin" --demo --check --hostlist-only >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(sed -n '$=' "$tmp/out")" = 1 ] && grep -Eq '^[^ ]+\[[0-9,-]+\][^ ]*$' "$tmp/out" &&
	[ ! -s "$tmp/err" ]
ok $? "--hostlist-only: one compressed expression, exit 2 (rc=$rc: $(cat "$tmp/out"))"

# The other exit statuses docs/synctop.1 lists.
"$bin" --demo --once --json >/dev/full 2>"$tmp/err"
rc=$?
[ "$rc" -eq 74 ] && grep -q "cannot write the JSON report" "$tmp/err"
ok $? "--json to a full disk: exit 74 (rc=$rc)"
# the reader is gone before the report is written (the demo takes a second)
{ "$bin" --demo --once --json 2>"$tmp/err"; echo $? >"$tmp/rc"; } | true
rc=$(cat "$tmp/rc")
[ "$rc" -eq 141 ] && [ ! -s "$tmp/err" ]
ok $? "--json to a closed pipe: exit 141, nothing said (rc=$rc)"
"$bin" --demo -d 0.2 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ]
ok $? "plain-text live view ended by SIGINT: exit 130 (rc=$rc)"
done_testing
