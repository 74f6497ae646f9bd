#!/bin/bash
# exec_transport_lab.sh - the exec transports against real components: a node
# (own network namespace, own sshd with its own host key, a real chronyd -x
# and a real ptp4l -S) polled with the system ssh client (--transport ssh)
# and with --transport-cmd through a stand-in for kubectl that execs `sh` in
# the node's namespace.
#
#   - --transport ssh --once --json sees the node as libssh2 does (status,
#     findings, chrony and ptp sections);
#   - a ProxyCommand route (ssh -W through the same sshd to an address only
#     the node's namespace has): --transport ssh follows it, libssh2 refuses
#     the run with exit 64;
#   - a changed host key: a host key error, not retried in live mode;
#   - a key the node does not accept: an auth error;
#   - a user certificate and a host certificate: --transport ssh gets in,
#     libssh2 refuses the host and names --transport ssh;
#   - --transport-cmd: the template's words reach the command byte for byte,
#     one argument each, with shell metacharacters that nothing runs; node
#     names with metacharacters are refused before anything runs;
#   - contrib/kubectl-exec-ptp-pod finds the node's pod and execs into it.
#
# Namespace and veth names carry "ex" and $$; addresses are in 10.65.0-9.0/24
# (this test's own); neither daemon can steer a clock (setpriv --bounding-set
# -sys_time, chronyd -x).  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_netns.sh"
. "$(dirname "$0")/lab_ptp.sh"
bin=${SYNCTOP_BIN:?}
top=$(cd "$(dirname "$0")/../.." && pwd)

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip /usr/sbin/sshd ssh ssh-keygen /usr/sbin/chronyd chronyc /usr/sbin/ptp4l /usr/sbin/pmc setpriv jq; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin ex /tmp/synctop-exlab.XXXXXX
ns=${lab_tag}n
chmod 0750 "$tmp" # chronyd refuses a command socket in a directory others can enter
marker=/tmp/PWNED-$$
lab_pidfile "$tmp/sshd.pid" "$tmp/sshd_cert.pid" "$tmp/chronyd.pid"
lab_on_cleanup() {
	rm -f "$marker"
}

# one of this test's /24s that nothing here uses yet
lab_subnet 10.65.0-9
node=$subnet.2

lab_netns n
lab_uplink "$ns" eth0 1 2 24
# a link of its own for ptp4l (a lone master on software timestamps)
ip link add ptp0 netns "$ns" type veth peer name ptp1 netns "$ns"
ip -n "$ns" link set ptp0 up
ip -n "$ns" link set ptp1 up

# ------------------------------------------------------------- the daemons
mkdir -p "$tmp/bin"
cat >"$tmp/chrony.conf" <<EOF
pidfile $tmp/chronyd.pid
bindcmdaddress $tmp/chronyd.sock
cmdport 0
port 0
local stratum 8
driftfile $tmp/drift
EOF
ip netns exec "$ns" setpriv --bounding-set -sys_time \
	/usr/sbin/chronyd -x -u root -f "$tmp/chrony.conf" -l "$tmp/chronyd.log" || skip_all "chronyd did not start"
lab_ptp4l_conf "$tmp/ptp4l.conf" "$tmp/ptp4l.sock" lone
ip netns exec "$ns" setpriv --bounding-set -sys_time \
	/usr/sbin/ptp4l -f "$tmp/ptp4l.conf" -i ptp0 -S -m >"$tmp/ptp4l.log" 2>&1 &
lab_pid $!
# plain `chronyc` / `pmc` on the node reach its daemons
printf '#!/bin/sh\nexec /usr/bin/chronyc -h %s "$@"\n' "$tmp/chronyd.sock" >"$tmp/bin/chronyc"
printf '#!/bin/sh\nexec /usr/sbin/pmc -s %s "$@"\n' "$tmp/ptp4l.sock" >"$tmp/bin/pmc"
chmod 0755 "$tmp/bin/chronyc" "$tmp/bin/pmc"
node_path=$tmp/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/otherhostkey" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" || exit 1
ssh-keygen -q -t ed25519 -N '' -f "$tmp/wrong" || exit 1
cp "$tmp/id.pub" "$tmp/authorized_keys"
# 127.0.0.1:2222 exists only inside the namespace: the ProxyCommand route
cat >"$tmp/sshd_config" <<EOF
ListenAddress $node:22
ListenAddress 127.0.0.1:2222
HostKey $tmp/hostkey
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding yes
LogLevel VERBOSE
SetEnv PATH=$node_path
EOF
mkdir -p /run/sshd
ip netns exec "$ns" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || skip_all "sshd did not start"
key=$(cut -d' ' -f1,2 "$tmp/hostkey.pub")
printf '%s %s\n[127.0.0.1]:2222 %s\n' "$node" "$key" "$key" >"$tmp/known_hosts"
printf '%s %s\n' "$node" "$(cut -d' ' -f1,2 "$tmp/otherhostkey.pub")" >"$tmp/known_hosts_changed"
cat >"$tmp/ssh_config" <<EOF
Host *
    User root
    IdentityFile $tmp/id
    IdentitiesOnly yes
    UserKnownHostsFile $tmp/known_hosts
    GlobalKnownHostsFile none
Host jump
    HostName $node
Host inner
    HostName 127.0.0.1
    Port 2222
    ProxyCommand ssh -F $tmp/ssh_config -W %h:%p jump
EOF
# the same without any key: for the wrong-key case
cat >"$tmp/ssh_config_nokey" <<EOF
Host *
    User root
    IdentitiesOnly yes
    UserKnownHostsFile $tmp/known_hosts
    GlobalKnownHostsFile none
EOF
# what the host's own agent holds is not this test's business
unset SSH_AUTH_SOCK
# the clock check is not this test's business; deadlines leave room for a
# loaded machine (other jobs share its CPUs)
common="--clock-check 0 --timeout 40 --connect-timeout 30"

# wait for chronyd's socket and ptp4l's port to settle (a lone port: MASTER)
for i in $(seq 40); do
	st=$(lab_ptp_state "$ns" "$tmp/ptp4l.sock")
	[ -S "$tmp/chronyd.sock" ] && [ "$st" = MASTER ] && break
	sleep 0.5
done
[ -S "$tmp/chronyd.sock" ] && [ "$st" = MASTER ]
ok $? "the node's chronyd answers and its ptp4l is MASTER (was '$st')"

# the node's sshd answers a plain ssh before anything is compared (on a
# machine loaded by other jobs its first logins can take many seconds)
for i in $(seq 30); do
	timeout 30 ssh -F "$tmp/ssh_config" -o BatchMode=yes -T "$node" true 2>/dev/null && break
	sleep 1
done

# what a node looks like, without the parts that differ between two polls.
# The node shares the machine's PID namespace, so the findings judged from
# its process table (time.conflicting_daemons, time.daemon_in_container)
# depend on which other labs run beside this one (the suite runs daemon labs
# in parallel; container_lab's chronyd sits in a kubepods cgroup; openntpd_lab's
# ntpd makes ntpq or ntpctl be asked, and missing): they are left out, and the
# status is the worst of the findings kept.
summary() {
	jq -c '.nodes[0] | ([.findings[] | select(.code | test("^time\\.(conflicting_daemons|daemon_in_container)$") | not)
		| select((.code | test("^collector\\.tool_(missing|failed)$")) and (.message | test("^(ntpq|ntpctl) ")) | not)]) as $f |
		{status: (if .error then .status else ([$f[].severity] | if index("crit") then "crit" elif index("warn") then "warn" else "ok" end) end),
		error, findings: ([$f[].code] | sort),
		chrony: (.chrony != null), ref: .chrony.reference_id, stratum: .chrony.stratum,
		port_state: .ptp.port_state}' "$1"
}

# ------------------------------------------------- libssh2 vs the ssh client
# shellcheck disable=SC2086
"$bin" --once --json $common -F "$tmp/ssh_config" "$node" >"$tmp/libssh2.json" 2>"$tmp/err"
ok $? "libssh2 --once --json ran ($(head -c 200 "$tmp/err"))"
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config" --log "$tmp/ssh.log" "$node" \
	>"$tmp/ssh.json" 2>"$tmp/err"
ok $? "--transport ssh --once --json ran ($(head -c 200 "$tmp/err"))"
a=$(summary "$tmp/libssh2.json")
b=$(summary "$tmp/ssh.json")
diag "libssh2: $a" "ssh:     $b"
[ "$(jq -r '.nodes[0].error' "$tmp/ssh.json")" = null ] && [ "$(jq -r '.nodes[0].chrony.stratum' "$tmp/ssh.json")" != null ] &&
	[ "$(jq -r '.nodes[0].ptp.port_state' "$tmp/ssh.json")" = MASTER ]
ok $? "--transport ssh: the node answered, with its chrony and pmc sections"
[ "$a" = "$b" ]
ok $? "--transport ssh and libssh2 see the same node (status, findings, chrony, ptp)"
grep -q "remote shell started" "$tmp/ssh.log"
ok $? "--log tells the ssh client's story like libssh2's"

# ------------------------------------------------------ the ProxyCommand route
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config" inner >"$tmp/proxy.json" 2>"$tmp/err"
ok $? "--transport ssh through ProxyCommand ran ($(head -c 200 "$tmp/err"))"
c=$(summary "$tmp/proxy.json")
[ "$c" = "$b" ]
ok $? "through ProxyCommand (ssh -W to an address only the node has) the same node: $c"
# shellcheck disable=SC2086
"$bin" --once --json $common -F "$tmp/ssh_config" inner >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 64 ] && grep -q "ssh_config:12: ProxyCommand applies to inner" "$tmp/err" && grep -q -- "--transport ssh" "$tmp/err"
ok $? "the built-in client refuses the same route with exit 64, file:line and --transport ssh (rc=$rc)"

# --------------------------------------------------------- a changed host key
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config" --known-hosts "$tmp/known_hosts_changed" "$node" \
	>"$tmp/hk.json" 2>"$tmp/err"
err=$(jq -r '.nodes[0].error' "$tmp/hk.json")
case $err in
"host key: ssh exited with status 255: "*"Host key verification failed."*) true ;;
*) false ;;
esac
ok $? "a changed host key is a host key error naming ssh's words: $err"
before=$(grep -c "Connection from" "$tmp/sshd.log")
# live mode, several poll intervals: one attempt, then nothing
"$bin" $common -d 0.3 --transport ssh -F "$tmp/ssh_config" --known-hosts "$tmp/known_hosts_changed" \
	--log "$tmp/hk.log" "$node" >/dev/null 2>&1 &
live=$!
sleep 3
kill -TERM "$live"
wait "$live"
after=$(grep -c "Connection from" "$tmp/sshd.log")
grep -q "refused, not retried" "$tmp/hk.log" && ! grep -q "reconnecting" "$tmp/hk.log" && [ $((after - before)) -eq 1 ]
ok $? "live mode: the host key refusal is not retried ($((after - before)) connection in 3 s)"

# ------------------------------------------------------------- a wrong key
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config_nokey" -i "$tmp/wrong" "$node" \
	>"$tmp/auth.json" 2>"$tmp/err"
err=$(jq -r '.nodes[0].error' "$tmp/auth.json")
[ "$err" = "auth: ssh exited with status 255: root@$node: Permission denied (publickey)." ]
ok $? "a key the node does not accept is an auth error: $err"
# -i, -l, -p, --known-hosts, --strict-host-key-checking and
# --connect-timeout reach ssh (here: the right key, the port, the user)
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config_nokey" -i "$tmp/id" -l root -p 22 \
	--known-hosts "$tmp/known_hosts" --strict-host-key-checking yes --connect-timeout 29 "$node" \
	>"$tmp/opts.json" 2>"$tmp/err"
[ "$(summary "$tmp/opts.json")" = "$b" ]
ok $? "the command line's ssh options are passed to ssh"

# ------------------------------------------------------------ certificates
# A second sshd on the node that only certificates get into: a user
# certificate (the key itself is in no authorized_keys) and a host
# certificate (known_hosts holds only the CA).  libssh2 can do neither.
ssh-keygen -q -t ed25519 -N '' -f "$tmp/user_ca" && ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_ca" &&
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/certkey" &&
	ssh-keygen -q -s "$tmp/user_ca" -I synctop-lab -n root "$tmp/certkey.pub" &&
	ssh-keygen -q -s "$tmp/host_ca" -I lab-node -h -n "$node" "$tmp/hostkey.pub" || exit 1
cat >"$tmp/sshd_cert_config" <<EOF
ListenAddress $node:2022
HostKey $tmp/hostkey
HostCertificate $tmp/hostkey-cert.pub
PidFile $tmp/sshd_cert.pid
AuthorizedKeysFile none
TrustedUserCAKeys $tmp/user_ca.pub
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
SetEnv PATH=$node_path
EOF
ip netns exec "$ns" /usr/sbin/sshd -f "$tmp/sshd_cert_config" -E "$tmp/sshd_cert.log" || exit 1
printf '@cert-authority [%s]:2022 %s\n' "$node" "$(cut -d' ' -f1,2 "$tmp/host_ca.pub")" >"$tmp/known_hosts_ca"
cat >"$tmp/ssh_config_cert" <<EOF
Host certnode
    HostName $node
    Port 2022
    User root
    IdentityFile $tmp/certkey
    CertificateFile $tmp/certkey-cert.pub
    IdentitiesOnly yes
    UserKnownHostsFile $tmp/known_hosts_ca
    GlobalKnownHostsFile none
EOF
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config_cert" certnode >"$tmp/cert.json" 2>"$tmp/err"
[ "$(summary "$tmp/cert.json")" = "$b" ]
ok $? "--transport ssh: a user certificate and a host certificate (CA-only known_hosts) work: $(jq -c '.nodes[0].error' "$tmp/cert.json")"
[ "$(summary "$tmp/cert.json")" = "$b" ] || diag "$(tail -n 5 "$tmp/sshd_cert.log")" \
	"$(timeout 10 ssh -F "$tmp/ssh_config_cert" -o BatchMode=yes -T certnode echo hello 2>&1 | tail -n 8)"
# shellcheck disable=SC2086
"$bin" --once --json $common -F "$tmp/ssh_config_cert" certnode >"$tmp/cert2.json" 2>"$tmp/err"
err=$(jq -r '.nodes[0].error' "$tmp/cert2.json")
case $err in
"host key: "*"@cert-authority"*"--transport ssh"*) true ;;
*) false ;;
esac
ok $? "the built-in client refuses the CA-only host and names --transport ssh: $err"

# ---------------------------------------------------------- --transport-cmd
# A stand-in for `kubectl exec -i POD -- sh`: it records its arguments and
# execs sh in the node's namespace (the probe then runs there, as in a pod).
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/kubectl" <<EOF
#!/bin/sh
: >"$tmp/kubectl.args"
for a in "\$@"; do printf '%s\n' "\$a" >>"$tmp/kubectl.args"; done
PATH=$node_path exec ip netns exec $ns sh
EOF
chmod 0755 "$tmp/fakebin/kubectl"
hostile="a;touch $marker"
subst="\$(touch $marker)"
quoted="it's \"q\""
# the template, as an operator would type it in single quotes
tmpl="kubectl exec -i pod/{host} --context=\"$hostile\" '$subst' \"it's \\\"q\\\"\" -- sh"
PATH="$tmp/fakebin:$PATH" "$bin" --once --json $common --transport-cmd "$tmpl" "$node" >"$tmp/cmd.json" 2>"$tmp/err"
ok $? "--transport-cmd ran ($(head -c 200 "$tmp/err"))"
[ "$(summary "$tmp/cmd.json")" = "$b" ]
ok $? "--transport-cmd sees the same node: $(summary "$tmp/cmd.json")"
printf '%s\n' exec -i "pod/$node" "--context=$hostile" "$subst" "$quoted" -- sh >"$tmp/want.args"
cmp -s "$tmp/want.args" "$tmp/kubectl.args"
ok $? "each word reached the command as one argument, byte for byte"
[ -s "$tmp/kubectl.args" ] || diag "no arguments recorded"
cmp -s "$tmp/want.args" "$tmp/kubectl.args" || diag "$(diff "$tmp/want.args" "$tmp/kubectl.args")"
[ ! -e "$marker" ]
ok $? "nothing in the words was run ($marker does not exist)"
# names with shell metacharacters never reach a command: refused first
for name in "a;touch $marker" "\$(touch $marker)" "n'1" 'n"1' 'n 1'; do
	PATH="$tmp/fakebin:$PATH" "$bin" --once --json $common --transport-cmd "$tmpl" "$name" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 64 ] && [ ! -e "$marker" ] && [ ! -s "$tmp/out" ] && grep -q "^synctop: host '" "$tmp/err"
	ok $? "node name '$name' refused before anything ran (rc=$rc)"
done
# a command that fails to give a shell: its status and last words are the error
PATH="$tmp/fakebin:$PATH" "$bin" --once --json $common --transport-cmd "sh -c 'echo error: pod {host} not found >&2; exit 1'" \
	"$node" >"$tmp/out" 2>/dev/null
err=$(jq -r '.nodes[0].error' "$tmp/out")
[ "$err" = "remote shell: sh exited with status 1: error: pod $node not found" ]
ok $? "a failing command's status and stderr are the node's error: $err"

# ------------------------------------------- contrib/kubectl-exec-ptp-pod
# The wrapper asks for the pod of a DaemonSet on the node, then execs into
# it; this kubectl answers `get pod` as the API server would for one pod.
cat >"$tmp/fakebin/kubectl" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$tmp/kubectl.calls"
case "\$1" in
get)
	[ "\$*" = "get pod -n openshift-ptp -l app=linuxptp-daemon --field-selector spec.nodeName=$node -o name" ] || exit 1
	echo pod/linuxptp-daemon-x7k2q
	;;
exec)
	[ "\$*" = "exec -i -n openshift-ptp linuxptp-daemon-x7k2q -c linuxptp-daemon-container -- sh" ] || exit 1
	PATH=$node_path exec ip netns exec $ns sh
	;;
esac
EOF
: >"$tmp/kubectl.calls"
PATH="$tmp/fakebin:$PATH" "$bin" --once --json $common \
	--transport-cmd "$top/contrib/kubectl-exec-ptp-pod -n openshift-ptp -l app=linuxptp-daemon -c linuxptp-daemon-container {host}" \
	"$node" >"$tmp/pod.json" 2>"$tmp/err"
[ "$(summary "$tmp/pod.json")" = "$b" ]
ok $? "contrib/kubectl-exec-ptp-pod: the node's pod polled like the node ($(jq -c '.nodes[0].error' "$tmp/pod.json"))"
[ "$(wc -l <"$tmp/kubectl.calls")" -eq 2 ]
ok $? "the wrapper made one get and one exec: $(tr '\n' '|' <"$tmp/kubectl.calls")"

# ------------------------------------------------- descriptors per node
# Four names for the node: synctop's open descriptors with 1 and 4 nodes.
fds() { # count of synctop's fds after the nodes are up, for node names...
	"$bin" $common -d 1 --transport ssh -F "$tmp/ssh_config" "$@" >/dev/null 2>&1 &
	local p=$! n=0
	sleep 3
	n=$(ls /proc/$p/fd | wc -l)
	kill -TERM $p
	wait $p
	echo "$n"
}
printf 'Host fd*\n    HostName %s\n' "$node" >>"$tmp/ssh_config"
one=$(fds fd1)
four=$(fds fd1 fd2 fd3 fd4)
per=$(((four - one) / 3))
diag "open descriptors: $one with 1 node, $four with 4: $per per node"
[ "$per" -eq 3 ]
ok $? "--transport ssh holds 3 descriptors per node (stdin, stdout, stderr pipes)"

done_testing
