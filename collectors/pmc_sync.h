/* pmc_sync.h - does the node's PTP port still hear Sync messages?
 *
 * Two pieces of evidence, both judged as `ptp.no_sync` (docs/checks.md)
 * against the port's own limits (core/ptp_sync.h):
 *  - the age of the last Sync: TIME_STATUS_NP ingress_time against the
 *    clock ptp4l timestamps with, read around the same pmc request
 *    (software timestamping only until a PHC read exists);
 *  - a following port's rx Sync count (PORT_STATS_NP) standing still from
 *    one poll to a later one, which needs the previous observation: the
 *    pmc collector's compare hook (core/collector.h).
 * linuxptp >= 4.0 also counts Announce and Sync receipt timeouts
 * (PORT_SERVICE_STATS_NP): a following port that counted one since the
 * last poll is a warn. */
#ifndef SYNCTOP_PMC_SYNC_H
#define SYNCTOP_PMC_SYNC_H

#include "finding.h"
#include "health_rule.h"
#include "observation.h"
#include "thresholds.h"

/* Severity of an age (strictly above a limit) and of a count standing
 * still for still_s (at or above: the last Sync came before the first poll
 * that saw the count, so it is older than still_s). */
severity pmc_sync_grade_age(double age_s, const ptp_port *port, const thresholds *th);
severity pmc_sync_grade_still(double still_s, const ptp_port *port, const thresholds *th);

/* Fills now's rx_sync_since from the node's previous observation: the
 * same port (identity) with the same rx Sync count keeps its since (or
 * before_t when it had none); a count that moved, went back (ptp4l
 * restarted) or a port not seen before starts at now_t.  Also fills
 * timeouts_new from PORT_SERVICE_STATS_NP (linuxptp >= 4.0). */
void pmc_sync_compare(ptp_obs *now, double now_t, const ptp_obs *before, double before_t);

/* ptp.no_sync for a following port (see the top). */
void pmc_sync_rules(const health_context *ctx, finding_list *out);

#endif
