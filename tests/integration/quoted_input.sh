#!/bin/sh
# quoted_input.sh - errors that quote the operator's hosts, ssh config and
# config files or arguments show hostile bytes (escape sequences, bidi
# controls) as \xNN: nothing raw reaches the terminal, and the run stops
# with exit status 64 before anything connects.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

esc=$(printf '\033')
rlo=$(printf '\342\200\256') # U+202E RIGHT-TO-LEFT OVERRIDE

# description, expected stderr substring, args...
expect_shown() {
	desc=$1 want=$2
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	# any control byte but the final newline, or any byte above 0x7e
	raw=$(LC_ALL=C tr -d '\n\040-\176' <"$tmp/err" | wc -c)
	[ "$rc" -eq 64 ] && [ "$raw" -eq 0 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "$desc (rc=$rc, raw bytes=$raw)"
	if [ "$rc" -ne 64 ] || [ "$raw" -ne 0 ]; then
		diag "$(od -c "$tmp/err" | head -5)"
	fi
}

printf 'node1\nno%s]0;pwned\007de\n' "$esc" >"$tmp/hosts-osc"
expect_shown "hosts file: OSC in a name" 'control character \x1b' --once -f "$tmp/hosts-osc"
printf 'node1\nnode%sx\n' "$rlo" >"$tmp/hosts-bidi"
expect_shown "hosts file: bidi override in a name" 'node\xe2\x80\xaex: character \xe2' \
	--once -f "$tmp/hosts-bidi"
printf 'node1\n[fe80::1%sx]\n' "$rlo" >"$tmp/hosts-ipv6"
expect_shown "hosts file: bidi override in an IPv6 literal" 'not an IPv6 address: fe80::1\xe2\x80\xaex' \
	--once -f "$tmp/hosts-ipv6"
expect_shown "argument: CSI in a host" "host 'no\\x1b[2Jde'" --once "no${esc}[2Jde"
expect_shown "argument: bidi override in -w" "-w 'a[1-\\xe2\\x80\\xae]'" --once -w "a[1-${rlo}]"
printf 'Host *\n  Port 2%s2\n' "$rlo" >"$tmp/ssh_config"
expect_shown "ssh config: bidi override in a value" "bad port '2\\xe2\\x80\\xae2'" \
	--once -F "$tmp/ssh_config" node1
printf '{%s[31m: 1}' "$esc" >"$tmp/bad.json"
expect_shown "config: JSON syntax error near a raw ESC" "bad.json:1:2: " --demo --config "$tmp/bad.json"
grep -qF "near '\\x1b'" "$tmp/err"
ok $? "config: the quoted byte is shown, with the quote after it"
done_testing
