#!/bin/sh
# replay.sh - TAP test for `make check`: every fuzz target runs once over its
# seed corpus and its saved crashes (tests/fuzz/corpus/NAME and
# tests/fuzz/regressions/NAME) through the replay_NAME programs, which are
# the targets linked with replay_main.c and the project's sanitizer flags
# instead of libFuzzer (no clang needed).  A crash that was found by
# tests/fuzz/run and not fixed yet fails here.
#
# The programs are looked for in $FUZZ_REPLAY_BIN, else tests/fuzz under the
# current directory (the build tree, where `make check` runs tests).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/tap.sh"
bin=${FUZZ_REPLAY_BIN:-tests/fuzz}
targets="chrony_csv chrony_text chrony_select chrony_ntpdata timesyncd ntpq pmc ethtool daemons phc_ctl probe_split probe_decode hostlist hostlist_compress target ntpctl
	ssh_config known_hosts sanitize report_json config prometheus_query command_template jump_spec"
if [ -f "$here/fuzz_theme.c" ]; then
	targets="$targets theme"
fi

files_in() { # regular files (not dot files) in a directory that may not exist
	if [ -d "$1" ]; then
		find "$1" -maxdepth 1 -type f ! -name '.*' | wc -l
	else
		echo 0
	fi
}

for t in $targets; do
	prog=$bin/replay_$t
	corpus=$here/corpus/$t
	reg=$here/regressions/$t
	if [ ! -x "$prog" ]; then
		ok 1 "$t: $prog not built"
		continue
	fi
	want=$(($(files_in "$corpus") + $(files_in "$reg")))
	out=$("$prog" "$corpus" "$reg" 2>&1)
	rc=$?
	got=$(printf '%s\n' "$out" | sed -n 's/^replayed \([0-9][0-9]*\) inputs$/\1/p')
	if [ "$rc" -eq 0 ] && [ "$want" -gt 0 ] && [ "${got:-0}" -eq "$want" ]; then
		ok 0 "$t: $got inputs replayed"
	else
		ok 1 "$t: replay failed (exit $rc, ${got:-0} of $want inputs)"
		# the failing input is the last one named, then the report
		printf '%s\n' "$out" | grep -v '^replay: .*/' | tail -n 40 | while IFS= read -r line; do
			diag "$line"
		done
		printf '%s\n' "$out" | grep '^replay: .*/' | tail -n 1 | while IFS= read -r line; do
			diag "last input: ${line#replay: }"
		done
	fi
done
done_testing
