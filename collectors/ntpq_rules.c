/* ntpq_rules.c - the health rules for ntpd's part of an observation: leap
 * indicator, offset, system peer, reach and frequency.  The limits are
 * chrony's where they mean the same (the node's offset from its reference,
 * the clock's frequency): one group setting judges either daemon
 * (docs/checks.md). */
#include <config.h>

#include "ntpq_rules.h"

#include <math.h>
#include <stdio.h>

#include "ntpq_parse.h"
#include "units.h"


bool ntpq_peer_is_server(const ntp_peer *p)
{
	return p->type != 'p';
}

static void rule_leap(const ntp_obs *n, finding_list *out)
{
	finding f;
	if (n->leap == NTP_LEAP_UNSYNC) {
		finding_start(&f, SEVERITY_CRIT, "ntp.leap");
		finding_message(&f, "ntpd leap indicator 11: not synchronised");
		finding_hint(&f, "`ntpq -pn`: ntpd needs a peer marked '*'; check that the servers in "
			     "ntp.conf answer (UDP 123). ntpd keeps leap 11 until it has set the clock once.");
	} else if (n->leap == 1 || n->leap == 2) {
		finding_start(&f, SEVERITY_WARN, "ntp.leap");
		finding_message(&f, "ntpd leap indicator %s: a leap second is announced", ntp_leap_bits(n->leap));
		finding_hint(&f, "Nothing to fix if expected; `ntpq -c rv` after midnight UTC.");
	} else {
		return;
	}
	health_add_finding(out, &f);
}

static void rule_offset(const ntp_obs *n, const thresholds *th, finding_list *out)
{
	severity sev = health_grade(fabs(n->offset_s), th->chrony_offset_warn_s, th->chrony_offset_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding_start(&f, sev, "ntp.offset");
	finding_message(&f, "ntpd offset %s (%s above %s)", units_format_seconds(n->offset_s, value, sizeof value),
			severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->chrony_offset_crit_s : th->chrony_offset_warn_s,
						limit, sizeof limit));
	finding_hint(&f, "`ntpq -c rv -pn`; ntpd slews at most 500 ppm, so a large offset takes hours: "
		     "step once (`ntpd -gq`, or ntpsec's `ntpdig -S SERVER`) and check the peers' offsets.");
	health_add_finding(out, &f);
}

static int server_count(const ntp_obs *n)
{
	int k = 0;
	for (int i = 0; i < ntp_peer_count(n); i++) {
		k += ntpq_peer_is_server(&n->peers[i]);
	}
	return k;
}

static void rule_system_peer(const ntp_obs *n, finding_list *out)
{
	if (ntp_system_peer(n) || n->n_peers_total > ntp_peer_count(n)) {
		return; /* the system peer may be one we did not keep */
	}
	finding f;
	int servers = server_count(n);
	finding_start(&f, SEVERITY_CRIT, "ntp.no_system_peer");
	if (servers == 0) {
		finding_message(&f, "ntpd has no servers (%d association%s)", n->n_peers_total,
				n->n_peers_total == 1 ? "" : "s");
		finding_hint(&f, "Add `server NAME iburst` or `pool NAME iburst` lines to ntp.conf and "
			     "restart ntpd; `ntpq -pn` lists them.");
	} else {
		finding_message(&f, "No system peer ('*') among %d server%s", servers, servers == 1 ? "" : "s");
		finding_hint(&f, "`ntpq -pn`: reach 0 = unreachable, 'x' = falseticker, ' ' = rejected "
			     "(unsynchronised or too far); `ntpq -c \"rv ASSOCID\"` shows what a server sends.");
	}
	health_add_finding(out, &f);
}

static void rule_reach(const ntp_obs *n, finding_list *out)
{
	int total = ntp_peer_count(n), servers = 0, partial = 0;
	bool all_silent = n->n_peers_total <= total;
	const ntp_peer *first = NULL;
	for (int i = 0; i < total; i++) {
		const ntp_peer *p = &n->peers[i];
		if (!ntpq_peer_is_server(p)) {
			continue;
		}
		servers++;
		unsigned reach = p->reach & HEALTH_REACH_ALL_EIGHT;
		if (reach != 0) {
			all_silent = false;
		}
		bool used = p->tally == '*' || p->tally == 'o' || p->tally == '+';
		if (used && reach != HEALTH_REACH_ALL_EIGHT) {
			first = first ? first : p;
			partial++;
		}
	}
	if (servers == 0) {
		return;
	}
	finding f;
	if (all_silent) {
		finding_start(&f, SEVERITY_CRIT, "ntp.reach");
		finding_message(&f, "No server answered ntpd in the last 8 polls (%d server%s, reach 0)", servers,
				servers == 1 ? "" : "s");
		finding_hint(&f, "Check UDP 123 to the servers (firewall, routing) and the server lines in "
			     "ntp.conf; `ntpq -pn` shows who answers.");
		health_add_finding(out, &f);
		return;
	}
	if (!first) {
		return;
	}
	char name[HEALTH_NAME_LEN];
	HEALTH_CLEAN(name, first->remote);
	finding_start(&f, SEVERITY_WARN, "ntp.reach");
	if (partial > 1) {
		finding_message(&f, "Peer %s reach %03o: missed %d of the last 8 polls (and %d more used peer%s)",
				name, first->reach & HEALTH_REACH_ALL_EIGHT, health_missed_polls(first->reach), partial - 1,
				partial - 1 == 1 ? "" : "s");
	} else {
		finding_message(&f, "Peer %s reach %03o: missed %d of the last 8 polls", name,
				first->reach & HEALTH_REACH_ALL_EIGHT, health_missed_polls(first->reach));
	}
	finding_hint(&f, "Packets to or from the peer are lost: `ntpq -pn`; check the network path (`mtr %s`).",
		     name);
	health_add_finding(out, &f);
}

static void rule_frequency(const ntp_obs *n, const thresholds *th, finding_list *out)
{
	double freq = n->frequency_ppm;
	severity sev = health_grade(fabs(freq), th->chrony_frequency_warn_ppm, th->chrony_frequency_crit_ppm);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	finding_start(&f, sev, "ntp.frequency");
	finding_message(&f, "ntpd frequency %+.3f ppm (%s above %g ppm)", freq, severity_name(sev),
			sev == SEVERITY_CRIT ? th->chrony_frequency_crit_ppm : th->chrony_frequency_warn_ppm);
	finding_hint(&f, "The oscillator runs far from nominal: `ntpq -c rv`; check "
		     "/sys/devices/system/clocksource/clocksource0/current_clocksource and, on a VM, the "
		     "hypervisor's clock settings; a stale drift file (ntp.conf `driftfile`) can start it wrong.");
	health_add_finding(out, &f);
}

void ntpq_rules(const health_context *ctx, finding_list *out)
{
	const ntp_obs *n = &ctx->obs->ntp;
	/* Unsynchronised ntpd reports placeholders (offset 0, stratum 16:
	 * ntp_obs_settle); judging them would repeat ntp.leap with invented
	 * numbers. */
	bool numbers = ntp_has_reference(n);
	rule_leap(n, out);
	if (numbers) {
		rule_offset(n, ctx->th, out);
	}
	rule_system_peer(n, out);
	rule_reach(n, out);
	if (numbers) {
		rule_frequency(n, ctx->th, out);
	}
}
