#!/bin/sh
# install_deps.sh - build-aux/install-deps, which .ci/run and tests/run call
# first on a fresh machine: it installs what is missing with service starts
# denied (policy-rc.d), and its exit status is apt's, whether or not the
# machine already had a policy-rc.d (a Docker image has one).
# dpkg-query and apt-get are stand-ins on PATH: nothing is installed here.
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

mkdir "$tmp/bin"
# every package is installed except libev-dev
cat >"$tmp/bin/dpkg-query" <<'EOF2'
#!/bin/sh
for last; do :; done
[ "$last" = libev-dev ] && exit 1
echo "install ok installed"
EOF2
# records its arguments and whether service starts were denied meanwhile
cat >"$tmp/bin/apt-get" <<'EOF2'
#!/bin/sh
p=$SYNCTOP_POLICY_RC_D
if [ -x "$p" ]; then "$p"; echo "policy=$?" >>"$APT_LOG"; else echo "policy=none" >>"$APT_LOG"; fi
echo "apt-get $*" >>"$APT_LOG"
exit "${APT_STATUS:-0}"
EOF2
cat >"$tmp/bin/sudo" <<'EOF2'
#!/bin/sh
exec "$@"
EOF2
chmod +x "$tmp/bin/"*
run() { # policy-path apt-status
	rm -f "$tmp/apt.log"
	PATH="$tmp/bin:$PATH" SYNCTOP_POLICY_RC_D=$1 APT_LOG=$tmp/apt.log APT_STATUS=$2 \
		"$top/build-aux/install-deps" build >"$tmp/out" 2>&1
}

# a machine without policy-rc.d: one is made for the install and removed
run "$tmp/policy-rc.d" 0
rc=$?
[ "$rc" = 0 ] && grep -q "apt-get install .*libev-dev" "$tmp/apt.log" && ! grep -q "install .*libjansson" "$tmp/apt.log"
ok $? "installs only what is missing (exit $rc)"
grep -q "^policy=101" "$tmp/apt.log" && [ ! -e "$tmp/policy-rc.d" ]
ok $? "service starts denied during the install, policy-rc.d removed after"

# a machine with its own policy-rc.d (a Docker image): kept, and exit 0
printf '#!/bin/sh\nexit 101\n' >"$tmp/own-policy"
chmod 755 "$tmp/own-policy"
run "$tmp/own-policy" 0
rc=$?
[ "$rc" = 0 ]
ok $? "an existing policy-rc.d: exit 0 (was 1: the EXIT trap's false test became the status) (exit $rc)"
[ -x "$tmp/own-policy" ]
ok $? "an existing policy-rc.d is left in place"

# apt failing fails the script
run "$tmp/policy-rc.d" 100
rc=$?
[ "$rc" != 0 ] && [ ! -e "$tmp/policy-rc.d" ]
ok $? "apt-get failing: non-zero exit, policy-rc.d still removed (exit $rc)"
done_testing
