/* pmc_sync.h - does the node's PTP port still hear Sync messages?
 *
 * Two pieces of evidence, both judged as `ptp.no_sync` (docs/checks.md):
 *  - the age of the last Sync: TIME_STATUS_NP ingress_time (when the last
 *    Sync arrived, in the clock ptp4l timestamps with) against that clock
 *    read around the same pmc request;
 *  - a following port's rx Sync count (PORT_STATS_NP) standing still from
 *    one poll to a later one.
 * The limits are the port's own intervals: warn above
 * ptp_sync_age_warn_intervals sync intervals (2^logSyncInterval), crit above
 * ptp_sync_age_crit_receipt_timeouts announce receipt timeouts
 * (announceReceiptTimeout x 2^logAnnounceInterval), the point where ptp4l
 * itself gives the master up.  Everything here is pure.
 *
 * Which clock: under software timestamping ptp4l's clock is CLOCK_REALTIME,
 * read by the pmc collector's command before and after pmc; under hardware
 * timestamping it is the PHC, which needs a read of the PHC itself
 * (`phc_ctl IFACE -q get`): until an observation carries one,
 * pmc_sync_last_age_s() is unknown there and only the rx Sync count is
 * judged. */
#ifndef SYNCTOP_PMC_SYNC_H
#define SYNCTOP_PMC_SYNC_H

#include <stdint.h>

#include "finding.h"
#include "health_rule.h"
#include "observation.h"
#include "thresholds.h"

/* The timescale a clock keeps. */
typedef enum {
	PMC_TIMESCALE_UTC, /* CLOCK_REALTIME */
	PMC_TIMESCALE_PTP, /* a PHC on the PTP timescale: UTC + currentUtcOffset */
} pmc_timescale;

/* A reading of the clock to compare ingress_time with, taken around the
 * request that returned it. */
typedef struct {
	int64_t before_ns; /* just before the request; PTP_NS_UNKNOWN if not read */
	int64_t after_ns;  /* just after the answer; PTP_NS_UNKNOWN if not read */
	pmc_timescale scale;
} pmc_sync_reference;

/* Seconds since the Sync that arrived at ingress_ns (in ingress_scale) as
 * of the reference; utc_offset_s (currentUtcOffset) is used only when the
 * two timescales differ.  The reading before the request is preferred: pmc
 * waits 100 ms for late answers before it exits (pmc.c), which would add to
 * the age; a Sync that arrived during the request is 0 s old.  The reading
 * after the answer bounds it: an ingress time later than that is another
 * clock's, so the age is unknown.  NAN when unknown: ingress_ns 0 (no Sync
 * since ptp4l started, stepped the clock or changed grandmaster: clock.c
 * clock_synchronize(), handle_state_decision_event()) or PTP_NS_UNKNOWN, no
 * reading, an offset needed but unknown, or the clocks disagree. */
double pmc_sync_age_s(int64_t ingress_ns, pmc_timescale ingress_scale, const pmc_sync_reference *ref,
		      int utc_offset_s);

/* The age of the node's last Sync for every output: while a port follows a
 * master with software timestamping (PORT_PROPERTIES_NP), against the
 * CLOCK_REALTIME reads around pmc; else NAN (hardware timestamping needs
 * the PHC read, see the top). */
double pmc_sync_last_age_s(const ptp_obs *p);

/* The port's limits in seconds, NAN when its intervals are unknown or the
 * threshold is negative (disabled). */
double pmc_sync_warn_s(const ptp_port *port, const thresholds *th);
double pmc_sync_crit_s(const ptp_port *port, const thresholds *th);

/* Seconds the port's rx Sync count has stood still as of now_t (client
 * time), NAN when unknown. */
double pmc_sync_still_s(const ptp_port *port, double now_t);

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
