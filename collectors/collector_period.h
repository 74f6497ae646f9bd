/* collector_period.h - how often each periodic collector runs on a node:
 * its descriptor's period_s, unless `--period NAME=SEC` says otherwise.
 *
 * A periodic collector is one whose tool costs the node too much for every
 * poll (ntpsec's ntpq: ~100 ms of node CPU a call, bench/node-tools) or
 * whose answer seldom changes (ethtool -T, chronyc selectdata).  Between
 * its runs the node keeps its last answer (the collector's carry), with its
 * age where the collector shows one (ntpq: `ntp.age_s`). */
#ifndef SYNCTOP_COLLECTOR_PERIOD_H
#define SYNCTOP_COLLECTOR_PERIOD_H

#include <stddef.h>

/* Registry entries the overrides cover (test_collector_period checks the
 * registry fits). */
#define COLLECTOR_PERIOD_MAX 32
/* Shortest and longest period accepted: a period below a second would be
 * every poll, which is what the tool was made periodic to avoid. */
#define COLLECTOR_PERIOD_MIN_S 1.0
#define COLLECTOR_PERIOD_MAX_S 86400.0

typedef struct {
	/* Per registry entry: seconds, or 0 for the descriptor's own. */
	double s[COLLECTOR_PERIOD_MAX];
} collector_periods;

/* Parses one `NAME=SEC` (NAME a periodic collector's probe section, SEC
 * seconds) into p.  0, or -1 with the reason in err (unknown tool, a tool
 * that runs every poll, a bad number). */
int collector_period_parse(const char *arg, collector_periods *p, char *err, size_t errlen);

/* Registry entry i's period: p's override where it has one (p may be NULL),
 * else the descriptor's period_s. */
double collector_period_s(const collector_periods *p, size_t i);

#endif
