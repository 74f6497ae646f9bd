# tap.sh - tiny TAP helpers for the shell tests (sourced).
tap_n=0
tap_failed=0
ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '# %s\n' "$@"; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
tap_wait() { # tap_wait SECONDS COMMAND...: until COMMAND succeeds, every 0.1 s
	tap_w=$(($1 * 10))
	shift
	while [ "$tap_w" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		tap_w=$((tap_w - 1))
	done
	return 1
}
