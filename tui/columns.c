/* columns.c - grid cells, sort keys and the width-driven column choice. */
#include <config.h>

#include "columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "sparkline.h"
#include "textwidth.h"
#include "units.h"

static const column_info infos[COL_COUNT] = {
	[COL_NODE] = {"NODE", "node", 10, 32, false, true, false},
	[COL_STATUS] = {"STAT", "status", 6, 6, false, true, true},
	[COL_SOURCE] = {"SOURCE", "source", 10, 24, false, true, false},
	[COL_STRATUM] = {"ST", "stratum", 3, 3, true, true, false},
	[COL_OFFSET] = {"OFFSET", "offset", 11, 11, true, true, true},
	[COL_CLOCK] = {"CLOCK", "clock", 11, 11, true, true, true},
	[COL_SPARK] = {"TREND", "trend", 8, 120, false, false, false},
	[COL_FREQ] = {"FREQ ppm", "frequency", 9, 9, true, true, true},
	[COL_SKEW] = {"SKEW", "skew", 7, 7, true, true, true},
	[COL_LEAP] = {"LEAP", "leap", 6, 6, false, true, true},
	[COL_PORT] = {"PORT", "port", 7, 12, false, true, false},
	[COL_PTP_OFFSET] = {"PTP OFFSET", "ptp-offset", 11, 11, true, true, true},
	[COL_DELAY] = {"PATH DELAY", "path-delay", 10, 10, true, true, true},
	[COL_HWTS] = {"TS", "timestamping", 4, 4, false, true, false},
	[COL_RTT] = {"RTT", "rtt", 7, 7, true, true, true},
	[COL_AGE] = {"AGE", "age", 5, 5, true, true, true},
};

const column_info *columns_info(column_id id)
{
	return &infos[id < COL_COUNT ? id : COL_NODE];
}

/* ------------------------------------------------------------ the model */

/* The port that says most about the node: the one it syncs through. */
/* PTP steers the node when a port follows a master. */
static bool ptp_follows(const node *nd)
{
	return nd->has_observation && ptp_following_port(&nd->obs.ptp) != NULL;
}

static bool chrony_ok(const node *nd)
{
	return nd->has_observation && nd->obs.chrony.state == OBS_OK;
}

/* chrony answered and has a reference: its offset, stratum, source and
 * skew mean something (observation.h, chrony_tracking_has_reference). */
static bool chrony_referenced(const node *nd)
{
	return chrony_ok(nd) && chrony_tracking_has_reference(&nd->obs.chrony.tracking);
}

static bool clock_ok(const node *nd)
{
	return nd->has_observation && nd->obs.clock.state == OBS_OK && isfinite(nd->obs.clock.offset_s);
}

static bool ptp_ok(const node *nd)
{
	return nd->has_observation && nd->obs.ptp.state == OBS_OK;
}

void columns_source(const node *nd, char *out, size_t out_len)
{
	const chrony_tracking *t = &nd->obs.chrony.tracking;

	if (out_len == 0) {
		return;
	}
	out[0] = '\0';
	if (ptp_follows(nd) || (!chrony_ok(nd) && ptp_ok(nd))) {
		const char *gm = cluster_node_grandmaster(&nd->obs.ptp);
		if (gm) { /* a LISTENING ptp4l names itself: nobody's time */
			snprintf(out, out_len, "%.*s", (int)strnlen(gm, PTP_ID_LEN), gm);
		}
	} else if (chrony_ok(nd)) {
		if (t->reference_name[0]) {
			snprintf(out, out_len, "%.*s", (int)strnlen(t->reference_name, sizeof t->reference_name),
				 t->reference_name);
		} else if (t->has_reference_id) {
			snprintf(out, out_len, "%08X", (unsigned)t->reference_id);
		}
	}
}

double columns_abs_offset(const node *nd)
{
	if (chrony_ok(nd) && isfinite(nd->obs.chrony.tracking.system_time_offset_s)) {
		return fabs(nd->obs.chrony.tracking.system_time_offset_s);
	}
	if (ptp_follows(nd) && nd->obs.ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
		return fabs((double)nd->obs.ptp.offset_from_master_ns) / 1e9;
	}
	return NAN;
}

static const char *hw_timestamping(const node *nd)
{
	const char *ts = observation_timestamping(&nd->obs);
	return ts ? ts : "?";
}

static const char *leap_short(const node *nd)
{
	if (chrony_ok(nd)) {
		switch (nd->obs.chrony.tracking.leap) {
		case CHRONY_LEAP_NORMAL: return "normal";
		case CHRONY_LEAP_INSERT: return "insert";
		case CHRONY_LEAP_DELETE: return "delete";
		case CHRONY_LEAP_UNSYNC: return "unsync";
		case CHRONY_LEAP_UNKNOWN: return "?";
		}
		return "?";
	}
	if (ptp_ok(nd)) {
		const ptp_obs *p = &nd->obs.ptp;
		if (p->leap61 == INT_UNKNOWN || p->leap59 == INT_UNKNOWN) {
			return "?";
		}
		return p->leap61 ? "insert" : p->leap59 ? "delete" : "normal";
	}
	return "-";
}

/* ------------------------------------------------------------- findings */

/* Which cell a finding is about; codes not listed only colour the status. */
static const struct {
	const char *code;
	column_id col;
} finding_cells[] = {
	{"chrony.offset", COL_OFFSET},
	{"chrony.error_bound", COL_OFFSET},
	{"chrony.frequency", COL_FREQ},
	{"chrony.drift", COL_FREQ},
	{"chrony.skew", COL_SKEW},
	{"chrony.leap", COL_LEAP},
	{"chrony.no_selected_source", COL_SOURCE},
	{"chrony.reach", COL_SOURCE},
	{"chrony.local_reference", COL_SOURCE},
	{"ptp.offset", COL_PTP_OFFSET},
	{"ptp.path_delay", COL_DELAY},
	{"ptp.port_state", COL_PORT},
	{"ptp.gm_absent", COL_SOURCE},
	{"nic.no_hw_timestamping", COL_HWTS},
	{"time.no_service", COL_SOURCE},
	{"clock.offset", COL_CLOCK},
	{"cluster.clock_median", COL_CLOCK},
	{"cluster.offset_spread", COL_OFFSET},
	{"cluster.ptp_spread", COL_PTP_OFFSET},
	{"cluster.grandmaster", COL_SOURCE},
	{"cluster.ptp_domain", COL_SOURCE},
	{"cluster.reference", COL_SOURCE},
	{"cluster.leap", COL_LEAP},
	{"cluster.utc_offset", COL_LEAP},
};

cell_tone columns_finding_tone(const node *nd, column_id id)
{
	severity worst = SEVERITY_OK;
	int count = nd->findings.count < 0 ? 0
		    : nd->findings.count > MAX_FINDINGS ? MAX_FINDINGS : nd->findings.count;
	for (int i = 0; i < count; i++) {
		const finding *f = &nd->findings.items[i];
		if (!f->code) {
			continue;
		}
		for (size_t k = 0; k < sizeof finding_cells / sizeof finding_cells[0]; k++) {
			if (finding_cells[k].col == id && strcmp(finding_cells[k].code, f->code) == 0 &&
			    f->sev > worst) {
				worst = f->sev;
			}
		}
	}
	return worst == SEVERITY_CRIT ? TONE_CRIT : worst == SEVERITY_WARN ? TONE_WARN : TONE_PLAIN;
}

/* ---------------------------------------------------------------- cells */

static void format_ppm(double v, bool sign, char *out, size_t len)
{
	if (!isfinite(v)) {
		snprintf(out, len, "?");
	} else {
		snprintf(out, len, sign ? "%+.3f" : "%.3f", v);
	}
}

static void format_age(double age, char *out, size_t len)
{
	if (age < 0) {
		age = 0; /* the clock stepped back: it is fresh, not from the future */
	}
	if (age < 60) {
		snprintf(out, len, "%ds", (int)age);
	} else if (age < 3600) {
		snprintf(out, len, "%dm", (int)(age / 60));
	} else if (age < 86400) {
		snprintf(out, len, "%dh", (int)(age / 3600));
	} else if (age < 86400.0 * 9999) {
		snprintf(out, len, "%dd", (int)(age / 86400));
	} else {
		snprintf(out, len, "old");
	}
}

static void format_seconds_cell(double s, char *out, size_t len)
{
	if (!isfinite(s)) {
		snprintf(out, len, "?");
	} else {
		units_format_seconds(s, out, len);
	}
}

static void format_ns_cell(int64_t ns, char *out, size_t len)
{
	if (ns == PTP_NS_UNKNOWN) {
		snprintf(out, len, "?");
	} else {
		units_format_ns(ns, out, len);
	}
}

void columns_cell(const node *nd, column_id id, int width, double now, bool utf8, column_cell *out)
{
	const observation *o = &nd->obs;
	char raw[128];
	bool na = false; /* the value does not apply to this node */

	out->text[0] = '\0';
	out->tone = TONE_PLAIN;
	switch (id) {
	case COL_NODE:
		tw_clean(nd->host, sizeof nd->host, utf8, out->text, sizeof out->text);
		return;
	case COL_STATUS: {
		static const char *const badge[] = {
			[NODE_STATUS_OK] = "  OK  ", [NODE_STATUS_WARN] = " WARN ",
			[NODE_STATUS_CRIT] = " CRIT ", [NODE_STATUS_UNKNOWN] = " UNKN ",
		};
		snprintf(out->text, sizeof out->text, "%s", badge[cluster_node_status(nd)]);
		out->tone = TONE_BADGE;
		return;
	}
	case COL_SOURCE:
		columns_source(nd, raw, sizeof raw);
		if (raw[0]) {
			tw_clean(raw, sizeof raw, utf8, out->text, sizeof out->text);
		} else {
			na = !(chrony_referenced(nd) || ptp_ok(nd));
			snprintf(out->text, sizeof out->text, na ? "-" : "?");
		}
		break;
	case COL_STRATUM: {
		int v = INT_UNKNOWN;
		if (ptp_follows(nd) || (!chrony_ok(nd) && ptp_ok(nd))) {
			v = o->ptp.steps_removed;
		} else if (chrony_referenced(nd)) {
			v = o->chrony.tracking.stratum;
		} else {
			na = true;
		}
		if (na) {
			snprintf(out->text, sizeof out->text, "-");
		} else if (v == INT_UNKNOWN) {
			snprintf(out->text, sizeof out->text, "?");
		} else {
			snprintf(out->text, sizeof out->text, "%d", v);
		}
		break;
	}
	case COL_OFFSET:
		if ((na = !chrony_referenced(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_seconds_cell(o->chrony.tracking.system_time_offset_s, out->text, sizeof out->text);
		}
		break;
	case COL_CLOCK:
		if ((na = !clock_ok(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_seconds_cell(o->clock.offset_s, out->text, sizeof out->text);
		}
		break;
	case COL_SPARK:
		sparkline_history(&nd->history, HISTORY_OFFSET_S, HISTORY_PTP_OFFSET_NS,
				  width > 0 ? (size_t)width : 0, utf8, out->text, sizeof out->text);
		if (out->tone == TONE_PLAIN && !nd->reachable) {
			out->tone = TONE_DIM;
		}
		return;
	case COL_FREQ:
		if ((na = !chrony_ok(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ppm(o->chrony.tracking.frequency_ppm, true, out->text, sizeof out->text);
		}
		break;
	case COL_SKEW:
		if ((na = !chrony_referenced(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ppm(o->chrony.tracking.skew_ppm, false, out->text, sizeof out->text);
		}
		break;
	case COL_LEAP:
		snprintf(out->text, sizeof out->text, "%s", leap_short(nd));
		na = strcmp(out->text, "-") == 0;
		break;
	case COL_PORT: {
		const ptp_port *port = nd->has_observation ? ptp_primary_port(&o->ptp) : NULL;
		if (port) {
			snprintf(out->text, sizeof out->text, "%s", ptp_port_state_name(port->state));
		} else {
			na = true;
			snprintf(out->text, sizeof out->text, "-");
		}
		break;
	}
	case COL_PTP_OFFSET:
		if ((na = !ptp_follows(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ns_cell(o->ptp.offset_from_master_ns, out->text, sizeof out->text);
		}
		break;
	case COL_DELAY:
		if ((na = !ptp_follows(nd))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_ns_cell(o->ptp.mean_path_delay_ns, out->text, sizeof out->text);
			/* a delay has no sign to show */
			memmove(out->text, units_unsigned(out->text), strlen(units_unsigned(out->text)) + 1);
		}
		break;
	case COL_HWTS:
		if ((na = !nd->has_observation)) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			snprintf(out->text, sizeof out->text, "%s", hw_timestamping(nd));
		}
		break;
	case COL_RTT:
		if ((na = !nd->has_observation)) {
			snprintf(out->text, sizeof out->text, "-");
		} else if (!isfinite(o->rtt_s)) {
			snprintf(out->text, sizeof out->text, "?");
		} else if (o->rtt_s < 0.01) {
			snprintf(out->text, sizeof out->text, "%.1f ms", o->rtt_s * 1e3);
		} else if (o->rtt_s < 10) {
			snprintf(out->text, sizeof out->text, "%.0f ms", o->rtt_s * 1e3);
		} else {
			snprintf(out->text, sizeof out->text, "%.0f s", o->rtt_s);
		}
		break;
	case COL_AGE:
		if ((na = !nd->has_observation || !isfinite(o->taken_at))) {
			snprintf(out->text, sizeof out->text, "-");
		} else {
			format_age(now - o->taken_at, out->text, sizeof out->text);
		}
		break;
	case COL_COUNT:
		return;
	}
	tw_ascii_micro(out->text, utf8);
	if (na || (nd->has_observation && !nd->reachable) || !nd->has_observation) {
		/* Stale values are never drawn as if fresh. */
		out->tone = TONE_DIM;
	} else {
		out->tone = columns_finding_tone(nd, id);
	}
}

unsigned columns_data_mask(const node *nd)
{
	unsigned m = 1u << COL_NODE | 1u << COL_STATUS;
	if (!nd->has_observation) {
		return m;
	}
	m |= 1u << COL_RTT | 1u << COL_AGE;
	if (chrony_ok(nd)) {
		m |= 1u << COL_SOURCE | 1u << COL_STRATUM | 1u << COL_OFFSET | 1u << COL_SPARK |
		     1u << COL_FREQ | 1u << COL_SKEW | 1u << COL_LEAP;
	}
	if (ptp_ok(nd)) {
		m |= 1u << COL_SOURCE | 1u << COL_STRATUM | 1u << COL_PORT | 1u << COL_LEAP |
		     1u << COL_SPARK;
		if (ptp_follows(nd)) {
			m |= 1u << COL_PTP_OFFSET | 1u << COL_DELAY;
		}
	}
	if (nd->obs.nic.state == OBS_OK || ptp_primary_port(&nd->obs.ptp)) {
		m |= 1u << COL_HWTS;
	}
	if (clock_ok(nd)) {
		m |= 1u << COL_CLOCK;
	}
	return m;
}

/* ---------------------------------------------------------------- layout */

/* What an operator needs most first: is the clock right (offset), is it
 * being steered sanely (frequency), is a leap second coming, are the
 * timestamps hardware ones; then where the time comes from and how fresh. */
static const column_id priority[COL_COUNT] = {
	COL_NODE, COL_STATUS, COL_OFFSET, COL_FREQ, COL_LEAP, COL_HWTS, COL_SOURCE, COL_PORT, COL_AGE,
	COL_PTP_OFFSET, COL_CLOCK, COL_SPARK, COL_STRATUM, COL_DELAY, COL_SKEW, COL_RTT,
};

void columns_layout(int width, unsigned data_mask, int node_width, column_layout *out)
{
	int w[COL_COUNT] = {0};
	bool on[COL_COUNT] = {false};
	int used = 0;
	int node_min;

	/* The name says which node it is: up to 20 columns of it come before
	 * any other column; short names need no wide column. */
	if (node_width < 4) {
		node_width = 4;
	}
	if (node_width > infos[COL_NODE].max_width) {
		node_width = infos[COL_NODE].max_width;
	}
	node_min = node_width < 20 ? node_width : 20;
	if (node_min > width - 1 - infos[COL_STATUS].min_width) {
		/* a narrow screen: the status still shows */
		node_min = width - 1 - infos[COL_STATUS].min_width;
		node_min = node_min < 4 ? 4 : node_min;
	}

	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < COL_COUNT; k++) {
			column_id id = priority[k];
			bool has = (data_mask >> id) & 1u;
			if (on[id] || has != (pass == 0)) {
				continue;
			}
			int need = (id == COL_NODE ? node_min : infos[id].min_width) + (used > 0 ? 1 : 0);
			if (used + need <= width || id == COL_NODE) {
				on[id] = true;
				w[id] = need - (used > 0 ? 1 : 0);
				used += need;
			}
		}
	}

	/* Spare room, in order: readable names first, then the trend. */
	static const struct {
		column_id id;
		int upto; /* 0 = the column's max */
	} grow[] = {
		{COL_NODE, 20}, {COL_PORT, 0}, {COL_SOURCE, 18}, {COL_SPARK, 30},
		{COL_NODE, 0}, {COL_SOURCE, 0}, {COL_SPARK, 0},
	};
	for (size_t g = 0; g < sizeof grow / sizeof grow[0]; g++) {
		column_id id = grow[g].id;
		int limit = grow[g].upto ? grow[g].upto : infos[id].max_width;
		if (id == COL_NODE && limit > node_width) {
			limit = node_width;
		}
		if (!on[id] || w[id] >= limit || used >= width) {
			continue;
		}
		int add = limit - w[id];
		if (add > width - used) {
			add = width - used;
		}
		w[id] += add;
		used += add;
	}

	out->n = 0;
	out->offset_shares_ptp = on[COL_OFFSET] && !on[COL_PTP_OFFSET] && ((data_mask >> COL_PTP_OFFSET) & 1u);
	int x = 0;
	for (int id = 0; id < COL_COUNT; id++) {
		if (!on[id]) {
			continue;
		}
		out->id[out->n] = (column_id)id;
		out->x[out->n] = x;
		out->width[out->n] = w[id];
		x += w[id] + 1;
		out->n++;
	}
}

const char *columns_offset_title(const column_layout *l)
{
	return l->offset_shares_ptp ? "OFFSET/PTP" : infos[COL_OFFSET].title;
}

void columns_offset_cell(const node *nd, double now, bool utf8, column_cell *out)
{
	if (chrony_ok(nd) || !ptp_follows(nd)) {
		columns_cell(nd, COL_OFFSET, 0, now, utf8, out);
		return;
	}
	column_cell ptp;
	columns_cell(nd, COL_PTP_OFFSET, 0, now, utf8, &ptp);
	snprintf(out->text, sizeof out->text, "P %.64s", ptp.text); /* a formatted number */
	out->tone = ptp.tone;
}

/* ------------------------------------------------------------ sort keys */

static double leap_badness(const node *nd)
{
	const char *s = leap_short(nd);
	if (strcmp(s, "unsync") == 0) {
		return 2;
	}
	if (strcmp(s, "insert") == 0 || strcmp(s, "delete") == 0) {
		return 1;
	}
	if (strcmp(s, "normal") == 0) {
		return 0;
	}
	return NAN;
}

void columns_sort_key(const node *nd, column_id id, double now, sort_key *out)
{
	const observation *o = &nd->obs;
	out->numeric = true;
	out->num = NAN;
	out->str[0] = '\0';
	switch (id) {
	case COL_NODE:
		out->numeric = false;
		snprintf(out->str, sizeof out->str, "%.*s", (int)strnlen(nd->host, sizeof nd->host), nd->host);
		break;
	case COL_STATUS:
		out->num = node_status_rank(cluster_node_status(nd));
		break;
	case COL_SOURCE:
		out->numeric = false;
		columns_source(nd, out->str, sizeof out->str);
		break;
	case COL_OFFSET:
	case COL_SPARK:
		if (chrony_ok(nd)) {
			out->num = fabs(o->chrony.tracking.system_time_offset_s);
		}
		break;
	case COL_FREQ:
		if (chrony_ok(nd)) {
			out->num = fabs(o->chrony.tracking.frequency_ppm);
		}
		break;
	case COL_CLOCK:
		if (clock_ok(nd)) {
			out->num = fabs(o->clock.offset_s);
		}
		break;
	case COL_SKEW:
		if (chrony_ok(nd)) {
			out->num = o->chrony.tracking.skew_ppm;
		}
		break;
	case COL_LEAP:
		out->num = leap_badness(nd);
		break;
	case COL_PTP_OFFSET:
		if (ptp_follows(nd) && o->ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
			out->num = fabs((double)o->ptp.offset_from_master_ns);
		}
		break;
	case COL_DELAY:
		if (ptp_follows(nd) && o->ptp.mean_path_delay_ns != PTP_NS_UNKNOWN) {
			out->num = (double)o->ptp.mean_path_delay_ns;
		}
		break;
	case COL_RTT:
		if (nd->has_observation) {
			out->num = o->rtt_s;
		}
		break;
	case COL_AGE:
		if (nd->has_observation && isfinite(o->taken_at)) {
			out->num = now - o->taken_at;
		}
		break;
	/* What the cell shows, read from the model (not formatted and parsed
	 * back: sorting 10,000 nodes must stay cheap); unknown sorts last. */
	case COL_STRATUM: {
		int v = INT_UNKNOWN;
		if (ptp_follows(nd) || (!chrony_ok(nd) && ptp_ok(nd))) {
			v = o->ptp.steps_removed;
		} else if (chrony_ok(nd)) {
			v = o->chrony.tracking.stratum;
		}
		if (v != INT_UNKNOWN) {
			out->num = (double)v;
		}
		break;
	}
	case COL_PORT: {
		const ptp_port *port = nd->has_observation ? ptp_primary_port(&o->ptp) : NULL;
		if (port) {
			out->numeric = false;
			snprintf(out->str, sizeof out->str, "%s", ptp_port_state_name(port->state));
		}
		break;
	}
	case COL_HWTS:
		if (nd->has_observation) {
			const char *ts = hw_timestamping(nd);
			if (strcmp(ts, "?") != 0) {
				out->numeric = false;
				snprintf(out->str, sizeof out->str, "%s", ts);
			}
		}
		break;
	case COL_COUNT:
		break;
	}
	if (out->numeric && !isfinite(out->num)) {
		out->num = NAN;
	}
}
