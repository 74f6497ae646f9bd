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

static int compare_nodes(const void *a, const void *b)
{
	const node *x = *(const node *const *)a, *y = *(const node *const *)b;
	int d = node_status_rank(x->status) - node_status_rank(y->status);
	return d ? d : strcmp(x->host, y->host);
}

static void write_node(FILE *f, const node *n)
{
	char host[40], offset[UNITS_BUF_LEN] = "-", freq[24] = "-", leap[20] = "-", port[16] = "-",
	     ptp_off[UNITS_BUF_LEN] = "-", rtt[24] = "-", note[200] = "";
	const observation *o = &n->obs;
	const char *ts = n->has_observation ? observation_timestamping(o) : NULL;

	sanitize_text(n->host, strlen(n->host), host, sizeof host, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
	if (n->has_observation && o->chrony.state == OBS_OK) {
		if (chrony_tracking_has_reference(&o->chrony.tracking)) {
			units_format_seconds(o->chrony.tracking.system_time_offset_s, offset, sizeof offset);
		}
		if (isfinite(o->chrony.tracking.frequency_ppm)) {
			snprintf(freq, sizeof freq, "%+.3f", o->chrony.tracking.frequency_ppm);
		}
		snprintf(leap, sizeof leap, "%s", chrony_leap_name(o->chrony.tracking.leap));
	} else if (n->has_observation && o->chrony.state != OBS_NOT_COLLECTED) {
		snprintf(leap, sizeof leap, "%s", obs_state_name(o->chrony.state));
	}
	const ptp_port *primary = n->has_observation ? ptp_primary_port(&o->ptp) : NULL;
	if (primary) {
		snprintf(port, sizeof port, "%s", ptp_port_state_name(primary->state));
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
		offset, freq, leap, port, ptp_off, ts ? ts : "?", rtt,
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
	units_format_seconds(s.service_max_abs_offset_s, maxoff, sizeof maxoff);
	units_format_seconds(s.service_offset_spread_s, spread, sizeof spread);
	fprintf(f, "%s  %zu node%s: %zu ok, %zu warn, %zu crit, %zu unknown; max |offset| %s, spread %s\n", when,
		s.nodes, s.nodes == 1 ? "" : "s", s.ok, s.warn, s.crit, s.unknown, maxoff, spread);
	fflush(f);
}
