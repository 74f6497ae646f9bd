#!/bin/bash
# kerberos_lab.sh - a Kerberos (GSSAPI) login, as many HPC sites have it,
# against real components: an MIT KDC (krb5kdc, its own realm and database
# in this test's directory, on a loopback port), a node's sshd (own network
# namespace) that takes nothing but GSSAPI, and a client holding a ticket
# from the KDC (kinit from a keytab).
#
#   - --transport ssh: the system ssh client logs in with the ticket and the
#     node answers as any node does;
#   - the built-in libssh2 client cannot: the node's error is an auth error
#     that names the GSSAPIAuthentication line of the ssh_config and
#     --transport ssh (issue 16), and the node's sshd saw a connection;
#   - without a ticket (an empty credential cache) --transport ssh fails
#     with ssh's own words, as an auth error.
#
# The realm's files (krb5.conf, kdc.conf, database, keytabs, credential
# cache) live in $tmp and reach the tools through KRB5_CONFIG,
# KRB5_KDC_PROFILE, KRB5_KTNAME and KRB5CCNAME: the machine's /etc/krb5.conf
# is never read.  Namespace and veth names carry "kr" and $$; addresses are
# in 10.66.0-9.0/24.  Cleans up after itself.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/lab_netns.sh"
. "$(dirname "$0")/lab_ports.sh"
bin=${SYNCTOP_BIN:?}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces, sshd)"
for p in ip /usr/sbin/sshd ssh /usr/sbin/krb5kdc /usr/sbin/kdb5_util /usr/sbin/kadmin.local kinit klist jq python3; do
	command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done

lab_begin kr /tmp/synctop-krblab.XXXXXX
ns=${lab_tag}n
lab_pidfile "$tmp/sshd.pid" "$tmp/kdc.pid"
lab_subnet 10.66.0-9
node=$subnet.2
lab_netns n
lab_uplink "$ns" eth0 1 2 24

# ----------------------------------------------------------------- the realm
realm=SYNCTOP.LAB
kdc_port=$(lab_free_ports 1)
# no DNS anywhere: the service principal is host/<the address ssh was given>
cat >"$tmp/krb5.conf" <<EOF
[libdefaults]
    default_realm = $realm
    dns_lookup_kdc = false
    dns_lookup_realm = false
    dns_canonicalize_hostname = false
    rdns = false
    qualify_shortname = ""
    udp_preference_limit = 1
[realms]
    $realm = {
        kdc = 127.0.0.1:$kdc_port
    }
EOF
cat >"$tmp/kdc.conf" <<EOF
[kdcdefaults]
    kdc_ports = $kdc_port
    kdc_tcp_ports = $kdc_port
[realms]
    $realm = {
        database_name = $tmp/principal
        key_stash_file = $tmp/stash
        acl_file = $tmp/kadm5.acl
    }
[logging]
    kdc = FILE:$tmp/kdc.log
EOF
: >"$tmp/kadm5.acl"
export KRB5_CONFIG=$tmp/krb5.conf KRB5_KDC_PROFILE=$tmp/kdc.conf
kdb5_util create -s -r "$realm" -P "lab-master-$$" >"$tmp/kdb.log" 2>&1 ||
	skip_all "kdb5_util could not create the realm's database: $(tail -n 2 "$tmp/kdb.log")"
kadmin.local -r "$realm" -q "addprinc -randkey host/$node" >>"$tmp/kdb.log" 2>&1 &&
	kadmin.local -r "$realm" -q "ktadd -k $tmp/sshd.keytab host/$node" >>"$tmp/kdb.log" 2>&1 &&
	kadmin.local -r "$realm" -q "addprinc -randkey root" >>"$tmp/kdb.log" 2>&1 &&
	kadmin.local -r "$realm" -q "ktadd -k $tmp/root.keytab root" >>"$tmp/kdb.log" 2>&1
ok $? "the realm has the node's host principal and root's, each in a keytab"
krb5kdc -r "$realm" -P "$tmp/kdc.pid" >>"$tmp/kdc.log" 2>&1
ok $? "the KDC started on 127.0.0.1:$kdc_port"

export KRB5CCNAME=FILE:$tmp/ccache
for i in $(seq 40); do
	kinit -k -t "$tmp/root.keytab" "root@$realm" 2>"$tmp/kinit.err" && break
	sleep 0.25
done
klist -s
ok $? "root holds a ticket from the lab's KDC ($(tail -n 1 "$tmp/kinit.err" 2>/dev/null))"

# ------------------------------------------------------------------ the node
ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" || exit 1
# GSSAPI and nothing else: no key, no password would get in
cat >"$tmp/sshd_config" <<EOF
ListenAddress $node:22
HostKey $tmp/hostkey
PidFile $tmp/sshd.pid
StrictModes no
UsePAM no
PermitRootLogin yes
PubkeyAuthentication no
PasswordAuthentication no
KbdInteractiveAuthentication no
GSSAPIAuthentication yes
# the acceptor takes any key in its keytab: this namespace shares the
# machine's hostname, which is not the address the client asked for
GSSAPIStrictAcceptorCheck no
LogLevel VERBOSE
EOF
mkdir -p /run/sshd
# the acceptor reads the keytab named by KRB5_KTNAME and the realm from
# KRB5_CONFIG (sshd keeps its own environment; its sessions get a clean one)
ip netns exec "$ns" env KRB5_KTNAME="$tmp/sshd.keytab" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" ||
	skip_all "sshd did not start"
printf '%s %s\n' "$node" "$(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
cat >"$tmp/ssh_config" <<EOF
Host krbnode
    HostName $node
    User root
    GSSAPIAuthentication yes
    PubkeyAuthentication no
    UserKnownHostsFile $tmp/known_hosts
    GlobalKnownHostsFile none
EOF
unset SSH_AUTH_SOCK
common="--clock-check 0 --timeout 40 --connect-timeout 30"

# the node answers a plain ssh with the ticket before synctop is asked (a
# loaded machine's first logins can take seconds)
for i in $(seq 30); do
	timeout 30 ssh -F "$tmp/ssh_config" -o BatchMode=yes -T krbnode true 2>"$tmp/ssh.err" && break
	sleep 1
done
timeout 30 ssh -F "$tmp/ssh_config" -o BatchMode=yes -T krbnode true 2>"$tmp/ssh.err"
rc=$?
ok $rc "the system ssh client logs in with the ticket ($(tail -n 1 "$tmp/ssh.err"))"
[ $rc -eq 0 ] ||
	diag "$(timeout 30 ssh -vvv -F "$tmp/ssh_config" -o BatchMode=yes -T krbnode true 2>&1 | grep -i -E 'gss|krb|debug1: Authentications' | tail -n 12)" \
		"$(tail -n 8 "$tmp/sshd.log")" "$(tail -n 5 "$tmp/kdc.log")"

# ------------------------------------------------------------ --transport ssh
# shellcheck disable=SC2086
"$bin" --once --json $common --transport ssh -F "$tmp/ssh_config" krbnode >"$tmp/ssh.json" 2>"$tmp/err"
ok $? "--transport ssh --once --json ran ($(head -c 200 "$tmp/err"))"
err=$(jq -r '.nodes[0].error' "$tmp/ssh.json")
[ "$err" = null ] && [ "$(jq -r '.nodes[0].reachable' "$tmp/ssh.json")" = true ] &&
	[ "$(jq -r '.nodes[0].daemons != null' "$tmp/ssh.json")" = true ]
rc=$?
ok $rc "--transport ssh: the node answered through Kerberos, with its probe's sections (error: $err)"
[ $rc -eq 0 ] ||
	diag "$(jq -c '.nodes[0] | with_entries(select(.value != null)) | keys' "$tmp/ssh.json")"
grep -q "Authorized to root, krb5 principal root@$realm (krb5_kuserok)" "$tmp/sshd.log"
ok $? "the node's sshd logged the Kerberos principal it let in"

# ------------------------------------------------------------ libssh2 cannot
# shellcheck disable=SC2086
"$bin" --once --json $common -F "$tmp/ssh_config" krbnode >"$tmp/libssh2.json" 2>"$tmp/err"
rc=$?
err=$(jq -r '.nodes[0].error' "$tmp/libssh2.json")
diag "libssh2: exit $rc, $err"
want="auth: server does not accept public keys for root (it offers: gssapi-keyex,gssapi-with-mic) (ssh_config gives it"
want="$want GSSAPIAuthentication yes ($tmp/ssh_config:4), which only OpenSSH can use: synctop's built-in SSH client uses"
want="$want agent keys and key files only: use --transport ssh (the system ssh client does Kerberos, certificates,"
want="$want PKCS#11 and FIDO keys), or give the node a plain key (IdentityFile or ssh-add))"
[ "$err" = "$want" ]
ok $? "the built-in client's auth error names the GSSAPIAuthentication line and --transport ssh, once"
# shellcheck disable=SC2086
"$bin" --check $common -F "$tmp/ssh_config" krbnode >"$tmp/check.out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q -- "--transport ssh" "$tmp/check.out"
ok $? "--check: the node is unknown (exit $rc, 3) and its line names --transport ssh"

# -------------------------------------------------------- without a ticket
KRB5CCNAME=FILE:$tmp/empty-ccache "$bin" --once --json $common --transport ssh -F "$tmp/ssh_config" krbnode \
	>"$tmp/noticket.json" 2>"$tmp/err"
err=$(jq -r '.nodes[0].error' "$tmp/noticket.json")
case $err in
"auth: ssh exited with status 255: "*"Permission denied (gssapi-"*) true ;;
*) false ;;
esac
ok $? "without a ticket --transport ssh is an auth error in ssh's words: $err"

done_testing
