/* finding_wait.h - how long a finding must last before the live view raises
 * the node for it (Prometheus' alerting `for`), and the list of every
 * finding code synctop can raise.
 *
 * A finding seen at a poll carries `since` (the observation time of the
 * first poll in the unbroken run that saw it).  In the live view, one that
 * has not yet lasted its code's wait is pending: it is shown, but the node
 * is drawn "pending" instead of warn/crit for it.  A flap (gone at one poll)
 * starts the wait again.  --once, --check and the Prometheus export judge
 * now: they never wait (thresholds.findings_wait off).
 *
 * Defaults: 0 (real at once) for everything except the measured values
 * that jitter around their limits: offsets, spreads, drift, path delay
 * (30 s, two to thirty polls at the usual intervals: synctop choice). */
#ifndef SYNCTOP_FINDING_WAIT_H
#define SYNCTOP_FINDING_WAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "finding.h"
#include "thresholds.h"

/* Every code a rule can raise, in docs/checks.md order (the docs test
 * checks that the sources raise no code missing here). */
size_t finding_code_count(void);
/* The i-th code, i < finding_code_count(). */
const char *finding_code_at(size_t i);

/* The table's own copy of name (a static string), or NULL: not a code. */
const char *finding_code_lookup(const char *name);

/* The built-in wait of a code, in seconds (0 for an unknown code). */
double finding_wait_default(const char *code);

/* The wait that applies under th: a configured one (`for` in the
 * configuration file) or the default. */
double finding_wait_for(const thresholds *th, const char *code);

/* Sets a configured wait; code must come from finding_code_lookup().
 * Returns -1 when the table of overrides is full. */
int finding_wait_set(thresholds *th, const char *code, double seconds);

/* Carries `since` over from the findings the node had before (same code,
 * in prev[0..n_prev)) or starts it at now, and sets `pending` (only when
 * th->findings_wait).  For items[0..count). */
void finding_wait_settle(finding *items, int count, const finding *prev, int n_prev, const thresholds *th,
			 double now);

#endif
