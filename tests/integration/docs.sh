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

# Every code has its `for` (core/finding_wait.c's table, which the
# configuration's "for" keys are checked against) and its row in the
# checks page's `for` table; the table names no code the page lacks.
table=$(grep -oE '^[[:space:]]*\{"[a-z_]+\.[a-z_]+", ' core/finding_wait.c | grep -oE '[a-z_]+\.[a-z_]+' | sort -u)
documented=$(grep -oE '^### `[a-z_]+\.[a-z_]+`' docs/checks.md | grep -oE '[a-z_]+\.[a-z_]+' | sort -u)
for code in $(printf '%s\n%s\n' "$codes" "$documented" | sort -u); do
	printf '%s\n' "$table" | grep -qx "$code"
	ok $? "core/finding_wait.c gives $code its for"
	grep -qE "^\| \`$code\` \| (0|[0-9]+ s) \|\$" docs/checks.md
	ok $? "docs/checks.md's for table lists $code"
done
for code in $table; do
	printf '%s\n' "$documented" | grep -qx "$code"
	ok $? "$code in core/finding_wait.c is a documented code"
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
