# synctop.bash - bash completion for synctop(1).
#
# Self-contained: it works with or without the bash-completion package (only
# bash builtins), so the test can source it in a bare bash.  Hosts come from
# the Host lines of ~/.ssh/config (or -F FILE) and from ~/.ssh/known_hosts
# (or --known-hosts FILE): not patterns, which name no one host, and not
# hashed known_hosts entries, which cannot be read back.

# Theme names as synctop looks them up: $SYNCTOP_THEMES_DIR, then the themes
# of the synctop found on PATH ($(pkgdatadir)/themes is ../share/synctop/themes
# from $(bindir) in the usual layout, else the usual prefixes'), and the two
# built in.
_synctop_themes()
{
	local bin dir f
	local -a dirs=(/usr/share/synctop/themes /usr/local/share/synctop/themes) names=()
	local -A seen=()
	bin=$(type -P synctop 2>/dev/null)
	[[ -n $bin && -d ${bin%/*}/../share/synctop/themes ]] && dirs=("${bin%/*}/../share/synctop/themes")
	[[ -n ${SYNCTOP_THEMES_DIR-} ]] && dirs=("$SYNCTOP_THEMES_DIR" "${dirs[@]}")
	for dir in "${dirs[@]}"; do
		for f in "$dir"/*.json; do
			[[ -f $f ]] || continue
			f=${f##*/}
			names+=("${f%.json}")
		done
	done
	for f in "${names[@]}" default mono; do
		[[ -n ${seen[$f]+x} ]] && continue
		seen[$f]=1
		printf '%s\n' "$f"
	done
}

# Host names from ssh config files: the Host patterns that name one host.
_synctop_config_hosts()
{
	local file line key rest h
	local -a names
	for file in "$@"; do
		[[ -r $file ]] || continue
		while IFS= read -r line || [[ -n $line ]]; do
			line=${line#"${line%%[![:space:]]*}"}
			# "Host a b", "Host=a b", "host a"
			key=${line%%[[:space:]=]*}
			[[ ${key,,} == host ]] || continue
			rest=${line:${#key}}
			rest=${rest#"${rest%%[![:space:]]*}"}
			rest=${rest#=}
			rest=${rest%%#*}
			read -ra names <<<"$rest" # not `for h in $rest`: "Host *" would glob
			for h in "${names[@]}"; do
				h=${h//\"/}
				[[ -z $h || $h == *[*?!]* ]] && continue
				printf '%s\n' "$h"
			done
		done <"$file"
	done
}

# Host names from known_hosts files: plain entries only ("|1|..." is hashed).
_synctop_known_hosts()
{
	local file first rest h
	local -a names
	for file in "$@"; do
		[[ -r $file ]] || continue
		while read -r first rest || [[ -n $first ]]; do
			case $first in
			'' | '#'*) continue ;;
			@*) read -r first rest <<<"$rest" ;; # @cert-authority, @revoked
			esac
			IFS=, read -ra names <<<"$first"
			for h in "${names[@]}"; do
				[[ $h == '|'* || $h == *[*?!]* ]] && continue
				if [[ $h == \[*\]* ]]; then # [host]:port
					h=${h#\[}
					h=${h%%\]*}
				fi
				[[ -n $h ]] && printf '%s\n' "$h"
			done
		done <"$file"
	done
}

# Sets COMPREPLY to the hosts matching $1, each after $2 (an "--opt=") and the
# "user@" that $1 may start with.
_synctop_hosts()
{
	local cur=$1 prefix=${2-} user="" config=~/.ssh/config given=no i h
	local -a known=(~/.ssh/known_hosts ~/.ssh/known_hosts2) words=("${COMP_WORDS[@]}")
	local -A seen=()
	if [[ $cur == *@* ]]; then
		user=${cur%%@*}@
		cur=${cur#*@}
	fi
	# Follow -F and --known-hosts given earlier on the line.
	for ((i = 1; i < ${#words[@]} - 1; i++)); do
		case ${words[i]} in
		-F | --ssh-config) config=${words[i + 1]} ;;
		--known-hosts)
			[[ $given == no ]] && known=() && given=yes
			known+=("${words[i + 1]}") ;;
		esac
	done
	config=${config/#\~/$HOME}
	COMPREPLY=()
	while IFS= read -r h; do
		[[ -z $h || -n ${seen[$h]+x} || $h != "$cur"* ]] && continue
		seen[$h]=1
		COMPREPLY+=("$prefix$user$h")
	done < <(_synctop_config_hosts "$config"; _synctop_known_hosts "${known[@]/#\~/$HOME}")
}

_synctop()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev="" opt="" prefix="" i
	local opts="--once --json --check --fail-on= --for= --verbose --timeout= --interval= --hostlist= --hostlist-only
		--hostfile= --local --demo --config= --ssh-config= --user= --port= --identity= --jump= --jump-channels= --known-hosts=
		--strict-host-key-checking= --connect-timeout= --max-handshakes= --transport= --transport-cmd= --iface= --sudo --pmc-sudo
		--clock-check= --prometheus= --events= --state-dir= --state --theme= --no-color --no-mouse --log= --help --version -v -d -w -f -F -l -p -i -J -h
		--from-prometheus= --prometheus-selector= --prometheus-node-label= --prometheus-ca=
		--prometheus-bearer-token-file= --prometheus-basic-auth-file= --prometheus-stale= --ssh-detail= --period="
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# An option's argument: "-f x", "--opt x", "--opt=x" whether or not
	# COMP_WORDBREAKS splits at "=".
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		prefix=$opt=
		cur=${cur#*=}
	elif [[ $cur == = && $prev == --* ]]; then
		opt=$prev
		cur=""
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	else
		opt=$prev
		# after "--" every word is a host
		for ((i = 1; i < COMP_CWORD; i++)); do
			if [[ ${COMP_WORDS[i]} == -- ]]; then
				_synctop_hosts "$cur"
				return 0
			fi
		done
	fi

	local -a list=()
	case $opt in
	--fail-on)
		list=(warn crit) ;;
	--strict-host-key-checking)
		list=(yes accept-new no) ;;
	--transport)
		list=(libssh2 ssh) ;;
	--period) # TOOL=SEC, the periodic tools
		list=(ntpq= selectdata= ethtool=) ;;
	--transport-cmd) # a command line of the user's own
		COMPREPLY=()
		return 0 ;;
	--theme)
		if [[ $cur == */* || $cur == .* || $cur == \~* ]]; then
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -P "$prefix" -f -- "$cur")
			return 0
		fi
		mapfile -t list < <(_synctop_themes) ;;
	--state-dir)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -P "$prefix" -d -- "$cur")
		return 0 ;;
	-f | --hostfile | --config | -F | --ssh-config | -i | --identity | --known-hosts | --log | --prometheus | --events | \
		--prometheus-ca | --prometheus-bearer-token-file | --prometheus-basic-auth-file)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -P "$prefix" -f -- "$cur")
		return 0 ;;
	-l | --user)
		mapfile -t COMPREPLY < <(compgen -P "$prefix" -u -- "$cur")
		return 0 ;;
	--iface)
		[[ -d /sys/class/net ]] && list=(/sys/class/net/*) && list=("${list[@]##*/}") ;;
	-w | --hostlist | -J | --jump | --ssh-detail) # "a,b,c": the last one, after the others
		_synctop_hosts "${cur##*,}" "$prefix${cur%"${cur##*,}"}"
		return 0 ;;
	-d | --interval | --timeout | --for | -p | --port | --connect-timeout | --max-handshakes | --jump-channels)
		COMPREPLY=()
		return 0 ;;
	*)
		if [[ -n $prefix ]]; then # "--once=x": not an option that takes one
			COMPREPLY=()
			return 0
		fi
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
			# "--fail-on=" waits for its value; the others get a space.
			[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
			return 0
		fi
		_synctop_hosts "$cur"
		return 0 ;;
	esac
	mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "${list[*]}" -- "$cur")
	return 0
}

complete -F _synctop synctop
