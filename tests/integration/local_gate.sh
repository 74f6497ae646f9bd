#!/bin/sh
# local_gate.sh - `synctop --check --local` as a node-local gate, run for
# real on this machine: no SSH, one poll, exit 0-3, one line per problem,
# the failing host named on the "hosts not ok" line and by --hostlist-only.
#
# The host's own time daemons (and other tests' lab daemons) must not decide
# the outcome, so every case runs in private namespaces: a PID namespace
# with its own /proc (the process list holds only what the case starts), a
# mount namespace with a tmpfs on /run (chronyc's socket /run/chrony is the
# case's own) and a network namespace with only loopback (chronyc's UDP
# fallback reaches no other chronyd).  The daemons are real: chronyd -x
# under `setpriv --bounding-set -sys_time`, which can never steer the clock.
#   1. no time daemon: crit time.no_service, exit 2;
#   2. chronyd with no source (unsynchronised): crit, exit 2;
#   3. chronyd synchronised to a second chronyd (`local stratum 3`, in the
#      same network namespace but outside the case's PID namespace): no
#      crit, exit 0 unless a warning is printed (then 1).
# Every process lives in the namespaces' PID namespace and dies with it.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# ---------------------------------------------------------- inside the namespaces
if [ "${1:-}" = --outer ]; then
	d=$2
	mount -t tmpfs -o mode=0755 tmpfs /run || exit 1
	mkdir -m 0750 /run/chrony # chronyd refuses a socket directory others can read
	ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || exit 1

	run_case() { # name, setup commands (inside the case's own PID namespace), --hostlist-only's extra options
		name=$1 setup=$2 hl_opts=${3:-}
		unshare --pid --fork --mount-proc sh -c "
			hl_opts='$hl_opts'
			$setup
			HOME=$d/home \"$bin\" --check --local --timeout 10 --log $d/$name.log >$d/$name.out 2>$d/$name.err
			echo \$? >$d/$name.rc
			HOME=$d/home \"$bin\" --check --local --hostlist-only \$hl_opts --timeout 10 >$d/$name.hl 2>>$d/$name.err
			echo \$? >$d/$name.hlrc
			ps -e -o comm= >$d/$name.ps
		"
	}
	client_chronyd="setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -u root -f $d/client.conf -l $d/client.log"

	run_case none ":"

	rm -f "$d/client.pid"
	printf 'port 0\ncmdport 0\npidfile %s/client.pid\n' "$d" >"$d/client.conf"
	run_case unsynced "$client_chronyd; sleep 1"

	printf 'port 11123\nbindaddress 127.0.0.1\nallow 127.0.0.1\nlocal stratum 3\ncmdport 0\nbindcmdaddress %s/server.sock\npidfile %s/server.pid\ndriftfile %s/server.drift\n' \
		"$d" "$d" "$d" >"$d/server.conf"
	setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -u root -f "$d/server.conf" -l "$d/server.log" || exit 1
	rm -f "$d/client.pid"
	printf 'server 127.0.0.1 port 11123 iburst minpoll -4 maxpoll -4\nport 0\ncmdport 0\npidfile %s/client.pid\n' \
		"$d" >"$d/client.conf"
	run_case synced "$client_chronyd
		i=0
		until chronyc -n tracking 2>/dev/null | grep -q 'Leap status *: Normal'; do
			i=\$((i + 1)); [ \$i -lt 60 ] || break; sleep 0.5
		done
		chronyc -n tracking >$d/synced.tracking 2>&1" "--fail-on crit"
	exit 0
fi

# ---------------------------------------------------------------- the test
[ "$(id -u)" -eq 0 ] || skip_all "needs root (namespaces, chronyd)"
for p in unshare setpriv ip chronyc /usr/sbin/chronyd ps; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
unshare --pid --fork --mount-proc --net --mount true 2>/dev/null || skip_all "cannot create namespaces here"
tmp=$(mktemp -d /tmp/synctop-gate-gt.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
chmod 0755 "$tmp"
# a broken ssh configuration: a node-local check reads none
mkdir -p "$tmp/home/.ssh"
printf 'Port abc\n' >"$tmp/home/.ssh/config"

timeout 120 unshare --pid --fork --mount-proc --net --mount --propagation private sh "$self" --outer "$tmp"
ok $? "the namespaces ran every case"

show() { for f in "$@"; do [ -f "$f" ] && diag "$f:" "$(cat "$f")"; done; }
fail_show() { # status, description, files to show when it failed
	st=$1 desc=$2
	shift 2
	ok "$st" "$desc"
	[ "$st" -eq 0 ] || show "$@"
}

# 1. nothing runs
rc=$(cat "$tmp/none.rc" 2>/dev/null)
[ "$rc" = 2 ] && grep -q '^localhost CRIT time.no_service: ' "$tmp/none.out"
fail_show $? "no time daemon: crit time.no_service, exit 2 (rc=$rc)" "$tmp/none.out" "$tmp/none.err" "$tmp/none.ps"
grep -qx 'hosts not ok: localhost' "$tmp/none.out" &&
	sed -n '$p' "$tmp/none.out" | grep -q '^synctop check: 1 node: 0 ok, 0 warn, 1 crit, 0 unknown;' &&
	[ "$(sed -n '$=' "$tmp/none.out")" = 3 ]
ok $? "one problem line, the failing host on its own line, then the summary"
[ "$(cat "$tmp/none.hl")" = localhost ] && [ "$(cat "$tmp/none.hlrc")" = 2 ]
ok $? "--hostlist-only prints the host and exits 2"
[ ! -s "$tmp/none.err" ]
fail_show $? "a broken ~/.ssh/config is not read, nothing on stderr" "$tmp/none.err"
grep -q 'remote shell started' "$tmp/none.log" && ! grep -qi 'ssh\|handshake' "$tmp/none.log"
fail_show $? "one local poll, no SSH (--log)" "$tmp/none.log"
[ "$(grep -c 'poll complete' "$tmp/none.log")" = 1 ]
ok $? "exactly one poll"

# 2. chronyd without a source
rc=$(cat "$tmp/unsynced.rc" 2>/dev/null)
grep -qx chronyd "$tmp/unsynced.ps" && [ "$rc" = 2 ] &&
	grep -q '^localhost CRIT chrony.leap: Leap status "Not synchronised"' "$tmp/unsynced.out"
fail_show $? "chronyd unsynchronised: crit chrony.leap, exit 2 (rc=$rc)" "$tmp/unsynced.out" "$tmp/unsynced.ps"
[ "$(cat "$tmp/unsynced.hl")" = localhost ] && [ "$(cat "$tmp/unsynced.hlrc")" = 2 ]
ok $? "--hostlist-only agrees"

# 3. chronyd synchronised
rc=$(cat "$tmp/synced.rc" 2>/dev/null)
grep -q 'Leap status *: Normal' "$tmp/synced.tracking"
fail_show $? "the case's chronyd synchronised to its server" "$tmp/synced.tracking"
n_warn=$(grep -c '^localhost WARN ' "$tmp/synced.out")
want=0
[ "$n_warn" -eq 0 ] || want=1
[ "$rc" = "$want" ] && ! grep -q ' CRIT \| UNKNOWN' "$tmp/synced.out" &&
	grep -q "^synctop check: 1 node: $((1 - want)) ok, $want warn, 0 crit, 0 unknown; max |offset| [0-9]" "$tmp/synced.out"
fail_show $? "chronyd synchronised: no crit, an offset, exit $want as its $n_warn warning(s) say (rc=$rc)" "$tmp/synced.out" "$tmp/synced.err"
if [ "$want" = 0 ]; then
	! grep -q 'hosts not ok' "$tmp/synced.out"
else
	grep -qx 'hosts not ok: localhost' "$tmp/synced.out"
fi
ok $? "the host list line only when the node fails"
# a fresh chronyd's skew may still be above its limit: with --fail-on crit
# the answer does not depend on it
[ ! -s "$tmp/synced.hl" ] && [ "$(cat "$tmp/synced.hlrc")" = 0 ]
ok $? "--fail-on crit --hostlist-only: nothing printed, exit 0 (exit $(cat "$tmp/synced.hlrc"))"

done_testing
