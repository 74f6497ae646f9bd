#!/bin/bash
# tui_tmux.sh - the dashboard driven as a person would: a private tmux server,
# a fixed-size pane, send-keys, capture-pane, assertions on what is shown.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/lab_tmux.sh"
bin=${SYNCTOP_BIN:?}
command -v tmux >/dev/null 2>&1 || skip_all "tmux not installed"

tmp=$(mktemp -d /tmp/synctop-tui.XXXXXX)
sock=$tmp/tmux.0.sock
runs=0
tm() { tmux -S "$sock" "$@"; }
cleanup() {
	for s in "$tmp"/tmux.*.sock; do
		[ -S "$s" ] && tmux -S "$s" kill-server >/dev/null 2>&1
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Start synctop in a fresh tmux pane of the given size; "EXIT=<status>" is
# printed in the pane when it ends, so quitting can be checked too.
# The pane runs bash, which keeps going when synctop exits after Ctrl-C (dash
# would die of the SIGINT itself and take the pane with it).
cat >"$tmp/run" <<'EOF'
#!/bin/bash
env "$@"
echo "EXIT=$?"
sleep 60
EOF
chmod +x "$tmp/run"
start() { # cols rows env-and-args...
	local cols=$1 rows=$2
	shift 2
	# a fresh server per run: reusing a socket races with the old server's exit
	tm kill-server >/dev/null 2>&1
	runs=$((runs + 1))
	sock=$tmp/tmux.$runs.sock
	tm -f /dev/null new-session -d -s t -x "$cols" -y "$rows" \
		"$tmp/run LANG=C.UTF-8 TERM=xterm-256color $*"
	tm set-option -t t status off >/dev/null
}

# --- the demo cluster at 120x40 -----------------------------------------------
# gpu043's 3 ms offset (chrony.offset, cluster.offset_spread) and gpu011's
# 2.2 s clock check (clock.offset) wait their `for`, shortened from 30 s
printf '{"defaults": {"for": {"chrony.offset": 5, "cluster.offset_spread": 5, "clock.offset": 5}}}\n' \
	>"$tmp/for.json"
start 120 40 "$bin" --demo -d 1 --config "$tmp/for.json"
# gpu037 does not answer: it is connecting until its 3 s connect timeout
wait_for "^ synctop .* [0-9]+ connecting " 3
ok $? "the header counts the nodes still connecting"
wait_for "50 nodes.*8 crit.*2 warn.*2 pending.*37 ok" 4
ok $? "findings that have not lasted their for are pending, counted apart"
screen | grep -Eq "^gpu043 +PEND " && screen | grep -Eq "^gpu011 +PEND "
ok $? "the nodes whose findings wait are drawn PEND"
# crit: unsynchronised, chronyd down, FAULTY port, a clock 2.2 s off (clock
# check), the two nodes on minority grandmasters (cluster check), a training
# container's chronyd beside the host's (gpu005)
wait_for "50 nodes.*9 crit.*1 unknown.*3 warn.*37 ok" 15
ok $? "header counts match the demo cluster's states (50 nodes: 9 crit, 1 unknown, 3 warn, 37 ok)"
wait_for "^gpu037 .*UNKN.*Connection timed out" 10
! screen | head -n 1 | grep -q "connecting"
ok $? "no connecting count once every node answered or failed"
screen >"$tmp/first.txt"
head -n 4 "$tmp/first.txt" | grep -q "^NODE .*OFFSET.*PTP OFFSET"
ok $? "column headings are shown"
# default order: worst status first, then largest |offset|
awk 'NR > 3 && NF { print $2 }' "$tmp/first.txt" | head -n 12 | tr '\n' ' ' |
	grep -Eq '^CRIT CRIT CRIT CRIT CRIT CRIT CRIT CRIT CRIT UNKN WARN WARN $'
ok $? "rows are sorted worst first"
wait_for "^gpu037 .*UNKN.*Connection timed out" 10
ok $? "the unreachable node shows why"
grep -q "2 grandmasters" "$tmp/first.txt"
ok $? "the header counts the grandmasters followed (not the FAULTY clock naming itself)"

# --- filter ---------------------------------------------------------------------
keys / g p u 0 4 Enter
screen >"$tmp/filter.txt"
rows=$(awk 'NR > 3 && /^[a-z]/ { print $1 }' "$tmp/filter.txt" | grep -v '^NODE' | sort | tr '\n' ' ')
[ "$rows" = "gpu040 gpu041 gpu042 gpu043 gpu044 " ]
ok $? "filter /gpu04 keeps exactly gpu040..gpu044 (got: $rows)"
grep -q "/gpu04 5 of 50" "$tmp/filter.txt"
ok $? "the footer shows the active filter"
keys / C-u '!' o k Enter
screen >"$tmp/neg.txt"
! awk 'NR > 3 && /^[a-z]/' "$tmp/neg.txt" | grep -q " OK "
ok $? "filter !ok hides every ok node"
keys Escape
wait_for "Enter detail" 3
ok $? "Esc clears the filter"

# --- sorting ----------------------------------------------------------------------
keys g
keys r
screen >"$tmp/rev.txt"
awk 'NR > 3 && NF { print $2 }' "$tmp/rev.txt" | head -n 3 | tr '\n' ' ' | grep -Eq '^OK OK OK $'
ok $? "r reverses the order (ok nodes first)"
keys r

# --- n walks to problem nodes, Enter opens the drill-down --------------------------
keys g n
keys Enter
wait_for "fix" 20 # parallel tests load the machine: up to 20 s, at once when drawn
screen >"$tmp/detail.txt"
grep -Eq "gpu0(13|44|41)" "$tmp/detail.txt" && grep -qi "fix" "$tmp/detail.txt"
ok $? "the drill-down of a problem node shows its finding and the fix"
first=$(grep -Eo "gpu0[0-9]{2}" "$tmp/detail.txt" | head -n 1)
keys n
screen >"$tmp/detail2.txt"
second=$(grep -Eo "gpu0[0-9]{2}" "$tmp/detail2.txt" | head -n 1)
[ -n "$first" ] && [ -n "$second" ] && [ "$first" != "$second" ]
ok $? "n inside the drill-down walks to the next problem node ($first -> $second)"
keys Escape
wait_for "^NODE " 3
ok $? "Esc goes back to the grid"

# --- help ---------------------------------------------------------------------------
keys '?'
screen >"$tmp/help.txt"
grep -q "next / previous colour theme" "$tmp/help.txt" && grep -qi "filter" "$tmp/help.txt" &&
	grep -qi "pause" "$tmp/help.txt"
ok $? "? shows the help overlay listing the keys"
keys Escape

# --- events (issue 19): e, the header's count, the drill-down's section ----------------
grep -Eq " e +the events screen: what changed" "$tmp/help.txt"
ok $? "the help lists the events screen's key"
grep -Eq "^ synctop .* [0-9]+ events?/5 min" "$tmp/first.txt"
ok $? "the header counts the events of the last 5 minutes"
grep -q "^ *Events (newest first" "$tmp/detail.txt"
ok $? "the drill-down has the node's own events"
keys e
wait_for "events, newest first" 3
ok $? "e opens the events screen"
# start-up is the baseline: no events until the demo's first change at +20 s
# (or rows with a time and a kind, should one have come; events_tmux.sh
# drives this screen further)
screen | grep -Eq "no event yet|^ [0-9]{2}:[0-9]{2}:[0-9]{2} " && screen | grep -q "Enter node / expand group"
ok $? "the events screen lists events (or says there are none) and its keys"
keys Escape
wait_for "^NODE " 3
ok $? "Esc leaves the events screen for the grid"

# --- pause, interval ----------------------------------------------------------------
keys p
wait_for "paused|PAUSED" 3
ok $? "p pauses polling and says so"
keys p
keys +
wait_for "poll 2s|poll 2\.0" 3
ok $? "+ lengthens the poll interval"
keys -

# --- resize ---------------------------------------------------------------------------
tm resize-window -t t -x 80 -y 24
sleep 0.6
screen >"$tmp/small.txt"
[ "$(LC_ALL=C.UTF-8 wc -L <"$tmp/small.txt")" -le 80 ] &&
	grep -q "^NODE" "$tmp/small.txt" && grep -q "OFFSET" "$tmp/small.txt"
ok $? "at 80x24 the grid reflows: node, status and offset still shown"
tm resize-window -t t -x 200 -y 40
sleep 0.6
screen >"$tmp/wide.txt"
grep -q "PATH DELAY" "$tmp/wide.txt"
ok $? "back at 200 columns the dropped columns return"

# --- themes ---------------------------------------------------------------------------
keys t
screen >"$tmp/theme.txt"
grep -Eqi "theme" "$tmp/theme.txt"
ok $? "t switches the theme and says which"

# --- quit restores the terminal --------------------------------------------------------
keys q
wait_for "^EXIT=0" 5
ok $? "q quits with status 0"
! screen | grep -q "^NODE "
ok $? "the terminal is restored (the dashboard is gone from the screen)"

# --- 80x24: what an operator needs most stays ------------------------------------------
# Offset (PTP offsets share its column), frequency, leap, timestamping and the
# status must fit an 80-column terminal; the clock check, the trend, skew,
# path delay and rtt give way first.
start 80 24 "$bin" --demo -d 1
wait_for "50 nodes.*9 crit.*1 unknown.*3 warn.*37 ok" 15
screen >"$tmp/80x24.txt"
headings=$(sed -n 3p "$tmp/80x24.txt" | sed 's/[▲▼]//g' | tr -s ' ' | sed 's/ *$//')
[ "$headings" = "NODE STAT SOURCE ST OFFSET/PTP FREQ ppm LEAP PORT TS AGE" ]
ok $? "80x24 headings: NODE STAT SOURCE ST OFFSET/PTP FREQ ppm LEAP PORT TS AGE (got: $headings)"
[ "$(LC_ALL=C.UTF-8 wc -L <"$tmp/80x24.txt")" -le 80 ]
ok $? "80x24: no line wider than the terminal"
n=$(awk 'NR > 3 && /^gpu0/ { print $5, $6, $7, $8 }' "$tmp/80x24.txt" |
	grep -Ec '^[-+][0-9.]+ (ns|µs|ms|s) [-+][0-9]+\.[0-9]{3} (normal|insert|delete|unsync)$')
[ "$n" -ge 10 ]
ok $? "80x24: the rows show offset, frequency and leap ($n rows)"
keys q
wait_for "^EXIT=0" 5

# --- NO_COLOR: no colour escapes -------------------------------------------------------
start 120 30 NO_COLOR=1 "$bin" --demo -d 1
wait_for "50 nodes" 15
tm capture-pane -e -p -t t >"$tmp/mono.txt"
! grep -Eq $'\033\\[[0-9;]*(3[0-7]|9[0-7]|38;5;[0-9]+)m' "$tmp/mono.txt"
ok $? "NO_COLOR: no foreground colour escape in the pane"
keys C-c
wait_for "^EXIT=130" 10
ok $? "Ctrl-C quits cleanly (status 130)"

# --- a failing --prometheus write is shown, the dashboard carries on --------------------
start 160 30 "$bin" --demo -d 0.5 --prometheus "$tmp/no-such-dir/synctop.prom"
wait_for "prometheus: .*cannot create a temporary file" 15
ok $? "a failing --prometheus write is shown in the footer"
keys q
wait_for "^EXIT=0" 5
ok $? "q still quits with status 0"

# --- signals and crashes give the terminal back -----------------------------------------
# After synctop ends, the pane's shell reports the terminal modes it was left
# in: "icanon" and "echo" (not "-icanon", "-echo") mean a usable line editor.
cat >"$tmp/run-tty" <<'EOF2'
#!/bin/bash
env "$@"
echo "EXIT=$?"
echo "TTY $(stty -a | tr ' ;' '\n\n' | grep -Ex -- '-?(icanon|echo)' | tr '\n' ' ')"
sleep 60
EOF2
chmod +x "$tmp/run-tty"
for sig in TERM HUP SEGV; do
	tm kill-server >/dev/null 2>&1
	runs=$((runs + 1))
	sock=$tmp/tmux.$runs.sock
	tm -f /dev/null new-session -d -s t -x 100 -y 30 \
		"$tmp/run-tty LANG=C.UTF-8 TERM=xterm-256color ASAN_OPTIONS=detect_leaks=0 $bin --demo -d 1"
	tm set-option -t t status off >/dev/null
	wait_for "50 nodes" 15
	shell_pid=$(tm display-message -p -t t '#{pane_pid}')
	pid=$(pgrep -P "$shell_pid" | head -n 1)
	[ -n "$pid" ] && kill -s "$sig" "$pid"
	wait_for "^TTY " 15
	screen | grep -q "^TTY icanon echo" && ! screen | grep -q "^NODE "
	ok $? "SIG$sig: terminal left in line mode with echo, dashboard gone ($(screen | grep -E '^(EXIT|TTY)' | tr '\n' ' '))"
	[ "$(tm display-message -p -t t '#{alternate_on} #{cursor_flag}')" = "0 1" ]
	ok $? "SIG$sig: normal screen and a visible cursor"
done

# --- hostile output never reaches the terminal raw --------------------------------------
mkdir -p "$tmp/bin"
cat >"$tmp/bin/chronyc" <<'EOF'
#!/bin/sh
printf '\033]0;PWNED-TITLE\007\033[2J\033[31mRED\033[0m\r\n\302\233evil\n'
printf 'line\033P+q\033\\ \n' >&2
exit 1
EOF
chmod +x "$tmp/bin/chronyc"
start 120 30 "PATH=$tmp/bin:$PATH" "$bin" --local -d 1
wait_for "localhost" 10
keys Enter
sleep 1
tm capture-pane -e -p -t t >"$tmp/hostile.txt"
title=$(tm display-message -p -t t '#{pane_title}')
[ "$title" != "PWNED-TITLE" ] && ! grep -q "PWNED" "$tmp/hostile.txt"
ok $? "an OSC title sequence from a node does not reach the terminal (title: $title)"
! grep -q $'\033\\[31mRED' "$tmp/hostile.txt"
ok $? "a colour escape from a node is not passed through"
keys q q
wait_for "^EXIT=0" 5
ok $? "quit after the drill-down"

done_testing
