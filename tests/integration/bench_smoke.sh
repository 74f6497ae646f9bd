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
user_before=$(getent passwd synctopbench)
cgroups() { find /sys/fs/cgroup -maxdepth 2 -name 'synctop-bench-*' 2>/dev/null | sort; }
cg_before=$(cgroups)

start=$SECONDS
SYNCTOP_BIN=$bin "$top/bench/run" --smoke --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
took=$((SECONDS - start))
ok $rc "bench/run --smoke exits 0"
[ $rc -eq 0 ] || diag "$(tail -n 20 "$tmp/stderr")"
[ "$took" -lt 60 ]
ok $? "it finishes in under 60 s (took ${took}s)"

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
