#!/bin/sh
# gate_docs.sh - the gate snippets of docs/gate.md do what the page says: the
# Slurm prolog and the LBNL NHC check function are taken from the page as
# written, the NHC function passes `bash -n`, and both run against a fake
# synctop on PATH for every exit status synctop gives (0-3) and for the ones
# it cannot give as a check (64, 70, not installed).  The fake records its
# arguments, so the snippets are also held to calling the node-local check.
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/docs/gate.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v bash >/dev/null 2>&1 || skip_all "no bash"

snippet() { # marker: the fenced block holding a line "# MARKER:"
	awk -v m="# $1:" '
		/^```/ { if (inside) { if (hit) { printf "%s", buf; exit } inside = 0; buf = ""; hit = 0 }
			 else { inside = 1 } next }
		inside { buf = buf $0 "\n"; if (index($0, m) == 1) hit = 1 }' "$doc"
}
snippet synctop-prolog >"$tmp/prolog.sh"
snippet synctop-nhc >"$tmp/synctop.nhc"
[ -s "$tmp/prolog.sh" ] && [ -s "$tmp/synctop.nhc" ]
ok $? "docs/gate.md holds the prolog and the NHC function"
sh -n "$tmp/prolog.sh"
ok $? "the prolog is valid sh"
bash -n "$tmp/synctop.nhc"
ok $? "the NHC function is valid bash (bash -n)"

# A fake synctop: prints two problem lines, records its arguments, exits
# $FAKE_RC.  A fake logger records what would go to syslog.
mkdir -p "$tmp/bin" "$tmp/nobin"
cat >"$tmp/bin/synctop" <<'FAKE'
#!/bin/sh
printf '%s\n' "$*" >"$FAKE_DIR/args"
printf 'localhost CRIT chrony.leap: Leap status "Not synchronised"\nlocalhost WARN chrony.skew: skew\n'
printf 'synctop check: 1 node: 0 ok, 0 warn, 1 crit, 0 unknown\n'
exit "$FAKE_RC"
FAKE
cat >"$tmp/bin/logger" <<'FAKE'
#!/bin/sh
printf '%s\n' "$*" >>"$FAKE_DIR/syslog"
FAKE
chmod +x "$tmp/bin/synctop" "$tmp/bin/logger"
cp "$tmp/bin/logger" "$tmp/nobin/logger"
export FAKE_DIR="$tmp"

# rc synctop gives, the prolog's expected exit, whether it logs
for c in "0 0 no" "1 1 yes" "2 1 yes" "3 1 yes" "64 0 yes" "70 0 yes" "127 0 yes"; do
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- $c
	rm -f "$tmp/syslog" "$tmp/args"
	if [ "$1" = 127 ]; then
		path=$tmp/nobin:/usr/bin:/bin # synctop is not installed
	else
		path=$tmp/bin:/usr/bin:/bin
	fi
	FAKE_RC=$1 PATH=$path sh "$tmp/prolog.sh" >"$tmp/out" 2>&1
	rc=$?
	logged=no
	[ -s "$tmp/syslog" ] && logged=yes
	[ "$rc" = "$2" ] && [ "$logged" = "$3" ] && [ ! -s "$tmp/out" ]
	ok $? "prolog: synctop exit $1 -> prolog exit $rc (want $2), logged $logged"
	if [ "$1" = 2 ]; then
		grep -q 'synctop-prolog' "$tmp/syslog" && grep -q 'CRIT chrony.leap' "$tmp/syslog"
		ok $? "prolog: the problem lines reach syslog"
		grep -qx -- '--check --local --fail-on crit --timeout 5' "$tmp/args"
		ok $? "prolog: runs the node-local check ($(cat "$tmp/args"))"
	fi
done

# The NHC function with NHC's die and log stood in for: die records the
# reason, log the message.
for c in "0 0 -" "1 1 die" "2 1 die" "3 1 die" "64 0 log" "127 0 log"; do
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- $c
	rm -f "$tmp/died" "$tmp/logged" "$tmp/args"
	if [ "$1" = 127 ]; then
		path=$tmp/nobin:/usr/bin:/bin
	else
		path=$tmp/bin:/usr/bin:/bin
	fi
	FAKE_RC=$1 PATH=$path bash -c '
		die() { shift; printf "%s\n" "$*" >"$FAKE_DIR/died"; return 1; }
		log() { printf "%s\n" "$*" >"$FAKE_DIR/logged"; }
		. "$1"
		check_synctop "$2"' nhc "$tmp/synctop.nhc" warn >"$tmp/out" 2>&1
	rc=$?
	did=-
	[ -s "$tmp/died" ] && did=die
	[ -s "$tmp/logged" ] && did=log
	[ "$rc" = "$2" ] && [ "$did" = "$3" ]
	ok $? "NHC: synctop exit $1 -> check exit $rc (want $2), $did (want $3)"
	if [ "$1" = 2 ]; then
		[ "$(cat "$tmp/died")" = 'check_synctop: localhost CRIT chrony.leap: Leap status "Not synchronised"' ]
		ok $? "NHC: the first problem line is the drain reason ($(cat "$tmp/died"))"
		grep -qx -- '--check --local --fail-on warn --timeout 5' "$tmp/args"
		ok $? "NHC: the level argument reaches --fail-on ($(cat "$tmp/args"))"
	fi
done

done_testing
