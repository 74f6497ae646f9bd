# lab_sshd.sh - the node sshd of the self-contained lab tests (sourced):
# fresh host and client keys, key-only root login, no PAM, and the session
# environment the test gives.  Nothing here starts a process.
#
# lab_sshd_config DIR LISTEN_ADDRESS ENV
#   writes DIR/hostkey, DIR/id (the client's key), DIR/authorized_keys and
#   DIR/sshd_config (PidFile DIR/sshd.pid) with `SetEnv ENV`.
lab_sshd_config() {
	ssh-keygen -q -t ed25519 -N '' -f "$1/hostkey" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$1/id" || return 1
	cp "$1/id.pub" "$1/authorized_keys"
	cat >"$1/sshd_config" <<EOF
ListenAddress $2
Port 22
HostKey $1/hostkey
PidFile $1/sshd.pid
AuthorizedKeysFile $1/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
SetEnv $3
EOF
	mkdir -p /run/sshd
}

# lab_sshd_in_pidns DIR NS [LINE...]
#   starts DIR's sshd (lab_sshd_config's) in network namespace NS and in a
#   PID namespace of its own, so `ps` in its sessions sees that node's
#   daemons only (not the chronyd or ntpd of the machine running the test,
#   nor other labs'); each LINE (sh, e.g. a daemon started with `&`) runs
#   there first.  Root's rc files are empty in its mount namespace (lab
#   notes pitfall 6: this machine's /root/.bashrc runs pyenv, which can
#   block a login for 60 s).  Needs lab_netns.sh: `unshare` stays this
#   script's child and is KILLed at cleanup (--fork ignores TERM while it
#   waits; --kill-child takes the whole PID namespace down with it).
lab_sshd_in_pidns() {
	local dir=$1 ns=$2 line
	shift 2
	{
		echo "#!/bin/sh"
		echo ": >$dir/empty-rc"
		echo "for rc in /root/.bashrc /root/.profile /root/.bash_profile /root/.bash_login; do"
		echo "	if [ -e \$rc ]; then mount --bind $dir/empty-rc \$rc; fi"
		echo "done"
		for line in "$@"; do
			echo "$line"
		done
		echo "exec /usr/sbin/sshd -D -f $dir/sshd_config -E $dir/sshd.log"
	} >"$dir/node.sh"
	chmod 0755 "$dir/node.sh"
	unshare --pid --fork --kill-child --mount-proc ip netns exec "$ns" "$dir/node.sh" </dev/null >/dev/null 2>&1 &
	lab_pid_kill $!
}
