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
