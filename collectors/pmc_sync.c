/* pmc_sync.c - the age of the last Sync and the rx Sync count across polls,
 * and the ptp.no_sync rule built on them (pmc_sync.h). */
#include <config.h>

#include "pmc_sync.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

#define NAME_LEN HEALTH_NAME_LEN
#define NS_PER_S 1000000000LL

/* PORT_PROPERTIES_NP timestamping under which ptp4l's clock is
 * CLOCK_REALTIME (linuxptp clock.c clock_create(): no PHC with TS_SOFTWARE;
 * pmc.c prints ts_str()). */
#define TIMESTAMPING_SOFTWARE "SOFTWARE"

double pmc_sync_age_s(int64_t ingress_ns, pmc_timescale ingress_scale, const pmc_sync_reference *ref,
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
		if (ingress_scale == PMC_TIMESCALE_UTC) {
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

double pmc_sync_last_age_s(const ptp_obs *p)
{
	const ptp_port *port = ptp_following_port(p);
	if (!port || strncmp(port->timestamping, TIMESTAMPING_SOFTWARE, sizeof port->timestamping) != 0) {
		return NAN;
	}
	pmc_sync_reference ref = {
		.before_ns = p->realtime_before_ns, .after_ns = p->realtime_after_ns, .scale = PMC_TIMESCALE_UTC,
	};
	/* ingress timestamps are the kernel's software ones: CLOCK_REALTIME */
	return pmc_sync_age_s(p->ingress_time_ns, PMC_TIMESCALE_UTC, &ref, p->current_utc_offset);
}

/* 2^log as seconds; the field is an int8 on the wire (pmc prints %hhd). */
static double interval_s(int log2)
{
	if (log2 == INT_UNKNOWN || log2 < -128 || log2 > 127) {
		return NAN;
	}
	return ldexp(1.0, log2);
}

double pmc_sync_warn_s(const ptp_port *port, const thresholds *th)
{
	if (!(th->ptp_sync_age_warn_intervals >= 0)) {
		return NAN;
	}
	return th->ptp_sync_age_warn_intervals * interval_s(port->log_sync_interval);
}

double pmc_sync_crit_s(const ptp_port *port, const thresholds *th)
{
	const ptp_port_sync *s = &port->sync;
	if (!(th->ptp_sync_age_crit_receipt_timeouts >= 0) || s->announce_receipt_timeout == INT_UNKNOWN) {
		return NAN;
	}
	return th->ptp_sync_age_crit_receipt_timeouts * s->announce_receipt_timeout *
	       interval_s(s->log_announce_interval);
}

double pmc_sync_still_s(const ptp_port *port, double now_t)
{
	double since = port->sync.rx_sync_since;
	if (!isfinite(since) || !isfinite(now_t) || now_t < since) {
		return NAN;
	}
	return now_t - since;
}

severity pmc_sync_grade_age(double age_s, const ptp_port *port, const thresholds *th)
{
	return health_grade(age_s, pmc_sync_warn_s(port, th), pmc_sync_crit_s(port, th));
}

severity pmc_sync_grade_still(double still_s, const ptp_port *port, const thresholds *th)
{
	if (!isfinite(still_s)) {
		return SEVERITY_OK;
	}
	if (still_s >= pmc_sync_crit_s(port, th)) {
		return SEVERITY_CRIT; /* false for a NAN limit */
	}
	if (still_s >= pmc_sync_warn_s(port, th)) {
		return SEVERITY_WARN;
	}
	return SEVERITY_OK;
}

static const ptp_port *same_port(const ptp_obs *before, const ptp_port *port)
{
	if (before->state != OBS_OK || !port->port_identity[0]) {
		return NULL;
	}
	for (int i = 0; i < ptp_port_count(before); i++) {
		if (strcmp(before->ports[i].port_identity, port->port_identity) == 0) {
			return &before->ports[i];
		}
	}
	return NULL;
}

/* How much a counter grew, PTP_COUNT_UNKNOWN when either is unknown or it
 * went back (a restarted ptp4l counts from 0). */
static int64_t growth(int64_t before, int64_t now)
{
	if (before == PTP_COUNT_UNKNOWN || now == PTP_COUNT_UNKNOWN || now < before) {
		return PTP_COUNT_UNKNOWN;
	}
	return now - before;
}

void pmc_sync_compare(ptp_obs *now, double now_t, const ptp_obs *before, double before_t)
{
	if (now->state != OBS_OK) {
		return;
	}
	for (int i = 0; i < ptp_port_count(now); i++) {
		ptp_port_sync *s = &now->ports[i].sync;
		const ptp_port *old = same_port(before, &now->ports[i]);
		if (s->rx_sync == PTP_COUNT_UNKNOWN) {
			s->rx_sync_since = NAN;
		} else if (old && old->sync.rx_sync == s->rx_sync && isfinite(before_t) && before_t <= now_t) {
			double since = old->sync.rx_sync_since;
			s->rx_sync_since = isfinite(since) && since <= before_t ? since : before_t;
		} else {
			s->rx_sync_since = now_t;
		}
		if (old) {
			int64_t a = growth(old->sync.announce_timeouts, s->announce_timeouts);
			int64_t y = growth(old->sync.sync_timeouts, s->sync_timeouts);
			if (a != PTP_COUNT_UNKNOWN || y != PTP_COUNT_UNKNOWN) {
				s->timeouts_new = (a == PTP_COUNT_UNKNOWN ? 0 : a) + (y == PTP_COUNT_UNKNOWN ? 0 : y);
			}
		}
	}
}

static severity worse(severity a, severity b)
{
	return a > b ? a : b;
}

void pmc_sync_rules(const health_context *ctx, finding_list *out)
{
	const ptp_obs *p = &ctx->obs->ptp;
	const ptp_port *port = ptp_following_port(p);
	if (!port) {
		return; /* a port that follows nobody expects no Sync: the port-state rule's */
	}
	const thresholds *th = ctx->th;
	double age = pmc_sync_last_age_s(p);
	double still = pmc_sync_still_s(port, ctx->obs->taken_at);
	severity sev_age = pmc_sync_grade_age(age, port, th);
	severity sev_still = pmc_sync_grade_still(still, port, th);
	int64_t timeouts = port->sync.timeouts_new;
	severity sev = worse(sev_age, sev_still);
	if (sev == SEVERITY_OK && timeouts > 0) {
		sev = SEVERITY_WARN;
	}
	if (sev == SEVERITY_OK) {
		return;
	}

	finding f;
	char label[NAME_LEN + 24], iface[NAME_LEN], value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	health_port_label(port, (int)(port - p->ports), label, sizeof label);
	health_port_iface(port, &ctx->obs->nic, iface, sizeof iface);
	finding_start(&f, sev, "ptp.no_sync");
	if (sev_age == SEVERITY_OK && sev_still == SEVERITY_OK) {
		finding_message(&f, "PTP %s: ptp4l counted %lld Announce/Sync receipt timeout(s) since the last "
				"poll (PORT_SERVICE_STATS_NP)", label, (long long)timeouts);
	} else {
		bool by_age = sev_age >= sev_still;
		double shown = by_age ? age : still;
		double lim = sev == SEVERITY_CRIT ? pmc_sync_crit_s(port, th) : pmc_sync_warn_s(port, th);
		char why[64];
		if (sev == SEVERITY_CRIT) {
			snprintf(why, sizeof why, "%g x the announce receipt timeout",
				 th->ptp_sync_age_crit_receipt_timeouts);
		} else {
			snprintf(why, sizeof why, "%g sync intervals", th->ptp_sync_age_warn_intervals);
		}
		units_magnitude_seconds(shown, value, sizeof value);
		units_magnitude_seconds(lim, limit, sizeof limit);
		if (by_age) {
			finding_message(&f, "PTP %s is %s but its last Sync arrived %s ago (%s above %s: %s)",
					label, ptp_port_state_name(port->state), value, severity_name(sev), limit,
					why);
		} else {
			finding_message(&f, "PTP %s is %s but its rx Sync count has not moved for %s (%s at %s: "
					"%s)", label, ptp_port_state_name(port->state), value, severity_name(sev),
					limit, why);
		}
	}
	finding_hint(&f, "The master stopped sending Sync or they no longer reach %s: `pmc -u -b 0 "
		     "'GET PORT_STATS_NP'` twice (rx_Sync), `tcpdump -ni %s udp port 319`; check the "
		     "grandmaster, the switches and multicast (224.0.1.129) on the path.", iface, iface);
	health_add_finding(out, &f);
}
