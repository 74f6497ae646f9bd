#!/bin/bash
# completion.sh - completion/synctop.bash, sourced in a bare bash (no
# bash-completion package) with a throwaway HOME: what COMPREPLY holds for
# options, option arguments, files, themes and hosts.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# A HOME with an ssh config and known_hosts holding every kind of entry.
export HOME=$tmp/home
mkdir -p "$HOME/.ssh"
cat >"$HOME/.ssh/config" <<'EOF'
# comment: Host commented-out
Host gpu1 gpu2
	HostName 10.0.0.1
host=login1
  HOST  "bastion"   # trailing comment
Host * !gpu3
Host gpu? rack*-n1
Match host gpu1
	User root
EOF
cat >"$HOME/.ssh/known_hosts" <<'EOF'
gpu1,10.0.0.1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHplain
[storage1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHport
|1|c2FsdHNhbHRzYWx0c2FsdHNhbHQ=|aGFzaGhhc2hoYXNoaGFzaGhhc2g= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhash
@revoked oldnode ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHrevoked
*.example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHwild

# blank line above
EOF
printf 'Host other1 other2\n' >"$tmp/other_config"
printf 'elsewhere1 ssh-ed25519 AAAA\n' >"$tmp/other_known_hosts"
: >"$tmp/hosts.txt"
: >"$tmp/debug.log"
unset SYNCTOP_THEMES_DIR

# A synctop on PATH with themes where `make install` puts them relative to it.
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/share/synctop/themes"
printf '#!/bin/sh\nexit 0\n' >"$tmp/prefix/bin/synctop"
chmod +x "$tmp/prefix/bin/synctop"
: >"$tmp/prefix/share/synctop/themes/dark.json"
: >"$tmp/prefix/share/synctop/themes/light.json"
: >"$tmp/prefix/share/synctop/themes/README"
PATH=$tmp/prefix/bin:$PATH

. "$top/completion/synctop.bash"
complete -p synctop 2>/dev/null | grep -q -- '-F _synctop'
ok $? "sourcing registers _synctop for synctop"

# comp WANT WORD... : complete the last WORD (words as bash splits them with
# the default COMP_WORDBREAKS, so "--opt=x" is "--opt" "=" "x"); WANT is the
# sorted replies joined by spaces.
comp() {
	local want=$1 got
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_synctop synctop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
	got=${got% }
	[ "$got" = "$want" ]
	ok $? "synctop ${*:2} -> '$want'"
	[ "$got" = "$want" ] || diag "got '$got'"
}

comp "--fail-on=" synctop --fa
comp "--check" synctop --chec
comp "--hostfile= --hostlist-only --hostlist=" synctop --host
comp "--hostlist-only" synctop --check --hostlist-
comp "crit warn" synctop --check --fail-on ""
comp "crit" synctop --check --fail-on c
comp "crit warn" synctop --check --fail-on =
comp "warn" synctop --check --fail-on = w
comp "--fail-on=crit" synctop --check --fail-on=c
comp "accept-new no yes" synctop --strict-host-key-checking ""
comp "--strict-host-key-checking=accept-new" synctop --strict-host-key-checking=a
comp "dark default light mono" synctop --theme ""
comp "light" synctop --theme = l
SYNCTOP_THEMES_DIR=$tmp/mythemes
mkdir -p "$SYNCTOP_THEMES_DIR"
: >"$SYNCTOP_THEMES_DIR/mine.json"
: >"$SYNCTOP_THEMES_DIR/dark.json"
comp "dark default light mine mono" synctop --theme ""
unset SYNCTOP_THEMES_DIR
comp "$tmp/prefix/share/synctop/themes/dark.json" synctop --theme "$tmp/prefix/share/synctop/themes/d"
comp "$tmp/debug.log" synctop --log "$tmp/deb"
comp "$tmp/hosts.txt" synctop -f "$tmp/hosts"
comp "$tmp/hosts.txt" synctop --hostfile "$tmp/hosts"
comp "$tmp/other_config" synctop -F "$tmp/other_c"
comp "$tmp/other_known_hosts" synctop --known-hosts "$tmp/other_k"
comp "$tmp/other_known_hosts" synctop -i "$tmp/other_k"
comp "" synctop -d ""
comp "" synctop --once=x

# Hosts: config names without patterns, plain known_hosts names with
# [host]:port unwrapped; not hashed, @revoked's own name counts, no wildcards.
comp "10.0.0.1 bastion gpu1 gpu2 login1 oldnode storage1" synctop ""
comp "gpu1 gpu2" synctop --once gpu
comp "root@gpu1 root@gpu2" synctop root@gpu
comp "login1" synctop -w lo
comp "login1" synctop --hostlist = lo
comp "gpu1,login1" synctop -w gpu1,lo
comp "gpu[1-4],login1" synctop -w "gpu[1-4],lo"
comp "gpu1,login1" synctop --from-prometheus http://p:9090 --ssh-detail gpu1,lo
comp "" synctop -- --
comp "other1 other2" synctop -F "$tmp/other_config" --known-hosts /nonexistent oth
comp "elsewhere1" synctop --known-hosts "$tmp/other_known_hosts" -F none e
comp "10.0.0.1 elsewhere1 gpu1 oldnode storage1" synctop --known-hosts "$tmp/other_known_hosts" \
	--known-hosts "$HOME/.ssh/known_hosts" -F none ""

# Every option the binary documents is offered (when the binary is built).
if [ -n "${SYNCTOP_BIN:-}" ] && [ -x "$SYNCTOP_BIN" ]; then
	missing=""
	# the option column only: "  -w, --hostlist LIST", "      --local"
	for o in $("$SYNCTOP_BIN" --help | grep -oE -- '^ +(-[a-zA-Z], )?--?[a-zA-Z][a-zA-Z-]*' \
		| tr -s ', ' '\n' | sort -u); do
		COMP_WORDS=(synctop "$o")
		COMP_CWORD=1
		COMPREPLY=()
		_synctop synctop "$o" synctop
		printf '%s\n' "${COMPREPLY[@]}" | grep -qxE -- "$o=?" || missing="$missing $o"
	done
	[ -z "$missing" ]
	ok $? "every option in synctop --help completes"
	[ -z "$missing" ] || diag "missing:$missing"
else
	diag "SYNCTOP_BIN not set: --help cross-check not run"
fi
done_testing
