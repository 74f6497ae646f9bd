/* pmc_sync.c - the rx Sync count across polls and the ptp.no_sync rule
 * (pmc_sync.h); the values themselves come from core/ptp_sync.c. */
#include <config.h>

#include "pmc_sync.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ptp_sync.h"
#include "units.h"

#define NAME_LEN HEALTH_NAME_LEN

severity pmc_sync_grade_age(double age_s, const ptp_port *port, const thresholds *th)
{
	return health_grade(age_s, ptp_sync_warn_s(port, th), ptp_sync_crit_s(port, th));
}

severity pmc_sync_grade_still(double still_s, const ptp_port *port, const thresholds *th)
{
	if (!isfinite(still_s)) {
		return SEVERITY_OK;
	}
	if (still_s >= ptp_sync_crit_s(port, th)) {
		return SEVERITY_CRIT; /* false for a NAN limit */
	}
	if (still_s >= ptp_sync_warn_s(port, th)) {
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
	double age = ptp_sync_last_age_s(ctx->obs);
	double still = ptp_sync_still_s(port, ctx->obs->taken_at);
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
		double lim = sev == SEVERITY_CRIT ? ptp_sync_crit_s(port, th) : ptp_sync_warn_s(port, th);
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
