#!/bin/sh
# progress.sh - --once and --check show one progress line on stderr while they
# wait, when stderr is a terminal (a pseudo-terminal here), and erase it
# before the result; with stderr in a file or a pipe nothing of it appears.
#
# Three nodes on loopback: this machine (--local, answers at once), a closed
# port (refused at once) and a listener that never speaks SSH (waits until
# --timeout), so the line has something in every count for a while.
set -u
. "$(dirname "$0")/tap.sh"
bin=${SYNCTOP_BIN:?}
tmp=$(mktemp -d)
listener=""
cleanup() {
	if [ -n "$listener" ]; then kill "$listener" 2>/dev/null; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
command -v python3 >/dev/null 2>&1 || skip_all "python3 not found (the pseudo-terminal)"

# A private HOME: no ssh config or known_hosts of the machine's user.
mkdir -p "$tmp/home/.ssh"
export HOME="$tmp/home"

# The silent listener: accepts (the kernel completes the TCP handshake) and
# never writes, so the SSH banner never comes.  It prints its port, then the
# closed port: one bound and closed again, so nothing listens there.
python3 - "$tmp/ports" <<'EOF' &
import os, socket, sys, time
silent = socket.socket()
silent.bind(("127.0.0.1", 0))
silent.listen(8)
closed = socket.socket()
closed.bind(("127.0.0.1", 0))
closed_port = closed.getsockname()[1]
closed.close()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (silent.getsockname()[1], closed_port))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
EOF
listener=$!
i=0
while [ ! -s "$tmp/ports" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
read -r silent closed <"$tmp/ports" || { echo "Bail out! the listener did not start"; exit 1; }

# Runs synctop with stderr on a pseudo-terminal (120 columns): what it wrote
# there goes to $tmp/tty, stdout to $tmp/out; exit status is synctop's.
on_tty() {
	python3 - "$tmp/tty" "$@" >"$tmp/out" <<'EOF'
import fcntl, os, pty, struct, subprocess, sys, termios
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
proc = subprocess.Popen(sys.argv[2:], stderr=slave)
os.close(slave)
got = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: every writer of the terminal is gone
        break
    if not chunk:
        break
    got += chunk
with open(sys.argv[1], "wb") as f:
    f.write(got)
sys.exit(proc.wait())
EOF
}

nodes="--local 127.0.0.1:$silent 127.0.0.1:$closed"
# shellcheck disable=SC2086 # the node list is meant to be split
on_tty "$bin" --once --timeout 2 $nodes
rc=$?
[ "$rc" -eq 0 ] && grep -q "^127.0.0.1:$closed .*refused" "$tmp/out" && grep -q "^localhost " "$tmp/out"
ok $? "--once on a terminal: the table on stdout as ever (rc=$rc)"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/out")"

# the lines as the terminal received them, one per \r
tr '\r' '\n' <"$tmp/tty" >"$tmp/lines"
grep -q "synctop: 3 nodes: 1 answered, 1 failed, 1 waiting (127.0.0.1:$silent), [0-9.]* s" "$tmp/lines"
ok $? "the progress line counts answered, failed and waiting and names the node still waiting"
diag "$(grep -m 1 waiting "$tmp/lines" | LC_ALL=C tr -d '\033')"
[ "$(grep -c 'synctop: 3 nodes' "$tmp/lines")" -ge 4 ]
ok $? "it is redrawn several times a second ($(grep -c 'synctop: 3 nodes' "$tmp/lines") lines in 2 s)"
esc=$(printf '\033')
# nothing after the last erase: the result starts on a clean line
[ "$(tail -c 4 "$tmp/tty" | od -An -c | tr -d ' \n')" = '\r033[K' ]
ok $? "the line is erased (CR ESC [K) at the end, nothing left on the terminal"
! grep -q "$esc" "$tmp/out" && ! grep -q "synctop: 3 nodes" "$tmp/out"
ok $? "nothing of it on stdout"

# shellcheck disable=SC2086
on_tty "$bin" --check --timeout 1 $nodes
rc=$?
# 3 (unknown nodes), or 2 if this machine's own clock is crit
[ "$rc" -ge 2 ] && [ "$rc" -le 3 ] && grep -q "synctop: 3 nodes: .* waiting" "$tmp/tty" && grep -q "^synctop check: 3 nodes" "$tmp/out" &&
	[ "$(tail -c 4 "$tmp/tty" | od -An -c | tr -d ' \n')" = '\r033[K' ]
ok $? "--check on a terminal: the line, erased, then the report and its status (rc=$rc)"

# stderr in a file: not a byte of it
# shellcheck disable=SC2086
"$bin" --once --timeout 1 $nodes >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q "nodes:.*waiting" "$tmp/err" && ! grep -q "$esc" "$tmp/err" &&
	[ "$(LC_ALL=C tr -cd '\r' <"$tmp/err" | wc -c)" -eq 0 ]
ok $? "stderr in a file: no progress line, no CR, no escape (rc=$rc)"
[ -s "$tmp/err" ] && diag "stderr: $(cat "$tmp/err")"

# stderr in a pipe (a Slurm prolog's log, | tee): the same
# shellcheck disable=SC2086
"$bin" --check --timeout 1 $nodes 2>&1 >/dev/null | cat >"$tmp/err"
! grep -q "nodes:.*waiting" "$tmp/err" && [ "$(LC_ALL=C tr -cd '\r\033' <"$tmp/err" | wc -c)" -eq 0 ]
ok $? "stderr in a pipe: no progress line"
done_testing
