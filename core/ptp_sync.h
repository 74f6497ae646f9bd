/* ptp_sync.h - how old the node's last PTP Sync is, and how long a port's
 * rx Sync count has stood still: the values behind `ptp.no_sync`
 * (collectors/pmc_sync.h judges them), in core so that every output reads
 * them through the same functions.
 *
 * Which clock: TIME_STATUS_NP ingress_time is in the clock ptp4l
 * timestamps with.  Under software timestamping that is CLOCK_REALTIME,
 * which the pmc collector's command reads just before and after pmc; under
 * hardware timestamping it is the PHC: phc_ctl's cmp on the port's interface
 * (CLOCK_REALTIME - PHC, the phc part) turns those reads into the PHC's time;
 * where phc_ctl did not run, ptp_sync_last_age_s() is unknown there and only
 * the rx Sync count tells.
 * Everything here is pure. */
#ifndef SYNCTOP_PTP_SYNC_H
#define SYNCTOP_PTP_SYNC_H

#include <stdint.h>

#include "observation.h"
#include "thresholds.h"

/* The timescale a clock keeps. */
typedef enum {
	PTP_SYNC_UTC, /* CLOCK_REALTIME */
	PTP_SYNC_PTP, /* a PHC on the PTP timescale: UTC + currentUtcOffset */
} ptp_sync_timescale;

/* A reading of the clock to compare ingress_time with, taken around the
 * request that returned it. */
typedef struct {
	int64_t before_ns; /* just before the request; PTP_NS_UNKNOWN if not read */
	int64_t after_ns;  /* just after the answer; PTP_NS_UNKNOWN if not read */
	ptp_sync_timescale scale;
} ptp_sync_reference;

/* Seconds since the Sync that arrived at ingress_ns (in ingress_scale) as
 * of the reference; utc_offset_s (currentUtcOffset) is used only when the
 * two timescales differ.  The reading before the request is preferred: pmc
 * waits 100 ms for late answers before it exits (pmc.c), which would add to
 * the age; a Sync that arrived during the request is 0 s old.  The reading
 * after the answer bounds it: an ingress time later than that is another
 * clock's, so the age is unknown.  NAN when unknown: ingress_ns 0 (no Sync
 * since ptp4l started, stepped the clock or changed grandmaster: linuxptp
 * clock.c clock_synchronize(), handle_state_decision_event()) or
 * PTP_NS_UNKNOWN, no reading, an offset needed but unknown, or the clocks
 * disagree. */
double ptp_sync_age_s(int64_t ingress_ns, ptp_sync_timescale ingress_scale, const ptp_sync_reference *ref,
		      int utc_offset_s);

/* The age of the node's last Sync for every output, while a port follows a
 * master: with software timestamping (PORT_PROPERTIES_NP) against the
 * CLOCK_REALTIME reads around pmc; with hardware timestamping against the
 * same reads moved into the PHC's time by phc_ctl's cmp on that port's
 * interface; else NAN (see the top). */
double ptp_sync_last_age_s(const observation *obs);

/* The port's ptp.no_sync limits in seconds: ptp_sync_age_warn_intervals x
 * 2^logSyncInterval and ptp_sync_age_crit_receipt_timeouts x
 * announceReceiptTimeout x 2^logAnnounceInterval (where ptp4l itself gives
 * the master up); NAN when the port's intervals are unknown or the
 * threshold is negative (disabled). */
double ptp_sync_warn_s(const ptp_port *port, const thresholds *th);
double ptp_sync_crit_s(const ptp_port *port, const thresholds *th);

/* Seconds the port's rx Sync count has stood still as of now_t (client
 * time), NAN when unknown. */
double ptp_sync_still_s(const ptp_port *port, double now_t);

#endif
