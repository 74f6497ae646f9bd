#!/bin/sh
# encrypted_key.sh - an encrypted identity file against a throwaway sshd on
# 127.0.0.1: its passphrase is asked once on the terminal (by ssh-add, for
# synctop's private ssh-agent), the node is reached through that agent, and
# the agent is gone when synctop ends, however it ends.  Without a terminal
# the key is skipped with a message that says to load it into ssh-agent; a
# key the user's own agent holds is not asked for.  Prints, as a comment, the
# client CPU time of 20 connections through the private agent and with a
# plain key file.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root to run a throwaway sshd"
[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd (openssh-server)"
for p in ssh-keygen ssh-agent ssh-add script pgrep od awk; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

tmp=$(mktemp -d)
user_agent=
cleanup() {
	if [ -s "$tmp/sshd.pid" ]; then
		kill "$(cat "$tmp/sshd.pid")" 2>/dev/null
	fi
	if [ -n "$user_agent" ]; then
		kill "$user_agent" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pass="correct horse $$ battery"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
ssh-keygen -q -t ed25519 -N "$pass" -C synctop-test-encrypted -f "$tmp/enc" || exit 1
ssh-keygen -q -t ed25519 -N '' -C synctop-test-plain -f "$tmp/plain" || exit 1
cat "$tmp/enc.pub" "$tmp/plain.pub" >"$tmp/authorized_keys"
: >"$tmp/ssh_config" # keep the user's ~/.ssh/config out of it

# sshd binds after it daemonizes and writes its PidFile once it listens: a
# port someone else holds shows as no PidFile, and we try another.
port=
for try in 1 2 3 4 5; do
	p=$((24000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 6000))
	cat >"$tmp/sshd_config" <<EOF
Port $p
ListenAddress 127.0.0.1
HostKey $tmp/hostkey
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 300:30:600
EOF
	/usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || continue
	i=0
	while [ $i -lt 30 ] && [ ! -s "$tmp/sshd.pid" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -s "$tmp/sshd.pid" ]; then
		port=$p
		break
	fi
done
[ -n "$port" ] || skip_all "could not start a throwaway sshd ($(tail -n 1 "$tmp/sshd.log" 2>/dev/null))"
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
target="root@127.0.0.1:$port"
common="-F $tmp/ssh_config --known-hosts $tmp/known_hosts"

# The private agent's socket lives under TMPDIR, so this finds our agents only.
agent_running() {
	pgrep -f "ssh-agent -a $tmp/" >/dev/null 2>&1
}

# Waits up to $1 tenths of a second for the private agent to be gone.
agent_gone_within() {
	i=0
	while [ $i -lt "$1" ] && agent_running; do
		sleep 0.1
		i=$((i + 1))
	done
	! agent_running
}

# run_tty OUT ANSWER ARGS...: synctop on a pseudo-terminal (script(1)), with
# ANSWER typed once ssh-add's passphrase prompt shows ("" = just Enter).
# Sets rc to synctop's exit status.
run_tty() {
	out=$1 answer=$2
	shift 2
	cmd="'$bin'"
	for a in "$@"; do
		cmd="$cmd '$a'"
	done
	rm -f "$tmp/in" "$out"
	mkfifo "$tmp/in"
	env -u SSH_AUTH_SOCK TMPDIR="$tmp" script -q -e -c "$cmd" /dev/null <"$tmp/in" >"$out" 2>&1 &
	spid=$!
	exec 3>"$tmp/in"
	i=0
	while [ $i -lt 100 ] && ! grep -q "Enter passphrase" "$out" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	printf '%s\n' "$answer" >&3
	wait "$spid"
	rc=$?
	exec 3>&-
}

# Children's user+system CPU seconds so far (the second line of `times`,
# which must run in this shell, not in a $(...) subshell).
children_cpu() {
	times >"$tmp/times"
	awk 'NR == 2 {
		s = 0
		for (f = 1; f <= 2; f++) { split($f, p, "m"); s += p[1] * 60 + p[2] }
		printf "%.3f\n", s
	}' "$tmp/times"
}

# ---------------------------------------------------------------- terminal
run_tty "$tmp/out1" "$pass" --check $common -i "$tmp/enc" "$target"
[ "$(grep -c "Enter passphrase" "$tmp/out1")" -eq 1 ]
ok $? "the passphrase is asked once, on the terminal"
[ "$rc" -ne 3 ] && ! grep -q "UNKNOWN" "$tmp/out1" && ! grep -q "auth:" "$tmp/out1" \
	&& grep -q "0 unknown" "$tmp/out1"
ok $? "the node is reached through the private agent (rc=$rc)"
[ "$rc" -eq 3 ] && diag "$(cat "$tmp/out1")"
! grep -qF "$pass" "$tmp/out1"
ok $? "the passphrase appears nowhere in synctop's output"
agent_gone_within 30
ok $? "the private agent is gone after synctop exits"
[ -z "$(find "$tmp" -maxdepth 1 -name 'synctop-agent.*')" ]
ok $? "its socket directory is removed"

# ------------------------------------------------------------- no terminal
env -u SSH_AUTH_SOCK TMPDIR="$tmp" "$bin" --check $common -i "$tmp/enc" "$target" \
	</dev/null >"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ "$rc" -eq 3 ] && grep "UNKNOWN" "$tmp/out2" | grep -q "ssh-agent"
ok $? "without a terminal the node is UNKNOWN and the error names ssh-agent (rc=$rc)"
grep -q "$tmp/enc" "$tmp/err2" && grep -qF "load it into ssh-agent (ssh-add $tmp/enc)" "$tmp/err2"
ok $? "the warning names the file and says to ssh-add it"
! agent_running
ok $? "no private agent is started without a terminal"

# ------------------------------------------------- Enter skips the key
run_tty "$tmp/out3" "" --check $common -i "$tmp/enc" "$target"
[ "$rc" -eq 3 ] && grep -q "was not loaded" "$tmp/out3" && grep "UNKNOWN" "$tmp/out3" | grep -q "auth"
ok $? "a key skipped at the prompt is reported and not used (rc=$rc)"
agent_gone_within 30
ok $? "no private agent is left when no key was loaded"

# ------------------------------------------------- the user's own agent
eval "$(ssh-agent -s -a "$tmp/user-agent.sock")" >/dev/null
user_agent=$SSH_AGENT_PID
printf '#!/bin/sh\nprintf "%%s\\n" "%s"\n' "$pass" >"$tmp/askpass"
chmod 700 "$tmp/askpass"
SSH_ASKPASS="$tmp/askpass" SSH_ASKPASS_REQUIRE=force ssh-add "$tmp/enc" </dev/null 2>/dev/null
TMPDIR="$tmp" "$bin" --check $common -i "$tmp/enc" "$target" </dev/null >"$tmp/out4" 2>"$tmp/err4"
rc=$?
[ "$rc" -ne 3 ] && ! grep -q "UNKNOWN" "$tmp/out4" && [ ! -s "$tmp/err4" ]
ok $? "a key in the user's ssh-agent is used with no prompt and no warning (rc=$rc)"
kill "$user_agent" 2>/dev/null
user_agent=
unset SSH_AUTH_SOCK SSH_AGENT_PID

# ------------------------------------------------------ ended by signals
start_at_prompt() { # starts synctop on a terminal and leaves it at the prompt
	rm -f "$tmp/in" "$tmp/out5"
	mkfifo "$tmp/in"
	env -u SSH_AUTH_SOCK TMPDIR="$tmp" script -q -c "'$bin' --check $common -i '$tmp/enc' '$target'" \
		/dev/null <"$tmp/in" >"$tmp/out5" 2>&1 &
	spid=$!
	exec 3>"$tmp/in"
	i=0
	while [ $i -lt 100 ] && ! grep -q "Enter passphrase" "$tmp/out5" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(pgrep -f -- "$bin --check -F $tmp/")
}
finish_script() {
	exec 3>&-
	wait "$spid" 2>/dev/null
}

start_at_prompt
agent_running && [ -n "$pid" ] && kill -TERM "$pid" && agent_gone_within 20
ok $? "SIGTERM at the prompt: the private agent is stopped at once"
finish_script

start_at_prompt
# The uncatchable case: the agent sees its keeper go and exits (10 s check).
agent_running && [ -n "$pid" ] && kill -KILL "$pid" && agent_gone_within 150
ok $? "SIGKILL at the prompt: the private agent exits by itself within 15 s"
finish_script

# ------------------------------------------------ CPU, a diagnostic only
n=20
{
	echo "Host n*"
	echo "  HostName 127.0.0.1"
	echo "  Port $port"
	echo "  User root"
} >"$tmp/ssh_config20"
children_cpu >"$tmp/cpu"
read -r before <"$tmp/cpu"
# --timeout 60: this checks that every node is reached, not how fast; a
# loaded machine can take more than the default 10 s for 20 handshakes.
run_tty "$tmp/out6" "$pass" --check --timeout 60 -F "$tmp/ssh_config20" --known-hosts "$tmp/known_hosts" \
	-i "$tmp/enc" -w "n[01-$n]"
enc_rc=$rc
children_cpu >"$tmp/cpu"
read -r after <"$tmp/cpu"
enc_cpu=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", b - a }')
before=$after
env -u SSH_AUTH_SOCK "$bin" --check --timeout 60 -F "$tmp/ssh_config20" --known-hosts "$tmp/known_hosts" \
	-i "$tmp/plain" -w "n[01-$n]" </dev/null >"$tmp/out7" 2>&1
plain_rc=$?
children_cpu >"$tmp/cpu"
read -r after <"$tmp/cpu"
plain_cpu=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", b - a }')
before=$after
ssh-keygen -y -P "$pass" -f "$tmp/enc" >/dev/null
children_cpu >"$tmp/cpu"
read -r after <"$tmp/cpu"
kdf_cpu=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.3f", b - a }')
grep -q " 0 unknown" "$tmp/out6" && grep -q " 0 unknown" "$tmp/out7"
ok $? "$n nodes reached with each key (rc $enc_rc and $plain_rc)"
grep -h "UNKNOWN" "$tmp/out6" "$tmp/out7" | head -n 3 | while read -r line; do diag "$line"; done
diag "client CPU for $n connections: encrypted key via the private agent ${enc_cpu} s (one ssh-add included)," \
	"plain key file ${plain_cpu} s; one key derivation (ssh-keygen -y) ${kdf_cpu} s, which libssh2 would" \
	"pay per connection with the key file"

done_testing
