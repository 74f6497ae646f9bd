/* report_text.c - the plain-text node table. */
#include <config.h>

#include "report_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "sanitize.h"
#include "units.h"
#include "xalloc.h"

static int status_rank(node_status s)
{
	switch (s) {
	case NODE_STATUS_CRIT: return 0;
	case NODE_STATUS_UNKNOWN: return 1;
	case NODE_STATUS_WARN: return 2;
	case NODE_STATUS_OK: return 3;
	}
	return 4;
}

static int compare_nodes(const void *a, const void *b)
{
	const node *x = *(const node *const *)a, *y = *(const node *const *)b;
	int d = status_rank(x->status) - status_rank(y->status);
	return d ? d : strcmp(x->host, y->host);
}

static const char *hw_timestamping(const nic_obs *nic)
{
	if (nic->state != OBS_OK) {
		return "?";
	}
	if ((nic->caps & NIC_CAP_HW_TX) && (nic->caps & NIC_CAP_HW_RX)) {
		return "HW";
	}
	if (nic->caps & (NIC_CAP_SW_TX | NIC_CAP_SW_RX)) {
		return "SW";
	}
	return "none";
}

static void write_node(FILE *f, const node *n)
{
	char host[40], offset[UNITS_BUF_LEN] = "-", freq[24] = "-", leap[20] = "-", port[16] = "-",
	     ptp_off[UNITS_BUF_LEN] = "-", rtt[24] = "-", note[200] = "";
	const observation *o = &n->obs;

	sanitize_text(n->host, strlen(n->host), host, sizeof host, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
	if (n->has_observation && o->chrony.state == OBS_OK) {
		units_format_seconds(o->chrony.tracking.system_time_offset_s, offset, sizeof offset);
		if (isfinite(o->chrony.tracking.frequency_ppm)) {
			snprintf(freq, sizeof freq, "%+.3f", o->chrony.tracking.frequency_ppm);
		}
		snprintf(leap, sizeof leap, "%s", chrony_leap_name(o->chrony.tracking.leap));
	} else if (n->has_observation && o->chrony.state != OBS_NOT_COLLECTED) {
		snprintf(leap, sizeof leap, "%s", obs_state_name(o->chrony.state));
	}
	if (n->has_observation && o->ptp.state == OBS_OK && o->ptp.n_ports > 0) {
		snprintf(port, sizeof port, "%s", ptp_port_state_name(o->ptp.ports[0].state));
		if (ptp_following_port(&o->ptp)) { /* else ptp4l's last, stale value */
			units_format_ns(o->ptp.offset_from_master_ns, ptp_off, sizeof ptp_off);
		}
	}
	if (n->has_observation && isfinite(o->rtt_s)) {
		snprintf(rtt, sizeof rtt, "%.0f ms", o->rtt_s * 1e3);
	}
	if (n->error[0]) {
		sanitize_text(n->error, strlen(n->error), note, sizeof note, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
	} else if (n->findings.count > 0) {
		snprintf(note, sizeof note, "%s", n->findings.items[0].code);
	}
	fprintf(f, "%-24s %-7s %12s %9s %-16s %-12s %10s %-4s %7s  %s\n", host, node_status_name(n->status),
		offset, freq, leap, port, ptp_off, n->has_observation ? hw_timestamping(&o->nic) : "?", rtt,
		note);
}

void report_text_write(FILE *f, const node *nodes, size_t n, double generated_at)
{
	cluster_summary s;
	char when[32] = "", maxoff[UNITS_BUF_LEN], spread[UNITS_BUF_LEN];
	time_t t = (time_t)generated_at;
	struct tm tm;

	if (gmtime_r(&t, &tm)) {
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	fprintf(f, "%-24s %-7s %12s %9s %-16s %-12s %10s %-4s %7s  %s\n", "NODE", "STATUS", "OFFSET", "FREQ",
		"LEAP", "PTP", "PTP-OFF", "TS", "RTT", "NOTE");
	/* order is an array of pointers: sizeof *order is meant */
	const node **order = xcalloc(n ? n : 1, sizeof *order); /* NOLINT(bugprone-sizeof-expression) */
	for (size_t i = 0; i < n; i++) {
		order[i] = &nodes[i];
	}
	qsort(order, n, sizeof *order, compare_nodes); /* NOLINT(bugprone-sizeof-expression) */
	for (size_t i = 0; i < n; i++) {
		write_node(f, order[i]);
	}
	free(order);
	cluster_summarise(nodes, n, &s);
	units_format_seconds(s.max_abs_offset_s, maxoff, sizeof maxoff);
	units_format_seconds(s.offset_spread_s, spread, sizeof spread);
	fprintf(f, "%s  %zu node%s: %zu ok, %zu warn, %zu crit, %zu unknown; max |offset| %s, spread %s\n", when,
		s.nodes, s.nodes == 1 ? "" : "s", s.ok, s.warn, s.crit, s.unknown, maxoff, spread);
	fflush(f);
}
