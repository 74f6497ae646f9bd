/* collector_period.c - `--period NAME=SEC`: a periodic collector's period
 * (collector_period.h). */
#include <config.h>

#include "collector_period.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

static size_t find_collector(const char *name, size_t len)
{
	for (size_t i = 0; i < collector_registry_count; i++) {
		const char *n = collector_registry[i]->name;
		if (strlen(n) == len && strncmp(n, name, len) == 0) {
			return i;
		}
	}
	return collector_registry_count;
}

/* The periodic collectors' names, for the error message. */
static void periodic_names(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < collector_registry_count && used < len; i++) {
		const collector *c = collector_registry[i];
		if (c->cadence == COLLECT_PERIODIC) {
			int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c->name);
			used += n > 0 ? (size_t)n : 0;
		}
	}
}

int collector_period_parse(const char *arg, collector_periods *p, char *err, size_t errlen)
{
	char names[160];
	const char *eq = strchr(arg, '=');
	periodic_names(names, sizeof names);
	if (!eq || eq == arg) {
		snprintf(err, errlen, "expected TOOL=SECONDS (TOOL one of %s), got \"%.40s\"", names, arg);
		return -1;
	}
	size_t i = find_collector(arg, (size_t)(eq - arg));
	if (i >= collector_registry_count || i >= COLLECTOR_PERIOD_MAX) {
		snprintf(err, errlen, "unknown tool \"%.*s\" (one of %s)", (int)(eq - arg > 31 ? 31 : eq - arg), arg,
			 names);
		return -1;
	}
	if (collector_registry[i]->cadence != COLLECT_PERIODIC) {
		snprintf(err, errlen, "%s runs every poll; only %s have a period", collector_registry[i]->name, names);
		return -1;
	}
	char *end = NULL;
	errno = 0;
	double v = strtod(eq + 1, &end);
	if (errno != 0 || end == eq + 1 || *end != '\0' || !isfinite(v) || v < COLLECTOR_PERIOD_MIN_S ||
	    v > COLLECTOR_PERIOD_MAX_S) {
		snprintf(err, errlen, "%s: expected seconds from %.0f to %.0f, got \"%.20s\"", collector_registry[i]->name,
			 COLLECTOR_PERIOD_MIN_S, COLLECTOR_PERIOD_MAX_S, eq + 1);
		return -1;
	}
	p->s[i] = v;
	return 0;
}

double collector_period_s(const collector_periods *p, size_t i)
{
	if (p && i < COLLECTOR_PERIOD_MAX && p->s[i] > 0) {
		return p->s[i];
	}
	return collector_registry[i]->period_s;
}
