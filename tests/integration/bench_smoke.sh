#!/bin/bash
# bench_smoke.sh - bench/run --smoke as a TAP test: 8 loopback sshd nodes, one
# cold sweep per tool (synctop, pdsh, clush), 5 s of steady-state polling and
# the node-side comparison (a temporary user with a slow .bashrc).  Checks
# that the benchmark runs and cleans up after itself, not the numbers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/tap.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (sshd on loopback, mount namespaces, a temporary user)"
for t in /usr/sbin/sshd ssh ssh-keygen pdsh clush /usr/bin/time jq unshare setsid flock useradd userdel; do
	command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] || skip_all "$t not installed"
done
lock=/run/lock/synctop-bench.lock
[ -d /run/lock ] || lock=/tmp/synctop-bench.lock
if [ -e "$lock" ] && ! flock -n "$lock" true; then
	skip_all "another bench/run is running"
fi

tmp=$(mktemp -d /tmp/synctop-bench-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# bench/lib/polls.awk on hand-made logs: which due times were on time, late
# or missed.
same() { # got want description
	[ "$1" = "$2" ]
	ok $? "$3"
	[ "$1" = "$2" ] || diag "got: $1"
}
polls() { # log t0 t1 interval nodes
	awk -v t0="$(date -u -d "$2" +%s)" -v t1="$(date -u -d "$3" +%s)" -v interval="$4" -v nodes="$5" \
		-v rtts="$tmp/rtts" -f "$top/bench/lib/polls.awk" "$1"
}
# interval 1 s, node1 phase .4: a 1.2 s poll (late), the due time it
# overran sent late but on time, one skipped; node2 never answers (8 missed)
cat >"$tmp/a.log" <<'EOF'
2026-12-02T13:00:00.500000Z node1: poll complete rtt_s=0.100000 bytes=1
2026-12-02T13:00:01.500000Z node1: poll complete rtt_s=0.100000 bytes=1
2026-12-02T13:00:03.600000Z node1: poll complete rtt_s=1.200000 bytes=1
2026-12-02T13:00:03.700000Z node1: poll complete rtt_s=0.100000 bytes=1
2026-12-02T13:00:04.500000Z node1: poll complete rtt_s=0.100000 bytes=1
2026-12-02T13:00:06.500000Z node1: poll complete rtt_s=0.100000 bytes=1
EOF
got=$(polls "$tmp/a.log" 2026-12-02T13:00:00Z 2026-12-02T13:00:08Z 1 2)
same "$got" "polls=6 slots=15 ontime=5 late=1 missed=9 events=0 hosts=1 skipped=0 clock_checks=0" \
	"polls.awk: late, skipped and silent nodes at 1 s"
# interval 10 s, event loop lag 0-1.2 s, rtt 2 s: n1 skips its 13:00:53 due
# time, n2's 13:01:09.9 poll takes 11 s
cat >"$tmp/b.log" <<'EOF'
2026-12-02T13:00:05.010000Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:11.910000Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:15.161237Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:22.846468Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:26.016920Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:32.012632Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:35.010000Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:41.910000Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:45.916530Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:00:51.934017Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:02.902918Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:05.010000Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:15.306083Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:20.910000Z n2: poll complete rtt_s=11.000000 bytes=100
2026-12-02T13:01:22.419320Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:25.594522Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:32.814736Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:35.010000Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:41.910000Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:45.539389Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:51.902527Z n2: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:01:55.781912Z n1: poll complete rtt_s=2.000000 bytes=100
2026-12-02T13:02:02.434465Z n2: poll complete rtt_s=2.000000 bytes=100
EOF
got=$(polls "$tmp/b.log" 2026-12-02T13:00:20Z 2026-12-02T13:01:40Z 10 2)
same "$got" "polls=15 slots=14 ontime=12 late=1 missed=1 events=0 hosts=2 skipped=0 clock_checks=0" \
	"polls.awk: loop lag is not a missed poll at 10 s"
# synctop's own due= times and skip lines: served, late, skipped exactly
e=$(date -u -d 2026-12-02T13:00:00Z +%s)
cat >"$tmp/c.log" <<EOF
2026-12-02T13:00:00.600000Z node1: poll complete rtt_s=0.150000 bytes=1 due=$e.400000 sent=$e.450000
2026-12-02T13:00:02.400000Z node1: poll skipped due=$((e + 2)).400000 (the previous one is still in flight)
2026-12-02T13:00:02.500000Z node1: poll complete rtt_s=1.050000 bytes=1 due=$((e + 1)).400000 sent=$((e + 1)).450000
2026-12-02T13:00:03.500000Z node1: poll complete rtt_s=0.050000 bytes=1 due=$((e + 3)).400000 sent=$((e + 3)).450000
2026-12-02T13:00:03.520000Z node1: clock check offset_s=0.000100 uncertainty_s=0.000200 exchanges=4
EOF
got=$(polls "$tmp/c.log" 2026-12-02T13:00:00Z 2026-12-02T13:00:05Z 1 1)
same "$got" "polls=3 slots=4 ontime=2 late=1 missed=1 events=0 hosts=1 skipped=1 clock_checks=1" \
	"polls.awk: due= times, a skipped due time and a clock check"
user_before=$(getent passwd synctopbench)
cgroups() { find /sys/fs/cgroup -maxdepth 2 -name 'synctop-bench-*' 2>/dev/null | sort; }
cg_before=$(cgroups)

start=$SECONDS
SYNCTOP_BIN=$bin "$top/bench/run" --smoke --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
took=$((SECONDS - start))
ok $rc "bench/run --smoke exits 0"
[ $rc -eq 0 ] || diag "$(tail -n 20 "$tmp/stderr")"
# smoke mode is meant to take < 60 s; not asserted (no wall-clock
# assertions: a loaded machine must not fail the suite)
diag "bench/run --smoke took ${took}s"

md=
for f in "$tmp"/out/RESULTS-*.md; do
	[ -s "$f" ] && md=$f
done
[ -n "$md" ]
ok $? "it writes RESULTS-<date>.md"
for tool in synctop pdsh clush; do
	grep -Eq "^\| 8 \| $tool \| 1 \| [0-9.]+ " "$md" 2>/dev/null
	ok $? "the cold sweep table has a $tool row"
done
grep -Eq '^\| 8 \| 1 \| 5 \| [1-9][0-9]* \|' "$md" 2>/dev/null
ok $? "the steady-state table counts completed polls"
grep -Eq '^\| synctopbench \| 8 \| [1-9][0-9]* \| [0-9.]+ \| 8 \| [0-9.]+ \|' "$md" 2>/dev/null
ok $? "the node-side table has the slow-.bashrc row"
! grep -q 'Failed measurements' "$md" 2>/dev/null
ok $? "no measurement failed"

# cleanup: nothing of this run's work directory is left, running or on disk
work=$(sed -n 's/.* bench: work dir \(\/tmp\/synctop-bench\.[A-Za-z0-9]*\),.*/\1/p' "$tmp/stderr" | head -n 1)
[ -n "$work" ]
ok $? "the bench names its work directory"
if [ -n "$work" ]; then
	left=$(pgrep -c -f -- "$work/")
	[ "$left" -eq 0 ]
	ok $? "no bench process is left"
	[ ! -e "$work" ]
	ok $? "the work directory is removed"
fi
[ "$(getent passwd synctopbench)" = "$user_before" ]
ok $? "the bench user is gone again"
[ "$(cgroups)" = "$cg_before" ]
ok $? "no bench cgroup is left"

done_testing
