#!/bin/sh
# static.sh - cppcheck over the C sources: zero findings, or the run fails.
# A finding judged a false positive is silenced in place with a one-line
# `// cppcheck-suppress <id>` comment saying why.
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v cppcheck >/dev/null 2>&1 || skip_all "cppcheck not installed"
build=${SYNCTOP_BUILDDIR:-$top/_build-test}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$top" || exit 1
# config.h comes from the build directory; without one, an empty stand-in
inc=$build
[ -f "$inc/config.h" ] || { inc=$(mktemp -d); : >"$inc/config.h"; }
cppcheck --quiet --enable=warning,portability,performance --std=c11 --inline-suppr \
	--suppress=missingIncludeSystem -I core -I collectors -I src -I tui -I themes -I "$inc" \
	-j 2 core collectors src tui themes >"$out" 2>&1
[ ! -s "$out" ]
ok $? "cppcheck: no findings in core/ collectors/ src/ tui/ themes/"
[ -s "$out" ] && while IFS= read -r line; do diag "$line"; done <"$out"
done_testing
