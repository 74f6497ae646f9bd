/* ptp_sync.c - the age of the last Sync and how long a port's rx Sync count
 * stood still (ptp_sync.h). */
#include <config.h>

#include "ptp_sync.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define NS_PER_S 1000000000LL

/* PORT_PROPERTIES_NP timestamping under which ptp4l's clock is
 * CLOCK_REALTIME (linuxptp clock.c clock_create(): no PHC with TS_SOFTWARE;
 * pmc.c prints ts_str()). */
#define TIMESTAMPING_SOFTWARE "SOFTWARE"

double ptp_sync_age_s(int64_t ingress_ns, ptp_sync_timescale ingress_scale, const ptp_sync_reference *ref,
		      int utc_offset_s)
{
	if (ingress_ns == PTP_NS_UNKNOWN || ingress_ns <= 0) {
		return NAN;
	}
	/* The reference expressed in the ingress clock's timescale. */
	int64_t shift = 0;
	if (ref->scale != ingress_scale) {
		if (utc_offset_s == INT_UNKNOWN) {
			return NAN;
		}
		shift = (int64_t)utc_offset_s * NS_PER_S;
		if (ingress_scale == PTP_SYNC_UTC) {
			shift = -shift;
		}
	}
	bool have_before = ref->before_ns != PTP_NS_UNKNOWN;
	bool have_after = ref->after_ns != PTP_NS_UNKNOWN;
	if (!have_before && !have_after) {
		return NAN;
	}
	if (have_after && ingress_ns > ref->after_ns + shift) {
		return NAN; /* a Sync from the future: not the clock we read */
	}
	int64_t age_ns = have_before ? ref->before_ns + shift - ingress_ns : ref->after_ns + shift - ingress_ns;
	if (age_ns < 0) {
		/* arrived during the request (or, without an after read, the
		 * clocks disagree: then unknown) */
		return have_after ? 0.0 : NAN;
	}
	return (double)age_ns / (double)NS_PER_S;
}

double ptp_sync_last_age_s(const observation *obs)
{
	const ptp_obs *p = &obs->ptp;
	const ptp_port *port = ptp_following_port(p);
	if (!port) {
		return NAN;
	}
	if (strncmp(port->timestamping, TIMESTAMPING_SOFTWARE, sizeof port->timestamping) == 0) {
		/* ingress timestamps are the kernel's software ones: CLOCK_REALTIME */
		ptp_sync_reference ref = {
			.before_ns = p->realtime_before_ns, .after_ns = p->realtime_after_ns, .scale = PTP_SYNC_UTC,
		};
		return ptp_sync_age_s(p->ingress_time_ns, PTP_SYNC_UTC, &ref, p->current_utc_offset);
	}
	/* Hardware timestamping: ingress_time is in the PHC's time.  phc_ctl's
	 * cmp (CLOCK_REALTIME - PHC, read just after pmc, on this port's
	 * interface) turns the CLOCK_REALTIME reads around pmc into the PHC's
	 * own time, whatever its timescale: both are then in the same clock. */
	const phc_obs *phc = &obs->phc;
	if (phc->state != OBS_OK || phc->realtime_minus_phc_ns == PTP_NS_UNKNOWN ||
	    strncmp(phc->interface, port->interface, sizeof phc->interface) != 0 ||
	    p->realtime_before_ns == PTP_NS_UNKNOWN) {
		return NAN;
	}
	ptp_sync_reference ref = {
		.before_ns = p->realtime_before_ns - phc->realtime_minus_phc_ns,
		.after_ns = p->realtime_after_ns == PTP_NS_UNKNOWN ? PTP_NS_UNKNOWN
								    : p->realtime_after_ns - phc->realtime_minus_phc_ns,
		.scale = PTP_SYNC_PTP,
	};
	return ptp_sync_age_s(p->ingress_time_ns, PTP_SYNC_PTP, &ref, p->current_utc_offset);
}

/* 2^log as seconds; the field is an int8 on the wire (pmc prints %hhd). */
static double interval_s(int log2)
{
	if (log2 == INT_UNKNOWN || log2 < -128 || log2 > 127) {
		return NAN;
	}
	return ldexp(1.0, log2);
}

double ptp_sync_warn_s(const ptp_port *port, const thresholds *th)
{
	if (!(th->ptp_sync_age_warn_intervals >= 0)) {
		return NAN;
	}
	return th->ptp_sync_age_warn_intervals * interval_s(port->log_sync_interval);
}

double ptp_sync_crit_s(const ptp_port *port, const thresholds *th)
{
	const ptp_port_sync *s = &port->sync;
	if (!(th->ptp_sync_age_crit_receipt_timeouts >= 0) || s->announce_receipt_timeout == INT_UNKNOWN) {
		return NAN;
	}
	return th->ptp_sync_age_crit_receipt_timeouts * s->announce_receipt_timeout *
	       interval_s(s->log_announce_interval);
}

double ptp_sync_still_s(const ptp_port *port, double now_t)
{
	double since = port->sync.rx_sync_since;
	if (!isfinite(since) || !isfinite(now_t) || now_t < since) {
		return NAN;
	}
	return now_t - since;
}
