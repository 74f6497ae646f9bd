/* pmc_rules.c - the health rules for the PTP part of an observation: port
 * states, the grandmaster, offsetFromMaster and the path delay.  Limits from
 * thresholds.h (docs/checks.md). */
#include <config.h>

#include "pmc_rules.h"
#include "pmc_sync.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

/* Protocol constants, not thresholds. */
#define PTP_DELAY_P2P 2 /* PORT_DATA_SET delayMechanism: peer-to-peer */
#define NAME_LEN HEALTH_NAME_LEN

static severity port_state_severity(ptp_port_state s)
{
	switch (s) {
	case PTP_PORT_LISTENING:
	case PTP_PORT_UNCALIBRATED:
	case PTP_PORT_PRE_MASTER:
		return SEVERITY_WARN;
	case PTP_PORT_FAULTY:
	case PTP_PORT_DISABLED:
	case PTP_PORT_INITIALIZING:
		return SEVERITY_CRIT;
	case PTP_PORT_UNKNOWN:
	case PTP_PORT_MASTER:
	case PTP_PORT_PASSIVE:
	case PTP_PORT_SLAVE:
	case PTP_PORT_GRAND_MASTER:
		break;
	}
	return SEVERITY_OK;
}

static void port_state_hint(finding *f, ptp_port_state s, const char *iface)
{
	switch (s) {
	case PTP_PORT_LISTENING:
		finding_hint(f, "No Announce from a master reaches this port: check that a grandmaster "
			     "runs in the same domain and that PTP traffic reaches %s; "
			     "`pmc -u -b 0 'GET PORT_DATA_SET'`.", iface);
		break;
	case PTP_PORT_UNCALIBRATED:
		finding_hint(f, "The servo has not locked; if it stays, look for servo state s0/s1 "
			     "and clock-adjust errors (`free_running`, no CAP_SYS_TIME) in "
			     "`journalctl -u ptp4l`.");
		break;
	case PTP_PORT_PRE_MASTER:
		finding_hint(f, "Becoming master after the qualification timeout; if it stays, "
			     "compare priorities: `pmc -u -b 0 'GET PARENT_DATA_SET'`.");
		break;
	case PTP_PORT_FAULTY:
		finding_hint(f, "ptp4l saw a fault (link down, timestamping error): `ip link show %s`, "
			     "`journalctl -u ptp4l`; it retries after fault_reset_interval.", iface);
		break;
	case PTP_PORT_DISABLED:
		finding_hint(f, "The port is disabled by configuration or management: check ptp4l.conf "
			     "for %s and `pmc -u -b 0 'GET PORT_DATA_SET'`.", iface);
		break;
	case PTP_PORT_INITIALIZING:
		finding_hint(f, "ptp4l has not finished setting the port up: look for socket or "
			     "timestamping errors in `journalctl -u ptp4l` and `ethtool -T %s`.", iface);
		break;
	default:
		break;
	}
}

static void rule_ptp_port_states(const ptp_obs *p, const nic_obs *nic, finding_list *out)
{
	for (int i = 0; i < ptp_port_count(p); i++) {
		const ptp_port *port = &p->ports[i];
		severity sev = port_state_severity(port->state);
		if (sev == SEVERITY_OK) {
			continue;
		}
		finding f;
		char label[NAME_LEN + 24], iface[NAME_LEN];
		finding_start(&f, sev, "ptp.port_state");
		finding_message(&f, "PTP %s is %s", health_port_label(port, i, label, sizeof label),
				ptp_port_state_name(port->state));
		port_state_hint(&f, port->state, health_port_iface(port, nic, iface, sizeof iface));
		health_add_finding(out, &f);
	}
}

static void rule_ptp_gm(const ptp_obs *p, finding_list *out)
{
	if (p->gm_present != 0) {
		return; /* present, or unknown */
	}
	for (int i = 0; i < ptp_port_count(p); i++) {
		ptp_port_state s = p->ports[i].state;
		if (s != PTP_PORT_SLAVE && s != PTP_PORT_UNCALIBRATED) {
			continue;
		}
		finding f;
		char label[NAME_LEN + 24];
		finding_start(&f, SEVERITY_CRIT, "ptp.gm_absent");
		finding_message(&f, "PTP %s is %s but ptp4l reports no grandmaster (gmPresent false)",
				health_port_label(&p->ports[i], i, label, sizeof label), ptp_port_state_name(s));
		finding_hint(&f, "`pmc -u -b 0 'GET TIME_STATUS_NP' 'GET PARENT_DATA_SET'`; check that "
			     "the grandmaster is up and its Announce messages reach this node.");
		health_add_finding(out, &f);
		return;
	}
}

static void rule_ptp_offset(const ptp_obs *p, const nic_obs *nic, const thresholds *th,
			    finding_list *out)
{
	const ptp_port *slave = ptp_locked_port(p);
	if (!slave) {
		return; /* a master's offset is meaningless; UNCALIBRATED is the port rule's */
	}
	int64_t off = p->offset_from_master_ns != PTP_NS_UNKNOWN ?
		p->offset_from_master_ns : p->master_offset_ns;
	if (off == PTP_NS_UNKNOWN) {
		return;
	}
	uint64_t mag = off < 0 ? (uint64_t)0 - (uint64_t)off : (uint64_t)off;
	severity sev = SEVERITY_OK;
	if (th->ptp_offset_crit_ns >= 0 && mag > (uint64_t)th->ptp_offset_crit_ns) {
		sev = SEVERITY_CRIT;
	} else if (th->ptp_offset_warn_ns >= 0 && mag > (uint64_t)th->ptp_offset_warn_ns) {
		sev = SEVERITY_WARN;
	}
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN], iface[NAME_LEN];
	health_port_iface(slave, nic, iface, sizeof iface);
	finding_start(&f, sev, "ptp.offset");
	finding_message(&f, "PTP offset from master %s on %s (%s above %s)",
			units_format_ns(off, value, sizeof value), iface, severity_name(sev),
			units_magnitude_ns(sev == SEVERITY_CRIT ? th->ptp_offset_crit_ns :
				     th->ptp_offset_warn_ns, limit, sizeof limit));
	finding_hint(&f, "`pmc -u -b 0 'GET CURRENT_DATA_SET'`; check servo state s2 and "
		     "clock-adjust errors in `journalctl -u ptp4l -u phc2sys`, and hardware "
		     "timestamping with `ethtool -T %s`.", iface);
	health_add_finding(out, &f);
}

static void rule_ptp_path_delay(const ptp_obs *p, const nic_obs *nic, const history *h,
				const thresholds *th, finding_list *out)
{
	const ptp_port *slave = ptp_locked_port(p);
	if (!slave) {
		return;
	}
	int64_t delay = p->mean_path_delay_ns;
	if (delay == PTP_NS_UNKNOWN && slave->delay_mechanism == PTP_DELAY_P2P) {
		delay = slave->peer_mean_path_delay_ns;
	}
	if (delay == PTP_NS_UNKNOWN) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], iface[NAME_LEN];
	health_port_iface(slave, nic, iface, sizeof iface);

	if (delay <= 0) {
		/* A signal cannot arrive before it was sent. */
		finding_start(&f, SEVERITY_CRIT, "ptp.path_delay");
		finding_message(&f, "Mean path delay %s on %s: must be positive",
				units_format_ns(delay, value, sizeof value), iface);
		finding_hint(&f, "Timestamps are broken or asymmetric: check `ethtool -T %s` "
			     "(hardware timestamping), that `delay_mechanism` matches the network "
			     "(E2E/P2P), and `delayAsymmetry` in ptp4l.conf.", iface);
		health_add_finding(out, &f);
		return;
	}

	int samples = 0;
	for (size_t i = 0; i < history_count(h); i++) {
		if (isfinite(history_at(h, i)->value[HISTORY_PATH_DELAY_NS])) {
			samples++;
		}
	}
	if (samples < th->ptp_path_delay_min_samples) {
		return;
	}
	double median = history_median(h, HISTORY_PATH_DELAY_NS, 0);
	if (!(median > 0)) {
		return;
	}
	double change = ((double)delay - median) / median;
	if (!(fabs(change) > th->ptp_path_delay_jump_warn_ratio)) {
		return;
	}
	char med[UNITS_BUF_LEN];
	finding_start(&f, SEVERITY_WARN, "ptp.path_delay");
	finding_message(&f, "Mean path delay %s on %s, %+.0f%% from the median %s of %d samples "
			"(warn above %.0f%%)", units_magnitude_ns(delay, value, sizeof value), iface,
			change * 100.0, units_magnitude_seconds(median * 1e-9, med, sizeof med), samples,
			th->ptp_path_delay_jump_warn_ratio * 100.0);
	finding_hint(&f, "The path to the master changed (route, switch, congestion, a transparent "
		     "clock gone): `pmc -u -b 0 'GET CURRENT_DATA_SET'` and the network topology.");
	health_add_finding(out, &f);
}

void pmc_rules(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	const history *h = ctx->history;
	const thresholds *th = ctx->th;
	rule_ptp_port_states(&o->ptp, &o->nic, out);
	rule_ptp_gm(&o->ptp, out);
	rule_ptp_offset(&o->ptp, &o->nic, th, out);
	rule_ptp_path_delay(&o->ptp, &o->nic, h, th, out);
	pmc_sync_rules(ctx, out);
}
