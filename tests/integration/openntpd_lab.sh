#!/bin/bash
# openntpd_lab.sh - a real openntpd (Debian's openntpd 6.2p3, unpacked: the
# package conflicts with chrony and ntpsec) on a lab node reached through a
# real sshd, synced to a real `chronyd -x` server, polled with
# `synctop --once --json`, `--check` and `--prometheus`: the ntpctl
# collector judges it, the ntpq collector stays quiet, and the node is no
# longer "cannot inspect".
#
# Two network namespaces of its own, named on$$s (the NTP server) and
# on$$n (the node), in 10.64.X.0/24 (X from 3 to 9, one free).  The node
# runs openntpd and sshd in one private mount namespace (`unshare -m`): a
# tmpfs over /var/lib for openntpd's privsep directory, control socket and
# drift file, and /etc/passwd and /etc/group bind-mounted from copies with
# its `ntpd` user and root's login shell /bin/sh, so nothing of this
# machine's changes.  Neither daemon
# can set the clock (`setpriv --bounding-set -sys_time`); openntpd's
# adjtime(2) is replaced through LD_PRELOAD by one that leaves the clock
# alone and reports the adjustment done, because openntpd calls the clock
# synced only after an adjustment completed (tests/fixtures/ntpctl.source.md),
# and its timers run 5 times as fast (its monotonic clock and poll(2) waits:
# the NTP timestamps are the real clock's): everything else is the real
# daemon.  Needs root, cc, and the openntpd
# package: $OPENNTPD_DEB, or `apt-get download openntpd` (skips without).
# Takes under a minute (openntpd's timers run fast: see noadj.c below).
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_sshd.sh"
. "$(dirname "$0")/lab_netns.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network and mount namespaces, sshd)"
for p in ip unshare nsenter /usr/sbin/chronyd /usr/sbin/sshd setpriv ssh-keygen jq cc dpkg-deb; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin on
ns_s=${lab_tag}s
ns_n=${lab_tag}n

# openntpd's binaries, unpacked
deb=${OPENNTPD_DEB:-}
if [ -z "$deb" ]; then
	(cd "$tmp" && timeout 60 apt-get download openntpd >/dev/null 2>&1)
	deb=$(ls "$tmp"/openntpd_*.deb 2>/dev/null | head -n 1)
fi
[ -n "$deb" ] && [ -f "$deb" ] || skip_all "no openntpd package (set OPENNTPD_DEB or allow apt-get download)"
dpkg-deb -x "$deb" "$tmp/root" || skip_all "cannot unpack $deb"
[ -x "$tmp/root/usr/sbin/ntpd" ] && [ -x "$tmp/root/usr/sbin/ntpctl" ] || skip_all "no ntpd/ntpctl in $deb"
diag "openntpd from $(basename "$deb")"

# adjtime that leaves the clock alone and says the adjustment is done; and
# openntpd's timers FAST times as fast.  Its clock filter takes a peer's
# offset only from 8 good replies, at query intervals fixed in the code (5 s
# while it gains trust, then 30 s; ntpd.conf has no knob), and it calls the
# clock synced at the second adjustment: 2 to 5 minutes of waiting.  So its
# CLOCK_MONOTONIC (what it schedules queries and timeouts by) runs FAST
# times as fast and poll(2) waits a FAST-th of the time asked; the NTP
# timestamps (gettimeofday) stay the real clock, so offsets and delays are
# the real ones.
cat >"$tmp/noadj.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>
#define FAST 5
int adjtime(const struct timeval *delta, struct timeval *olddelta)
{
	(void)delta;
	if (olddelta != NULL) {
		olddelta->tv_sec = 0;
		olddelta->tv_usec = 0;
	}
	return 0;
}
int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	static long long t0 = -1;
	if (real == NULL) {
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	}
	int rc = real(id, ts);
	if (rc != 0 || id != CLOCK_MONOTONIC) {
		return rc;
	}
	long long ns = ts->tv_sec * 1000000000LL + ts->tv_nsec;
	if (t0 < 0) {
		t0 = ns;
	}
	ns = t0 + (ns - t0) * FAST;
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
	return rc;
}
int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	if (real == NULL) {
		real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	}
	return real(fds, n, timeout > 0 ? (timeout + FAST - 1) / FAST : timeout);
}
C
cc -shared -fPIC -O2 -o "$tmp/noadj.so" "$tmp/noadj.c" -ldl || skip_all "cannot build the adjtime library"

# one of this helper's /24s (10.64.3-9) that nothing here uses
lab_subnet 10.64.3-9
lab_netns s n
lab_link "$ns_s" "$ns_n" ntp0 1 2 30
lab_uplink "$ns_n" ssh0 9 10 30

cat >"$tmp/chrony.conf" <<EOF
local stratum 2
allow $subnet.0/24
bindaddress $subnet.1
cmdport 0
pidfile $tmp/chronyd.pid
driftfile $tmp/chrony.drift
EOF
ip netns exec "$ns_s" setpriv --bounding-set -sys_time /usr/sbin/chronyd -x -d -f "$tmp/chrony.conf" \
	>"$tmp/chronyd.log" 2>&1 &
lab_pid $!

mkdir -p "$tmp/bin"
ln -s "$tmp/root/usr/sbin/ntpctl" "$tmp/bin/ntpctl"
lab_sshd_config "$tmp" "$subnet.10" "PATH=$tmp/bin:/usr/local/bin:/usr/bin:/bin" || exit 1
echo "server $subnet.1" >"$tmp/ntpd.conf"
# root logs in to the node with /bin/sh: whatever this machine's root
# ~/.bashrc runs (bash reads it for ssh commands) stays out of the test
sed 's|^\(root:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:\).*|\1/bin/sh|' /etc/passwd >"$tmp/passwd"
cp /etc/group "$tmp/group"
grep -q '^ntpd:' "$tmp/passwd" || echo 'ntpd:x:64123:64123:openntpd lab:/var/lib/openntpd:/usr/sbin/nologin' >>"$tmp/passwd"
grep -q '^ntpd:' "$tmp/group" || echo 'ntpd:x:64123:' >>"$tmp/group"
# the node: sshd and openntpd in one private mount namespace (the polling
# shell's ntpctl must see openntpd's control socket)
# (and in a PID namespace of its own: its ps lists the node's processes, not
# this machine's chronyds); the script is the namespace's init and outlives
# ntpd, so step 3 can stop ntpd alone
cat >"$tmp/node.sh" <<EOF
#!/bin/sh
mount --make-rprivate / || exit 1
mount -t tmpfs -o mode=0755 tmpfs /var/lib || exit 1
mkdir -p /var/lib/openntpd/run /var/lib/openntpd/db || exit 1
mount --bind $tmp/passwd /etc/passwd || exit 1
mount --bind $tmp/group /etc/group || exit 1
# no chronyd of this machine answers the node's chronyc (its Unix socket)
if [ -d /run/chrony ]; then mount -t tmpfs tmpfs /run/chrony || exit 1; fi
/usr/sbin/sshd -f $tmp/sshd_config -E $tmp/sshd.log || exit 1
env LD_PRELOAD=$tmp/noadj.so setpriv --bounding-set -sys_time $tmp/root/usr/sbin/ntpd -d -v -f $tmp/ntpd.conf \\
	>$tmp/ntpd.log 2>&1 &
while :; do sleep 3600; done
EOF
chmod 0755 "$tmp/node.sh"
mkdir -p /run/sshd
# --kill-child: ending unshare (cleanup) ends the namespace's init, and with
# it every process of the node
ip netns exec "$ns_n" unshare -m -p -f --mount-proc --kill-child "$tmp/node.sh" >"$tmp/node.log" 2>&1 &
echo $! >"$tmp/node.pid"
lab_pid_kill $!
for i in $(seq 50); do
	[ -s "$tmp/sshd.pid" ] && break
	sleep 0.1
done
[ -s "$tmp/sshd.pid" ] || skip_all "sshd did not start: $(cat "$tmp/sshd.log" "$tmp/node.log" 2>/dev/null | head -c 300)"
echo "$subnet.10 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
: >"$tmp/ssh_config"
# chronyd and ptp4l are not this node's business (the host may run them)
printf '{"defaults": {"expect": {"chrony": "no", "ptp": "no"}}}\n' >"$tmp/synctop.json"
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts -i $tmp/id --config $tmp/synctop.json --clock-check 0"
node=".nodes[0]"
ntpctl_node() {
	nsenter -t "$(cat "$tmp/node.pid")" -m -n "$tmp/root/usr/sbin/ntpctl" "$@"
}
node_ps() { # the node's processes, as its own ps sees them (its init's namespaces)
	nsenter -t "$(ps -o pid= --ppid "$(cat "$tmp/node.pid")" | head -n 1)" -p -m -n ps -e -o comm= 2>/dev/null
}
poll() { # poll FILE: one --once --json that got the node's answer (a busy
	# machine's ps can take seconds: a long deadline, and up to 3 tries)
	for try in 1 2 3; do
		# shellcheck disable=SC2086
		"$bin" --once --json --timeout 40 $common "root@$subnet.10" >"$1" 2>"$tmp/err" &&
			jq -e "$node.observed_at != null and $node.daemons.error == null" "$1" >/dev/null && return 0
		diag "poll $try: $(jq -c "$node.error" "$1" 2>/dev/null)"
	done
	return 1
}

# 1: the peer valid, the clock not synced yet
status=
for i in $(seq 450); do
	status=$(ntpctl_node -s status 2>/dev/null)
	case $status in 1/1*) break ;; esac
	sleep 0.2
done
case $status in 1/1*) true ;; *) false ;; esac
ok $? "openntpd's peer became valid: $status"
node_ps | grep -qx ntpd
ok $? "its process is called ntpd"
node_ps | grep -qx chronyd
[ $? -ne 0 ]
ok $? "the node's ps lists no chronyd"

poll "$tmp/early.json"
ok $? "--once --json got the node's answer ($(head -c 200 "$tmp/err"))"
jq -e "$node.ntp.daemon == \"openntpd\" and $node.ntp.error == null and $node.ntp.peers[0].name == \"$subnet.1\"
	and $node.ntp.peers[0].valid == true" "$tmp/early.json" >/dev/null
ok $? "the ntp object is openntpd's: $(jq -c "$node.ntp" "$tmp/early.json" | head -c 400)"
jq -e "$node.observed_at != null and ([$node.findings[].code] | (index(\"time.other_daemon\") == null) and
	(index(\"collector.tool_missing\") == null))" \
	"$tmp/early.json" >/dev/null
ok $? "not 'cannot inspect', and no complaint about ntpq: $(jq -c "[$node.findings[].code]" "$tmp/early.json")"
if [ "$(jq -r "$node.ntp.synced" "$tmp/early.json")" = false ]; then
	jq -e "[$node.findings[] | select(.code == \"ntp.leap\" and .severity == \"crit\")] | length == 1" \
		"$tmp/early.json" >/dev/null
	ok $? "not synced yet: ntp.leap crit ($(jq -c "[$node.findings[].message]" "$tmp/early.json" | head -c 300))"
fi

# 2: synced (after openntpd's first completed adjustment)
t_valid=$SECONDS
for i in $(seq 400); do
	status=$(ntpctl_node -s status 2>/dev/null)
	case $status in *"clock synced"*) break ;; esac
	sleep 0.5
done
case $status in *"clock synced"*) true ;; *) false ;; esac
ok $? "openntpd says the clock is synced $((SECONDS - t_valid)) s after the peer became valid: $status"
ntpctl_node -s all >"$tmp/ntpctl-all.txt" 2>&1
diag "$(cat "$tmp/ntpctl-all.txt")"
poll "$tmp/synced.json"
ok $? "--once --json got the node's answer"
jq -e "$node.ntp.synced == true and $node.ntp.leap_status == \"Normal\" and $node.ntp.stratum == 3
	and $node.ntp.reference_name == \"$subnet.1\" and ($node.ntp.system_time_offset_s | type) == \"number\"" \
	"$tmp/synced.json" >/dev/null
ok $? "synced, stratum 3, following $subnet.1: $(jq -c "$node.ntp" "$tmp/synced.json" | head -c 400)"
[ "$(jq -r "$node.status" "$tmp/synced.json")" = ok ]
ok $? "the node is ok: $(jq -c "[$node.findings[] | .code + \": \" + .message]" "$tmp/synced.json" | head -c 400)"
# shellcheck disable=SC2086
"$bin" --check --timeout 40 $common "root@$subnet.10" >"$tmp/check.out" 2>&1
rc=$?
[ $rc -eq 0 ]
ok $? "--check exits 0: got $rc: $(tr '\n' ' ' <"$tmp/check.out" | head -c 300)"
# shellcheck disable=SC2086
"$bin" --once --timeout 40 $common --prometheus "$tmp/synctop.prom" "root@$subnet.10" >/dev/null 2>&1
grep -q "^synctop_chrony_stratum{node=\"$subnet.10\",daemon=\"openntpd\"} 3$" "$tmp/synctop.prom" &&
	grep -q "^synctop_part_up{node=\"$subnet.10\",part=\"ntp\"} 1$" "$tmp/synctop.prom" &&
	[ "$(grep -c 'part="ntp"' "$tmp/synctop.prom")" -eq 1 ]
ok $? "Prometheus: ntpd's series with daemon=\"openntpd\", one part_up for ntp: $(grep -E 'openntpd|part="ntp"' "$tmp/synctop.prom" | tr '\n' ' ' | head -c 400)"

# 3: openntpd stopped (only the processes in the node's mount namespace):
# no ntpd, no ntp object, no time service
ours=$(readlink "/proc/$(cat "$tmp/node.pid")/ns/mnt")
if [ -n "$ours" ]; then
	for p in $(ps -e -o pid=,comm= | awk '$2 == "ntpd" { print $1 }'); do
		[ "$(readlink "/proc/$p/ns/mnt")" = "$ours" ] && kill "$p"
	done
fi
for i in $(seq 50); do
	node_ps | grep -qx ntpd || break
	sleep 0.1
done
poll "$tmp/stopped.json"
jq -e "$node.ntp == null and ([$node.findings[].code] | index(\"time.no_service\") != null)" "$tmp/stopped.json" >/dev/null
ok $? "openntpd gone: ntp null, time.no_service: $(jq -c "[$node.ntp, [$node.findings[].code]]" "$tmp/stopped.json")"
done_testing
