#!/bin/bash
# build-deb.sh - build the synctop Debian package from a temporary copy of this
# tree (`dpkg-buildpackage -us -uc -b`), check what it installs, and run lintian.
#
#   tests/package/build-deb.sh [OUTDIR]
#
# OUTDIR (default: a new /tmp/synctop-deb.XXXXXX) receives the .deb, .changes
# and .buildinfo, build.log and lintian.log.  The copy holds what a fresh
# clone would plus uncommitted work, never build products, so the package
# build starts from autoreconf as it would on a build daemon.  Missing build
# dependencies and lintian are installed when running as root (or with sudo).
# Exit status: 0 when the package builds, holds its files, ran the unit tests
# and has no lintian error or warning; 1 otherwise.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d /tmp/synctop-deb.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/synctop-debbuild.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

fail() { echo "build-deb: $*" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi

command -v dpkg-buildpackage >/dev/null || fail "dpkg-buildpackage missing (apt-get install dpkg-dev)"
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$work/synctop-${version%-*}
mkdir -p "$src"

# Regular files and symlinks only: a stray FIFO in the tree must not hang tar.
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(
		cd "$top"
		git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
			if [ -f "$f" ] || [ -L "$f" ]; then
				printf '%s\0' "$f"
			fi
		done | tar --null -T - -cf -
	) | tar -xf - -C "$src"
else
	(cd "$top" && find . -path './_build*' -prune -o \( -type f -o -type l \) -print0 \
		| tar --null -T - -cf -) | tar -xf - -C "$src"
fi

if ! (cd "$src" && dpkg-checkbuilddeps) 2>"$work/deps"; then
	cat "$work/deps" >&2
	[ -z "$sudo" ] || command -v sudo >/dev/null || fail "build dependencies missing"
	echo "build-deb: installing the build dependencies"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get build-dep -y -qq "$src" >/dev/null
fi
if ! command -v lintian >/dev/null; then
	[ -z "$sudo" ] || command -v sudo >/dev/null || fail "lintian missing"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends lintian >/dev/null
fi

start=$(date +%s)
echo "build-deb: building in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	fail "dpkg-buildpackage failed"
fi
echo "build-deb: built in $(($(date +%s) - start)) s"
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
deb=$(ls "$out"/synctop_*.deb)
status=0

# The unit tests ran (a renamed Makefile variable would silently drop them).
if ! grep -q '^PASS: tests/unit/' "$out/build.log"; then
	echo "build-deb: the package build ran no unit tests" >&2
	status=1
fi
for f in ./usr/bin/synctop ./usr/share/man/man1/synctop.1.gz ./usr/share/synctop/themes/default.json \
	./usr/share/bash-completion/completions/synctop ./usr/share/doc/synctop/copyright; do
	if ! dpkg-deb -c "$deb" | awk '{print $6}' | grep -qxF -- "$f"; then
		echo "build-deb: $f is not in $deb" >&2
		status=1
	fi
done

start=$(date +%s)
if ! lintian -I --fail-on error,warning "$out"/*.changes >"$out/lintian.log" 2>&1; then
	status=1
fi
cat "$out/lintian.log"
echo "build-deb: lintian took $(($(date +%s) - start)) s"
echo "build-deb: $([ "$status" -eq 0 ] && echo ok || echo FAILED): $deb"
exit "$status"
