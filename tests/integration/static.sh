#!/bin/sh
# static.sh - cppcheck and clang-tidy over the C sources: zero findings, or
# the run fails.  A finding judged a false positive is silenced in place with
# a comment saying why: `// cppcheck-suppress <id>` for cppcheck,
# `NOLINT(<check>)` for clang-tidy (or the check is disabled in .clang-tidy,
# with its reason there).  A tool that is not installed is skipped.
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${SYNCTOP_BUILDDIR:-$top/_build-test}
out=$(mktemp)
err=$(mktemp)
stub=""
trap 'rm -f "$out" "$err"; [ -n "$stub" ] && rm -rf "$stub"' EXIT
cd "$top" || exit 1

skip() { # skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# config.h comes from the build directory; without one, a stand-in with the
# values the sources use
inc=$build
if [ ! -f "$inc/config.h" ]; then
	stub=$(mktemp -d)
	inc=$stub
	printf '#define PACKAGE_VERSION "0"\n#define LIBSSH2_BUILD_VERSION "0"\n' >"$inc/config.h"
fi

if command -v cppcheck >/dev/null 2>&1; then
	cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
		--suppress=missingIncludeSystem -I core -I collectors -I sources -I demo -I src -I tui -I themes -I "$inc" \
		-j 2 core collectors sources demo src tui themes >"$out" 2>&1
	[ ! -s "$out" ]
	ok $? "cppcheck: no findings in core/ collectors/ sources/ demo/ src/ tui/ themes/"
	[ -s "$out" ] && while IFS= read -r line; do diag "$line"; done <"$out"
else
	skip "cppcheck" "cppcheck not installed"
fi

tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
	skip "clang-tidy" "clang-tidy not installed"
elif [ ! -f .clang-tidy ]; then
	skip "clang-tidy" "no .clang-tidy in $top"
else
	# The compile flags go in as --extra-arg, and the bare `--` after the
	# file stops clang-tidy looking for a compilation database.
	set -- "$tidy" --quiet --config-file=.clang-tidy
	for f in -std=c11 -D_GNU_SOURCE "-I$inc" -Icore -Icollectors -Isources -Idemo -Itui -Ithemes -Isrc \
		$(pkg-config --cflags ncursesw libssh2 jansson libcurl yajl 2>/dev/null); do
		set -- "$@" "--extra-arg=$f"
	done
	jobs=$(nproc 2>/dev/null || echo 2)
	# One file per process: in one process, clang-tidy 14's valist checker
	# reports every va_start()ed list as uninitialised after the first file.
	printf '%s\n' core/*.c collectors/*.c sources/*.c demo/*.c src/*.c tui/*.c themes/*.c |
		xargs -n 1 -P "$jobs" sh -c 'exec "$@" --' sh "$@" >"$out" 2>"$err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$out" ]
	ok $? "clang-tidy: no findings in core/ collectors/ sources/ demo/ src/ tui/ themes/ (exit $rc)"
	if [ -s "$out" ] || [ "$rc" -ne 0 ]; then
		grep -E 'warning:|error:' "$out" | while IFS= read -r line; do diag "$line"; done
		grep -E 'error' "$err" | while IFS= read -r line; do diag "$line"; done
	fi
fi
done_testing
