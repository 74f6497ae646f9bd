#!/bin/sh
# docs.sh - the documentation names every finding code and every Prometheus
# family the sources can produce: a new check or series without its line in
# docs/checks.md, the README's checks table, the man page or
# docs/prometheus.md fails here, so the docs stay true as collectors are added.
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# Codes passed as literals to finding_start (every rule writes them so).
codes=$(grep -rhoE 'finding_start\([^,]+, *SEVERITY_[A-Z]+, *"[a-z_]+\.[a-z_]+"' core collectors src |
	grep -oE '"[a-z_]+\.[a-z_]+"' | tr -d '"' | sort -u)
[ -n "$codes" ]
ok $? "finding codes found in the sources"
for code in $codes; do
	grep -q "\`$code\`" docs/checks.md
	ok $? "docs/checks.md describes $code"
	grep -q "\`$code\`" README.md
	ok $? "README's checks table lists $code"
	grep -q "Sy $code\$" docs/synctop.1
	ok $? "docs/synctop.1 lists $code"
done

# Families as the collectors and report_prometheus.c declare them: the
# first member of a prom_family initialiser, or a family name passed whole.
families=$(grep -rhoE '\{ *"synctop_[a-z_]+", *"(gauge|counter)"' core collectors src |
	grep -oE 'synctop_[a-z_]+' | sort -u)
[ -n "$families" ]
ok $? "Prometheus families found in the sources"
for family in $families; do
	grep -q "\`$family\`" docs/prometheus.md
	ok $? "docs/prometheus.md describes $family"
done
done_testing
